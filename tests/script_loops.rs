//! The loop operations that work at any depth (`interchange`, `permute`, `reverse`, `shift`,
//! `skew`, `strip_mine`, `tile` over chosen loops): each gives the schedule of the affine map
//! it stands for, on a 4-deep nest that no per-depth procedure covered; their mistakes are
//! reported; and the verifier judges what they do.

mod common;

const DEEP: &str = "tests/data/messages/deep4.c";

/// The schedules `loopy show --script` prints after `script` (without the header line
/// naming the script file).
fn schedules(kernel: &str, script: &str, name: &str) -> String {
    let dir = common::scratch("loops", name);
    let path = dir.join("s.loopy");
    std::fs::write(&path, script).unwrap();
    let (code, out, err) = common::loopy(&[
        "show",
        "--color",
        "never",
        kernel,
        "--script",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{script}:\n{err}");
    let after = out.find("\nafter ").expect("after section");
    out[after..].lines().skip(2).collect::<Vec<_>>().join("\n")
}

fn same(kernel: &str, op: &str, map: &str, name: &str) {
    let a = schedules(kernel, op, &format!("{name}-op"));
    let b = schedules(kernel, map, &format!("{name}-map"));
    assert_eq!(a, b, "`{op}` differs from `{map}`");
}

#[test]
fn each_operation_is_its_affine_map_at_depth_four() {
    let cases = [
        (
            "interchange(S, 2, 4)",
            "affine(S, {[t,i,j,k] -> [t,k,j,i]})",
        ),
        ("interchange(S, 3, 1)", "affine(S, {[t,i,j] -> [j,i,t]})"),
        ("interchange(S)", "affine(S, {[t,i] -> [i,t]})"),
        (
            "permute(S, [4, 1, 3, 2])",
            "affine(S, {[t,i,j,k] -> [k,t,j,i]})",
        ),
        ("permute(S, [2, 1])", "affine(S, {[t,i] -> [i,t]})"),
        ("reverse(S, 4)", "affine(S, {[t,i,j,k] -> [t,i,j,-k]})"),
        ("reverse(S)", "affine(S, {[t] -> [-t]})"),
        ("shift(S, 3, -2)", "affine(S, {[t,i,j] -> [t,i,j-2]})"),
        ("shift(S, 5)", "affine(S, {[t] -> [t+5]})"),
        ("skew(S, 4, 1, 2)", "affine(S, {[t,i,j,k] -> [t,i,j,k+2t]})"),
        ("skew(S, 1, 3, -1)", "affine(S, {[t,i,j] -> [t-j,i,j]})"),
        ("skew(S, 3)", "affine(S, {[t,i] -> [t,i+3t]})"),
        (
            "strip_mine(S, 3, 8)",
            "affine(S, {[t,i,j] -> [t,i,j/8,j%8]})",
        ),
        ("strip_mine(S, 4)", "affine(S, {[t] -> [t/4,t%4]})"),
        (
            "tile(S, [2, 4], [4, 8])",
            "affine(S, {[t,i,j,k] -> [t,i/4,k/8,i%4,j,k%8]})",
        ),
        (
            "tile(S, [1, 2, 3, 4], [2, 3, 4, 5])",
            "tile(S, [2, 3, 4, 5])",
        ),
        ("tile(S, [3], [16])", "strip_mine(S, 3, 16)"),
        ("interchange3(S, 1, 3)", "interchange(S, 1, 3)"),
        ("reverse3(S, 2)", "reverse(S, 2)"),
        ("shift2(S, 2, 7)", "shift(S, 2, 7)"),
        ("tile3(S, 4, 4, 4)", "tile(S, [4, 4, 4])"),
        ("permute3(S, 3, 1, 2)", "permute(S, [3, 1, 2])"),
        ("skew3(S, 1, 2)", "skew(S, 3, 2, 2); skew(S, 2, 1, 1)"),
    ];
    for (k, (op, map)) in cases.iter().enumerate() {
        same(DEEP, op, map, &k.to_string());
    }
}

/// The unrolling procedures of the standard library are their strip-mining, interchange
/// and marks (`show` prints the marks with the schedules).
#[test]
fn unrolling_procedures_are_their_operations() {
    let cases = [
        (
            "unroll_jam(S, 4)",
            "strip_mine(S, 1, 4)\ninterchange(S, 2, 3)\nunroll(S, 3, 4)",
        ),
        (
            "unroll_jam2(S, 2)",
            "affine(S, {[t,i,j] -> [t,i/2,j,i%2]})\nunroll(S, 4, 2)",
        ),
        (
            "unroll_jam3(S, 3)",
            "strip_mine(S, 3, 3)\ninterchange(S, 4, 5)\nunroll(S, 5, 3)",
        ),
        (
            "register_tile(S, 4, 8)",
            "tile(S, [3, 1], [8, 4])\ninterchange(S, 3, 4)\nunroll(S, 4, 4)",
        ),
    ];
    for (k, (op, ops)) in cases.iter().enumerate() {
        same(DEEP, op, ops, &format!("unroll{k}"));
    }
    let shown = schedules(DEEP, "register_tile(S, 4, 8)", "unroll-shown");
    assert!(shown.contains("loop 4 unroll(4)"), "{shown}");
}

#[test]
fn rewritten_examples_keep_their_schedules() {
    // The example scripts now use the operations; the paper's affine maps give the same
    // schedules (the examples' snapshots pin them too).
    same(
        "examples/seidel-2d/seidel-2d.c",
        "skew(Loop, 3, 2, 1)\nskew(Loop, 2, 1, 1)\ntile(Loop, [2, 3], [32, 32])",
        "affine(Loop, {[t,i,j] -> [t,i+t,j+i]})\naffine(Loop, {[t,i,j] -> [t,i1,j1,i2,j2]: i1=[i/32] and i2=i%32 and j1=[j/32] and j2=j%32})",
        "seidel",
    );
    same(
        "examples/doitgen/doitgen.c",
        "realign(Init, Mult, 2)\ninterchange(Mult, 3, 4)\ntile(Mult, [3, 4], [64, 64])",
        "realign(Init, Mult, 2)\naffine(Mult, {[r,q,p,s] -> [r,q,s,p]})\naffine(Mult, {[r,q,s,p] -> [r,q,s1,p1,s2,p2]: p1=[p/64] and p2=p%64 and s1=[s/64] and s2=s%64})",
        "doitgen",
    );
}

fn error(kernel: &str, script: &str, name: &str) -> String {
    let dir = common::scratch("loops-err", name);
    let path = dir.join(format!("{name}.loopy"));
    std::fs::write(&path, script).unwrap();
    let (code, out, err) =
        common::loopy(&["check", "--color", "never", kernel, path.to_str().unwrap()]);
    assert_eq!(code, 2, "{script}: {out}{err}");
    // The scratch directory's name differs per run.
    err.replace(&format!("{}/", dir.display()), "")
}

#[test]
fn mistakes_are_reported() {
    let cases = [
        ("beyond_depth", "reverse(S, 5)", "only 4 loop(s) deep"),
        ("loop_zero", "shift(S, 0, 1)", "loop number from 1"),
        ("same_loop", "interchange(S, 2, 2)", "both are loop 2"),
        ("not_permutation", "permute(S, [1, 1, 2])", "each once"),
        ("skew_itself", "skew(S, 2, 2, 1)", "both are loop 2"),
        ("strip_zero", "strip_mine(S, 2, 0)", "must be positive"),
        ("tile_lengths", "tile(S, [1, 2], [8])", "one size per loop"),
        (
            "tile_repeat",
            "tile(S, [2, 2], [8, 8])",
            "distinct loop numbers",
        ),
        ("arity", "reverse(S, 1, 2)", "takes 2 arguments"),
        ("list_expected", "permute(S, 2)", "expects a list"),
        (
            "redefine",
            "def skew(l) { reverse(l) }",
            "is a built-in operation",
        ),
    ];
    for (name, script, needle) in cases {
        let err = error(DEEP, script, name);
        assert!(err.contains(needle), "{script}: {err}");
        insta::assert_snapshot!(format!("error_{name}"), err);
    }
}

fn verdict(kernel: &str, script: &str, name: &str) -> (i32, String) {
    let dir = common::scratch("loops-check", name);
    let path = dir.join("s.loopy");
    std::fs::write(&path, script).unwrap();
    let (code, out, err) =
        common::loopy(&["check", "--color", "never", kernel, path.to_str().unwrap()]);
    (code, format!("{out}{err}"))
}

#[test]
fn the_verifier_judges_the_operations() {
    let seidel = "examples/seidel-2d/seidel-2d.c";
    let cases: [(&str, &str, i32); 10] = [
        // Only t carries the dependence of the 4-deep nest: anything inside it is legal.
        (
            DEEP,
            "permute(S, [1, 4, 2, 3])\nreverse(S, 2)\ntile(S, [3, 4], [4, 4])",
            0,
        ),
        (DEEP, "skew(S, 4, 2, 3)\nstrip_mine(S, 1, 4)", 0),
        (DEEP, "reverse(S, 1)", 1),
        (DEEP, "interchange(S, 1, 4)\nreverse(S, 1)", 0),
        (DEEP, "interchange(S, 1, 4)\nreverse(S, 4)", 1),
        (seidel, "interchange(Loop, 2, 3)", 1),
        (
            seidel,
            "skew(Loop, 3, 2, 1)\nskew(Loop, 2, 1, 1)\ntile(Loop, [2, 3], [8, 8])",
            0,
        ),
        (seidel, "tile(Loop, [2, 3], [8, 8])", 1),
        (seidel, "shift(Loop, 3, 5)", 0),
        ("examples/div/div.c", "reverse(Div, 1)", 1),
    ];
    for (k, (kernel, script, want)) in cases.iter().enumerate() {
        let (code, report) = verdict(kernel, script, &k.to_string());
        assert_eq!(code, *want, "{kernel}: {script}\n{report}");
        if *want == 1 {
            assert!(report.contains("is not preserved"), "{report}");
        }
    }
}
