//! A static cost model for the search: which schedules to time first, and which loop orders
//! to try first. Timing is what decides; this only orders the work so that the timing
//! reaches the promising schedules early (docs/search.md, "How phase 1 chooses").
//!
//! The cost of a schedule is the memory traffic of its innermost loops, estimated from the
//! access matrices: for each statement, the direction its innermost loop walks through its
//! iteration space (the last column of the inverse of its hyperplanes), and for each of its
//! accesses the step that direction makes in the array. An access that stays put costs 0,
//! one that walks the last dimension by one element costs 1, anything else (a step along an
//! outer dimension, or a large step) costs [`STRIDED`], a cache line of doubles. Each
//! statement's sum is weighted by its estimated number of instances ([`CostModel::work`]: the
//! product of the extents of its loops, each parameter at the size the program is built
//! with, else [`NOMINAL`]).

use super::schedule::Built;
use super::script::{self, Variant};
use super::space::Legal;
use super::traffic;
pub use super::traffic::{Caches, Parts, Weights};
use crate::model::Scop;
use crate::presburger::budget;
use crate::presburger::int::gcd_all;
use crate::presburger::linalg;
use crate::presburger::row::{divide_exact, Row};
use crate::presburger::Int;

/// Spearman's rank correlation of two samples of the same length: the Pearson correlation
/// of their ranks, ties given their average rank. `None` when the lengths differ, there are
/// fewer than two values, or one sample is constant (its ranks do not vary).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let n = x.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mean) * (b - mean);
        sxx += (a - mean) * (a - mean);
        syy += (b - mean) * (b - mean);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The 1-based ranks of `v`, ties given the average of the ranks they span.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut k = 0;
    while k < order.len() {
        let mut e = k;
        while e + 1 < order.len() && v[order[e + 1]] == v[order[k]] {
            e += 1;
        }
        let rank = (k + e) as f64 / 2.0 + 1.0;
        for &i in &order[k..=e] {
            out[i] = rank;
        }
        k = e + 1;
    }
    out
}

/// The cost of an access whose innermost step is not contiguous: 8 doubles share a 64-byte
/// cache line, so a contiguous walk misses once every 8 steps, a strided one every step.
pub const STRIDED: f64 = 8.0;

/// The work budget of one test of whether an innermost loop carries a dependence.
const CARRIED_STEPS: u64 = 20_000;

/// The tiles of each wavefront a thread is taken to need to be kept busy
/// ([`CostModel::parallel_loop`]): assumed, not measured.
pub const WAVE_TILES: f64 = 4.0;

/// The value every parameter is given when loop extents are estimated.
pub const NOMINAL: i64 = 1000;

/// What the cost model knows about a kernel.
#[derive(Clone, Debug)]
pub struct CostModel {
    /// Per statement: the estimated number of instances.
    pub work: Vec<f64>,
    /// Per statement, per access: the subscripts' coefficients of the statement's
    /// iterators (one row per array dimension); `None` when the access is not affine.
    accesses: Vec<Vec<Option<Vec<Vec<i64>>>>>,
    /// Per statement and iteration dimension: `1`, or `−1` for a loop counting down.
    dirs: Vec<Vec<i64>>,
    /// Per statement: the extent of each of its loops (as in [`CostModel::work`]).
    extents: Vec<Vec<f64>>,
    /// Per statement, per access: the array it touches, numbered in the order the
    /// statements first touch them.
    arrays: Vec<Vec<usize>>,
    /// The capacities [`CostModel::estimate`] uses.
    caches: Caches,
    /// What each part of an estimate weighs.
    weights: Weights,
    /// The dependences, for whether an innermost loop carries one
    /// ([`CostModel::with_dependences`]); without them every loop whose accesses allow it
    /// is taken to vectorize.
    deps: Option<Legal>,
    /// The threads a band marked `parallel` shares its work among
    /// ([`CostModel::with_threads`]).
    threads: u32,
}

