//! The Omega test: exact integer satisfiability of a conjunction of affine constraints,
//! producing a witness point when one exists.
//!
//! Follows Pugh's Omega test (Pugh 1991; "uniform techniques", appendix 2): equalities are
//! solved by substitution (after a unimodular change of variables that brings a coefficient
//! down to ±1), variables are eliminated by exact Fourier–Motzkin when one side of their
//! bounds has unit coefficients, and otherwise by the dark shadow followed, if that fails, by
//! the splinters. Every step is recorded so that a solution of the reduced problem can be
//! turned back into a solution of the original one: the returned point is always a real
//! integer solution, never an approximation.
//!
//! Rows are `[c, a1, ..., an]` meaning `c + a·x = 0` (equalities) or `c + a·x >= 0`
//! (inequalities); they, normalisation, substitution and Fourier–Motzkin combination are
//! in `row.rs`.

use super::budget::{self, Budgeted};
use super::int::{gcd_all, Int};
use super::row::{
    combine, divide_exact, eval, normalize, satisfies, solve_unit, split_bounds, substitute,
    try_rational_bounds, Problem, Row,
};

/// How to recover the value of one eliminated or substituted variable.
enum Step {
    /// `x_k = expr · (1, x)`, evaluated on the values of the later stage (where column `k`
    /// may have been reused for a new variable).
    Subst { k: usize, expr: Row },
    /// `x_k` was eliminated by Fourier–Motzkin: any integer between the bounds works, and the
    /// elimination guaranteed one exists.
    Bounds {
        k: usize,
        lowers: Vec<Row>,
        uppers: Vec<Row>,
    },
}

/// Is there an integer point satisfying every constraint? (Within a spent work budget:
/// `false`; see [`budget`].)
pub fn is_feasible(p: &Problem) -> bool {
    budget::settle(|| try_is_feasible(p), || false)
}

/// [`is_feasible`], or the refusal of the work budget.
pub fn try_is_feasible(p: &Problem) -> Budgeted<bool> {
    if let Some(answer) = super::sample::try_feasible(p)? {
        return Ok(answer);
    }
    Ok(try_solve(p)?.is_some())
}

/// [`try_is_feasible`] on a problem the caller no longer needs (saves a copy).
pub fn try_is_feasible_owned(p: Problem) -> Budgeted<bool> {
    if cfg!(debug_assertions) {
        // Keeps the witness check of `solve`.
        return try_is_feasible(&p);
    }
    Ok(solve_rec(p)?.is_some())
}

/// An integer point satisfying every constraint of `p`, or `None` when there is none
/// (also within a spent work budget; see [`budget`]).
pub fn solve(p: &Problem) -> Option<Vec<Int>> {
    budget::settle(|| try_solve(p), || None)
}

/// [`solve`], or the refusal of the work budget.
pub fn try_solve(p: &Problem) -> Budgeted<Option<Vec<Int>>> {
    let Some(sol) = solve_rec(p.clone())? else {
        return Ok(None);
    };
    debug_assert!(
        satisfies(p, &sol),
        "omega: witness does not satisfy the problem"
    );
    Ok(Some(sol))
}

