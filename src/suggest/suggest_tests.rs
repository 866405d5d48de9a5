//! `loopy suggest` end to end: suggestions legal and the smallest among the changes tried
//! (a shift, a fusion depth, skews before a tiling), `loopy check --suggest`.

use crate::suggest::Change;
use crate::testing::{loopy, scratch};
use std::path::Path;

fn kernel(dir: &Path, name: &str, body: &str) -> String {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(
        &c,
        format!(
            "void k(int n, double A[n], double B[n], double C[n]) {{\n  int i;\n\
             #pragma scop\n{body}#pragma endscop\n}}\n"
        ),
    )
    .unwrap();
    c.to_str().unwrap().to_string()
}

/// Every change `suggest` tries for a script, in its order (the space's and the fixed
/// list's).
fn all_changes(kernel: &str, script: &Path) -> Vec<Change> {
    let k = crate::driver::Kernel::load(Path::new(kernel), &Default::default()).unwrap();
    let mut run = crate::driver::Run::start(&k);
    let text = std::fs::read_to_string(script).unwrap();
    let base = script.parent().unwrap();
    let limit = crate::presburger::budget::DEFAULT;
    super::all_changes(&k, &mut run, &text, "illegal.loopy", base, limit)
}

/// The suggested line, taken from the output.
fn suggested(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| !l.starts_with("suggestion"))
        .skip(1)
        .map(|l| l.trim().to_string())
        .collect()
}

/// Every change cheaper than the suggestion is illegal (checked with `loopy check`), and
/// the suggestion itself is legal.
fn assert_minimal(kernel: &str, script: &str, dir: &Path) -> Vec<String> {
    let f = dir.join("illegal.loopy");
    std::fs::write(&f, script).unwrap();
    let (code, out, err) = loopy(&["suggest", kernel, f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let lines = suggested(&out);
    let all = all_changes(kernel, &f);
    let chosen = all
        .iter()
        .position(|c| c.lines == lines && out.contains(&c.what))
        .unwrap_or_else(|| panic!("{lines:?} is not among the changes"));
    let g = dir.join("fixed.loopy");
    std::fs::write(&g, &all[chosen].text).unwrap();
    let (code, o, e) = loopy(&["check", kernel, g.to_str().unwrap()]);
    assert_eq!(code, 0, "{o}{e}");
    for c in &all[..chosen] {
        std::fs::write(&g, &c.text).unwrap();
        let (code, o, _) = loopy(&["check", kernel, g.to_str().unwrap()]);
        assert_ne!(code, 0, "a smaller change is legal: {:?}\n{o}", c.lines);
    }
    lines
}

#[test]
fn suggestions_are_legal_and_minimal() {
    let d = scratch("search", "suggest");
    let c = kernel(
        &d,
        "chain",
        "  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 1; i < n; i++)\n    \
         B[i] = A[i - 1];\n",
    );
    // A shift one too far back: the next value.
    let s = assert_minimal(&c, "shift(S1, 1, -2)\nrealign(S0, S1, 1)\n", &d);
    assert_eq!(s, ["shift(S1, 1, -1)"]);
    // Three too far: no shift within one step is legal, but not fusing is.
    let s = assert_minimal(&c, "shift(S1, 1, -3)\nrealign(S0, S1, 1)\n", &d);
    assert_eq!(s, ["realign(S0, S1, 0)"]);
    // seidel-2d tiled without skewing: a skew line before the tiling.
    let s = assert_minimal(
        "examples/seidel-2d/seidel-2d.c",
        "tile(Loop, [2, 3], [32, 32])\n",
        &d,
    );
    assert_eq!(s, ["skew(Loop, 3, 2, 1)"]);
    // A legal script needs nothing.
    let f = d.join("legal.loopy");
    std::fs::write(&f, "shift(S1, 1, 1)\nrealign(S0, S1, 1)\n").unwrap();
    let (code, out, _) = loopy(&["suggest", &c, f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("legal already"), "{out}");
    // check --suggest: the verdict stays illegal (exit 1), the suggestion follows.
    let f = d.join("bad.loopy");
    std::fs::write(&f, "shift(S1, 1, -2)\nrealign(S0, S1, 1)\n").unwrap();
    let (code, out, _) = loopy(&["check", "--suggest", &c, f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("illegal:") && out.contains("shift(S1, 1, -1)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
