//! The interpreter on hand-built programs: the examples of the Loopy paper's Figures 3 and 4,
//! errors, procedures, and the inverse-affine round trip.

use loopy::diag::Diagnostic;
use loopy::model::state::{Origin, Pos, State, StmtInit};
use loopy::presburger::{parse_set, Int};
use loopy::script::interp::Interpreter;
use std::collections::BTreeSet;
use std::path::Path;

fn pos(v: &[i64]) -> Pos {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// Figure 4a: L1 = {s0, s1} in (i, j); L2 = {s2, s3} in (i, j), L3 = {s4, s5} in (i, j) of
/// a second i loop.
fn figure4() -> State {
    let positions = [
        [0, 0, 0],
        [0, 0, 1],
        [1, 0, 0],
        [1, 0, 1],
        [1, 1, 0],
        [1, 1, 1],
    ];
    let stmts = (0..6)
        .map(|k| StmtInit {
            name: format!("s{k}"),
            domain: parse_set(
                &format!("[N] -> {{ s{k}[i, j] : 0 <= i < N and 0 <= j < N }}"),
                &[],
            )
            .unwrap(),
            pos: pos(&positions[k]),
            it: None,
        })
        .collect();
    let tag = |name: &str, ks: &[usize]| {
        (
            name.to_string(),
            ks.iter()
                .map(|&k| pos(&positions[k]))
                .collect::<BTreeSet<Pos>>(),
            Origin {
                source: "kernel.c".into(),
                span: 0..1,
                what: format!("tag `{name}`"),
            },
        )
    };
    State::new(
        vec!["N".into()],
        stmts,
        vec![tag("L1", &[0, 1]), tag("L2", &[2, 3]), tag("L3", &[4, 5])],
    )
}

fn run(state: State, script: &str) -> Result<Interpreter, Diagnostic> {
    let mut it = Interpreter::new(state);
    it.run_text(script, "test.loopy", Path::new("."))?;
    Ok(it)
}

fn positions(it: &Interpreter) -> Vec<(String, Vec<i64>)> {
    it.state
        .pieces
        .iter()
        .map(|p| {
            (
                it.state.stmt_names[p.stmt].clone(),
                p.pos.iter().map(|v| v.to_i64().unwrap()).collect(),
            )
        })
        .collect()
}

fn schedule(it: &Interpreter, k: usize) -> String {
    it.state.pieces[k].schedule().simplify().to_string()
}

#[test]
fn realign_figure_4b() {
    let it = run(figure4(), "realign(L1, L2, 2)").unwrap();
    let p = positions(&it);
    assert_eq!(p[2].1, vec![0, 0, 2]);
    assert_eq!(p[3].1, vec![0, 0, 3]);
    assert_eq!(p[4].1, vec![0, 1, 2]);
    assert_eq!(p[5].1, vec![0, 1, 3]);
    assert_eq!(p[0].1, vec![0, 0, 0]);
    // Handles follow: L3 now sits at [0,1,2], [0,1,3].
    let l3 = &it.state.components[it.state.handles["L3"]].positions;
    assert!(l3.contains(&pos(&[0, 1, 2])) && l3.contains(&pos(&[0, 1, 3])));
}

#[test]
fn realign_zero_splits_figure_3b() {
    // Figure 3: L1 and L2 share one loop; realign(L1, L2, 0) makes separate nests.
    let it = run(figure4(), "realign(L1, L2, 0)").unwrap();
    let p = positions(&it);
    assert_eq!(p[1].1, vec![0, 0, 1]);
    // pos - (p2 - p1) + I(0): [1,0,0] - [1,0,-1] + [1,0,0], exactly as §3.2 defines it.
    assert_eq!(p[2].1, vec![1, 0, 1]);
    assert_eq!(p[3].1, vec![1, 0, 2]);
    assert_eq!(p[4].1, vec![1, 1, 1]);
}

#[test]
fn affine_figure_4c() {
    // The paper writes `j/32` for the integer quotient; `[j/32]` is the same.
    let it = run(figure4(), "affine(L2, {[i,j] -> [i, j/32, j%32]})").unwrap();
    let same = run(figure4(), "affine(L2, {[i,j] -> [i, [j/32], j%32]})").unwrap();
    assert!(it.state.pieces[2]
        .schedule()
        .is_equal(&same.state.pieces[2].schedule()));
    let p = positions(&it);
    assert_eq!(p[0].1, vec![0, 0, 0, 0]);
    assert_eq!(p[1].1, vec![0, 0, 1, 0]);
    assert_eq!(p[2].1, vec![1, 0, 0, 0]);
    assert_eq!(p[3].1, vec![1, 0, 0, 1]);
    assert_eq!(p[4].1, vec![1, 1, 0, 0]);
    assert_eq!(p[5].1, vec![1, 1, 1, 0]);
    assert_eq!(
        schedule(&it, 2),
        "[N] -> { s2[i, j] -> [1, i, 0, floor(j/32), 0, j - 32*floor(j/32), 0] : 0 <= i < N and 0 <= j < N }"
    );
    assert_eq!(
        schedule(&it, 0),
        "[N] -> { s0[i, j] -> [0, i, 0, j, 0, 0, 0] : 0 <= i < N and 0 <= j < N }"
    );
}

#[test]
fn lift_figure_3d() {
    let it = run(
        figure4(),
        "realign(L1, L2, 2)\nL = lift(L1, 1)\naffine(L, {[i, j] -> [j, i]})",
    )
    .unwrap();
    // lift(L1, 1) covers everything under the first i loop: all six statements now.
    let l = &it.state.components[it.state.handles["L"]].positions;
    assert_eq!(l.len(), 6);
    assert!(
        schedule(&it, 5).contains("-> [0, j, 1, i, 3]"),
        "{}",
        schedule(&it, 5)
    );
}

#[test]
fn isplit_figure_3f() {
    let it = run(figure4(), "(A, B) = isplit(L1, {[i, j] : j < N/2}, 1)").unwrap();
    let p = positions(&it);
    // s0 and s1 split; the second halves come after the whole component at level 1.
    let names: Vec<(&str, Vec<i64>)> = p.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    assert_eq!(
        names,
        vec![
            ("s0", vec![0, 0, 0]),
            ("s0", vec![0, 1, 1]),
            ("s1", vec![0, 0, 1]),
            ("s1", vec![0, 1, 2]),
            ("s2", vec![1, 1, 1]),
            ("s3", vec![1, 1, 2]),
            ("s4", vec![1, 2, 1]),
            ("s5", vec![1, 2, 2]),
        ]
    );
    let a = &it.state.components[it.state.handles["A"]].positions;
    let b = &it.state.components[it.state.handles["B"]].positions;
    assert_eq!(a.len(), 2);
    assert!(b.contains(&pos(&[0, 1, 1])) && b.contains(&pos(&[0, 1, 2])));
    // j < N/2 with the integer quotient, as the generated `for (j = 0; j < N/2; j++)` of
    // Figure 3f reads in C.
    let expect = parse_set(
        "[N] -> { s0[i, j] : 0 <= i < N and 0 <= j < floor(N/2) }",
        &[],
    )
    .unwrap();
    assert!(
        it.state.pieces[0].domain.is_equal(&expect),
        "{}",
        it.state.pieces[0].domain
    );
}

#[test]
fn tile_is_strip_mine_and_interchange() {
    let it = run(figure4(), "tile(L2, [32, 16])").unwrap();
    let s = schedule(&it, 2);
    assert!(
        s.contains("floor(i/32), 0, floor(j/16), 0, i - 32*floor(i/32), 0, j - 16*floor(j/16)"),
        "{s}"
    );
}

#[test]
fn affine_then_inverse_is_identity() {
    for (f, finv) in [
        ("{[i, j] -> [j, i]}", "{[i, j] -> [j, i]}"),
        ("{[i, j] -> [i + j, j]}", "{[i, j] -> [i - j, j]}"),
        ("{[i, j] -> [-i, j + 2i]}", "{[i, j] -> [-i, j + 2i]}"),
        ("{[i] -> [i + 5]}", "{[i] -> [i - 5]}"),
    ] {
        let before = run(figure4(), "").unwrap();
        let after = run(figure4(), &format!("affine(L2, {f})\naffine(L2, {finv})")).unwrap();
        for k in 0..6 {
            let a = before.state.pieces[k].schedule();
            let b = after.state.pieces[k].schedule();
            assert!(a.is_equal(&b), "{f}: {a} vs {b}");
        }
    }
}

#[test]
fn procedures_from_the_standard_library_and_user() {
    let it = run(
        figure4(),
        "interchange(L2)\ndef twice(l) { interchange(l); interchange(l) }\ntwice(L3)",
    )
    .unwrap();
    assert!(
        schedule(&it, 2).contains("-> [1, j, 0, i, 0]"),
        "{}",
        schedule(&it, 2)
    );
    assert!(
        schedule(&it, 4).contains("-> [1, i, 1, j, 0]"),
        "{}",
        schedule(&it, 4)
    );
    let it = run(figure4(), "tile2(L1, 8, 4)").unwrap();
    assert!(
        schedule(&it, 0).contains("floor(i/8)"),
        "{}",
        schedule(&it, 0)
    );
    let it = run(figure4(), "(P, Q) = peel_front(L1, 1, 0)").unwrap();
    assert_eq!(it.state.pieces.len(), 8);
}

fn err(script: &str) -> Diagnostic {
    // (`Interpreter` is not `Debug`, so no `unwrap_err`.)
    match run(figure4(), script) {
        Ok(_) => panic!("{script} should fail"),
        Err(d) => d,
    }
}

#[test]
fn errors_a_user_will_make() {
    let cases = [
        ("affine(L4, {[i] -> [i]})", "unknown tag or handle `L4`"),
        ("affine(l2, {[i] -> [i]})", "unknown tag or handle `l2`"),
        (
            "affine(L2, {[i, j, k] -> [i, j, k]})",
            "the map takes 3 iterator(s)",
        ),
        (
            "affine(L2, {[i, j] -> [i, j] : i < 5})",
            "not defined on the whole domain",
        ),
        ("affine(L2, {[i, j] -> [i, k] : k >= j})", "not a function"),
        ("affine(L2, {[i, j] -> [i]})", "fewer outputs"),
        ("L = lift(L2, 3)", "beyond the nest depth"),
        ("realign(L1, L3, 1)", "adjacent"),
        ("realign(L2, L1, 1)", "come after"),
        ("realign(L1, L2)", "takes 3 arguments"),
        ("realign(L1, L2, {[i] -> [i]})", "expects an integer"),
        ("affine(L2, {[i] : i > 0})", "needs a map"),
        ("(A, B) = isplit(L2, {[i] -> [i]}, 0)", "needs a set"),
        ("X = realign(L1, L2, 0)", "returns nothing"),
        ("interchang(L2)", "unknown operation `interchang`"),
        ("L1 = lift(L2, 1)", "already defined"),
        ("tile(L2, [0, 4])", "positive"),
        (
            "affine(L2, {[i, j] -> [i, j + M]})",
            "unknown identifier `M`",
        ),
        ("def f(l) { f(l) }\nf(L1)", "nested too deeply"),
        ("tile2(L1, 4)", "takes 3 argument(s)"),
        ("return L1", "outside a procedure"),
        ("import \"no-such-file.loopy\"", "cannot import"),
    ];
    for (script, msg) in cases {
        let d = err(script);
        let all = format!("{} {:?} {:?}", d.message, d.labels, d.help);
        assert!(all.contains(msg), "{script}: {all}");
        assert!(!d.labels.is_empty(), "{script}: no location");
    }
    let d = err("affine(L22, {[i] -> [i]})");
    assert_eq!(d.help.as_deref(), Some("did you mean `L2`?"));
}

#[test]
fn dependences_may_break_midway() {
    // The interpreter never checks legality: reversing twice is fine, as is a lone reversal
    // (verification happens after the whole script).
    run(figure4(), "reverse(L1)\nreverse(L1)").unwrap();
    run(figure4(), "reverse(L1)").unwrap();
}

mod random_scripts {
    use super::*;
    use proptest::prelude::*;

    fn op() -> impl Strategy<Value = String> {
        let handle = prop::sample::select(vec!["L1", "L2", "L3", "L1", "L2", "L3", "A", "B", "X"]);
        prop_oneof![
            (handle.clone(), handle.clone(), 0..4i64)
                .prop_map(|(a, b, n)| format!("realign({a}, {b}, {n})")),
            (handle.clone(), 0..4i64).prop_map(|(a, n)| format!("X = lift({a}, {n})")),
            (handle.clone(), -2..3i64, -2..3i64, -2..3i64, -2..3i64).prop_map(
                |(a, p, q, r, s)| format!("affine({a}, {{[i, j] -> [{p}i + {q}j, {r}i + {s}j]}})")
            ),
            (
                handle.clone(),
                prop::sample::select(vec![
                    "[i, j] -> [j, i]",
                    "[i] -> [i, 0]",
                    "[i, j] -> [i, j/4, j%4]",
                    "[i] -> [-i]"
                ])
            )
                .prop_map(|(a, m)| format!("affine({a}, {{{m}}})")),
            (handle.clone(), 0..5i64, 0..3i64)
                .prop_map(|(a, k, n)| format!("(A, B) = isplit({a}, {{[i, j] : j < {k}}}, {n})")),
            (handle.clone(), 1..5i64).prop_map(|(a, s)| format!("tile({a}, [{s}])")),
            (handle, 1..3i64).prop_map(|(a, k)| format!("reverse2({a}, {k})")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Random scripts never panic, and whatever they do, every statement's instances stay
        /// split into disjoint pieces that together cover its domain exactly, each with a
        /// schedule that is a function.
        #[test]
        fn random_scripts_keep_the_instances(ops in prop::collection::vec(op(), 1..6)) {
            let script = ops.join("\n");
            let mut it = Interpreter::new(figure4());
            // Errors are fine (handles may be undefined or reused) and leave the state as it
            // was, so the next operation still runs; panics are not fine.
            let mut ok = 0;
            for (k, op) in ops.iter().enumerate() {
                if it.run_text(op, &format!("op{k}.loopy"), Path::new(".")).is_ok() {
                    ok += 1;
                }
            }
            let _ = ok;
            let st = &it.state;
            let original = figure4();
            for (k, orig) in original.pieces.iter().enumerate() {
                let pieces: Vec<_> = st.pieces.iter().filter(|p| p.stmt == k).collect();
                prop_assert!(!pieces.is_empty());
                let mut union = pieces[0].domain.clone();
                for p in &pieces[1..] {
                    prop_assert!(union.intersect(&p.domain).is_empty(), "{script}: overlapping pieces");
                    union = union.union(&p.domain);
                }
                prop_assert!(union.is_equal(&orig.domain), "{script}: pieces of s{k} do not cover its domain");
                for p in pieces {
                    prop_assert!(p.schedule().is_single_valued(), "{script}");
                    prop_assert_eq!(p.pos.len(), p.it.n_out() + 1);
                }
            }
        }
    }
}

mod unimodular {
    use super::*;
    use proptest::prelude::*;

    /// A random unimodular 2x2 matrix as a product of elementary ones, with its inverse.
    fn matrix() -> impl Strategy<Value = ([[i64; 2]; 2], [[i64; 2]; 2])> {
        prop::collection::vec((0..4u8, -2..=2i64), 1..5).prop_map(|ops| {
            let mul = |a: [[i64; 2]; 2], b: [[i64; 2]; 2]| {
                let mut c = [[0; 2]; 2];
                for i in 0..2 {
                    for j in 0..2 {
                        c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
                    }
                }
                c
            };
            let (mut m, mut inv) = ([[1, 0], [0, 1]], [[1, 0], [0, 1]]);
            for (kind, k) in ops {
                let (e, einv) = match kind {
                    0 => ([[1, k], [0, 1]], [[1, -k], [0, 1]]), // skew
                    1 => ([[1, 0], [k, 1]], [[1, 0], [-k, 1]]),
                    2 => ([[0, 1], [1, 0]], [[0, 1], [1, 0]]), // interchange
                    _ => ([[-1, 0], [0, 1]], [[-1, 0], [0, 1]]), // reversal
                };
                m = mul(e, m);
                inv = mul(inv, einv);
            }
            (m, inv)
        })
    }

    fn text(m: [[i64; 2]; 2]) -> String {
        format!(
            "{{[i, j] -> [{}i + {}j, {}i + {}j]}}",
            m[0][0], m[0][1], m[1][0], m[1][1]
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

        /// affine(l, f) then affine(l, f⁻¹) gives back the original schedule, for random
        /// unimodular f, also after other steps have moved things around.
        #[test]
        fn affine_then_inverse_is_identity((m, inv) in matrix(), pre in prop::sample::select(vec!["", "realign(L1, L2, 1)\n", "tile(L3, [4])\n"])) {
            let before = run(figure4(), pre).unwrap();
            let after = run(figure4(), &format!("{pre}affine(L2, {})\naffine(L2, {})", text(m), text(inv))).unwrap();
            for k in 0..before.state.pieces.len() {
                let a = before.state.pieces[k].schedule();
                let b = after.state.pieces[k].schedule();
                prop_assert!(a.is_equal(&b), "{} then {}: {} vs {}", text(m), text(inv), a, b);
            }
        }
    }
}

#[test]
fn marks_follow_their_loop_through_affine_and_isplit() {
    // Loop 2 (j) of L1 marked, then i and j exchanged: the mark moves to loop 1.
    let it = run(figure4(), "parallel(L1, 2)\naffine(L1, {[i, j] -> [j, i]})").unwrap();
    for p in it.state.pieces.iter().filter(|p| p.stmt < 2) {
        assert_eq!(p.marks.len(), 1);
        assert_eq!(p.marks[0].dim, 0);
    }
    assert!(it.state.pieces.iter().skip(2).all(|p| p.marks.is_empty()));
    // A map with more outputs than inputs shifts the marks on dims it does not read.
    let it = run(
        figure4(),
        "vectorize(L2, 2)\naffine(L2, {[i] -> [i / 4, i % 4]})",
    )
    .unwrap();
    assert!(it
        .state
        .pieces
        .iter()
        .filter(|p| p.stmt == 2 || p.stmt == 3)
        .all(|p| p.marks.len() == 1 && p.marks[0].dim == 2));
    // isplit copies the mark onto both halves.
    let it = run(
        figure4(),
        "parallel(L3, 1)\n(A, B) = isplit(L3, {[i] : i < 5}, 1)",
    )
    .unwrap();
    let marked: Vec<_> = it
        .state
        .pieces
        .iter()
        .filter(|p| p.stmt >= 4)
        .map(|p| p.marks.iter().map(|m| m.dim).collect::<Vec<_>>())
        .collect();
    assert_eq!(marked, vec![vec![0]; 4]);
}

#[test]
fn rewriting_a_marked_loop_is_refused() {
    let e = run(
        figure4(),
        "parallel(L1, 1)\naffine(L1, {[i, j] -> [i + j, j]})",
    )
    .err()
    .expect("refused");
    assert!(e.message.contains("marked `parallel`"), "{}", e.message);
    let e = run(figure4(), "vectorize(L1, 2)\ntile(L1, [4, 4])")
        .err()
        .expect("refused");
    assert!(e.message.contains("marked `vectorize`"), "{}", e.message);
    let e = run(figure4(), "parallel(L1, 1)\nvectorize(L1, 1)")
        .err()
        .expect("refused");
    assert!(e.message.contains("already marked"), "{}", e.message);
    let e = run(figure4(), "parallel(L1, 3)").err().expect("refused");
    assert!(e.message.contains("no loop 3"), "{}", e.message);
}

#[test]
fn unroll_marks_follow_their_loop_and_keep_their_factor() {
    use loopy::model::state::MarkKind;
    // Loop 2 of L1 unrolled by 4, then i and j exchanged: the mark moves to loop 1.
    let it = run(
        figure4(),
        "unroll(L1, 2, 4)\naffine(L1, {[i, j] -> [j, i]})",
    )
    .unwrap();
    for p in it.state.pieces.iter().filter(|p| p.stmt < 2) {
        assert_eq!(p.marks.len(), 1);
        assert_eq!(p.marks[0].dim, 0);
        assert_eq!(p.marks[0].kind, MarkKind::Unroll { factor: 4 });
    }
    // Strip-mining a loop that is not marked shifts the mark; the same mark again is a
    // no-op, another factor is refused.
    let it = run(
        figure4(),
        "unroll(L1, 2, 3)\nstrip_mine(L1, 1, 4)\nunroll(L1, 3, 3)",
    )
    .unwrap();
    assert!(it
        .state
        .pieces
        .iter()
        .filter(|p| p.stmt < 2)
        .all(|p| p.marks.len() == 1 && p.marks[0].dim == 2));
    let e = run(figure4(), "unroll(L1, 2, 3)\nunroll(L1, 2, 4)")
        .err()
        .expect("refused");
    assert!(
        e.message.contains("already marked `unroll(3)`"),
        "{}",
        e.message
    );
    for bad in ["0", "-2", "65"] {
        let e = run(figure4(), &format!("unroll(L1, 2, {bad})"))
            .err()
            .expect("refused");
        assert!(e.message.contains("factor from 1 to 64"), "{}", e.message);
    }
    let e = run(figure4(), "unroll(L1, 2, L2)").err().expect("refused");
    assert!(
        e.message.contains("expects an integer factor"),
        "{}",
        e.message
    );
    let e = run(figure4(), "unroll(L1, 2)").err().expect("refused");
    assert!(e.message.contains("takes 3 arguments"), "{}", e.message);
}
