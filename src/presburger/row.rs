//! Rows and problems: the bottom layer of the integer core, under the Omega test, the fast
//! feasibility path, the LP layer and conjunctions.
//!
//! A row is `[c, a1, ..., an]`, meaning `c + a·x = 0` as an equality or `c + a·x >= 0` as an
//! inequality; a [`Problem`] is a conjunction of them. Here are the operations every layer
//! that works on rows shares: evaluation, gcd division and tightening, normalisation of a
//! problem, substitution of a variable, solving a unit equality, integer row elimination
//! (cancelling a column against a pivot row), Fourier–Motzkin combination of a lower with
//! an upper bound (the real shadow, or the dark shadow), and rational projection for
//! bounds. Nothing here decides integer emptiness; that is `omega.rs` and `sample.rs`.

use super::budget;
use super::int::{gcd_all, Int};

/// A row of a constraint system: constant first, then one coefficient per variable.
pub type Row = Vec<Int>;

/// A conjunction of integer constraints over `n` variables: rows of width `n + 1`.
///
/// The fields are private to the core: code above it builds a problem with
/// [`Problem::new`] (or [`Basic::to_problem`](super::Basic::to_problem)), adds rows with
/// [`Problem::add_eq`], [`Problem::add_ineq`] and their `extend_` forms, and reads it
/// through [`Problem::n`], [`Problem::eqs`] and [`Problem::ineqs`].
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub(super) n: usize,
    pub(super) eqs: Vec<Row>,
    pub(super) ineqs: Vec<Row>,
}

impl Problem {
    /// The equalities `eqs` and the inequalities `ineqs` over `n` variables (each row of
    /// width `n + 1`).
    pub fn new(n: usize, eqs: Vec<Row>, ineqs: Vec<Row>) -> Problem {
        let p = Problem { n, eqs, ineqs };
        debug_assert!(p.eqs.iter().chain(&p.ineqs).all(|r| r.len() == n + 1));
        p
    }

    /// The number of variables.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The equalities `r · (1, x) = 0`.
    pub fn eqs(&self) -> &[Row] {
        &self.eqs
    }

    /// The inequalities `r · (1, x) >= 0`.
    pub fn ineqs(&self) -> &[Row] {
        &self.ineqs
    }

    /// Adds an equality (of width `n + 1`).
    pub fn add_eq(&mut self, r: Row) {
        debug_assert_eq!(r.len(), self.n + 1);
        self.eqs.push(r);
    }

    /// Adds an inequality (of width `n + 1`).
    pub fn add_ineq(&mut self, r: Row) {
        debug_assert_eq!(r.len(), self.n + 1);
        self.ineqs.push(r);
    }

    /// Adds equalities (each of width `n + 1`).
    pub fn extend_eqs(&mut self, rows: impl IntoIterator<Item = Row>) {
        for r in rows {
            self.add_eq(r);
        }
    }

    /// Adds inequalities (each of width `n + 1`).
    pub fn extend_ineqs(&mut self, rows: impl IntoIterator<Item = Row>) {
        for r in rows {
            self.add_ineq(r);
        }
    }
}

/// Does `x` satisfy every constraint of `p`?
pub fn satisfies(p: &Problem, x: &[Int]) -> bool {
    p.eqs.iter().all(|r| eval(r, x).is_zero()) && p.ineqs.iter().all(|r| !eval(r, x).is_negative())
}

/// `r · (1, x)`.
#[inline]
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
            divide_exact(&mut r, &g);
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
            tighten_by(&mut r, &g);
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

/// Divides every entry of `r` by `g`, which divides them all.
#[inline]
pub fn divide_exact(r: &mut [Int], g: &Int) {
    for v in r.iter_mut() {
        *v = v.div_exact(g);
    }
}

