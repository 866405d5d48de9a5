//! Conjunctions of affine constraints with parameters, dimensions and local variables.
//!
//! A [`Basic`] is the common representation behind basic sets and basic maps (as in isl, a
//! map's input and output dimensions are simply consecutive dimensions). Columns are laid out
//! as `[constant | parameters | dimensions | locals]`. Locals are existentially quantified;
//! a local with a [`Div`] is known to equal `floor(num / den)` and its two defining
//! inequalities are always present among the constraints, so the definition is only an
//! annotation that printing, negation and code generation use.

use super::budget::{self, Budgeted};
use super::int::{gcd_all, Int};
use super::omega;
use super::row::{self, combine_pair, solve_unit, substitute, Problem, Row};

/// `floor(num · (1, columns) / den)`, with `den > 0`. `num` has the full width of a row and
/// only mentions columns before the local it defines.
///
/// The fields are private to the core: code above it reads them through [`Div::num`] and
/// [`Div::den`], builds a definition with [`Div::new`] and rewrites those of a conjunction
/// with [`Basic::map_divs`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Div {
    pub(super) num: Row,
    pub(super) den: Int,
}

impl Div {
    /// `floor(num · (1, columns) / den)`; `den` must be positive.
    pub fn new(num: Row, den: Int) -> Div {
        debug_assert!(den.is_positive(), "a floor's denominator is positive");
        Div { num, den }
    }

    /// The numerator: a row of the conjunction's width.
    pub fn num(&self) -> &Row {
        &self.num
    }

    /// The denominator (positive).
    pub fn den(&self) -> &Int {
        &self.den
    }
}

/// A conjunction of equalities and inequalities.
///
/// The rows are private to the core. Code above it reads them through [`Basic::eqs`],
/// [`Basic::ineqs`], [`Basic::rows`], [`Basic::divs`] and the counts, and changes them
/// through the builders below, which keep every row at the conjunction's width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Basic {
    pub(super) n_param: usize,
    pub(super) n_dim: usize,
    pub(super) divs: Vec<Option<Div>>,
    pub(super) eqs: Vec<Row>,
    pub(super) ineqs: Vec<Row>,
}

impl Basic {
    /// No constraints at all.
    pub fn universe(n_param: usize, n_dim: usize) -> Basic {
        Basic {
            n_param,
            n_dim,
            divs: vec![],
            eqs: vec![],
            ineqs: vec![],
        }
    }

    /// A canonical empty conjunction (`1 = 0`... expressed as `-1 >= 0`).
    pub fn empty(n_param: usize, n_dim: usize) -> Basic {
        let mut b = Basic::universe(n_param, n_dim);
        let mut r = b.zero_row();
        r[0] = Int::from(-1);
        b.ineqs.push(r);
        b
    }

    /// A conjunction from its parts: the locals in column order (`None` for one with no
    /// known definition), and rows of width `1 + n_param + n_dim + divs.len()`.
    pub fn from_parts(
        n_param: usize,
        n_dim: usize,
        divs: Vec<Option<Div>>,
        eqs: Vec<Row>,
        ineqs: Vec<Row>,
    ) -> Basic {
        let b = Basic {
            n_param,
            n_dim,
            divs,
            eqs,
            ineqs,
        };
        debug_assert!(b.rows().all(|r| r.len() == b.width()));
        b
    }

    /// Number of parameters.
    pub fn n_param(&self) -> usize {
        self.n_param
    }

    /// Number of dimensions (a map's input and output dimensions together).
    pub fn n_dim(&self) -> usize {
        self.n_dim
    }

    /// Number of locals.
    pub fn n_div(&self) -> usize {
        self.divs.len()
    }

    /// The definitions of the locals, in column order (`None`: existential, no definition).
    pub fn divs(&self) -> &[Option<Div>] {
        &self.divs
    }

    /// The definition of local `i`, if it has one.
    pub fn div(&self, i: usize) -> Option<&Div> {
        self.divs[i].as_ref()
    }

    /// The equalities `r · (1, columns) = 0`.
    pub fn eqs(&self) -> &[Row] {
        &self.eqs
    }

    /// The inequalities `r · (1, columns) >= 0`.
    pub fn ineqs(&self) -> &[Row] {
        &self.ineqs
    }

