//! Exact array dataflow: for every read of a statement, the instance that last wrote the
//! element it reads (a piecewise quasi-affine function, by parametric lexicographic
//! maximum over the execution times of the candidate writers), or the element's value
//! before the region; and for every element of an output array, its last writer. Copies
//! (a statement that stores one read unchanged) are followed: a value read through a
//! copy is the value the copy read.

use super::program::{Program, Refusal};
use crate::presburger::{Basic, Int, Map, Set, Space, Tuple};

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

/// The parametric lexicographic maximum of a map's outputs for each input: the map's
/// inputs are made parameters (the columns of a conjunction do not move), the optimum is
/// the core's parametric one, and the inputs are made inputs again.
pub fn lexmax_map(m: &Map) -> Result<Map, Refusal> {
    let sp = m.space().clone();
    let (np, ni) = (sp.n_param(), sp.n_in());
    let mut params = sp.params.clone();
    params.extend((0..ni).map(|k| format!("in{k}'")));
    let set_space = Space {
        params,
        domain: None,
        range: sp.range.clone(),
    };
    let parts = m
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.set_n_param(np + ni);
            b
        })
        .collect();
    let set = Set::from_parts(set_space, parts);
    let max = set
        .lexmax()
        .map_err(|e| Refusal::new(format!("the last writer is not bounded: {e}"), None))?;
    let parts = max
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.set_n_param(np);
            b
        })
        .collect();
    Ok(Map::from_parts(sp, parts))
}

/// `{ x -> y : x_0..x_{l-1} = y_0..y_{l-1}, y_l < x_l }` on time vectors of `n` dims.
fn earlier_at(params: &[String], time: &Tuple, l: usize) -> Map {
    let n = time.len();
    let space = Space {
        params: params.to_vec(),
        domain: Some(time.clone()),
        range: time.clone(),
    };
    let mut b = Basic::universe(params.len(), 2 * n);
    for k in 0..=l {
        let mut r = b.zero_row();
        r[b.col_dim(k)] = Int::ONE;
        r[b.col_dim(n + k)] = Int::from(-1);
        if k < l {
            b.add_eq(r);
        } else {
            r[0] = Int::from(-1);
            b.add_ineq(r);
        }
    }
    Map::from_basic(space, b)
}

/// The last writers, among the writes of `array` in `p`, of the elements `access` maps
/// each `X` to, at times before `at(X)` when `at` is given; and the part of `X` no
/// statement wrote before. Before a time, the writers that share its longest prefix come
/// last: the levels are tried from the innermost, each on what the deeper ones left.
fn last_writers(
    p: &Program,
    params: &[String],
    access: &Map,
    array: &str,
    at: Option<&Map>,
    private: Option<usize>,
) -> Result<Vec<Source>, Refusal> {
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
    match at {
        None => {
            let cands: Vec<(usize, Map)> = writers.iter().copied().zip(same).collect();
            if let Some(done) = latest(p, &cands, &remaining, &mut out)? {
                remaining = remaining.subtract(&done);
            }
        }
        Some(at) => {
            let time = at.space().range.clone();
            for l in (0..time.len()).rev() {
                if remaining.is_empty() {
                    break;
                }
                let before = at.apply_range(&earlier_at(params, &time, l));
                let mut cands = vec![];
                for (&t, c) in writers.iter().zip(&same) {
                    // Not restricted to `remaining` before the optimum: the candidates
                    // stay simple; the optimum is restricted after.
                    let c = c.intersect(&before.apply_range(&p.stmts[t].time.inverse()));
                    cands.push((t, c));
                }
                if let Some(done) = latest(p, &cands, &remaining, &mut out)? {
                    remaining = remaining.subtract(&done).coalesce();
                }
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

/// Among candidate writers (`X -> S_t[j]`), the one that runs last for each `X`, pushed
/// to `out`; the `X` that have a candidate.
fn latest(
    p: &Program,
    cands: &[(usize, Map)],
    within: &Set,
    out: &mut Vec<Source>,
) -> Result<Option<Set>, Refusal> {
    let mut times: Option<Map> = None;
    for (t, c) in cands {
        if c.is_empty() {
            continue;
        }
        let tm = c.apply_range(&p.stmts[*t].time);
        times = Some(match times {
            None => tm,
            Some(u) => u.union(&tm),
        });
    }
    let Some(times) = times else {
        return Ok(None);
    };
    let last = lexmax_map(&times.coalesce())?;
    for (t, c) in cands {
        if c.is_empty() {
            continue;
        }
        let m = c
            .intersect_domain(within)
            .intersect(&last.apply_range(&p.stmts[*t].time.inverse()))
            .coalesce();
        if !m.is_empty() {
            out.push(Source::Computed { stmt: *t, map: m });
        }
    }
    // The instances with a candidate: the optimum's domain, whose divisions are known
    // (a projection of the candidates would leave existentials, hard to subtract).
    Ok(Some(last.domain().coalesce()))
}

/// Keeps the pairs whose first `d` input and output dimensions agree (a variable declared
/// inside `d` loops is a new one in each of their iterations).
fn same_outer(m: &Map, d: usize) -> Map {
    use crate::presburger::Int;
    let b = match m.parts().first() {
        Some(b) => b,
        None => return m.clone(),
    };
    let ni = m.n_in();
    let mut eqs = vec![];
    for k in 0..d.min(ni).min(m.n_out()) {
        let mut r = vec![Int::ZERO; 1 + b.n_param() + b.n_dim()];
        r[b.col_dim(k)] = Int::ONE;
        r[b.col_dim(ni + k)] = Int::from(-1);
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
        for s in &p.stmts {
            let mut per = vec![];
            for r in &s.reads {
                per.push(match r {
                    None => vec![],
                    Some((array, rel)) => {
                        let private = p.scop.array(array).and_then(|a| a.private_depth);
                        last_writers(p, params, rel, array, Some(&s.time), private)?
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
        let id = elems.identity();
        let srcs = last_writers(p, params, &id, array, None, None)?;
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
