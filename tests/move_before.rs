//! `move_before(l, m)`: the errors of bad uses (with spans), the generated code of a
//! reordering compared bit for bit with the original program, and soundness against brute
//! force on random small kernels (the verifier's verdict agrees with executing both orders).

mod common;

use loopy::driver::{generate_from_script, Kernel, Run};
use loopy::frontend::Options;
use loopy::script::interp::Interpreter;
use loopy::verify::{self, ViolationKind};
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;
#[path = "common/kernels.rs"]
mod kernels;
use kernels::*;

fn check(kernel: &str, script: &str) -> (i32, String, String) {
    common::loopy(&["check", "--color", "never", kernel, script])
}

const SPLIT: &str = "tests/data/move_before/split.c";

#[test]
fn moving_part_of_a_loop_is_refused() {
    let (code, out, err) = check(SPLIT, "tests/data/move_before/split.loopy");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("statement `S2` shares loop 1"), "{err}");
    insta::assert_snapshot!("move_before_split", err);
}

#[test]
fn overlapping_components_are_refused() {
    let (code, out, err) = check(SPLIT, "tests/data/move_before/overlap.loopy");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("needs l and m apart at loop level 1"), "{err}");
    insta::assert_snapshot!("move_before_overlap", err);
}

#[test]
fn a_component_already_first_is_refused() {
    let (code, out, err) = check(SPLIT, "tests/data/move_before/already.loopy");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("l already runs before m"), "{err}");
    insta::assert_snapshot!("move_before_already", err);
}

#[test]
fn a_number_for_a_component_is_refused() {
    let (code, out, err) = check(SPLIT, "tests/data/move_before/kind.loopy");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("expects a loop component here"), "{err}");
}

/// φ on the positions: the moved loop takes the first place, the loops from `m` on move
/// after it by its width, everything else stays.
#[test]
fn positions_rotate_at_the_level_where_the_components_part() {
    let k = Kernel::load(Path::new(SPLIT), &Options::default()).unwrap();
    let r = Run::new(&k, "move_before(S2, S1)", "s.loopy", Path::new(".")).unwrap();
    let pos: Vec<Vec<i64>> = r
        .interp
        .state
        .pieces
        .iter()
        .map(|p| p.pos.iter().map(|x| x.to_i64().unwrap()).collect())
        .collect();
    // S0 [0, 0]; S1 [1, 0] and S2 [1, 1] share loop 1; S2 now runs first inside it.
    assert_eq!(pos, vec![vec![0, 0], vec![1, 1], vec![1, 0]]);
    let r = Run::new(
        &k,
        "move_before(lift(S1, 1), S0)",
        "s.loopy",
        Path::new("."),
    );
    assert!(r.is_err(), "a call is not an argument");
    let r = Run::new(
        &k,
        "L = lift(S1, 1)\nmove_before(L, S0)",
        "s.loopy",
        Path::new("."),
    )
    .unwrap();
    let pos: Vec<Vec<i64>> = r
        .interp
        .state
        .pieces
        .iter()
        .map(|p| p.pos.iter().map(|x| x.to_i64().unwrap()).collect())
        .collect();
    assert_eq!(pos, vec![vec![1, 0], vec![0, 0], vec![0, 1]]);
}

/// mvt with its second product moved first, interchanged and fused into the first: legal,
/// and the generated program prints exactly what the original prints.
#[test]
fn reordered_mvt_prints_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mvt");
    let c = root.join("mvt.c");
    let kernel = Kernel::load(&c, &Options::default()).unwrap();
    let script =
        "move_before(Second, First)\ninterchange(Second, 1, 2)\nrealign(Second, First, 2)\n";
    let r = Run::new(&kernel, script, "mvt-moved.loopy", &root).unwrap();
    assert!(r.check().is_empty(), "the reordering is legal");
    let g = generate_from_script(&kernel, &r.interp.state, "mvt-moved.loopy").unwrap();
    let body = &g.region;
    let (x2, x1) = (body.find("x2[").unwrap(), body.find("x1[").unwrap());
    assert!(x2 < x1, "Second runs first:\n{body}");
    let dir = common::scratch("move-before", "mvt");
    let new_src = dir.join("mvt.c");
    std::fs::write(&new_src, &g.file).unwrap();
    let (old_exe, new_exe) = (dir.join("mvt.old"), dir.join("mvt.new"));
    let flags = ["-O2", "-ffp-contract=off", "-lm"];
    common::compile(&c, &old_exe, &flags, "");
    let mut strict = flags.to_vec();
    strict.extend(["-Wall", "-Wextra", "-Werror"]);
    common::compile(&new_src, &new_exe, &strict, "");
    let run = |exe: &Path| {
        let out = Command::new(exe).output().unwrap();
        assert!(out.status.success(), "{} failed", exe.display());
        out.stdout
    };
    assert_eq!(run(&old_exe), run(&new_exe), "outputs differ");
}

fn reorder_script() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("move_before(S1, S0)".to_string()),
        (0..=1i64).prop_map(|n| format!("realign(S0, S1, {n})\nmove_before(S1, S0)")),
        (0..=1i64).prop_map(|n| format!("move_before(S1, S0)\nrealign(S1, S0, {n})")),
        Just("reverse(S1)\nmove_before(S1, S0)".to_string()),
        (-1..=1i64)
            .prop_map(|s| format!("move_before(S1, S0)\nshift(S0, {s})\nrealign(S1, S0, 1)")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random two-statement kernels, S1 moved before S0 (with fusion or distribution around
    /// it): when the verifier accepts, executing the new order instance by instance at small
    /// N runs every concretely dependent pair in the original order; when it refuses, its
    /// witness is a real pair run in the wrong order.
    #[test]
    fn verdicts_of_reorderings_agree_with_execution(s in spec(), script in reorder_script()) {
        prop_assume!(s.stmts.len() == 2);
        let (state, prog) = build(&s);
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        // A use the kernel does not allow (realign deeper than a statement) is an error, not
        // a verdict.
        if it.run_text(&script, "s.loopy", Path::new(".")).is_err() {
            return Ok(());
        }
        let violations = verify::check(&prog, &deps, &it.state.pieces, &it.history);
        let mut concrete = false;
        for n in [0i64, 1, 2, 3, 4] {
            let insts = instances(&prog, &it, n);
            for a in &insts {
                for b in &insts {
                    if (a.stmt, &a.iters) == (b.stmt, &b.iters) {
                        continue;
                    }
                    prop_assert!(a.new != b.new, "{script}: two instances at one time");
                    if a.old < b.old && conflict(a, b) && a.new >= b.new {
                        concrete = true;
                    }
                }
            }
        }
        prop_assert_eq!(violations.is_empty(), !concrete, "{}: verdict vs execution", script);
        for v in &violations {
            let n = v.params.iter().find(|(p, _)| p == "N").map(|(_, x)| x.to_i64().unwrap()).unwrap_or(0);
            let insts = instances(&prog, &it, n);
            let find = |i: &verify::Instance| insts.iter().find(|x| x.stmt == i.stmt && x.iters == i.iters).expect("witness instance exists");
            let (a, b) = (find(&v.first), find(&v.second));
            prop_assert!(matches!(v.kind, ViolationKind::Dependence(_)), "{script}: {:?}", v.kind);
            prop_assert!(a.old < b.old && conflict(a, b) && a.new >= b.new, "{script}: witness is not a violation");
        }
    }
}
