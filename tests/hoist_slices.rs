//! `hoist` and `loopy slices` against brute force on random small kernels: an accepted
//! hoist runs every instance exactly once and keeps every concretely dependent pair in order;
//! a rejected one has a real witness; and the slice enumeration agrees with an exhaustive
//! search over (loop, alignment) choices executed instance by instance.

use loopy::model::state::{Origin, Pos, State, StmtInit};
use loopy::presburger::{parse_map, parse_set, Int, Map, Set, Tuple};
use loopy::script::interp::Interpreter;
use loopy::verify::{self, slices::Oracle, Access, AccessKind, Program, StmtInfo, ViolationKind};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

/// An access to `A[a*i + b*j + c]`: (write?, a, b, c).
type AccessSpec = (bool, i64, i64, i64);

#[derive(Clone, Debug)]
struct Spec {
    /// Per statement: depth (1 or 2) and accesses.
    stmts: Vec<(usize, Vec<AccessSpec>)>,
    /// Two statements: share the outer loop?
    shared: bool,
}

fn spec() -> impl Strategy<Value = Spec> {
    let access = (any::<bool>(), -1..=1i64, -1..=1i64, -1..=1i64);
    let stmt = (1..=2usize, prop::collection::vec(access, 1..4));
    (prop::collection::vec(stmt, 1..=2), any::<bool>())
        .prop_map(|(stmts, shared)| Spec { stmts, shared })
}

/// The kernel: statements S0, S1 over `0 <= i < N` (and `0 <= j < N`), each accessing the
/// 1-d array A at `a*i + b*j + c` (j = 0 for 1-d statements). Positions: side by side in one
/// `i` loop when `shared` (and both 2-deep... any depth), else in separate nests.
fn build(s: &Spec) -> (State, Program) {
    let m = s.stmts.iter().map(|x| x.0).max().unwrap();
    let mut inits = vec![];
    let mut tags = vec![];
    for (k, (d, _)) in s.stmts.iter().enumerate() {
        let dims = if *d == 1 {
            "i".to_string()
        } else {
            "i, j".to_string()
        };
        let cons = if *d == 1 {
            "0 <= i < N"
        } else {
            "0 <= i < N and 0 <= j < N"
        };
        let domain = parse_set(&format!("[N] -> {{ S{k}[{dims}] : {cons} }}"), &[]).unwrap();
        let mut pos = vec![Int::ZERO; m + 1];
        if s.shared {
            pos[1] = Int::from(k as i64);
        } else {
            pos[0] = Int::from(k as i64);
        }
        let positions: BTreeSet<Pos> = [pos.clone()].into_iter().collect();
        tags.push((
            format!("S{k}"),
            positions,
            Origin {
                source: "k.c".into(),
                span: 0..0,
                what: format!("S{k}"),
            },
        ));
        inits.push(StmtInit {
            name: format!("S{k}"),
            domain,
            pos,
            it: None,
        });
    }
    let state = State::new(vec!["N".into()], inits, tags);
    let mut accesses = vec![];
    let mut stmts = vec![];
    for (k, (d, accs)) in s.stmts.iter().enumerate() {
        let p = &state.pieces[k];
        for (w, a, b, c) in accs {
            let text = if *d == 1 {
                format!("{{ [i] -> [{a}i + {c}] }}")
            } else {
                format!("{{ [i, j] -> [{a}i + {b}j + {c}] }}")
            };
            let rel: Map = parse_map(&text, &[]).unwrap();
            let rel =
                rel.with_space_names(p.domain.tuple().clone(), Tuple::new(Some("A"), &["a0"]));
            accesses.push(Access {
                stmt: k,
                array: "A".into(),
                kind: if *w {
                    AccessKind::Write
                } else {
                    AccessKind::Read
                },
                relation: Some(rel),
                private_depth: None,
            });
        }
        stmts.push(StmtInfo {
            name: format!("S{k}"),
            label: Some(format!("S{k}")),
            domain: p.domain.clone(),
            schedule: p.schedule(),
            origin: None,
            line: 0,
        });
    }
    (
        state,
        Program {
            params: vec!["N".into()],
            stmts,
            accesses,
        },
    )
}

/// Evaluates a function-like map at a point for parameter N.
fn eval(m: &Map, n: i64, x: &[Int]) -> Option<Vec<Int>> {
    let m = m.fix_param("N", &Int::from(n)).unwrap_or_else(|| m.clone());
    let np = m.space().n_param();
    let rows: Vec<Vec<Int>> = x
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let mut r = vec![Int::ZERO; 1 + np + m.n_in() + m.n_out()];
            r[1 + np + k] = Int::ONE;
            r[0] = -v;
            r
        })
        .collect();
    let m = m.add_constraints(&rows, &[]);
    m.sample().map(|p| p.coords[m.n_in()..].to_vec())
}

fn points(s: &Set, n: i64) -> Vec<Vec<Int>> {
    s.fix_param("N", &Int::from(n))
        .unwrap()
        .points(10_000)
        .unwrap()
}

struct Inst {
    stmt: usize,
    iters: Vec<Int>,
    old: Vec<Int>,
    new: Vec<Int>,
    /// (write?, element)
    touches: Vec<(bool, Vec<Int>)>,
}

fn instances(prog: &Program, it: &Interpreter, n: i64) -> Vec<Inst> {
    let mut out = vec![];
    for (k, st) in prog.stmts.iter().enumerate() {
        for x in points(&st.domain, n) {
            let old = eval(&st.schedule, n, &x).unwrap();
            let piece = it
                .state
                .pieces
                .iter()
                .find(|p| {
                    p.stmt == k
                        && p.domain
                            .fix_param("N", &Int::from(n))
                            .unwrap()
                            .points(10_000)
                            .unwrap()
                            .contains(&x)
                })
                .expect("every instance is in a piece");
            let new = eval(&piece.schedule(), n, &x).unwrap();
            let touches = prog
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
            out.push(Inst {
                stmt: k,
                iters: x,
                old,
                new,
                touches,
            });
        }
    }
    out
}

/// Pads time vectors to a common length for comparison (schedules of one state already
/// have one length; original and new may differ).
fn conflict(a: &Inst, b: &Inst) -> bool {
    a.touches
        .iter()
        .any(|(wa, ea)| b.touches.iter().any(|(wb, eb)| (*wa || *wb) && ea == eb))
}

/// A slice choice: per statement, level (from 1) and alignment.
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
