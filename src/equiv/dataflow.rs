//! Exact array dataflow: for every read of a statement, the instance that last wrote the
//! element it reads (a piecewise quasi-affine function, by parametric lexicographic
//! maximum over the execution times of the candidate writers), or the element's value
//! before the region; and for every element of an output array, its last writer. Copies
//! (a statement that stores one read unchanged) are followed: a value read through a
//! copy is the value the copy read.

use super::plain::{on_points, plain_on_points, plain_set, Points};
use super::program::{Program, Refusal};
use crate::presburger::{budget, Int, Map, Set, Space, Tuple};

/// Where a value comes from, on a part of the instances (or elements) that use it.
#[derive(Clone, Debug)]
pub enum Source {
    /// The value statement `stmt` computed: `X -> S[j]`, single-valued.
    Computed { stmt: usize, map: Map },
    /// The value of `array` before the region: `X -> A[…]`.
    Input { array: String, map: Map },
}

impl Source {
    pub fn map(&self) -> &Map {
        match self {
            Source::Computed { map, .. } | Source::Input { map, .. } => map,
        }
    }
}

/// The parametric lexicographic maximum of a map's outputs for each input.
pub fn lexmax_map(m: &Map) -> Result<Map, Refusal> {
    m.lexmax()
        .map_err(|e| Refusal::new(format!("the last writer is not bounded: {e}"), None))
}

/// A zero row over `[1, params, dims]`.
fn zero_row(np: usize, nd: usize) -> Vec<Int> {
    vec![Int::ZERO; 1 + np + nd]
}

/// `{ x -> y : x_k = y_k for k < l and for k in equal, y_l < x_l }` on time vectors
/// (`y_l > x_l` when `later`).
pub(super) fn order_at(
    params: &[String],
    time: &Tuple,
    l: usize,
    equal: &[usize],
    later: bool,
) -> Map {
    let n = time.len();
    let np = params.len();
    let space = Space {
        params: params.to_vec(),
        domain: Some(time.clone()),
        range: time.clone(),
    };
    let mut eqs = vec![];
    for k in (0..l).chain(equal.iter().copied()) {
        let mut r = zero_row(np, 2 * n);
        r[1 + np + k] = Int::ONE;
        r[1 + np + n + k] = Int::from(-1);
        eqs.push(r);
    }
    let sign = if later { -1 } else { 1 };
    let mut r = zero_row(np, 2 * n);
    r[1 + np + l] = Int::from(sign);
    r[1 + np + n + l] = Int::from(-sign);
    r[0] = Int::from(-1);
    Map::universe(space).add_constraints(&eqs, &[r])
}

/// The instances of writer `t` among `same` (`X -> S_t[j]`, the writes of the element `X`
/// uses) whose times share the first `l` dimensions of `at(X)` and come before it at `l`
/// (after it, when `later`); the dimensions after `l` on which all of them agree with
/// `at(X)` are written as equalities. `None` when there is none.
fn at_level(
    p: &Program,
    params: &[String],
    at: &Map,
    same: &Map,
    t: usize,
    l: usize,
    later: bool,
) -> Option<Map> {
    let time = at.space().range.clone();
    let theta = &p.stmts[t].time;
    let tinv = theta.inverse();
    let before = at.apply_range(&order_at(params, &time, l, &[], later));
    let c = same.intersect(&before.apply_range(&tinv));
    if c.is_empty() {
        return None;
    }
    let equal = implied_equal(at, &c.apply_range(theta), l);
    if equal.is_empty() {
        return Some(c);
    }
    let pinned = at.apply_range(&order_at(params, &time, l, &equal, later));
    Some(c.intersect(&pinned.apply_range(&tinv)))
}

/// The time dimensions after `l` on which every candidate (`X -> T'`) agrees with the
/// time of its read (`at`: `X -> T`). They hold without being written (a tile coordinate
/// is fixed by the point it contains, an iterator by the element written); written as
/// equalities they leave the optimum few unknowns, and no division to introduce.
fn implied_equal(at: &Map, cand: &Map, l: usize) -> Vec<usize> {
    let pair = cand.inverse().apply_range(at);
    let n = at.n_out();
    let np = pair.space().n_param();
    (l + 1..n)
        .filter(|&k| {
            [1, -1].iter().all(|&sign| {
                let mut r = zero_row(np, 2 * n);
                r[1 + np + k] = Int::from(sign);
                r[1 + np + n + k] = Int::from(-sign);
                r[0] = Int::from(-1);
                pair.add_constraints(&[], &[r]).is_empty()
            })
        })
        .collect()
}

