//! The legal-schedule space: the polyhedron of one-dimensional affine schedule coefficients
//! that keep every dependence satisfied (the convexity paper, §2.3 and §4.1).
//!
//! A one-dimensional schedule gives each statement `S` an affine function
//! `θS(i) = cS·i + dS·n + eS` of its iterators `i` and the parameters `n`. A dependence
//! `S[i] -> T[j]` (a polyhedron `P` over parameters, both iterators and its locals) is
//! *weakly* satisfied when `θT(j) − θS(i) ≥ 0` on all of `P`, *strongly* when `≥ 1`. By the
//! affine form of the Farkas lemma, an affine form is non-negative on a non-empty polyhedron
//! `{x : A·x + b ≥ 0}` exactly when it equals `λ0 + λ·(A·x + b)` for some `λ0, λ ≥ 0`.
//! Identifying coefficients gives linear constraints over the schedule coefficients and the
//! multipliers; the multipliers (rational, non-negative) are eliminated exactly by the
//! core's rational Fourier–Motzkin ([`eliminate_rational`]: equalities first,
//! Kohler's rule against redundant combinations). What is left is a system over the schedule
//! coefficients only.
//!
//! The construction is the rational one of the paper: every integer point of the space is
//! a legal schedule. It is exact when the dependence polyhedra are integral (uniform and
//! rectangular cases); otherwise a legal integer schedule may fall outside (never the other
//! way round).
//!
//! **Coordinates.** A statement's iterator coefficients are taken over the iteration
//! dimensions of its *original* schedule, not over its iterators: where a loop counts down
//! (`j--`, iteration dimension `−j`), coefficient `k` multiplies `−j` (Pluto's practice).
//! Non-negative coefficients then always include the kernel's own order, and a hyperplane
//! reads directly as operations on the schedule the script starts from. [`Layout::dirs`]
//! holds the signs; everything that turns coefficients into a function of the iterators
//! ([`Layout::eval`], the Farkas rows, the exact per-edge test) applies them.

use crate::presburger::linalg::eliminate_rational;
use crate::presburger::row::{cancel, Row};
use crate::presburger::{Basic, Int, Map};
use crate::verify::{Dependence, Program};
use std::cell::OnceCell;
use std::collections::{BTreeSet, HashSet};

/// Where each statement's coefficients are in a coefficient vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub params: Vec<String>,
    /// Number of iterators of each statement.
    pub iters: Vec<usize>,
    /// First coefficient of each statement: `[iterators | parameters | constant]`.
    pub offset: Vec<usize>,
    /// Total number of coefficients.
    pub len: usize,
    /// Per statement and iterator, the direction of its loop in the original schedule:
    /// `1` when iteration dimension `k` is the iterator, `−1` when it is `−iterator` (a loop
    /// counting down). Iterator coefficients are over these dimensions (see the module
    /// documentation).
    pub dirs: Vec<Vec<i64>>,
}

impl Layout {
    pub fn new(p: &Program) -> Layout {
        let np = p.params.len();
        let mut offset = vec![];
        let mut iters = vec![];
        let mut len = 0;
        let mut dirs = vec![];
        for s in &p.stmts {
            offset.push(len);
            let n = s.domain.n_dim();
            iters.push(n);
            dirs.push(directions(&s.schedule, n));
            len += n + np + 1;
        }
        Layout {
            params: p.params.clone(),
            iters,
            offset,
            len,
            dirs,
        }
    }

    /// The multiplier of iterator `k` of statement `s` in `θs` for a coefficient `c` of
    /// its iteration dimension `k` (`±c`, see [`Layout::dirs`]).
    pub fn dir(&self, s: usize, k: usize) -> i64 {
        self.dirs
            .get(s)
            .and_then(|d| d.get(k))
            .copied()
            .unwrap_or(1)
    }

    pub fn n_param(&self) -> usize {
        self.params.len()
    }

    /// Coefficient index of iterator `k` of statement `s`.
    pub fn iter(&self, s: usize, k: usize) -> usize {
        self.offset[s] + k
    }

    /// Coefficient index of parameter `q` of statement `s`.
    pub fn param(&self, s: usize, q: usize) -> usize {
        self.offset[s] + self.iters[s] + q
    }

    /// Coefficient index of the constant of statement `s`.
    pub fn constant(&self, s: usize) -> usize {
        self.offset[s] + self.iters[s] + self.n_param()
    }

