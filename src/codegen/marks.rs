//! Mark: the loops marked `parallel` and `vectorize` as OpenMP loops (with the `private`,
//! `firstprivate` and `reduction` clauses they need).

use super::ast::{find_map, ids_in, loop_names, Clauses, LoopPragma, Node};
use super::copy::{allocated, refuse, Extra};
use super::place::Placed;
use super::privatise::ItemVars;
use super::stage::Staging;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Mark, MarkKind};
use crate::model::Scop;
use std::collections::BTreeSet;

/// What marked loop encloses a node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    Nothing,
    Parallel,
    Vectorize,
}

/// The first of `ids` that a loop marked `omp parallel for` encloses.
fn parallel_around(nodes: &[Node], ids: &BTreeSet<usize>) -> Option<usize> {
    find_map(nodes, &mut |n| match n {
        Node::Omp {
            pragma: LoopPragma::ParallelFor(_),
            body,
        } => {
            let mut inside = BTreeSet::new();
            ids_in(body, &mut inside);
            inside.intersection(ids).next().copied()
        }
        _ => None,
    })
}

/// The reduction variables of a loop marked `parallel(op)` that encloses the pieces `ids`:
/// the scalars some enclosed statement updates with `op` (`s += e`) and that every enclosed
/// statement accessing them updates with `op` (each thread combines into its own copy), and
/// the arrays of higher rank some enclosed statement updates with `op` (their updates are
/// made atomic: the verifier judged the reduction element by element, so other accesses
/// to the array inside the loop touch no element the loop updates). Items past the
/// statements' (`n_stmt`: a copy's fill, write-back and corner) touch only their buffers.
fn reduction_variables<'a>(
    scop: &'a Scop,
    placed: &[Placed],
    n_stmt: usize,
    ids: &BTreeSet<usize>,
    op: crate::model::state::RedOp,
) -> Vec<&'a crate::model::Array> {
    let stmts: BTreeSet<usize> = ids
        .iter()
        .filter(|&&i| i < n_stmt)
        .map(|&i| placed[i].stmt)
        .collect();
    scop.arrays
        .iter()
        .filter(|a| {
            let mut updated = false;
            for &s in &stmts {
                let st = &scop.statements[s];
                if !st.accesses.iter().any(|x| x.array == a.name) {
                    continue;
                }
                match &st.update {
                    Some(u) if u.array == a.name && u.op == op => updated = true,
                    _ if a.rank > 0 => {}
                    _ => return false,
                }
            }
            updated
        })
        .collect()
}

/// What `mark_loops` needs of the kernel besides the tree.
struct MarkCtx<'a> {
    pub scop: &'a Scop,
    pub placed: &'a [Placed],
    pub n_stmt: usize,
    /// Counters declared outside the generated code.
    pub predeclared: &'a BTreeSet<String>,
    /// Per scan item, the variables each thread needs its own copy of.
    pub private_of: &'a [ItemVars],
}

/// Puts an OpenMP directive on every generated loop that carries a mark. A loop scanning
/// iteration dim `j` (scanned dim `2j+1`) carries the marks its pieces have at `j`: every
/// loop at that dim, also when scanning splits it into several (full and partial tiles,
/// head and tail), and for every piece it encloses, marked or not (the verifier checks all
/// of them). Two different marks on one loop, and a marked loop inside a parallel or a
/// vectorized loop (other than a vectorized loop inside a parallel one), are refused.
fn mark_loops(cx: &MarkCtx, nodes: Vec<Node>, inside: Inside) -> Result<Vec<Node>, Diagnostic> {
    let mut out = vec![];
    for n in nodes {
        match n {
            Node::For {
                var,
                name,
                lower,
                step,
                upper,
                body,
            } => {
                let mut ids = BTreeSet::new();
                ids_in(&body, &mut ids);
                let m = loop_mark(cx.placed, var, &ids)?;
                let (pragma, inner, atomic) = match m {
                    Some(m) => directive(cx, m, &body, &ids, inside)?,
                    None => (None, inside, vec![]),
                };
                let mut body = mark_loops(cx, body, inner)?;
                if let (false, Some(m)) = (atomic.is_empty(), m) {
                    body = atomic_updates(cx, body, &atomic, m)?;
                }
                let lp = Node::For {
                    var,
                    name,
                    lower,
                    step,
                    upper,
                    body,
                };
                out.push(match pragma {
                    Some(pragma) => Node::Omp {
                        pragma,
                        body: vec![lp],
                    },
                    None => lp,
                });
            }
            n @ (Node::Assign { .. } | Node::If { .. }) => {
                out.push(n.try_map_bodies(|body| mark_loops(cx, body, inside))?)
            }
            n => out.push(n),
        }
    }
    Ok(out)
}