    /// Every constraint row: the equalities, then the inequalities.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.eqs.iter().chain(&self.ineqs)
    }

    /// The equalities and the inequalities, taken out of the conjunction.
    pub fn into_rows(self) -> (Vec<Row>, Vec<Row>) {
        (self.eqs, self.ineqs)
    }

    /// Adds equalities (each of the current width).
    pub fn extend_eqs(&mut self, rows: impl IntoIterator<Item = Row>) {
        for r in rows {
            self.add_eq(r);
        }
    }

    /// Adds inequalities (each of the current width).
    pub fn extend_ineqs(&mut self, rows: impl IntoIterator<Item = Row>) {
        for r in rows {
            self.add_ineq(r);
        }
    }

    /// Replaces every constraint (rows of the current width); locals stay.
    pub fn set_rows(&mut self, eqs: Vec<Row>, ineqs: Vec<Row>) {
        self.eqs = eqs;
        self.ineqs = ineqs;
        debug_assert!(self.rows().all(|r| r.len() == self.width()));
    }

    /// Keeps the equalities for which `keep` holds, in order.
    pub fn retain_eqs(&mut self, keep: impl FnMut(&Row) -> bool) {
        self.eqs.retain(keep);
    }

    /// Keeps the inequalities for which `keep` holds, in order.
    pub fn retain_ineqs(&mut self, keep: impl FnMut(&Row) -> bool) {
        self.ineqs.retain(keep);
    }

    /// Removes equality `i` and returns it; the last equality takes its place.
    pub fn swap_remove_eq(&mut self, i: usize) -> Row {
        self.eqs.swap_remove(i)
    }

    /// Rewrites every constraint row in place (equalities, then inequalities), e.g. a
    /// substitution. `f` must keep each row's width.
    pub fn map_rows(&mut self, mut f: impl FnMut(&mut Row)) {
        self.eqs
            .iter_mut()
            .chain(self.ineqs.iter_mut())
            .for_each(&mut f);
        debug_assert!(self.rows().all(|r| r.len() == self.width()));
    }

    /// Rewrites the definition `floor(num / den)` of every known local in place (a
    /// substitution): `f` is given each one's numerator and denominator. It must keep what
    /// each local equals and its denominator positive, and a numerator may only mention
    /// columns before its local.
    pub fn map_divs(&mut self, mut f: impl FnMut(&mut Row, &mut Int)) {
        for d in self.divs.iter_mut().flatten() {
            f(&mut d.num, &mut d.den);
        }
    }

    /// Moves the boundary between parameters and dimensions: the first `n_param` of the
    /// `n_param() + n_dim()` columns become the parameters and the rest the dimensions.
    /// Every column keeps its place, so the rows are unchanged.
    pub fn set_n_param(&mut self, n_param: usize) {
        let total = self.n_param + self.n_dim;
        assert!(n_param <= total, "more parameters than columns");
        self.n_param = n_param;
        self.n_dim = total - n_param;
    }

    /// Number of entries in a row (constant included).
    pub fn width(&self) -> usize {
        1 + self.n_param + self.n_dim + self.divs.len()
    }

    pub fn col_param(&self, i: usize) -> usize {
        1 + i
    }

    pub fn col_dim(&self, i: usize) -> usize {
        1 + self.n_param + i
    }

    pub fn col_div(&self, i: usize) -> usize {
        1 + self.n_param + self.n_dim + i
    }

    /// First column of the locals.
    pub fn div_start(&self) -> usize {
        1 + self.n_param + self.n_dim
    }

    pub fn zero_row(&self) -> Row {
        vec![Int::ZERO; self.width()]
    }

    pub fn add_eq(&mut self, r: Row) {
        debug_assert_eq!(r.len(), self.width());
        self.eqs.push(r);
    }

    pub fn add_ineq(&mut self, r: Row) {
        debug_assert_eq!(r.len(), self.width());
        self.ineqs.push(r);
    }

    /// Adds an existentially quantified local with no known definition; returns its column.
    pub fn add_local(&mut self) -> usize {
        let col = self.width();
        self.insert_cols(col, 1);
        self.divs.push(None);
        col
    }

    /// Adds `q = floor(num / den)` as a new local (reusing an identical existing one) and
    /// returns its column. `num` must have the current width.
    pub fn add_div(&mut self, mut num: Row, den: Int) -> usize {
        assert!(den.is_positive());
        debug_assert_eq!(num.len(), self.width());
        let g = gcd_all(num.iter().chain(std::iter::once(&den)));
        let den = if g.is_one() || g.is_zero() {
            den
        } else {
            for v in num.iter_mut() {
                *v = v.div_exact(&g);
            }
            den.div_exact(&g)
        };
        for (i, d) in self.divs.iter().enumerate() {
            if let Some(d) = d {
                if d.den == den && d.num[..num.len()] == num[..] {
                    return self.col_div(i);
                }
            }
        }
        let col = self.add_local();
        num.push(Int::ZERO);
        let i = col - self.div_start();
        self.divs[i] = Some(Div {
            num: num.clone(),
            den: den.clone(),
        });
        self.add_div_constraints(col);
        col
    }

    /// The two inequalities `num - den·q >= 0` and `-num + den·q + den - 1 >= 0`.
    pub fn div_constraints(&self, col: usize) -> Option<[Row; 2]> {
        let d = self.divs[col - self.div_start()].as_ref()?;
        let mut lo = d.num.clone();
        lo.resize(self.width(), Int::ZERO);
        lo[col] = -&d.den;
        let mut hi: Row = lo.iter().map(|v| -v).collect();
        hi[0] += &(&d.den - &Int::ONE);
        Some([lo, hi])
    }

    fn add_div_constraints(&mut self, col: usize) {
        if let Some([lo, hi]) = self.div_constraints(col) {
            self.ineqs.push(lo);
            self.ineqs.push(hi);
        }
    }

    /// Is `r` one of the defining inequalities of a known local?
    pub fn is_div_constraint(&self, r: &Row) -> bool {
        (0..self.n_div()).any(|i| {
            self.div_constraints(self.col_div(i))
                .is_some_and(|[lo, hi]| *r == lo || *r == hi)
        })
    }

    /// Inserts `n` zero columns before column `pos` in every row and definition.
    pub fn insert_cols(&mut self, pos: usize, n: usize) {
        if n == 0 {
            return;
        }
        let ins = |r: &mut Row| {
            r.splice(pos..pos, std::iter::repeat_n(Int::ZERO, n));
        };
        self.eqs.iter_mut().for_each(ins);
        self.ineqs.iter_mut().for_each(ins);
        for d in self.divs.iter_mut().flatten() {
            if d.num.len() > pos {
                ins(&mut d.num);
            } else {
                d.num.resize(d.num.len() + n, Int::ZERO);
            }
        }
    }

    /// Inserts `n` dimensions before dimension `pos`.
    pub fn insert_dims(&mut self, pos: usize, n: usize) {
        let c = self.col_dim(pos);
        self.insert_cols(c, n);
        self.n_dim += n;
    }

    /// Inserts `n` parameters before parameter `pos`.
    pub fn insert_params(&mut self, pos: usize, n: usize) {
        let c = self.col_param(pos);
        self.insert_cols(c, n);
        self.n_param += n;
    }

    /// Reorders columns: new column `j` is old column `perm[j]` (`perm[0] == 0`).
    /// Locals must stay after everything they are defined from; callers permute only
    /// parameters and dimensions, or move dimensions to the end as new locals.
    pub fn permute_cols(&mut self, perm: &[usize]) {
        debug_assert_eq!(perm.len(), self.width());
        let p = |r: &Row| -> Row { perm.iter().map(|&j| r[j].clone()).collect() };
        self.eqs = self.eqs.iter().map(p).collect();
        self.ineqs = self.ineqs.iter().map(p).collect();
        for d in self.divs.iter_mut().flatten() {
            let mut num = d.num.clone();
            num.resize(perm.len(), Int::ZERO);
            d.num = p(&num);
        }
    }

    /// Projects out dimensions `[pos, pos + n)`: they become unknown locals (exact).
    pub fn project_dims(&self, pos: usize, n: usize) -> Basic {
        let mut b = self.clone();
        if n == 0 {
            return b;
        }
        let start = b.col_dim(pos);
        let w = b.width();
        let mut perm: Vec<usize> = (0..start).collect();
        perm.extend(start + n..b.div_start());
        let moved: Vec<usize> = (start..start + n).collect();
        let old_divs: Vec<usize> = (b.div_start()..w).collect();
        // Old locals keep their order; the projected dimensions go last so that no known
        // local is defined in terms of a later one.
        perm.extend(old_divs);
        perm.extend(moved);
        // Known divs that mention the moved dims now mention later columns: forget them.
        let n_old_div = b.n_div();
        for i in 0..n_old_div {
            if let Some(d) = &b.divs[i] {
                if d.num[start..(start + n).min(d.num.len())]
                    .iter()
                    .any(|v| !v.is_zero())
                {
                    b.divs[i] = None;
                }
            }
        }
        b.permute_cols(&perm);
        b.n_dim -= n;
        b.divs.extend(std::iter::repeat_n(None, n));
        b
    }

    /// Conjunction with another conjunction over the same parameters and dimensions.
    pub fn intersect(&self, other: &Basic) -> Basic {
        assert_eq!(self.n_param, other.n_param);
        assert_eq!(self.n_dim, other.n_dim);
        let mut a = self.clone();
        let shift = a.n_div();
        let mut b = other.clone();
        b.insert_cols(b.div_start(), shift);
        // Columns: [a's | a's locals | b's locals]. (`width()` counts locals by `divs`, which
        // only grows below, so compute the final width first.)
        let total = a.width() + other.n_div();
        a.insert_cols(a.width(), other.n_div());
        for d in b.divs.iter_mut().flatten() {
            debug_assert!(d.num.len() <= total);
            d.num.resize(total, Int::ZERO);
        }
        a.divs.extend(b.divs);
        a.eqs.extend(b.eqs);
        a.ineqs.extend(b.ineqs);
        a
    }

    /// The constraint system over all columns (parameters, dimensions, locals).
    pub fn to_problem(&self) -> Problem {
        Problem {
            n: self.width() - 1,
            eqs: self.eqs.clone(),
            ineqs: self.ineqs.clone(),
        }
    }

    /// Exact integer emptiness over all parameter values. (Within a spent work budget:
    /// `true`; see [`budget`].)
    pub fn is_empty(&self) -> bool {
        budget::settle(|| self.try_is_empty(), || true)
    }

    /// [`Basic::is_empty`], or the refusal of the work budget.
    pub fn try_is_empty(&self) -> Budgeted<bool> {
        // The fast exact path first, on the rows as they are (no copy of the problem).
        let decide = || {
            let fast = super::sample::try_feasible_rows(self.width() - 1, &self.eqs, &self.ineqs)?;
            Ok(match fast {
                Some(feasible) => !feasible,
                None => !omega::try_is_feasible_owned(self.to_problem())?,
            })
        };
        budget::operation("emptiness test", || self.to_string(), decide)
    }

    /// An integer point: values of parameters, dimensions and locals, in column order.
    pub fn sample(&self) -> Option<Vec<Int>> {
        omega::solve(&self.to_problem())
    }

    /// [`Basic::sample`], or the refusal of the work budget.
    pub fn try_sample(&self) -> Budgeted<Option<Vec<Int>>> {
        omega::try_solve(&self.to_problem())
    }

    /// Fixes column `col` to `v`.
    pub fn fix_col(&mut self, col: usize, v: &Int) {
        let mut r = self.zero_row();
        r[col] = Int::ONE;
        r[0] = -v;
        self.eqs.push(r);
    }

    /// Substitutes column `col := expr · (1, columns)` everywhere (`expr[col] == 0`).
    fn substitute(&mut self, col: usize, expr: &Row) {
        let sub = |r: &mut Row| {
            if col < r.len() {
                substitute(r, col, expr);
            }
        };
        self.eqs.iter_mut().for_each(sub);
        self.ineqs.iter_mut().for_each(sub);
        // A definition that now mentions a later column is no longer well ordered.
        for i in 0..self.divs.len() {
            let own = self.col_div(i);
            if let Some(d) = &mut self.divs[i] {
                let mut num = d.num.clone();
                num.resize(expr.len(), Int::ZERO);
                sub(&mut num);
                if num[own..].iter().any(|v| !v.is_zero()) {
                    self.divs[i] = None;
                } else {
                    d.num = num;
                }
            }
        }
    }

    /// Removes local `i`, which must no longer appear in any constraint.
    fn remove_div(&mut self, i: usize) {
        let col = self.col_div(i);
        let rm = |r: &mut Row| {
            if col < r.len() {
                debug_assert!(r[col].is_zero());
                r.remove(col);
            }
        };
        self.eqs.iter_mut().for_each(rm);
        self.ineqs.iter_mut().for_each(rm);
        for d in self.divs.iter_mut().flatten() {
            rm(&mut d.num);
        }
        self.divs.remove(i);
    }

    /// Moves local `i` to the last column. Only valid when no known local is defined
    /// through it.
    fn move_div_last(&mut self, i: usize) {
        let col = self.col_div(i);
        let w = self.width();
        let mut perm: Vec<usize> = (0..w).filter(|&c| c != col).collect();
        perm.push(col);
        self.permute_cols(&perm);
        let d = self.divs.remove(i);
        self.divs.push(d);
    }

    /// Moves the unknown locals after the known ones (keeping each group's order), so that
    /// a definition found for an unknown local may use every known one. Only valid when no
    /// known local is defined through an unknown one ([`Basic::forget_defs_on_unknown`]).
    fn unknown_locals_last(&mut self) {
        let known = self.divs.iter().filter(|d| d.is_some()).count();
        let mut i = 0;
        // Each step passes a known local, or moves an unknown one to the end, which brings
        // the next known one a place nearer: at most one step per local.
        while i < known {
            if self.divs[i].is_none() {
                self.move_div_last(i);
            } else {
                i += 1;
            }
        }
    }

    /// Forgets the definition of every known local that is defined, directly or not,
    /// through an unknown one.
    fn forget_defs_on_unknown(&mut self) {
        loop {
            let unknown: Vec<usize> = (0..self.n_div())
                .filter(|&j| self.divs[j].is_none())
                .map(|j| self.col_div(j))
                .collect();
            let mut changed = false;
            for j in 0..self.n_div() {
                if let Some(d) = &self.divs[j] {
                    if unknown
                        .iter()
                        .any(|&c| d.num.get(c).is_some_and(|v| !v.is_zero()))
                    {
                        self.divs[j] = None;
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    fn mentions(&self, col: usize) -> bool {
        self.eqs
            .iter()
            .chain(&self.ineqs)
            .any(|r| !r[col].is_zero())
            || self
                .divs
                .iter()
                .flatten()
                .any(|d| d.num.get(col).is_some_and(|v| !v.is_zero()))
    }

    /// Normalises rows (gcd, tightening, duplicates). Returns `false` if found empty.
    pub fn normalize(&mut self) -> bool {
        let mut p = Problem {
            n: self.width() - 1,
            eqs: std::mem::take(&mut self.eqs),
            ineqs: std::mem::take(&mut self.ineqs),
        };
        let ok = row::normalize(&mut p);
        self.eqs = p.eqs;
        self.ineqs = p.ineqs;
        ok
    }

    /// One part of a union made tidy (rows normalised, locals eliminated where exact and
    /// cheap); `None` when it is found empty, by its rows or, with `test_empty`, by an
    /// exact emptiness test. One step, besides the test's.
    pub fn try_tidied(mut self, test_empty: bool) -> Budgeted<Option<Basic>> {
        budget::tick(1)?;
        if !self.normalize() {
            return Ok(None);
        }
        self.eliminate_locals();
        if !self.normalize() || (test_empty && self.try_is_empty()?) {
            return Ok(None);
        }
        Ok(Some(self))
    }

    /// Eliminates locals where that is exact and cheap: by a unit-coefficient equality, or
    /// by Fourier–Motzkin when one side of the local's bounds has unit coefficients.
    /// Locals still needed by a known definition are kept.
    pub fn eliminate_locals(&mut self) {
        self.fold_affine_divs(true);
        self.merge_twin_locals();
        let mut i = self.n_div();
        while i > 0 {
            i -= 1;
            let col = self.col_div(i);
            let used_by_div = self.used_by_div(col);
            if used_by_div {
                continue;
            }
            if let Some(e) = self.eqs.iter().position(|r| r[col] == 1 || r[col] == -1) {
                let eq = self.eqs.swap_remove(e);
                let expr = solve_unit(&eq, col);
                self.substitute(col, &expr);
                self.remove_div(i);
                continue;
            }
            if self.eqs.iter().any(|r| !r[col].is_zero()) {
                continue;
            }
            let lowers: Vec<&Row> = self.ineqs.iter().filter(|r| r[col].is_positive()).collect();
            let uppers: Vec<&Row> = self.ineqs.iter().filter(|r| r[col].is_negative()).collect();
            let exact = lowers.is_empty()
                || uppers.is_empty()
                || lowers.iter().all(|r| r[col].is_one())
                || uppers.iter().all(|r| r[col] == -1);
            // Avoid blowing up the constraint count for a nicer-looking result.
            if !exact || lowers.len() * uppers.len() > lowers.len() + uppers.len() + 4 {
                continue;
            }
            let mut out: Vec<Row> = Vec::new();
            for l in &lowers {
                for u in &uppers {
                    out.push(combine_pair(l, u, col, false));
                }
            }
            self.ineqs.retain(|r| r[col].is_zero());
            self.ineqs.extend(out);
            self.remove_div(i);
        }
        // Locals that are no longer mentioned anywhere can go.
        let mut i = self.n_div();
        while i > 0 {
            i -= 1;
            let col = self.col_div(i);
            let known = self.divs[i].is_some();
            let only_def = known && {
                let defs = self.div_constraints(col).expect("known");
                !self.eqs.iter().any(|r| !r[col].is_zero())
                    && self
                        .ineqs
                        .iter()
                        .filter(|r| !r[col].is_zero())
                        .all(|r| defs.contains(r))
            };
            let used_by_div = self.used_by_div(col);
            if !used_by_div && (only_def || !self.mentions(col)) {
                if only_def {
                    let defs = self.div_constraints(col).expect("known");
                    self.ineqs.retain(|r| !defs.contains(r));
                }
                self.remove_div(i);
            }
        }
    }

    /// Merges locals that say the same thing: two known locals with one definition, and two
    /// unknown locals whose rows are the same up to exchanging them (no row mentions both,
    /// no definition uses either): `∃a, b: P(a) ∧ P(b) ∧ Q` is `∃a: P(a) ∧ Q`. Sets
    /// intersected with the same projection again and again carry such copies.
    fn merge_twin_locals(&mut self) {
        let mut j = self.n_div();
        while j > 0 {
            j -= 1;
            let Some(i) = (0..j).find(|&i| self.twin_locals(i, j)) else {
                continue;
            };
            let cj = self.col_div(j);
            if self.divs[j].is_some() {
                self.fold_local_onto(j, i, &mut []);
            } else {
                self.eqs.retain(|r| r[cj].is_zero());
                self.ineqs.retain(|r| r[cj].is_zero());
            }
            // The twin's rows are now copies: left to the caller's next normalisation,
            // which also finds a conjunction the merge made empty.
            self.remove_div(j);
        }
    }

    /// Moves every coefficient of local `j` onto local `i` (its twin: the same value), in
    /// the rows, the definitions and `extra`; `j` is then unused.
    fn fold_local_onto(&mut self, j: usize, i: usize, extra: &mut [Row]) {
        let (ci, cj) = (self.col_div(i), self.col_div(j));
        let onto = |r: &mut Row| {
            if cj < r.len() && !r[cj].is_zero() {
                let v = std::mem::take(&mut r[cj]);
                r[ci] += &v;
            }
        };
        self.eqs.iter_mut().for_each(onto);
        self.ineqs.iter_mut().for_each(onto);
        extra.iter_mut().for_each(onto);
        self.divs
            .iter_mut()
            .flatten()
            .for_each(|d| onto(&mut d.num));
    }

    /// Merges known locals with one definition and drops known locals that nothing uses
    /// but their own definition, carrying `extra` (rows over the same columns that refer to
    /// the locals, a quast leaf's values) along: the same points, the same values. Merging
    /// conjunctions again and again (a parametric optimum over many parts) repeats one
    /// floor in every part it meets, and each copy makes every later test harder.
    pub fn tidy_known_locals(&mut self, extra: &mut [Row]) {
        self.tidy_known_locals_from(0, extra)
    }

    /// [`Basic::tidy_known_locals`] for the locals from the `first`-th on: those before it
    /// keep their columns.
    fn tidy_known_locals_from(&mut self, first: usize, extra: &mut [Row]) {
        let mut j = self.n_div();
        while j > first {
            j -= 1;
            let known = |b: &Self, k: usize| b.divs[k].is_some();
            let Some(i) =
                (0..j).find(|&i| known(self, i) && known(self, j) && self.twin_locals(i, j))
            else {
                continue;
            };
            let (ci, cj) = (self.col_div(i), self.col_div(j));
            self.fold_local_onto(j, i, extra);
            // The twin's definition rows are now copies of the first's: one of each stays.
            let defs = self.div_constraints(ci).expect("known");
            let mut kept: Vec<Row> = vec![];
            self.ineqs.retain(|r| {
                if !defs.contains(r) || !kept.contains(r) {
                    kept.push(r.clone());
                    return true;
                }
                false
            });
            self.remove_div(j);
            for r in extra.iter_mut() {
                if cj < r.len() {
                    r.remove(cj);
                }
            }
        }
        let mut i = self.n_div();
        while i > first {
            i -= 1;
            let col = self.col_div(i);
            if self.divs[i].is_none() || self.used_by_div(col) {
                continue;
            }
            if extra
                .iter()
                .any(|r| r.get(col).is_some_and(|v| !v.is_zero()))
            {
                continue;
            }
            let defs = self.div_constraints(col).expect("known");
            let only_def = !self.eqs.iter().any(|r| !r[col].is_zero())
                && (self.ineqs.iter().filter(|r| !r[col].is_zero())).all(|r| defs.contains(r));
            if only_def {
                self.ineqs.retain(|r| !defs.contains(r));
                self.remove_div(i);
                for r in extra.iter_mut() {
                    if col < r.len() {
                        r.remove(col);
                    }
                }
            }
        }
    }

    /// Do locals `i < j` say the same (see [`Basic::merge_twin_locals`])?
    fn twin_locals(&self, i: usize, j: usize) -> bool {
        let (ci, cj) = (self.col_div(i), self.col_div(j));
        match (&self.divs[i], &self.divs[j]) {
            (Some(a), Some(b)) => {
                let trim = |r: &Row| -> Row {
                    let end = r.iter().rposition(|v| !v.is_zero()).map_or(0, |e| e + 1);
                    r[..end].to_vec()
                };
                a.den == b.den && trim(&a.num) == trim(&b.num)
            }
            (None, None) => {
                if self.used_by_div(ci) || self.used_by_div(cj) {
                    return false;
                }
                // Necessary, and without a copy: as many rows at each, with the same sums
                // of their coefficients there and of their constants.
                let sums = |c: usize| {
                    let (mut n, mut coef, mut cst) = (0usize, Int::ZERO, Int::ZERO);
                    let rows = self.eqs.iter().chain(&self.ineqs);
                    for r in rows.filter(|r| !r[c].is_zero()) {
                        n += 1;
                        coef += &r[c];
                        cst += &r[0];
                    }
                    (n, coef, cst)
                };
                if sums(ci) != sums(cj) {
                    return false;
                }
                let rows_of = |rows: &[Row], c: usize, swap: bool| -> Option<Vec<Row>> {
                    let mut out = vec![];
                    for r in rows {
                        if !r[ci].is_zero() && !r[cj].is_zero() {
                            return None;
                        }
                        if !r[c].is_zero() {
                            let mut r = r.clone();
                            if swap {
                                r.swap(ci, cj);
                            }
                            out.push(r);
                        }
                    }
                    out.sort();
                    Some(out)
                };
                let same = |rows: &[Row]| match (rows_of(rows, ci, false), rows_of(rows, cj, true))
                {
                    (Some(a), Some(b)) => a == b,
                    _ => false,
                };
                same(&self.eqs) && same(&self.ineqs)
            }
            _ => false,
        }
    }

    /// Eliminates known locals whose Fourier–Motzkin shadow is exact: the shadow `R` of the
    /// conjunction without local `q = floor(e/d)` always contains it, and equals it when no
    /// point of `R` with `q` at its defined value violates a constraint on `q`. Preimages
    /// of tiled spaces lose their floors this way (`floor(i/4) <= 1` is `i <= 7`), and their
    /// complements stay free of case splits.
    pub fn eliminate_divs_by_shadow(&mut self) {
        budget::settle(|| self.try_eliminate_divs_by_shadow(), || ())
    }

    /// [`Basic::eliminate_divs_by_shadow`], or the refusal of the work budget (each local
    /// eliminated before it is exactly so: the conjunction keeps its points).
    pub fn try_eliminate_divs_by_shadow(&mut self) -> Budgeted<()> {
        self.define_bracketed_locals();
        let mut i = self.n_div();
        while i > 0 {
            i -= 1;
            let col = self.col_div(i);
            let Some(defs) = self.div_constraints(col) else {
                continue;
            };
            let used_by_div = self.used_by_div(col);
            if used_by_div || self.eqs.iter().any(|r| !r[col].is_zero()) {
                continue;
            }
            let uses: Vec<&Row> = self
                .ineqs
                .iter()
                .filter(|r| !r[col].is_zero() && !defs.contains(r))
                .collect();
            if uses.is_empty() {
                continue;
            }
            let lowers: Vec<&Row> = self.ineqs.iter().filter(|r| r[col].is_positive()).collect();
            let uppers: Vec<&Row> = self.ineqs.iter().filter(|r| r[col].is_negative()).collect();
            if lowers.len() * uppers.len() > 16 {
                continue;
            }
            let mut shadow: Vec<Row> = self
                .ineqs
                .iter()
                .filter(|r| r[col].is_zero())
                .cloned()
                .collect();
            for l in &lowers {
                for u in &uppers {
                    let row = combine_pair(l, u, col, false);
                    if row.iter().skip(1).any(|v| !v.is_zero()) || row[0].is_negative() {
                        shadow.push(row);
                    }
                }
            }
            // R with q at its value, against each constraint on q.
            let mut check = self.to_problem();
            check.ineqs = shadow.clone();
            check.ineqs.extend(defs.iter().cloned());
            let mut exact = true;
            for c in &uses {
                let mut p = check.clone();
                let mut neg: Row = c.iter().map(|v| -v).collect();
                neg[0] -= &Int::ONE;
                p.ineqs.push(neg);
                if omega::try_is_feasible(&p)? {
                    exact = false;
                    break;
                }
            }
            if exact {
                self.ineqs = shadow;
                self.remove_div(i);
            }
        }
        Ok(())
    }

    /// Gives an unknown local `e` the definition `floor(U/a)` when it is bracketed,
    /// `U - c <= a*e <= U` with `0 <= c < a`: at most one integer fits, and it is that one.
    /// `U` may mention parameters, dimensions and earlier known locals only.
    fn define_bracketed_locals(&mut self) {
        for i in 0..self.n_div() {
            let found = self.bound_pairs(i).into_iter().find(|(u, l)| {
                let a = -&u[self.col_div(i)];
                let sum: Row = l.iter().zip(u).map(|(x, y)| x + y).collect();
                let c = &sum[0];
                sum[1..].iter().all(Int::is_zero) && !c.is_negative() && *c < a
            });
            if let Some((u, _)) = found {
                self.define_local(i, &u);
            }
        }
    }

    /// The pairs `(U - a*e >= 0, a*e - L >= 0)` of upper and lower bounds of the unknown
    /// local `i` with one coefficient `a`, over parameters, dimensions and earlier known
    /// locals only (empty when `i` is known).
    fn bound_pairs(&self, i: usize) -> Vec<(Row, Row)> {
        if self.divs[i].is_some() {
            return vec![];
        }
        let col = self.col_div(i);
        let plain = |r: &Row| self.over_earlier_known(i, r);
        let uppers = self
            .ineqs
            .iter()
            .filter(|u| u[col].is_negative() && plain(u));
        uppers
            .flat_map(|u| {
                (self.ineqs.iter())
                    .filter(|l| l[col] == -&u[col] && plain(l))
                    .map(move |l| (u.clone(), l.clone()))
            })
            .collect()
    }

    /// Whether row `r` mentions, besides local `i`, only parameters, dimensions and known
    /// locals before `i` (what a definition of `i` may use).
    fn over_earlier_known(&self, i: usize, r: &Row) -> bool {
        let col = self.col_div(i);
        (0..self.n_div()).all(|j| {
            let cj = self.col_div(j);
            cj == col || r[cj].is_zero() || (j < i && self.divs[j].is_some())
        })
    }

    /// Defines local `i` as `floor(U/a)` from its upper bound `u` (`U - a*e >= 0`), with
    /// its defining pair of rows (implied by the bounds that made it a quotient).
    fn define_local(&mut self, i: usize, u: &Row) {
        let col = self.col_div(i);
        let mut num = u.clone();
        num[col] = Int::ZERO;
        self.divs[i] = Some(Div { num, den: -&u[col] });
        for r in self.div_constraints(col).expect("just defined") {
            if !self.ineqs.contains(&r) {
                self.ineqs.push(r);
            }
        }
    }

    /// Whether a known local's definition mentions column `col`.
    fn used_by_div(&self, col: usize) -> bool {
        self.divs
            .iter()
            .flatten()
            .any(|d| d.num.get(col).is_some_and(|v| !v.is_zero()))
    }

    /// Replaces known locals whose numerator is a multiple of the denominator up to a
    /// constant by their value: `floor(7/2)` is 3, `floor((64⌊x/64⌋ + 5)/64)` is `⌊x/64⌋`
    /// (which composing through a tile leaves behind).
    pub fn fold_exact_divs(&mut self) {
        self.fold_affine_divs(false);
    }

    /// [`Basic::fold_exact_divs`], and with `by_equalities` also where an equality makes the
    /// numerator `g` of `⌊g/m⌋` a multiple of `m` up to a constant: with `g = m·t + c` on the
    /// conjunction for some integer combination `t` of the columns (read off an equality `e`
    /// whose coefficients agree with `g`'s modulo `m`), `⌊g/m⌋ = t + ⌊c/m⌋`. Subtracting
    /// residues one by one leaves such locals behind: `x ≡ 12 (mod 14)` beside `⌊x/14⌋`,
    /// `⌊(x − 1)/14⌋`, … each of which is then `⌊(x − 12)/14⌋` plus a constant.
    fn fold_affine_divs(&mut self, by_equalities: bool) {
        while let Some((i, expr)) = self.affine_div(by_equalities) {
            self.substitute(self.col_div(i), &expr);
            self.remove_div(i);
        }
    }

    /// A known local whose value is affine (see [`Basic::fold_affine_divs`]), and that value
    /// as a row.
    fn affine_div(&self, by_equalities: bool) -> Option<(usize, Row)> {
        let w = self.width();
        // The zero row: the numerator's own coefficients are multiples of the denominator.
        let zero = self.zero_row();
        let eqs = if by_equalities { &self.eqs[..] } else { &[] };
        for i in (0..self.n_div()).rev() {
            let Some(d) = &self.divs[i] else { continue };
            let col = self.col_div(i);
            let g = |c: usize| d.num.get(c).cloned().unwrap_or(Int::ZERO);
            for e in std::iter::once(&zero).chain(eqs.iter().filter(|e| e[col].is_zero())) {
                for sign in [Int::ONE, -Int::ONE] {
                    let diff = |c: usize| g(c) - &sign * &e[c];
                    if (1..w).any(|c| !diff(c).mod_floor(&d.den).is_zero()) {
                        continue;
                    }
                    // On the conjunction sign·e is zero: g = (g − sign·e), whose columns
                    // are m·t and whose constant is c.
                    let expr: Row = (0..w).map(|c| diff(c).div_floor(&d.den)).collect();
                    let later = expr[col..].iter().any(|v| !v.is_zero());
                    if later && self.used_by_div(col) {
                        continue;
                    }
                    return Some((i, expr));
                }
            }
        }
        None
    }

    /// Removes inequalities implied (over the integers) by the others.
    pub fn remove_redundant(&mut self) {
        budget::settle(|| self.try_remove_redundant(), || ())
    }

    /// [`Basic::remove_redundant`], or the refusal of the work budget (the rows removed
    /// before it are implied: the conjunction keeps its points).
    pub fn try_remove_redundant(&mut self) -> Budgeted<()> {
        let mut i = 0;
        while i < self.ineqs.len() {
            let r = self.ineqs[i].clone();
            let mut p = self.to_problem();
            p.ineqs.remove(i);
            // ¬(r >= 0)  ⇔  -r - 1 >= 0
            let mut neg: Row = r.iter().map(|v| -v).collect();
            neg[0] -= &Int::ONE;
            p.ineqs.push(neg);
            if omega::try_is_feasible(&p)? {
                i += 1;
            } else {
                self.ineqs.remove(i);
            }
        }
        Ok(())
    }

    /// Detects inequalities that hold with equality everywhere and turns them into
    /// equalities (keeps printed results and later eliminations small).
    pub fn detect_equalities(&mut self) {
        budget::settle(|| self.try_detect_equalities(), || ())
    }

    /// [`Basic::detect_equalities`], or the refusal of the work budget (the rows turned
    /// into equalities before it are equalities: the conjunction keeps its points).
    pub fn try_detect_equalities(&mut self) -> Budgeted<()> {
        let mut i = 0;
        while i < self.ineqs.len() {
            let r = self.ineqs[i].clone();
            // r >= 1 infeasible  ⇒  r = 0 on the whole set
            let mut p = self.to_problem();
            let mut strict = r.clone();
            strict[0] -= &Int::ONE;
            p.ineqs.push(strict);
            if !omega::try_is_feasible(&p)? {
                self.ineqs.remove(i);
                self.eqs.push(r);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Full simplification. Returns `false` if the conjunction is empty (and within a
    /// spent work budget, leaving the same points in a form partly simplified).
    pub fn simplify(&mut self) -> bool {
        budget::settle(|| self.try_simplify(), || false)
    }

    /// [`Basic::simplify`], or the refusal of the work budget.
    pub fn try_simplify(&mut self) -> Budgeted<bool> {
        if !self.normalize() || self.try_is_empty()? {
            *self = Basic::empty(self.n_param, self.n_dim);
            return Ok(false);
        }
        self.try_detect_equalities()?;
        self.normalize();
        self.eliminate_locals();
        self.normalize();
        self.try_remove_redundant()?;
        self.eliminate_locals();
        self.normalize();
        // Give existentials a closed form when that needs no case split
        // (`exists a : i = 2a` becomes `i = 2*floor(i/2)`).
        if self.divs.iter().any(Option::is_none) {
            let mut known = self.try_make_divs_known()?;
            if known.len() == 1 {
                let mut k = known.pop().expect("one");
                if k.normalize() {
                    k.try_remove_redundant()?;
                    k.normalize();
                    *self = k;
                }
            }
        }
        if self.n_div() > 0 {
            let before = self.n_div();
            self.try_eliminate_divs_by_shadow()?;
            if self.n_div() < before {
                self.eliminate_locals();
                self.normalize();
                self.try_remove_redundant()?;
            }
        }
        self.sort_rows();
        Ok(true)
    }

    /// Deterministic row order: by last non-zero column, then lexicographically.
    pub fn sort_rows(&mut self) {
        let key = |r: &Row| -> (usize, Vec<Int>) {
            let last = r.iter().rposition(|v| !v.is_zero()).unwrap_or(0);
            (last, r.iter().rev().cloned().collect())
        };
        self.eqs.sort_by_cached_key(key);
        self.ineqs.sort_by_cached_key(key);
    }

    /// Makes every local known, splitting into a union where exact projection needs it
    /// (dark shadow and splinters). Needed before negation.
    /// (Within a spent work budget: no piece; see [`budget`].)
    pub fn make_divs_known(&self) -> Vec<Basic> {
        budget::settle(|| self.try_make_divs_known(), Vec::new)
    }

    /// [`Basic::make_divs_known`], or the refusal of the work budget.
    pub fn try_make_divs_known(&self) -> Budgeted<Vec<Basic>> {
        budget::tick(1 + (self.eqs.len() + self.ineqs.len()) as u64)?;
        let mut b = self.clone();
        if !b.normalize() {
            return Ok(vec![]);
        }
        b.eliminate_locals();
        b.forget_defs_on_unknown();
        b.unknown_locals_last();
        // A local bracketed by a pair of bounds (a tile coordinate, `k - 127 <= 128e <= k`)
        // is its quotient: no projection, no splinters.
        b.define_bracketed_locals();
        let unknown: Vec<usize> = (0..b.n_div())
            .filter(|&j| b.divs[j].is_none())
            .map(|j| b.col_div(j))
            .collect();
        if unknown.is_empty() {
            return Ok(vec![b]);
        }
        if let Some(i) = (0..b.n_div()).find(|&i| b.divs[i].is_none() && !b.mentions(b.col_div(i)))
        {
            b.remove_div(i);
            return b.try_make_divs_known();
        }
        // An equality on unknown locals: reduce it (unimodular changes among those locals)
        // until one unknown is left; that one is then an exact quotient.
        if let Some(e) = b
            .eqs
            .iter()
            .position(|r| unknown.iter().any(|&c| !r[c].is_zero()))
        {
            return b.known_from_equality(e, &unknown);
        }
        // A local that can only equal one dimension or parameter is that one.
        if b.try_pin_unknown_locals()? {
            return b.try_make_divs_known();
        }
        // A local held between bounds less than its coefficient apart is a quotient
        // (after the pinning above, which leaves no division).
        if b.try_define_narrow_locals()? {
            return b.try_make_divs_known();
        }
        // A local bounded on one side by one row is that bound's quotient.
        if b.define_one_sided_local() {
            return b.try_make_divs_known();
        }
        // Only inequalities mention the unknown local: exact projection (Pugh).
        b.known_by_projection(&unknown)
    }

    /// Gives an unknown local `e` the definition `floor(U/a)` when it lies between a lower
    /// bound `L <= a*e` and an upper bound `a*e <= U` that the other rows keep less than
    /// `a` apart (`U - L <= a - 1` on every point, checked exactly): at most one multiple
    /// of `a` fits, and it is `a*floor(U/a)`. A tile shared by two points, `j - 63 <= 64e
    /// <= i` where `i < j`, is one. (The bracket of [`Basic::define_bracketed_locals`] is
    /// the case where `U - L` is a constant.) Whether one was defined.
    fn try_define_narrow_locals(&mut self) -> Budgeted<bool> {
        for i in 0..self.n_div() {
            for (u, l) in self.bound_pairs(i) {
                // A point where U - L >= a, i.e. (l + u) - a >= 0.
                let mut wide: Row = l.iter().zip(&u).map(|(x, y)| x + y).collect();
                wide[0] += &u[self.col_div(i)];
                let mut t = self.clone();
                t.ineqs.push(wide);
                if t.try_is_empty()? {
                    self.define_local(i, &u);
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Gives an unknown local `e` that only inequalities mention the definition of its one
    /// bound on one side: with one upper bound `a*e <= U` and only lower bounds besides,
    /// some `e` fits exactly when the largest one, `floor(U/a)`, does (a lower bound only
    /// gets easier as `e` grows); with one lower bound `L <= a*e`, likewise `ceil(L/a)`.
    /// `U` (or `L`) may mention parameters, dimensions and earlier known locals only; other
    /// unknown locals may share the other rows. Whether one was defined.
    fn define_one_sided_local(&mut self) -> bool {
        for i in 0..self.n_div() {
            let col = self.col_div(i);
            if self.divs[i].is_some()
                || self.eqs.iter().any(|r| !r[col].is_zero())
                || self.used_by_div(col)
            {
                continue;
            }
            let plain = |r: &Row| self.over_earlier_known(i, r);
            let rows = |neg: bool| -> Vec<&Row> {
                (self.ineqs.iter())
                    .filter(|r| !r[col].is_zero() && r[col].is_negative() == neg)
                    .collect()
            };
            let (uppers, lowers) = (rows(true), rows(false));
            let u = if uppers.len() == 1 && plain(uppers[0]) {
                uppers[0].clone()
            } else if lowers.len() == 1 && plain(lowers[0]) {
                let l = lowers[0];
                // L <= a*e: e = ceil(L/a) = floor((L + a - 1)/a).
                let mut u: Row = l.iter().map(|v| -v).collect();
                u[0] += &(&l[col] - &Int::ONE);
                u
            } else {
                continue;
            };
            self.define_local(i, &u);
            return true;
        }
        false
    }

    /// Replaces an unknown local by the dimension or parameter it always equals, when there
    /// is one among those scaled like it: the tile coordinate of a writer's instance that
    /// is the read's own (`i - 127 <= 128e < j - c9` where the rest fixes `e = c1`). The
    /// candidates are the columns with a coefficient the local has in some row; each is
    /// checked exactly (no point with `e < c` nor with `e > c`). Whether one was replaced.
    fn try_pin_unknown_locals(&mut self) -> Budgeted<bool> {
        for i in 0..self.n_div() {
            if self.divs[i].is_some() {
                continue;
            }
            let col = self.col_div(i);
            let mut scales: Vec<Int> = vec![];
            for r in self.rows() {
                let a = r[col].abs();
                if !a.is_zero() && !scales.contains(&a) {
                    scales.push(a);
                }
            }
            let candidates: Vec<usize> = (1..self.div_start())
                .filter(|&c| self.rows().any(|r| scales.contains(&r[c].abs())))
                .collect();
            for c in candidates {
                let mut apart = [self.zero_row(), self.zero_row()];
                for (r, sign) in apart.iter_mut().zip([1, -1]) {
                    r[col] = Int::from(sign);
                    r[c] = Int::from(-sign);
                    r[0] = Int::from(-1);
                }
                let mut pinned = true;
                for r in apart {
                    let mut t = self.clone();
                    t.ineqs.push(r);
                    if !t.try_is_empty()? {
                        pinned = false;
                        break;
                    }
                }
                if pinned {
                    let mut eq = self.zero_row();
                    eq[col] = Int::ONE;
                    eq[c] = Int::from(-1);
                    self.eqs.push(eq);
                    self.eliminate_locals();
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// [`Basic::make_divs_known`] where equality `e` mentions the unknown locals (columns
    /// `unknown`): reduced to one unknown, which it then defines.
    fn known_from_equality(mut self, e: usize, unknown: &[usize]) -> Budgeted<Vec<Basic>> {
        self.reduce_to_one_unknown(e, unknown);
        let b = &mut self;
        let r = b.eqs[e].clone();
        let u = *unknown
            .iter()
            .find(|&&c| !r[c].is_zero())
            .expect("one left");
        let i = u - b.div_start();
        if r[u] == 1 || r[u] == -1 {
            let expr = solve_unit(&r, u);
            b.eqs.remove(e);
            b.substitute(u, &expr);
            b.remove_div(i);
            return b.try_make_divs_known();
        }
        // c·q + rest = 0  ⇒  q = floor(-rest / c), exactly.
        b.move_div_last(i);
        let col = b.width() - 1;
        let r = b.eqs[e].clone();
        let c = r[col].clone();
        let sign = if c.is_positive() {
            Int::from(-1)
        } else {
            Int::ONE
        };
        let mut num: Row = r.iter().map(|v| &sign * v).collect();
        num[col] = Int::ZERO;
        let last = b.n_div() - 1;
        b.divs[last] = Some(Div { num, den: c.abs() });
        b.add_div_constraints(col);
        b.try_make_divs_known()
    }

    /// Unimodular changes among the unknown locals (columns `unknown`) until equality `e`
    /// mentions one of them only.
    fn reduce_to_one_unknown(&mut self, e: usize, unknown: &[usize]) {
        loop {
            let r = self.eqs[e].clone();
            let involved: Vec<usize> = unknown
                .iter()
                .copied()
                .filter(|&c| !r[c].is_zero())
                .collect();
            if involved.len() == 1 {
                break;
            }
            let s = *involved
                .iter()
                .min_by_key(|&&c| r[c].abs())
                .expect("non-empty");
            let a = r[s].clone();
            // x_s = t - Σ floor(a_c/a_s) x_c, with t reusing column s.
            let factors: Vec<(usize, Int)> = involved
                .iter()
                .filter(|&&c| c != s)
                .map(|&c| (c, -r[c].div_floor(&a)))
                .collect();
            for row in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
                let cs = row[s].clone();
                if !cs.is_zero() {
                    for (c, f) in &factors {
                        row[*c] += &(&cs * f);
                    }
                }
            }
        }
    }

    /// [`Basic::make_divs_known`] where only inequalities mention the last unknown local
    /// (of the columns `unknown`): Fourier–Motzkin when exact, else the dark shadow and the
    /// splinters along each lower bound.
    fn known_by_projection(&self, unknown: &[usize]) -> Budgeted<Vec<Basic>> {
        let b = self;
        let i = *unknown.last().expect("non-empty") - b.div_start();
        let col = b.col_div(i);
        let lowers: Vec<Row> = b
            .ineqs
            .iter()
            .filter(|r| r[col].is_positive())
            .cloned()
            .collect();
        let uppers: Vec<Row> = b
            .ineqs
            .iter()
            .filter(|r| r[col].is_negative())
            .cloned()
            .collect();
        let rest: Vec<Row> = b
            .ineqs
            .iter()
            .filter(|r| r[col].is_zero())
            .cloned()
            .collect();
        let fm = |dark: bool| -> Budgeted<Basic> {
            budget::tick((lowers.len() * uppers.len()) as u64)?;
            let mut c = b.clone();
            c.ineqs = rest.clone();
            for l in &lowers {
                for u in &uppers {
                    c.ineqs.push(combine_pair(l, u, col, dark));
                }
            }
            c.remove_div(i);
            Ok(c)
        };
        let exact = lowers.is_empty()
            || uppers.is_empty()
            || lowers.iter().all(|r| r[col].is_one())
            || uppers.iter().all(|r| r[col] == -1);
        if exact {
            return fm(false)?.try_make_divs_known();
        }
        let mut out = fm(true)?.try_make_divs_known()?;
        b.add_splinters(&lowers, &uppers, col, &mut out)?;
        Ok(out)
    }

    /// The splinters of an inexact projection of column `col`: for each lower bound, the
    /// pieces where it holds with a small slack `k`, each made known into `out`.
    fn add_splinters(
        &self,
        lowers: &[Row],
        uppers: &[Row],
        col: usize,
        out: &mut Vec<Basic>,
    ) -> Budgeted<()> {
        let m = uppers
            .iter()
            .map(|r| r[col].abs())
            .max()
            .expect("non-empty");
        for l in lowers {
            let a = l[col].clone();
            let top = (&(&(&m * &a) - &a) - &m).div_floor(&m);
            let mut k = Int::ZERO;
            while k <= top {
                let mut s = self.clone();
                let mut eq = l.clone();
                eq[0] -= &k;
                s.eqs.push(eq);
                if !s.try_is_empty()? {
                    out.extend(s.try_make_divs_known()?);
                }
                k = &k + &Int::ONE;
            }
        }
        Ok(())
    }

    /// Pieces whose union is `self \ other`, pairwise disjoint. `other` must have only known
    /// locals (see [`Basic::make_divs_known`]).
    /// (Within a spent work budget: no piece; see [`budget`].)
    pub fn subtract(&self, other: &Basic) -> Vec<Basic> {
        budget::settle(|| self.try_subtract(other), Vec::new)
    }

    /// [`Basic::subtract`], or the refusal of the work budget.
    pub fn try_subtract(&self, other: &Basic) -> Budgeted<Vec<Basic>> {
        self.subtract_pieces(other, false)
    }

    /// Whether some point of `self` is outside `other`: [`Basic::try_subtract`] up to its
    /// first piece.
    pub fn try_sticks_out_of(&self, other: &Basic) -> Budgeted<bool> {
        Ok(!self.subtract_pieces(other, true)?.is_empty())
    }

    /// The pieces of `self ∖ other`, each non-empty; with `first`, only the first found.
    fn subtract_pieces(&self, other: &Basic, first: bool) -> Budgeted<Vec<Basic>> {
        debug_assert!(other.divs.iter().all(|d| d.is_some()));
        // acc = self ∧ (other's locals with their definitions)
        let mut defs_only = other.clone();
        let constraints_eq = std::mem::take(&mut defs_only.eqs);
        let all_ineqs = std::mem::take(&mut defs_only.ineqs);
        for i in 0..defs_only.n_div() {
            let col = defs_only.col_div(i);
            defs_only.add_div_constraints(col);
        }
        let mut acc = self.intersect(&defs_only);
        let shift = self.n_div();
        let lift = |r: &Row| -> Row {
            let mut out = r[..other.div_start()].to_vec();
            out.extend(std::iter::repeat_n(Int::ZERO, shift));
            out.extend(r[other.div_start()..].iter().cloned());
            out
        };
        let mut pieces = vec![];
        let mut rows: Vec<Row> = constraints_eq.iter().map(lift).collect();
        let n_eq = rows.len();
        rows.extend(
            all_ineqs
                .iter()
                .filter(|r| !other.is_div_constraint(r))
                .map(lift),
        );
        // A local of `other` that `self` has already (the same floor: a part that was
        // itself the difference from a part with it) is one local, not two: every copy
        // would make each emptiness test below harder, and the pieces carry them on.
        // `self`'s columns stay as they are, first in every piece (a quast's values are
        // rows over them).
        acc.tidy_known_locals_from(shift, &mut rows);
        let negatable = rows.into_iter().enumerate().map(|(k, r)| (r, k < n_eq));
        for (r, is_eq) in negatable {
            let neg = |r: &Row| -> Row {
                let mut n: Row = r.iter().map(|v| -v).collect();
                n[0] -= &Int::ONE;
                n
            };
            budget::tick(1)?;
            // A constraint `acc` states already (a row of the same coefficients that is at
            // least as tight) leaves nothing outside it: no emptiness test.
            if acc.states(&r, is_eq) {
                continue;
            }
            let before = pieces.len();
            let mut p = acc.clone();
            p.ineqs.push(neg(&r));
            if !p.try_is_empty()? {
                pieces.push(p);
            }
            if is_eq {
                let mut p = acc.clone();
                let mut pos = r.clone();
                pos[0] -= &Int::ONE;
                p.ineqs.push(pos);
                if !p.try_is_empty()? {
                    pieces.push(p);
                }
                acc.eqs.push(r);
            } else {
                acc.ineqs.push(r);
            }
            if first && !pieces.is_empty() {
                pieces.truncate(1);
                break;
            }
            // Where no piece lies outside `r`, `acc` already satisfied it and is the same
            // set as before: its emptiness is known (not tested again).
            if pieces.len() > before && acc.try_is_empty()? {
                break;
            }
        }
        Ok(pieces)
    }

    /// Does every point satisfy `r >= 0` (`r` over `[1, params, dims]`, or over all
    /// columns)? Exact: a row the conjunction states (see [`Basic::states`]) needs no
    /// test; otherwise the conjunction with `r < 0` is tested for emptiness.
    pub fn try_satisfies(&self, r: &[Int]) -> Budgeted<bool> {
        let mut r = r.to_vec();
        r.resize(self.width(), Int::ZERO);
        if self.states(&r, false) {
            return Ok(true);
        }
        let mut neg: Row = r.iter().map(|v| -v).collect();
        neg[0] -= &Int::ONE;
        let mut b = self.clone();
        b.ineqs.push(neg);
        b.try_is_empty()
    }

    /// Does one of the rows imply `r >= 0` (`r = 0` when `is_eq`) as it is written: an
    /// inequality of the same coefficients and a constant no larger, or an equality of the
    /// same coefficients or their negation? A syntactic test, for the difference.
    fn states(&self, r: &Row, is_eq: bool) -> bool {
        let same = |q: &Row| q[1..] == r[1..];
        let opposite = |q: &Row| q[1..].iter().zip(&r[1..]).all(|(a, b)| *a == -b);
        // On `q = 0`: `r = r0 - q0` where `q` has `r`'s coefficients, `r0 + q0` where it
        // has their negation.
        let by_eq = |q: &Row| {
            if same(q) {
                Some(&r[0] - &q[0])
            } else if opposite(q) {
                Some(&r[0] + &q[0])
            } else {
                None
            }
        };
        if is_eq {
            return self
                .eqs
                .iter()
                .any(|q| by_eq(q).is_some_and(|d| d.is_zero()));
        }
        self.ineqs.iter().any(|q| same(q) && q[0] <= r[0])
            || self
                .eqs
                .iter()
                .any(|q| by_eq(q).is_some_and(|d| !d.is_negative()))
    }

    /// The lexicographically smallest values of the first `n` columns after the constant
    /// (parameters first, then dimensions), each minimised in turn with the earlier ones
    /// fixed. A column unbounded below takes a witness's value instead, so the result is
    /// always a real point. `None` when empty.
    pub fn lexmin_prefix(&self, n: usize) -> Option<Vec<Int>> {
        budget::settle(|| self.try_lexmin_prefix(n), || None)
    }

    /// [`Basic::lexmin_prefix`], or the refusal of the work budget.
    pub fn try_lexmin_prefix(&self, n: usize) -> Budgeted<Option<Vec<Int>>> {
        let mut p = self.to_problem();
        if omega::try_solve(&p)?.is_none() {
            return Ok(None);
        }
        let mut pt = Vec::with_capacity(n);
        for col in 1..=n {
            let v = match omega::try_exact_range(&p, col)?.0 {
                Some(v) => v,
                None => omega::try_solve(&p)?.expect("feasible")[col - 1].clone(),
            };
            let mut r = vec![Int::ZERO; p.n + 1];
            r[col] = Int::ONE;
            r[0] = -&v;
            p.eqs.push(r);
            pt.push(v);
        }
        Ok(Some(pt))
    }

    /// The conjunction prepared for many emptiness tests with a few rows added (see
    /// [`Reduced`]).
    pub fn reduced(&self) -> Reduced {
        Reduced::new(self)
    }

    /// Does the conjunction admit exactly the given values for parameters and dimensions?
    /// (Within a spent work budget: `false`; see [`budget`].)
    pub fn contains(&self, point: &[Int]) -> bool {
        budget::settle(|| self.try_contains(point), || false)
    }

    /// [`Basic::contains`], or the refusal of the work budget.
    pub fn try_contains(&self, point: &[Int]) -> Budgeted<bool> {
        debug_assert_eq!(point.len(), self.n_param + self.n_dim);
        let mut b = self.clone();
        for (i, v) in point.iter().enumerate() {
            b.fix_col(1 + i, v);
        }
        Ok(!b.try_is_empty()?)
    }
}

/// A conjunction with its unit-coefficient equalities solved once and its columns
/// substituted away, for callers that test it many times with a few rows added (a joint
/// dependence space, level after level). The Omega test would redo those substitutions, and
/// a normalisation per substitution, on every call. Substituting a variable fixed by a unit
/// equality is exact over the integers, so emptiness answers are those of the original.
#[derive(Clone, Debug)]
pub struct Reduced {
    /// `(column, expression)` in elimination order: later expressions never mention earlier
    /// columns.
    subst: Vec<(usize, Row)>,
    /// Original columns that remain, constant first.
    keep: Vec<usize>,
    /// The remaining constraints over `keep`; `None` when normalisation found the
    /// conjunction empty.
    base: Option<Problem>,
    /// Whether `base` has an integer point, decided on first need: callers that go on to
    /// add rows rarely need it.
    feasible: std::cell::OnceCell<bool>,
}

impl Reduced {
    fn new(b: &Basic) -> Reduced {
        let mut p = b.to_problem();
        let mut subst: Vec<(usize, Row)> = vec![];
        // Normalising once per round, not once per substitution (nor before the first, as
        // the input needs no normalisation): rows that became trivial or contradictory are
        // dealt with at the end of the round, and gcd division may reveal new unit
        // equalities for the next one.
        let feasible = loop {
            let mut progressed = false;
            while let Some((e, k)) = p.eqs.iter().enumerate().find_map(|(e, r)| {
                (1..r.len())
                    .rev()
                    .find(|&k| r[k] == 1 || r[k] == -1)
                    .map(|k| (e, k))
            }) {
                let eq = p.eqs.swap_remove(e);
                let expr = solve_unit(&eq, k);
                for r in p.eqs.iter_mut().chain(p.ineqs.iter_mut()) {
                    substitute(r, k, &expr);
                }
                subst.push((k, expr));
                progressed = true;
            }
            let feasible = row::normalize(&mut p);
            if !progressed || !feasible {
                break feasible;
            }
        };
        let keep: Vec<usize> = (0..=p.n)
            .filter(|c| subst.iter().all(|(k, _)| k != c))
            .collect();
        let base = feasible.then(|| {
            let squeeze = |r: &Row| -> Row { keep.iter().map(|&c| r[c].clone()).collect() };
            Problem {
                n: keep.len() - 1,
                eqs: p.eqs.iter().map(squeeze).collect(),
                ineqs: p.ineqs.iter().map(squeeze).collect(),
            }
        });
        Reduced {
            subst,
            keep,
            base,
            feasible: std::cell::OnceCell::new(),
        }
    }

    /// Is the original conjunction empty? (Within a spent work budget: `true`; see
    /// [`budget`].)
    pub fn is_empty(&self) -> bool {
        budget::settle(|| self.try_is_empty(), || true)
    }

    /// [`Reduced::is_empty`], or the refusal of the work budget.
    pub fn try_is_empty(&self) -> Budgeted<bool> {
        let Some(base) = &self.base else {
            return Ok(true);
        };
        if let Some(f) = self.feasible.get() {
            return Ok(!*f);
        }
        // Only an answer is kept, never a refusal.
        let f = omega::try_is_feasible(base)?;
        Ok(!*self.feasible.get_or_init(|| f))
    }

    /// A row of the original conjunction's columns, over the remaining columns.
    fn translate(&self, r: &Row) -> Row {
        let mut r = r.clone();
        for (k, e) in &self.subst {
            substitute(&mut r, *k, e);
        }
        self.keep.iter().map(|&c| r[c].clone()).collect()
    }

    /// Is the original conjunction empty once `eqs` and `ineqs` (rows of its width) are
    /// added? Rows that become constants are decided without a search.
    /// (Within a spent work budget: `true`; see [`budget`].)
    pub fn is_empty_with(&self, eqs: &[Row], ineqs: &[Row]) -> bool {
        budget::settle(|| self.try_is_empty_with(eqs, ineqs), || true)
    }

    /// [`Reduced::is_empty_with`], or the refusal of the work budget.
    pub fn try_is_empty_with(&self, eqs: &[Row], ineqs: &[Row]) -> Budgeted<bool> {
        let Some(base) = &self.base else {
            return Ok(true);
        };
        let constant = |r: &Row| r[1..].iter().all(Int::is_zero);
        let mut p = Problem {
            n: base.n,
            eqs: vec![],
            ineqs: vec![],
        };
        for r in eqs {
            let r = self.translate(r);
            if !constant(&r) {
                p.eqs.push(r);
            } else if !r[0].is_zero() {
                return Ok(true);
            }
        }
        for r in ineqs {
            let r = self.translate(r);
            if !constant(&r) {
                p.ineqs.push(r);
            } else if r[0].is_negative() {
                return Ok(true);
            }
        }
        if p.eqs.is_empty() && p.ineqs.is_empty() {
            return self.try_is_empty();
        }
        if self.feasible.get() == Some(&false) {
            return Ok(true);
        }
        p.eqs.extend(base.eqs.iter().cloned());
        p.ineqs.extend(base.ineqs.iter().cloned());
        budget::operation(
            "emptiness test",
            || describe_problem(&p),
            || Ok(!omega::try_is_feasible(&p)?),
        )
    }
}

/// An Omega problem in isl notation (all columns as dimensions), for error messages.
fn describe_problem(p: &Problem) -> String {
    let mut b = Basic::universe(0, p.n);
    b.eqs = p.eqs.clone();
    b.ineqs = p.ineqs.clone();
    b.to_string()
}

#[cfg(test)]
mod tests {
    use crate::presburger::parse_set;

    /// Taking away a union of parts that each have the floor of what is left keeps one
    /// local for that floor in each piece (the pieces of one part's difference meet the
    /// floor again in the next part), leaves `self`'s columns first in every piece, and
    /// the points are the right ones.
    #[test]
    fn subtraction_keeps_one_local_per_floor() {
        let whole = "{ [i, j] : 2*floor((i + 1)/2) = i + 1 and 0 <= i < 12 and 0 <= j < 7 }";
        let part = |k: usize| {
            format!(
                "2*floor((i + 1)/2) = i + 1 and j = {k} and i <= {}",
                2 * k + 1
            )
        };
        let away: Vec<String> = (0..6).map(part).collect();
        let a = parse_set(whole, &[]).unwrap();
        let b = parse_set(&format!("{{ [i, j] : {} }}", away.join(" or ")), &[]).unwrap();
        let got: Vec<Vec<i64>> = (a.subtract(&b).points(1000).unwrap().iter())
            .map(|p| p.iter().map(|v| v.to_i64().unwrap()).collect())
            .collect();
        let expect: Vec<Vec<i64>> = (0..12)
            .flat_map(|i| (0..7).map(move |j| vec![i, j]))
            .filter(|v| v[0] % 2 == 1 && !(v[1] < 6 && v[0] <= 2 * v[1] + 1))
            .collect();
        assert_eq!(got, expect);
        // One conjunction minus another with the same floor: the pieces have that floor
        // once, in the first conjunction's column.
        let x = &a.parts()[0];
        let y = parse_set(&format!("{{ [i, j] : {} }}", away[2]), &[]).unwrap();
        let pieces = x.subtract(&y.parts()[0]);
        assert!(!pieces.is_empty());
        for piece in pieces {
            assert_eq!(piece.n_div(), x.n_div(), "{piece:?}");
            assert_eq!(piece.divs()[..], x.divs()[..]);
        }
    }

    #[test]
    fn a_row_holds_where_stated_implied_or_tested() {
        use crate::presburger::{row::Row, Int};
        // Rows over [1, n, i, j].
        let row = |v: [i64; 4]| -> Row { v.iter().map(|&x| Int::from(x)).collect() };
        let s = parse_set(
            "[n] -> { [i, j] : 0 <= i < n and 2*floor(j/2) = j and 0 <= j <= i }",
            &[],
        )
        .unwrap();
        // Stated: i >= 0, and the looser i + 3 >= 0.
        assert!(s.satisfies(&row([0, 0, 1, 0])));
        assert!(s.satisfies(&row([3, 0, 1, 0])));
        // Implied, not stated: n - j - 1 >= 0; and j even makes i - j >= 0 hold, not i - j >= 1.
        assert!(s.satisfies(&row([-1, 1, 0, -1])));
        assert!(!s.satisfies(&row([-1, 0, 1, -1])));
        // j = 0 is a point: j - 1 >= 0 does not hold.
        assert!(!s.satisfies(&row([-1, 0, 0, 1])));
        let brute = |r: &Row| {
            (0..6).all(|n: i64| {
                (0..n).all(|i| {
                    (0..=i).filter(|j| j % 2 == 0).all(|j| {
                        let v = [1, n, i, j];
                        (0..4).map(|k| r[k].to_i64().unwrap() * v[k]).sum::<i64>() >= 0
                    })
                })
            })
        };
        for r in [
            row([0, 0, 1, 0]),
            row([-1, 1, 0, -1]),
            row([-1, 0, 1, -1]),
            row([0, 0, 1, -1]),
        ] {
            assert_eq!(s.satisfies(&r), brute(&r), "{r:?}");
        }
    }
}