fn solve_rec(mut p: Problem) -> Budgeted<Option<Vec<Int>>> {
    budget::tick(1 + p.eqs.len() as u64 + p.ineqs.len() as u64)?;
    let mut steps: Vec<Step> = Vec::new();
    loop {
        if !normalize(&mut p) {
            return Ok(None);
        }
        if !p.eqs.is_empty() {
            if !eliminate_equality(&mut p, &mut steps) {
                return Ok(None);
            }
            continue;
        }
        if p.ineqs.is_empty() {
            break;
        }
        let (mut k, mut exact) = choose_variable(&p);
        if growth(&p, k) > PRUNE_ABOVE {
            // The elimination would multiply the rows: first drop those the others imply.
            if !drop_redundant(&mut p)? {
                return Ok(None);
            }
            if p.ineqs.is_empty() {
                break;
            }
            (k, exact) = choose_variable(&p);
        }
        let (lowers, uppers, rest) = split_bounds(&p.ineqs, k);
        if exact || lowers.is_empty() || uppers.is_empty() {
            let mut ineqs = rest;
            ineqs.extend(combine(&lowers, &uppers, k, false)?);
            p.ineqs = ineqs;
            steps.push(Step::Bounds { k, lowers, uppers });
            continue;
        }
        // Inexact elimination: dark shadow first.
        let mut dark = Problem {
            n: p.n,
            eqs: vec![],
            ineqs: rest.clone(),
        };
        dark.ineqs.extend(combine(&lowers, &uppers, k, true)?);
        if let Some(mut sol) = solve_rec(dark)? {
            apply_step(
                &Step::Bounds {
                    k,
                    lowers: lowers.clone(),
                    uppers: uppers.clone(),
                },
                &mut sol,
            );
            return Ok(Some(reconstruct(&steps, sol)));
        }
        // No integer point in the real shadow means none at all.
        let mut real = Problem {
            n: p.n,
            eqs: vec![],
            ineqs: rest,
        };
        real.ineqs.extend(combine(&lowers, &uppers, k, false)?);
        if solve_rec(real)?.is_none() {
            return Ok(None);
        }
        // Splinters: some integer point lies close to a lower (or upper) bound. When there
        // would be very many (coefficients grown by earlier eliminations), enumerating the
        // values of a variable with small constant bounds is exact and cheaper.
        let count = splinter_count(&lowers, &uppers, k);
        // A narrow band `lo <= f <= hi` of parallel rows: enumerating f's values is exact.
        if count > Int::from(64) {
            if let Some((row, lo, hi)) = narrowest_band(&p) {
                if &(&hi - &lo) + &Int::ONE < count {
                    let mut t = lo;
                    while t <= hi {
                        let mut q = p.clone();
                        let mut r = row.clone();
                        r[0] = -&t;
                        q.eqs.push(r);
                        if let Some(sol) = solve_rec(q)? {
                            return Ok(Some(reconstruct(&steps, sol)));
                        }
                        t = &t + &Int::ONE;
                    }
                    return Ok(None);
                }
            }
        }
        if count > Int::from(64) {
            if let Some((v, lo, hi)) = smallest_range(&p)? {
                if &(&hi - &lo) + &Int::ONE < count {
                    let mut x = lo;
                    while x <= hi {
                        let mut q = p.clone();
                        let mut r = vec![Int::ZERO; p.n + 1];
                        r[v] = Int::ONE;
                        r[0] = -&x;
                        q.eqs.push(r);
                        if let Some(sol) = solve_rec(q)? {
                            return Ok(Some(reconstruct(&steps, sol)));
                        }
                        x = &x + &Int::ONE;
                    }
                    return Ok(None);
                }
            }
        }
        for eq_row in splinters(&lowers, &uppers, k) {
            let mut q = p.clone();
            q.eqs.push(eq_row);
            if let Some(sol) = solve_rec(q)? {
                return Ok(Some(reconstruct(&steps, sol)));
            }
        }
        return Ok(None);
    }
    Ok(Some(reconstruct(&steps, vec![Int::ZERO; p.n])))
}

/// Exact integer minimum and maximum of column `col` over a feasible problem (`None` for an
/// unbounded side; both `None` within a spent work budget, see [`budget`]).
pub fn exact_range(p: &Problem, col: usize) -> (Option<Int>, Option<Int>) {
    budget::settle(|| try_exact_range(p, col), || (None, None))
}

/// [`exact_range`], or the refusal of the work budget.
pub fn try_exact_range(p: &Problem, col: usize) -> Budgeted<(Option<Int>, Option<Int>)> {
    Ok((exact_opt(p, col, false)?, exact_opt(p, col, true)?))
}

