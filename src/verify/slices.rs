//! Computation slices (Yi, Kennedy and Adve, §5.1) and their fusion (§6, Figure 10),
//! decided exactly with the verifier's dependences.
//!
//! A slice gives every statement `s` of a segment a slicing loop `ℓ(s)` (one of its loops in
//! the kernel) and an alignment `a(s)`; the fused loop runs `ℓ_f = Ivar(ℓ(s)) + a(s)`. The
//! three conditions of §5.1 (each slicing loop can be shifted outermost, every two can be
//! fused, and the alignments agree with the dependences) together say exactly: for every
//! dependence from `s[x]` to `t[y]` between statements of the segment,
//! `x[ℓ(s)] + a(s) ≤ y[ℓ(t)] + a(t)`. That is one emptiness test per dependence and choice:
//! `{ (x, y) ∈ D : x[ℓ(s)] − y[ℓ(t)] ≥ a(t) − a(s) + 1 }` must be empty. Dependences with
//! one end outside the segment do not constrain the slice.
//!
//! Alignments are enumerated: the first statement of the segment has alignment 0 (adding a
//! constant to every alignment changes nothing), the others range over `[-r, r]`. For each
//! choice of slicing loops, the valid alignment with the smallest total `|a|` (then the
//! lexicographically smallest) is reported, with the number of other valid alignments in the
//! range.

use super::deps::{Dependence, Program};
use crate::model::state::State;
use crate::presburger::{Int, Set};
use std::collections::{BTreeMap, HashMap};

/// The segments of a kernel when none is named: the statements of each outermost loop nest
/// (the pieces with the same first position), in program order, each labelled with its
/// statements' names.
pub fn nest_segments(state: &State) -> Vec<(String, Vec<usize>)> {
    let names = &state.stmt_names;
    let mut by_nest: BTreeMap<_, Vec<usize>> = BTreeMap::new();
    for p in &state.pieces {
        let v = by_nest.entry(p.pos[0].clone()).or_default();
        if !v.contains(&p.stmt) {
            v.push(p.stmt);
        }
    }
    by_nest
        .into_values()
        .map(|v| {
            let label = v
                .iter()
                .map(|&s| names[s].clone())
                .collect::<Vec<_>>()
                .join(", ");
            (label, v)
        })
        .collect()
}

/// The segment of a tag: the statements of its component, sorted; `None` when the kernel
/// has no such tag.
pub fn tag_segment(state: &State, tag: &str) -> Option<Vec<usize>> {
    let &h = state.handles.get(tag)?;
    let mut v: Vec<usize> = state
        .members(&state.components[h].positions)
        .into_iter()
        .map(|i| state.pieces[i].stmt)
        .collect();
    v.sort();
    v.dedup();
    Some(v)
}

/// The valid slices of every segment and which slices of different segments fuse.
pub struct Slicing {
    /// Per segment, its valid slices.
    pub slices: Vec<Vec<Slice>>,
    /// Every slice as (segment, index in its segment), numbered in this order.
    pub index: Vec<(usize, usize)>,
    /// Fusable pairs `(x, y, alignment)`: slice `x` of an earlier segment with slice `y` of
    /// a later one (numbers into `index`), the second shifted by the alignment.
    pub fusable: Vec<(usize, usize, i64)>,
}

/// The slices of each segment with alignments in `[-r, r]`, and the fusable pairs.
pub fn slice_segments(
    program: &Program,
    deps: &[Dependence],
    segments: &[Vec<usize>],
    r: i64,
) -> Slicing {
    let mut oracle = Oracle::new(program, deps);
    let slices: Vec<Vec<Slice>> = segments.iter().map(|seg| oracle.slices(seg, r)).collect();
    let mut index = vec![];
    for (si, ss) in slices.iter().enumerate() {
        for j in 0..ss.len() {
            index.push((si, j));
        }
    }
    let mut fusable = vec![];
    for (x, &(s1, j1)) in index.iter().enumerate() {
        for (y, &(s2, j2)) in index.iter().enumerate() {
            if s1 < s2 {
                if let Some(al) = oracle.fusable(&slices[s1][j1], &slices[s2][j2], r) {
                    fusable.push((x, y, al));
                }
            }
        }
    }
    Slicing {
        slices,
        index,
        fusable,
    }
}

/// One statement's slicing loop (level from 1 = outermost of its loops in the kernel) and
/// alignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceEntry {
    pub stmt: usize,
    pub level: usize,
    pub align: i64,
}

/// A valid computation slice of a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    pub entries: Vec<SliceEntry>,
    /// Other valid alignment vectors (first statement at 0) for the same slicing loops.
    pub alternatives: usize,
}

/// The dependences among a set of statements, as sets of `[x, y]` pairs, with a cache of
/// emptiness tests.
pub struct Oracle<'a> {
    program: &'a Program,
    deps: Vec<(usize, usize, Set)>,
    cache: HashMap<(usize, usize, usize, i64), bool>,
}

