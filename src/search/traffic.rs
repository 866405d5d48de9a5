//! The estimate of a candidate: the lines each cache level misses, from the footprints of
//! the loops as the schedule, its band orders and its tiles generate them, plus the
//! arithmetic (a vector's worth per iteration where the innermost loop vectorizes), each
//! part counted ([`Parts`]) and then weighed ([`Weights`]). Whether a dependence stops the
//! vectors is the caller's to say ([`statement`]'s `free`).
//!
//! For each statement the loops are listed outermost first, each with the direction it moves
//! the iteration (a column of the inverse of the statement's hyperplanes) and its trip count
//! (from the statement's loop extents, each parameter at the size the program is built with,
//! else [`super::cost::NOMINAL`]); a tiled band becomes its tile loops (trip `⌈extent / T⌉`)
//! and then its point loops (the rest of the extent). An access touches, over the innermost
//! loops from some loop on, the product of the trips of the loops it varies in, elements
//! that are a cache line's worth apart except along its innermost contiguous loop. A cache of `C` lines keeps everything the statement touches
//! inside the outermost loop whose footprint fits: each access misses its footprint there,
//! once per iteration of the loops outside (the classic estimate of Wolf and Lam's and
//! Ferrante, Sarkar and Thrash's models). Statements that share a loop share the cache inside
//! it ([`shared_misses`]): the accesses of fused statements to one array that move alike along
//! the loops outside are one footprint. Every reference to the same array with the same
//! subscripts up to constants is one, and recurrences sharing their innermost loop overlap
//! ([`program`]).

use crate::presburger::linalg;
use crate::presburger::row::Row;
use crate::presburger::Int;

/// Doubles per 64-byte cache line.
const LINE: f64 = 8.0;

/// What an estimate counts, before weighing: iterations (a vector's worth of iterations
/// as one where the innermost loop vectorizes), starts of the innermost loop, the lines
/// brought into L1 from L2, into L2 from L3 and into L3 from memory, and the times the
/// threads meet at a loop run on them.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Parts {
    pub iterations: f64,
    pub starts: f64,
    pub from_l2: f64,
    pub from_l3: f64,
    pub from_memory: f64,
    /// Entries into a loop run on the threads: each divides its iterations among them and
    /// waits for all at its end.
    pub syncs: f64,
}

impl std::ops::Add for Parts {
    type Output = Parts;
    fn add(self, o: Parts) -> Parts {
        Parts {
            iterations: self.iterations + o.iterations,
            starts: self.starts + o.starts,
            from_l2: self.from_l2 + o.from_l2,
            from_l3: self.from_l3 + o.from_l3,
            from_memory: self.from_memory + o.from_memory,
            syncs: self.syncs + o.syncs,
        }
    }
}

impl Parts {
    /// The estimate: each part by its weight.
    pub fn weighed(&self, w: &Weights) -> f64 {
        w.iteration * self.iterations
            + w.start * self.starts
            + w.from_l2 * self.from_l2
            + w.from_l3 * self.from_l3
            + w.from_memory * self.from_memory
            + w.sync * self.syncs
    }
}

/// What each part of an estimate costs, in rough cycles: an iteration (a vector's worth
/// where the innermost loop vectorizes), the start and end of the innermost loop (so that
/// small tiles cost what they cost), a line from L2, from L3 and from memory. The ranking,
/// not the times, is what the search uses.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Weights {
    pub iteration: f64,
    pub start: f64,
    pub from_l2: f64,
    pub from_l3: f64,
    pub from_memory: f64,
    /// Threads meeting at a loop run on them: taken to be [`SYNC_NS`], not measured.
    pub sync: f64,
}

/// What one entry into a loop run on the threads is taken to cost, in nanoseconds: the
/// fork or barrier of a worksharing loop on a few to a few tens of cores is of the order of
/// a microsecond.
pub const SYNC_NS: f64 = 1000.0;

impl Weights {
    /// The weights measured on this machine ([`crate::machine::costs`]), in iterations of a
    /// vectorized loop of `lanes` elements over data in L1: an iteration weighs 1.
    pub fn measured(c: &crate::machine::costs::Costs, lanes: f64) -> Weights {
        let iteration = c.element_ns * lanes.max(1.0);
        let [l2, l3, memory] = c.line_steps();
        Weights {
            iteration: 1.0,
            start: c.start_ns / iteration,
            from_l2: l2 / iteration,
            from_l3: l3 / iteration,
            from_memory: memory / iteration,
            sync: SYNC_NS / iteration,
        }
    }
}