impl CostModel {
    /// The model of a kernel; `dirs` as in [`super::Layout::dirs`]. Loop extents are
    /// computed with the integer core under `budget` steps per statement; past it (or where
    /// a loop is unbounded) an extent is taken to be [`NOMINAL`]. They are the sizes the
    /// program is built with: a parameter takes the integer value of the `-D NAME=VALUE`
    /// macro in `defines` named like it up to case (`ni` from `NI=1000`, as PolyBench names
    /// them), else [`NOMINAL`].
    pub fn new(scop: &Scop, dirs: &[Vec<i64>], budget_steps: u64, defines: &[String]) -> CostModel {
        let params = &scop.params;
        let values: Vec<i64> = params.iter().map(|p| size_of(p, defines)).collect();
        let ext: Vec<Vec<f64>> = scop
            .statements
            .iter()
            .map(|st| {
                budget::with_budget(budget_steps, || extents(st, params, &values))
                    .unwrap_or_else(|_| vec![NOMINAL as f64; st.iterators.len()])
            })
            .collect();
        let work = ext.iter().map(|e| e.iter().product::<f64>()).collect();
        let mut names: Vec<&str> = vec![];
        let arrays = (scop.statements.iter())
            .map(|st| {
                (st.accesses.iter())
                    .map(|a| match names.iter().position(|x| *x == a.array) {
                        Some(k) => k,
                        None => {
                            names.push(&a.array);
                            names.len() - 1
                        }
                    })
                    .collect()
            })
            .collect();
        let accesses = scop
            .statements
            .iter()
            .map(|st| {
                st.accesses
                    .iter()
                    .map(|a| {
                        if !a.exact {
                            return None;
                        }
                        let rows = super::space::affine_rows(&a.relation, params)?;
                        let n = st.iterators.len();
                        rows.iter()
                            .map(|r| r[..n].iter().map(|x| x.to_i64()).collect())
                            .collect::<Option<Vec<Vec<i64>>>>()
                    })
                    .collect()
            })
            .collect();
        CostModel {
            work,
            accesses,
            dirs: dirs.to_vec(),
            extents: ext,
            arrays,
            caches: Caches::default(),
            weights: Weights::default(),
            deps: None,
            threads: 1,
        }
    }

    /// The same model weighing the parts of its estimates by `weights`.
    pub fn with_weights(mut self, weights: Weights) -> CostModel {
        self.weights = weights;
        self
    }

    /// The estimate of counted parts, weighed.
    pub fn weigh(&self, parts: &Parts) -> f64 {
        parts.weighed(&self.weights)
    }

    /// The same model knowing the kernel's dependences: an innermost loop that carries one
    /// at a distance shorter than a vector does not vectorize ([`CostModel::estimate`]).
    pub fn with_dependences(mut self, legal: &Legal) -> CostModel {
        self.deps = Some(legal.clone());
        self
    }

    /// The same model for `threads` threads: a band marked `parallel` shares its outermost
    /// loop's iterations among them (at most one each), with the iterations, the starts and
    /// the lines each thread's own caches miss; the lines from memory are not shared (one
    /// memory serves every thread).
    pub fn with_threads(mut self, threads: u32) -> CostModel {
        self.threads = threads.max(1);
        self
    }

    /// The threads the estimate is for.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// The same model with the machine's cache capacities.
    pub fn with_caches(mut self, caches: Caches) -> CostModel {
        self.caches = caches;
        self
    }

    /// The estimate of a candidate ([`super::traffic`]): arithmetic and the lines each cache
    /// level misses, with the variant's band orders and tiles (marks do not count).
    pub fn estimate(&self, b: &Built, v: &Variant) -> f64 {
        self.parts(b, v).weighed(&self.weights)
    }

    /// What [`CostModel::estimate`] counts, before weighing.
    pub fn parts(&self, b: &Built, v: &Variant) -> Parts {
        let rows = script::ordered_rows(b, v);
        let carried = self.carried_inside(b, v, &rows);
        self.parts_of(&rows, b, v, &carried)
    }

    /// Per statement, whether its innermost loop carries a dependence at a distance shorter
    /// than a vector's lanes (it does not vectorize): what [`CostModel::parts`] asks, which
    /// depends on the variant's band orders and splits only, not on its tiles.
    pub fn carried(&self, b: &Built, v: &Variant) -> Vec<bool> {
        self.carried_inside(b, v, &script::ordered_rows(b, v))
    }

    /// [`CostModel::parts`] with [`CostModel::carried`]'s answer given.
    pub fn parts_given(&self, b: &Built, v: &Variant, carried: &[bool]) -> Parts {
        self.parts_of(&script::ordered_rows(b, v), b, v, carried)
    }