/// The last writers, among the writes of `array` in `p`, of the elements `access` maps
/// each `X` to, at times before `at(X)`; and the part of `X` no statement wrote before.
/// Before a time, the writers that share its longest prefix come last: the levels are
/// tried from the innermost, each on what the deeper ones left (as isl computes flow).
fn last_writers(
    p: &Program,
    params: &[String],
    pos: &Positions,
    s: usize,
    access: &Map,
    array: &str,
    private: Option<usize>,
) -> Result<Vec<Source>, Refusal> {
    let (reader, at) = (&p.stmts[s].points, &p.stmts[s].time);
    let writers: Vec<usize> = (0..p.stmts.len())
        .filter(|&t| p.stmts[t].write_array == array)
        .collect();
    let same: Vec<Map> = writers
        .iter()
        .map(|&t| {
            let c = access.apply_range(&p.stmts[t].write.inverse());
            match private {
                Some(d) => same_outer(&c, d),
                None => c,
            }
        })
        .collect();
    let mut remaining = access.domain();
    let mut out = vec![];
    for l in (0..at.n_out()).rev() {
        if remaining.is_empty() {
            break;
        }
        // Not restricted to `remaining` before the optimum: the candidates stay simple;
        // the optimum is restricted after.
        let cands: Vec<(usize, Map)> = writers
            .iter()
            .zip(&same)
            .filter(|(&t, _)| pos.may_meet(s, t, l, false))
            .filter_map(|(&t, c)| Some((t, at_level(p, params, at, c, t, l, false)?)))
            .collect();
        let groups = by_position(pos, &cands, l);
        let cap = TOGETHER.with(|c| c.get());
        if groups.len() > 1 && cap > 0 {
            // All in one optimum first, within a cap ([`TOGETHER_STEPS`]).
            let mut found = vec![];
            let together =
                budget::with_budget(cap, || latest(p, reader, &cands, &remaining, &mut found));
            if let Ok(done) = together {
                out.extend(found);
                if let Some(done) = done? {
                    remaining = remaining.subtract(&merged(done)).coalesce();
                }
                continue;
            }
        }
        #[cfg(test)]
        if groups.len() > 1 {
            GROUPED.with(|c| c.set(c.get() + 1));
        }
        for group in groups {
            if remaining.is_empty() {
                break;
            }
            if let Some(done) = latest(p, reader, &group, &remaining, &mut out)? {
                remaining = remaining.subtract(&merged(done)).coalesce();
            }
        }
    }
    if !remaining.is_empty() {
        out.push(Source::Input {
            array: array.to_string(),
            map: access.intersect_domain(&remaining),
        });
    }
    Ok(out)
}

/// The reads a group of writers answered, with the parts whose constants step by one
/// shift (a register block's rows, one residue each) merged into their strip before they
/// are taken from what is left: taken away part by part, the 28 rows of doitgen-fast's
/// block splintered what was left by residue (41 million steps for one read; merged, 3
/// thousand). Exact (`Set::merge_shifted`). Not simplified first: jacobi-2d-par's
/// boundary reads then coalesce (a skewed tile's pieces whose existentials always have a
/// value, `x − 255 <= 256e < x`), but 2mm-fast's proof ran out of a thousand million
/// steps where it had taken fewer.
fn merged(done: Set) -> Set {
    done.merge_shifted().coalesce()
}

/// Steps the optimum over all the candidates of a level may take before they are taken
/// group by group ([`by_position`]). Taken group by group, what is left after each is
/// taken away can splinter; all in one, the optimum over many pieces of many nests (a
/// register block's rows against the edge nests) can cost far more. Those of the folded
/// 3mm-fast proof that finish take at most 750 thousand steps.
const TOGETHER_STEPS: u64 = 800_000;

thread_local! {
    /// [`TOGETHER_STEPS`], lowered by the tests to take every level group by group.
    static TOGETHER: std::cell::Cell<u64> = const { std::cell::Cell::new(TOGETHER_STEPS) };
}

/// [`TOGETHER_STEPS`], for the tests.
#[cfg(test)]
pub(super) const TOGETHER_DEFAULT: u64 = TOGETHER_STEPS;

