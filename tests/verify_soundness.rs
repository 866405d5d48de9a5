//! Soundness of the verifier against brute force: for random small kernels and random
//! scripts, every accepted schedule — executed instance by instance for small parameter
//! values — runs every concretely dependent pair in the original order and gives distinct
//! times to distinct instances; and every reported witness is a real violation.

use loopy::presburger::Int;
use loopy::script::interp::Interpreter;
use loopy::verify::{self, ViolationKind};
use proptest::prelude::*;
use std::path::Path;
#[path = "common/kernels.rs"]
mod kernels;
use kernels::*;

fn script_op() -> impl Strategy<Value = String> {
    let h = prop::sample::select(vec!["S0", "S1"]);
    prop_oneof![
        h.clone().prop_map(|x| format!("reverse({x})")),
        (h.clone(), -2..=2i64).prop_map(|(x, s)| format!("shift({x}, {s})")),
        (h.clone(), -1..=1i64)
            .prop_map(|(x, f)| format!("affine({x}, {{[i, j] -> [i, j + {f}i]}})")),
        h.clone()
            .prop_map(|x| format!("affine({x}, {{[i, j] -> [j, i]}})")),
        (h.clone(), 2..=3i64).prop_map(|(x, s)| format!("affine({x}, {{[i] -> [i/{s}]}})")),
        (h.clone(), 2..=3i64).prop_map(|(x, s)| format!("tile({x}, [{s}])")),
        (h.clone(), 0..=1i64).prop_map(|(x, n)| format!("realign(S0, {x}, {n})")),
        (h.clone(), 1..=2i64)
            .prop_map(|(x, k)| format!("(P{k}, Q{k}) = isplit({x}, {{[i] : i < {k}}}, 0)")),
        h.prop_map(|x| format!("affine({x}, {{[i] -> [2i]}})")),
        prop::sample::select(vec!["move_before(S1, S0)", "move_before(S0, S1)"])
            .prop_map(str::to_string),
    ]
}
proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn accepted_schedules_respect_every_concrete_dependence(s in spec(), ops in prop::collection::vec(script_op(), 1..5)) {
        let (state, prog) = build(&s);
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        // Operations that are invalid here (arity, unknown handle) are skipped, as a REPL
        // would; the rest make the script.
        let mut kept = vec![];
        for (k, op) in ops.iter().enumerate() {
            if it.run_text(op, &format!("op{k}.loopy"), Path::new(".")).is_ok() {
                kept.push(op.clone());
            }
        }
        let script = kept.join("\n");
        let violations = verify::check(&prog, &deps, &it.state.pieces, &it.history);
        for n in [0i64, 1, 2, 4] {
            let insts = instances(&prog, &it, n);
            let mut bad_dep = None;
            let mut bad_inj = None;
            for a in &insts {
                for b in &insts {
                    if (a.stmt, &a.iters) == (b.stmt, &b.iters) {
                        continue;
                    }
                    if a.new == b.new {
                        bad_inj = Some((a.stmt, a.iters.clone(), b.stmt, b.iters.clone()));
                    }
                    if a.old < b.old && conflict(a, b) && a.new >= b.new {
                        bad_dep = Some((a.stmt, a.iters.clone(), b.stmt, b.iters.clone()));
                    }
                }
            }
            if violations.is_empty() {
                prop_assert!(bad_dep.is_none(), "{script}: accepted, but N = {n} breaks {bad_dep:?}");
                prop_assert!(bad_inj.is_none(), "{script}: accepted, but N = {n} collides {bad_inj:?}");
            }
        }
        // Every witness is real: check it concretely at its parameter value.
        for v in &violations {
            let n = v.params.iter().find(|(p, _)| p == "N").map(|(_, x)| x.to_i64().unwrap()).unwrap_or(0);
            let insts = instances(&prog, &it, n);
            let find = |i: &verify::Instance| insts.iter().find(|x| x.stmt == i.stmt && x.iters == i.iters).expect("witness instance exists");
            let (a, b) = (find(&v.first), find(&v.second));
            match v.kind {
                ViolationKind::NotOneToOne => {
                    prop_assert_eq!(&a.new, &b.new, "{}", script);
                    prop_assert!(a.iters != b.iters || a.stmt != b.stmt);
                }
                ViolationKind::Dependence(_) => {
                    prop_assert!(a.old < b.old, "{script}: witness not in original order");
                    prop_assert!(conflict(a, b), "{script}: witness instances do not conflict");
                    prop_assert!(a.new >= b.new, "{script}: witness not reversed");
                }
                ViolationKind::Mark(_) => prop_assert!(false, "{script}: no marks in these scripts"),
                ViolationKind::Copy(_) => prop_assert!(false, "{script}: no copies in these scripts"),
                ViolationKind::Contract(_) => prop_assert!(false, "{script}: no contractions in these scripts"),
            }
        }
    }
}