    /// [`CostModel::parts_given`] with the variant's rows ([`script::ordered_rows`]) given.
    fn parts_of(&self, rows: &[Vec<Vec<Int>>], b: &Built, v: &Variant, carried: &[bool]) -> Parts {
        let order = execution_order(b, rows.len());
        let placed: Vec<traffic::Placed> = (order.iter())
            .map(|&s| {
                let n = self.dirs[s].len();
                // The loops' directions, or the iterators in order where the rows do not
                // determine them.
                let dirs = loop_directions(&rows[s], n).unwrap_or_else(|| {
                    (0..n)
                        .map(|k| (0..n).map(|c| i64::from(c == k)).collect())
                        .collect()
                });
                let loops = traffic::loops(&dirs, &self.extents[s], &tiled(b, v, s));
                let parallel = self.parallel_loop(b, v, s, &loops);
                traffic::Placed {
                    accesses: self.distinct(s, n),
                    loops,
                    parallel,
                }
            })
            .collect();
        let shared: Vec<usize> = (0..order.len())
            .map(|q| match order.get(q + 1) {
                Some(&t) => shared_loops(b, v, order[q], t),
                None => 0,
            })
            .collect();
        let free: Vec<bool> = order.iter().map(|&s| !carried[s]).collect();
        traffic::program(&placed, &shared, &self.caches, &free)
    }

    /// Statement `s`'s loop marked `parallel` in the variant (a band's outermost loop, its
    /// tile loop where the band is tiled), as its position among `loops`, and the threads
    /// that share it: `None` on one thread.
    fn parallel_loop(
        &self,
        b: &Built,
        v: &Variant,
        s: usize,
        loops: &[traffic::Loop],
    ) -> Option<(usize, f64)> {
        if self.threads < 2 {
            return None;
        }
        // A band's outermost loop, or the second of its tile loops where its tiles run as
        // wavefronts (the wavefronts' order of the tiles is not modelled: the tiles are
        // estimated in the band's order).
        let (j, band) = (b.bands.iter().enumerate())
            .find(|(j, band)| (v.marked(b, *j) || v.waves(b, *j)) && band.stmts.contains(&s))?;
        let threads = f64::from(self.threads);
        if v.marked(b, j) {
            let at = walked(b, v, s, band.start);
            return Some((at, loops.get(at)?.trip.floor().clamp(1.0, threads)));
        }
        // Wavefronts: `t1` tiles along the first tile loop and `t2` along the second make
        // `t1 + t2 - 1` wavefronts of `t1 * t2 / (t1 + t2 - 1)` tiles on average, each
        // ending where the threads meet. Tiles of a skewed band are of unequal sizes, so a
        // thread is taken to be kept busy only with `WAVE_TILES` tiles of each wavefront:
        // fewer share the work among fewer threads (at MEDIUM, wavefronts of one to three
        // tiles ran slower on two threads than the sequential schedule, docs/results.md).
        let at = walked(b, v, s, band.start) + 1;
        let (t1, t2) = (loops.get(at - 1)?.trip, loops.get(at)?.trip);
        let per_wave = t1 * t2 / (t1 + t2 - 1.0).max(1.0);
        Some((at, (per_wave / WAVE_TILES).floor().clamp(1.0, threads)))
    }

    /// Whether band `j`'s outermost loop, in the variant's order, carries no dependence
    /// between the band's statements, the loops outside it at equal times: its iterations
    /// may run on different threads. A test that runs past its small budget counts as
    /// carrying one. The checker decides; this only proposes.
    pub fn parallel_band(&self, b: &Built, v: &Variant, j: usize) -> bool {
        let Some(legal) = &self.deps else {
            return false;
        };
        let l = &legal.layout;
        let band = &b.bands[j];
        let rows = script::ordered_rows(b, v);
        let d = band.start + 1;
        let width = |u: usize| l.iters[u] + l.n_param() + 1;
        (legal.edges.iter())
            .filter(|e| band.stmts.contains(&e.source) && band.stmts.contains(&e.sink))
            .all(|e| {
                let (s, t) = (e.source, e.sink);
                let fits = [s, t]
                    .iter()
                    .all(|&u| rows[u].len() >= d && rows[u].iter().all(|r| r.len() == width(u)));
                if !fits {
                    return false;
                }
                let levels = edge_levels(l, rows.as_slice(), (s, t), d);
                budget::with_budget(CARRIED_STEPS, || e.carries(l, &levels, i64::MAX / 4))
                    == Ok(false)
            })
    }

