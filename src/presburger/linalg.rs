//! Exact linear algebra on rows for clients of the core: rational elimination of columns
//! (Fourier–Motzkin with Kohler's rule), integer null spaces and determinants.
//!
//! Unlike the integer projections of [`super::omega`], the elimination here is over the
//! rationals on purpose: it removes Farkas multipliers, which are rational, so rows are only
//! divided by the gcd of all their entries and never tightened.

use super::budget;
use super::int::{gcd_all, Int};
use super::row::{divide_exact, Row};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Divides a row by the gcd of its entries (exact over the rationals: no tightening).
fn primitive(r: &mut Row) {
    let g = gcd_all(r.iter());
    if !g.is_zero() && !g.is_one() {
        divide_exact(r, &g);
    }
}

/// `a·r − b·s` with `a, b` chosen so that column `k` cancels (`a > 0`, and `b`'s sign such
/// that an inequality stays one when `s` is an equality or has the opposite sign).
fn combine(r: &Row, s: &Row, k: usize) -> Row {
    let (a, b) = (s[k].abs(), &r[k] * &Int::from(s[k].signum() as i64));
    r.iter()
        .zip(s)
        .map(|(x, y)| &(&a * x) - &(&b * y))
        .collect()
}

/// Rational elimination of the columns after `1 + keep`: equalities by substitution, then
/// Fourier–Motzkin with Kohler's rule. Returns inequalities `r >= 0` over `[1 | kept]`
/// (equalities among them as two inequalities); a single `-1 >= 0` when the rows are
/// infeasible. Checks for cancellation ([`budget::tick`]) between combinations; within a
/// spent work budget (or a cancelled run) the answer is that infeasible row, which the
/// enclosing scope never lets out as an answer.
pub fn eliminate_rational(eqs: Vec<Row>, ineqs: Vec<Row>, keep: usize) -> Vec<Row> {
    budget::settle(
        || try_eliminate_rational(eqs, ineqs, keep),
        || infeasible(keep),
    )
}

/// The one row `-1 >= 0` over `[1 | kept]`.
fn infeasible(keep: usize) -> Vec<Row> {
    let mut f = vec![Int::ZERO; keep + 1];
    f[0] = Int::from(-1);
    vec![f]
}

/// [`eliminate_rational`], or the refusal of the work budget.
fn try_eliminate_rational(
    mut eqs: Vec<Row>,
    ineqs: Vec<Row>,
    keep: usize,
) -> budget::Budgeted<Vec<Row>> {
    let width = eqs.first().or(ineqs.first()).map_or(1 + keep, |r| r.len());
    // Each inequality with the set of original inequalities it combines.
    let mut rows: Vec<(Row, BTreeSet<usize>)> = ineqs
        .into_iter()
        .enumerate()
        .map(|(i, r)| (r, BTreeSet::from([i])))
        .collect();
    substitute_equalities(&mut eqs, &mut rows, 1 + keep..width);
    let mut eliminated = 0usize;
    loop {
        rows = dedup(rows)?;
        // The column whose elimination adds fewest rows.
        let cost = |k: usize| {
            let l = rows.iter().filter(|(r, _)| r[k].is_positive()).count();
            let u = rows.iter().filter(|(r, _)| r[k].is_negative()).count();
            (l * u, l + u)
        };
        let Some(k) = (1 + keep..width)
            .filter(|&k| rows.iter().any(|(r, _)| !r[k].is_zero()))
            .min_by_key(|&k| cost(k))
        else {
            break;
        };
        eliminated += 1;
        let (pos, rest): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(r, _)| !r[k].is_zero());
        let (lo, hi): (Vec<_>, Vec<_>) = pos.into_iter().partition(|(r, _)| r[k].is_positive());
        let mut next = rest;
        for (l, hl) in &lo {
            for (u, hu) in &hi {
                // Not a counted step (the budget stays what it was), but a point where a
                // cancelled run (`budget::with_cancel`) stops.
                budget::tick(0)?;
                let h: BTreeSet<usize> = hl.union(hu).copied().collect();
                // Kohler: a combination of more originals than columns eliminated (plus
                // one) is implied by others.
                if h.len() > eliminated + 1 {
                    continue;
                }
                let mut r = combine(l, u, k);
                primitive(&mut r);
                next.push((r, h));
            }
        }
        rows = next;
    }
    Ok(kept_rows(eqs, rows, keep))
}

