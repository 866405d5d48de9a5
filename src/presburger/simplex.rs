//! Exact linear programming: a lexicographic dual simplex on integer rows with a common
//! denominator, with a "big parameter" so that no variable needs a sign.
//!
//! This is the rational layer under the integer core. It answers, over the rationals and
//! exactly:
//!
//! - [`Lp::is_feasible`]: does the polyhedron have a rational point? (No rational point
//!   means no integer point either, so an infeasible answer is an integer emptiness proof.)
//! - [`Lp::min`] / [`Lp::max`]: the optimum of an affine form, or that it is unbounded.
//! - [`Lp::is_redundant`]: is an inequality implied (rationally, hence also over the
//!   integers) by the other constraints? [`Lp::redundant_rows`] lists every such row.
//!
//! Rows use the core's layout `[c, a1..an]`, meaning `c + a·x = 0` (equalities) or
//! `c + a·x >= 0` (inequalities), as in [`super::row::Problem`]. Every pivot is charged to
//! the work budget ([`super::budget::tick`]).
//!
//! The same [`Tableau`] runs the parametric integer programming of [`super::pip`]: there the
//! constant of a row is an affine form of the parameters, and the signs the dual simplex
//! needs are asked of a context.
//!
//! # The method
//!
//! Every variable `x` is represented by `x' = x + M ≥ 0` for an arbitrarily large symbol
//! `M` (the big parameter), so the sample point `x' = 0` lies below every point of the
//! polyhedron. Each row of the tableau expresses a variable (an unknown `x'` or the slack of
//! a constraint, all `≥ 0`) as `(c + m·M + Σ p_k·y_k + Σ t_j·v_j) / d` over the non-basic
//! variables `v_j` (whose sample value is 0) and the parameters `y_k`. The dual simplex keeps
//! every column lexicographically positive over the unknowns' rows, so the sample point only
//! grows lexicographically; a row whose constant is negative is pivoted on the column with
//! the lexicographically smallest increment, and a negative row with no positive entry
//! proves infeasibility. The first feasible sample point is the lexicographic minimum of the
//! unknowns (Feautrier's parametric integer programming; isl's `isl_tab_pip.c` uses the same
//! scheme). An unknown whose value still has `M` in it is unbounded below.

use super::budget::{self, Budgeted};
use super::int::{gcd_all, Int};
use super::row::{divide_exact, Row};
use std::fmt;

/// An exact rational number `num / den`, `den > 0`, in lowest terms.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rat {
    pub num: Int,
    pub den: Int,
}

impl Rat {
    /// `num / den` in lowest terms. Panics on a zero denominator.
    pub fn new(num: Int, den: Int) -> Rat {
        assert!(!den.is_zero(), "zero denominator");
        let (num, den) = if den.is_negative() {
            (-num, -den)
        } else {
            (num, den)
        };
        let g = num.gcd(&den);
        if g.is_one() || g.is_zero() {
            Rat { num, den }
        } else {
            Rat {
                num: num.div_exact(&g),
                den: den.div_exact(&g),
            }
        }
    }

    pub fn from_int(v: Int) -> Rat {
        Rat {
            num: v,
            den: Int::ONE,
        }
    }

    /// The largest integer `<= self`.
    pub fn floor(&self) -> Int {
        self.num.div_floor(&self.den)
    }

    /// The smallest integer `>= self`.
    pub fn ceil(&self) -> Int {
        self.num.div_ceil(&self.den)
    }

