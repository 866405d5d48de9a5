//! From the legal-schedule space to schedules: the legal outer interleavings (the set F¹ of
//! the convexity paper, §3 and §4.3) and, for one of them, a schedule built as §4.1 builds
//! it — permutable bands of hyperplanes with the shortest dependence distances, each
//! linearly independent of the hyperplanes before it, distribution where no hyperplane fits.
//!
//! Coefficients are non-negative throughout, as in §4 of the paper, but over each
//! statement's original iteration dimensions (`−j` for a loop counting down, see
//! `space`), so the kernel's own order is always among them: what is found is a subset of
//! all legal schedules (no reversal of the original direction of a loop), and every
//! schedule is checked again by the ordinary verifier once written as a script.

#[cfg(test)]
use super::fusion::{members, Mask};
use super::space::Legal;
use crate::presburger::linalg::null_space;
use crate::presburger::row::Row;
use crate::presburger::{Basic, Int, Lp};
#[cfg(test)]
use std::collections::HashMap;

/// The legal outer interleavings of a program: ordered partitions of its statements into
/// classes, the statements of a class fused under a common outermost loop. (The brute
/// force the tests compare the fusion space of `fusion.rs` with.)
#[cfg(test)]
#[derive(Clone, Debug)]
pub struct Interleavings {
    /// Each interleaving: its classes in execution order, each a sorted list of statements.
    pub list: Vec<Vec<Vec<usize>>>,
    /// The enumeration stopped at the cap (there may be more).
    pub truncated: bool,
}

impl Legal {
    /// Edges whose source and sink both lie in `stmts`.
    pub fn internal(&self, among: &[usize], stmts: &[usize]) -> Vec<usize> {
        among
            .iter()
            .copied()
            .filter(|&e| {
                stmts.contains(&self.edges[e].source) && stmts.contains(&self.edges[e].sink)
            })
            .collect()
    }

    /// Can the statements share an outermost loop (Definition 7, without its interval
    /// condition)? There must be one hyperplane with non-negative coefficients and a
    /// non-zero linear part for each of them that weakly satisfies every dependence among
    /// them. A convex test: one emptiness check.
    pub fn fusable(&self, stmts: &[usize]) -> bool {
        if stmts.iter().any(|&s| self.layout.iters[s] == 0) {
            return stmts.len() == 1;
        }
        let all: Vec<usize> = (0..self.edges.len()).collect();
        let edges = self.internal(&all, stmts);
        let cols = self.columns(stmts);
        let keep: Vec<usize> = std::iter::once(0)
            .chain(cols.iter().map(|c| 1 + c))
            .collect();
        let mut b = Basic::universe(0, cols.len());
        for r in self.space(&edges, &[]).into_rows().1 {
            b.add_ineq(keep.iter().map(|&c| r[c].clone()).collect());
        }
        for r in self.hyperplane_rows(stmts, &cols, 0) {
            b.add_ineq(r);
        }
        for r in self.no_params(stmts, &cols, 0) {
            b.add_eq(r);
        }
        !b.is_empty()
    }

    /// The coefficient columns of some statements, in layout order.
    pub(super) fn columns(&self, stmts: &[usize]) -> Vec<usize> {
        let l = &self.layout;
        let mut sorted = stmts.to_vec();
        sorted.sort();
        sorted
            .iter()
            .flat_map(|&s| l.offset[s]..l.offset[s] + l.iters[s] + l.n_param() + 1)
            .collect()
    }

    /// Rows over `[1 | cols | extra]`: every coefficient non-negative, and a non-zero
    /// linear part for each statement.
    pub(super) fn hyperplane_rows(
        &self,
        stmts: &[usize],
        cols: &[usize],
        extra: usize,
    ) -> Vec<Row> {
        let l = &self.layout;
        let w = 1 + cols.len() + extra;
        let mut out = vec![];
        for k in 0..cols.len() {
            let mut r = vec![Int::ZERO; w];
            r[1 + k] = Int::ONE;
            out.push(r);
        }
        for &s in stmts {
            let mut r = vec![Int::ZERO; w];
            r[0] = Int::from(-1);
            for k in 0..l.iters[s] {
                let c = cols
                    .iter()
                    .position(|&c| c == l.iter(s, k))
                    .expect("column kept");
                r[1 + c] = Int::ONE;
            }
            out.push(r);
        }
        out
    }

