//! The second kind of schedule the search builds for an interleaving: *fuse with shifts*.
//!
//! The §4.1 schedule asks every band to be permutable so that it can be tiled; on a stencil
//! that means skewing the space loops by the time loop, which is slower than the kernel's own
//! loop order unless the band is tiled well. This kind keeps the kernel's loop order: outer
//! dimension first, each statement's hyperplane at level `k` is its own `k`-th loop plus a
//! constant (a shift), and each level only has to satisfy the dependences that the outer
//! levels have not strongly satisfied already (no permutability asked, so no skew is needed).
//! The shifts are those with the shortest dependence distances (the bound `(u, w)` of §4.1,
//! then the smallest constants). Where the statements of a group cannot share the level this
//! way, the group is cut into consecutive runs (the cuts that keep the most loops shared);
//! where it cannot be cut either, the rest of the group is scheduled as the §4.1 builder
//! does. Permutable runs of levels are recorded as bands, so that tiling and loop orders can
//! still be tried on them.

use super::schedule::{Band, Built};
use super::space::Legal;
use crate::presburger::row::Row;
use crate::presburger::{Basic, Int};

impl Legal {
    /// The fuse-with-shifts schedule for an interleaving: its classes run one after the
    /// other (in the interleaving's order, which may differ from the textual one), the
    /// statements of a class in textual order. `Err` says why none was found. (The search
    /// builds the schedules of all the interleavings it takes with a table of classes; the
    /// tests compare them with this.)
    #[cfg(test)]
    pub fn build_fused(&self, classes: &[Vec<usize>]) -> Result<Built, String> {
        let all: Vec<usize> = (0..self.edges.len()).collect();
        self.build_classes(classes, |c| {
            let mut b = Built::empty(self.layout.iters.len(), c.to_vec());
            self.fuse_group(c, &all, &mut b).map(|()| b)
        })
    }