impl Default for Weights {
    /// Fixed rough values: 1, 8, 2, 4 and 10 cycles, and 4,000 cycles (a microsecond) for
    /// the threads to meet.
    fn default() -> Weights {
        Weights {
            iteration: 1.0,
            start: 8.0,
            from_l2: 2.0,
            from_l3: 4.0,
            from_memory: 10.0,
            sync: 4000.0,
        }
    }
}

/// The capacities the estimate uses, in cache lines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Caches {
    pub l1: f64,
    pub l2: f64,
    pub l3: f64,
    /// Doubles per vector register.
    pub lanes: f64,
}

impl Default for Caches {
    /// 32 KiB of L1, 1 MiB of L2, 8 MiB of L3, 4 doubles per vector: where the machine
    /// cannot be asked.
    fn default() -> Caches {
        Caches {
            l1: 32.0 * 1024.0 / 64.0,
            l2: 1024.0 * 1024.0 / 64.0,
            l3: 8.0 * 1024.0 * 1024.0 / 64.0,
            lanes: 4.0,
        }
    }
}

/// One loop of a statement: the direction it moves the iteration, and its trip count.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub dir: Vec<i64>,
    pub trip: f64,
}

/// How an access (subscript rows over the iterators) moves when the iteration moves by
/// `dir`: the step in each of its dimensions.
fn step(sub: &[Vec<i64>], dir: &[i64]) -> Vec<i64> {
    sub.iter()
        .map(|r| r.iter().zip(dir).map(|(a, b)| a * b).sum())
        .collect()
}

/// The lines one access (subscript rows over the iterators) touches over `loops`: the
/// product of the trips of the loops it moves along, the elements along the innermost loop
/// that walks its last dimension by less than a line sharing lines (wherever that loop is
/// among them: the lines touched do not depend on the order).
///
/// Where the loops that move it move it along dependent directions (a skewed band's tile:
/// `t` moves `A[i][j]` by `(-2, -2)` while `i` and `j` move it too; `A[i + j]`), the product
/// counts the same elements many times: the elements are then those of the image of the
/// loops' box, a zonotope, counted by its volume ([`zonotope_lines`]).
pub fn lines(sub: &[Vec<i64>], loops: &[Loop]) -> f64 {
    // A tiled loop's tile and point loops move along the same direction: one loop of
    // both trips.
    let mut moving: Vec<(Vec<i64>, f64)> = vec![];
    let mut dirs: Vec<&[i64]> = vec![];
    for l in loops {
        let s = step(sub, &l.dir);
        if s.iter().all(|&x| x == 0) {
            continue;
        }
        match dirs.iter().position(|d| *d == l.dir.as_slice()) {
            Some(k) => moving[k].1 *= l.trip,
            None => {
                dirs.push(&l.dir);
                moving.push((s, l.trip));
            }
        }
    }
    let steps: Vec<Vec<i64>> = moving.iter().map(|(s, _)| s.clone()).collect();
    if rank(&steps, &(0..sub.len()).collect::<Vec<_>>()) < moving.len() {
        return zonotope_lines(&moving);
    }
    let mut elements = 1.0;
    let mut contiguous: Option<(f64, f64)> = None;
    for l in loops {
        match step(sub, &l.dir).split_last() {
            None => continue,
            Some((0, outer)) if outer.iter().all(|&x| x == 0) => continue,
            Some((&last, outer)) if outer.iter().all(|&x| x == 0) && (last.abs() as f64) < LINE => {
                contiguous = Some((l.trip, last.unsigned_abs() as f64));
            }
            Some(_) => {}
        }
        elements *= l.trip;
    }
    match contiguous {
        Some((trip, stride)) => elements / trip * (trip * stride / LINE).ceil().max(1.0),
        None => elements,
    }
}

