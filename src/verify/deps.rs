//! Exact memory-based dependences: flow, anti and output, between every pair of accesses to
//! the same array, restricted to the original execution order, for all parameter values.

use crate::model::Scop;
use crate::presburger::row::Row;
use crate::presburger::{Basic, Int, Map, Set};
use std::fmt::Write;

/// The program the dependences are computed on: the model's expanded program.
pub use crate::model::program::{Program, ProgramAccess, StmtInfo};
/// Whether an access reads or writes: the model's.
pub use crate::model::AccessKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepKind {
    /// write, then read
    Flow,
    /// read, then write
    Anti,
    /// write, then write
    Output,
}

impl DepKind {
    pub fn name(self) -> &'static str {
        match self {
            DepKind::Flow => "flow",
            DepKind::Anti => "anti",
            DepKind::Output => "output",
        }
    }
}

/// Where in the original schedule the order of a dependence is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Carried by the loop at this depth (1 = outermost).
    Loop(usize),
    /// Inside the common loops, by textual order at this position level.
    Text(usize),
}

/// A dependence between two accesses: `source[i] -> sink[j]`, one relation per level.
#[derive(Clone, Debug)]
pub struct Dependence {
    pub kind: DepKind,
    pub array: String,
    pub source: usize,
    pub sink: usize,
    pub source_access: usize,
    pub sink_access: usize,
    pub pieces: Vec<(Level, Map)>,
}

impl Dependence {
    /// The whole relation.
    pub fn relation(&self) -> Map {
        let mut it = self.pieces.iter();
        let first = it.next().expect("a dependence has a piece").1.clone();
        it.fold(first, |a, (_, m)| a.union(m))
    }
}

/// How two schedule vectors compare at a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// equal before `l`, source before sink at `l`
    Before,
    /// equal before `l`, source after sink at `l`
    After,
    /// equal everywhere (`l` is ignored)
    Same,
}

/// The relation `rel: S[i] -> T[j]` together with both instances' times:
/// conjunctions over `[params | i | j | tS | tT | locals]`, where `tS = ts(i)` and
/// `tT = tt(j)`. Comparing times is then adding rows and testing emptiness — no composition.
pub(crate) fn joint(rel: &Map, ts: &Map, tt: &Map) -> Vec<Basic> {
    let (rel, ts, tt) = aligned(rel, ts, tt);
    let (ni, nj, l) = (rel.n_in(), rel.n_out(), ts.n_out());
    debug_assert_eq!(l, tt.n_out());
    let mut out = vec![];
    for r in rel.parts() {
        let mut r = r.clone();
        r.insert_dims(ni + nj, 2 * l);
        for p in ts.parts() {
            // [i | tS] -> [i | j | tS | tT]
            let mut p = p.clone();
            p.insert_dims(ni, nj);
            p.insert_dims(ni + nj + l, l);
            let rp = r.intersect(&p);
            for q in tt.parts() {
                // [j | tT] -> [i | j | tS | tT]
                let mut q = q.clone();
                q.insert_dims(0, ni);
                q.insert_dims(ni + nj, l);
                let mut b = rp.intersect(&q);
                if b.normalize() {
                    out.push(b);
                }
            }
        }
    }
    out
}

/// The three maps over their common parameters (in the order [`joint`] uses).
fn aligned(rel: &Map, ts: &Map, tt: &Map) -> (Map, Map, Map) {
    let mut params = rel.space().merged_params(ts.space());
    for q in &tt.space().params {
        if !params.contains(q) {
            params.push(q.clone());
        }
    }
    (
        rel.align_params(&params),
        ts.align_params(&params),
        tt.align_params(&params),
    )
}