fn exact_opt(p: &Problem, col: usize, max: bool) -> Budgeted<Option<Int>> {
    let Some(w) = try_solve(p)? else {
        return Ok(None);
    };
    // A witness beyond `v` (x <= v for a minimum, x >= v for a maximum), if any.
    let beyond = |v: &Int| -> Budgeted<Option<Int>> {
        let mut q = p.clone();
        let mut r = vec![Int::ZERO; p.n + 1];
        if max {
            r[col] = Int::ONE;
            r[0] = -v;
        } else {
            r[col] = Int::from(-1);
            r[0] = v.clone();
        }
        q.ineqs.push(r);
        Ok(try_solve(&q)?.map(|s| s[col - 1].clone()))
    };
    let toward = |x: &Int, d: &Int| if max { x + d } else { x - d };
    // Invariant: `good` is attained; nothing lies beyond `far`.
    let mut good = w[col - 1].clone();
    // Gallop away from the witness to find a value nothing reaches; fall back to the
    // rational bound (which also decides unboundedness) if that takes too long.
    let mut step = Int::ONE;
    let mut far = None;
    for _ in 0..24 {
        let probe = toward(&good, &step);
        match beyond(&probe)? {
            Some(v) => {
                good = v;
                step = &step * &Int::from(2);
            }
            None => {
                far = Some(if max {
                    &probe - &Int::ONE
                } else {
                    &probe + &Int::ONE
                });
                break;
            }
        }
    }
    let mut far = match far {
        Some(f) => f,
        None => {
            let (rlo, rhi) = try_rational_bounds(p, col)?;
            let bound = if max { rhi } else { rlo };
            let Some(bound) = bound else {
                return Ok(None);
            };
            bound
        }
    };
    loop {
        let gap = if max { &far - &good } else { &good - &far };
        if !gap.is_positive() {
            return Ok(Some(good));
        }
        let half = gap.div_floor(&Int::from(2));
        let mid = toward(&good, &(&half + &Int::ONE));
        match beyond(&mid)? {
            Some(v) => good = v,
            None => {
                far = if max {
                    &mid - &Int::ONE
                } else {
                    &mid + &Int::ONE
                }
            }
        }
    }
}

/// Rows an elimination may produce before [`drop_redundant`] runs first. Below it,
/// Fourier–Motzkin is cheaper than the linear programs that find redundant rows (no
/// example's dependence or schedule problem comes near it); above it, rows multiply with
/// every further elimination (a 9-row problem over 8 variables reached 8 million rows).
const PRUNE_ABOVE: usize = 64;

/// How many inequalities remain after eliminating `x_k` by Fourier–Motzkin: the rows
/// without `x_k` and one per pair of a lower and an upper bound.
fn growth(p: &Problem, k: usize) -> usize {
    let (mut l, mut u) = (0usize, 0usize);
    for r in &p.ineqs {
        if r[k].is_positive() {
            l += 1;
        } else if r[k].is_negative() {
            u += 1;
        }
    }
    p.ineqs.len() - l - u + l * u
}

/// Drops every inequality that the remaining rows imply over the rationals (exact linear
/// programming, [`Lp::redundant_rows`]). The rational polyhedron, hence its set of integer
/// points, does not change, so neither does the answer nor any witness. Returns `false`
/// when there is no rational point at all (then there is no integer point either).
///
/// [`Lp::redundant_rows`]: super::simplex::Lp::redundant_rows
fn drop_redundant(p: &mut Problem) -> Budgeted<bool> {
    let lp = super::simplex::Lp::new(p.n, &p.eqs, &p.ineqs);
    if !lp.try_is_feasible()? {
        return Ok(false);
    }
    let redundant = lp.try_redundant_rows()?;
    if redundant.is_empty() {
        return Ok(true);
    }
    let mut drop = vec![false; p.ineqs.len()];
    for i in redundant {
        drop[i] = true;
    }
    let mut i = 0;
    p.ineqs.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
    Ok(true)
}

/// Eliminates one equality. Without a unit coefficient, unimodular changes of variables
/// (`x_k = t - Σ floor(a_i/a_k) x_i`) reduce that same equality's coefficients, Euclid-style,
/// until one is ±1. Returns `false` if the equality has no integer solution.
fn eliminate_equality(p: &mut Problem, steps: &mut Vec<Step>) -> bool {
    // Prefer an equality with a unit coefficient; among its unit variables take the last
    // one (callers put existential/local variables last, which keeps witnesses natural).
    let unit = |r: &Row| (1..=p.n).rev().find(|&k| r[k] == 1 || r[k] == -1);
    let e = p.eqs.iter().position(|r| unit(r).is_some()).unwrap_or(0);
    let mut eq = p.eqs.swap_remove(e);
    loop {
        let g = gcd_all(&eq[1..]);
        if !eq[0].mod_floor(&g).is_zero() {
            return false;
        }
        if !g.is_one() {
            divide_exact(&mut eq, &g);
        }
        if unit(&eq).is_some() {
            break;
        }
        let k = (1..=p.n)
            .filter(|&k| !eq[k].is_zero())
            .min_by_key(|&k| eq[k].abs())
            .expect("normalised equality has a variable");
        let ak = eq[k].clone();
        let mut expr: Row = vec![Int::ZERO; p.n + 1];
        for i in 0..=p.n {
            if i != k {
                expr[i] = -eq[i].div_floor(&ak);
            }
        }
        expr[k] = Int::ONE;
        // Column k now holds the new variable t; every row, this equality included, changes.
        substitute(&mut eq, k, &expr);
        for row in p.eqs.iter_mut().chain(p.ineqs.iter_mut()) {
            substitute(row, k, &expr);
        }
        steps.push(Step::Subst { k, expr });
    }
    let k = unit(&eq).expect("unit coefficient");
    let expr = solve_unit(&eq, k);
    for r in p.eqs.iter_mut().chain(p.ineqs.iter_mut()) {
        substitute(r, k, &expr);
    }
    steps.push(Step::Subst { k, expr });
    true
}