/// The one mark of a loop at scanned dim `var` around the pieces `ids`, refused when they
/// carry two different ones.
fn loop_mark<'a>(
    placed: &'a [Placed],
    var: usize,
    ids: &BTreeSet<usize>,
) -> Result<Option<&'a Mark>, Diagnostic> {
    let mut marks: Vec<&Mark> = vec![];
    if var % 2 == 1 {
        for &id in ids {
            if let Some(m) = placed[id].marks.iter().find(|m| 2 * m.dim + 1 == var) {
                if !marks.iter().any(|x| x.kind == m.kind) {
                    marks.push(m);
                }
            }
        }
    }
    match &marks[..] {
        [] => Ok(None),
        [m] => Ok(Some(*m)),
        [a, b, ..] => Err(Diagnostic::new(
            codes::MARK_NOT_GENERATED,
            format!(
                "cannot generate code: one loop is marked both `{}` and `{}`",
                a.kind.describe(),
                b.kind.describe()
            ),
        )
        .with_label(&a.origin.source, a.origin.span.clone(), "marked here")
        .with_label(&b.origin.source, b.origin.span.clone(), "and here")
        .with_note("the statements of one generated loop share its marks; mark the loop once")),
    }
}

/// The directive a loop marked `m` gets (none for `unroll`, which `unroll_loops` does
/// later, inside any loop), and what its body is then inside.
fn directive(
    cx: &MarkCtx,
    m: &Mark,
    body: &[Node],
    ids: &BTreeSet<usize>,
    inside: Inside,
) -> Result<(Option<LoopPragma>, Inside, Vec<String>), Diagnostic> {
    let refuse = |what: &str| {
        Err(Diagnostic::new(
            codes::MARK_NOT_GENERATED,
            format!(
                "cannot generate code: a loop marked `{}` inside a {what} loop",
                m.kind.describe()
            ),
        )
        .with_label(&m.origin.source, m.origin.span.clone(), "marked here")
        .with_note("nested parallel loops are not generated; mark one of them"))
    };
    match (inside, &m.kind) {
        (_, MarkKind::Unroll { .. }) => Ok((None, inside, vec![])),
        (Inside::Vectorize, _) => refuse("vectorized"),
        (Inside::Parallel, MarkKind::Parallel { .. }) => refuse("parallel"),
        (_, MarkKind::Parallel { reduction }) => {
            let (clauses, atomic) = clauses(cx, m, body, ids, *reduction)?;
            Ok((
                Some(LoopPragma::ParallelFor(clauses)),
                Inside::Parallel,
                atomic,
            ))
        }
        (_, MarkKind::Vectorize) if ids.iter().any(|&id| !cx.private_of[id].is_empty()) => {
            Err(Diagnostic::new(codes::MARK_NOT_GENERATED,
                "cannot generate code: a loop marked `vectorize` encloses the fill of a copy",
            )
            .with_label(&m.origin.source, m.origin.span.clone(), "marked here")
            .with_note("the lanes of a vector loop would share one buffer; vectorize a loop inside the copy's loops"))
        }
        (_, MarkKind::Vectorize) => Ok((Some(LoopPragma::Simd), Inside::Vectorize, vec![])),
    }
}

/// The clauses of a parallel loop around the pieces `ids`: the counters declared outside
/// the generated code that loops inside count with, the enclosed items' own variables, and
/// the scalars of its reduction; and the arrays of its reduction, whose updates become
/// atomic (`atomic_updates`).
fn clauses(
    cx: &MarkCtx,
    m: &Mark,
    body: &[Node],
    ids: &BTreeSet<usize>,
    reduction: Option<crate::model::state::RedOp>,
) -> Result<(Clauses, Vec<String>), Diagnostic> {
    let mut private: BTreeSet<String> = loop_names(body)
        .into_iter()
        .filter(|n| cx.predeclared.contains(n))
        .collect();
    let mut firstprivate: BTreeSet<String> = BTreeSet::new();
    for &id in ids {
        private.extend(cx.private_of[id].private.iter().cloned());
        firstprivate.extend(cx.private_of[id].firstprivate.iter().cloned());
    }
    let mut c = Clauses {
        private: private.into_iter().collect(),
        firstprivate: firstprivate.into_iter().collect(),
        reduction: None,
    };
    let Some(op) = reduction else {
        return Ok((c, vec![]));
    };
    let mut names = vec![];
    let mut atomic = vec![];
    for a in reduction_variables(cx.scop, cx.placed, cx.n_stmt, ids, op) {
        if a.rank > 0 && atomic_op(op) {
            atomic.push(a.name.clone());
            continue;
        }
        if a.rank > 0 {
            return Err(Diagnostic::new(codes::MARK_NOT_GENERATED, format!(
                "cannot generate code: the `{}` reduction of the array `{}` is not generated (only scalar reductions, and `+` and `*` reductions of array elements, are)",
                op.symbol(),
                a.c_name
            ))
            .with_label(&m.origin.source, m.origin.span.clone(), "marked here")
            .with_help(format!(
                "if the loop carries no dependence on `{}`, mark it `parallel` without an operator",
                a.c_name
            )));
        }
        names.push(a.c_name.clone());
    }
    if !names.is_empty() {
        c.reduction = Some((op.symbol(), names));
    }
    Ok((c, atomic))
}