/// Divides the inequality `r >= 0` by `g`, a positive common divisor of its coefficients,
/// rounding the constant down: the same integer points (`128*x - 127 >= 0` by 128 is
/// `x - 1 >= 0`).
#[inline]
pub fn tighten_by(r: &mut [Int], g: &Int) {
    r[0] = r[0].div_floor(g);
    for v in r[1..].iter_mut() {
        *v = v.div_exact(g);
    }
}

/// The inequality `r >= 0` divided by the gcd of its coefficients and tightened
/// ([`tighten_by`]); unchanged when that gcd is 0 or 1.
pub fn tighten(mut r: Row) -> Row {
    let g = gcd_all(&r[1..]);
    if g > Int::ONE {
        tighten_by(&mut r, &g);
    }
    r
}

/// The value of `x_k` that the equality `eq` (`a_k = ±1`) fixes, as a row `expr` with
/// `x_k = expr · (1, x)` and `expr[k] = 0`: `a_k x_k + rest = 0  ⇒  x_k = -a_k · rest`.
#[inline]
pub fn solve_unit(eq: &[Int], k: usize) -> Row {
    let s = &eq[k];
    let mut expr: Row = eq.iter().map(|v| -(s * v)).collect();
    expr[k] = Int::ZERO;
    expr
}

/// Integer row elimination: cancels column `col` of `row` against `pivot` (`pivot[col] ≠
/// 0`), as `|a|·row - sign(a)·c·pivot` with `a = pivot[col]`, `c = row[col]`. The scaling
/// is positive, so an inequality stays valid where the pivot is an equality; returns
/// whether `row` changed (`false` when it had no `col` term).
#[inline]
pub fn cancel(row: &mut [Int], pivot: &[Int], col: usize) -> bool {
    let c = std::mem::replace(&mut row[col], Int::ZERO);
    if c.is_zero() {
        return false;
    }
    let a = &pivot[col];
    let f = if a.is_negative() { -&c } else { c };
    let den = a.abs();
    for (v, e) in row.iter_mut().zip(pivot) {
        *v = &(&den * &*v) - &(&f * e);
    }
    row[col] = Int::ZERO;
    true
}

