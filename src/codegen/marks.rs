//! Marks on generated loops: `parallel` and `vectorize` as OpenMP pragmas (with the
//! `private`, `firstprivate` and `reduction` clauses they need), and `unroll` as copies of
//! the loop body. Applied to the loop AST that `kernel` scans, before register blocks.

use super::ast::{find_map, for_each, ids_in, Clauses, LoopPragma, Node};
use super::kernel::{loop_names, Placed};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Mark, MarkKind};
use crate::model::Scop;
use std::collections::BTreeSet;

/// What marked loop encloses a node.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Inside {
    Nothing,
    Parallel,
    Vectorize,
}

/// The variables a scan item sets that each thread of a parallel loop around it needs its
/// own copy of (a copy's corner: its buffer, unless each thread allocates one, and its
/// offsets).
#[derive(Clone, Debug, Default)]
pub(super) struct ItemVars {
    pub private: Vec<String>,
    /// Private copies that start as the region set them: a copy's offsets (0). Every
    /// thread sets its own before use, but a compiler cannot always see that and warns of
    /// private copies used uninitialized.
    pub firstprivate: Vec<String>,
}

impl ItemVars {
    fn is_empty(&self) -> bool {
        self.private.is_empty() && self.firstprivate.is_empty()
    }
}

/// The first of `ids` that a loop marked `omp parallel for` encloses.
pub(super) fn parallel_around(nodes: &[Node], ids: &BTreeSet<usize>) -> Option<usize> {
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
/// the arrays some enclosed statement updates with `op` (`s += e`) and that every enclosed
/// statement accessing them updates with `op`. The verifier allowed the loop's dependences
/// on exactly these; each thread combines into its own copy. Items past the statements'
/// (`n_stmt`: a copy's fill, write-back and corner) touch only their buffers.
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
                    _ => return false,
                }
            }
            updated
        })
        .collect()
}

/// What `mark_loops` needs of the kernel besides the tree.
pub(super) struct MarkCtx<'a> {
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
pub(super) fn mark_loops(
    cx: &MarkCtx,
    nodes: Vec<Node>,
    inside: Inside,
) -> Result<Vec<Node>, Diagnostic> {
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
                let (pragma, inner) = match loop_mark(cx.placed, var, &ids)? {
                    Some(m) => directive(cx, m, &body, &ids, inside)?,
                    None => (None, inside),
                };
                let body = mark_loops(cx, body, inner)?;
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
        [a, b, ..] => Err(Diagnostic::new(codes::MARK_NOT_GENERATED, format!(
            "cannot generate code: one loop is marked both `{}` and `{}`",
            a.kind.describe(),
            b.kind.describe()
        ))
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
) -> Result<(Option<LoopPragma>, Inside), Diagnostic> {
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
        (_, MarkKind::Unroll { .. }) => Ok((None, inside)),
        (Inside::Vectorize, _) => refuse("vectorized"),
        (Inside::Parallel, MarkKind::Parallel { .. }) => refuse("parallel"),
        (_, MarkKind::Parallel { reduction }) => {
            let clauses = clauses(cx, m, body, ids, *reduction)?;
            Ok((Some(LoopPragma::ParallelFor(clauses)), Inside::Parallel))
        }
        (_, MarkKind::Vectorize) if ids.iter().any(|&id| !cx.private_of[id].is_empty()) => {
            Err(Diagnostic::new(codes::MARK_NOT_GENERATED,
                "cannot generate code: a loop marked `vectorize` encloses the fill of a copy",
            )
            .with_label(&m.origin.source, m.origin.span.clone(), "marked here")
            .with_note("the lanes of a vector loop would share one buffer; vectorize a loop inside the copy's loops"))
        }
        (_, MarkKind::Vectorize) => Ok((Some(LoopPragma::Simd), Inside::Vectorize)),
    }
}

