//! Random edits of the example kernels never make the frontend panic: every input gives a
//! model or a diagnostic. The examples are preprocessed once; each case parses edited text
//! directly (no `cc` run per case), either the preprocessed text or the original file.

use loopy::frontend::{extract_preprocessed, Options};
use proptest::prelude::*;
use std::process::Command;
use std::sync::OnceLock;

const EXAMPLES: &[&str] = &[
    "2mm",
    "3mm",
    "adi",
    "atax",
    "bicg",
    "covariance",
    "div",
    "doitgen",
    "fdtd-2d",
    "gemm",
    "gemver",
    "gesummv",
    "gramschmidt",
    "heat-3d",
    "jacobi-1d",
    "jacobi-2d",
    "lu",
    "matmul",
    "mvt",
    "seidel-2d",
    "symm",
    "syr2k",
    "syrk",
    "trisolv",
    "trmm",
];

/// Fragments that steer edits towards constructs the frontend handles or rejects.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "=",
    "+=",
    "++",
    "--",
    "-",
    "*",
    "/",
    "%",
    "&",
    "->",
    ".",
    "?",
    ":",
    "<",
    "<=",
    "!=",
    "==",
    "&&",
    "||",
    "!",
    "i",
    "j",
    "n",
    "0",
    "1",
    "-1",
    "x",
    "A[i]",
    "sqrt(",
    "L:",
    "Init:",
    "\n",
    "/*",
    "*/",
    "\"",
    "'",
    "\\",
    "(i < n ? i : n)",
    "i % 2 == 0",
    "p->q",
    "*p",
    "&A[0]",
    "f(x)",
    "({ 1; })",
    "#pragma scop\n",
    "#pragma endscop\n",
    "# 3 \"x.c\"\n",
];

/// Whole statements, inserted between statements.
const STATEMENTS: &[&str] = &[
    "A[i][i] = 0;",
    "x = 1;",
    "t = t + 1;",
    "i = 0;",
    "n = 2;",
    "L: A[0][0] = 1;",
    "Init: x = 2;",
    "for (i = 0; i < n; i++) x += 1;",
    "for (int q = n; q >= 0; q -= 2) { double t = q; x = t; }",
    "for (i = 0; i != n; i++) ;",
    "for (i = 0; i < x; i++) A[i][0] = 1;",
    "if (i > 2) x = 1; else x = 2;",
    "if (i % 3 == 0 && n > 1) { T: x = 0; }",
    "if (x > 0) x = -x;",
    "while (x < 10) x = x * 2;",
    "do { x--; } while (x > 0);",
    "switch ((int) x) { case 1: x = 0; break; default: ; }",
    "goto L;",
    "break;",
    "continue;",
    "return;",
    "double t = x * 2;",
    "static int s = 1;",
    "typedef int T;",
    "{ }",
    ";",
    "A[i < n ? i : n][0] = sqrt(x);",
    "A[p[i]][0] = 1;",
    "*A = 0;",
    "f(A);",
];

struct Example {
    name: String,
    original: String,
    /// The original with comments blanked out (lang-c reads preprocessed text, which has
    /// none); `#` lines are skipped by lang-c itself.
    uncommented: String,
    preprocessed: String,
}