/// Is the generated loop at iteration dim `j` around time `t` marked (some piece with the
/// same positions up to `j` has a mark there)?
fn marked_at(it: &Interpreter, t: &[Int], j: usize) -> bool {
    it.state.pieces.iter().any(|p| {
        (0..=j).all(|k| p.pos[k] == t[2 * k])
            && p.marks.iter().any(|m| m.dim == j && m.kind.reorders())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The race check against brute force: after random operations and a random mark, an
    /// accepted mark has no two conflicting instances (one writes) in different iterations
    /// of a marked loop with equal times before it; every reported witness is such a pair.
    #[test]
    fn accepted_marks_have_no_concrete_race(
        s in spec(),
        ops in prop::collection::vec(script_op(), 0..4),
        mark in (prop::sample::select(vec!["parallel", "vectorize", "unroll"]), prop::sample::select(vec!["S0", "S1"]), 1..=3i64),
        unrolls in prop::collection::vec((prop::sample::select(vec!["S0", "S1"]), 1..=3i64, 1..=4i64), 0..2),
    ) {
        let (state, prog) = build(&s);
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        let mut kept = vec![];
        let (kind, h, k) = mark;
        // `unroll` marks (which keep the order) in the middle and at the end: never a race,
        // never reported, and they change no verdict of the others.
        let last = if kind == "unroll" { format!("unroll({h}, {k}, 2)") } else { format!("{kind}({h}, {k})") };
        let mut all: Vec<String> = ops.clone();
        for (n, (uh, uk, uu)) in unrolls.iter().enumerate() {
            all.insert((n * 2).min(all.len()), format!("unroll({uh}, {uk}, {uu})"));
        }
        all.push(last);
        for (n, op) in all.iter().enumerate() {
            if it.run_text(op, &format!("op{n}.loopy"), Path::new(".")).is_ok() {
                kept.push(op.clone());
            }
        }
        let script = kept.join("\n");
        let reported = verify::check_marks(&prog, &deps, &it.state.pieces);
        if !it.state.pieces.iter().any(|p| p.marks.iter().any(|m| m.kind.reorders())) {
            prop_assert!(reported.is_empty(), "{script}: only unroll marks, yet a mark violation");
        }
        let m = it.state.n_it();
        let race = |a: &Inst, b: &Inst, j: usize| {
            let l = 2 * j + 1;
            conflict(a, b) && a.new[..l] == b.new[..l] && a.new[l] != b.new[l] && marked_at(&it, &a.new, j)
        };
        if reported.is_empty() {
            for n in [0i64, 1, 2, 4] {
                let insts = instances(&prog, &it, n);
                for a in &insts {
                    for b in &insts {
                        for j in 0..m {
                            prop_assert!(!race(a, b, j), "{script}: accepted, but N = {n}: {:?} {:?} race in loop {}", a.iters, b.iters, j + 1);
                        }
                    }
                }
            }
        }
        for v in &reported {
            let n = v.params.iter().find(|(p, _)| p == "N").map(|(_, x)| x.to_i64().unwrap()).unwrap_or(0);
            let insts = instances(&prog, &it, n);
            let d = &deps[v.dep];
            let find = |s: usize, x: &[Int]| insts.iter().find(|i| i.stmt == s && i.iters == x).cloned().expect("witness instance exists");
            let (a, b) = (find(d.source, &v.source), find(d.sink, &v.sink));
            prop_assert!(race(&a, &b, v.level / 2), "{script}: witness {:?} {:?} is not a race", a.iters, b.iters);
        }
    }
}

/// A random kernel in which some statements are `+` updates `A[a*i + b*j + c] += e` (a read
/// and a write of one element, recorded as an update, its first two accesses; `e` may read
/// other elements of `A`) and the others random accesses.
fn reduction_spec() -> impl Strategy<Value = (Spec, Vec<bool>)> {
    let sub = (-1..=1i64, -1..=1i64, -1..=1i64);
    let access = (any::<bool>(), -1..=1i64, -1..=1i64, -1..=1i64);
    let stmt = (
        1..=2usize,
        any::<bool>(),
        sub,
        prop::collection::vec(access, 1..3),
    );
    (prop::collection::vec(stmt, 1..=2), any::<bool>()).prop_map(|(stmts, shared)| {
        let upd: Vec<bool> = stmts.iter().map(|s| s.1).collect();
        let stmts = stmts
            .into_iter()
            .map(|(d, u, (a, b, c), accs)| {
                if u {
                    // Reads of other elements: subscripts that differ from the update's
                    // (`j`'s coefficient does not count in a statement without `j`).
                    let other =
                        |x: &(bool, i64, i64, i64)| (x.1, x.3) != (a, c) || (d == 2 && x.2 != b);
                    let extra = accs
                        .into_iter()
                        .filter(other)
                        .map(|(_, a, b, c)| (false, a, b, c));
                    let mut all = vec![(false, a, b, c), (true, a, b, c)];
                    all.extend(extra);
                    (d, all)
                } else {
                    (d, accs)
                }
            })
            .collect();
        (Spec { stmts, shared }, upd)
    })
}

/// Whether two instances touch one element through accesses of which one writes, with
/// whether each of the two accesses is an update access (the first two of an update).
fn access_conflicts(a: &Inst, b: &Inst, upd: &[bool]) -> Vec<(bool, bool)> {
    let mut out = vec![];
    for (x, (wa, ea)) in a.touches.iter().enumerate() {
        for (y, (wb, eb)) in b.touches.iter().enumerate() {
            if (*wa || *wb) && ea == eb {
                out.push((upd[a.stmt] && x < 2, upd[b.stmt] && y < 2));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Reductions against brute force, element by element: under an accepted
    /// `parallel(l, k, +)`, two accesses in different iterations of one run of the marked
    /// loop that touch one element (one of them writing) are both update accesses (so no
    /// other access sees an element another iteration updates); every reported witness is
    /// two instances in different iterations of one run of the loop that touch one element.
    #[test]
    fn accepted_reductions_only_reorder_updates(
        (s, upd) in reduction_spec(),
        ops in prop::collection::vec(script_op(), 0..3),
        mark in (prop::sample::select(vec!["S0", "S1"]), 1..=2i64),
    ) {
        let (state, mut prog) = build(&s);
        for (k, u) in upd.iter().enumerate() {
            if *u {
                prog.stmts[k].update = Some(loopy::model::Update {
                    op: loopy::model::state::RedOp::Add,
                    array: "A".into(),
                });
            }
        }
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        let mut kept = vec![];
        let (h, k) = mark;
        let all: Vec<String> = ops.iter().cloned().chain([format!("parallel({h}, {k}, +)")]).collect();
        for (n, op) in all.iter().enumerate() {
            if it.run_text(op, &format!("op{n}.loopy"), Path::new(".")).is_ok() {
                kept.push(op.clone());
            }
        }
        let script = kept.join("\n");
        let reported = verify::check_marks(&prog, &deps, &it.state.pieces);
        let m = it.state.n_it();
        let same_run = |a: &Inst, b: &Inst, j: usize| {
            let l = 2 * j + 1;
            a.new[..l] == b.new[..l] && marked_at(&it, &a.new, j)
        };
        if reported.is_empty() {
            for n in [0i64, 1, 2, 4] {
                let insts = instances(&prog, &it, n);
                for a in &insts {
                    for b in &insts {
                        if (a.stmt, &a.iters) == (b.stmt, &b.iters) {
                            continue;
                        }
                        for j in 0..m {
                            if !same_run(a, b, j) {
                                continue;
                            }
                            let l = 2 * j + 1;
                            if a.new[l] == b.new[l] {
                                continue;
                            }
                            for (ua, ub) in access_conflicts(a, b, &upd) {
                                prop_assert!(ua && ub, "{script}: accepted, but N = {n}: S{}{:?} and S{}{:?} race in loop {} through an access that is not an update", a.stmt, a.iters, b.stmt, b.iters, j + 1);
                            }
                        }
                    }
                }
            }
        }
        for v in &reported {
            let n = v.params.iter().find(|(p, _)| p == "N").map(|(_, x)| x.to_i64().unwrap()).unwrap_or(0);
            let insts = instances(&prog, &it, n);
            let d = &deps[v.dep];
            let find = |s: usize, x: &[Int]| insts.iter().find(|i| i.stmt == s && i.iters == x).cloned().expect("witness instance exists");
            let (a, b) = (find(d.source, &v.source), find(d.sink, &v.sink));
            let l = v.level;
            prop_assert!(conflict(&a, &b) && same_run(&a, &b, v.level / 2) && a.new[l] != b.new[l], "{script}: witness {:?} {:?} is not two conflicting instances in different iterations of one run of the loop", a.iters, b.iters);
        }
    }
}