/// Whether an update by `op` can be an OpenMP `atomic` update (`x += e`, `x -= e`,
/// `x *= e` and `x = x op e`; not `fmin`/`fmax`).
fn atomic_op(op: crate::model::state::RedOp) -> bool {
    use crate::model::state::RedOp;
    matches!(op, RedOp::Add | RedOp::Mul)
}

/// Inside a loop marked `parallel(op)` whose reduction is of array elements, each update of
/// one of `arrays` as an OpenMP `atomic` update. The verifier allowed the loop's dependences
/// between these updates only (other accesses of the arrays touch no element the loop
/// updates), so the updates may run in any order but must not be lost; a private copy per
/// thread (OpenMP's `reduction` clause) would also privatise the elements `e` reads.
fn atomic_updates(
    cx: &MarkCtx,
    nodes: Vec<Node>,
    arrays: &[String],
    mark: &Mark,
) -> Result<Vec<Node>, Diagnostic> {
    let updates = |id: usize| {
        id < cx.n_stmt
            && cx.scop.statements[cx.placed[id].stmt]
                .update
                .as_ref()
                .is_some_and(|u| arrays.contains(&u.array))
    };
    let mut out = vec![];
    for n in nodes {
        match n {
            Node::Stmt { id, .. } if updates(id) => out.push(Node::Omp {
                pragma: LoopPragma::Atomic,
                body: vec![n],
            }),
            Node::Omp {
                pragma: LoopPragma::Simd,
                ref body,
            } => {
                let mut ids = BTreeSet::new();
                ids_in(body, &mut ids);
                if ids.iter().any(|&id| updates(id)) {
                    return Err(Diagnostic::new(
                        codes::MARK_NOT_GENERATED,
                        format!(
                            "cannot generate code: the `{}` reduction of array elements is generated as atomic updates, which a vectorized loop inside it cannot hold",
                            mark.kind.describe()
                        ),
                    )
                    .with_label(&mark.origin.source, mark.origin.span.clone(), "marked here")
                    .with_help("vectorize a loop outside the reduction, or mark the loop `parallel` without an operator if it carries no dependence"));
                }
                out.push(n);
            }
            n => out.push(n.try_map_bodies(|body| atomic_updates(cx, body, arrays, mark))?),
        }
    }
    Ok(out)
}

/// The marked loops of the scanned tree as OpenMP loops; refused where a buffer allocated
/// once for the whole region would lie inside a parallel loop.
pub(super) fn mark(
    scop: &Scop,
    st: &Staging,
    private_of: &[ItemVars],
    nodes: Vec<Node>,
) -> Result<Vec<Node>, Diagnostic> {
    let predeclared: BTreeSet<String> = scop
        .statements
        .iter()
        .flat_map(|s| s.loops.iter())
        .filter(|l| l.outer_counter)
        .map(|l| l.c_name.clone())
        .collect();
    let cx = MarkCtx {
        scop,
        placed: &st.placed,
        n_stmt: st.n_stmt,
        predeclared: &predeclared,
        private_of,
    };
    let nodes = mark_loops(&cx, nodes, Inside::Nothing)?;
    // A buffer allocated when the region starts is one object: no thread may have its own.
    let allocated: BTreeSet<usize> = (st.n_stmt..st.placed.len())
        .filter(|&id| match st.extra(id) {
            Some(Extra::Setup(c)) => allocated(&st.plans[*c]),
            _ => false,
        })
        .collect();
    let Some(id) = parallel_around(&nodes, &allocated) else {
        return Ok(nodes);
    };
    let plan = &st.plans[st.copy_of(id).expect("only setups are collected")];
    Err(refuse(
        plan,
        format!(
            "the buffer of `{}` has a size that depends on the parameters and lies inside a loop marked `parallel`",
            plan.c_name
        ),
    )
    .with_note("such a buffer is allocated once, when the region starts, so the threads of the parallel loop would share it")
    .with_help("copy inside loops whose iterations touch a box of constant size (tile first), or mark a loop inside the copy's loops `parallel`"))
}