    /// Equalities over `[1 | cols | extra]`: no parameter in any statement's hyperplane
    /// (a parametric shift would separate the statements' instances, not fuse them).
    fn no_params(&self, stmts: &[usize], cols: &[usize], extra: usize) -> Vec<Row> {
        let l = &self.layout;
        let w = 1 + cols.len() + extra;
        let mut out = vec![];
        for &s in stmts {
            for q in 0..l.n_param() {
                let c = cols
                    .iter()
                    .position(|&c| c == l.param(s, q))
                    .expect("column kept");
                let mut r = vec![Int::ZERO; w];
                r[1 + c] = Int::ONE;
                out.push(r);
            }
        }
        out
    }
}

#[cfg(test)]
impl Legal {
    /// The legal outer interleavings: every ordered partition of the statements such that
    /// no dependence goes from a later class to an earlier one and every class is
    /// [`fusable`](Legal::fusable). Pruned as §4.3 prunes: a class is only tried when every
    /// statement it depends on is placed already or in it, and a set found unfusable is
    /// remembered. Stops after `cap` interleavings.
    pub fn interleavings(&self, cap: usize) -> Interleavings {
        let n = self.layout.iters.len();
        assert!(n <= 63, "at most 63 statements");
        let mut pred: Vec<Mask> = vec![0; n];
        for e in &self.edges {
            if e.source != e.sink {
                pred[e.sink] |= 1 << e.source;
            }
        }
        let mut out = Interleavings {
            list: vec![],
            truncated: false,
        };
        let mut memo: HashMap<Mask, bool> = HashMap::new();
        let all: Mask = if n == 0 { 0 } else { (1u64 << n) - 1 };
        let mut prefix = vec![];
        self.enumerate(all, &pred, &mut prefix, &mut memo, cap, &mut out);
        out
    }

    fn enumerate(
        &self,
        remaining: Mask,
        pred: &[Mask],
        prefix: &mut Vec<Mask>,
        memo: &mut HashMap<Mask, bool>,
        cap: usize,
        out: &mut Interleavings,
    ) {
        if remaining == 0 {
            if out.list.len() >= cap {
                out.truncated = true;
                return;
            }
            out.list.push(prefix.iter().map(|&m| members(m)).collect());
            return;
        }
        // Every non-empty subset of `remaining`, in increasing order of its mask.
        let mut sub: Mask = 0;
        loop {
            sub = (sub.wrapping_sub(remaining)) & remaining;
            if sub == 0 || out.truncated {
                break;
            }
            let rest = remaining & !sub;
            if members(sub).iter().any(|&s| pred[s] & rest != 0) {
                continue;
            }
            if sub.count_ones() > 1 {
                let ok = *memo
                    .entry(sub)
                    .or_insert_with(|| self.fusable(&members(sub)));
                if !ok {
                    continue;
                }
            }
            prefix.push(sub);
            self.enumerate(rest, pred, prefix, memo, cap, out);
            prefix.pop();
        }
    }
}

/// A band of permutable loops: loops `start + 1 ..= start + len` (1-based) of `stmts`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    pub stmts: Vec<usize>,
    pub start: usize,
    pub len: usize,
}

/// A schedule found for one interleaving.
#[derive(Clone, Debug)]
pub struct Built {
    /// Per statement, its hyperplanes outermost first, each over the statement's own
    /// coefficients `[iteration dimensions | parameters | constant]` (the original
    /// schedule's iteration dimensions: `−j` for a loop counting down).
    pub rows: Vec<Vec<Vec<Int>>>,
    /// Per statement (by index), the number of loops it shares with the next one in
    /// [`Built::order`] (0 for the last).
    pub shared: Vec<usize>,
    /// The permutable bands (every band's hyperplanes weakly satisfy every dependence still
    /// active at its first loop).
    pub bands: Vec<Band>,
    /// The statements in execution order: the classes of the interleaving one after the
    /// other, each in textual order (the textual order itself unless the interleaving
    /// reorders statements).
    pub order: Vec<usize>,
}

impl Built {
    /// No rows yet for any of the `n` statements, run in `order`.
    pub(super) fn empty(n: usize, order: Vec<usize>) -> Built {
        Built {
            rows: vec![vec![]; n],
            shared: vec![0; n],
            bands: vec![],
            order,
        }
    }
}

impl Legal {
    /// Instances left at equal times run in textual order: `Err` when a dependence still
    /// active runs from a later statement to an earlier one (it would be broken).
    pub(super) fn textual_order_kept(&self, active: &[usize]) -> Result<(), String> {
        match active
            .iter()
            .find(|&&e| self.edges[e].source > self.edges[e].sink)
        {
            Some(&e) => {
                let e = &self.edges[e];
                Err(format!(
                    "a dependence from S{} to S{} is left to the textual order, which runs \
                     S{} first",
                    e.source, e.sink, e.sink
                ))
            }
            None => Ok(()),
        }
    }