/// Picks the variable to eliminate next and whether its elimination is exact.
fn choose_variable(p: &Problem) -> (usize, bool) {
    let mut best: Option<(usize, bool, u128)> = None;
    for k in 1..=p.n {
        let (mut nl, mut nu) = (0u128, 0u128);
        let (mut unit_l, mut unit_u) = (true, true);
        for r in &p.ineqs {
            if r[k].is_positive() {
                nl += 1;
                unit_l &= r[k].is_one();
            } else if r[k].is_negative() {
                nu += 1;
                unit_u &= r[k] == -1;
            }
        }
        if nl + nu == 0 {
            continue;
        }
        if nl == 0 || nu == 0 {
            return (k, true);
        }
        let exact = unit_l || unit_u;
        // Cost: number of new constraints; inexact eliminations are much more expensive, and
        // more so the larger the coefficients (they bound the number of splinters).
        let cost = if exact {
            nl * nu
        } else {
            let coef: u128 = p
                .ineqs
                .iter()
                .map(|r| r[k].abs().to_i64().map_or(u64::MAX as u128, |v| v as u128))
                .sum();
            (1 << 40) + coef.saturating_mul(nl * nu)
        };
        if best.as_ref().is_none_or(|b| cost < b.2) {
            best = Some((k, exact, cost));
        }
    }
    let (k, exact, _) = best.expect("choose_variable on a problem without variables");
    (k, exact)
}

/// The variable with the smallest finite range of values (bounds from rational
/// projection), if any: enumerating it is an exact alternative to many splinters.
fn smallest_range(p: &Problem) -> Budgeted<Option<(usize, Int, Int)>> {
    let mut best: Option<(usize, Int, Int)> = None;
    for v in 1..=p.n {
        if p.ineqs.iter().chain(&p.eqs).all(|r| r[v].is_zero()) {
            continue;
        }
        if let (Some(l), Some(h)) = try_rational_bounds(p, v)? {
            let better = best.as_ref().is_none_or(|(_, bl, bh)| &h - &l < bh - bl);
            if better {
                best = Some((v, l, h));
            }
        }
    }
    Ok(best)
}

/// The pair of opposite parallel inequalities `f >= lo`, `f <= hi` with the smallest
/// `hi - lo`, as (`f` with a zero constant, lo, hi).
fn narrowest_band(p: &Problem) -> Option<(Row, Int, Int)> {
    let mut best: Option<(Row, Int, Int)> = None;
    for (i, r) in p.ineqs.iter().enumerate() {
        for s in &p.ineqs[i + 1..] {
            if r[1..].iter().zip(&s[1..]).all(|(a, b)| a == &-b) {
                // r: f + r0 >= 0, s: -f + s0 >= 0  ⇒  -r0 <= f <= s0
                let (lo, hi) = (-&r[0], s[0].clone());
                if best.as_ref().is_none_or(|(_, bl, bh)| &hi - &lo < bh - bl) {
                    let mut f = r.clone();
                    f[0] = Int::ZERO;
                    best = Some((f, lo, hi));
                }
            }
        }
    }
    best
}

/// For each bound on one side, the largest splinter offset `floor((m·a - a - m) / m)`
/// (Pugh), where `m` is the largest coefficient of `x_k` on the other side.
fn splinter_tops<'a>(
    bounds: &'a [Row],
    others: &[Row],
    k: usize,
) -> impl Iterator<Item = (&'a Row, Int)> {
    let m = others.iter().map(|r| r[k].abs()).max().expect("non-empty");
    bounds.iter().map(move |r| {
        let a = r[k].abs();
        (r, (&(&(&m * &a) - &a) - &m).div_floor(&m))
    })
}

fn side_count(bounds: &[Row], others: &[Row], k: usize) -> Int {
    let mut total = Int::ZERO;
    for (_, top) in splinter_tops(bounds, others, k) {
        if !top.is_negative() {
            total += &(&top + &Int::ONE);
        }
    }
    total
}