    /// `θs` at an instance: `coeffs` is a whole coefficient vector. (For the tests.)
    #[cfg(test)]
    pub fn eval(&self, coeffs: &[i64], s: usize, iters: &[i64], params: &[i64]) -> i64 {
        let mut v = coeffs[self.constant(s)];
        for (k, x) in iters.iter().enumerate() {
            v += coeffs[self.iter(s, k)] * self.dir(s, k) * x;
        }
        for (q, x) in params.iter().enumerate() {
            v += coeffs[self.param(s, q)] * x;
        }
        v
    }
}

/// One conjunction of one dependence: the unit the space is built from and the unit that
/// outer levels satisfy (and so drop).
#[derive(Clone, Debug)]
pub struct Edge {
    pub source: usize,
    pub sink: usize,
    /// Columns `[1 | params | source iterators | sink iterators | locals]`, parameters in the
    /// layout's order.
    pub poly: Basic,
    /// Farkas rows over `[1 | coefficients | δ]`: `θT(j) − θS(i) ≥ δ` on `poly`.
    rows: Vec<Row>,
    /// The rows of the distance bound ([`Legal::bound_space`]), computed on first use.
    bound: OnceCell<Vec<Row>>,
}

impl Edge {
    /// Number of source iterators.
    fn ni(&self, l: &Layout) -> usize {
        l.iters[self.source]
    }

    /// `θT(j) − θS(i) − shift` as a row over the edge's columns.
    fn difference(&self, l: &Layout, coeffs: &[Int], shift: i64) -> Row {
        let np = l.n_param();
        let ni = self.ni(l);
        let mut r = self.poly.zero_row();
        for (s, sign, first) in [(self.sink, 1i64, 1 + np + ni), (self.source, -1, 1 + np)] {
            let sign = Int::from(sign);
            r[0] += &(&sign * &coeffs[l.constant(s)]);
            for q in 0..np {
                r[1 + q] += &(&sign * &coeffs[l.param(s, q)]);
            }
            for k in 0..l.iters[s] {
                let d = &sign * &Int::from(l.dir(s, k));
                r[first + k] += &(&d * &coeffs[l.iter(s, k)]);
            }
        }
        r[0] -= &Int::from(shift);
        r
    }

    /// Does `θT(j) − θS(i) ≥ delta` hold at every integer point of the edge (exactly)?
    pub fn satisfied(&self, l: &Layout, coeffs: &[Int], delta: i64) -> bool {
        // Empty: { x ∈ P : θT(j) − θS(i) ≤ delta − 1 }.
        let mut b = self.poly.clone();
        let d = self.difference(l, coeffs, delta);
        let neg: Row = d.iter().map(|v| -v).collect();
        let mut neg = neg;
        neg[0] -= &Int::ONE;
        b.add_ineq(neg);
        b.is_empty()
    }

    /// Whether the last of `levels` (each a whole coefficient vector, one hyperplane per
    /// statement, outermost first) carries some instance of this edge at a distance from 1
    /// to `within`, the outer levels keeping source and sink at equal times.
    pub fn carries(&self, l: &Layout, levels: &[Vec<Int>], within: i64) -> bool {
        let Some((last, outer)) = levels.split_last() else {
            return false;
        };
        let mut b = self.poly.clone();
        for c in outer {
            b.add_eq(self.difference(l, c, 0));
        }
        b.add_ineq(self.difference(l, last, 1));
        let below: Row = self
            .difference(l, last, within)
            .iter()
            .map(|v| -v)
            .collect();
        b.add_ineq(below);
        !b.is_empty()
    }

    /// Farkas rows of this edge for `θT(j) − θS(i) ≥ delta`, over `[1 | coefficients]`.
    pub fn rows(&self, delta: i64) -> Vec<Row> {
        self.rows
            .iter()
            .map(|r| {
                let n = r.len() - 1;
                let mut out: Row = r[..n].to_vec();
                out[0] += &(&r[n] * &Int::from(delta));
                out
            })
            .collect()
    }
}

/// The dependences of a program as Farkas-ready edges, with the layout of the coefficients.
#[derive(Clone, Debug)]
pub struct Legal {
    pub layout: Layout,
    pub edges: Vec<Edge>,
}