    pub(super) fn fuse_group(
        &self,
        group: &[usize],
        active: &[usize],
        b: &mut Built,
    ) -> Result<(), String> {
        let depth = |s: usize| self.layout.iters[s];
        let mut active = self.internal(active, group);
        let mut band_edges = active.clone();
        let mut band_start = b.rows[group[0]].len();
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
            let lvl = b.rows[group[0]].len();
            if group.iter().all(|&s| b.rows[s].len() >= depth(s)) {
                self.textual_order_kept(&active)?;
                close(b, band_start, lvl);
                for w in group.windows(2) {
                    b.shared[w[0]] = lvl;
                }
                return Ok(());
            }
            if let Some(h) = self.kept_level(group, &active, &b.rows) {
                // The level joins the current band when it weakly satisfies every edge that
                // was active when the band began (then the band stays permutable).
                let permutable = band_edges
                    .iter()
                    .all(|&e| self.edges[e].satisfied(&self.layout, &h, 0));
                if !permutable {
                    close(b, band_start, lvl);
                    band_start = lvl;
                    band_edges = active.clone();
                }
                let l = &self.layout;
                for &s in group {
                    let first = l.offset[s];
                    let end = first + l.iters[s] + l.n_param() + 1;
                    b.rows[s].push(h[first..end].to_vec());
                }
                let strong = self.strongly_satisfied(&h, &active);
                active.retain(|e| !strong.contains(e));
                continue;
            }
            close(b, band_start, lvl);
            match self.best_cuts(group, &active, &b.rows) {
                Some(runs) if runs.len() > 1 => {
                    for w in runs.windows(2) {
                        b.shared[*w[0].last().expect("non-empty run")] = lvl;
                    }
                    for r in &runs {
                        self.fuse_group(r, &active, b)?;
                    }
                    return Ok(());
                }
                // The kernel's loops cannot be kept here: the §4.1 builder finishes the group.
                _ => return self.build_group(group, &active, b),
            }
        }
    }

    /// The statements of `group` cut into consecutive runs, each of which can share the next
    /// level with the kernel's loop order and shifts (or is one statement); no active edge
    /// may run backwards across a cut. Among the ways to cut, the one that keeps the most
    /// loops shared between neighbours (the sum, over neighbours left in one run, of the
    /// smaller depth). `None` when no cut is legal.
    fn best_cuts(
        &self,
        group: &[usize],
        active: &[usize],
        rows: &[Vec<Vec<Int>>],
    ) -> Option<Vec<Vec<usize>>> {
        let n = group.len();
        let depth = |s: usize| self.layout.iters[s];
        let cut_ok = |k: usize| {
            let (before, after) = group.split_at(k);
            !active.iter().any(|&e| {
                let e = &self.edges[e];
                after.contains(&e.source) && before.contains(&e.sink)
            })
        };
        let seg_ok = |a: usize, z: usize| {
            z - a == 1 || {
                let seg = &group[a..z];
                seg.iter().all(|&s| rows[s].len() < depth(s))
                    && self
                        .kept_level(seg, &self.internal(active, seg), rows)
                        .is_some()
            }
        };
        // best[k]: the best score of the first k statements and where its last run starts.
        let mut best: Vec<Option<(usize, usize)>> = vec![None; n + 1];
        best[0] = Some((0, 0));
        for z in 1..=n {
            for a in 0..z {
                let Some((score, _)) = best[a] else { continue };
                if (a > 0 && !cut_ok(a)) || !seg_ok(a, z) {
                    continue;
                }
                let inside: usize = (a..z - 1)
                    .map(|i| depth(group[i]).min(depth(group[i + 1])))
                    .sum();
                let s = score + inside;
                if best[z].is_none_or(|(x, _)| s > x) {
                    best[z] = Some((s, a));
                }
            }
        }
        best[n]?;
        let mut runs = vec![];
        let mut z = n;
        while z > 0 {
            let (_, a) = best[z].expect("reached");
            runs.push(group[a..z].to_vec());
            z = a;
        }
        runs.reverse();
        Some(runs)
    }

    /// The next level for the statements of `group` (each with loops left), keeping the
    /// kernel's loop order: each statement's next loop plus a non-negative constant, weakly
    /// satisfying the active edges among them (strongly those from a later statement to an
    /// earlier one that must be settled by then, as in the §4.1 builder), the constants with
    /// the shortest dependence distances and then the smallest. The whole-layout coefficient
    /// vector; `None` when the statements cannot share the level this way.
    pub fn kept_level(
        &self,
        group: &[usize],
        active: &[usize],
        rows: &[Vec<Vec<Int>>],
    ) -> Option<Vec<Int>> {
        let l = &self.layout;
        let depth = |s: usize| l.iters[s];
        if group.iter().any(|&s| rows[s].len() >= depth(s)) {
            return None;
        }
        let edges = self.internal(active, group);
        let strong: Vec<usize> = edges
            .iter()
            .copied()
            .filter(|&e| {
                let e = &self.edges[e];
                e.source > e.sink
                    && (rows[e.source].len() + 1 >= depth(e.source)
                        || rows[e.sink].len() + 1 >= depth(e.sink))
            })
            .collect();
        let weak: Vec<usize> = edges
            .iter()
            .copied()
            .filter(|e| !strong.contains(e))
            .collect();
        let np = l.n_param();
        let n = l.len + np + 1;
        let cols = self.columns(group);
        let nc = cols.len();
        let width = 1 + nc + np + 1;
        // Columns kept: [1 | the group's coefficients | u | w].
        let keep: Vec<usize> = std::iter::once(0)
            .chain(cols.iter().map(|c| 1 + c))
            .chain((l.len..n).map(|c| 1 + c))
            .collect();
        let at = |c: usize| 1 + cols.iter().position(|&x| x == c).expect("column kept");
        let mut ineqs: Vec<Row> = vec![];
        for r in self.bound_space(&edges).into_rows().1 {
            ineqs.push(keep.iter().map(|&c| r[c].clone()).collect());
        }
        for r in self.space(&weak, &strong).into_rows().1 {
            let mut r = r;
            r.resize(1 + n, Int::ZERO);
            ineqs.push(keep.iter().map(|&c| r[c].clone()).collect());
        }
        // u ≥ 0 (w is free).
        for q in 0..np {
            let mut r = vec![Int::ZERO; width];
            r[1 + nc + q] = Int::ONE;
            ineqs.push(r);
        }
        let mut eqs: Vec<Row> = vec![];
        let mut sorted = group.to_vec();
        sorted.sort();
        for &s in &sorted {
            let lvl = rows[s].len();
            for k in 0..l.iters[s] {
                let mut r = vec![Int::ZERO; width];
                r[at(l.iter(s, k))] = Int::ONE;
                if k == lvl {
                    r[0] = Int::from(-1);
                }
                eqs.push(r);
            }
            for q in 0..np {
                let mut r = vec![Int::ZERO; width];
                r[at(l.param(s, q))] = Int::ONE;
                eqs.push(r);
            }
            let mut r = vec![Int::ZERO; width];
            r[at(l.constant(s))] = Int::ONE;
            ineqs.push(r);
        }
        // Lexicographic order [1 | u | w | constants | the fixed coefficients].
        let constants: Vec<usize> = sorted.iter().map(|&s| at(l.constant(s))).collect();
        let order: Vec<usize> = std::iter::once(0)
            .chain(1 + nc..width)
            .chain(constants.iter().copied())
            .chain((1..1 + nc).filter(|c| !constants.contains(c)))
            .collect();
        let mut b = Basic::universe(0, width - 1);
        for r in &ineqs {
            b.add_ineq(order.iter().map(|&c| r[c].clone()).collect());
        }
        for r in &eqs {
            b.add_eq(order.iter().map(|&c| r[c].clone()).collect());
        }
        let pt = super::schedule::lexmin(&b, width - 1)?;
        let mut h = vec![Int::ZERO; l.len];
        for (k, &c) in order[1..].iter().enumerate() {
            if c <= nc {
                h[cols[c - 1]] = pt[k].clone();
            }
        }
        Some(h)
    }
}
