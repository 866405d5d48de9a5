//! Soundness of `copy` against brute force: for random small kernels and random scripts
//! that stage an array in one or two buffers, every accepted script — executed instance by
//! instance for small parameter values, with the fill before and the write-back after each
//! window as the generated code does, an inner copy filling from the buffer of the copy it
//! nests in — reads the same value at every access and leaves the same array as the
//! original; and every reported copy witness is real (an unstaged instance of the window
//! touching a buffered element, one of the two writing).
//!
//! The generator draws one affine subscript per statement, up to three statements in one
//! loop, groups that leave a statement between staged ones, and one or two copies with
//! script steps between them. A row's footprint grows with `N` where a subscript uses the
//! inner loop, which makes a box of run-time size. In one run of 128 cases, 63 kept one
//! copy (11 with a run-time size, 7 refused with a witness) and 10 kept two (4 apart, 6
//! nested, 3 of those with a run-time size); 256 cases are run.

use loopy::model::copy::CopyPlan;
use loopy::model::state::StateAccess;
use loopy::plan::copy::plan;
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

/// One executed instance: its piece, new time, iteration vector after the script, and
/// accesses in order (reads first).
struct Run {
    piece: usize,
    new: Vec<Int>,
    old: Vec<Int>,
    it: Vec<Int>,
    touches: Vec<(bool, Vec<Int>)>,
    id: usize,
}

type Value = (usize, usize); // (instance id, 0) written, or (usize::MAX, element) initial

fn initial(e: &[Int]) -> Value {
    (usize::MAX, e[0].to_i64().unwrap() as usize)
}

/// How many copies a copy fills from, transitively (0: it fills from the array).
fn depth(plans: &[CopyPlan], mut c: usize) -> usize {
    let mut d = 0;
    while let Some(s) = plans[c].source {
        c = s;
        d += 1;
    }
    d
}

/// Values read by every instance (by id) and the final memory, running `order` with the
/// copies `plans` as the generated code runs them: for each copy and each outer iteration
/// `t` with staged instances, the window of `t` (its instances are consecutive in the new
/// order) is preceded by the fill of the buffer from the copy's source (the array, or the
/// buffer of the copy it fills from) with the elements the staged instances touch, and
/// followed by the write-back of the elements they write; a staged instance accesses the
/// buffer of the innermost copy staging it. Fills at one instance run outer copy first,
/// write-backs inner copy first.
fn execute(
    runs: &[Run],
    order: &[usize],
    plans: &[CopyPlan],
) -> (BTreeMap<usize, Vec<Value>>, BTreeMap<Vec<Int>, Value>) {
    // Memory 0 is the array, memory 1 + c the buffer of copy c.
    let mut mem: Vec<BTreeMap<Vec<Int>, Value>> = vec![BTreeMap::new(); plans.len() + 1];
    let mut reads: BTreeMap<usize, Vec<Value>> = BTreeMap::new();
    // Events: (place in the order, phase 0 fill / 1 instance / 2 write-back, rank, what).
    enum Event {
        Fill(usize, Vec<usize>),
        Run(usize),
        Back(usize, Vec<usize>),
    }
    let mut events: Vec<((usize, usize, i64), Event)> = vec![];
    for (k, &x) in order.iter().enumerate() {
        events.push(((k, 1, 0), Event::Run(x)));
    }
    for (c, plan) in plans.iter().enumerate() {
        let kk = plan.mark.outer;
        let mut windows: BTreeMap<Vec<Int>, Vec<usize>> = BTreeMap::new();
        for (k, &x) in order.iter().enumerate() {
            if in_window(plan, &runs[x]) {
                windows
                    .entry(runs[x].it[..kk].to_vec())
                    .or_default()
                    .push(k);
            }
        }
        for places in windows.values() {
            let staged: Vec<usize> = places
                .iter()
                .map(|&k| order[k])
                .filter(|&x| plan.members.contains(&runs[x].piece))
                .collect();
            if staged.is_empty() {
                continue;
            }
            let (first, last) = (places[0], *places.last().unwrap());
            assert_eq!(last - first + 1, places.len(), "a window is consecutive");
            // Larger windows, then copies filled from, go first.
            let rank = (places.len() as i64) * 100 - depth(plans, c) as i64;
            events.push(((first, 0, -rank), Event::Fill(c, staged.clone())));
            events.push(((last, 2, rank), Event::Back(c, staged)));
        }
    }
    events.sort_by_key(|e| e.0);
    let src = |c: usize| plans[c].source.map_or(0, |s| s + 1);
    // The memory a run accesses: the buffer of the innermost copy staging it.
    let home = |r: &Run| -> usize {
        (0..plans.len())
            .filter(|&c| plans[c].members.contains(&r.piece))
            .max_by_key(|&c| depth(plans, c))
            .map_or(0, |c| c + 1)
    };
    for (_, e) in events {
        match e {
            Event::Fill(c, staged) => {
                mem[c + 1].clear();
                for x in staged {
                    for (_, e) in &runs[x].touches {
                        let v = mem[src(c)].get(e).cloned().unwrap_or_else(|| initial(e));
                        mem[c + 1].insert(e.clone(), v);
                    }
                }
            }
            Event::Back(c, staged) => {
                for x in staged {
                    for (w, e) in &runs[x].touches {
                        if *w {
                            let v = mem[c + 1][e];
                            mem[src(c)].insert(e.clone(), v);
                        }
                    }
                }
            }
            Event::Run(x) => {
                let r = &runs[x];
                let m = home(r);
                let mut v = vec![];
                for (w, e) in &r.touches {
                    if !w {
                        v.push(mem[m].get(e).cloned().unwrap_or_else(|| initial(e)));
                    }
                }
                for (w, e) in &r.touches {
                    if *w {
                        mem[m].insert(e.clone(), (r.id, 0));
                    }
                }
                reads.insert(r.id, v);
            }
        }
    }
    (reads, mem.swap_remove(0))
}

