//! The fast feasibility path (`presburger::sample::feasible`) against brute force.
//!
//! Each property pins down one side of the path: where it must answer (difference
//! constraints and unit equalities, the shape of dependence relations: every elimination is
//! exact), where it must fall through to the general Omega test (no unit coefficient
//! anywhere, so every elimination would need the dark shadow; or coefficients that overflow a
//! machine word), and that whatever it answers on small random problems is right.

use loopy::presburger::omega;
use loopy::presburger::row::{self, Problem};
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
    let mut x = vec![-BOX; p.n()];
    loop {
        let xi: Vec<Int> = x.iter().map(|&v| Int::from(v)).collect();
        if row::satisfies(p, &xi) {
            return true;
        }
        let mut i = 0;
        loop {
            if i == p.n() {
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
        let mut p = Problem::new(n, vec![], boxed(n));
        for (i, j, c) in ineqs {
            p.add_ineq(difference(n, i.min(n), j.min(n), c));
        }
        for (i, j, c) in eqs {
            p.add_eq(difference(n, i.min(n), j.min(n), c));
        }
        let fast = sample::feasible(&p);
        prop_assert_eq!(fast, Some(brute(&p)), "{:?}", p);
    }

    /// Two oblique bands `l <= a·x + b·y <= l + w` with every coefficient at least 2 in
    /// absolute value: no elimination is exact, so the fast path can only try the dark
    /// shadow; it must never answer "empty" (only the splinters could prove it), and when it
    /// answers "non-empty" brute force agrees; the general Omega test (through
    /// `is_feasible`) always answers.
    #[test]
    fn without_unit_coefficients_only_non_empty_is_answered(
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
        let p = Problem::new(
            2,
            vec![],
            vec![
                row(&[-l1, a, b]),
                row(&[l1 + w1, -a, -b]),
                row(&[-l2, c, d]),
                row(&[l2 + w2, -c, -d]),
            ],
        );
        let fast = sample::feasible(&p);
        prop_assert_ne!(fast, Some(false), "{:?}", p);
        // Bounded: |a·x + b·y| and |c·x + d·y| bounded with a non-zero determinant.
        let det = (a * d - b * c).abs();
        let reach = (22 * 7 * 2) / det + 2;
        let mut found = false;
        for x in -reach..=reach {
            for y in -reach..=reach {
                let pt = [Int::from(x), Int::from(y)];
                found |= row::satisfies(&p, &pt);
            }
        }
        prop_assert_eq!(omega::is_feasible(&p), found, "{:?}", p);
        if fast == Some(true) {
            prop_assert!(found, "{:?}", p);
        }
    }

    /// Small random problems (any coefficients in -3..=3, a few equalities) in a box: the
    /// fast path answers or not, but when it answers it agrees with brute force.
    #[test]
    fn agrees_with_brute_force_when_it_answers(
        n in 1usize..=3,
        ineqs in prop::collection::vec(prop::collection::vec(-3i64..=3, 4), 0..6),
        eqs in prop::collection::vec(prop::collection::vec(-3i64..=3, 4), 0..3),
    ) {
        let mut p = Problem::new(n, vec![], boxed(n));
        for r in ineqs {
            p.add_ineq(row(&r[..=n]));
        }
        for r in eqs {
            p.add_eq(row(&r[..=n]));
        }
        let truth = brute(&p);
        if let Some(fast) = sample::feasible(&p) {
            prop_assert_eq!(fast, truth, "{:?}", p);
        }
        prop_assert_eq!(omega::is_feasible(&p), truth, "{:?}", p);
    }
}

proptest! {
    #![proptest_config(cfg(300))]

    /// Dependence-shaped problems: parameters bounded below only, a source and a target
    /// iteration in `0 <= x < N` (upper bounds possibly triangular: `x_i <= x_{i-1}`),
    /// subscript equalities `y_i = x_j + c`, and one lexicographic-order disjunct. The
    /// parameters and most dimensions are bounded on one side once the others are gone, so
    /// the fast path drops them in a cascade; every step is exact, so it must answer, and its
    /// answer is the general Omega test's (`omega::solve`, which does not use the fast path).
    #[test]
    fn answers_on_dependence_shaped_problems(
        n_par in 1usize..=2,
        depth in 1usize..=3,
        triangular in prop::collection::vec(any::<bool>(), 6),
        subs in prop::collection::vec((0usize..3, 0usize..3, -2i64..=2), 0..3),
        level in 0usize..=3,
        lower in prop::collection::vec(-1i64..=1, 2),
    ) {
        // Columns: parameters, then x (depth), then y (depth).
        let n = n_par + 2 * depth;
        let x = |i: usize| 1 + n_par + i;
        let y = |i: usize| 1 + n_par + depth + i;
        let mut p = Problem::new(n, vec![], vec![]);
        for (par, &c) in lower.iter().enumerate().take(n_par) {
            p.add_ineq(difference(n, 1 + par, 0, c));
        }
        for (v, tri) in [(0usize, 0usize), (1, 3)] {
            for i in 0..depth {
                let col = if v == 0 { x(i) } else { y(i) };
                let par = 1 + i % n_par;
                p.add_ineq(difference(n, col, 0, 0));
                if i > 0 && triangular[tri + i] {
                    let prev = if v == 0 { x(i - 1) } else { y(i - 1) };
                    p.add_ineq(difference(n, prev, col, 0));
                } else {
                    p.add_ineq(difference(n, par, col, -1));
                }
            }
        }
        for (i, j, c) in subs {
            p.add_eq(difference(n, y(i.min(depth - 1)), x(j.min(depth - 1)), c));
        }
        for i in 0..level.min(depth) {
            if i + 1 == level.min(depth) {
                p.add_ineq(difference(n, y(i), x(i), -1));
            } else {
                p.add_eq(difference(n, y(i), x(i), 0));
            }
        }
        let fast = sample::feasible(&p);
        prop_assert_eq!(fast, Some(omega::solve(&p).is_some()), "{:?}", p);
    }

    /// Random problems with coefficients in -3..=3, some variables bounded on one side only
    /// or not at all (no box): whatever the fast path answers is the general Omega test's.
    #[test]
    fn agrees_with_omega_on_unbounded_problems(
        n in 1usize..=4,
        ineqs in prop::collection::vec(prop::collection::vec(-3i64..=3, 5), 0..7),
        eqs in prop::collection::vec(prop::collection::vec(-3i64..=3, 5), 0..3),
    ) {
        let mut p = Problem::new(n, vec![], vec![]);
        for r in ineqs {
            p.add_ineq(row(&r[..=n]));
        }
        for r in eqs {
            p.add_eq(row(&r[..=n]));
        }
        let truth = omega::solve(&p).is_some();
        if let Some(fast) = sample::feasible(&p) {
            prop_assert_eq!(fast, truth, "{:?}", p);
        }
    }
}

/// Variables bounded on one side only go in a cascade (`z` then `y` then `x`, or the
/// other way round), and the rebuilt point satisfies every row.
#[test]
fn one_sided_cascade_answers_non_empty() {
    // x >= y + 1, y >= z, z >= 0, x >= 2z - 7: no upper bound on anything.
    let p = Problem::new(
        3,
        vec![],
        vec![
            row(&[-1, 1, -1, 0]),
            row(&[0, 0, 1, -1]),
            row(&[0, 0, 0, 1]),
            row(&[7, 1, 0, -2]),
        ],
    );
    assert_eq!(sample::feasible(&p), Some(true));
}

/// A contradiction among rows that do not mention the variables dropped in the cascade
/// is still found.
#[test]
fn contradiction_beside_one_sided_variables() {
    // x >= y, z >= 2, z <= 1.
    let p = Problem::new(
        3,
        vec![],
        vec![
            row(&[0, 1, -1, 0]),
            row(&[-2, 0, 0, 1]),
            row(&[1, 0, 0, -1]),
        ],
    );
    assert_eq!(sample::feasible(&p), Some(false));
}

/// Opposite rows: crossing ones prove emptiness; touching ones pin an equality, which
/// then has no integer solution (`2y = x = 3`).
#[test]
fn opposite_rows_cross_or_pin() {
    // x + y >= 5 and x + y <= 4.
    let crossing = Problem::new(
        2,
        vec![],
        vec![row(&[-5, 1, 1]), row(&[4, -1, -1]), row(&[0, 1, -1])],
    );
    assert_eq!(sample::feasible(&crossing), Some(false));
    // x >= 3, x <= 3, x = 2y, with y also bounded by the other rows.
    let pinned = Problem::new(
        2,
        vec![row(&[0, 1, -2])],
        vec![row(&[-3, 1, 0]), row(&[3, -1, 0]), row(&[5, 0, 1])],
    );
    assert_eq!(sample::feasible(&pinned), Some(false));
    assert!(!omega::is_feasible(&pinned));
}

/// A wide band with no unit coefficient: eliminating either variable needs the dark
/// shadow, which is not empty here, so the fast path answers "non-empty" with a checked
/// point.
#[test]
fn dark_shadow_answers_non_empty() {
    // 0 <= 3x + 5y <= 100 and -50 <= 2x - 7y <= 50.
    let p = Problem::new(
        2,
        vec![],
        vec![
            row(&[0, 3, 5]),
            row(&[100, -3, -5]),
            row(&[50, 2, -7]),
            row(&[50, -2, 7]),
        ],
    );
    assert_eq!(sample::feasible(&p), Some(true));
}

/// Pugh's example: a real shadow with no integer point. Its dark shadow is empty, and only
/// the splinters decide it, so the fast path falls through and the Omega test proves it
/// empty.
#[test]
fn dark_shadow_example_falls_through() {
    let p = Problem::new(
        2,
        vec![],
        vec![
            row(&[-27, 11, 13]),
            row(&[45, -11, -13]),
            row(&[10, 7, -9]),
            row(&[4, -7, 9]),
        ],
    );
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
    let p = Problem::new(1, vec![], vec![r, s]);
    assert_eq!(sample::feasible(&p), None);
    assert!(omega::is_feasible(&p));
    // A product that overflows while eliminating x: m·(x + m·y) + (-m·x + (m+1)·y).
    let m = 4_000_000_000i64;
    let p = Problem::new(
        2,
        vec![],
        vec![row(&[0, 1, m]), row(&[0, -m, m + 1]), row(&[5, 0, -1])],
    );
    assert_eq!(sample::feasible(&p), None);
    assert!(omega::is_feasible(&p));
}