    /// The whole-layout coefficient vector of level `lvl` of the given rows (zero for
    /// statements without that level).
    pub(super) fn level_vector(&self, rows: &[Vec<Vec<Int>>], lvl: usize) -> Vec<Int> {
        let l = &self.layout;
        let mut v = vec![Int::ZERO; l.len];
        for (s, r) in rows.iter().enumerate() {
            if let Some(h) = r.get(lvl) {
                for (k, x) in h.iter().enumerate() {
                    v[l.offset[s] + k] = x.clone();
                }
            }
        }
        v
    }

    /// The §4.1 schedule for an interleaving: its classes run one after the other (in the
    /// interleaving's order, which may differ from the textual one), the statements of a
    /// class in textual order. `Err` says why none was found (no hyperplane and no legal
    /// distribution somewhere). (The search builds the schedules of all the interleavings
    /// it takes with a table of classes; the tests compare them with this.)
    #[cfg(test)]
    pub fn build(&self, classes: &[Vec<usize>]) -> Result<Built, String> {
        let all: Vec<usize> = (0..self.edges.len()).collect();
        self.build_classes(classes, |c| {
            let mut b = Built::empty(self.layout.iters.len(), c.to_vec());
            self.build_group(c, &all, &mut b).map(|()| b)
        })
    }