/// Substitutes each column of `cols` out of the equalities and inequalities, with the first
/// equality that mentions it (which then leaves `eqs`).
fn substitute_equalities(
    eqs: &mut Vec<Row>,
    rows: &mut [(Row, BTreeSet<usize>)],
    cols: std::ops::Range<usize>,
) {
    for k in cols {
        let Some(p) = eqs.iter().position(|r| !r[k].is_zero()) else {
            continue;
        };
        let e = eqs.swap_remove(p);
        for r in eqs.iter_mut().chain(rows.iter_mut().map(|(r, _)| r)) {
            if !r[k].is_zero() {
                *r = combine(r, &e, k);
                primitive(r);
            }
        }
    }
}

/// The rows over `[1 | kept]` once every other column is gone: the equalities left as two
/// inequalities each, then the inequalities, without repeats or trivially true rows.
fn kept_rows(eqs: Vec<Row>, rows: Vec<(Row, BTreeSet<usize>)>, keep: usize) -> Vec<Row> {
    let mut out: Vec<Row> = vec![];
    for e in eqs {
        let e: Row = e[..=keep].to_vec();
        if e.iter().any(|v| !v.is_zero()) {
            out.push(e.iter().map(|v| -v).collect());
            out.push(e);
        }
    }
    for (r, _) in rows {
        let r: Row = r[..=keep].to_vec();
        if r[1..].iter().all(|v| v.is_zero()) {
            if r[0].is_negative() {
                return infeasible(keep);
            }
            continue;
        }
        out.push(r);
    }
    let mut seen = HashSet::new();
    out.retain(|r| seen.insert(r.clone()));
    out
}

/// Drops repeated rows (keeping the smallest history) and rows that are trivially true.
fn dedup(rows: Vec<(Row, BTreeSet<usize>)>) -> budget::Budgeted<Vec<(Row, BTreeSet<usize>)>> {
    let mut out: Vec<(Row, BTreeSet<usize>)> = vec![];
    let mut index: HashMap<Row, usize> = HashMap::new();
    for (r, h) in rows {
        budget::tick(0)?;
        if r[1..].iter().all(|v| v.is_zero()) && !r[0].is_negative() {
            continue;
        }
        match index.get(&r) {
            Some(&i) => {
                if h.len() < out[i].1.len() {
                    out[i].1 = h;
                }
            }
            None => {
                index.insert(r.clone(), out.len());
                out.push((r, h));
            }
        }
    }
    Ok(out)
}

/// An integer basis of `{v : H·v = 0}` (`H`'s rows have `d` entries, no constant column),
/// each vector primitive, one per free column in increasing order.
pub fn null_space(h: &[Row], d: usize) -> Vec<Row> {
    // Integer row reduction to echelon form with pivots cleared above and below.
    let mut m: Vec<Row> = h.to_vec();
    let mut pivots: Vec<usize> = vec![];
    let mut r = 0;
    for c in 0..d {
        let Some(p) = (r..m.len()).find(|&i| !m[i][c].is_zero()) else {
            continue;
        };
        m.swap(r, p);
        for i in 0..m.len() {
            if i != r && !m[i][c].is_zero() {
                let (a, b) = (m[r][c].clone(), m[i][c].clone());
                let pivot = m[r].clone();
                for (x, y) in m[i].iter_mut().zip(&pivot) {
                    *x = &(&a * &*x) - &(&b * y);
                }
                divide_by_gcd(&mut m[i]);
            }
        }
        pivots.push(c);
        r += 1;
        if r == m.len() {
            break;
        }
    }
    let mut out = vec![];
    for f in (0..d).filter(|c| !pivots.contains(c)) {
        // v[f] = L, v[pivot_i] = −m[i][f]·L / m[i][pivot_i].
        let l = pivots
            .iter()
            .enumerate()
            .fold(Int::ONE, |l, (i, &pc)| l.lcm(&m[i][pc]));
        let mut v = vec![Int::ZERO; d];
        for (i, &pc) in pivots.iter().enumerate() {
            v[pc] = (-&(&m[i][f] * &l)).div_exact(&m[i][pc]);
        }
        v[f] = l;
        divide_by_gcd(&mut v);
        out.push(v);
    }
    out
}

/// Divides a row by the gcd of its entries when that is more than one.
fn divide_by_gcd(r: &mut Row) {
    let g = gcd_all(r.iter());
    if g > Int::ONE {
        divide_exact(r, &g);
    }
}