/// Replaces comments by spaces, keeping line breaks and byte offsets.
fn blank_comments(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b[i..].starts_with(b"/*") {
            let end = s[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            for c in &mut out[i..end.min(b.len())] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
            i = end;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("ASCII examples")
}

fn examples() -> &'static [Example] {
    static E: OnceLock<Vec<Example>> = OnceLock::new();
    E.get_or_init(|| {
        EXAMPLES
            .iter()
            .map(|n| {
                let name = format!("examples/{n}/{n}.c");
                let original = std::fs::read_to_string(&name).expect("example");
                let out = Command::new("cc")
                    .args(["-E", &name])
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .output()
                    .expect("cc -E");
                assert!(out.status.success(), "{name}");
                Example {
                    name,
                    uncommented: blank_comments(&original),
                    original,
                    preprocessed: String::from_utf8(out.stdout).expect("utf-8"),
                }
            })
            .collect()
    })
}

#[derive(Clone, Debug)]
enum Edit {
    /// Delete the token-ish run between two spaces.
    DeleteWord {
        at: u32,
    },
    /// Insert a fragment before a space.
    Insert {
        at: u32,
        token: usize,
    },
    /// Insert a whole statement after a `;`, `{` or `}`.
    Statement {
        at: u32,
        stmt: usize,
    },
    /// Raw bytes: delete some, or overwrite one.
    DeleteBytes {
        at: u32,
        len: u8,
    },
    Replace {
        at: u32,
        byte: u8,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => any::<u32>().prop_map(|at| Edit::DeleteWord { at }),
        1 => (any::<u32>(), 0..TOKENS.len()).prop_map(|(at, token)| Edit::Insert { at, token }),
        6 => (any::<u32>(), 0..STATEMENTS.len()).prop_map(|(at, stmt)| Edit::Statement { at, stmt }),
        1 => (any::<u32>(), 1u8..12).prop_map(|(at, len)| Edit::DeleteBytes { at, len }),
        1 => (any::<u32>(), any::<u8>()).prop_map(|(at, byte)| Edit::Replace { at, byte }),
    ]
}

/// Applies the edits, most of them inside the scop region (where the frontend works).
fn apply(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let t = String::from_utf8_lossy(&b).into_owned();
        let lo = t.find("#pragma scop").unwrap_or(0);
        let hi = t.find("#pragma endscop").map_or(t.len(), |p| p.max(lo));
        let n = b.len().max(1);
        let pos = |at: u32| -> usize {
            let at = at as usize;
            if at.is_multiple_of(7) {
                at % n
            } else {
                (lo + at % (hi - lo).max(1)).min(b.len())
            }
        };
        let next = |p: usize, f: &dyn Fn(u8) -> bool| -> usize {
            (p..b.len()).find(|&k| f(b[k])).unwrap_or(b.len())
        };
        match e {
            Edit::DeleteWord { at } => {
                let p = next(pos(*at), &|c: u8| c.is_ascii_whitespace());
                let q = next((p + 1).min(b.len()), &|c: u8| c.is_ascii_whitespace());
                b.drain(p..q);
            }
            Edit::Insert { at, token } => {
                let p = next(pos(*at), &|c: u8| c == b' ');
                b.splice(p..p, format!(" {}", TOKENS[*token]).into_bytes());
            }
            Edit::Statement { at, stmt } => {
                // After a `;`, `{` or `}` that ends a line (not inside a `for` header).
                let start = pos(*at);
                let p = (start..b.len().saturating_sub(1))
                    .find(|&k| matches!(b[k], b';' | b'{' | b'}') && b[k + 1] == b'\n')
                    .map_or(b.len(), |k| k + 1);
                b.splice(p..p, format!(" {} ", STATEMENTS[*stmt]).into_bytes());
            }
            Edit::DeleteBytes { at, len } => {
                let p = pos(*at);
                let q = (p + *len as usize).min(b.len());
                b.drain(p..q);
            }
            Edit::Replace { at, byte } => {
                let p = pos(*at);
                if p < b.len() {
                    b[p] = *byte;
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn check(name: &str, original: &str, text: String) {
    match extract_preprocessed(name, original, text, &Options::default()) {
        Ok(s) => {
            if std::env::var_os("FUZZ_STATS").is_some() {
                eprintln!("STAT ok");
            }
            let len = s.schedule_len();
            for st in &s.statements {
                assert_eq!(2 * st.schedule.depth() + 1, len);
                assert_eq!(st.schedule.positions.len(), st.schedule.depth() + 1);
                assert_eq!(st.domain.n_dim(), st.iterators.len());
            }
            for t in &s.tags {
                assert!(!t.statements.is_empty());
                assert!(t.statements.iter().all(|&k| k < s.statements.len()));
            }
            let _ = s.to_text();
            let _ = s.to_json().pretty();
        }
        Err(e) => {
            if std::env::var_os("FUZZ_STATS").is_some() {
                eprintln!("STAT {}", e.diagnostic.message);
            }
            assert!(
                !e.diagnostic.message.starts_with("internal error"),
                "{}",
                e.render(false)
            );
            let _ = e.render(false);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn edited_preprocessed_text(k in 0..EXAMPLES.len(), edits in prop::collection::vec(edit(), 1..4)) {
        let ex = &examples()[k];
        check(&ex.name, &ex.original, apply(&ex.preprocessed, &edits));
    }

    #[test]
    fn edited_original_text(k in 0..EXAMPLES.len(), edits in prop::collection::vec(edit(), 1..4)) {
        let ex = &examples()[k];
        let text = apply(&ex.uncommented, &edits);
        check(&ex.name, &text.clone(), text);
    }
}

/// The unedited examples go through the same paths.
#[test]
fn unedited() {
    for ex in examples() {
        for (orig, text) in [
            (&ex.original, &ex.preprocessed),
            (&ex.uncommented, &ex.uncommented),
        ] {
            let s = extract_preprocessed(&ex.name, orig, text.clone(), &Options::default())
                .unwrap_or_else(|e| panic!("{}", e.render(false)));
            assert!(!s.statements.is_empty());
        }
    }
}