/// The clauses of a parallel loop around the pieces `ids`: the counters declared outside
/// the generated code that loops inside count with, the enclosed items' own variables, and
/// the scalars of its reduction.
fn clauses(
    cx: &MarkCtx,
    m: &Mark,
    body: &[Node],
    ids: &BTreeSet<usize>,
    reduction: Option<crate::model::state::RedOp>,
) -> Result<Clauses, Diagnostic> {
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
    let Some(op) = reduction else { return Ok(c) };
    let mut names = vec![];
    for a in reduction_variables(cx.scop, cx.placed, cx.n_stmt, ids, op) {
        if a.rank > 0 {
            return Err(Diagnostic::new(codes::MARK_NOT_GENERATED, format!(
                "cannot generate code: the `{}` reduction of the array `{}` is not generated (only scalar reductions are)",
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
    Ok(c)
}

/// The unroll factor of a generated loop at scanned dim `var` enclosing `body`: the
/// `unroll` mark its pieces carry at that dim (`mark_loops` has already refused two
/// different marks on one loop).
fn unroll_factor<'a>(var: usize, body: &[Node], placed: &'a [Placed]) -> Option<(u32, &'a Mark)> {
    if var.is_multiple_of(2) {
        return None;
    }
    let mut ids = BTreeSet::new();
    ids_in(body, &mut ids);
    ids.iter().find_map(|&id| {
        placed[id].marks.iter().find_map(|m| match m.kind {
            MarkKind::Unroll { factor } if 2 * m.dim + 1 == var && factor > 1 => Some((factor, m)),
            _ => None,
        })
    })
}

/// The most statement copies one unrolled loop may hold (nested unrolls multiply).
pub const MAX_UNROLLED_STATEMENTS: usize = 20_000;

/// Statement leaves in a list of nodes.
fn count_stmts(nodes: &[Node]) -> usize {
    let mut n = 0;
    for_each(nodes, &mut |x| {
        if let Node::Stmt { .. } | Node::Text { .. } = x {
            n += 1;
        }
    });
    n
}

/// Unrolls every loop marked `unroll(u)`, inner loops first. A copy of the body is the body
/// with the loop variable `v` replaced by `v + k*step` in every expression (bounds of inner
/// loops, guards, statement arguments). When the trip count `T` is a constant (the bounds
/// differ by a constant, as in full tiles), the code has no remainder test: `T <= u`
/// leaves no loop (`T` copies with `v` fixed to `lower + k*step`), otherwise a loop of
/// `T / u` iterations of `u` copies and `T % u` fixed copies after it. Otherwise the loop
/// becomes an [`Node::Unrolled`]: `u` copies while `u` iterations remain, then a loop for
/// the rest. Copies of a body that declares variables are each a C block.
pub(super) fn unroll_loops(
    nodes: Vec<Node>,
    placed: &[Placed],
    n_param: usize,
    declaring: &BTreeSet<usize>,
) -> Result<Vec<Node>, Diagnostic> {
    use super::ast::shift_nodes;
    use crate::presburger::Int;
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
                let body = unroll_loops(body, placed, n_param, declaring)?;
                let Some((u, mark)) = unroll_factor(var, &body, placed) else {
                    out.push(Node::For {
                        var,
                        name,
                        lower,
                        step,
                        upper,
                        body,
                    });
                    continue;
                };
                let n = count_stmts(&body);
                if n.saturating_mul(u as usize + 1) > MAX_UNROLLED_STATEMENTS {
                    return Err(Diagnostic::new(codes::MARK_NOT_GENERATED, format!(
                        "cannot generate code: unrolling this loop by {u} would repeat {n} statement(s) {u} times, more than the {MAX_UNROLLED_STATEMENTS} statement copies one unrolled loop may hold"
                    ))
                    .with_label(&mark.origin.source, mark.origin.span.clone(), "unrolled here")
                    .with_note("nested unrolled loops multiply: the body already holds the copies of the loops unrolled inside it")
                    .with_help("use smaller factors"));
                }
                let mut ids = BTreeSet::new();
                ids_in(&body, &mut ids);
                let scoped = ids.iter().any(|id| declaring.contains(id));
                let col = 1 + n_param + var;
                let copy = |k: i64| {
                    let c = shift_nodes(&body, col, &(&step * &Int::from(k)));
                    if scoped {
                        vec![Node::Block(c)]
                    } else {
                        c
                    }
                };
                let copies =
                    |from: i64, to: i64| -> Vec<Node> { (from..to).flat_map(copy).collect() };
                let fixed = |k: i64, body: Vec<Node>| Node::Assign {
                    var,
                    value: lower.plus_const(&(&step * &Int::from(k))),
                    body,
                };
                let u = i64::from(u);
                let trips = upper
                    .const_diff(&lower)
                    .map(|d| d.div_floor(&step) + Int::ONE)
                    .and_then(|t| t.to_i64());
                match trips {
                    Some(t) if t <= 0 => {}
                    Some(t) if t <= u => {
                        for k in 0..t {
                            out.push(fixed(k, copy(0)));
                        }
                    }
                    Some(t) => {
                        let (q, r) = (t / u, t % u);
                        if q == 1 {
                            out.push(fixed(0, copies(0, u)));
                        } else {
                            out.push(Node::For {
                                var,
                                name,
                                upper: lower.plus_const(&(&step * &Int::from((q - 1) * u))),
                                lower: lower.clone(),
                                step: &step * &Int::from(u),
                                body: copies(0, u),
                            });
                        }
                        for k in 0..r {
                            out.push(fixed(q * u + k, copy(0)));
                        }
                    }
                    None => out.push(Node::Unrolled {
                        var,
                        name,
                        body: copies(0, u),
                        // Its own C block already.
                        rest: body.clone(),
                        lower,
                        step,
                        upper,
                        factor: Int::from(u),
                    }),
                }
            }
            n @ (Node::Assign { .. } | Node::If { .. } | Node::Omp { .. }) => {
                out.push(n.try_map_bodies(|body| unroll_loops(body, placed, n_param, declaring))?)
            }
            n => out.push(n),
        }
    }
    Ok(out)
}
