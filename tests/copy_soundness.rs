//! Soundness of `copy` against brute force: for random small kernels and random scripts
//! that stage an array in a buffer, every accepted script — executed instance by instance
//! for small parameter values, with the fill before and the write-back after each window as
//! the generated code does — reads the same value at every access and leaves the same array
//! as the original; and every reported copy witness is real (an unstaged instance of the
//! window touching a buffered element, one of the two writing).
//!
//! The generator favours bounded footprints (one affine subscript per statement, up to
//! three statements in one loop, groups that leave a statement between staged ones): of 128
//! cases about a third keep a copy, of which roughly one in six is refused with a witness.

use loopy::model::copy::{plan, CopyPlan};
use loopy::model::state::StateAccess;
use loopy::presburger::Int;
use loopy::script::interp::Interpreter;
use loopy::verify::{self, AccessKind, ViolationKind};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
#[path = "common/kernels.rs"]
mod kernels;
use kernels::*;

fn script_op() -> impl Strategy<Value = String> {
    let one = prop::sample::select(vec!["S0", "S1", "S2"]);
    prop_oneof![
        one.clone().prop_map(|x| format!("reverse({x})")),
        (one.clone(), -2..=2i64).prop_map(|(x, s)| format!("shift({x}, {s})")),
        one.clone()
            .prop_map(|x| format!("affine({x}, {{[i, j] -> [j, i]}})")),
        (one.clone(), 2..=3i64).prop_map(|(x, s)| format!("tile({x}, [{s}])")),
        (one.clone(), 0..=1i64).prop_map(|(x, n)| format!("realign(S0, {x}, {n})")),
        (one, 1..=2i64)
            .prop_map(|(x, k)| format!("(P{k}, Q{k}) = isplit({x}, {{[i] : i < {k}}}, 0)")),
    ]
}

fn copy_op() -> impl Strategy<Value = String> {
    let h = prop::sample::select(vec![
        "S0",
        "S1",
        "{S0, S1}",
        "{S0, S2}",
        "{S0, S1, S2}",
        "{S1, S2}",
    ]);
    (h, 1..=2i64).prop_map(|(x, k)| format!("copy({x}, {k}, A)"))
}

/// Two or three statements, mostly in one loop, with accesses `A[a*i + b*j + c]` (b mostly
/// 0, so that a row's footprint is bounded).
fn kernel() -> impl Strategy<Value = Spec> {
    let stmt = (
        1..=2usize,
        -1..=1i64,
        prop::sample::select(vec![0i64, 0, 0, 1]),
        prop::collection::vec((any::<bool>(), -1..=1i64), 1..4),
    )
        .prop_map(|(d, a, b, acc)| {
            (
                d,
                acc.into_iter()
                    .map(|(w, c)| (w, a, b, c))
                    .collect::<Vec<_>>(),
            )
        });
    (
        prop::collection::vec(stmt, 3),
        prop::sample::select(vec![true, true, true, false]),
    )
        .prop_map(|(stmts, shared)| Spec { stmts, shared })
}

/// One executed instance: its piece, new time, and accesses in order (reads first).
struct Run {
    piece: usize,
    new: Vec<Int>,
    old: Vec<Int>,
    outer: Vec<Int>,
    touches: Vec<(bool, Vec<Int>)>,
    id: usize,
}

type Value = (usize, usize); // (instance id, 0) written, or (usize::MAX, element) initial

fn initial(e: &[Int]) -> Value {
    (usize::MAX, e[0].to_i64().unwrap() as usize)
}