/// The lines of the image of a box of loops under an access, for steps that are not
/// linearly independent: the zonotope `Σ [0, trip]·step` in the array's index space has the
/// volume `Σ |det(steps)|·Π trips` over every choice of `r` of the steps (`r` their rank), in
/// `r` of the array's dimensions where they have that rank (its last dimension among them
/// where it can be); elements along the last dimension share lines. The determinants and
/// ranks are the integer core's, exact.
fn zonotope_lines(moving: &[(Vec<i64>, f64)]) -> f64 {
    let d = moving[0].0.len();
    let steps: Vec<Vec<i64>> = moving.iter().map(|(s, _)| s.clone()).collect();
    let r = rank(&steps, &(0..d).collect::<Vec<_>>());
    // The r dimensions: the last one first where it moves, then the others from the right.
    let mut dims: Vec<usize> = vec![];
    for c in (0..d).rev() {
        let mut with = dims.clone();
        with.push(c);
        if rank(&steps, &with) == with.len() {
            dims = with;
        }
        if dims.len() == r {
            break;
        }
    }
    let mut volume = 0.0;
    for pick in subsets(steps.len(), r) {
        let m: Vec<Row> = (pick.iter())
            .map(|&l| dims.iter().map(|&k| Int::from(steps[l][k])).collect())
            .collect();
        let trips: f64 = pick.iter().map(|&l| moving[l].1).product();
        volume += linalg::det(&m).abs().to_i64().unwrap_or(i64::MAX) as f64 * trips;
    }
    let along_last: f64 = moving.iter().map(|(s, t)| s[d - 1].abs() as f64 * t).sum();
    let lines = match dims.contains(&(d - 1)) && along_last > 0.0 {
        true => volume / along_last * (along_last / LINE).ceil(),
        false => volume,
    };
    lines.max(1.0)
}

/// Every choice of `r` of `0..n`, in increasing order.
fn subsets(n: usize, r: usize) -> Vec<Vec<usize>> {
    if r == 0 {
        return vec![vec![]];
    }
    if n < r {
        return vec![];
    }
    let mut out = subsets(n - 1, r);
    for mut s in subsets(n - 1, r - 1) {
        s.push(n - 1);
        out.push(s);
    }
    out
}

/// The rank of integer rows restricted to the columns `cols` (by the integer core's null
/// space).
fn rank(rows: &[Vec<i64>], cols: &[usize]) -> usize {
    let m: Vec<Row> = (rows.iter())
        .map(|r| cols.iter().map(|&c| Int::from(r[c])).collect())
        .collect();
    cols.len() - linalg::null_space(&m, cols.len()).len()
}

/// Lines missed by a cache of `capacity` lines over a statement's `loops` with its
/// (distinct) `accesses`: [`shared_misses`] of the statement alone, each access an array of
/// its own. What one iteration of a loop touches survives to its next iteration when it
/// fits (least recently used lines go first), so a loop reuses its lines when its body's
/// footprint fits; the outermost such loop's footprint is missed once per iteration of the
/// loops outside it.
#[cfg(test)]
pub fn misses(accesses: &[Vec<Vec<i64>>], loops: &[Loop], capacity: f64) -> f64 {
    let alone = Placed {
        accesses: accesses.iter().cloned().enumerate().collect(),
        loops: loops.to_vec(),
        parallel: None,
    };
    shared_misses(&[alone], &[0], capacity)
}

/// One statement as [`shared_misses`] sees it: its distinct accesses, each with the array it
/// touches (by number), and its loops, outermost first.
#[derive(Clone, Debug)]
pub struct Placed {
    pub accesses: Vec<(usize, Vec<Vec<i64>>)>,
    pub loops: Vec<Loop>,
    /// The loop run on several threads (its position among `loops`) and how many share
    /// it; `None` on one thread.
    pub parallel: Option<(usize, f64)>,
}

/// Lines missed by a cache of `capacity` lines over statements run one after the other,
/// the `k`-th sharing its outermost `shared[k]` loops with the next (counted in `loops`:
/// a tiled band's tile loops and point loops).
///
/// The statements a loop holds share its iterations: a loop whose body's footprint fits
/// reuses it from one iteration to the next, and its whole footprint is missed once;
/// otherwise each of its iterations misses what the parts of its body miss, each part (a
/// statement, or a run of neighbours sharing the next loop) on its own. Statements that
/// share no loop still share the cache when all of them fit. In a footprint, the accesses
/// of the statements to one array that move alike along the loops outside are one, as large
/// as the largest (fused statements reading what their neighbour wrote); the statements are
/// otherwise estimated as one alone ([`misses`]).
///
/// A loop run on several threads (`Placed::parallel`) shares what it misses among them:
/// each thread's cache misses its share. [`program`] does not share the lines from memory.
pub fn shared_misses(stmts: &[Placed], shared: &[usize], capacity: f64) -> f64 {
    Tree::new(stmts, shared, capacity, true).body(0..stmts.len(), 0)
}

/// The loops of statements run in order, as [`shared_misses`] walks them.
struct Tree<'a> {
    stmts: &'a [Placed],
    shared: &'a [usize],
    capacity: f64,
    /// Whether each thread has a cache of `capacity` of its own.
    per_thread: bool,
}

impl<'a> Tree<'a> {
    fn new(stmts: &'a [Placed], shared: &'a [usize], capacity: f64, per_thread: bool) -> Self {
        Tree {
            stmts,
            shared,
            capacity,
            per_thread,
        }
    }