    /// An interleaving's schedule from one schedule per class, `class(statements)` (sorted
    /// statements; each class is scheduled on its own: its statements start without rows
    /// and only the dependences among them count), put side by side in the interleaving's
    /// order. `Err` when the classes are not a partition of the statements, or from
    /// `class`.
    pub fn build_classes(
        &self,
        classes: &[Vec<usize>],
        mut class: impl FnMut(&[usize]) -> Result<Built, String>,
    ) -> Result<Built, String> {
        let n = self.layout.iters.len();
        let classes: Vec<Vec<usize>> = classes
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.sort();
                c
            })
            .collect();
        let order: Vec<usize> = classes.iter().flatten().copied().collect();
        let mut seen = order.clone();
        seen.sort();
        if seen != (0..n).collect::<Vec<_>>() {
            return Err("the interleaving is not a partition of the statements".into());
        }
        let mut out = Built::empty(n, order);
        for c in &classes {
            let part = class(c)?;
            for &s in c {
                out.rows[s] = part.rows[s].clone();
                out.shared[s] = part.shared[s];
            }
            out.bands.extend(part.bands);
        }
        Ok(out)
    }

    pub(super) fn build_group(
        &self,
        group: &[usize],
        active: &[usize],
        b: &mut Built,
    ) -> Result<(), String> {
        let depth = |s: usize| self.layout.iters[s];
        let mut active = self.internal(active, group);
        let mut band_edges = active.clone();
        let lvl0 = b.rows[group[0]].len();
        let mut band_start = lvl0;
        let close = |b: &mut Built, start: usize, end: usize| {
            if end > start {
                b.bands.push(Band {
                    stmts: group.to_vec(),
                    start,
                    len: end - start,
                });
            }
        };
        loop {
            // Past the work budget every answer of the core is a placeholder: stop here.
            crate::presburger::budget::check().map_err(|e| e.to_string())?;
            let lvl = b.rows[group[0]].len();
            let full: Vec<bool> = group.iter().map(|&s| b.rows[s].len() >= depth(s)).collect();
            if full.iter().all(|&f| f) {
                // Instances left at equal times run in textual order: a dependence still
                // active from a later statement to an earlier one is broken.
                self.textual_order_kept(&active)?;
                close(b, band_start, lvl);
                for w in group.windows(2) {
                    b.shared[w[0]] = lvl;
                }
                return Ok(());
            }
            if !full.iter().any(|&f| f) {
                // A dependence from a later statement to an earlier one must be strongly
                // satisfied by the time one of them has all its loops: the textual order
                // that decides ties inside the innermost loop runs the other way.
                let strong: Vec<usize> = active
                    .iter()
                    .copied()
                    .filter(|&e| {
                        let e = &self.edges[e];
                        e.source > e.sink
                            && (b.rows[e.source].len() + 1 >= depth(e.source)
                                || b.rows[e.sink].len() + 1 >= depth(e.sink))
                    })
                    .collect();
                if let Some(h) = self.hyperplane(group, &band_edges, &strong, &b.rows) {
                    for &s in group {
                        let l = &self.layout;
                        let first = l.offset[s];
                        let end = first + l.iters[s] + l.n_param() + 1;
                        b.rows[s].push(h[first..end].to_vec());
                    }
                    let v = self.level_vector(&b.rows, lvl);
                    let strong = self.strongly_satisfied(&v, &active);
                    active.retain(|e| !strong.contains(e));
                    continue;
                }
                if lvl > band_start {
                    close(b, band_start, lvl);
                    band_start = lvl;
                    band_edges = active.clone();
                    continue;
                }
            }
            close(b, band_start, lvl);
            // Distribute: cut between consecutive statements wherever no active edge runs
            // backwards across the cut.
            let mut runs: Vec<Vec<usize>> = vec![vec![group[0]]];
            for k in 1..group.len() {
                let (before, after) = group.split_at(k);
                let backward = active.iter().any(|&e| {
                    let e = &self.edges[e];
                    after.contains(&e.source) && before.contains(&e.sink)
                });
                if backward {
                    runs.last_mut().expect("non-empty").push(group[k]);
                } else {
                    b.shared[group[k - 1]] = lvl;
                    runs.push(vec![group[k]]);
                }
            }
            if runs.len() == 1 {
                let names: Vec<String> = group.iter().map(|s| format!("S{s}")).collect();
                return Err(format!(
                    "no hyperplane for {} at loop {} and no legal distribution",
                    names.join(", "),
                    lvl + 1
                ));
            }
            for r in &runs {
                self.build_group(r, &active, b)?;
            }
            return Ok(());
        }
    }

    /// One hyperplane for the statements of `group`: non-negative coefficients, weakly
    /// satisfying `edges` (strongly those of `strong`, which must also be in the bound), linearly independent of each statement's earlier rows (for a
    /// statement without rows: a non-zero linear part), shortest dependence distances
    /// (lexicographic minimum of `(u, w, coefficients)`, §4.1). Linear independence is not
    /// convex: it is asked as `v·h ≥ 1` or `v·h ≤ −1` for one vector `v` of a basis of the
    /// orthogonal complement of the earlier rows, the same choice for every statement, and
    /// the best over the choices is taken.
    pub fn hyperplane(
        &self,
        group: &[usize],
        edges: &[usize],
        strong: &[usize],
        rows: &[Vec<Vec<Int>>],
    ) -> Option<Vec<Int>> {
        let l = &self.layout;
        let np = l.n_param();
        let n = l.len + np + 1;
        let cols = self.columns(group);
        let nc = cols.len();
        // Columns kept: [1 | the group's coefficients | u | w] (the edges are internal to
        // the group, so their rows have zeros elsewhere).
        let keep: Vec<usize> = std::iter::once(0)
            .chain(cols.iter().map(|c| 1 + c))
            .chain((l.len..n).map(|c| 1 + c))
            .collect();
        let mut base: Vec<Row> = vec![];
        for r in self.bound_space(edges).into_rows().1 {
            base.push(keep.iter().map(|&c| r[c].clone()).collect());
        }
        let weak: Vec<usize> = edges
            .iter()
            .copied()
            .filter(|e| !strong.contains(e))
            .collect();
        for r in self.space(&weak, strong).into_rows().1 {
            let mut r = r;
            r.resize(1 + n, Int::ZERO);
            base.push(keep.iter().map(|&c| r[c].clone()).collect());
        }
        let width = 1 + nc + np + 1;
        for r in self.hyperplane_rows(&[], &cols, np + 1) {
            base.push(r);
        }
        for q in 0..np {
            let mut r = vec![Int::ZERO; width];
            r[1 + nc + q] = Int::ONE;
            base.push(r);
        }
        let eqs: Vec<Row> = self.no_params(group, &cols, np + 1);
        let at = |c: usize| 1 + cols.iter().position(|&x| x == c).expect("column kept");
        // Orthogonal complements.
        let comps: Vec<(usize, Vec<Row>)> = group
            .iter()
            .map(|&s| {
                let h: Vec<Row> = rows[s].iter().map(|r| r[..l.iters[s]].to_vec()).collect();
                (s, null_space(&h, l.iters[s]))
            })
            .collect();
        let choices = comps
            .iter()
            .filter(|(s, _)| !rows[*s].is_empty())
            .map(|(_, v)| 2 * v.len())
            .max()
            .unwrap_or(1)
            .max(1);
        // Lexicographic order [1 | u | w | coefficients], each statement's iterator
        // coefficients from the innermost: among hyperplanes of equal distances the one that
        // follows the kernel's loop order (outer iterators first) is the smallest.
        let mut coeff_order: Vec<usize> = vec![];
        let mut sorted = group.to_vec();
        sorted.sort();
        for &s in &sorted {
            coeff_order.extend((0..l.iters[s]).rev().map(|k| at(l.iter(s, k))));
            coeff_order.extend((0..np).map(|q| at(l.param(s, q))));
            coeff_order.push(at(l.constant(s)));
        }
        let order: Vec<usize> = std::iter::once(0)
            .chain(1 + nc..width)
            .chain(coeff_order.iter().copied())
            .collect();
        let mut best: Option<Vec<Int>> = None;
        for choice in 0..choices {
            let mut rows_c = base.clone();
            for (s, comp) in &comps {
                let mut r = vec![Int::ZERO; width];
                r[0] = Int::from(-1);
                if rows[*s].is_empty() {
                    for k in 0..l.iters[*s] {
                        r[at(l.iter(*s, k))] = Int::ONE;
                    }
                } else {
                    if comp.is_empty() {
                        return None;
                    }
                    let c = choice % (2 * comp.len());
                    for (k, x) in comp[c / 2].iter().enumerate() {
                        r[at(l.iter(*s, k))] = if c % 2 == 0 { x.clone() } else { -x };
                    }
                }
                rows_c.push(r);
            }
            let mut b = Basic::universe(0, width - 1);
            for r in rows_c {
                b.add_ineq(order.iter().map(|&c| r[c].clone()).collect());
            }
            for r in &eqs {
                b.add_eq(order.iter().map(|&c| r[c].clone()).collect());
            }
            let Some(pt) = lexmin(&b, width - 1) else {
                continue;
            };
            if best.as_ref().is_none_or(|p| pt < *p) {
                best = Some(pt);
            }
        }
        best.map(|pt| {
            let mut h = vec![Int::ZERO; l.len];
            for (k, &c) in coeff_order.iter().enumerate() {
                h[cols[c - 1]] = pt[np + 1 + k].clone();
            }
            h
        })
    }
}

