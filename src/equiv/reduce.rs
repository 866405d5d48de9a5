//! Instances without the dimensions that the others determine. Generated code counts a
//! tile with a loop of its own (`for (c3 = 0; c3 <= floord(n - 1, 4); c3++) for (k = 4 *
//! c3; …)`), so its instances carry `c3`, which `k` determines (`c3 = ⌊k/4⌋`). Every
//! relation between them and the original's instances then holds `⌊k/4⌋` as a division,
//! the dataflow of a tiled reduction comes in pieces by residue (the previous update in
//! the same tile, or the last one of the previous tile), and the differences the
//! comparison takes split on those residues until the work budget is spent.
//!
//! Dropping a dimension that the others determine is a bijection between the instances,
//! so the comparison loses nothing when it runs on the remaining dimensions: the values,
//! the sources and the domains are taken through it, and the pieces of one source that
//! then make one relation without divisions are merged into it (checked exactly, never
//! assumed). A witness is taken back to the full instance.

use super::dataflow::{Flow, Source};
use super::plain::{on_points, Points};
use super::program::{Node, Program};
use crate::presburger::Int;

/// The statements' points (see [`Points`]), for the comparison.
pub struct Reduction {
    points: Vec<Points>,
}

impl Reduction {
    pub fn new(p: &Program) -> Reduction {
        Reduction {
            points: p.stmts.iter().map(|s| s.points.clone()).collect(),
        }
    }

    /// The program on the points: domains, times, accesses and the integer values of
    /// iterators taken through each statement's map.
    pub fn program<'a>(&self, p: &Program<'a>) -> Program<'a> {
        let mut q = p.clone();
        for (s, pts) in q.stmts.iter_mut().zip(&self.points) {
            let back = pts.map.inverse();
            s.domain = pts.domain.clone();
            s.time = back.apply_range(&s.time);
            s.write = back.apply_range(&s.write);
            for (_, rel) in s.reads.iter_mut().flatten() {
                *rel = back.apply_range(rel);
            }
            for n in &mut s.nodes {
                if let Node::Name(_, v) = n {
                    *v = on_points(v, Some(pts), None);
                }
            }
        }
        q
    }

    /// The dataflow on the points.
    pub fn flow(&self, f: &Flow) -> Flow {
        let sources = f
            .sources
            .iter()
            .enumerate()
            .map(|(s, per)| per.iter().map(|srcs| self.sources(Some(s), srcs)).collect())
            .collect();
        Flow { sources }
    }

    /// Sources on the points: those of statement `reader`'s reads, or (`None`) those of
    /// output elements. The pieces of one writer (or of one input array) are made one
    /// relation first: a tiled reduction's previous update, in the same tile or the last
    /// of the previous one, is one relation on the points.
    pub fn sources(&self, reader: Option<usize>, srcs: &[Source]) -> Vec<Source> {
        let mut out: Vec<Source> = vec![];
        for src in srcs {
            let same = out.iter_mut().find(|o| match (&**o, src) {
                (Source::Computed { stmt: a, .. }, Source::Computed { stmt: b, .. }) => a == b,
                (Source::Input { array: a, .. }, Source::Input { array: b, .. }) => a == b,
                _ => false,
            });
            match same {
                Some(Source::Computed { map, .. } | Source::Input { map, .. }) => {
                    *map = map.union(src.map())
                }
                None => out.push(src.clone()),
            }
        }
        let from = reader.map(|s| &self.points[s]);
        for o in &mut out {
            let to = match o {
                Source::Computed { stmt, .. } => Some(&self.points[*stmt]),
                Source::Input { .. } => None,
            };
            let (Source::Computed { map, .. } | Source::Input { map, .. }) = o;
            *map = on_points(map, from, to);
        }
        out.retain(|o| !o.map().is_empty());
        out
    }

    /// The full instance of statement `stmt` (a program index) whose reduced coordinates
    /// are `coords`, for the parameter values `params`.
    pub fn expand(&self, stmt: usize, params: &[Int], coords: &[Int]) -> Option<Vec<Int>> {
        let m = &self.points[stmt].map;
        if self.points[stmt].is_identity() {
            return Some(coords.to_vec());
        }
        let space = m.range().space().clone();
        let pt = super::compare::point(&space, params, coords);
        let full = m.intersect_range(&pt).domain();
        let mut fixed = full;
        for (k, name) in fixed.space().params.clone().iter().enumerate() {
            fixed = fixed.fix_param(name, params.get(k)?)?;
        }
        fixed.lexmin_point().ok().flatten()
    }
}
