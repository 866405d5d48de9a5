//! Marks on generated loops: `parallel` and `vectorize` as OpenMP pragmas (with the
//! `private`, `firstprivate` and `reduction` clauses they need), and `unroll` as copies of
//! the loop body. Applied to the loop AST that `kernel` scans, before register blocks.

use super::ast::Node;
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

/// The first of `ids` that a loop marked `omp parallel for` encloses.
pub(super) fn parallel_around(nodes: &[Node], ids: &BTreeSet<usize>) -> Option<usize> {
    for (k, n) in nodes.iter().enumerate() {
        if let Node::Pragma(text) = n {
            if text.starts_with("omp parallel for") {
                let mut inside = BTreeSet::new();
                ids_in(&nodes[k + 1..(k + 2).min(nodes.len())], &mut inside);
                if let Some(id) = inside.intersection(ids).next() {
                    return Some(*id);
                }
            }
        }
        let found = match n {
            Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
                parallel_around(body, ids)
            }
            Node::Unrolled { body, rest, .. } => {
                parallel_around(body, ids).or_else(|| parallel_around(rest, ids))
            }
            Node::Block(body) => parallel_around(body, ids),
            Node::Stmt { .. }
            | Node::Text { .. }
            | Node::Raw(_)
            | Node::Comment(_)
            | Node::Pragma(_) => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Pieces (scan item ids) whose statements a list of nodes runs.
pub(super) fn ids_in(nodes: &[Node], out: &mut BTreeSet<usize>) {
    for n in nodes {
        match n {
            Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
                ids_in(body, out)
            }
            Node::Stmt { id, .. } | Node::Text { id, .. } => {
                out.insert(*id);
            }
            Node::Unrolled { body, rest, .. } => {
                ids_in(body, out);
                ids_in(rest, out);
            }
            Node::Block(body) => ids_in(body, out),
            Node::Comment(_) | Node::Pragma(_) | Node::Raw(_) => {}
        }
    }
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

/// Whether an update by `op` can be an OpenMP `atomic` update (`x += e`, `x -= e`,
/// `x *= e` and `x = x op e`; not `fmin`/`fmax`).
fn atomic_op(op: crate::model::state::RedOp) -> bool {
    use crate::model::state::RedOp;
    matches!(op, RedOp::Add | RedOp::Mul)
}

/// A loop marked `parallel(op)` whose reduction is of array elements: each update of one of
/// `arrays` inside it becomes an OpenMP `atomic` update. The verifier allowed the loop's
/// dependences between these updates only (other accesses of the arrays touch no element
/// the loop updates), so the updates may run in any order but must not be lost; a private
/// copy per thread (OpenMP's `reduction` clause) would also privatise the elements `e` reads.
fn atomic_updates(
    scop: &Scop,
    nodes: Vec<Node>,
    placed: &[Placed],
    n_stmt: usize,
    arrays: &[String],
    mark: &Mark,
) -> Result<Vec<Node>, Diagnostic> {
    let updates = |id: usize| {
        id < n_stmt
            && scop.statements[placed[id].stmt]
                .update
                .as_ref()
                .is_some_and(|u| arrays.contains(&u.array))
    };
    let refuse = || {
        Diagnostic::new(
            codes::MARK_NOT_GENERATED,
            format!(
                "cannot generate code: the `{}` reduction of array elements is generated as atomic updates, which a vectorized loop inside it cannot hold",
                mark.kind.describe()
            ),
        )
        .with_label(&mark.origin.source, mark.origin.span.clone(), "marked here")
        .with_help("vectorize a loop outside the reduction, or mark the loop `parallel` without an operator if it carries no dependence")
    };
    let mut out = vec![];
    let mut simd = false;
    for n in nodes {
        match n {
            Node::Stmt { id, .. } if updates(id) && !simd => {
                out.push(Node::Pragma("omp atomic".to_string()));
                out.push(n);
            }
            Node::Pragma(ref t) => {
                simd = t.starts_with("omp simd");
                out.push(n);
                continue;
            }
            n => {
                let mut ids = BTreeSet::new();
                ids_in(std::slice::from_ref(&n), &mut ids);
                if simd && ids.iter().any(|&id| updates(id)) {
                    return Err(refuse());
                }
                out.push(n.try_map_bodies(|body| {
                    atomic_updates(scop, body, placed, n_stmt, arrays, mark)
                })?);
            }
        }
        simd = false;
    }
    Ok(out)
}

/// Puts a `#pragma` before every generated loop that carries a mark. A loop scanning
/// iteration dim `j` (scanned dim `2j+1`) carries the marks its pieces have at `j`: every
/// loop at that dim, also when scanning splits it into several (full and partial tiles,
/// head and tail), and for every piece it encloses, marked or not (the verifier checks all
/// of them). Two different marks on one loop, and a marked loop inside a parallel or a
/// vectorized loop (other than a vectorized loop inside a parallel one), are refused.
pub(super) fn mark_loops(
    scop: &Scop,
    nodes: Vec<Node>,
    placed: &[Placed],
    n_stmt: usize,
    predeclared: &BTreeSet<String>,
    private_of: &[Vec<String>],
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
                let mut marks: Vec<&Mark> = vec![];
                if var % 2 == 1 {
                    for &id in &ids {
                        if let Some(m) = placed[id].marks.iter().find(|m| 2 * m.dim + 1 == var) {
                            if !marks.iter().any(|x| x.kind == m.kind) {
                                marks.push(m);
                            }
                        }
                    }
                }
                let here = match &marks[..] {
                    [] => None,
                    [m] => Some(*m),
                    [a, b, ..] => {
                        return Err(Diagnostic::new(codes::MARK_NOT_GENERATED, format!(
                            "cannot generate code: one loop is marked both `{}` and `{}`",
                            a.kind.describe(),
                            b.kind.describe()
                        ))
                        .with_label(&a.origin.source, a.origin.span.clone(), "marked here")
                        .with_label(&b.origin.source, b.origin.span.clone(), "and here")
                        .with_note("the statements of one generated loop share its marks; mark the loop once"));
                    }
                };
                let mut inner = inside;
                let mut atomic: Vec<String> = vec![];
                if let Some(m) = here {
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
                        // Unrolling keeps the order: it is done after the pragmas
                        // (`unroll_loops`), inside any loop.
                        (_, MarkKind::Unroll { .. }) => {}
                        (Inside::Vectorize, _) => return refuse("vectorized"),
                        (Inside::Parallel, MarkKind::Parallel { .. }) => return refuse("parallel"),
                        (_, MarkKind::Parallel { reduction }) => {
                            inner = Inside::Parallel;
                            let mut text = "omp parallel for".to_string();
                            let mut private: BTreeSet<String> = loop_names(&body)
                                .into_iter()
                                .filter(|n| predeclared.contains(n))
                                .collect();
                            for &id in &ids {
                                private.extend(private_of[id].iter().cloned());
                            }
                            // A copy's offsets start as the region set them (0): every
                            // thread sets its own before use, but a compiler cannot always
                            // see that and warns of private copies used uninitialized.
                            let (offsets, private): (Vec<String>, Vec<String>) =
                                private.into_iter().partition(|n| super::copy::is_offset(n));
                            if !private.is_empty() {
                                text.push_str(&format!(" private({})", private.join(", ")));
                            }
                            if !offsets.is_empty() {
                                text.push_str(&format!(" firstprivate({})", offsets.join(", ")));
                            }
                            if let Some(op) = reduction {
                                let vars = reduction_variables(scop, placed, n_stmt, &ids, *op);
                                let mut names = vec![];
                                for a in vars {
                                    if a.rank > 0 && atomic_op(*op) {
                                        atomic.push(a.name.clone());
                                        continue;
                                    }
                                    if a.rank > 0 {
                                        return Err(Diagnostic::new(codes::MARK_NOT_GENERATED, format!(
                                            "cannot generate code: the `{}` reduction of the array `{}` is not generated (only scalar reductions, and `+` and `*` reductions of array elements, are)",
                                            op.symbol(),
                                            a.c_name
                                        ))
                                        .with_label(
                                            &m.origin.source,
                                            m.origin.span.clone(),
                                            "marked here",
                                        )
                                        .with_help(format!(
                                            "if the loop carries no dependence on `{}`, mark it `parallel` without an operator",
                                            a.c_name
                                        )));
                                    }
                                    names.push(a.c_name.clone());
                                }
                                if !names.is_empty() {
                                    text.push_str(&format!(
                                        " reduction({}: {})",
                                        op.symbol(),
                                        names.join(", ")
                                    ));
                                }
                            }
                            out.push(Node::Pragma(text));
                        }
                        (_, MarkKind::Vectorize)
                            if ids.iter().any(|&id| !private_of[id].is_empty()) =>
                        {
                            return Err(Diagnostic::new(codes::MARK_NOT_GENERATED,
                                "cannot generate code: a loop marked `vectorize` encloses the fill of a copy",
                            )
                            .with_label(&m.origin.source, m.origin.span.clone(), "marked here")
                            .with_note("the lanes of a vector loop would share one buffer; vectorize a loop inside the copy's loops"));
                        }
                        (_, MarkKind::Vectorize) => {
                            inner = Inside::Vectorize;
                            out.push(Node::Pragma("omp simd".to_string()));
                        }
                    }
                }
                let mut body =
                    mark_loops(scop, body, placed, n_stmt, predeclared, private_of, inner)?;
                if let (false, Some(m)) = (atomic.is_empty(), here) {
                    body = atomic_updates(scop, body, placed, n_stmt, &atomic, m)?;
                }
                out.push(Node::For {
                    var,
                    name,
                    lower,
                    step,
                    upper,
                    body,
                });
            }
            n @ (Node::Assign { .. } | Node::If { .. }) => out.push(n.try_map_bodies(|body| {
                mark_loops(scop, body, placed, n_stmt, predeclared, private_of, inside)
            })?),
            n => out.push(n),
        }
    }
    Ok(out)
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
    nodes
        .iter()
        .map(|n| match n {
            Node::For { body, .. }
            | Node::Assign { body, .. }
            | Node::If { body, .. }
            | Node::Block(body) => count_stmts(body),
            Node::Unrolled { body, rest, .. } => count_stmts(body) + count_stmts(rest),
            Node::Stmt { .. } | Node::Text { .. } => 1,
            Node::Comment(_) | Node::Pragma(_) | Node::Raw(_) => 0,
        })
        .sum()
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
            n @ (Node::Assign { .. } | Node::If { .. }) => {
                out.push(n.try_map_bodies(|body| unroll_loops(body, placed, n_param, declaring))?)
            }
            n => out.push(n),
        }
    }
    Ok(out)
}