#[cfg(test)]
thread_local! {
    /// How many levels were taken group by group (for the tests).
    static GROUPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with the optimum over all the candidates of a level capped at `steps` (0:
/// always group by group); with how many levels were taken group by group.
#[cfg(test)]
pub(super) fn with_together_steps<T>(steps: u64, f: impl FnOnce() -> T) -> (T, usize) {
    let old = TOGETHER.with(|c| c.replace(steps));
    GROUPED.with(|c| c.set(0));
    let r = f();
    TOGETHER.with(|c| c.set(old));
    (r, GROUPED.with(|c| c.get()))
}

/// The candidates in groups from the latest to the earliest: where every candidate's time
/// dimension `l` is one constant, those with the same constant together, the largest
/// first; otherwise all in one group.
fn by_position(pos: &Positions, cands: &[(usize, Map)], l: usize) -> Vec<Vec<(usize, Map)>> {
    let at = |t: usize| pos.0[t].get(l).cloned().flatten();
    if cands.iter().any(|(t, _)| at(*t).is_none()) {
        return vec![cands.to_vec()];
    }
    let mut values: Vec<Int> = cands.iter().filter_map(|(t, _)| at(*t)).collect();
    values.sort();
    values.dedup();
    values
        .iter()
        .rev()
        .map(|v| {
            (cands.iter())
                .filter(|(t, _)| at(*t).as_ref() == Some(v))
                .cloned()
                .collect()
        })
        .collect()
}

/// The time dimensions of each statement that are one constant (its position among the
/// statements of a loop body, for every parameter value), `None` where they vary.
pub(super) struct Positions(pub(super) Vec<Vec<Option<Int>>>);

impl Positions {
    pub fn new(p: &Program) -> Positions {
        Positions(
            (p.stmts.iter())
                .map(|s| (0..s.time.n_out()).map(|d| fixed_dim(&s.time, d)).collect())
                .collect(),
        )
    }

    /// Whether an instance of `writer` can share the first `l` time dimensions of an
    /// instance of `reader` and come before it at `l` (after it, when `later`): not where
    /// constant positions tell them apart.
    fn may_meet(&self, reader: usize, writer: usize, l: usize, later: bool) -> bool {
        let (a, b) = (&self.0[reader], &self.0[writer]);
        let apart = (0..l).any(|k| matches!((&a[k], &b[k]), (Some(x), Some(y)) if x != y));
        !apart
            && match (&a[l], &b[l]) {
                (Some(x), Some(y)) => (y > x) == later && x != y,
                _ => true,
            }
    }
}

/// The value of a map's output dimension `d` when it is one constant over the whole map
/// (for every parameter value), else `None`.
fn fixed_dim(m: &Map, d: usize) -> Option<Int> {
    let n = m.n_out();
    let range = m.range().project_out(d + 1, n - d - 1).project_out(0, d);
    let v = range.sample()?.coords.first()?.clone();
    let np = range.space().n_param();
    let mut r = zero_row(np, 1);
    r[0] = -v.clone();
    r[1 + np] = Int::ONE;
    let point = Set::universe(range.space().clone()).add_constraints(&[r], &[]);
    range.is_subset(&point).then_some(v)
}

/// The last writer of every element of `elems` (an array's), and the elements no
/// statement writes as inputs. A write is the last of its element when no write of the
/// same element comes after it: found from the write's own instance (its next writer, a
/// lexicographic minimum level by level), not by a maximum over the element, whose
/// optimum over tiled writes needs the tile of each point as a division.
fn final_writers(
    p: &Program,
    params: &[String],
    pos: &Positions,
    array: &str,
    elems: &Set,
) -> Result<Vec<Source>, Refusal> {
    let writers: Vec<usize> = (0..p.stmts.len())
        .filter(|&t| p.stmts[t].write_array == array)
        .collect();
    let mut out = vec![];
    let mut written: Option<Set> = None;
    for &t in &writers {
        let s = &p.stmts[t];
        // The instances with a later write of their element, at any level and by any
        // writer, on the points: in tiled code the pieces per tile make one relation
        // there (`k < k'`), and its domain one set (`k < nk - 1`).
        let mut later: Option<Set> = None;
        let mut add = |d: Set| later = Some(later.take().map_or(d.clone(), |v| v.union(&d)));
        for &t2 in &writers {
            let same = s.write.apply_range(&p.stmts[t2].write.inverse());
            let to = Some(&p.stmts[t2].points);
            // Levels from the innermost, gathered until they make one relation without
            // divisions on the points: a tile's level and its points' (`⌊k'/32⌋ > ⌊k/32⌋`
            // and, in one tile, `k' > k`) make `k' > k`; an outer loop's level is one
            // by itself.
            let mut group: Option<Map> = None;
            for l in (0..s.time.n_out()).rev() {
                if !pos.may_meet(t, t2, l, true) {
                    continue;
                }
                if let Some(c) = at_level(p, params, &s.time, &same, t2, l, true) {
                    let g = group.take().map_or(c.clone(), |u| u.union(&c));
                    match plain_on_points(&g, Some(&s.points), to) {
                        Some(m) => add(m.domain()),
                        None => group = Some(g),
                    }
                }
            }
            if let Some(g) = group {
                add(on_points(&g, Some(&s.points), to).domain());
            }
        }
        let last = match later {
            None => s.domain.clone(),
            Some(u) => {
                let pts = &s.points;
                let u = plain_set(&u.merge_shifted().coalesce(), Some(&pts.domain));
                pts.domain.subtract(&u).coalesce().preimage(&pts.map)
            }
        };
        let last = last.simplify().coalesce();
        // The range simplified: a tiled write's has its tile coordinates as existentials.
        let range = s.write.range().simplify();
        written = Some(written.take().map_or(range.clone(), |w| w.union(&range)));
        let m = s.write.intersect_domain(&last).inverse();
        if !m.is_empty() {
            out.push(Source::Computed { stmt: t, map: m });
        }
    }
    // What no statement writes, taken once from all that is written: the pieces of tiled
    // writes (each with its divisions) make a plain set together more often than alone.
    let remaining = match written {
        Some(w) => elems
            .subtract(&plain_set(&w.coalesce(), Some(elems)))
            .coalesce(),
        None => elems.clone(),
    };
    if !remaining.is_empty() {
        out.push(Source::Input {
            array: array.to_string(),
            map: remaining.identity(),
        });
    }
    Ok(out)
}

/// Among candidate writers (`X -> S_t[j]`), the one that runs last for each `X`, pushed
/// to `out`; the `X` that have a candidate.
fn latest(
    p: &Program,
    reader: &Points,
    cands: &[(usize, Map)],
    within: &Set,
    out: &mut Vec<Source>,
) -> Result<Option<Set>, Refusal> {
    let mut times: Option<Map> = None;
    // The instances with a candidate, found on the points where every candidate is one
    // relation without divisions there: a projection of the full candidates leaves the
    // writer's tile coordinates as existentials, hard to subtract.
    let mut some: Option<Option<Set>> = None;
    for (t, c) in cands {
        if c.is_empty() {
            continue;
        }
        let tm = c.apply_range(&p.stmts[*t].time);
        times = Some(match times {
            None => tm,
            Some(u) => u.union(&tm),
        });
        let d = plain_on_points(c, Some(reader), Some(&p.stmts[*t].points)).map(|m| m.domain());
        some = Some(match (some, d) {
            (None, d) => d,
            (Some(Some(u)), Some(d)) => Some(u.union(&d)),
            _ => None,
        });
    }
    let Some(times) = times else {
        return Ok(None);
    };
    // Not coalesced first: the optimum splits the union as it needs, and coalescing the
    // writers' times (18 parts in nussinov's reads) cost more than the optimum over them.
    // The times of a register block's rows are made one (`merge_shifted`, no emptiness
    // test): 28 row stores of 2mm-fast's block (position `31 + 2r`, element row `14e + r`)
    // gave an optimum of 448 parts, and each row's share of it cost 24 million steps to
    // take; merged, 160 parts and under a million.
    let times = times.merge_shifted();
    let last = lexmax_map(&times)?;
    for (t, c) in cands {
        if c.is_empty() {
            continue;
        }
        // Not simplified: the comparison widens a recurrence to the constraints of its
        // first relation as written; simplified here, doitgen-fast's recurrence of `sum`
        // was widened onto instances whose values differ, and its proof was lost.
        let m = c
            .intersect_domain(within)
            .intersect(&last.apply_range(&p.stmts[*t].time.inverse()))
            .coalesce();
        if !m.is_empty() {
            out.push(Source::Computed { stmt: *t, map: m });
        }
    }
    Ok(Some(match some.flatten() {
        Some(d) => plain_set(&d.coalesce(), Some(&reader.domain))
            .preimage(&reader.map)
            .coalesce(),
        // The optimum's domain, whose divisions are known.
        None => last.domain().coalesce(),
    }))
}

/// Keeps the pairs whose first `d` input and output dimensions agree (a variable declared
/// inside `d` loops is a new one in each of their iterations).
fn same_outer(m: &Map, d: usize) -> Map {
    let (np, ni, no) = (m.space().n_param(), m.n_in(), m.n_out());
    let mut eqs = vec![];
    for k in 0..d.min(ni).min(no) {
        let mut r = zero_row(np, ni + no);
        r[1 + np + k] = Int::ONE;
        r[1 + np + ni + k] = Int::from(-1);
        eqs.push(r);
    }
    m.add_constraints(&eqs, &[])
}

/// The dataflow of one program: the sources of every read, copies followed.
pub struct Flow {
    /// `sources[s][j]`: the sources of statement `s`'s access `j` (empty for writes).
    pub sources: Vec<Vec<Vec<Source>>>,
}

/// Most copies followed one after the other.
const MAX_COPIES: usize = 16;

impl Flow {
    pub fn new(p: &Program, params: &[String]) -> Result<Flow, Refusal> {
        let mut raw = vec![];
        let pos = Positions::new(p);
        for (k, s) in p.stmts.iter().enumerate() {
            let mut per: Vec<Vec<Source>> = vec![];
            let texts: Vec<Option<String>> = (s.reads.iter())
                .map(|r| r.as_ref().map(|(a, m)| format!("{a} {m}")))
                .collect();
            for (j, r) in s.reads.iter().enumerate() {
                // A statement that reads one element twice (nussinov's `max_score` macro
                // names each operand twice) has the same sources for both reads.
                let twin = (0..j).find(|&i| texts[i].is_some() && texts[i] == texts[j]);
                per.push(match (r, twin) {
                    (None, _) => vec![],
                    (Some(_), Some(i)) => per[i].clone(),
                    (Some((array, rel)), None) => {
                        let private = p.scop.array(array).and_then(|a| a.private_depth);
                        last_writers(p, params, &pos, k, rel, array, private)?
                    }
                });
            }
            raw.push(per);
        }
        let mut sources = vec![];
        for per in &raw {
            let mut v = vec![];
            for srcs in per {
                v.push(follow_copies(p, &raw, srcs, 0)?);
            }
            sources.push(v);
        }
        Ok(Flow { sources })
    }

    /// The last writers of the elements of an output array (copies followed), and the
    /// elements nobody writes as inputs, over the elements `elems`.
    pub fn outputs(
        &self,
        p: &Program,
        params: &[String],
        array: &str,
        elems: &Set,
    ) -> Result<Vec<Source>, Refusal> {
        let srcs = final_writers(p, params, &Positions::new(p), array, elems)?;
        self.follow(p, &srcs, 0)
    }

    fn follow(&self, p: &Program, srcs: &[Source], depth: usize) -> Result<Vec<Source>, Refusal> {
        let mut out = vec![];
        for s in srcs {
            match s {
                Source::Computed { stmt, map } if p.stmts[*stmt].copy_of.is_some() => {
                    if depth > MAX_COPIES {
                        return Err(copy_chain(p, *stmt));
                    }
                    let j = p.stmts[*stmt].copy_of.unwrap_or_default();
                    let next = compose(map, &self.sources[*stmt][j]);
                    out.extend(self.follow(p, &next, depth + 1)?);
                }
                _ => out.push(s.clone()),
            }
        }
        Ok(out)
    }
}

fn copy_chain(p: &Program, stmt: usize) -> Refusal {
    Refusal::new(
        format!("a chain of more than {MAX_COPIES} copies (a copy that feeds itself)"),
        Some(&p.stmts[stmt].span),
    )
}

/// `map` followed by each source, where the result is not empty.
fn compose(map: &Map, srcs: &[Source]) -> Vec<Source> {
    let mut out = vec![];
    for s in srcs {
        let m = map.apply_range(s.map()).coalesce();
        if m.is_empty() {
            continue;
        }
        out.push(match s {
            Source::Computed { stmt, .. } => Source::Computed {
                stmt: *stmt,
                map: m,
            },
            Source::Input { array, .. } => Source::Input {
                array: array.clone(),
                map: m,
            },
        });
    }
    out
}

fn follow_copies(
    p: &Program,
    raw: &[Vec<Vec<Source>>],
    srcs: &[Source],
    depth: usize,
) -> Result<Vec<Source>, Refusal> {
    let mut out = vec![];
    for s in srcs {
        match s {
            Source::Computed { stmt, map } if p.stmts[*stmt].copy_of.is_some() => {
                if depth > MAX_COPIES {
                    return Err(copy_chain(p, *stmt));
                }
                let j = p.stmts[*stmt].copy_of.unwrap_or_default();
                let next = compose(map, &raw[*stmt][j]);
                out.extend(follow_copies(p, raw, &next, depth + 1)?);
            }
            _ => out.push(s.clone()),
        }
    }
    Ok(out)
}
