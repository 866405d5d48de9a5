//! `hoist` and `loopy slices` against brute force on random small kernels: an accepted
//! hoist runs every instance exactly once and keeps every concretely dependent pair in order;
//! a rejected one has a real witness; and the slice enumeration agrees with an exhaustive
//! search over (loop, alignment) choices executed instance by instance.

use loopy::presburger::Int;
use loopy::script::interp::Interpreter;
use loopy::verify::{self, slices::Oracle, Program, ViolationKind};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
#[path = "common/kernels.rs"]
mod kernels;
use kernels::*;

fn slice_text(s: &Spec, choice: &[(usize, i64)]) -> String {
    let parts: Vec<String> = choice
        .iter()
        .enumerate()
        .map(|(k, (l, a))| match *a {
            a if a < 0 => format!("S{k}: {l} - {}", -a),
            a => format!("S{k}: {l} + {a}"),
        })
        .collect();
    let seg: Vec<String> = (0..s.stmts.len()).map(|k| format!("S{k}")).collect();
    format!("hoist({{{}}}, {{{}}})", seg.join(", "), parts.join(", "))
}

/// Brute force: does the slice keep `x[l(s)] + a(s) <= y[l(t)] + a(t)` for every concretely
/// dependent pair at the parameter values tried?
fn brute_valid(prog: &Program, it: &Interpreter, choice: &[(usize, i64)], ns: &[i64]) -> bool {
    for &n in ns {
        let insts = instances(prog, it, n);
        for a in &insts {
            for b in &insts {
                if a.old < b.old && conflict(a, b) {
                    let (la, aa) = choice[a.stmt];
                    let (lb, ab) = choice[b.stmt];
                    if a.iters[la - 1].clone() + Int::from(aa)
                        > b.iters[lb - 1].clone() + Int::from(ab)
                    {
                        return false;
                    }
                }
            }
        }
    }
    true
}

fn choice_strategy() -> impl Strategy<Value = (Spec, Vec<(usize, i64)>)> {
    spec().prop_flat_map(|s| {
        let per: Vec<_> = s.stmts.iter().map(|(d, _)| (1..=*d, -1..=1i64)).collect();
        (Just(s), per)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn hoist_is_checked_exactly((s, choice) in choice_strategy()) {
        let (state, prog) = build(&s);
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        let script = slice_text(&s, &choice);
        it.run_text(&script, "h.loopy", Path::new(".")).expect("hoist applies");
        let violations = verify::check(&prog, &deps, &it.state.pieces, &it.history);
        for n in [0i64, 1, 2, 4] {
            // `instances` finds each instance's piece; every instance runs exactly once.
            let insts = instances(&prog, &it, n);
            for a in &insts {
                for b in &insts {
                    if (a.stmt, &a.iters) == (b.stmt, &b.iters) {
                        continue;
                    }
                    if violations.is_empty() {
                        prop_assert!(a.new != b.new, "{script}: accepted, but N = {n} runs two instances at once");
                        prop_assert!(!(a.old < b.old && conflict(a, b) && a.new >= b.new),
                            "{script}: accepted, but N = {n} reverses a dependence");
                    }
                }
            }
        }
        // The check agrees with the slice conditions (brute force), and witnesses are real.
        if violations.is_empty() {
            prop_assert!(brute_valid(&prog, &it, &choice, &[0, 1, 2, 3, 4]), "{script}: accepted an invalid slice");
        }
        for v in &violations {
            let n = v.params.iter().find(|(p, _)| p == "N").map(|(_, x)| x.to_i64().unwrap()).unwrap_or(0);
            let insts = instances(&prog, &it, n);
            let find = |i: &verify::Instance| insts.iter().find(|x| x.stmt == i.stmt && x.iters == i.iters).expect("witness instance exists");
            let (a, b) = (find(&v.first), find(&v.second));
            match v.kind {
                ViolationKind::NotOneToOne => {
                    prop_assert_eq!(&a.new, &b.new, "{}", script);
                }
                ViolationKind::Dependence(_) => {
                    prop_assert!(a.old < b.old, "{script}: witness not in original order");
                    prop_assert!(conflict(a, b), "{script}: witness instances do not conflict");
                    prop_assert!(a.new >= b.new, "{script}: witness not reversed");
                }
                ViolationKind::Mark(_) => {
                    prop_assert!(false, "{script}: a mark violation from a script without marks");
                }
                ViolationKind::Copy(_) => {
                    prop_assert!(false, "{script}: a copy violation from a script without copies");
                }
                ViolationKind::Contract(_) => {
                    prop_assert!(false, "{script}: a contraction violation from a script without expansions");
                }
            }
        }
    }

    #[test]
    fn slice_enumeration_matches_exhaustive_search(s in spec()) {
        let (state, prog) = build(&s);
        let deps = verify::dependences(&prog);
        let it = Interpreter::new(state);
        let seg: Vec<usize> = (0..s.stmts.len()).collect();
        let r = 1;
        let mut oracle = Oracle::new(&prog, &deps);
        let mut found: BTreeSet<Vec<(usize, i64)>> = BTreeSet::new();
        for (levels, aligns) in oracle.all_valid(&seg, r) {
            for a in aligns {
                found.insert(levels.iter().zip(&a).map(|(l, x)| (l + 1, *x)).collect());
            }
        }
        // Exhaustive: every level of every statement, alignments in [-r, r] (first at 0).
        let mut all: Vec<Vec<(usize, i64)>> = vec![vec![]];
        for (k, (d, _)) in s.stmts.iter().enumerate() {
            let aligns: Vec<i64> = if k == 0 { vec![0] } else { (-r..=r).collect() };
            all = all.into_iter().flat_map(|c| {
                let mut out = vec![];
                for l in 1..=*d {
                    for &a in &aligns {
                        let mut c2 = c.clone();
                        c2.push((l, a));
                        out.push(c2);
                    }
                }
                out
            }).collect();
        }
        for c in all {
            let brute = brute_valid(&prog, &it, &c, &[0, 1, 2, 3, 4, 5]);
            prop_assert_eq!(brute, found.contains(&c), "choice {:?}", c);
        }
    }
}

/// The random hoists above must exercise both verdicts: a generator that only ever produced
/// accepted (or only rejected) slices would leave half of the property untested. Counted over
/// a deterministic sample of the same strategy.
#[test]
fn random_hoists_are_both_accepted_and_rejected() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = choice_strategy();
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..48 {
        let (s, choice) = strategy.new_tree(&mut runner).expect("a case").current();
        let (state, prog) = build(&s);
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        let script = slice_text(&s, &choice);
        it.run_text(&script, "h.loopy", Path::new("."))
            .expect("hoist applies");
        match verify::check(&prog, &deps, &it.state.pieces, &it.history).is_empty() {
            true => accepted += 1,
            false => rejected += 1,
        }
    }
    eprintln!("random hoists: {accepted} accepted, {rejected} rejected");
    assert!(
        accepted >= 5 && rejected >= 5,
        "48 random hoists: {accepted} accepted, {rejected} rejected"
    );
}