/// [`joint`] before normalisation: the same rows in the same order, each written once into
/// its final columns instead of through column insertions and intersections. Local
/// definitions are carried over but, unlike the rows, not promised to be identical in
/// representation, so this is for emptiness tests and witnesses (the legality check), not
/// for relations that are kept.
pub(crate) fn joint_raw(rel: &Map, ts: &Map, tt: &Map) -> Vec<Basic> {
    let (rel, ts, tt) = aligned(rel, ts, tt);
    let (ni, nj, l) = (rel.n_in(), rel.n_out(), ts.n_out());
    debug_assert_eq!(l, tt.n_out());
    let np = rel.space().n_param();
    let locals = 1 + np + ni + nj + 2 * l;
    // Column of each source column: constant and parameters stay, dimensions go to their
    // block, locals after those of the earlier conjunctions.
    let columns = |b: &Basic, dims: &[usize], first_local: usize| -> Vec<usize> {
        let mut m: Vec<usize> = (0..=np).collect();
        m.extend(dims.iter().map(|&d| 1 + np + d));
        m.extend((0..b.n_div()).map(|k| first_local + k));
        m
    };
    let dims_r: Vec<usize> = (0..ni + nj).collect();
    let dims_p: Vec<usize> = (0..ni).chain(ni + nj..ni + nj + l).collect();
    let dims_q: Vec<usize> = (ni..ni + nj).chain(ni + nj + l..ni + nj + 2 * l).collect();
    let mut out = vec![];
    for r in rel.parts() {
        let cr = columns(r, &dims_r, locals);
        for p in ts.parts() {
            let cp = columns(p, &dims_p, locals + r.n_div());
            for q in tt.parts() {
                let cq = columns(q, &dims_q, locals + r.n_div() + p.n_div());
                let width = locals + r.n_div() + p.n_div() + q.n_div();
                let place = |row: &Row, cols: &[usize]| -> Row {
                    let mut out = vec![Int::ZERO; width];
                    for (c, v) in row.iter().enumerate() {
                        if !v.is_zero() {
                            out[cols[c]] = v.clone();
                        }
                    }
                    out
                };
                let (mut divs, mut eqs, mut ineqs) = (vec![], vec![], vec![]);
                for (x, cols) in [(r, &cr), (p, &cp), (q, &cq)] {
                    divs.extend(x.divs().iter().map(|d| {
                        d.as_ref().map(|d| {
                            crate::presburger::Div::new(place(d.num(), cols), d.den().clone())
                        })
                    }));
                }
                for (x, cols) in [(r, &cr), (p, &cp), (q, &cq)] {
                    eqs.extend(x.eqs().iter().map(|e| place(e, cols)));
                }
                for (x, cols) in [(r, &cr), (p, &cp), (q, &cq)] {
                    ineqs.extend(x.ineqs().iter().map(|e| place(e, cols)));
                }
                out.push(Basic::from_parts(np, ni + nj + 2 * l, divs, eqs, ineqs));
            }
        }
    }
    out
}

/// The rows comparing the two times (from dim `at`, `n` entries each) at level `l`:
/// equalities for the levels before `l` (all levels for `Same`) and the strict inequality
/// at `l`.
pub(crate) fn level_rows(
    b: &Basic,
    at: usize,
    n: usize,
    l: usize,
    order: Order,
) -> (Vec<Row>, Option<Row>) {
    let upto = if order == Order::Same { n } else { l };
    let eqs = (0..upto).map(|k| equal_row(b, at, n, k)).collect();
    let ineq = (order != Order::Same).then(|| {
        // Before: tT_l - tS_l - 1 >= 0; After: tS_l - tT_l - 1 >= 0
        let s = if order == Order::Before {
            Int::from(-1)
        } else {
            Int::ONE
        };
        let mut r = b.zero_row();
        r[b.col_dim(at + l)] = s.clone();
        r[b.col_dim(at + n + l)] = -&s;
        r[0] = Int::from(-1);
        r
    });
    (eqs, ineq)
}

/// `tS_k - tT_k = 0` (times from dim `at`, `n` entries each).
pub(crate) fn equal_row(b: &Basic, at: usize, n: usize, k: usize) -> Row {
    let mut r = b.zero_row();
    r[b.col_dim(at + k)] = Int::ONE;
    r[b.col_dim(at + n + k)] = Int::from(-1);
    r
}

/// Adds the comparison of the two times (from dim `at`, `n` entries each) at level `l`.
pub(crate) fn at_level(b: &Basic, at: usize, n: usize, l: usize, order: Order) -> Basic {
    let mut b = b.clone();
    let (eqs, ineq) = level_rows(&b, at, n, l, order);
    for r in eqs {
        b.add_eq(r);
    }
    if let Some(r) = ineq {
        b.add_ineq(r);
    }
    b
}

/// Names a map's tuples after two statements' domains.
fn between(m: Map, s: &Set, t: &Set) -> Map {
    m.with_space_names(s.tuple().clone(), t.tuple().clone())
}

/// `{ S[i] -> T[j] : i_k = j_k for k < d }` in the space of `like`.
fn same_outer(like: &Map, d: usize) -> Map {
    let np = like.space().n_param();
    let (ni, no) = (like.n_in(), like.n_out());
    let mut b = crate::presburger::Basic::universe(np, ni + no);
    for k in 0..d.min(ni).min(no) {
        let mut r = b.zero_row();
        r[b.col_dim(k)] = crate::presburger::Int::ONE;
        r[b.col_dim(ni + k)] = crate::presburger::Int::from(-1);
        b.add_eq(r);
    }
    Map::from_parts(like.space().clone(), vec![b])
}