fn in_window(c: &CopyPlan, r: &Run) -> bool {
    let k = c.mark.outer;
    let pos: Vec<Int> = (0..=k).map(|j| r.new[2 * j].clone()).collect();
    pos[..k] == c.prefix[..] && pos[k] >= c.first && pos[k] <= c.last
}

/// One case: the kernel, the script's operations (those the interpreter refuses are
/// dropped).
fn check_case(s: &Spec, ops: &[String]) -> Result<(), TestCaseError> {
    let (mut state, prog) = build(s);
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
        if it
            .run_text(op, &format!("op{k}.loopy"), Path::new("."))
            .is_ok()
        {
            kept.push(op.clone());
        }
    }
    let script = kept.join("\n");
    let plans = plan(&it.state).expect("the interpreter keeps copies plannable");
    let mut violations = verify::check(&prog, &deps, &it.state.pieces, &it.history);
    let copy_violations = verify::check_copies(&prog, &plans, &it.state.pieces);
    violations.extend(
        copy_violations
            .iter()
            .cloned()
            .map(|c| verify::copy_violation(&prog, c)),
    );
    for n in [0i64, 1, 2, 4] {
        let mut runs = vec![];
        for (k, st) in prog.stmts.iter().enumerate() {
            for x in points(&st.domain, n) {
                let old = eval(&st.schedule, n, &x).unwrap();
                let (pi, piece) = it
                    .state
                    .pieces
                    .iter()
                    .enumerate()
                    .find(|(_, p)| {
                        p.stmt == k && eval(&p.it.intersect_domain(&p.domain), n, &x).is_some()
                    })
                    .expect("every instance is in a piece");
                let new = eval(&piece.schedule(), n, &x).unwrap();
                let iv = eval(&piece.it, n, &x).unwrap();
                let mut touches: Vec<(bool, Vec<Int>)> = prog
                    .accesses
                    .iter()
                    .filter(|a| a.stmt == k)
                    .map(|a| {
                        (
                            a.kind == AccessKind::Write,
                            eval(a.relation.as_ref().unwrap(), n, &x).unwrap(),
                        )
                    })
                    .collect();
                touches.sort_by_key(|t| t.0);
                let id = runs.len();
                runs.push(Run {
                    piece: pi,
                    new,
                    old,
                    it: iv,
                    touches,
                    id,
                });
            }
        }
        let mut old_order: Vec<usize> = (0..runs.len()).collect();
        old_order.sort_by(|&a, &b| runs[a].old.cmp(&runs[b].old));
        let mut new_order: Vec<usize> = (0..runs.len()).collect();
        new_order.sort_by(|&a, &b| runs[a].new.cmp(&runs[b].new));
        if violations.is_empty() {
            let (r0, m0) = execute(&runs, &old_order, &[]);
            let (r1, m1) = execute(&runs, &new_order, &plans);
            prop_assert_eq!(&r0, &r1, "{}: accepted, but N = {} reads differ", script, n);
            prop_assert_eq!(
                &m0,
                &m1,
                "{}: accepted, but N = {} final arrays differ",
                script,
                n
            );
        }
    }
    // Every copy witness is real.
    for v in &copy_violations {
        let c = plans.iter().find(|c| c.mark == v.mark).unwrap();
        let n = v
            .params
            .iter()
            .find(|(p, _)| p == "N")
            .map(|(_, x)| x.to_i64().unwrap())
            .unwrap_or(0);
        let other = it
            .state
            .pieces
            .iter()
            .enumerate()
            .find(|(_, p)| {
                p.stmt == v.other_stmt
                    && eval(&p.it.intersect_domain(&p.domain), n, &v.other).is_some()
            })
            .unwrap();
        let staged = it
            .state
            .pieces
            .iter()
            .enumerate()
            .find(|(_, p)| {
                p.stmt == v.staged_stmt
                    && eval(&p.it.intersect_domain(&p.domain), n, &v.staged).is_some()
            })
            .unwrap();
        prop_assert!(
            !c.members.contains(&other.0),
            "{script}: the witness is staged"
        );
        prop_assert!(
            c.members.contains(&staged.0),
            "{script}: the partner is not staged"
        );
        let k = c.mark.outer;
        let t1 = eval(&other.1.it, n, &v.other).unwrap()[..k].to_vec();
        let t2 = eval(&staged.1.it, n, &v.staged).unwrap()[..k].to_vec();
        prop_assert_eq!(&t1, &t2, "{}: not one outer iteration", script);
        prop_assert!(
            other.1.pos[..k] == c.prefix[..]
                && other.1.pos[k] >= c.first
                && other.1.pos[k] <= c.last,
            "{script}: not in the window"
        );
        let touch = |stmt: usize, x: &[Int]| -> Vec<(bool, Vec<Int>)> {
            prog.accesses
                .iter()
                .filter(|a| a.stmt == stmt)
                .map(|a| {
                    (
                        a.kind == AccessKind::Write,
                        eval(a.relation.as_ref().unwrap(), n, x).unwrap(),
                    )
                })
                .collect()
        };
        let (a, b) = (
            touch(v.other_stmt, &v.other),
            touch(v.staged_stmt, &v.staged),
        );
        prop_assert!(
            a.iter()
                .any(|(wa, ea)| *ea == v.element
                    && b.iter().any(|(wb, eb)| eb == ea && (*wa || *wb))),
            "{script}: no conflict on the element"
        );
        prop_assert!(violations
            .iter()
            .any(|x| matches!(&x.kind, ViolationKind::Copy(_))));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn accepted_copies_compute_what_the_original_computes(s in kernel(), before in prop::collection::vec(script_op(), 0..3), copies in prop::collection::vec(copy_op(), 1..=2), between in prop::collection::vec(script_op(), 0..2), after in prop::collection::vec(script_op(), 0..2)) {
        let mut ops = before.clone();
        ops.push(copies[0].clone());
        ops.extend(between);
        ops.extend(copies[1..].iter().cloned());
        ops.extend(after);
        check_case(&s, &ops)?;
    }
}