impl Legal {
    /// Every conjunction of every dependence (all levels of the original schedule).
    pub fn new(p: &Program, deps: &[Dependence]) -> Legal {
        let layout = Layout::new(p);
        let mut edges = vec![];
        for dep in deps {
            let rel: Map = dep.relation().align_params(&p.params);
            for part in rel.parts() {
                let mut poly = part.clone();
                if !poly.normalize() {
                    continue;
                }
                let mut e = Edge {
                    source: dep.source,
                    sink: dep.sink,
                    poly,
                    rows: vec![],
                    bound: OnceCell::new(),
                };
                e.rows = farkas(&layout, &e);
                edges.push(e);
            }
        }
        Legal { layout, edges }
    }

    /// Restricted to the dependences between the given statements.
    pub fn restrict(&self, stmts: &[usize]) -> Legal {
        Legal {
            layout: self.layout.clone(),
            edges: self
                .edges
                .iter()
                .filter(|e| stmts.contains(&e.source) && stmts.contains(&e.sink))
                .cloned()
                .collect(),
        }
    }

    /// The space of coefficient vectors (a conjunction with no parameters, one dimension per
    /// coefficient) that weakly satisfy the edges in `weak` and strongly those in `strong`.
    pub fn space(&self, weak: &[usize], strong: &[usize]) -> Basic {
        let mut b = Basic::universe(0, self.layout.len);
        let mut seen: HashSet<Row> = HashSet::new();
        for (list, delta) in [(weak, 0), (strong, 1)] {
            for &e in list {
                for r in self.edges[e].rows(delta) {
                    if seen.insert(r.clone()) {
                        b.add_ineq(r);
                    }
                }
            }
        }
        b
    }

    /// Every edge weakly satisfied. (For the tests.)
    #[cfg(test)]
    pub fn weak_space(&self) -> Basic {
        let all: Vec<usize> = (0..self.edges.len()).collect();
        self.space(&all, &[])
    }

    /// The edges a schedule dimension strongly satisfies (these are dropped at inner levels).
    pub fn strongly_satisfied(&self, coeffs: &[Int], among: &[usize]) -> Vec<usize> {
        among
            .iter()
            .copied()
            .filter(|&e| self.edges[e].satisfied(&self.layout, coeffs, 1))
            .collect()
    }

    /// Level by level: given the schedule dimensions chosen so far (outermost first), the
    /// edges still to be satisfied (not strongly satisfied by an earlier dimension). `None`
    /// when some dimension does not weakly satisfy an edge still active at its level.
    pub fn remaining(&self, dims: &[Vec<Int>]) -> Option<Vec<usize>> {
        let mut active: Vec<usize> = (0..self.edges.len()).collect();
        for c in dims {
            if !active
                .iter()
                .all(|&e| self.edges[e].satisfied(&self.layout, c, 0))
            {
                return None;
            }
            let strong: BTreeSet<usize> = self.strongly_satisfied(c, &active).into_iter().collect();
            active.retain(|e| !strong.contains(e));
        }
        Some(active)
    }

    /// A band of consecutive dimensions is permutable when each of them weakly satisfies
    /// every edge still active at the band's first dimension (§4.1): then any order of the
    /// band's dimensions, and so rectangular tiling, is legal. (For the tests.)
    #[cfg(test)]
    pub fn is_permutable(&self, outer: &[Vec<Int>], band: &[Vec<Int>]) -> bool {
        let Some(active) = self.remaining(outer) else {
            return false;
        };
        band.iter().all(|c| {
            active
                .iter()
                .all(|&e| self.edges[e].satisfied(&self.layout, c, 0))
        })
    }

    /// The dependence-distance bound of §4.1 for the given edges: a conjunction over
    /// `[coefficients | u (one per parameter) | w]` saying `u·n + w − (θT(j) − θS(i)) ≥ 0`
    /// on every edge. Minimising `(u, w)` lexicographically gives the schedule with the
    /// shortest dependence distances.
    pub fn bound_space(&self, edges: &[usize]) -> Basic {
        let np = self.layout.n_param();
        let n = self.layout.len + np + 1;
        let mut b = Basic::universe(0, n);
        let mut seen: HashSet<Row> = HashSet::new();
        for &e in edges {
            let e = &self.edges[e];
            for r in e.bound.get_or_init(|| farkas_bound(&self.layout, e)) {
                if seen.insert(r.clone()) {
                    b.add_ineq(r.clone());
                }
            }
        }
        b
    }
}