    /// What the estimate of the kernel as it is counts: each statement's loops in their own
    /// order, neighbours sharing the loops they share in the kernel (`names.positions`),
    /// nothing tiled.
    pub fn own_parts(&self, names: &script::Names) -> Parts {
        let np = names.params.len();
        let n = self.dirs.len();
        let rows: Vec<Vec<Vec<Int>>> = (0..n)
            .map(|s| {
                let d = self.dirs[s].len();
                (0..d)
                    .map(|k| {
                        (0..d + np + 1)
                            .map(|c| Int::from(i64::from(c == k)))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let shared = (0..n)
            .map(|s| {
                if s + 1 < n {
                    script::shared(names, s, s + 1)
                } else {
                    0
                }
            })
            .collect();
        let own = Built {
            rows,
            shared,
            bands: vec![],
            order: (0..n).collect(),
        };
        self.parts(&own, &Variant::plain(&own))
    }

    /// Per statement, whether its innermost loop carries a dependence (to itself, or to a
    /// statement that shares that loop) at a distance shorter than a vector's lanes, so that
    /// it cannot run a vector's worth of iterations at once: a recurrence, a sweep fused
    /// with the next one at a short skew, or a floating-point reduction (the compiler may not
    /// reassociate its sum). Tiles do not change it: instances at equal times in every outer
    /// loop are in the same tiles there; a band split at its innermost loop (`v.split`)
    /// gives each statement a loop of its own there. A test that runs past its small
    /// budget counts as not carried.
    fn carried_inside(&self, b: &Built, v: &Variant, rows: &[Vec<Vec<Int>>]) -> Vec<bool> {
        let mut out = vec![false; rows.len()];
        let Some(legal) = &self.deps else {
            return out;
        };
        let l = &legal.layout;
        let within = (self.caches.lanes as i64 - 1).max(1);
        let pos = |s: usize| b.order.iter().position(|&x| x == s);
        // The loops statements `s` and `t` share: those of `s` itself, or the fewest shared
        // by neighbours between them in execution order.
        let shared = |s: usize, t: usize| -> usize {
            if s == t {
                return rows[s].len();
            }
            match (pos(s), pos(t)) {
                (Some(a), Some(z)) => (a.min(z)..a.max(z))
                    .map(|q| b.shared[b.order[q]])
                    .min()
                    .unwrap_or(0),
                _ => 0,
            }
        };
        for e in &legal.edges {
            let (s, t) = (e.source, e.sink);
            let d = rows[s].len();
            let split = (b.bands.iter().zip(&v.split)).any(|(band, &split)| {
                split && s != t && band.start + band.len == d && band.stmts.contains(&s)
            });
            // Rows over `[iterators | parameters | constant]`, as the layout has them.
            let width = |u: usize| l.iters[u] + l.n_param() + 1;
            let fits = [s, t]
                .iter()
                .all(|&u| rows[u].iter().all(|r| r.len() == width(u)));
            let done = out[s] && out[t];
            if d == 0 || rows[t].len() != d || done || shared(s, t) < d || split || !fits {
                continue;
            }
            let levels = edge_levels(l, rows, (s, t), d);
            if budget::with_budget(CARRIED_STEPS, || e.carries(l, &levels, within)) == Ok(true) {
                out[s] = true;
                out[t] = true;
            }
        }
        out
    }

    /// Statement `s`'s accesses, one per array and subscripts up to constants; an access
    /// that is not affine as one that moves in every loop and never contiguously.
    fn distinct(&self, s: usize, n: usize) -> Vec<(usize, Vec<Vec<i64>>)> {
        let mut seen: Vec<(usize, Vec<Vec<i64>>)> = vec![];
        for (&a, sub) in self.arrays[s].iter().zip(&self.accesses[s]) {
            let sub = sub.clone().unwrap_or_else(|| vec![vec![1; n]; 2]);
            if !seen.iter().any(|(x, y)| *x == a && *y == sub) {
                seen.push((a, sub));
            }
        }
        seen
    }

    /// The cost of one statement whose hyperplanes (outermost first, over its iteration
    /// dimensions, parameters and constant) are `rows`: its work times the sum of its
    /// accesses' costs along the innermost loop. When the rows do not determine that
    /// direction (fewer rows than loops, not independent), every access costs 1.
    pub fn statement_cost(&self, s: usize, rows: &[Vec<Int>]) -> f64 {
        let per_access = match innermost_direction(rows, self.dirs[s].len()) {
            None => self.accesses[s].len() as f64,
            Some(d) => {
                // Iteration dimension k is dirs[k]·iterator k.
                let step: Vec<i64> = d
                    .iter()
                    .zip(&self.dirs[s])
                    .map(|(x, dir)| x * dir)
                    .collect();
                self.accesses[s]
                    .iter()
                    .map(|a| match a {
                        None => 1.0,
                        Some(sub) => access_cost(sub, &step),
                    })
                    .sum()
            }
        };
        self.work[s] * per_access
    }

    /// The cost of a schedule with a variant's band orders (tiles and marks do not count).
    pub fn cost(&self, b: &Built, v: &Variant) -> f64 {
        script::ordered_rows(b, v)
            .iter()
            .enumerate()
            .map(|(s, r)| self.statement_cost(s, r))
            .sum()
    }

    /// The orders of band `j` (its own order first, then [`band_orders`]),
    /// each with the cost of the statements whose innermost loop the band holds, the other
    /// bands as in `v`; sorted by that cost, ties in list order. A band that does not hold
    /// any statement's innermost loop does not change the cost (every order costs the same).
    pub fn band_orders(&self, b: &Built, v: &Variant, j: usize) -> Vec<(Vec<usize>, f64)> {
        let band = &b.bands[j];
        let mut orders = vec![(0..band.len).collect::<Vec<usize>>()];
        orders.extend(band_orders(band.len));
        let mut out: Vec<(Vec<usize>, f64)> = orders
            .into_iter()
            .map(|o| {
                let mut w = v.clone();
                w.order[j] = o.clone();
                let rows = script::ordered_rows(b, &w);
                let c = band
                    .stmts
                    .iter()
                    .filter(|&&s| b.rows[s].len() == band.start + band.len)
                    .map(|&s| self.statement_cost(s, &rows[s]))
                    .sum();
                (o, c)
            })
            .collect();
        out.sort_by(|x, y| x.1.total_cmp(&y.1));
        out
    }

    /// The schedule as built with each band in its cheapest order (the schedule's own order
    /// when no other is cheaper). Bands are independent here: a band that does not hold a
    /// statement's innermost loop does not change that loop's direction.
    pub fn best_orders(&self, b: &Built) -> Variant {
        let mut v = Variant::plain(b);
        for j in 0..b.bands.len() {
            let best = self.band_orders(b, &v, j).swap_remove(0).0;
            v.order[j] = best;
        }
        v
    }

    /// The work of a band: the instances of its statements.
    pub fn band_work(&self, b: &Built, j: usize) -> f64 {
        b.bands[j].stmts.iter().map(|&s| self.work[s]).sum()
    }
}

/// The integer value the `-D` macros give parameter `p` (the last `NAME=VALUE` whose name
/// is `p` up to case), if any.
pub fn macro_value(p: &str, defines: &[String]) -> Option<i64> {
    (defines.iter().rev())
        .filter_map(|d| d.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case(p))
        .and_then(|(_, v)| v.trim().parse::<i64>().ok())
}

/// The value of parameter `p` by the `-D` macros, else [`NOMINAL`]; below 1 counts as 1.
fn size_of(p: &str, defines: &[String]) -> i64 {
    macro_value(p, defines).map_or(NOMINAL, |v| v.max(1))
}

/// The extent of each loop of a statement, each parameter at its value: the number of
/// values its iterator takes with the outer iterators fixed, at the first and at the last
/// outer values, whichever is larger (a triangle counts as its longest row; a loop of one
/// iteration inside another counts once); at least 1.
fn extents(st: &crate::model::Statement, params: &[String], values: &[i64]) -> Vec<f64> {
    let mut dom = st.domain.clone();
    for (p, &v) in params.iter().zip(values) {
        if let Some(d) = dom.fix_param(p, &Int::from(v)) {
            dom = d;
        }
    }
    let n = st.iterators.len();
    let np = dom.space().params.len();
    let range = |set: &crate::presburger::Set, k: usize| -> Option<i64> {
        let lo = set.lexmin_point().ok()??;
        let hi = set.lexmax_point().ok()??;
        Some(hi[k].to_i64()? - lo[k].to_i64()? + 1)
    };
    (0..n)
        .map(|k| {
            let upto = dom.project_out(k + 1, n - k - 1);
            let (Ok(Some(lo)), Ok(Some(hi))) = (upto.lexmin_point(), upto.lexmax_point()) else {
                return NOMINAL as f64;
            };
            let at = |outer: &[Int]| -> Option<i64> {
                let eqs: Vec<Vec<Int>> = outer
                    .iter()
                    .enumerate()
                    .map(|(d, v)| {
                        let mut r = vec![Int::ZERO; 1 + np + k + 1];
                        r[0] = -v;
                        r[1 + np + d] = Int::ONE;
                        r
                    })
                    .collect();
                range(&upto.add_constraints(&eqs, &[]), k)
            };
            match (at(&lo[..k]), at(&hi[..k])) {
                (Some(a), Some(b)) => a.max(b).max(1) as f64,
                _ => NOMINAL as f64,
            }
        })
        .collect()
}

/// The outermost `depth` hyperplanes of statements `s` and `t` (the source and sink of a
/// dependence), each level one coefficient vector of the layout `l`, as
/// [`crate::search::space::Edge::carries`] takes them.
fn edge_levels(
    l: &super::space::Layout,
    rows: &[Vec<Vec<Int>>],
    (s, t): (usize, usize),
    depth: usize,
) -> Vec<Vec<Int>> {
    (0..depth)
        .map(|k| {
            let mut c = vec![Int::ZERO; l.len];
            for u in [s, t] {
                for (x, v) in rows[u][k].iter().enumerate() {
                    c[l.offset[u] + x] = v.clone();
                }
            }
            c
        })
        .collect()
}

/// The statements in execution order: `b.order`, then any it does not name.
fn execution_order(b: &Built, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = b.order.iter().copied().filter(|&s| s < n).collect();
    order.extend((0..n).filter(|s| !b.order.contains(s)));
    order
}

/// The tiled bands of statement `s` in a variant: the rows each covers, and its size.
fn tiled(b: &Built, v: &Variant, s: usize) -> Vec<(std::ops::Range<usize>, u32)> {
    (b.bands.iter().zip(&v.tile))
        .filter(|(band, &t)| t >= 2 && band.stmts.contains(&s))
        .map(|(band, &t)| (band.start..band.start + band.len, t))
        .collect()
}

/// The loops statement `s` shares with `t`, the next in execution order, counted as the
/// estimate walks them ([`traffic::loops`]): a tiled band's tile loops come before its point
/// loops, and a band split at its innermost loop gives each statement its own there.
fn shared_loops(b: &Built, v: &Variant, s: usize, t: usize) -> usize {
    let mut rows = b.shared[s];
    for (band, _) in (b.bands.iter().zip(&v.split)).filter(|(_, &split)| split) {
        let end = band.start + band.len;
        if band.stmts.contains(&s) && band.stmts.contains(&t) && rows >= end {
            rows = end - 1;
        }
    }
    walked(b, v, s, rows).min(walked(b, v, t, rows))
}

/// The number of loops statement `s` walks ([`traffic::loops`]) for its outermost `rows`
/// hyperplanes: a tiled band they enter adds its tile loops.
fn walked(b: &Built, v: &Variant, s: usize, rows: usize) -> usize {
    rows + (tiled(b, v, s).iter())
        .filter(|(r, _)| r.start < rows)
        .map(|(r, _)| r.len())
        .sum::<usize>()
}

/// The direction (over the iteration dimensions) in which the innermost of `rows` moves
/// when the outer ones stay put: the last column of the inverse of the square matrix of the
/// rows' first `n` entries, scaled to integers (`det · H⁻¹ e_last`, divided by the gcd, sign
/// of the determinant kept). `None` unless there are exactly `n` independent rows.
pub fn innermost_direction(rows: &[Vec<Int>], n: usize) -> Option<Vec<i64>> {
    direction(rows, n, n.checked_sub(1)?)
}

/// The direction of each of the `n` loops of `rows` (outermost first), as
/// [`innermost_direction`] gives the innermost's.
pub fn loop_directions(rows: &[Vec<Int>], n: usize) -> Option<Vec<Vec<i64>>> {
    (0..n).map(|l| direction(rows, n, l)).collect()
}

/// The direction in which loop `l` of `rows` moves when the others stay put: column `l` of
/// the inverse, scaled to integers.
fn direction(rows: &[Vec<Int>], n: usize, l: usize) -> Option<Vec<i64>> {
    if rows.len() != n || n == 0 {
        return None;
    }
    // Entries beyond a machine word: no direction (as for a singular matrix).
    if rows
        .iter()
        .any(|r| r[..n].iter().any(|x| x.to_i64().is_none()))
    {
        return None;
    }
    let h: Vec<Row> = rows.iter().map(|r| r[..n].to_vec()).collect();
    let d = linalg::det(&h);
    if d.is_zero() {
        return None;
    }
    let sign = Int::from(i64::from(d.signum()));
    // Cramer: component k is det(H with column k replaced by e_last) / det(H).
    let mut x: Vec<Int> = (0..n)
        .map(|k| {
            let m: Vec<Row> = (0..n)
                .map(|i| {
                    (0..n)
                        .map(|c| {
                            if c == k {
                                Int::from(i64::from(i == l))
                            } else {
                                h[i][c].clone()
                            }
                        })
                        .collect()
                })
                .collect();
            &linalg::det(&m) * &sign
        })
        .collect();
    let g = gcd_all(&x);
    if g > Int::ONE {
        divide_exact(&mut x, &g);
    }
    x.iter().map(Int::to_i64).collect()
}

/// The cost of one access (subscript rows over the iterators) when the iterators move by
/// `step`: 0 when it stays put, the step when it walks only the last dimension (at most
/// [`STRIDED`]), [`STRIDED`] otherwise.
fn access_cost(sub: &[Vec<i64>], step: &[i64]) -> f64 {
    let delta: Vec<i64> = sub
        .iter()
        .map(|r| r.iter().zip(step).map(|(a, b)| a * b).sum())
        .collect();
    match delta.split_last() {
        None => 0.0,
        Some((&last, outer)) if outer.iter().all(|&x| x == 0) => {
            (last.unsigned_abs() as f64).min(STRIDED)
        }
        Some(_) => STRIDED,
    }
}

/// A key for the loop structure a schedule generates with a variant's band orders: its
/// nests (maximal runs of statements that share a loop, in execution order), each as its
/// statements with their ordered hyperplanes and fusion depths, the nests sorted. Two
/// schedules with the same key differ only in the order of their outermost nests.
pub fn nest_key(b: &Built, v: &Variant) -> String {
    let rows = script::ordered_rows(b, v);
    let mut nests: Vec<String> = vec![];
    let mut cur = String::new();
    for (k, &s) in b.order.iter().enumerate() {
        cur.push_str(&format!("{s}:{:?}:{};", rows[s], b.shared[s]));
        let last = k + 1 == b.order.len();
        if last || b.shared[s] == 0 {
            nests.push(std::mem::take(&mut cur));
        }
    }
    nests.sort();
    nests.join("|")
}

/// Other orders of a band's loops, the most promising first: the two innermost swapped
/// (`i, k, j` from `i, j, k`: the reduction loop in the middle), then every other
/// permutation in lexicographic order for bands of up to four loops; for longer bands the
/// innermost moved outermost and the outermost moved innermost.
pub fn band_orders(len: usize) -> Vec<Vec<usize>> {
    let id: Vec<usize> = (0..len).collect();
    let mut out: Vec<Vec<usize>> = vec![];
    if len >= 2 {
        let mut s = id.clone();
        s.swap(len - 2, len - 1);
        out.push(s);
        if len <= 4 {
            let mut p = id.clone();
            while script::next_permutation(&mut p) {
                out.push(p.clone());
            }
        } else {
            let mut r = vec![len - 1];
            r.extend(0..len - 1);
            out.push(r);
            let mut l: Vec<usize> = (1..len).collect();
            l.push(0);
            out.push(l);
        }
    }
    let mut seen = vec![id];
    out.retain(|o| {
        if seen.contains(o) {
            false
        } else {
            seen.push(o.clone());
            true
        }
    });
    out
}

/// The parameters that only say how often loops run, not what they touch: no subscript of
/// any statement uses the parameter, nor any iterator whose bounds it reaches, directly or
/// through other iterators' bounds (jacobi-2d's `tsteps`, not its `n`), and it bounds some
/// loop. Scaling them scales the work and keeps every footprint, and with it the caches'
/// part in the times. A statement with an access that is not affine, or a domain with
/// locals, keeps every parameter out.
pub fn time_params(scop: &Scop) -> Vec<String> {
    let params = &scop.params;
    (0..params.len())
        .filter(|&q| {
            let mut bounds = false;
            for st in &scop.statements {
                match reach(st, params, q) {
                    None => return false,
                    Some(b) => bounds |= b,
                }
            }
            bounds
        })
        .map(|q| params[q].clone())
        .collect()
}

/// For [`time_params`]: `None` when parameter `q` (of `params`) or an iterator whose bounds
/// it reaches is used by a subscript of statement `st` (or `st` cannot be read that way);
/// else whether it bounds some loop of `st`.
fn reach(st: &crate::model::Statement, params: &[String], q: usize) -> Option<bool> {
    let n = st.iterators.len();
    let mut used = vec![false; n];
    for a in &st.accesses {
        let rows = a
            .exact
            .then(|| super::space::affine_rows(&a.relation, params))
            .flatten()?;
        for r in &rows {
            if !r[n + q].is_zero() {
                return None;
            }
            for (k, u) in used.iter_mut().enumerate() {
                *u |= !r[k].is_zero();
            }
        }
    }
    let dom = &st.domain;
    let Some(p) = dom.space().params.iter().position(|x| *x == params[q]) else {
        return Some(false);
    };
    let np = dom.space().params.len();
    // Columns `[1 | params | iterators]` reached from `p` through rows that share one.
    let mut reached = vec![false; 1 + np + n];
    reached[1 + p] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for part in dom.parts() {
            if part.n_div() > 0 || part.n_dim() != n {
                return None;
            }
            for row in part.eqs().iter().chain(part.ineqs()) {
                let touches = (1..row.len()).any(|c| reached[c] && !row[c].is_zero());
                for (c, v) in row.iter().enumerate().skip(1) {
                    if touches && !v.is_zero() && !reached[c] {
                        reached[c] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    let loops = &reached[1 + np..];
    if loops.iter().zip(&used).any(|(r, u)| *r && *u) {
        return None;
    }
    Some(loops.contains(&true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(rows: &[&[i64]]) -> Vec<Vec<Int>> {
        rows.iter()
            .map(|r| r.iter().map(|&x| Int::from(x)).collect())
            .collect()
    }

    #[test]
    fn innermost_directions() {
        // (i, j, k): the innermost loop walks k.
        let id = ints(&[&[1, 0, 0, 0], &[0, 1, 0, 0], &[0, 0, 1, 0]]);
        assert_eq!(innermost_direction(&id, 3), Some(vec![0, 0, 1]));
        // (k, i, j): it walks j.
        let p = ints(&[&[0, 0, 1, 0], &[1, 0, 0, 0], &[0, 1, 0, 0]]);
        assert_eq!(innermost_direction(&p, 3), Some(vec![0, 1, 0]));
        // (t, t + i): holding t, the inner loop walks i.
        let s = ints(&[&[1, 0], &[1, 1]]);
        assert_eq!(innermost_direction(&s, 2), Some(vec![0, 1]));
        // (t + i, t): holding t + i, the inner loop moves t up and i down.
        let s = ints(&[&[1, 1], &[1, 0]]);
        assert_eq!(innermost_direction(&s, 2), Some(vec![1, -1]));
        // Too few rows, dependent rows.
        assert_eq!(innermost_direction(&ints(&[&[1, 0]]), 2), None);
        assert_eq!(innermost_direction(&ints(&[&[1, 1], &[2, 2]]), 2), None);
    }

    #[test]
    fn access_costs() {
        // A[i][j] walked along j: contiguous; along i: strided; B[j] along i: stays put.
        let a = vec![vec![1, 0], vec![0, 1]];
        assert_eq!(access_cost(&a, &[0, 1]), 1.0);
        assert_eq!(access_cost(&a, &[1, 0]), STRIDED);
        assert_eq!(access_cost(&[vec![0, 1]], &[1, 0]), 0.0);
        // A scalar, a step of 2 along the last dimension.
        assert_eq!(access_cost(&[], &[1]), 0.0);
        assert_eq!(access_cost(&[vec![2]], &[1]), 2.0);
    }
}
