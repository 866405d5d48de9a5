//! Random small kernels for the brute-force property tests (`verify_soundness.rs`,
//! `hoist_slices.rs`): a kernel spec and its model, and the executed instances of a schedule
//! with the elements each touches.
#![allow(dead_code)] // each test crate uses its own subset

use loopy::model::state::{Origin, Pos, State, StmtInit};
use loopy::presburger::{parse_map, parse_set, Int, Map, Set, Tuple};
use loopy::script::interp::Interpreter;
use loopy::verify::{AccessKind, Program, ProgramAccess, StmtInfo};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// An access to `A[a*i + b*j + c]`: (write?, a, b, c).
pub type AccessSpec = (bool, i64, i64, i64);

#[derive(Clone, Debug)]
pub struct Spec {
    /// Per statement: depth (1 or 2) and accesses.
    pub stmts: Vec<(usize, Vec<AccessSpec>)>,
    /// Two statements: share the outer loop?
    pub shared: bool,
}

pub fn spec() -> impl Strategy<Value = Spec> {
    let access = (any::<bool>(), -1..=1i64, -1..=1i64, -1..=1i64);
    let stmt = (1..=2usize, prop::collection::vec(access, 1..4));
    (prop::collection::vec(stmt, 1..=2), any::<bool>())
        .prop_map(|(stmts, shared)| Spec { stmts, shared })
}

/// The kernel: statements S0, S1 over `0 <= i < N` (and `0 <= j < N`), each accessing the
/// 1-d array A at `a*i + b*j + c` (j = 0 for 1-d statements). Positions: side by side in one
/// `i` loop when `shared` (and both 2-deep... any depth), else in separate nests.
pub fn build(s: &Spec) -> (State, Program) {
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
            accesses.push(ProgramAccess {
                stmt: k,
                array: "A".into(),
                kind: if *w {
                    AccessKind::Write
                } else {
                    AccessKind::Read
                },
                relation: Some(rel),
                private_depth: None,
                storage: None,
            });
        }
        stmts.push(StmtInfo {
            name: format!("S{k}"),
            label: Some(format!("S{k}")),
            domain: p.domain.clone(),
            schedule: p.schedule(),
            origin: None,
            line: 0,
            update: None,
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
pub fn eval(m: &Map, n: i64, x: &[Int]) -> Option<Vec<Int>> {
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

pub fn points(s: &Set, n: i64) -> Vec<Vec<Int>> {
    s.fix_param("N", &Int::from(n))
        .unwrap()
        .points(10_000)
        .unwrap()
}

#[derive(Clone)]
pub struct Inst {
    pub stmt: usize,
    pub iters: Vec<Int>,
    pub old: Vec<Int>,
    pub new: Vec<Int>,
    /// (write?, element)
    pub touches: Vec<(bool, Vec<Int>)>,
}

pub fn instances(prog: &Program, it: &Interpreter, n: i64) -> Vec<Inst> {
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
pub fn conflict(a: &Inst, b: &Inst) -> bool {
    a.touches
        .iter()
        .any(|(wa, ea)| b.touches.iter().any(|(wb, eb)| (*wa || *wb) && ea == eb))
}