/// Values read by every instance (by id) and the final memory, running `order` on the
/// array, with the copy `c` (if any) staging its members.
fn execute(
    runs: &[Run],
    order: &[usize],
    c: Option<&CopyPlan>,
) -> (BTreeMap<usize, Vec<Value>>, BTreeMap<Vec<Int>, Value>) {
    let mut mem: BTreeMap<Vec<Int>, Value> = BTreeMap::new();
    let mut buf: BTreeMap<Vec<Int>, Value> = BTreeMap::new();
    let mut reads: BTreeMap<usize, Vec<Value>> = BTreeMap::new();
    let read = |m: &BTreeMap<Vec<Int>, Value>, e: &Vec<Int>| {
        m.get(e).cloned().unwrap_or_else(|| initial(e))
    };
    // The window of each instance (copy's outer iteration), if it is in one.
    let window = |r: &Run| -> Option<Vec<Int>> {
        let c = c?;
        let k = c.mark.outer;
        let _ = k;
        Some(r.outer.clone()).filter(|_| c.members.contains(&r.piece) || in_window(c, r))
    };
    let mut k = 0;
    while k < order.len() {
        let r = &runs[order[k]];
        match (c, window(r)) {
            (Some(c), Some(t)) => {
                // The whole window of t: consecutive in the new order.
                let mut end = k;
                while end < order.len() && window(&runs[order[end]]).as_ref() == Some(&t) {
                    end += 1;
                }
                let staged: Vec<usize> = order[k..end]
                    .iter()
                    .copied()
                    .filter(|&x| c.members.contains(&runs[x].piece))
                    .collect();
                // Fill the footprint of the staged instances.
                buf.clear();
                for &x in &staged {
                    for (_, e) in &runs[x].touches {
                        buf.insert(e.clone(), read(&mem, e));
                    }
                }
                for &x in &order[k..end] {
                    let r = &runs[x];
                    let mine = c.members.contains(&r.piece);
                    let m = if mine { &mut buf } else { &mut mem };
                    let mut v = vec![];
                    for (w, e) in &r.touches {
                        if !w {
                            v.push(read(m, e));
                        }
                    }
                    for (w, e) in &r.touches {
                        if *w {
                            m.insert(e.clone(), (r.id, 0));
                        }
                    }
                    reads.insert(r.id, v);
                }
                // Write back what the staged instances wrote.
                for &x in &staged {
                    for (w, e) in &runs[x].touches {
                        if *w {
                            mem.insert(e.clone(), buf[e]);
                        }
                    }
                }
                k = end;
            }
            _ => {
                let mut v = vec![];
                for (w, e) in &r.touches {
                    if !w {
                        v.push(read(&mem, e));
                    }
                }
                for (w, e) in &r.touches {
                    if *w {
                        mem.insert(e.clone(), (r.id, 0));
                    }
                }
                reads.insert(r.id, v);
                k += 1;
            }
        }
    }
    (reads, mem)
}