/// The determinant of a square matrix (fraction-free Bareiss elimination); 1 for the empty
/// matrix.
pub fn det(m: &[Row]) -> Int {
    let d = m.len();
    if d == 0 {
        return Int::ONE;
    }
    let mut a: Vec<Row> = m.to_vec();
    let mut sign = Int::ONE;
    let mut prev = Int::ONE;
    for k in 0..d {
        if a[k][k].is_zero() {
            let Some(p) = (k + 1..d).find(|&i| !a[i][k].is_zero()) else {
                return Int::ZERO;
            };
            a.swap(k, p);
            sign = -&sign;
        }
        for i in k + 1..d {
            for j in k + 1..d {
                let v = &(&a[i][j] * &a[k][k]) - &(&a[i][k] * &a[k][j]);
                a[i][j] = v.div_exact(&prev);
            }
        }
        prev = a[k][k].clone();
    }
    &sign * &a[d - 1][d - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Row {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    fn rows(v: &[&[i64]]) -> Vec<Row> {
        v.iter().map(|r| row(r)).collect()
    }

    /// Multipliers are rational: `λ ≥ 1/2` and `c ≥ 2λ` leave `c ≥ 1`, not the `c ≥ 2`
    /// integer tightening of `λ` would give.
    #[test]
    fn multipliers_are_eliminated_rationally() {
        // Columns [1 | c | λ].
        let ineqs = vec![row(&[0, 0, 1]), row(&[0, 1, -2]), row(&[-1, 0, 2])];
        let out = eliminate_rational(vec![], ineqs, 1);
        let holds = |c: i64| {
            out.iter()
                .all(|r| !(&r[0] + &(&r[1] * &Int::from(c))).is_negative())
        };
        assert!(!holds(0));
        assert!(holds(1));
        assert!(out.contains(&row(&[-1, 1])));
    }

    /// An equality through a multiplier with a coefficient other than one.
    #[test]
    fn equalities_substitute_rationally() {
        // c = 3λ, λ ≥ 0, 1 − 3λ ≥ 0 (so 0 ≤ c ≤ 1).
        let eqs = vec![row(&[0, 1, -3])];
        let ineqs = vec![row(&[0, 0, 1]), row(&[1, 0, -3])];
        let mut out = eliminate_rational(eqs, ineqs, 1);
        out.sort();
        assert_eq!(out, vec![row(&[0, 1]), row(&[1, -1])]);
    }

    /// Infeasible rows leave the one row `-1 >= 0`.
    #[test]
    fn infeasible_rows_say_so() {
        // λ ≥ 1 and −λ ≥ 0 over [1 | c | λ].
        let ineqs = vec![row(&[-1, 0, 1]), row(&[0, 0, -1])];
        assert_eq!(eliminate_rational(vec![], ineqs, 1), vec![row(&[-1, 0])]);
    }

    #[test]
    fn null_space_of_rows() {
        assert_eq!(
            null_space(&rows(&[&[1, 0, 0]]), 3),
            rows(&[&[0, 1, 0], &[0, 0, 1]])
        );
        assert_eq!(null_space(&rows(&[&[1, 1]]), 2), rows(&[&[-1, 1]]));
        assert_eq!(
            null_space(&rows(&[&[1, 1, 0], &[0, 0, 1]]), 3),
            rows(&[&[-1, 1, 0]])
        );
        assert!(null_space(&rows(&[&[1, 0], &[0, 1]]), 2).is_empty());
        assert_eq!(null_space(&[], 2), rows(&[&[1, 0], &[0, 1]]));
        // Non-unit pivots: 2x + 3y = 0 gives (−3, 2).
        assert_eq!(null_space(&rows(&[&[2, 3]]), 2), rows(&[&[-3, 2]]));
    }

    #[test]
    fn determinants() {
        assert_eq!(det(&rows(&[&[1, 0], &[0, 1]])), Int::ONE);
        assert_eq!(det(&rows(&[&[0, 1], &[1, 0]])), Int::from(-1));
        assert_eq!(det(&rows(&[&[1, 1], &[1, 2]])), Int::ONE);
        assert_eq!(det(&rows(&[&[2, 0], &[0, 1]])), Int::from(2));
        assert_eq!(det(&rows(&[&[1, 0, 0], &[1, 1, 0], &[2, 1, 1]])), Int::ONE);
        assert_eq!(det(&rows(&[&[1, 2], &[2, 4]])), Int::ZERO);
        assert_eq!(det(&[]), Int::ONE);
    }
}