    pub fn is_integer(&self) -> bool {
        self.den.is_one()
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Rat) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> std::cmp::Ordering {
        (&self.num * &other.den).cmp(&(&other.num * &self.den))
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den.is_one() {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The optimum of an affine form over a polyhedron.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Optimum {
    /// No rational point at all.
    Infeasible,
    /// The form decreases (for a minimum; increases for a maximum) without bound.
    Unbounded,
    /// The exact optimal value, attained at a rational point.
    Value(Rat),
}

/// A rational polyhedron `{ x ∈ Q^n : eqs = 0, ineqs >= 0 }` to ask linear programs of.
///
/// Cheap to build (it only holds the rows); every question runs one dual simplex. This is
/// the API the rest of the crate (the integer core's pre-checks, the schedule search) uses.
#[derive(Clone, Debug)]
pub struct Lp {
    n: usize,
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
}

impl Lp {
    /// The polyhedron of rows `[c, a1..an]` over `n` variables.
    pub fn new(n: usize, eqs: &[Row], ineqs: &[Row]) -> Lp {
        debug_assert!(eqs.iter().chain(ineqs).all(|r| r.len() == n + 1));
        Lp {
            n,
            eqs: eqs.to_vec(),
            ineqs: ineqs.to_vec(),
        }
    }

    pub fn n_var(&self) -> usize {
        self.n
    }

    /// Does the polyhedron have a rational point? (Within a spent work budget: `false`;
    /// see [`budget`].)
    pub fn is_feasible(&self) -> bool {
        budget::settle(|| self.try_is_feasible(), || false)
    }

    /// [`Self::is_feasible`], or the refusal of the work budget.
    pub fn try_is_feasible(&self) -> Budgeted<bool> {
        let mut t = Tableau::new(self.n, 0);
        for r in &self.eqs {
            t.add_eq(r, &[]);
        }
        for r in &self.ineqs {
            t.add_ineq(r, &[]);
        }
        t.solve_rational()
    }

    /// A rational point, when there is one (the lexicographically smallest).
    pub fn sample(&self) -> Option<Vec<Rat>> {
        budget::settle(|| self.try_sample(), || None)
    }

    /// [`Self::sample`], or the refusal of the work budget.
    pub fn try_sample(&self) -> Budgeted<Option<Vec<Rat>>> {
        let mut t = Tableau::new(self.n, 0);
        for r in &self.eqs {
            t.add_eq(r, &[]);
        }
        for r in &self.ineqs {
            t.add_ineq(r, &[]);
        }
        if !t.solve_rational()? {
            return Ok(None);
        }
        // Lexicographic minimum; a coordinate unbounded below is not a point.
        Ok((0..self.n).map(|i| t.unknown_value(i)).collect())
    }

    /// The minimum of `c + a·x` (`obj = [c, a1..an]`).
    pub fn min(&self, obj: &[Int]) -> Optimum {
        budget::settle(|| self.try_min(obj), || Optimum::Infeasible)
    }

    /// [`Self::min`], or the refusal of the work budget.
    pub fn try_min(&self, obj: &[Int]) -> Budgeted<Optimum> {
        debug_assert_eq!(obj.len(), self.n + 1);
        // Unknowns: z first (minimised before anything else), then x; z - a·x - c = 0.
        let mut t = Tableau::new(self.n + 1, 0);
        let lift = |r: &Row| -> Row {
            let mut out = Vec::with_capacity(r.len() + 1);
            out.push(r[0].clone());
            out.push(Int::ZERO);
            out.extend(r[1..].iter().cloned());
            out
        };
        let mut def: Row = Vec::with_capacity(self.n + 2);
        def.push(-&obj[0]);
        def.push(Int::ONE);
        def.extend(obj[1..].iter().map(|v| -v));
        t.add_eq(&def, &[]);
        for r in &self.eqs {
            t.add_eq(&lift(r), &[]);
        }
        for r in &self.ineqs {
            t.add_ineq(&lift(r), &[]);
        }
        if !t.solve_rational()? {
            return Ok(Optimum::Infeasible);
        }
        Ok(match t.unknown_value(0) {
            Some(v) => Optimum::Value(v),
            None => Optimum::Unbounded,
        })
    }

    /// The maximum of `c + a·x`.
    pub fn max(&self, obj: &[Int]) -> Optimum {
        budget::settle(|| self.try_max(obj), || Optimum::Infeasible)
    }

    /// [`Self::max`], or the refusal of the work budget.
    pub fn try_max(&self, obj: &[Int]) -> Budgeted<Optimum> {
        let neg: Row = obj.iter().map(|v| -v).collect();
        Ok(match self.try_min(&neg)? {
            Optimum::Value(v) => Optimum::Value(Rat::new(-v.num, v.den)),
            o => o,
        })
    }

    /// The rational range of `c + a·x`: `(min, max)`, `None` for an unbounded side; `None`
    /// altogether when the polyhedron is empty.
    pub fn range(&self, obj: &[Int]) -> Option<(Option<Rat>, Option<Rat>)> {
        budget::settle(|| self.try_range(obj), || None)
    }

    /// [`Self::range`], or the refusal of the work budget.
    pub fn try_range(&self, obj: &[Int]) -> Budgeted<Option<(Option<Rat>, Option<Rat>)>> {
        let lo = match self.try_min(obj)? {
            Optimum::Infeasible => return Ok(None),
            Optimum::Unbounded => None,
            Optimum::Value(v) => Some(v),
        };
        let hi = match self.try_max(obj)? {
            Optimum::Infeasible => return Ok(None),
            Optimum::Unbounded => None,
            Optimum::Value(v) => Some(v),
        };
        Ok(Some((lo, hi)))
    }

    /// Is inequality `k` implied by the other constraints (over the rationals, hence also
    /// over the integers)? An infeasible remainder implies everything.
    pub fn is_redundant(&self, k: usize) -> bool {
        budget::settle(|| self.try_is_redundant(k), || false)
    }

    /// [`Self::is_redundant`], or the refusal of the work budget.
    pub fn try_is_redundant(&self, k: usize) -> Budgeted<bool> {
        let mut others = self.clone();
        let r = others.ineqs.remove(k);
        Ok(match others.try_min(&r)? {
            Optimum::Infeasible => true,
            Optimum::Unbounded => false,
            Optimum::Value(v) => !v.num.is_negative(),
        })
    }

    /// Indices of inequalities that can all be dropped together without changing the
    /// polyhedron: each is implied by the rows that remain (checked one by one, dropping as
    /// it goes, so of two identical rows only one goes).
    pub fn redundant_rows(&self) -> Vec<usize> {
        budget::settle(|| self.try_redundant_rows(), Vec::new)
    }

    /// [`Self::redundant_rows`], or the refusal of the work budget.
    pub fn try_redundant_rows(&self) -> Budgeted<Vec<usize>> {
        let mut keep: Vec<usize> = (0..self.ineqs.len()).collect();
        let mut out = vec![];
        let mut i = 0;
        while i < keep.len() {
            let k = keep[i];
            let rest: Vec<Row> = keep
                .iter()
                .filter(|&&j| j != k)
                .map(|&j| self.ineqs[j].clone())
                .collect();
            let others = Lp::new(self.n, &self.eqs, &rest);
            let implied = match others.try_min(&self.ineqs[k])? {
                Optimum::Infeasible => true,
                Optimum::Unbounded => false,
                Optimum::Value(v) => !v.num.is_negative(),
            };
            if implied {
                out.push(k);
                keep.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(out)
    }
}

/// The sign of a row's constant over a context of parameter values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sign {
    /// `>= 0` everywhere.
    NonNeg,
    /// `< 0` everywhere.
    Neg,
    /// Both occur.
    Any,
}

/// Where a variable sits in the tableau.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pos {
    Row(usize),
    Col(usize),
}

/// The dual simplex tableau (see the module documentation).
///
/// Row layout: `[d, c, m, t_0 .. t_{n-1}, p_0 .. p_{k-1}]`: denominator `d > 0`, constant
/// `c`, coefficient `m` of the big parameter, one entry per non-basic column, one per
/// parameter. Variables `0..n_unknown` are the unknowns (as `x + M`), the others slacks.
#[derive(Clone, Debug)]
pub(crate) struct Tableau {
    n_unknown: usize,
    n_param: usize,
    rows: Vec<Vec<Int>>,
    row_var: Vec<usize>,
    col_var: Vec<usize>,
    pos: Vec<Pos>,
}

const OFF: usize = 3;

impl Tableau {
    /// `n` unknowns (all non-basic, at `x' = 0`) and `n_param` parameters.
    pub(crate) fn new(n: usize, n_param: usize) -> Tableau {
        Tableau {
            n_unknown: n,
            n_param,
            rows: vec![],
            row_var: vec![],
            col_var: (0..n).collect(),
            pos: (0..n).map(Pos::Col).collect(),
        }
    }

    pub(crate) fn n_param(&self) -> usize {
        self.n_param
    }

    fn width(&self) -> usize {
        OFF + self.n_unknown + self.n_param
    }

    /// Appends a parameter column (zero everywhere).
    pub(crate) fn add_param(&mut self) {
        self.n_param += 1;
        for r in &mut self.rows {
            r.push(Int::ZERO);
        }
    }

    /// Adds `c + a·x + p·y >= 0` (`r = [c, a_0..a_{n-1}]`, `params = p`, possibly shorter
    /// than `n_param`) as a new slack row.
    pub(crate) fn add_ineq(&mut self, r: &[Int], params: &[Int]) {
        debug_assert_eq!(r.len(), self.n_unknown + 1);
        let mut row = vec![Int::ZERO; self.width()];
        row[0] = Int::ONE;
        row[1] = r[0].clone();
        let mut m = Int::ZERO;
        for (i, a) in r[1..].iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            // x_i = x'_i - M
            m -= a;
            match self.pos[i] {
                Pos::Col(j) => row[OFF + j] += a,
                Pos::Row(ri) => {
                    // Adding a times a row with its own denominator.
                    let src = self.rows[ri].clone();
                    let d = &src[0];
                    let g = row[0].lcm(d);
                    let fa = g.div_exact(&row[0]);
                    let fb = g.div_exact(d);
                    for (k, v) in row.iter_mut().enumerate().skip(1) {
                        *v = &(&*v * &fa) + &(&(a * &src[k]) * &fb);
                    }
                    row[0] = g;
                }
            }
        }
        // The big parameter: `m` is per unit of the row's denominator.
        row[2] = &row[2] + &(&m * &row[0]);
        let d = row[0].clone();
        for (k, p) in params.iter().enumerate() {
            row[OFF + self.n_unknown + k] += &(p * &d);
        }
        normalize_row(&mut row);
        self.pos.push(Pos::Row(self.rows.len()));
        self.row_var.push(self.pos.len() - 1);
        self.rows.push(row);
    }

    /// Adds an equality as two opposite inequalities.
    pub(crate) fn add_eq(&mut self, r: &[Int], params: &[Int]) {
        self.add_ineq(r, params);
        let nr: Row = r.iter().map(|v| -v).collect();
        let np: Row = params.iter().map(|v| -v).collect();
        self.add_ineq(&nr, &np);
    }

    /// The parametric constant of row `r` as a context row `[c, p_0..p_{k-1}]` (the
    /// denominator and the big parameter left out).
    pub(crate) fn row_constant(&self, r: usize) -> Row {
        let row = &self.rows[r];
        let mut out = Vec::with_capacity(1 + self.n_param);
        out.push(row[1].clone());
        out.extend(row[OFF + self.n_unknown..].iter().cloned());
        out
    }

    pub(crate) fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// Sign of row `r`'s constant when it does not depend on the parameters' values.
    pub(crate) fn fixed_sign(&self, r: usize) -> Option<Sign> {
        let row = &self.rows[r];
        match row[2].signum() {
            1 => return Some(Sign::NonNeg),
            -1 => return Some(Sign::Neg),
            _ => {}
        }
        if row[OFF + self.n_unknown..].iter().all(Int::is_zero) {
            Some(if row[1].is_negative() {
                Sign::Neg
            } else {
                Sign::NonNeg
            })
        } else {
            None
        }
    }

    /// Does row `r` have a positive entry in a non-basic column?
    pub(crate) fn has_positive_entry(&self, r: usize) -> bool {
        self.rows[r][OFF..OFF + self.n_unknown]
            .iter()
            .any(Int::is_positive)
    }

    /// One dual simplex step on a row with a negative constant: pivots on the column with
    /// the lexicographically smallest increment. Returns `false` when the row has no
    /// positive entry (the constraint cannot be satisfied).
    pub(crate) fn pivot_negative_row(&mut self, r: usize) -> Budgeted<bool> {
        let row = &self.rows[r];
        let mut best: Option<usize> = None;
        for j in 0..self.n_unknown {
            if !row[OFF + j].is_positive() {
                continue;
            }
            best = Some(match best {
                None => j,
                Some(b) => {
                    if self.lex_less(j, b, r) {
                        j
                    } else {
                        b
                    }
                }
            });
        }
        match best {
            None => Ok(false),
            Some(j) => {
                self.pivot(r, j)?;
                Ok(true)
            }
        }
    }

    /// Is column `j` divided by its entry in row `r` lexicographically smaller than column
    /// `k` divided by its entry, over the unknowns' rows?
    fn lex_less(&self, j: usize, k: usize, r: usize) -> bool {
        let tj = &self.rows[r][OFF + j];
        let tk = &self.rows[r][OFF + k];
        for i in 0..self.n_unknown {
            let (a, b) = match self.pos[i] {
                Pos::Row(ri) => (
                    self.rows[ri][OFF + j].clone(),
                    self.rows[ri][OFF + k].clone(),
                ),
                Pos::Col(c) => (
                    if c == j { Int::ONE } else { Int::ZERO },
                    if c == k { Int::ONE } else { Int::ZERO },
                ),
            };
            let lhs = &a * tk;
            let rhs = &b * tj;
            if lhs != rhs {
                return lhs < rhs;
            }
        }
        false
    }

    /// Exchanges the basic variable of row `r` with the non-basic variable of column `j`.
    fn pivot(&mut self, r: usize, j: usize) -> Budgeted<()> {
        budget::tick(1 + self.rows.len() as u64)?;
        let cj = OFF + j;
        let old = std::mem::take(&mut self.rows[r]);
        let mut nr: Vec<Int> = old.iter().map(|v| -v).collect();
        nr[0] = old[cj].clone();
        nr[cj] = old[0].clone();
        if nr[0].is_negative() {
            for v in nr.iter_mut() {
                *v = -&*v;
            }
        }
        normalize_row(&mut nr);
        for (i, row) in self.rows.iter_mut().enumerate() {
            if i == r || row[cj].is_zero() {
                continue;
            }
            let a = row[cj].clone();
            let dd = &nr[0];
            row[0] = &row[0] * dd;
            for k in 1..row.len() {
                row[k] = if k == cj {
                    &a * &nr[cj]
                } else {
                    &(&row[k] * dd) + &(&a * &nr[k])
                };
            }
            normalize_row(row);
        }
        self.rows[r] = nr;
        let vr = self.row_var[r];
        let vc = self.col_var[j];
        self.row_var[r] = vc;
        self.col_var[j] = vr;
        self.pos[vc] = Pos::Row(r);
        self.pos[vr] = Pos::Col(j);
        Ok(())
    }

    /// Runs the dual simplex to a rational lexicographic minimum when there are no
    /// parameters. Returns `false` if infeasible.
    pub(crate) fn solve_rational(&mut self) -> Budgeted<bool> {
        debug_assert_eq!(self.n_param, 0);
        loop {
            let neg = (0..self.rows.len()).find(|&r| self.fixed_sign(r) == Some(Sign::Neg));
            let Some(r) = neg else {
                return Ok(true);
            };
            if !self.pivot_negative_row(r)? {
                return Ok(false);
            }
        }
    }

    /// The value of unknown `i` at the sample point when it has no big parameter (its
    /// rational value), `None` if it is unbounded below. Only for tableaux without
    /// parameters.
    pub(crate) fn unknown_value(&self, i: usize) -> Option<Rat> {
        match self.pos[i] {
            Pos::Col(_) => None,
            Pos::Row(r) => {
                let row = &self.rows[r];
                if row[2] != row[0] {
                    return None;
                }
                Some(Rat::new(row[1].clone(), row[0].clone()))
            }
        }
    }

    /// Row of unknown `i`, if basic.
    pub(crate) fn unknown_row(&self, i: usize) -> Option<usize> {
        match self.pos[i] {
            Pos::Row(r) => Some(r),
            Pos::Col(_) => None,
        }
    }

    pub(crate) fn n_unknown(&self) -> usize {
        self.n_unknown
    }

    /// `(d, m, [c, p..])` of row `r`: denominator, big-parameter coefficient, constant.
    pub(crate) fn row_value(&self, r: usize) -> (Int, Int, Row) {
        (
            self.rows[r][0].clone(),
            self.rows[r][2].clone(),
            self.row_constant(r),
        )
    }

    /// Entries of row `r` in the non-basic columns.
    pub(crate) fn row_coeffs(&self, r: usize) -> &[Int] {
        &self.rows[r][OFF..OFF + self.n_unknown]
    }

    /// Adds `(c + t·v + p·y) / d >= 0` over the current non-basic columns (a cut).
    pub(crate) fn add_raw_row(&mut self, d: Int, c: Int, t: Vec<Int>, p: Vec<Int>) {
        debug_assert_eq!(t.len(), self.n_unknown);
        debug_assert_eq!(p.len(), self.n_param);
        let mut row = Vec::with_capacity(self.width());
        row.push(d);
        row.push(c);
        row.push(Int::ZERO);
        row.extend(t);
        row.extend(p);
        normalize_row(&mut row);
        self.pos.push(Pos::Row(self.rows.len()));
        self.row_var.push(self.pos.len() - 1);
        self.rows.push(row);
    }

    /// Replaces row `r`'s parametric constant `[c, p..]` (same denominator).
    pub(crate) fn set_row_constant(&mut self, r: usize, cst: &[Int]) {
        let n = self.n_unknown;
        let row = &mut self.rows[r];
        row[1] = cst[0].clone();
        for (k, v) in cst[1..].iter().enumerate() {
            row[OFF + n + k] = v.clone();
        }
    }
}

/// Divides a row (denominator included) by the gcd of its entries.
fn normalize_row(row: &mut [Int]) {
    let g = gcd_all(row.iter());
    if !g.is_one() && !g.is_zero() {
        divide_exact(row, &g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Row {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    fn rat(n: i64, d: i64) -> Rat {
        Rat::new(Int::from(n), Int::from(d))
    }

    #[test]
    fn triangle_min_max() {
        // 0 <= x, 0 <= y, x + y <= 3
        let lp = Lp::new(
            2,
            &[],
            &[row(&[0, 1, 0]), row(&[0, 0, 1]), row(&[3, -1, -1])],
        );
        assert!(lp.is_feasible());
        assert_eq!(lp.min(&row(&[0, 1, 1])), Optimum::Value(rat(0, 1)));
        assert_eq!(lp.max(&row(&[0, 1, 1])), Optimum::Value(rat(3, 1)));
        assert_eq!(lp.max(&row(&[1, 2, -1])), Optimum::Value(rat(7, 1)));
        assert_eq!(lp.min(&row(&[0, 1, -1])), Optimum::Value(rat(-3, 1)));
    }

    #[test]
    fn rational_optimum_and_unbounded() {
        // 2x >= 1, 3y >= 1 - x
        let lp = Lp::new(2, &[], &[row(&[-1, 2, 0]), row(&[-1, 1, 3])]);
        assert_eq!(lp.min(&row(&[0, 1, 0])), Optimum::Value(rat(1, 2)));
        assert_eq!(lp.max(&row(&[0, 1, 0])), Optimum::Unbounded);
        assert_eq!(lp.min(&row(&[0, 1, 3])), Optimum::Value(rat(1, 1)));
        assert_eq!(lp.min(&row(&[0, 0, 1])), Optimum::Unbounded);
    }

    #[test]
    fn infeasible_and_equalities() {
        // x >= 2, x <= 1
        let lp = Lp::new(1, &[], &[row(&[-2, 1]), row(&[1, -1])]);
        assert!(!lp.is_feasible());
        assert_eq!(lp.min(&row(&[0, 1])), Optimum::Infeasible);
        // 2x = 1 is rationally feasible.
        let lp = Lp::new(1, &[row(&[-1, 2])], &[]);
        assert!(lp.is_feasible());
        assert_eq!(lp.sample(), Some(vec![rat(1, 2)]));
        // x + y = 1, x - y = 0, x >= 1: infeasible.
        let lp = Lp::new(
            2,
            &[row(&[-1, 1, 1]), row(&[0, 1, -1])],
            &[row(&[-1, 1, 0])],
        );
        assert!(!lp.is_feasible());
    }

    #[test]
    fn redundancy() {
        // x >= 0, x >= -1 (redundant), x <= 4, 2x <= 9 (redundant)
        let lp = Lp::new(
            1,
            &[],
            &[row(&[0, 1]), row(&[1, 1]), row(&[4, -1]), row(&[9, -2])],
        );
        assert!(!lp.is_redundant(0));
        assert!(lp.is_redundant(1));
        assert!(lp.is_redundant(3));
        assert_eq!(lp.redundant_rows(), vec![1, 3]);
        // Two identical rows: one of them goes.
        let lp = Lp::new(1, &[], &[row(&[0, 1]), row(&[0, 1])]);
        assert_eq!(lp.redundant_rows(), vec![0]);
    }

    #[test]
    fn free_variables() {
        // x - y = 3, y >= -5: min x = -2, y free otherwise.
        let lp = Lp::new(2, &[row(&[-3, 1, -1])], &[row(&[5, 0, 1])]);
        assert_eq!(lp.min(&row(&[0, 1, 0])), Optimum::Value(rat(-2, 1)));
        assert_eq!(lp.min(&row(&[0, -1, 1])), Optimum::Value(rat(-3, 1)));
        assert_eq!(lp.max(&row(&[0, -1, 1])), Optimum::Value(rat(-3, 1)));
    }
}