/// Found by the property: a footprint whose parametric maximum splinters stalled the
/// interpreter (it plans the copies after every step); its budget now refuses the copy.
#[test]
fn a_splintering_parametric_box_does_not_stall() {
    let s = Spec {
        stmts: vec![
            (2, vec![(false, -1, 0, 1)]),
            (2, vec![(false, 1, 1, 1), (true, 1, 1, -1)]),
            (1, vec![(false, 1, 0, 1), (true, 1, 0, 1), (true, 1, 0, 0)]),
        ],
        shared: true,
    };
    let ops: Vec<String> = [
        "tile(S0, [3])",
        "tile(S2, [3])",
        "copy({S0, S2}, 1, A)",
        "tile(S0, [2])",
        "copy({S0, S2}, 1, A)",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    check_case(&s, &ops).unwrap();
}

/// A copy nested in one that stages all its statements, at the same level: the inner
/// write-back goes to the outer buffer, where `S1` reads `S0`'s value of `A[0]` and whose
/// write-back follows (an executor whose inner copy fills from and writes back to the array
/// fails this case: `S1` reads a stale value, and the outer write-back overwrites `S0`'s).
#[test]
fn a_nested_copy_fills_from_the_outer_buffer() {
    let s = Spec {
        stmts: vec![
            (1, vec![(true, 1, 0, 0)]),
            (1, vec![(false, 0, 0, 0)]),
            (1, vec![(false, 0, 0, 0)]),
        ],
        shared: true,
    };
    let ops: Vec<String> = ["copy({S0, S1}, 1, A)", "copy(S0, 1, A)"]
        .iter()
        .map(|x| x.to_string())
        .collect();
    check_case(&s, &ops).unwrap();
}