#[cfg(test)]
impl Legal {
    /// The hyperplane of §4.1 with the shortest dependence distances: among the schedules
    /// with non-negative coefficients (and at least one non-zero iterator coefficient per
    /// statement) that weakly satisfy `edges`, the lexicographic minimum of
    /// `(u, w, coefficients)` under `u·n + w ≥ θT(j) − θS(i)`, `u ≥ 0`. Returns the
    /// coefficients and `(u, w)`; `None` when no such schedule exists. One dimension only:
    /// linear independence from earlier dimensions is the caller's business. (The tests
    /// check §4.1 on it; the search builds its hyperplanes in `schedule.rs` and `fuse.rs`.)
    pub fn shortest(&self, edges: &[usize]) -> Option<(Vec<Int>, Vec<Int>, Int)> {
        let l = &self.layout;
        let np = l.n_param();
        let n = l.len + np + 1;
        // Rows over [1 | coefficients | u | w].
        let mut rows: Vec<Row> = self.bound_space(edges).into_rows().1;
        for r in self.space(edges, &[]).into_rows().1 {
            let mut r = r;
            r.resize(1 + n, Int::ZERO);
            rows.push(r);
        }
        for c in 0..l.len + np {
            let mut r = vec![Int::ZERO; 1 + n];
            r[1 + c] = Int::ONE;
            rows.push(r);
        }
        for s in 0..l.iters.len() {
            let mut r = vec![Int::ZERO; 1 + n];
            r[0] = Int::from(-1);
            for k in 0..l.iters[s] {
                r[1 + l.iter(s, k)] = Int::ONE;
            }
            if l.iters[s] > 0 {
                rows.push(r);
            }
        }
        // Reorder the columns to [1 | u | w | coefficients] for the lexicographic minimum.
        let order: Vec<usize> = std::iter::once(0)
            .chain((l.len..n).map(|c| 1 + c))
            .chain((0..l.len).map(|c| 1 + c))
            .collect();
        let mut b = Basic::universe(0, n);
        for r in rows {
            b.add_ineq(order.iter().map(|&c| r[c].clone()).collect());
        }
        let pt = b.lexmin_prefix(n)?;
        let u = pt[..np].to_vec();
        let w = pt[np].clone();
        Some((pt[np + 1..].to_vec(), u, w))
    }
}

/// The target form for [`farkas_rows`]: for each column of the edge's polyhedron, the
/// coefficient of the form as an affine expression over the unknowns `[1 | unknowns]`.
fn farkas_rows(poly: &Basic, form: &[Row], n_unknown: usize) -> Vec<Row> {
    // Multipliers: one per inequality, two per equality.
    let mut cons: Vec<Row> = poly.ineqs().to_vec();
    for e in poly.eqs() {
        cons.push(e.clone());
        cons.push(e.iter().map(|v| -v).collect());
    }
    let k = cons.len();
    let width = 1 + n_unknown + k;
    let mut eqs = vec![];
    let mut ineqs = vec![];
    for (c, f) in form.iter().enumerate() {
        let mut r = vec![Int::ZERO; width];
        r[..=n_unknown].clone_from_slice(f);
        for (m, a) in cons.iter().enumerate() {
            r[1 + n_unknown + m] = -&a[c];
        }
        if c == 0 {
            // The constant also has λ0 ≥ 0 of its own.
            ineqs.push(r);
        } else {
            eqs.push(r);
        }
    }
    for m in 0..k {
        let mut r = vec![Int::ZERO; width];
        r[1 + n_unknown + m] = Int::ONE;
        ineqs.push(r);
    }
    eliminate_rational(eqs, ineqs, n_unknown)
}

/// Farkas rows for `θT(j) − θS(i) − δ ≥ 0`, over `[1 | coefficients | δ]`.
fn farkas(l: &Layout, e: &Edge) -> Vec<Row> {
    let nu = l.len + 1;
    let form = difference_form(l, e, nu);
    let mut form = form;
    form[0][nu] -= &Int::ONE;
    farkas_rows(&e.poly, &form, nu)
}

/// `θT(j) − θS(i)` per column of the edge, over `[1 | coefficients | nu − len more]`.
fn difference_form(l: &Layout, e: &Edge, nu: usize) -> Vec<Row> {
    let np = l.n_param();
    let ni = l.iters[e.source];
    let mut form = vec![vec![Int::ZERO; nu + 1]; e.poly.width()];
    for (s, sign, first) in [(e.sink, 1i64, 1 + np + ni), (e.source, -1, 1 + np)] {
        let sign = Int::from(sign);
        form[0][1 + l.constant(s)] += &sign;
        for q in 0..np {
            form[1 + q][1 + l.param(s, q)] += &sign;
        }
        for k in 0..l.iters[s] {
            form[first + k][1 + l.iter(s, k)] += &(&sign * &Int::from(l.dir(s, k)));
        }
    }
    form
}

