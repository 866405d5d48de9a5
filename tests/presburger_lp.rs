//! The exact LP layer (`presburger::simplex`) against an independent oracle: rational
//! Fourier–Motzkin written here with exact rational arithmetic (no integer tightening), and
//! brute-force integer enumeration for the consequences the integer core relies on.

use loopy::presburger::{Int, Lp, Optimum, Rat};
use proptest::prelude::*;

type Row = Vec<Int>;

fn ints(v: &[i64]) -> Row {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// Rational Fourier–Motzkin: the bounds of variable `k` (0-based) implied by `ineqs` (rows
/// `[c, a..]`, meaning `c + a·x >= 0`); `None` when infeasible.
fn fm_range(n: usize, ineqs: &[Vec<i64>], k: usize) -> Option<(Option<Rat>, Option<Rat>)> {
    let mut rows: Vec<Vec<i128>> = ineqs
        .iter()
        .map(|r| r.iter().map(|&v| v as i128).collect())
        .collect();
    for v in 0..n {
        if v == k {
            continue;
        }
        let (mut lo, mut hi, mut rest) = (vec![], vec![], vec![]);
        for r in rows {
            match r[1 + v].signum() {
                1 => lo.push(r),
                -1 => hi.push(r),
                _ => rest.push(r),
            }
        }
        for l in &lo {
            for h in &hi {
                let a = l[1 + v];
                let b = -h[1 + v];
                let mut c: Vec<i128> = l.iter().zip(h).map(|(x, y)| b * x + a * y).collect();
                let g = c.iter().fold(0i128, |g, &x| gcd(g, x.abs()));
                if g > 1 {
                    c.iter_mut().for_each(|x| *x /= g);
                }
                rest.push(c);
            }
        }
        rows = rest;
    }
    let (mut lo, mut hi): (Option<Rat>, Option<Rat>) = (None, None);
    for r in &rows {
        let a = r[1 + k];
        if a == 0 {
            if r[0] < 0 {
                return None;
            }
            continue;
        }
        // a x + c >= 0
        let v = Rat::new(Int::from(-r[0] as i64), Int::from(a as i64));
        if a > 0 {
            if lo.as_ref().is_none_or(|l| v > *l) {
                lo = Some(v);
            }
        } else if hi.as_ref().is_none_or(|h| v < *h) {
            hi = Some(v);
        }
    }
    if let (Some(l), Some(h)) = (&lo, &hi) {
        if l > h {
            return None;
        }
    }
    Some((lo, hi))
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The problem with an extra variable `z = obj` appended, for the oracle.
fn with_objective(n: usize, ineqs: &[Vec<i64>], obj: &[i64]) -> Vec<Vec<i64>> {
    let mut out: Vec<Vec<i64>> = ineqs
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.push(0);
            r
        })
        .collect();
    // z - obj = 0 as two inequalities
    let mut e = vec![-obj[0]];
    e.extend(obj[1..].iter().map(|v| -v));
    e.push(1);
    debug_assert_eq!(e.len(), n + 2);
    out.push(e.iter().map(|v| -v).collect());
    out.push(e);
    out
}

fn system() -> impl Strategy<Value = (usize, Vec<Vec<i64>>, Vec<i64>)> {
    (1usize..=3).prop_flat_map(|n| {
        let row = move || {
            (-6i64..=6, proptest::collection::vec(-3i64..=3, n)).prop_map(|(c, a)| {
                let mut r = vec![c];
                r.extend(a);
                r
            })
        };
        (Just(n), proptest::collection::vec(row(), 1..=6), row())
    })
}

fn points(n: usize, r: i64) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|p: Vec<i64>| {
                (-r..=r).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    out
}

