//! `loopy show` end to end: JSON output, PolyBench-style sources with `-I`/`-D`, `$CC`.

mod common;
use std::process::Command;

fn show_env(args: &[&str], cc: &str) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_loopy"))
        .arg("show")
        .args(args)
        .env("CC", cc)
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run loopy");
    common::outcome(out)
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = show_env(args, "cc");
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

const GEMM: &str = "tests/data/polybench/gemm/gemm.c";
const UTILITIES: &str = "tests/data/polybench/utilities";

#[test]
fn json_output() {
    let out = ok(&["examples/matmul/matmul.c", "--format", "json"]);
    check_json(&out);
    insta::assert_snapshot!(out);
}

#[test]
fn polybench_style_kernel() {
    let out = ok(&[GEMM, "-I", UTILITIES]);
    insta::assert_snapshot!(out);
}

/// `-D` reaches the preprocessor: with scalar loop bounds the sizes are constants.
#[test]
fn defines() {
    let out = ok(&[
        GEMM,
        "-I",
        UTILITIES,
        "-D",
        "POLYBENCH_USE_SCALAR_LB",
        "-D",
        "MINI_DATASET",
    ]);
    assert!(out.contains("parameters: none"), "{out}");
    assert!(
        out.contains("domain:    { S0[i, j] : 0 <= i <= 19 and 0 <= j <= 24 }"),
        "{out}"
    );
}

/// `$CC` is the preprocessor, with its own options.
#[test]
fn cc_from_the_environment() {
    let (code, out, err) = show_env(
        &[GEMM, "-I", UTILITIES],
        "cc -DPOLYBENCH_USE_SCALAR_LB -DLARGE_DATASET",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 <= i <= 999 and 0 <= j <= 1099"), "{out}");
    let (code, _, err) = show_env(&[GEMM, "-I", UTILITIES], "no-such-compiler-here");
    assert_eq!(code, 2);
    assert!(
        err.contains("the C preprocessor failed: `no-such-compiler-here -E"),
        "{err}"
    );
}

/// A small JSON checker: the output parses as exactly one JSON value.
fn check_json(s: &str) {
    fn ws(b: &[u8], mut i: usize) -> usize {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    }
    fn string(b: &[u8], mut i: usize) -> usize {
        assert_eq!(b[i], b'"');
        i += 1;
        loop {
            match b[i] {
                b'"' => return i + 1,
                b'\\' => match b[i + 1] {
                    b'u' => {
                        assert!(b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit));
                        i += 6;
                    }
                    c => {
                        assert!(b"\"\\/bfnrt".contains(&c), "bad escape");
                        i += 2;
                    }
                },
                c => {
                    assert!(c >= 0x20, "control character in a string");
                    i += 1;
                }
            }
        }
    }
    fn value(b: &[u8], i: usize) -> usize {
        let i = ws(b, i);
        match b[i] {
            b'{' | b'[' => {
                let close = if b[i] == b'{' { b'}' } else { b']' };
                let mut j = ws(b, i + 1);
                if b[j] == close {
                    return j + 1;
                }
                loop {
                    if close == b'}' {
                        j = ws(b, string(b, ws(b, j)));
                        assert_eq!(b[j], b':');
                        j += 1;
                    }
                    j = ws(b, value(b, j));
                    match b[j] {
                        b',' => j += 1,
                        c if c == close => return j + 1,
                        c => panic!("unexpected `{}`", c as char),
                    }
                }
            }
            b'"' => string(b, i),
            b't' => i + 4,
            b'f' => i + 5,
            b'n' => i + 4,
            _ => {
                let mut j = i;
                while j < b.len() && (b[j] == b'-' || b[j].is_ascii_digit()) {
                    j += 1;
                }
                assert!(j > i, "not a value at {i}");
                j
            }
        }
    }
    let b = s.as_bytes();
    let end = ws(b, value(b, 0));
    assert_eq!(end, b.len(), "trailing text");
}