/// Every dependence of the program, deterministic in order.
pub fn dependences(p: &Program) -> Vec<Dependence> {
    let mut out = vec![];
    for (ai, a) in p.accesses.iter().enumerate() {
        for (bi, b) in p.accesses.iter().enumerate() {
            if a.array != b.array {
                continue;
            }
            let kind = match (a.kind, b.kind) {
                (AccessKind::Write, AccessKind::Read) => DepKind::Flow,
                (AccessKind::Read, AccessKind::Write) => DepKind::Anti,
                (AccessKind::Write, AccessKind::Write) => DepKind::Output,
                (AccessKind::Read, AccessKind::Read) => continue,
            };
            let (s, t) = (&p.stmts[a.stmt], &p.stmts[b.stmt]);
            // Instances touching a common element.
            let conflict = match (&a.relation, &b.relation) {
                (Some(ra), Some(rb)) => ra.apply_range(&rb.inverse()),
                _ => Map::from_domain_and_range(&s.domain, &t.domain),
            };
            let mut conflict = between(conflict, &s.domain, &t.domain)
                .intersect_domain(&s.domain)
                .intersect_range(&t.domain);
            if let Some(d) = a.private_depth.or(b.private_depth) {
                conflict = conflict.intersect(&same_outer(&conflict, d));
            }
            // Intersections keep only non-empty parts.
            if conflict.parts().is_empty() {
                continue;
            }
            let n = s.schedule.n_out();
            let joint = joint(&conflict, &s.schedule, &t.schedule);
            let (ni, nj) = (s.domain.n_dim(), t.domain.n_dim());
            // Parts per level. Once the times can no longer be equal up to a level, no
            // deeper level orders anything.
            let mut per_level: Vec<Vec<Basic>> = vec![vec![]; n];
            for b in &joint {
                let red = b.reduced();
                let mut equal: Vec<Row> = vec![];
                for (l, parts) in per_level.iter_mut().enumerate() {
                    let (_, before) = level_rows(b, ni + nj, n, l, Order::Before);
                    if !red.is_empty_with(&equal, &[before.expect("strict")]) {
                        let piece = at_level(b, ni + nj, n, l, Order::Before);
                        parts.push(piece.project_dims(ni + nj, 2 * n));
                    }
                    equal.push(equal_row(b, ni + nj, n, l));
                    if red.is_empty_with(&equal, &[]) {
                        break;
                    }
                }
            }
            let mut pieces = vec![];
            for (l, parts) in per_level.into_iter().enumerate() {
                if !parts.is_empty() {
                    // Each part was just found non-empty.
                    let dep = Map::from_parts(conflict.space().clone(), parts).tidy_nonempty();
                    let level = if l % 2 == 1 {
                        Level::Loop(l.div_ceil(2))
                    } else {
                        Level::Text(l / 2)
                    };
                    pieces.push((level, dep));
                }
            }
            if !pieces.is_empty() {
                out.push(Dependence {
                    kind,
                    array: a.array.clone(),
                    source: a.stmt,
                    sink: b.stmt,
                    source_access: ai,
                    sink_access: bi,
                    pieces,
                });
            }
        }
    }
    out
}

/// The dependences of a kernel as text, with the loop that carries each (`loopy deps`).
pub fn render_deps(scop: &Scop, deps: &[Dependence]) -> String {
    let stmt = |s: usize| {
        let st = &scop.statements[s];
        match &st.label {
            Some(l) => format!("{} ({l}, line {})", st.name, st.span.line),
            None => format!("{} (line {})", st.name, st.span.line),
        }
    };
    // "loop 2 (j)" using the source statement's iterator names.
    let level = |s: usize, l: &Level| match l {
        Level::Loop(d) => {
            let it = scop.statements[s]
                .iterators
                .get(d - 1)
                .cloned()
                .unwrap_or_default();
            format!("carried by loop {d} ({it})")
        }
        Level::Text(d) => format!("loop-independent (textual order inside {d} common loop(s))"),
    };
    let mut out = String::new();
    if deps.is_empty() {
        out.push_str("no dependences\n");
    }
    for d in deps {
        let _ = writeln!(
            out,
            "{} on `{}`: {} -> {}",
            d.kind.name(),
            d.array,
            stmt(d.source),
            stmt(d.sink)
        );
        for (l, m) in &d.pieces {
            let _ = writeln!(out, "  {}: {}", level(d.source, l), m.for_print());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::parse_map;

    /// The direct construction gives the rows of the one through intersections.
    #[test]
    fn joint_raw_has_the_rows_of_joint() {
        let rel = parse_map(
            "[N, M] -> { S[i, j] -> T[k] : 0 <= i < N and 0 <= j < M and k = i + j and \
             exists (e : j = 2e); S[i, j] -> T[k] : k = i - 1 and 0 <= j <= i < N }",
            &[],
        )
        .unwrap();
        let ts = parse_map(
            "[N] -> { S[i, j] -> [0, a, b, 0, i % 32] : a = floor(i / 32) and b = j and i < N }",
            &[],
        )
        .unwrap();
        let tt = parse_map(
            "[M] -> { T[k] -> [1, k, 0, 0, 0] : k < 10; T[k] -> [1, k, 1, floor(k / 4), 0] : \
             k >= 10 and k < M }",
            &[],
        )
        .unwrap();
        let old = joint(&rel, &ts, &tt);
        let new: Vec<Basic> = joint_raw(&rel, &ts, &tt)
            .into_iter()
            .filter_map(|mut b| b.normalize().then_some(b))
            .collect();
        assert!(!old.is_empty());
        assert_eq!(old, new);
    }
}
