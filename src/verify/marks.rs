//! Legality of loop marks (`parallel`, `vectorize`) on the final schedule. (`unroll` keeps
//! the order of its loop, so it needs no test and is skipped here.)
//!
//! The generated loop scanning schedule dim `2j+1` encloses every piece whose positions
//! `p0..pj` are equal (scanning separates pieces by their constant position dims first); it
//! carries a mark when any of those pieces is marked at iteration dim `j` (see the code
//! generator). Such a loop runs its iterations in any order, or at once, so it is legal iff
//! no dependence — flow, anti or output, memory-based — holds between two instances of the
//! statements it encloses that have equal schedule times before dim `2j+1` and different
//! times at it. The test is exact (an emptiness question per dependence, pair of pieces and
//! marked dim); a violation comes with the smallest witness.
//!
//! Scanning may split one marked dim into several loops (full and partial tiles, head and
//! tail); the test treats them as one, which can only refuse more, never less.

use super::check::{
    element, eval, fmt_vec, joint_params, name_of, named_params, with_params, Instance, Violation,
    ViolationKind,
};
use super::deps::{at_level, joint_raw, DepKind, Dependence, Order, Program};
use crate::diag::Diagnostic;
use crate::model::state::{Mark, Piece};
use crate::presburger::{Int, Map};

/// A dependence between two different iterations of a marked loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkViolation {
    /// The mark (one of the enclosed pieces' marks on that loop).
    pub mark: Mark,
    /// Index of the dependence.
    pub dep: usize,
    pub params: Vec<(String, Int)>,
    /// Source and sink iteration vectors.
    pub source: Vec<Int>,
    pub sink: Vec<Int>,
    /// Their final schedule times.
    pub source_time: Vec<Int>,
    pub sink_time: Vec<Int>,
    /// The schedule dim of the marked loop (`2j+1`).
    pub level: usize,
}

/// The smallest witness so far: (parameters, i, j), the parameter names, the mark.
type Witness = (Vec<Int>, Vec<String>, Mark);

/// The mark on the generated loop at iteration dim `j` that encloses pieces with positions
/// starting with `pos[..=j]`, if any.
fn loop_mark<'a>(pieces: &'a [Piece], pos: &[Int], j: usize) -> Option<&'a Mark> {
    pieces
        .iter()
        .filter(|r| r.pos.len() > j && r.pos[..=j] == pos[..=j])
        .find_map(|r| r.mark_at(j).filter(|m| m.kind.reorders()))
}

/// Every dependence between different iterations of a marked loop of the final schedule,
/// one violation (the smallest witness) per dependence and marked loop.
pub fn check_marks(program: &Program, deps: &[Dependence], pieces: &[Piece]) -> Vec<MarkViolation> {
    if pieces
        .iter()
        .all(|p| p.marks.iter().all(|m| !m.kind.reorders()))
    {
        return vec![];
    }
    let scheds: Vec<Map> = pieces.iter().map(Piece::schedule).collect();
    let mut out = vec![];
    for (di, d) in deps.iter().enumerate() {
        let rel = d.relation().with_space_names(
            program.stmts[d.source].domain.tuple().clone(),
            program.stmts[d.sink].domain.tuple().clone(),
        );
        let (ni, nj) = (rel.n_in(), rel.n_out());
        // Per marked loop (iteration dim j): the smallest witness over all piece pairs.
        let mut best: Vec<Option<Witness>> = vec![];
        for (pi, p) in pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| p.stmt == d.source)
        {
            for (qi, q) in pieces.iter().enumerate().filter(|(_, q)| q.stmt == d.sink) {
                let n = scheds[pi].n_out();
                let m = p.it.n_out();
                if best.len() < m {
                    best.resize(m, None);
                }
                let mut joint = None;
                #[allow(clippy::needless_range_loop)]
                for j in 0..m {
                    if p.pos[j] != q.pos[j] {
                        break;
                    }
                    let Some(mark) = loop_mark(pieces, &p.pos, j) else {
                        continue;
                    };
                    let l = 2 * j + 1;
                    let joint =
                        joint.get_or_insert_with(|| joint_raw(&rel, &scheds[pi], &scheds[qi]));
                    for b in joint.iter() {
                        let jp = b.n_param;
                        for order in [Order::Before, Order::After] {
                            let mut t = at_level(b, ni + nj, n, l, order);
                            if !t.normalize() {
                                continue;
                            }
                            if let Some(w) = t.lexmin_prefix(jp + ni + nj) {
                                let better = best[j].as_ref().is_none_or(|(x, _, _)| w < *x);
                                if better {
                                    let names = joint_params(&rel, &scheds[pi], &scheds[qi]);
                                    best[j] = Some((w, names, mark.clone()));
                                }
                            }
                        }
                    }
                }
            }
        }
        for (j, b) in best.into_iter().enumerate() {
            let Some((w, names, mark)) = b else {
                continue;
            };
            let jp = names.len();
            let params = named_params(&names, &w[..jp]);
            let (i, k) = (w[jp..jp + ni].to_vec(), w[jp + ni..jp + ni + nj].to_vec());
            let time = |s: usize, x: &[Int]| {
                pieces
                    .iter()
                    .zip(&scheds)
                    .filter(|(p, _)| p.stmt == s)
                    .find_map(|(_, m)| eval(m, &params, x))
                    .unwrap_or_default()
            };
            out.push(MarkViolation {
                mark,
                dep: di,
                source_time: time(d.source, &i),
                sink_time: time(d.sink, &k),
                params,
                source: i,
                sink: k,
                level: 2 * j + 1,
            });
        }
    }
    out
}

