//! Random small kernels with a temporary `t` reused by every iteration of `i` (the
//! expansion and contraction tests, `expand.rs` and `contract.rs`): statements `B0`, `B1`,
//! … each in a `j` loop of its own inside the `i` loop, writing, reading or updating
//! `t[j + a]`, with an optional writer of all of `t` before (`Pre`) and reader after
//! (`Post`).
#![allow(dead_code)] // each test crate uses its own subset

pub const N: i64 = 5;
pub const M: i64 = 8;

/// One statement inside the `i` loop: `for (j = lo; j <= hi; j++)` of a write `t[j + a] =
/// ...`, a read `out[i][j] += t[j + a]`, or an update `t[j + a] += ...`.
#[derive(Clone, Debug)]
pub struct Body {
    pub kind: u8,
    pub lo: i64,
    pub hi: i64,
    pub a: i64,
    pub in_l: bool,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub pre: bool,
    pub post: bool,
    pub body: Vec<Body>,
}

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

pub fn random_case(r: &mut Rng) -> Case {
    let n = 1 + r.below(3) as usize;
    let mut body = vec![];
    for _ in 0..n {
        let lo = r.below(3);
        let hi = lo + r.below(4);
        // Subscripts stay inside t[0..M).
        let a = r.below(3);
        body.push(Body {
            kind: r.below(3) as u8,
            lo,
            hi,
            a,
            in_l: r.below(5) != 0,
        });
    }
    if !body.iter().any(|b| b.in_l) {
        body[0].in_l = true;
    }
    Case {
        pre: r.below(2) == 0,
        post: r.below(3) == 0,
        body,
    }
}

pub fn c_text(c: &Case) -> String {
    let mut s = format!(
        "#include <stdio.h>\nstatic double t[{M}];\nstatic double out[{N}][{M}];\nint main(void)\n{{\n  int i, j;\n  for (j = 0; j < {M}; j++) t[j] = j + 0.25;\n  for (i = 0; i < {N}; i++) for (j = 0; j < {M}; j++) out[i][j] = 0;\n#pragma scop\n"
    );
    if c.pre {
        s.push_str(&format!(
            "  for (j = 0; j < {M}; j++)\nPre: t[j] = 2 * j + 1;\n"
        ));
    }
    s.push_str(&format!("  for (i = 0; i < {N}; i++) {{\n"));
    for (k, b) in c.body.iter().enumerate() {
        let stmt = match b.kind {
            0 => format!("t[j + {}] = i * 3 + j * 0.5;", b.a),
            1 => format!("out[i][j] += t[j + {}];", b.a),
            _ => format!("t[j + {}] += i + 1;", b.a),
        };
        s.push_str(&format!(
            "    for (j = {}; j <= {}; j++)\nB{k}:   {stmt}\n",
            b.lo, b.hi
        ));
    }
    s.push_str("  }\n");
    if c.post {
        s.push_str(&format!(
            "  for (j = 0; j < {M}; j++)\nPost: out[0][j] += t[j];\n"
        ));
    }
    s.push_str("#pragma endscop\n  for (j = 0; j < ");
    s.push_str(&format!(
        "{M}; j++) printf(\"%.17g\\n\", t[j]);\n  for (i = 0; i < {N}; i++) for (j = 0; j < {M}; j++) printf(\"%.17g\\n\", out[i][j]);\n  return 0;\n}}\n"
    ));
    s
}