/// The direction of each of the first `n` iteration dimensions of an original schedule
/// `S[x] -> [p0, j1, p1, …]`: `−1` where `j(k+1) = −x(k)`, `1` otherwise (`j = x`, and any
/// form the frontend does not produce).
fn directions(schedule: &Map, n: usize) -> Vec<i64> {
    let mut out = vec![1; n];
    let [part] = schedule.parts() else {
        return out;
    };
    let n_in = schedule.n_in();
    for (k, d) in out.iter_mut().enumerate() {
        let (x, j) = (part.col_dim(k), part.col_dim(n_in + 2 * k + 1));
        if j >= part.width() {
            continue;
        }
        // An equality in x(k) and j(k+1) only: `a·j + b·x = 0`.
        let found = part.eqs().iter().find(|r| {
            !r[j].is_zero()
                && r.iter()
                    .enumerate()
                    .all(|(c, v)| v.is_zero() || c == j || c == x)
        });
        if let Some(r) = found {
            if r[j] == r[x] {
                *d = -1;
            }
        }
    }
    out
}

/// Farkas rows for `u·n + w − (θT(j) − θS(i)) ≥ 0`, over `[1 | coefficients | u | w]`.
fn farkas_bound(l: &Layout, e: &Edge) -> Vec<Row> {
    let np = l.n_param();
    let nu = l.len + np + 1;
    let mut form = difference_form(l, e, nu);
    for r in form.iter_mut() {
        for v in r.iter_mut() {
            *v = -&*v;
        }
    }
    for q in 0..np {
        form[1 + q][1 + l.len + q] += &Int::ONE;
    }
    form[0][nu] += &Int::ONE;
    farkas_rows(&e.poly, &form, nu)
}

/// The rows of an iteration map `S[i] -> [j1 .. jM]` whose every output is an affine
/// function of the iterators and parameters: per output, `[iterators | parameters |
/// constant]` (parameters in the order of `params`). `None` for anything else (a union, a
/// floor division, a non-unit denominator).
pub fn affine_rows(it: &Map, params: &[String]) -> Option<Vec<Vec<Int>>> {
    let it = it.align_params(params);
    let [b] = it.parts() else {
        return None;
    };
    let (np, ni, no) = (params.len(), it.n_in(), it.n_out());
    let out0 = 1 + np + ni;
    let mut eqs: Vec<Row> = b.eqs().to_vec();
    let mut pivots: Vec<usize> = vec![];
    for k in 0..no {
        let c = out0 + k;
        let p = (0..eqs.len()).find(|r| !pivots.contains(r) && !eqs[*r][c].is_zero())?;
        let pr = eqs[p].clone();
        for (r, e) in eqs.iter_mut().enumerate() {
            if r != p {
                cancel(e, &pr, c);
            }
        }
        pivots.push(p);
    }
    let mut out = vec![];
    for (k, &p) in pivots.iter().enumerate() {
        let r = &eqs[p];
        if r[out0 + no..].iter().any(|v| !v.is_zero()) {
            return None;
        }
        let a = &r[out0 + k];
        let mut row = vec![];
        let take = |v: &Int| -> Option<Int> {
            if v.mod_floor(a).is_zero() {
                Some(-&v.div_exact(a))
            } else {
                None
            }
        };
        for x in &r[1 + np..out0] {
            row.push(take(x)?);
        }
        for x in &r[1..1 + np] {
            row.push(take(x)?);
        }
        row.push(take(&r[0])?);
        out.push(row);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    #[test]
    fn affine_rows_of_maps() {
        let params = vec!["N".to_string()];
        let m = crate::presburger::parse_map("[N] -> { S[i, j] -> [j + 2i + N - 1, i] }", &params)
            .unwrap();
        // [iterators | parameters | constant] per output.
        assert_eq!(
            affine_rows(&m, &params),
            Some(vec![ints(&[2, 1, 1, -1]), ints(&[1, 0, 0, 0])])
        );
        // A tiling (a floor division) has no affine rows.
        let t = crate::presburger::parse_map("{ S[i] -> [floor(i / 32), i] }", &[]).unwrap();
        assert_eq!(affine_rows(&t, &[]), None);
    }
}