fn holds(r: &[i64], x: &[i64]) -> bool {
    r[0] + r[1..].iter().zip(x).map(|(a, b)| a * b).sum::<i64>() >= 0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Feasibility, minimum and maximum equal rational Fourier–Motzkin's.
    #[test]
    fn optimum_matches_fourier_motzkin((n, ineqs, obj) in system()) {
        let rows: Vec<Row> = ineqs.iter().map(|r| ints(r)).collect();
        let lp = Lp::new(n, &[], &rows);
        let ext = with_objective(n, &ineqs, &obj);
        let want = fm_range(n + 1, &ext, n);
        prop_assert_eq!(lp.is_feasible(), want.is_some());
        let got = lp.range(&ints(&obj));
        prop_assert_eq!(got, want);
        if let Some(s) = lp.sample() {
            // The sample satisfies every row exactly (scaled by the common denominator).
            for r in &ineqs {
                let mut den = Int::ONE;
                for v in &s { den = den.lcm(&v.den); }
                let mut acc = &Int::from(r[0]) * &den;
                for (a, v) in r[1..].iter().zip(&s) {
                    acc = &acc + &(&(&Int::from(*a) * &v.num) * &den.div_floor(&v.den));
                }
                prop_assert!(!acc.is_negative(), "sample {:?} violates {:?}", s, r);
            }
        }
    }

    /// No rational point means no integer point; an integer point is within the rational
    /// bounds.
    #[test]
    fn integer_points_lie_within_rational_bounds((n, ineqs, obj) in system()) {
        let rows: Vec<Row> = ineqs.iter().map(|r| ints(r)).collect();
        let lp = Lp::new(n, &[], &rows);
        let range = lp.range(&ints(&obj));
        for x in points(n, 4) {
            if !ineqs.iter().all(|r| holds(r, &x)) {
                continue;
            }
            let v = obj[0] + obj[1..].iter().zip(&x).map(|(a, b)| a * b).sum::<i64>();
            let Some((lo, hi)) = &range else {
                return Err(TestCaseError::fail(format!("infeasible, yet {x:?} satisfies")));
            };
            let v = Rat::from_int(Int::from(v));
            prop_assert!(lo.as_ref().is_none_or(|l| *l <= v));
            prop_assert!(hi.as_ref().is_none_or(|h| v <= *h));
        }
    }

    /// Dropping the rows `redundant_rows` names leaves the same polyhedron: each dropped
    /// row's minimum over the kept rows is non-negative (by the oracle).
    #[test]
    fn redundant_rows_are_implied((n, ineqs, _obj) in system()) {
        let rows: Vec<Row> = ineqs.iter().map(|r| ints(r)).collect();
        let lp = Lp::new(n, &[], &rows);
        let red = lp.redundant_rows();
        let kept: Vec<Vec<i64>> = (0..ineqs.len())
            .filter(|i| !red.contains(i))
            .map(|i| ineqs[i].clone())
            .collect();
        for &i in &red {
            let ext = with_objective(n, &kept, &ineqs[i]);
            match fm_range(n + 1, &ext, n) {
                None => {}
                Some((lo, _)) => {
                    let lo = lo.expect("a redundant row is bounded below");
                    prop_assert!(!lo.num.is_negative(), "row {} not implied", i);
                }
            }
            prop_assert!(lp.is_redundant(i));
        }
        // And every kept row is needed.
        let lp_kept = Lp::new(n, &[], &kept.iter().map(|r| ints(r)).collect::<Vec<_>>());
        for i in 0..kept.len() {
            prop_assert!(!lp_kept.is_redundant(i), "kept row {} is redundant", i);
        }
    }

    /// Equalities: `Lp` with an equality agrees with the oracle given two inequalities.
    #[test]
    fn equalities_match_two_inequalities((n, ineqs, obj) in system(), eq in proptest::collection::vec(-2i64..=2, 4)) {
        let eq: Vec<i64> = eq[..=n].to_vec();
        let rows: Vec<Row> = ineqs.iter().map(|r| ints(r)).collect();
        let lp = Lp::new(n, &[ints(&eq)], &rows);
        let mut all = ineqs.clone();
        all.push(eq.clone());
        all.push(eq.iter().map(|v| -v).collect());
        let ext = with_objective(n, &all, &obj);
        prop_assert_eq!(lp.range(&ints(&obj)), fm_range(n + 1, &ext, n));
    }
}

#[test]
fn optimum_example() {
    // 0 <= x <= 5, 0 <= y, 2y <= x: max of x + y is 15/2.
    let lp = Lp::new(
        2,
        &[],
        &[
            ints(&[0, 1, 0]),
            ints(&[5, -1, 0]),
            ints(&[0, 0, 1]),
            ints(&[0, 1, -2]),
        ],
    );
    assert_eq!(
        lp.max(&ints(&[0, 1, 1])),
        Optimum::Value(Rat::new(Int::from(15), Int::from(2)))
    );
}
