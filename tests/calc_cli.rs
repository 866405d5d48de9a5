//! `loopy calc` end to end: outputs, exit codes and diagnostics (snapshots).

mod common;
use common::loopy;

fn ok(args: &[&str]) -> String {
    let (code, out, err) = loopy(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

const TRI: &str = "[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }";

#[test]
fn empty() {
    assert_eq!(ok(&["calc", "empty", TRI]), "false\n");
    assert_eq!(
        ok(&["calc", "empty", "{ [i] : 0 <= 2i <= 1 and i != 0 }"]),
        "true\n"
    );
    // Rationally non-empty, integer empty.
    assert_eq!(
        ok(&[
            "calc",
            "empty",
            "{ [x, y] : 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 }"
        ]),
        "true\n"
    );
    assert_eq!(ok(&["calc", "empty", TRI, "--param", "N=0"]), "true\n");
}

#[test]
fn sample() {
    assert_eq!(ok(&["calc", "sample", TRI]), "[N] -> { [0, 0] : N = 1 }\n");
    assert_eq!(ok(&["calc", "sample", "{ [i] : 2i = 7 }"]), "none\n");
    let s = ok(&["calc", "sample", "{ [i, j] : 2i + 3j = 7 and i >= 5 }"]);
    // Parse the printed point back and check it lies in the set.
    let inner = s.trim().trim_start_matches("{ [").trim_end_matches("] }");
    let v: Vec<i64> = inner.split(", ").map(|x| x.parse().unwrap()).collect();
    assert_eq!(2 * v[0] + 3 * v[1], 7);
    assert!(v[0] >= 5);
}

#[test]
fn points() {
    assert_eq!(
        ok(&["calc", "points", TRI, "--param", "N=3"]),
        "[0, 0]\n[1, 0]\n[1, 1]\n[2, 0]\n[2, 1]\n[2, 2]\n"
    );
    assert_eq!(
        ok(&[
            "calc",
            "points",
            "{ [i] : exists (j : 0 <= i <= 10 and i <= 3j <= i + 1) }"
        ]),
        "[0]\n[2]\n[3]\n[5]\n[6]\n[8]\n[9]\n"
    );
    assert_eq!(
        ok(&[
            "calc",
            "points",
            "@examples/sets/triangle.isl",
            "--param",
            "N=2"
        ]),
        "[0, 0]\n[1, 0]\n[1, 1]\n"
    );
    assert_eq!(ok(&["calc", "points", "{ [i] : false }"]), "\n");
    // isl's `mod` is `%`.
    assert_eq!(
        ok(&[
            "calc",
            "points",
            "{ [i] : 0 <= i <= 9 and (i + 1) mod 4 = 0 }"
        ]),
        "[3]\n[7]\n"
    );
}

#[test]
fn apply_and_lex() {
    assert_eq!(
        ok(&[
            "calc",
            "apply",
            "{ [i, j] -> [j, i] }",
            "{ [i, j] : 0 <= i < 2 and j = 5 }"
        ]),
        "{ [5, o1] : 0 <= o1 <= 1 }\n"
    );
    assert_eq!(ok(&["calc", "lexmin", TRI]), "[N] -> { [0, 0] : N >= 1 }\n");
    assert_eq!(
        ok(&["calc", "lexmax", TRI]),
        "[N] -> { [N - 1, N - 1] : N >= 1 }\n"
    );
    assert_eq!(
        ok(&["calc", "lexmax", TRI, "--param", "N=4"]),
        "[N] -> { [3, 3] : N = 4 }\n"
    );
    assert_eq!(
        ok(&[
            "calc",
            "lexmin",
            "{ [i, j] : 0 <= i <= 3 and i + j >= 2 and 0 <= j <= 1 }"
        ]),
        "{ [1, 1] }\n"
    );
}

/// Printed sets and maps are coalesced (`for_print`): adjacent parts, the two residues of a
/// modulus over one box, an image made of two pieces. Without coalescing each prints two
/// parts.
#[test]
fn printed_sets_are_coalesced() {
    assert_eq!(
        ok(&[
            "calc",
            "simplify",
            "{ [i, j] : 0 <= i <= 9 and 0 <= j <= 4; [i, j] : 0 <= i <= 9 and 5 <= j <= 8 }"
        ]),
        "{ [i, j] : 0 <= i <= 9 and 0 <= j <= 8 }\n"
    );
    assert_eq!(
        ok(&[
            "calc",
            "simplify",
            "{ [i] : 0 <= i <= 9 and i % 2 = 0; [i] : 0 <= i <= 9 and i % 2 = 1 }"
        ]),
        "{ [i] : 0 <= i <= 9 }\n"
    );
    assert_eq!(
        ok(&[
            "calc",
            "simplify",
            "{ [i] -> [j] : 0 <= i <= 9 and j = i; [i] -> [j] : 10 <= i <= 20 and j = i }"
        ]),
        "{ [i] -> [i] : 0 <= i <= 20 }\n"
    );
    assert_eq!(
        ok(&[
            "calc",
            "apply",
            "{ [i] -> [i] : i <= 4; [i] -> [i] : i >= 5 }",
            "{ [i] : 0 <= i <= 9 }"
        ]),
        "{ [o0] : 0 <= o0 <= 9 }\n"
    );
    // Parts that do not make one conjunction stay apart.
    assert_eq!(
        ok(&[
            "calc",
            "simplify",
            "{ [i] : 0 <= i <= 3; [i] : 6 <= i <= 9 }"
        ]),
        "{ [i] : 0 <= i <= 3; [i] : 6 <= i <= 9 }\n"
    );
}

#[test]
fn scan() {
    insta::assert_snapshot!("scan_triangle", ok(&["calc", "scan", TRI]));
    insta::assert_snapshot!(
        "scan_strip_mined",
        ok(&[
            "calc",
            "scan",
            "{ S[i1, i2] : exists (i : 0 <= i < 70 and i1 = [i/32] and i2 = i % 32) }"
        ])
    );
}

fn diag(args: &[&str]) -> String {
    let (code, out, err) = loopy(args);
    assert_eq!(code, 2, "{args:?} should be bad input: {out}");
    assert!(out.is_empty());
    err
}

#[test]
fn diagnostics() {
    insta::assert_snapshot!(
        "unknown_identifier",
        diag(&["calc", "empty", "{ [i, j] : 0 <= i < N }"])
    );
    insta::assert_snapshot!(
        "syntax_error",
        diag(&["calc", "points", "{ [i] : 0 <= i <= 3 +* 2 }"])
    );
    insta::assert_snapshot!(
        "not_affine",
        diag(&["calc", "sample", "{ [i, j] : i * j = 4 }"])
    );
    insta::assert_snapshot!(
        "unbounded",
        diag(&["calc", "points", "{ [i, j] : 0 <= i <= 3 and j >= i }"])
    );
    insta::assert_snapshot!("free_parameter", diag(&["calc", "points", TRI]));
    insta::assert_snapshot!(
        "unknown_param_value",
        diag(&["calc", "points", TRI, "--param", "M=3"])
    );
    insta::assert_snapshot!("arity", diag(&["calc", "apply", "{ [i] -> [i] }", TRI]));
    insta::assert_snapshot!("map_for_set", diag(&["calc", "empty", "{ [i] -> [i] }"]));
    insta::assert_snapshot!(
        "missing_file",
        diag(&["calc", "empty", "@no/such/file.isl"])
    );
    insta::assert_snapshot!(
        "lexmin_unbounded",
        diag(&["calc", "lexmin", "[N] -> { [i] : i <= N }"])
    );
    // clap's own usage errors also exit 2
    let (code, _, _) = loopy(&["calc", "points"]);
    assert_eq!(code, 2);
    let (code, _, _) = loopy(&["calc", "points", TRI, "--param", "N"]);
    assert_eq!(code, 2);
}

#[test]
fn help_explains() {
    let out = ok(&["calc", "--help"]);
    for cmd in [
        "empty", "sample", "points", "apply", "lexmin", "lexmax", "simplify",
    ] {
        assert!(out.contains(cmd), "{cmd} missing from help:\n{out}");
    }
    let out = ok(&["calc", "points", "--help"]);
    assert!(out.contains("--param"));
    assert!(out.contains("@FILE"));
}

#[test]
fn work_budget() {
    // Past the budget: exit 2, the operation and the set named, never a guessed answer.
    let set = "{ [i, j] : exists (e0, e1 : 2e0 + 7e1 = i + 5j + 6 and 0 <= e0 <= 100 and \
               0 <= e1 <= 4) and 0 <= i <= 50 and 0 <= j <= 50 }";
    insta::assert_snapshot!(
        "budget_exhausted",
        diag(&["calc", "lexmax", "--budget", "40", "--color", "never", set])
    );
    // The same with enough budget answers.
    ok(&["calc", "lexmax", "--budget", "1000000", set]);
    insta::assert_snapshot!(
        "budget_zero",
        diag(&["calc", "empty", "--budget", "0", TRI])
    );
    // Other commands refuse the same way.
    let kernel = "examples/lu/lu.c";
    let script = "examples/lu/lu.loopy";
    for cmd in ["check", "apply"] {
        let err = diag(&[cmd, "--budget", "500", "--color", "never", kernel, script]);
        assert!(
            err.contains("the integer core gave up: work budget of 500 steps exhausted in "),
            "{cmd}: {err}"
        );
    }
    insta::assert_snapshot!(
        "budget_check",
        diag(&["check", "--budget", "500", "--color", "never", kernel, script])
    );
}
