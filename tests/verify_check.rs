//! The verifier on hand-built programs (the frontend supplies these for real kernels):
//! dependences, rejected scripts with correct witnesses, accepted ones.

use loopy::model::state::{Origin, Pos, State, StmtInit};
use loopy::presburger::{parse_map, parse_set, Int, Map, Tuple};
use loopy::script::interp::Interpreter;
use loopy::verify::{self, AccessKind, Program, ProgramAccess, StmtInfo, ViolationKind};
use std::collections::BTreeSet;
use std::path::Path;

fn pos(v: &[i64]) -> Pos {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// (array, is it a write, access map over the statement's iterators)
type AccessSpec = (&'static str, bool, &'static str);

struct StmtSpec {
    label: &'static str,
    domain: &'static str,
    pos: Vec<i64>,
    accesses: Vec<AccessSpec>,
}

struct Kernel {
    params: Vec<String>,
    stmts: Vec<StmtSpec>,
}

impl Kernel {
    fn padded(&self, p: &[i64]) -> Pos {
        let m = self.stmts.iter().map(|s| s.pos.len()).max().unwrap();
        let mut p = p.to_vec();
        p.resize(m, 0);
        pos(&p)
    }

    fn state(&self) -> State {
        let inits = self
            .stmts
            .iter()
            .map(|s| StmtInit {
                name: s.label.to_string(),
                domain: parse_set(s.domain, &[]).unwrap(),
                pos: self.padded(&s.pos),
                it: None,
            })
            .collect();
        let tags = self
            .stmts
            .iter()
            .map(|s| {
                let origin = Origin {
                    source: "kernel.c".into(),
                    span: 0..0,
                    what: format!("tag `{}`", s.label),
                };
                (
                    s.label.to_string(),
                    [self.padded(&s.pos)].into_iter().collect::<BTreeSet<Pos>>(),
                    origin,
                )
            })
            .collect();
        State::new(self.params.clone(), inits, tags)
    }

    fn program(&self, st: &State) -> Program {
        let mut accesses = vec![];
        let mut stmts = vec![];
        for (k, p) in st.pieces.iter().enumerate() {
            for (a, w, m) in &self.stmts[k].accesses {
                let rel: Map = parse_map(m, &self.params).unwrap();
                let array = Tuple {
                    name: Some(a.to_string()),
                    dims: (0..rel.n_out()).map(|d| format!("a{d}")).collect(),
                };
                accesses.push(ProgramAccess {
                    stmt: k,
                    array: a.to_string(),
                    kind: if *w {
                        AccessKind::Write
                    } else {
                        AccessKind::Read
                    },
                    relation: Some(rel.with_space_names(p.domain.tuple().clone(), array)),
                    private_depth: None,
                    storage: None,
                });
            }
            stmts.push(StmtInfo {
                name: self.stmts[k].label.to_string(),
                label: Some(self.stmts[k].label.to_string()),
                domain: p.domain.clone(),
                schedule: p.schedule(),
                origin: None,
                line: 0,
                update: None,
            });
        }
        Program {
            params: self.params.clone(),
            stmts,
            accesses,
        }
    }
}

/// Runs a script and returns the violations.
fn verdict(
    k: &Kernel,
    script: &str,
) -> (
    Program,
    Vec<verify::Dependence>,
    Vec<verify::Violation>,
    Interpreter,
) {
    let st = k.state();
    let prog = k.program(&st);
    let deps = verify::dependences(&prog);
    let mut it = Interpreter::new(st);
    it.run_text(script, "s.loopy", Path::new(".")).unwrap();
    let v = verify::check(&prog, &deps, &it.state.pieces, &it.history);
    (prog, deps, v, it)
}

fn div() -> Kernel {
    // for (i = 1; i < N; i++) Div: A[i] = A[i] / A[i-1];
    Kernel {
        params: vec!["N".into()],
        stmts: vec![StmtSpec {
            label: "Div",
            domain: "[N] -> { Div[i] : 1 <= i < N }",
            pos: vec![0, 0],
            accesses: vec![
                ("A", true, "{ [i] -> [i] }"),
                ("A", false, "{ [i] -> [i] }"),
                ("A", false, "{ [i] -> [i - 1] }"),
            ],
        }],
    }
}

#[test]
fn div_dependences() {
    let k = div();
    let st = k.state();
    let deps = verify::dependences(&k.program(&st));
    // flow A[i] -> A[i+1] read of A[i-1]; anti: read A[i] then write A[i] (same instance: no,
    // order is strict) ; the only ones: flow (write A[i], read A[i-1] at i+1), anti from the
    // read A[i-1] at i to ... nothing later writes A[i-1].
    let kinds: Vec<_> = deps
        .iter()
        .map(|d| (d.kind, d.source_access, d.sink_access))
        .collect();
    assert_eq!(kinds, vec![(verify::DepKind::Flow, 0, 2)]);
    assert_eq!(deps[0].pieces.len(), 1);
    assert_eq!(deps[0].pieces[0].0, verify::Level::Loop(1));
    let expect = parse_map(
        "[N] -> { Div[i] -> Div[i + 1] : 1 <= i and i + 2 <= N }",
        &[],
    )
    .unwrap();
    assert!(
        deps[0].relation().is_equal(&expect),
        "{}",
        deps[0].relation()
    );
}

#[test]
fn reversing_div_is_rejected_with_the_smallest_witness() {
    let (prog, deps, v, it) = verdict(&div(), "affine(Div, {[i] -> [-i]})");
    assert_eq!(v.len(), 1);
    let w = &v[0];
    assert_eq!(w.kind, ViolationKind::Dependence(0));
    assert_eq!(w.params, vec![("N".to_string(), Int::from(3))]);
    assert_eq!(w.first.iters, vec![Int::from(1)]);
    assert_eq!(w.second.iters, vec![Int::from(2)]);
    assert_eq!(
        w.first.new_time,
        vec![Int::from(0), Int::from(-1), Int::from(0)]
    );
    assert_eq!(w.moved_by, vec![1]);
    let d = verify::report(&prog, &deps, w, &it.steps);
    let text = d.render(&[("s.loopy", "affine(Div, {[i] -> [-i]})")], false);
    insta::assert_snapshot!("div_reverse", text);
}

#[test]
fn identity_and_shift_are_accepted() {
    for s in [
        "affine(Div, {[i] -> [i]})",
        "affine(Div, {[i] -> [i + 7]})",
        "affine(Div, {[i] -> [2i]})",
        "reverse(Div)\nreverse(Div)",
    ] {
        let (_, _, v, _) = verdict(&div(), s);
        assert!(v.is_empty(), "{s}: {v:?}");
    }
}

#[test]
fn floor_without_modulo_is_not_one_to_one() {
    let (prog, deps, v, it) = verdict(&div(), "affine(Div, {[i] -> [i/4]})");
    let one = v
        .iter()
        .find(|v| v.kind == ViolationKind::NotOneToOne)
        .expect("collision reported");
    assert_eq!(one.first.new_time, one.second.new_time);
    assert_ne!(one.first.iters, one.second.iters);
    assert_eq!(one.moved_by, vec![1]);
    let d = verify::report(&prog, &deps, one, &it.steps);
    assert!(d.message.contains("not one-to-one"));
    // With the modulo it is fine.
    let (_, _, v, _) = verdict(&div(), "affine(Div, {[i] -> [i/4, i%4]})");
    assert!(v.is_empty(), "{v:?}");
}

fn stencil() -> Kernel {
    // seidel-2d: a 9-point Gauss-Seidel sweep, A[i][j] = (sum of the 3x3 neighbourhood) / 9
    Kernel {
        params: vec!["T".into(), "N".into()],
        stmts: vec![StmtSpec {
            label: "S",
            domain: "[T, N] -> { S[t, i, j] : 0 <= t < T and 1 <= i <= N - 2 and 1 <= j <= N - 2 }",
            pos: vec![0, 0, 0, 0],
            accesses: vec![
                ("A", true, "{ [t, i, j] -> [i, j] }"),
                ("A", false, "{ [t, i, j] -> [i - 1, j] }"),
                ("A", false, "{ [t, i, j] -> [i, j - 1] }"),
                ("A", false, "{ [t, i, j] -> [i + 1, j] }"),
                ("A", false, "{ [t, i, j] -> [i, j + 1] }"),
                ("A", false, "{ [t, i, j] -> [i - 1, j - 1] }"),
                ("A", false, "{ [t, i, j] -> [i - 1, j + 1] }"),
                ("A", false, "{ [t, i, j] -> [i + 1, j - 1] }"),
                ("A", false, "{ [t, i, j] -> [i + 1, j + 1] }"),
            ],
        }],
    }
}

#[test]
fn stencil_interchange_rejected_skew_accepted() {
    let (_, _, v, _) = verdict(&stencil(), "affine(S, {[t, i, j] -> [t, j, i]})");
    assert!(!v.is_empty());
    // The witness: S[t, i, j] writes A[i][j], read later at [i + 1][j - 1].
    let w = &v[0];
    assert_eq!(
        w.params,
        vec![
            ("T".to_string(), Int::from(1)),
            ("N".to_string(), Int::from(4))
        ]
    );
    // The paper's skew is legal, as is a tiling of it; tiling without skewing is not.
    let (_, _, v, _) = verdict(&stencil(), "affine(S, {[t, i, j] -> [t, i + t, j + i]})");
    assert!(v.is_empty(), "{v:?}");
    let (_, _, v, _) = verdict(
        &stencil(),
        "affine(S, {[t, i, j] -> [t, i + t, j + i]})\ntile3(S, 1, 4, 4)",
    );
    assert!(v.is_empty(), "{v:?}");
    let (_, _, v, _) = verdict(&stencil(), "tile3(S, 1, 4, 4)");
    assert!(!v.is_empty());
}