impl<'a> Oracle<'a> {
    pub fn new(program: &'a Program, deps: &[Dependence]) -> Oracle<'a> {
        Oracle {
            program,
            deps: deps
                .iter()
                .map(|d| (d.source, d.sink, d.relation().wrap()))
                .collect(),
            cache: HashMap::new(),
        }
    }

    /// Does dependence `k` keep `x[ls] + a_s ≤ y[lt] + a_t` with `diff = a_t − a_s`
    /// (levels from 0)?
    fn keeps(&mut self, k: usize, ls: usize, lt: usize, diff: i64) -> bool {
        if let Some(&b) = self.cache.get(&(k, ls, lt, diff)) {
            return b;
        }
        let (s, _, rel) = &self.deps[k];
        let ds = self.program.stmts[*s].domain.n_dim();
        let n = rel.n_dim();
        let vs: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
        // v[ls] - v[ds + lt] - (diff + 1) >= 0
        let mut r = vec![Int::ZERO; 1 + n];
        r[0] = Int::from(-(diff + 1));
        r[1 + ls] += &Int::ONE;
        r[1 + ds + lt] -= &Int::ONE;
        let bad = Set::from_rows(vs, vec![], vec![r]).with_tuple(rel.tuple().clone());
        let ok = rel.intersect(&bad).is_empty();
        self.cache.insert((k, ls, lt, diff), ok);
        ok
    }

    /// Do the choices made so far (statement → (level from 0, align)) keep every
    /// dependence among them that involves statement `new`?
    fn consistent(&mut self, chosen: &HashMap<usize, (usize, i64)>, new: usize) -> bool {
        for k in 0..self.deps.len() {
            let (s, t) = (self.deps[k].0, self.deps[k].1);
            if s != new && t != new {
                continue;
            }
            let (Some(&(ls, a_s)), Some(&(lt, a_t))) = (chosen.get(&s), chosen.get(&t)) else {
                continue;
            };
            if !self.keeps(k, ls, lt, a_t - a_s) {
                return false;
            }
        }
        true
    }

    /// Every valid choice for the segment `seg` (statement indices): its slicing levels
    /// (from 0) with every valid alignment vector in `[-r, r]` (the first statement at 0).
    pub fn all_valid(&mut self, seg: &[usize], r: i64) -> Vec<(Vec<usize>, Vec<Vec<i64>>)> {
        let mut found: Vec<(Vec<usize>, Vec<Vec<i64>>)> = vec![];
        let mut chosen = HashMap::new();
        let mut levels = vec![];
        let mut aligns = vec![];
        self.search(seg, r, 0, &mut chosen, &mut levels, &mut aligns, &mut found);
        found
    }

    /// Every valid slice of the segment `seg` (statement indices), alignments in `[-r, r]`:
    /// one per choice of slicing loops, with its canonical alignment.
    pub fn slices(&mut self, seg: &[usize], r: i64) -> Vec<Slice> {
        let found = self.all_valid(seg, r);
        let mut out = vec![];
        for (lv, mut all) in found {
            all.sort_by_key(|a| (a.iter().map(|x| x.abs()).sum::<i64>(), a.clone()));
            let best = &all[0];
            out.push(Slice {
                entries: seg
                    .iter()
                    .zip(&lv)
                    .zip(best)
                    .map(|((&stmt, &l), &align)| SliceEntry {
                        stmt,
                        level: l + 1,
                        align,
                    })
                    .collect(),
                alternatives: all.len() - 1,
            });
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        seg: &[usize],
        r: i64,
        i: usize,
        chosen: &mut HashMap<usize, (usize, i64)>,
        levels: &mut Vec<usize>,
        aligns: &mut Vec<i64>,
        found: &mut Vec<(Vec<usize>, Vec<Vec<i64>>)>,
    ) {
        if i == seg.len() {
            match found.iter_mut().find(|(l, _)| l == levels) {
                Some((_, all)) => all.push(aligns.clone()),
                None => found.push((levels.clone(), vec![aligns.clone()])),
            }
            return;
        }
        let s = seg[i];
        let depth = self.program.stmts[s].domain.n_dim();
        let range: Vec<i64> = if i == 0 { vec![0] } else { (-r..=r).collect() };
        for l in 0..depth {
            for &a in &range {
                chosen.insert(s, (l, a));
                if self.consistent(chosen, s) {
                    levels.push(l);
                    aligns.push(a);
                    self.search(seg, r, i + 1, chosen, levels, aligns, found);
                    levels.pop();
                    aligns.pop();
                }
                chosen.remove(&s);
            }
        }
    }

    /// Can `second` (a slice of a later segment) be fused after `first` (Figure 10)? The
    /// smallest fusion alignment `a` in `[-r, r]` such that `second` shifted by `a` keeps
    /// every dependence between the two segments, if any.
    pub fn fusable(&mut self, first: &Slice, second: &Slice, r: i64) -> Option<i64> {
        'align: for a in -r..=r {
            let mut chosen: HashMap<usize, (usize, i64)> = HashMap::new();
            for e in &first.entries {
                chosen.insert(e.stmt, (e.level - 1, e.align));
            }
            for e in &second.entries {
                chosen.insert(e.stmt, (e.level - 1, e.align + a));
            }
            for e in &second.entries {
                if !self.consistent(&chosen, e.stmt) {
                    continue 'align;
                }
            }
            return Some(a);
        }
        None
    }
}
