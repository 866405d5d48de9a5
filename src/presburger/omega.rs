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
//! (inequalities).

use super::budget;
use super::int::{gcd_all, Int};

/// A row of a constraint system: constant first, then one coefficient per variable.
pub type Row = Vec<Int>;

/// A conjunction of integer constraints over `n` variables.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub n: usize,
    pub eqs: Vec<Row>,
    pub ineqs: Vec<Row>,
}

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

/// Is there an integer point satisfying every constraint?
pub fn is_feasible(p: &Problem) -> bool {
    if let Some(answer) = super::sample::feasible(p) {
        return answer;
    }
    solve(p).is_some()
}

/// [`is_feasible`] on a problem the caller no longer needs (saves a copy).
pub fn is_feasible_owned(p: Problem) -> bool {
    if cfg!(debug_assertions) {
        // Keeps the witness check of `solve`.
        return is_feasible(&p);
    }
    solve_rec(p).is_some()
}

/// An integer point satisfying every constraint of `p`, or `None` when there is none.
pub fn solve(p: &Problem) -> Option<Vec<Int>> {
    let sol = solve_rec(p.clone())?;
    debug_assert!(
        satisfies(p, &sol),
        "omega: witness does not satisfy the problem"
    );
    Some(sol)
}

/// Does `x` satisfy every constraint of `p`?
pub fn satisfies(p: &Problem, x: &[Int]) -> bool {
    p.eqs.iter().all(|r| eval(r, x).is_zero()) && p.ineqs.iter().all(|r| !eval(r, x).is_negative())
}

/// `r · (1, x)`.
pub fn eval(r: &[Int], x: &[Int]) -> Int {
    let mut v = r[0].clone();
    for (a, xi) in r[1..].iter().zip(x) {
        if !a.is_zero() && !xi.is_zero() {
            v += &(a * xi);
        }
    }
    v
}

/// Normalises a problem in place: gcd-divides and tightens every row, drops trivial rows,
/// merges parallel inequalities and turns opposite pairs that pin a value into equalities.
/// Returns `false` when a contradiction is found.
pub fn normalize(p: &mut Problem) -> bool {
    let mut eqs = Vec::with_capacity(p.eqs.len());
    for mut r in std::mem::take(&mut p.eqs) {
        let g = gcd_all(&r[1..]);
        if g.is_zero() {
            if !r[0].is_zero() {
                return false;
            }
            continue;
        }
        if !r[0].mod_floor(&g).is_zero() {
            return false;
        }
        if !g.is_one() {
            for v in r.iter_mut() {
                *v = v.div_exact(&g);
            }
        }
        // Canonical sign: first non-zero coefficient positive.
        if r[1..]
            .iter()
            .find(|v| !v.is_zero())
            .is_some_and(|v| v.is_negative())
        {
            for v in r.iter_mut() {
                *v = -&*v;
            }
        }
        eqs.push(r);
    }
    eqs.sort_unstable_by(|a, b| cmp_rows(a, b));
    eqs.dedup();
    // Parallel inequalities: keep the tightest; detect opposite pairs. Sorting by
    // coefficients puts parallel rows next to each other, smallest constant first.
    let mut rows: Vec<Row> = Vec::with_capacity(p.ineqs.len());
    for mut r in std::mem::take(&mut p.ineqs) {
        let g = gcd_all(&r[1..]);
        if g.is_zero() {
            if r[0].is_negative() {
                return false;
            }
            continue;
        }
        if !g.is_one() {
            r[0] = r[0].div_floor(&g);
            for v in r[1..].iter_mut() {
                *v = v.div_exact(&g);
            }
        }
        rows.push(r);
    }
    rows.sort_unstable_by(|a, b| cmp_rows(&a[1..], &b[1..]).then_with(|| a[0].cmp(&b[0])));
    rows.dedup_by(|later, earlier| later[1..] == earlier[1..]);
    // What becomes of each row: kept, dropped (the opposite of a pinned pair), or an
    // equality. Decided first so that rows are moved, not copied.
    #[derive(Clone, Copy, PartialEq)]
    enum Fate {
        Keep,
        Drop,
        Equality,
    }
    let mut fate = vec![Fate::Keep; rows.len()];
    for i in 0..rows.len() {
        if fate[i] == Fate::Drop {
            continue;
        }
        // Rows with a negative leading coefficient sort before their opposites.
        let negative_first = rows[i][1..]
            .iter()
            .find(|v| !v.is_zero())
            .is_some_and(|v| v.is_negative());
        if negative_first {
            let me = &rows[i][1..];
            if let Ok(j) = rows.binary_search_by(|r| cmp_negated(&r[1..], me)) {
                // c + a·x >= 0 and c' - a·x >= 0  ⇒  -c <= a·x <= c'
                let width = &rows[i][0] + &rows[j][0];
                if width.is_negative() {
                    return false;
                }
                if width.is_zero() {
                    fate[j] = Fate::Drop;
                    fate[i] = Fate::Equality;
                }
            }
        }
    }
    let mut ineqs = Vec::with_capacity(rows.len());
    for (r, f) in rows.into_iter().zip(fate) {
        match f {
            Fate::Keep => ineqs.push(r),
            Fate::Equality => eqs.push(r),
            Fate::Drop => {}
        }
    }
    p.eqs = eqs;
    p.ineqs = ineqs;
    true
}