/// How many splinters [`splinters`] would produce.
fn splinter_count(lowers: &[Row], uppers: &[Row], k: usize) -> Int {
    side_count(lowers, uppers, k).min(side_count(uppers, lowers, k))
}

/// The splinter equalities (Pugh): if no integer point lies in the dark shadow, every
/// integer point lies within a bounded distance of some lower bound (or, symmetrically,
/// upper bound); take whichever side gives fewer cases.
/// They are produced one at a time: their number can be astronomical, and each one is
/// charged to the budget when it is solved.
fn splinters<'a>(lowers: &'a [Row], uppers: &'a [Row], k: usize) -> impl Iterator<Item = Row> + 'a {
    let (bounds, others) = if side_count(lowers, uppers, k) <= side_count(uppers, lowers, k) {
        (lowers, uppers)
    } else {
        (uppers, lowers)
    };
    splinter_tops(bounds, others, k).flat_map(|(r, top)| {
        // r = i for 0 <= i <= top
        let mut i = Int::ZERO;
        std::iter::from_fn(move || {
            if i > top {
                return None;
            }
            let mut eq = r.clone();
            eq[0] -= &i;
            i = &i + &Int::ONE;
            Some(eq)
        })
    })
}

fn apply_step(step: &Step, sol: &mut [Int]) {
    match step {
        Step::Subst { k, expr } => {
            let v = eval(expr, sol);
            sol[*k - 1] = v;
        }
        Step::Bounds { k, lowers, uppers } => {
            let k = *k;
            // a x + l >= 0  ⇒  x >= ceil(-l / a)
            let lo = lowers
                .iter()
                .map(|r| {
                    let mut rr = r.clone();
                    let a = std::mem::replace(&mut rr[k], Int::ZERO);
                    (-eval(&rr, sol)).div_ceil(&a)
                })
                .max();
            let v = match lo {
                Some(v) => v,
                None => uppers
                    .iter()
                    .map(|r| {
                        let mut rr = r.clone();
                        let b = -std::mem::replace(&mut rr[k], Int::ZERO);
                        eval(&rr, sol).div_floor(&b)
                    })
                    .min()
                    .unwrap_or(Int::ZERO),
            };
            sol[k - 1] = v;
        }
    }
}

fn reconstruct(steps: &[Step], mut sol: Vec<Int>) -> Vec<Int> {
    for s in steps.iter().rev() {
        apply_step(s, &mut sol);
    }
    sol
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Row {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    fn brute(p: &Problem, lo: i64, hi: i64) -> bool {
        let mut x = vec![lo; p.n];
        loop {
            let xi: Vec<Int> = x.iter().map(|&v| Int::from(v)).collect();
            if satisfies(p, &xi) {
                return true;
            }
            let mut i = 0;
            loop {
                if i == p.n {
                    return false;
                }
                x[i] += 1;
                if x[i] <= hi {
                    break;
                }
                x[i] = lo;
                i += 1;
            }
        }
    }

    #[test]
    fn rational_but_not_integer() {
        // 1 <= 3x - 2y... : 2 <= 3x <= 4? no: 3x = 2 has no integer solution.
        let p = Problem {
            n: 1,
            eqs: vec![],
            ineqs: vec![row(&[-2, 3]), row(&[4, -3]), row(&[-1, 3])],
        };
        assert_eq!(solve(&p).is_some(), brute(&p, -5, 5));
        // 27 <= 11x + 13y <= 45, -10 <= 7x - 9y <= 4 (Pugh's example has no integer point)
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
        assert_eq!(solve(&p).is_some(), brute(&p, -20, 20));
        assert!(solve(&p).is_none());
    }

    #[test]
    fn equality_without_unit_coefficient() {
        // 2x + 3y = 7, 0 <= x, y <= 10  → (2, 1)
        let p = Problem {
            n: 2,
            eqs: vec![row(&[-7, 2, 3])],
            ineqs: vec![
                row(&[0, 1, 0]),
                row(&[0, 0, 1]),
                row(&[10, -1, 0]),
                row(&[10, 0, -1]),
            ],
        };
        let s = solve(&p).expect("feasible");
        assert!(satisfies(&p, &s));
        // 4x + 6y = 7 is infeasible (gcd)
        let p = Problem {
            n: 2,
            eqs: vec![row(&[-7, 4, 6])],
            ineqs: vec![],
        };
        assert!(solve(&p).is_none());
    }
}