/// The lexicographic minimum of the first `n` columns of `b` (a conjunction without
/// parameters or locals), as [`Basic::lexmin_prefix`] gives it, found with one rational
/// dual simplex when it can be: the rational lexicographic minimum, when it exists and is
/// integral, is the integer one (an integer point no larger than every rational point), and
/// no rational point means no integer point. Otherwise (a fractional or unbounded
/// coordinate) the integer core's column-by-column minimum decides.
pub(super) fn lexmin(b: &Basic, n: usize) -> Option<Vec<Int>> {
    if b.n_param() == 0 && b.divs().is_empty() && b.n_dim() == n {
        let lp = Lp::new(n, b.eqs(), b.ineqs());
        match lp.sample() {
            Some(pt) if pt.iter().all(|v| v.is_integer()) => {
                return Some(pt.into_iter().map(|v| v.num).collect());
            }
            None if !lp.is_feasible() => return None,
            _ => {}
        }
    }
    b.lexmin_prefix(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The simplex shortcut gives what the integer core's column-by-column minimum gives, on
    /// random small systems: integral, fractional (`2x ≥ 1`), unbounded and empty ones.
    #[test]
    fn lexmin_agrees_with_the_integer_core() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % (2 * m as u64 + 1)) as i64 - m
        };
        let mut kinds = [0usize; 3];
        for _ in 0..400 {
            let n = 1 + next(1).unsigned_abs() as usize + next(1).unsigned_abs() as usize;
            let mut b = Basic::universe(0, n);
            for k in 0..n {
                // Most columns bounded below, some not.
                if next(3) != 0 {
                    let mut r = vec![Int::ZERO; n + 1];
                    r[0] = Int::from(next(4));
                    r[1 + k] = Int::from(1 + next(1).abs());
                    b.add_ineq(r);
                }
            }
            for _ in 0..1 + next(2).unsigned_abs() {
                let r: Vec<Int> = (0..=n).map(|_| Int::from(next(3))).collect();
                b.add_ineq(r);
            }
            if next(4) == 0 {
                let r: Vec<Int> = (0..=n).map(|_| Int::from(next(2))).collect();
                b.add_eq(r);
            }
            let want = b.lexmin_prefix(n);
            assert_eq!(lexmin(&b, n), want, "{b:?}");
            let lp = Lp::new(n, b.eqs(), b.ineqs());
            kinds[match lp.sample() {
                None => 0,
                Some(p) if p.iter().all(|v| v.is_integer()) => 1,
                Some(_) => 2,
            }] += 1;
        }
        // Each path was taken: no rational point or unbounded, integral, fractional.
        assert!(kinds.iter().all(|&k| k > 10), "{kinds:?}");
    }
}