/// Lexicographic order of rows (that of `Vec<Int>`), without the generic slice machinery.
#[inline]
fn cmp_rows(a: &[Int], b: &[Int]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = x.cmp(y);
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// `a` compared with the negation of `b`, lexicographically, without building `-b`.
fn cmp_negated(a: &[Int], b: &[Int]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Int::Small(x), Int::Small(y)) if *y != i64::MIN => x.cmp(&-y),
            _ => x.cmp(&-y),
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Rational Fourier–Motzkin projection onto the variables in `keep` (1-based columns):
/// the returned inequalities (and equalities written as two inequalities) hold for every
/// integer point of `p`, and describe its rational projection (tightened by gcd, which is
/// valid for integer points). Used for bounds, never for emptiness.
pub fn project_rational(p: &Problem, keep: &[usize]) -> Vec<Row> {
    let mut q = p.clone();
    if !normalize(&mut q) {
        let mut r = vec![Int::ZERO; p.n + 1];
        r[0] = Int::from(-1);
        return vec![r];
    }
    let mut todo: Vec<usize> = (1..=p.n).filter(|k| !keep.contains(k)).collect();
    while !todo.is_empty() {
        // Equalities first; otherwise the variable whose elimination adds fewest rows
        // (index order blows up quickly with many locals).
        let pick = todo
            .iter()
            .position(|&k| q.eqs.iter().any(|r| !r[k].is_zero()))
            .unwrap_or_else(|| {
                let cost = |k: usize| {
                    let l = q.ineqs.iter().filter(|r| r[k].is_positive()).count();
                    let u = q.ineqs.iter().filter(|r| r[k].is_negative()).count();
                    l * u
                };
                (0..todo.len())
                    .min_by_key(|&i| cost(todo[i]))
                    .expect("non-empty")
            });
        let k = todo.swap_remove(pick);
        if let Some(e) = q.eqs.iter().position(|r| !r[k].is_zero()) {
            let eq = q.eqs.swap_remove(e);
            let a = eq[k].clone();
            let sa = Int::from(a.signum() as i64);
            let aa = a.abs();
            for r in q.eqs.iter_mut().chain(q.ineqs.iter_mut()) {
                let c = r[k].clone();
                if !c.is_zero() {
                    let f = &sa * &c;
                    for (v, e) in r.iter_mut().zip(&eq) {
                        *v = &(&aa * &*v) - &(&f * e);
                    }
                }
            }
        } else {
            let (l, u, mut rest) = split_bounds(&q.ineqs, k);
            rest.extend(combine(&l, &u, k, false));
            q.ineqs = rest;
        }
        if !normalize(&mut q) {
            let mut r = vec![Int::ZERO; p.n + 1];
            r[0] = Int::from(-1);
            return vec![r];
        }
    }
    let mut out = q.ineqs;
    for e in q.eqs {
        out.push(e.iter().map(|v| -v).collect());
        out.push(e);
    }
    out
}

/// Bounds on variable `k` (1-based) implied rationally by `p`: valid for every integer
/// point, not necessarily attained.
pub fn rational_bounds(p: &Problem, k: usize) -> (Option<Int>, Option<Int>) {
    let (mut lo, mut hi): (Option<Int>, Option<Int>) = (None, None);
    for r in project_rational(p, &[k]) {
        let a = &r[k];
        if a.is_positive() {
            let v = (-&r[0]).div_ceil(a);
            if lo.as_ref().is_none_or(|l| v > *l) {
                lo = Some(v);
            }
        } else if a.is_negative() {
            let v = r[0].div_floor(&-a);
            if hi.as_ref().is_none_or(|h| v < *h) {
                hi = Some(v);
            }
        }
    }
    (lo, hi)
}

fn solve_rec(mut p: Problem) -> Option<Vec<Int>> {
    budget::tick(1 + p.eqs.len() as u64 + p.ineqs.len() as u64);
    let mut steps: Vec<Step> = Vec::new();
    loop {
        if !normalize(&mut p) {
            return None;
        }
        if !p.eqs.is_empty() {
            if !eliminate_equality(&mut p, &mut steps) {
                return None;
            }
            continue;
        }
        if p.ineqs.is_empty() {
            break;
        }
        let (mut k, mut exact) = choose_variable(&p);
        if growth(&p, k) > PRUNE_ABOVE {
            // The elimination would multiply the rows: first drop those the others imply.
            if !drop_redundant(&mut p) {
                return None;
            }
            if p.ineqs.is_empty() {
                break;
            }
            (k, exact) = choose_variable(&p);
        }
        let (lowers, uppers, rest) = split_bounds(&p.ineqs, k);
        if exact || lowers.is_empty() || uppers.is_empty() {
            let mut ineqs = rest;
            ineqs.extend(combine(&lowers, &uppers, k, false));
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
        dark.ineqs.extend(combine(&lowers, &uppers, k, true));
        if let Some(mut sol) = solve_rec(dark) {
            apply_step(
                &Step::Bounds {
                    k,
                    lowers: lowers.clone(),
                    uppers: uppers.clone(),
                },
                &mut sol,
            );
            return Some(reconstruct(&steps, sol));
        }
        // No integer point in the real shadow means none at all.
        let mut real = Problem {
            n: p.n,
            eqs: vec![],
            ineqs: rest,
        };
        real.ineqs.extend(combine(&lowers, &uppers, k, false));
        solve_rec(real)?;
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
                        if let Some(sol) = solve_rec(q) {
                            return Some(reconstruct(&steps, sol));
                        }
                        t = &t + &Int::ONE;
                    }
                    return None;
                }
            }
        }
        if count > Int::from(64) {
            if let Some((v, lo, hi)) = smallest_range(&p) {
                if &(&hi - &lo) + &Int::ONE < count {
                    let mut x = lo;
                    while x <= hi {
                        let mut q = p.clone();
                        let mut r = vec![Int::ZERO; p.n + 1];
                        r[v] = Int::ONE;
                        r[0] = -&x;
                        q.eqs.push(r);
                        if let Some(sol) = solve_rec(q) {
                            return Some(reconstruct(&steps, sol));
                        }
                        x = &x + &Int::ONE;
                    }
                    return None;
                }
            }
        }
        for eq_row in splinters(&lowers, &uppers, k) {
            let mut q = p.clone();
            q.eqs.push(eq_row);
            if let Some(sol) = solve_rec(q) {
                return Some(reconstruct(&steps, sol));
            }
        }
        return None;
    }
    Some(reconstruct(&steps, vec![Int::ZERO; p.n]))
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
fn drop_redundant(p: &mut Problem) -> bool {
    let lp = super::simplex::Lp::new(p.n, &p.eqs, &p.ineqs);
    if !lp.is_feasible() {
        return false;
    }
    let redundant = lp.redundant_rows();
    if redundant.is_empty() {
        return true;
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
    true
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
            for v in eq.iter_mut() {
                *v = v.div_exact(&g);
            }
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
    // a_k x_k + rest = 0 with a_k = ±1  ⇒  x_k = -a_k · rest
    let s = eq[k].clone();
    let mut expr: Row = eq.iter().map(|v| -(&s * v)).collect();
    expr[k] = Int::ZERO;
    for r in p.eqs.iter_mut().chain(p.ineqs.iter_mut()) {
        substitute(r, k, &expr);
    }
    steps.push(Step::Subst { k, expr });
    true
}

/// Replaces variable `k` in `row` by `expr · (1, x)` (`expr` may mention `k` itself, as the
/// new variable that reuses the column).
fn substitute(row: &mut Row, k: usize, expr: &Row) {
    let c = std::mem::replace(&mut row[k], Int::ZERO);
    if c.is_zero() {
        return;
    }
    for (v, e) in row.iter_mut().zip(expr) {
        if !e.is_zero() {
            *v += &(&c * e);
        }
    }
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

/// Splits inequalities into lower bounds on `x_k` (positive coefficient), upper bounds
/// (negative coefficient) and the rest.
fn split_bounds(ineqs: &[Row], k: usize) -> (Vec<Row>, Vec<Row>, Vec<Row>) {
    let (mut l, mut u, mut rest) = (vec![], vec![], vec![]);
    for r in ineqs {
        if r[k].is_positive() {
            l.push(r.clone());
        } else if r[k].is_negative() {
            u.push(r.clone());
        } else {
            rest.push(r.clone());
        }
    }
    (l, u, rest)
}

/// Fourier–Motzkin combinations of every lower with every upper bound on `x_k`: the real
/// shadow, or with `dark` the dark shadow `b·l + a·u >= (a-1)(b-1)`.
fn combine(lowers: &[Row], uppers: &[Row], k: usize, dark: bool) -> Vec<Row> {
    // One step per coefficient created, so that the budget bounds memory as well as time
    // (a row is as long as the problem is wide).
    let width = lowers.first().map_or(1, Vec::len) as u64;
    budget::tick((lowers.len() * uppers.len()) as u64 * width);
    let mut out = Vec::with_capacity(lowers.len() * uppers.len());
    for l in lowers {
        let a = &l[k];
        for u in uppers {
            let b = -&u[k];
            let mut row: Row = l.iter().zip(u).map(|(x, y)| &(&b * x) + &(a * y)).collect();
            row[k] = Int::ZERO;
            if dark {
                let slack = &(a - &Int::ONE) * &(&b - &Int::ONE);
                row[0] -= &slack;
            }
            out.push(row);
        }
    }
    out
}

/// The variable with the smallest finite range of values (bounds from rational
/// projection), if any: enumerating it is an exact alternative to many splinters.
fn smallest_range(p: &Problem) -> Option<(usize, Int, Int)> {
    let mut best: Option<(usize, Int, Int)> = None;
    for v in 1..=p.n {
        if p.ineqs.iter().chain(&p.eqs).all(|r| r[v].is_zero()) {
            continue;
        }
        if let (Some(l), Some(h)) = rational_bounds(p, v) {
            let better = best.as_ref().is_none_or(|(_, bl, bh)| &h - &l < bh - bl);
            if better {
                best = Some((v, l, h));
            }
        }
    }
    best
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