/// Replaces variable `k` in `row` by `expr · (1, x)` (`expr` may mention `k` itself, as the
/// new variable that reuses the column).
#[inline]
pub fn substitute(row: &mut [Int], k: usize, expr: &[Int]) {
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

/// Splits inequalities into lower bounds on `x_k` (positive coefficient), upper bounds
/// (negative coefficient) and the rest.
pub fn split_bounds(ineqs: &[Row], k: usize) -> (Vec<Row>, Vec<Row>, Vec<Row>) {
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
pub fn combine(lowers: &[Row], uppers: &[Row], k: usize, dark: bool) -> budget::Budgeted<Vec<Row>> {
    // One step per coefficient created, so that the budget bounds memory as well as time
    // (a row is as long as the problem is wide).
    let width = lowers.first().map_or(1, Vec::len) as u64;
    budget::tick((lowers.len() * uppers.len()) as u64 * width)?;
    let mut out = Vec::with_capacity(lowers.len() * uppers.len());
    for l in lowers {
        for u in uppers {
            out.push(combine_pair(l, u, k, dark));
        }
    }
    Ok(out)
}

/// The Fourier–Motzkin combination of one lower bound `a·x_k + l >= 0` and one upper bound
/// `-b·x_k + u >= 0` on column `k` (`a, b > 0`): `b·l + a·u >= 0`, without `x_k`; with
/// `dark`, the dark shadow's `b·l + a·u >= (a-1)(b-1)`. Charges nothing to the budget (see
/// [`combine`]).
#[inline]
pub fn combine_pair(l: &[Int], u: &[Int], k: usize, dark: bool) -> Row {
    let a = &l[k];
    let b = -&u[k];
    let mut row: Row = l.iter().zip(u).map(|(x, y)| &(&b * x) + &(a * y)).collect();
    row[k] = Int::ZERO;
    if dark {
        let slack = &(a - &Int::ONE) * &(&b - &Int::ONE);
        row[0] -= &slack;
    }
    row
}

/// Rational Fourier–Motzkin projection onto the variables in `keep` (1-based columns):
/// the returned inequalities (and equalities written as two inequalities) hold for every
/// integer point of `p`, and describe its rational projection (tightened by gcd, which is
/// valid for integer points). Used for bounds, never for emptiness.
pub fn project_rational(p: &Problem, keep: &[usize]) -> budget::Budgeted<Vec<Row>> {
    let mut q = p.clone();
    if !normalize(&mut q) {
        let mut r = vec![Int::ZERO; p.n + 1];
        r[0] = Int::from(-1);
        return Ok(vec![r]);
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
            rest.extend(combine(&l, &u, k, false)?);
            q.ineqs = rest;
        }
        if !normalize(&mut q) {
            let mut r = vec![Int::ZERO; p.n + 1];
            r[0] = Int::from(-1);
            return Ok(vec![r]);
        }
    }
    let mut out = q.ineqs;
    for e in q.eqs {
        out.push(e.iter().map(|v| -v).collect());
        out.push(e);
    }
    Ok(out)
}

/// Bounds on variable `k` (1-based) implied rationally by `p`: valid for every integer
/// point, not necessarily attained.
/// (Within a spent work budget: neither; see [`budget`].)
pub fn rational_bounds(p: &Problem, k: usize) -> (Option<Int>, Option<Int>) {
    budget::settle(|| try_rational_bounds(p, k), || (None, None))
}

/// [`rational_bounds`], or the refusal of the work budget.
pub fn try_rational_bounds(p: &Problem, k: usize) -> budget::Budgeted<(Option<Int>, Option<Int>)> {
    let (mut lo, mut hi): (Option<Int>, Option<Int>) = (None, None);
    for r in project_rational(p, &[k])? {
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
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Row {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    #[test]
    fn tightening_keeps_integer_points() {
        // 128x - 128y - 127 >= 0 is x - y - 1 >= 0 over the integers.
        assert_eq!(tighten(row(&[-127, 128, -128])), row(&[-1, 1, -1]));
        // 3x + 1 >= 0 is x >= 0 (x >= -1/3).
        assert_eq!(tighten(row(&[1, 3])), row(&[0, 1]));
        // Coprime coefficients and constant rows stay as they are.
        assert_eq!(tighten(row(&[5, 2, 3])), row(&[5, 2, 3]));
        assert_eq!(tighten(row(&[-4, 0, 0])), row(&[-4, 0, 0]));
    }

    #[test]
    fn normalisation_finds_equalities_and_contradictions() {
        // x - 2 >= 0 and 2 - x >= 0: x = 2.
        let mut p = Problem {
            n: 1,
            eqs: vec![],
            ineqs: vec![row(&[-2, 1]), row(&[2, -1])],
        };
        assert!(normalize(&mut p));
        // The pair becomes its row with the negative leading coefficient, as an equality.
        assert_eq!(p.eqs, vec![row(&[2, -1])]);
        assert!(p.ineqs.is_empty());
        // 2x = 3 has no integer solution.
        let mut p = Problem {
            n: 1,
            eqs: vec![row(&[-3, 2])],
            ineqs: vec![],
        };
        assert!(!normalize(&mut p));
        // x >= 3 and x <= 2.
        let mut p = Problem {
            n: 1,
            eqs: vec![],
            ineqs: vec![row(&[-3, 1]), row(&[2, -1])],
        };
        assert!(!normalize(&mut p));
        // Parallel rows: the tightest stays; equalities get a positive leading coefficient.
        let mut p = Problem {
            n: 2,
            eqs: vec![row(&[4, -2, 0])],
            ineqs: vec![row(&[0, 1, 1]), row(&[-5, 2, 2])],
        };
        assert!(normalize(&mut p));
        assert_eq!(p.eqs, vec![row(&[-2, 1, 0])]);
        assert_eq!(p.ineqs, vec![row(&[-3, 1, 1])]);
    }

    #[test]
    fn substitution_and_unit_equalities() {
        // x + 2y - 3 = 0  ⇒  x = 3 - 2y.
        let eq = row(&[-3, 1, 2]);
        let x = solve_unit(&eq, 1);
        assert_eq!(x, row(&[3, 0, -2]));
        // -x + y = 0  ⇒  x = y.
        assert_eq!(solve_unit(&row(&[0, -1, 1]), 1), row(&[0, 0, 1]));
        // 5 + 4x + y >= 0 with x = 3 - 2y: 17 - 7y >= 0.
        let mut r = row(&[5, 4, 1]);
        substitute(&mut r, 1, &x);
        assert_eq!(r, row(&[17, 0, -7]));
        // The substituted expression may reuse the column (a change of variables).
        let mut r = row(&[1, 2, 0]);
        substitute(&mut r, 1, &row(&[0, 1, -1]));
        assert_eq!(r, row(&[1, 2, -2]));
        // Every point of the equality satisfies the substituted row exactly when the original.
        for y in -5..5 {
            let xv = eval(&x, &[Int::ZERO, Int::from(y)]);
            let orig = eval(&row(&[5, 4, 1]), &[xv, Int::from(y)]);
            assert_eq!(orig, eval(&row(&[17, 0, -7]), &[Int::ZERO, Int::from(y)]));
        }
    }

    #[test]
    fn cancelling_scales_positively() {
        // Pivot -2x + y = 0; row 3x + y + 1 >= 0 becomes 2(3x + y + 1) + 3(-2x + y) = 5y + 2.
        let pivot = row(&[0, -2, 1]);
        let mut r = row(&[1, 3, 1]);
        assert!(cancel(&mut r, &pivot, 1));
        assert_eq!(r, row(&[2, 0, 5]));
        // A row without the column is left alone.
        let mut r = row(&[1, 0, 1]);
        assert!(!cancel(&mut r, &pivot, 1));
        assert_eq!(r, row(&[1, 0, 1]));
    }

    #[test]
    fn real_and_dark_shadows() {
        // 2x - y >= 0 and -3x + z >= 0: 3(2x - y) + 2(-3x + z) = -3y + 2z >= 0;
        // the dark shadow asks (2-1)(3-1) = 2 more.
        let (l, u) = (row(&[0, 2, -1, 0]), row(&[0, -3, 0, 1]));
        assert_eq!(combine_pair(&l, &u, 1, false), row(&[0, 0, -3, 2]));
        assert_eq!(combine_pair(&l, &u, 1, true), row(&[-2, 0, -3, 2]));
        let (lo, up, rest) = split_bounds(&[l.clone(), u.clone(), row(&[1, 0, 1, 0])], 1);
        assert_eq!((lo.len(), up.len(), rest.len()), (1, 1, 1));
        assert_eq!(
            combine(&lo, &up, 1, true).unwrap(),
            vec![combine_pair(&l, &u, 1, true)]
        );
    }

    #[test]
    fn rational_bounds_of_a_triangle() {
        // 0 <= y <= x <= 10, x + y <= 15: y in [0, 7] rationally (7.5 rounded down).
        let p = Problem {
            n: 2,
            eqs: vec![],
            ineqs: vec![
                row(&[0, 0, 1]),
                row(&[0, 1, -1]),
                row(&[10, -1, 0]),
                row(&[15, -1, -1]),
            ],
        };
        assert_eq!(
            rational_bounds(&p, 2),
            (Some(Int::ZERO), Some(Int::from(7)))
        );
        assert_eq!(
            rational_bounds(&p, 1),
            (Some(Int::ZERO), Some(Int::from(10)))
        );
    }
}