/// A report for a mark violation: the two iterations, the element, both statements with
/// their C lines, and the operation that set the mark.
pub fn mark_report(p: &Program, deps: &[Dependence], v: &MarkViolation) -> Diagnostic {
    let dep = &deps[v.dep];
    let what = v.mark.kind.describe();
    let kind = match v.mark.kind {
        crate::model::state::MarkKind::Vectorize => "vectorized",
        crate::model::state::MarkKind::Parallel { .. } => "parallel",
        crate::model::state::MarkKind::Unroll { .. } => "unrolled",
    };
    let verb = match dep.kind {
        DepKind::Flow => ("writes", "reads"),
        DepKind::Anti => ("reads", "writes"),
        DepKind::Output => ("writes", "writes"),
    };
    let with = with_params(&v.params);
    let at = |t: &[Int]| t.get(v.level).map_or("?".to_string(), Int::to_string);
    let elem = element(p, dep.source_access, &v.params, &v.source);
    let inst = |s: usize, x: &[Int]| {
        let st = &p.stmts[s];
        format!(
            "{}[{}]",
            st.label.clone().unwrap_or_else(|| st.name.clone()),
            fmt_vec(x)
        )
    };
    let mut d = Diagnostic::new(format!(
        "illegal `{what}`: iterations {} and {} of the {kind} loop both access {elem}: {} {} it, {} {} it",
        at(&v.source_time),
        at(&v.sink_time),
        name_of(p, dep.source),
        verb.0,
        name_of(p, dep.sink),
        verb.1,
    ))
    .with_note(format!(
        "{with}{} runs at ({}) and {} at ({}); the {kind} loop is schedule dimension {} — {} {} dependence on `{}` between two of its iterations",
        inst(dep.source, &v.source),
        fmt_vec(&v.source_time),
        inst(dep.sink, &v.sink),
        fmt_vec(&v.sink_time),
        v.level,
        if dep.kind == DepKind::Flow { "a" } else { "an" },
        dep.kind.name(),
        dep.array,
    ));
    for (s, x, role) in [(dep.source, &v.source, verb.0), (dep.sink, &v.sink, verb.1)] {
        if let Some(o) = &p.stmts[s].origin {
            d = d.with_label(
                &o.source,
                o.span.clone(),
                format!("{} {role} {elem}", inst(s, x)),
            );
        }
    }
    d = d.with_label(
        &v.mark.origin.source,
        v.mark.origin.span.clone(),
        format!(
            "marked `{what}` here (loop {} of the final schedule)",
            v.level / 2 + 1
        ),
    );
    if dep.array.chars().all(|c| c.is_alphanumeric() || c == '_')
        && p.accesses[dep.source_access]
            .relation
            .as_ref()
            .is_some_and(|r| r.n_out() == 0)
    {
        d = d.with_help(format!(
            "`{}` is one variable shared by every iteration; declare it inside the loop body to give each iteration its own",
            dep.array
        ));
    }
    d
}

/// A mark violation in the shape of the other violations (`check`'s list), with the
/// instances' original and final times.
pub fn into_violation(p: &Program, deps: &[Dependence], v: MarkViolation) -> Violation {
    let d = &deps[v.dep];
    let old = |s: usize, x: &[Int]| eval(&p.stmts[s].schedule, &v.params, x).unwrap_or_default();
    let first = Instance {
        stmt: d.source,
        iters: v.source.clone(),
        old_time: old(d.source, &v.source),
        new_time: v.source_time.clone(),
    };
    let second = Instance {
        stmt: d.sink,
        iters: v.sink.clone(),
        old_time: old(d.sink, &v.sink),
        new_time: v.sink_time.clone(),
    };
    Violation {
        params: v.params.clone(),
        kind: ViolationKind::Mark(Box::new(v)),
        first,
        second,
        moved_by: vec![],
        merged_by: None,
    }
}