    /// The lines the statements `r` (sharing their loops outside `m`) touch over their
    /// loops from `m` on.
    fn footprint(&self, r: std::ops::Range<usize>, m: usize) -> f64 {
        let mut seen: Vec<(usize, Vec<Vec<i64>>, f64)> = vec![];
        for p in &self.stmts[r] {
            let m = m.min(p.loops.len());
            for (array, sub) in &p.accesses {
                let key: Vec<Vec<i64>> = p.loops[..m].iter().map(|l| step(sub, &l.dir)).collect();
                let n = lines(sub, &p.loops[m..]);
                match seen.iter_mut().find(|(a, k, _)| a == array && *k == key) {
                    Some(e) => e.2 = e.2.max(n),
                    None => seen.push((*array, key, n)),
                }
            }
        }
        seen.iter().map(|e| e.2).sum()
    }

    /// Misses of the statements `r` inside one iteration of the loops outside `m` they
    /// share, over everything from `m` on.
    fn body(&self, r: std::ops::Range<usize>, m: usize) -> f64 {
        let all = self.footprint(r.clone(), m);
        if all <= self.capacity {
            return all;
        }
        (self.parts(r, m).into_iter())
            .map(|p| match self.stmts[p.start].loops.len() > m {
                true => self.in_loop(p, m),
                false => self.footprint(p, m),
            })
            .sum()
    }

    /// Misses of the statements `r` that share their loop `m`, over it.
    fn in_loop(&self, r: std::ops::Range<usize>, m: usize) -> f64 {
        let threads = match self.stmts[r.start].parallel {
            Some((at, threads)) if at == m && self.per_thread => threads,
            _ => 1.0,
        };
        if self.footprint(r.clone(), m + 1) <= self.capacity {
            return self.footprint(r, m) / threads;
        }
        let trip = (self.stmts[r.clone()].iter())
            .map(|p| p.loops[m].trip)
            .fold(1.0, f64::max);
        trip * self.body(r, m + 1) / threads
    }

    /// The parts of a body at loop `m`: runs of neighbours sharing loop `m`, and
    /// statements with no loop there, each alone.
    fn parts(&self, r: std::ops::Range<usize>, m: usize) -> Vec<std::ops::Range<usize>> {
        let has = |k: usize| self.stmts[k].loops.len() > m;
        let mut out = vec![];
        let mut a = r.start;
        while a < r.end {
            let mut z = a + 1;
            while has(a) && z < r.end && has(z) && self.shared[z - 1] > m {
                z += 1;
            }
            out.push(a..z);
            a = z;
        }
        out
    }
}

/// Whether the innermost loop vectorizes: every access stays put along it or walks its
/// last dimension by one element.
fn vectorizes<'a>(accesses: impl IntoIterator<Item = &'a Vec<Vec<i64>>>, inner: &Loop) -> bool {
    accesses
        .into_iter()
        .all(|sub| match step(sub, &inner.dir).split_last() {
            None => true,
            Some((&last, outer)) => outer.iter().all(|&x| x == 0) && last.abs() <= 1,
        })
}

/// The parts of the estimate of one statement over its loops: iterations, the innermost
/// loop's starts, and the misses of each cache level. The innermost loop vectorizes when
/// its accesses allow it and `free` (it carries no dependence at a distance shorter than a
/// vector).
#[cfg(test)]
pub fn statement(accesses: &[Vec<Vec<i64>>], loops: &[Loop], caches: &Caches, free: bool) -> Parts {
    Parts {
        from_l2: misses(accesses, loops, caches.l1),
        from_l3: misses(accesses, loops, caches.l2),
        from_memory: misses(accesses, loops, caches.l3),
        ..arithmetic(accesses, loops, caches, free)
    }
}

