//! The fast feasibility path (`presburger::sample::feasible`) against brute force.
//!
//! Each property pins down one side of the path: where it must answer (difference
//! constraints and unit equalities, the shape of dependence relations: every elimination is
//! exact), where it must fall through to the general Omega test (no unit coefficient
//! anywhere, so every elimination would need the dark shadow; or coefficients that overflow a
//! machine word), and that whatever it answers on small random problems is right.

use loopy::presburger::omega::{self, Problem};
use loopy::presburger::sample;
use loopy::presburger::Int;
use proptest::prelude::*;

/// Every variable is searched in `[-BOX, BOX]` by brute force; problems are built so that
/// all their integer points lie there.
const BOX: i64 = 5;

fn row(v: &[i64]) -> Vec<Int> {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// Rows `x_i + BOX >= 0` and `-x_i + BOX >= 0` for every variable.
fn boxed(n: usize) -> Vec<Vec<Int>> {
    let mut out = vec![];
    for i in 1..=n {
        for s in [1, -1] {
            let mut r = vec![0; n + 1];
            r[0] = BOX;
            r[i] = s;
            out.push(row(&r));
        }
    }
    out
}

fn brute(p: &Problem) -> bool {
    let mut x = vec![-BOX; p.n];
    loop {
        let xi: Vec<Int> = x.iter().map(|&v| Int::from(v)).collect();
        if omega::satisfies(p, &xi) {
            return true;
        }
        let mut i = 0;
        loop {
            if i == p.n {
                return false;
            }
            x[i] += 1;
            if x[i] <= BOX {
                break;
            }
            x[i] = -BOX;
            i += 1;
        }
    }
}

/// `x_i - x_j + c >= 0` (`j == 0`: a bound `x_i + c >= 0`; `i == 0`: `-x_j + c >= 0`).
fn difference(n: usize, i: usize, j: usize, c: i64) -> Vec<Int> {
    let mut r = vec![0; n + 1];
    r[0] = c;
    if i > 0 {
        r[i] += 1;
    }
    if j > 0 {
        r[j] -= 1;
    }
    row(&r)
}

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cfg(300))]

    /// Difference constraints `x_i - x_j + c >= 0` and equalities `x_i = x_j + c` in a box:
    /// every Fourier–Motzkin step combines unit coefficients into unit coefficients, so the
    /// fast path always answers, and its answer is brute force's.
    #[test]
    fn answers_on_difference_constraints(
        n in 1usize..=4,
        ineqs in prop::collection::vec((0usize..=4, 0usize..=4, -6i64..=6), 0..8),
        eqs in prop::collection::vec((1usize..=4, 0usize..=4, -3i64..=3), 0..3),
    ) {
        let mut p = Problem { n, eqs: vec![], ineqs: boxed(n) };
        for (i, j, c) in ineqs {
            p.ineqs.push(difference(n, i.min(n), j.min(n), c));
        }
        for (i, j, c) in eqs {
            p.eqs.push(difference(n, i.min(n), j.min(n), c));
        }
        let fast = sample::feasible(&p);
        prop_assert_eq!(fast, Some(brute(&p)), "{:?}", p);
    }

    /// Two oblique bands `l <= a·x + b·y <= l + w` with every coefficient at least 2 in
    /// absolute value: no elimination is exact and no step proves emptiness, so the fast
    /// path must not answer; the general Omega test (through `is_feasible`) still does.
    #[test]
    fn falls_through_without_unit_coefficients(
        a in prop::sample::select(vec![-7i64, -5, -3, -2, 2, 3, 5, 7]),
        b in prop::sample::select(vec![-7i64, -5, -3, -2, 2, 3, 5, 7]),
        c in prop::sample::select(vec![-7i64, -5, -3, -2, 2, 3, 5, 7]),
        d in prop::sample::select(vec![-7i64, -5, -3, -2, 2, 3, 5, 7]),
        l1 in -10i64..=10, w1 in 1i64..=12,
        l2 in -10i64..=10, w2 in 1i64..=12,
    ) {
        // Coprime rows that are not parallel, so normalisation keeps them as they are.
        prop_assume!(a.abs() != b.abs() || a == 0);
        prop_assume!(c.abs() != d.abs());
        prop_assume!(a * d != b * c);
        let p = Problem {
            n: 2,
            eqs: vec![],
            ineqs: vec![
                row(&[-l1, a, b]),
                row(&[l1 + w1, -a, -b]),
                row(&[-l2, c, d]),
                row(&[l2 + w2, -c, -d]),
            ],
        };
        prop_assert_eq!(sample::feasible(&p), None, "{:?}", p);
        // Bounded: |a·x + b·y| and |c·x + d·y| bounded with a non-zero determinant.
        let det = (a * d - b * c).abs();
        let reach = (22 * 7 * 2) / det + 2;
        let mut found = false;
        for x in -reach..=reach {
            for y in -reach..=reach {
                let pt = [Int::from(x), Int::from(y)];
                found |= omega::satisfies(&p, &pt);
            }
        }
        prop_assert_eq!(omega::is_feasible(&p), found, "{:?}", p);
    }

    /// Small random problems (any coefficients in -3..=3, a few equalities) in a box: the
    /// fast path answers or not, but when it answers it agrees with brute force.
    #[test]
    fn agrees_with_brute_force_when_it_answers(
        n in 1usize..=3,
        ineqs in prop::collection::vec(prop::collection::vec(-3i64..=3, 4), 0..6),
        eqs in prop::collection::vec(prop::collection::vec(-3i64..=3, 4), 0..3),
    ) {
        let mut p = Problem { n, eqs: vec![], ineqs: boxed(n) };
        for r in ineqs {
            p.ineqs.push(row(&r[..=n]));
        }
        for r in eqs {
            p.eqs.push(row(&r[..=n]));
        }
        let truth = brute(&p);
        if let Some(fast) = sample::feasible(&p) {
            prop_assert_eq!(fast, truth, "{:?}", p);
        }
        prop_assert_eq!(omega::is_feasible(&p), truth, "{:?}", p);
    }
}

/// Pugh's example: a real shadow with no integer point. Only the dark shadow and splinters
/// decide it, so the fast path falls through and the Omega test proves it empty.
#[test]
fn dark_shadow_example_falls_through() {
    let p = Problem {
        n: 2,
        eqs: vec![],
        ineqs: vec![
            row(&[-27, 11, 13]),
            row(&[45, -11, -13]),
            row(&[10, 7, -9]),
            row(&[4, -7, 9]),
        ],
    };
    assert_eq!(sample::feasible(&p), None);
    assert!(!omega::is_feasible(&p));
}

/// Coefficients past a machine word: the fast path does not answer, the general test does.
#[test]
fn big_coefficients_fall_through() {
    let big: Int = "100000000000000000000".parse().unwrap();
    let mut r = row(&[0, 1]);
    r[0] = -big.clone();
    // x >= 10^20 and x <= 10^20 + 1
    let mut s = row(&[1, -1]);
    s[0] = &big + &Int::ONE;
    let p = Problem {
        n: 1,
        eqs: vec![],
        ineqs: vec![r, s],
    };
    assert_eq!(sample::feasible(&p), None);
    assert!(omega::is_feasible(&p));
    // A product that overflows while eliminating x: m·(x + m·y) + (-m·x + (m+1)·y).
    let m = 4_000_000_000i64;
    let p = Problem {
        n: 2,
        eqs: vec![],
        ineqs: vec![row(&[0, 1, m]), row(&[0, -m, m + 1]), row(&[5, 0, -1])],
    };
    assert_eq!(sample::feasible(&p), None);
    assert!(omega::is_feasible(&p));
}