fn in_window(c: &CopyPlan, r: &Run) -> bool {
    let k = c.mark.outer;
    let pos: Vec<Int> = (0..=k).map(|j| r.new[2 * j].clone()).collect();
    pos[..k] == c.prefix[..] && pos[k] >= c.first && pos[k] <= c.last
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn accepted_copies_compute_what_the_original_computes(s in kernel(), before in prop::collection::vec(script_op(), 0..3), copy in copy_op(), after in prop::collection::vec(script_op(), 0..2)) {
        let mut ops = before.clone();
        ops.push(copy);
        ops.extend(after);
        let (mut state, prog) = build(&s);
        state.arrays = vec![("A".into(), "A".into(), 1, false)];
        state.accesses = prog
            .accesses
            .iter()
            .map(|a| StateAccess {
                stmt: a.stmt,
                array: a.array.clone(),
                write: a.kind == AccessKind::Write,
                relation: a.relation.clone().unwrap(),
                exact: true,
            })
            .collect();
        let deps = verify::dependences(&prog);
        let mut it = Interpreter::new(state);
        let mut kept = vec![];
        for (k, op) in ops.iter().enumerate() {
            if it.run_text(op, &format!("op{k}.loopy"), Path::new(".")).is_ok() {
                kept.push(op.clone());
            }
        }
        let script = kept.join("\n");
        let plans = plan(&it.state).expect("the interpreter keeps copies plannable");
        let mut violations = verify::check(&prog, &deps, &it.state.pieces, &it.history);
        let copy_violations = verify::check_copies(&prog, &plans, &it.state.pieces);
        violations.extend(copy_violations.iter().cloned().map(|c| verify::copies::into_violation(&prog, c)));
        for n in [0i64, 1, 2, 4] {
            let mut runs = vec![];
            for (k, st) in prog.stmts.iter().enumerate() {
                for x in points(&st.domain, n) {
                    let old = eval(&st.schedule, n, &x).unwrap();
                    let (pi, piece) = it.state.pieces.iter().enumerate().find(|(_, p)| {
                        p.stmt == k && eval(&p.it.intersect_domain(&p.domain), n, &x).is_some()
                    }).expect("every instance is in a piece");
                    let new = eval(&piece.schedule(), n, &x).unwrap();
                    let k_out = plans.first().map_or(0, |c| c.mark.outer);
                    let outer = eval(&piece.it, n, &x).unwrap()[..k_out].to_vec();
                    let mut touches: Vec<(bool, Vec<Int>)> = prog.accesses.iter().filter(|a| a.stmt == k).map(|a| {
                        (a.kind == AccessKind::Write, eval(a.relation.as_ref().unwrap(), n, &x).unwrap())
                    }).collect();
                    touches.sort_by_key(|t| t.0);
                    let id = runs.len();
                    runs.push(Run { piece: pi, new, old, outer, touches, id });
                }
            }
            let mut old_order: Vec<usize> = (0..runs.len()).collect();
            old_order.sort_by(|&a, &b| runs[a].old.cmp(&runs[b].old));
            let mut new_order: Vec<usize> = (0..runs.len()).collect();
            new_order.sort_by(|&a, &b| runs[a].new.cmp(&runs[b].new));
            if violations.is_empty() {
                let (r0, m0) = execute(&runs, &old_order, None);
                let (r1, m1) = execute(&runs, &new_order, plans.first());
                prop_assert_eq!(&r0, &r1, "{}: accepted, but N = {} reads differ", script, n);
                prop_assert_eq!(&m0, &m1, "{}: accepted, but N = {} final arrays differ", script, n);
            }
        }
        // Every copy witness is real.
        for v in &copy_violations {
            let c = plans.iter().find(|c| c.mark == v.mark).unwrap();
            let n = v.params.iter().find(|(p, _)| p == "N").map(|(_, x)| x.to_i64().unwrap()).unwrap_or(0);
            let other = it.state.pieces.iter().enumerate().find(|(_, p)| p.stmt == v.other_stmt && eval(&p.it.intersect_domain(&p.domain), n, &v.other).is_some()).unwrap();
            let staged = it.state.pieces.iter().enumerate().find(|(_, p)| p.stmt == v.staged_stmt && eval(&p.it.intersect_domain(&p.domain), n, &v.staged).is_some()).unwrap();
            prop_assert!(!c.members.contains(&other.0), "{script}: the witness is staged");
            prop_assert!(c.members.contains(&staged.0), "{script}: the partner is not staged");
            let k = c.mark.outer;
            let t1 = eval(&other.1.it, n, &v.other).unwrap()[..k].to_vec();
            let t2 = eval(&staged.1.it, n, &v.staged).unwrap()[..k].to_vec();
            prop_assert_eq!(&t1, &t2, "{}: not one outer iteration", script);
            prop_assert!(other.1.pos[..k] == c.prefix[..] && other.1.pos[k] >= c.first && other.1.pos[k] <= c.last, "{script}: not in the window");
            let touch = |stmt: usize, x: &[Int]| -> Vec<(bool, Vec<Int>)> {
                prog.accesses.iter().filter(|a| a.stmt == stmt).map(|a| (a.kind == AccessKind::Write, eval(a.relation.as_ref().unwrap(), n, x).unwrap())).collect()
            };
            let (a, b) = (touch(v.other_stmt, &v.other), touch(v.staged_stmt, &v.staged));
            prop_assert!(a.iter().any(|(wa, ea)| *ea == v.element && b.iter().any(|(wb, eb)| eb == ea && (*wa || *wb))), "{script}: no conflict on the element");
            prop_assert!(violations.iter().any(|x| matches!(&x.kind, ViolationKind::Copy(_))));
        }
    }
}