/// The parts of the estimate of statements run in order, the `k`-th sharing its outermost
/// `shared[k]` loops with the next: each one's iterations and starts ([`statement`]), and
/// the misses of each cache level over all of them ([`shared_misses`]). `free[k]` as
/// [`statement`]'s `free` for the `k`-th.
///
/// Statements whose innermost loop carries a dependence (not `free`: a recurrence, a
/// reduction) wait on it from one iteration to the next; where several share that loop,
/// the processor overlaps their chains, and their iterations count as the largest's.
pub fn program(stmts: &[Placed], shared: &[usize], caches: &Caches, free: &[bool]) -> Parts {
    let each: Vec<Parts> = (stmts.iter().zip(free))
        .map(|(p, &f)| {
            let threads = p.parallel.map_or(1.0, |(_, t)| t);
            let one = arithmetic(p.accesses.iter().map(|(_, a)| a), &p.loops, caches, f);
            Parts {
                iterations: one.iterations / threads,
                starts: one.starts / threads,
                ..one
            }
        })
        .collect();
    let mut work = each.iter().fold(Parts::default(), |a, &b| a + b);
    work.syncs = syncs(stmts, shared);
    // Runs of neighbours sharing their innermost loop, each statement's chain iterations.
    let mut k = 0;
    while k < stmts.len() {
        let depth = stmts[k].loops.len();
        let mut z = k + 1;
        while z < stmts.len()
            && depth > 0
            && stmts[z].loops.len() == depth
            && shared[z - 1] >= depth
        {
            z += 1;
        }
        let chains: Vec<f64> = (k..z)
            .filter(|&q| !free[q])
            .map(|q| each[q].iterations)
            .collect();
        if chains.len() >= 2 {
            let (sum, max) = (
                chains.iter().sum::<f64>(),
                chains.iter().fold(0.0, |a: f64, &b| a.max(b)),
            );
            work.iterations -= sum - max;
        }
        k = z;
    }
    Parts {
        from_l2: shared_misses(stmts, shared, caches.l1),
        from_l3: shared_misses(stmts, shared, caches.l2),
        from_memory: Tree::new(stmts, shared, caches.l3, false).body(0..stmts.len(), 0),
        ..work
    }
}

/// How often the statements' loops run on the threads are entered: once per iteration of
/// the loops outside each, a loop that neighbours share counted once.
fn syncs(stmts: &[Placed], shared: &[usize]) -> f64 {
    let mut total = 0.0;
    for (k, p) in stmts.iter().enumerate() {
        let Some((at, _)) = p.parallel else { continue };
        let same =
            k > 0 && stmts[k - 1].parallel.is_some_and(|(a, _)| a == at) && shared[k - 1] > at;
        if !same {
            total += p.loops[..at].iter().map(|l| l.trip).product::<f64>();
        }
    }
    total
}

/// Iterations (a vector's worth as one where the innermost loop vectorizes) and starts of
/// the innermost loop of one statement; no misses.
fn arithmetic<'a>(
    accesses: impl IntoIterator<Item = &'a Vec<Vec<i64>>>,
    loops: &[Loop],
    caches: &Caches,
    free: bool,
) -> Parts {
    let work: f64 = loops.iter().map(|l| l.trip).product();
    let (lanes, starts) = match loops.split_last() {
        Some((inner, outer)) => (
            if free && vectorizes(accesses, inner) {
                caches.lanes
            } else {
                1.0
            },
            outer.iter().map(|l| l.trip).product(),
        ),
        None => (1.0, 1.0),
    };
    Parts {
        iterations: work / lanes,
        starts,
        ..Parts::default()
    }
}

/// The loops of a statement: `dirs` (one per loop, outermost first, over its iterators) with
/// trips from the iterators' `extents`; the loops at `tiled` (a range of positions, and the
/// tile size `T`) split into tile loops (`⌈trip / T⌉`) and then point loops (the rest of
/// the trip: `T` where `T` divides it).
pub fn loops(
    dirs: &[Vec<i64>],
    extents: &[f64],
    tiled: &[(std::ops::Range<usize>, u32)],
) -> Vec<Loop> {
    let trip = |d: &[i64]| -> f64 {
        (d.iter().zip(extents))
            .filter(|(x, _)| **x != 0)
            .map(|(x, e)| e / x.unsigned_abs() as f64)
            .fold(f64::INFINITY, f64::min)
            .max(1.0)
    };
    let mut out = vec![];
    let mut p = 0;
    while p < dirs.len() {
        match tiled.iter().find(|(r, _)| r.start == p && r.end > p) {
            Some((r, size)) => {
                // `⌈trip / T⌉` tiles of `trip / ⌈trip / T⌉` points on average: the
                // partial tile at the end is not counted as a whole one, so the work is
                // the same at every tile size.
                let r = r.start..r.end.min(dirs.len());
                let t = f64::from(*size);
                let tiles = |d: &[i64]| (trip(d) / t).ceil().max(1.0);
                for d in &dirs[r.clone()] {
                    out.push(Loop {
                        dir: d.clone(),
                        trip: tiles(d),
                    });
                }
                for d in &dirs[r.clone()] {
                    out.push(Loop {
                        dir: d.clone(),
                        trip: trip(d) / tiles(d),
                    });
                }
                p = r.end;
            }
            None => {
                out.push(Loop {
                    dir: dirs[p].clone(),
                    trip: trip(&dirs[p]),
                });
                p += 1;
            }
        }
    }
    out
}
