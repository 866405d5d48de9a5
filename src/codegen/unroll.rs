//! Unroll: every loop marked `unroll(u)` as `u` copies of its body (shifted by constant
//! offsets), with a remainder loop or none where the trip count is a constant.

use super::ast::{for_each, ids_in, shift_nodes, Node};
use super::place::Placed;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Mark, MarkKind};
use crate::model::Scop;
use crate::presburger::Int;
use std::collections::BTreeSet;

/// The tree with its loops marked `unroll` unrolled; `scop`'s statements that declare
/// variables get each copy of their body as a C block of its own.
pub(super) fn unroll(
    scop: &Scop,
    placed: &[Placed],
    n_stmt: usize,
    nodes: Vec<Node>,
) -> Result<Vec<Node>, Diagnostic> {
    let declaring: BTreeSet<usize> = (0..n_stmt)
        .filter(|&id| !scop.statements[placed[id].stmt].declares.is_empty())
        .collect();
    unroll_loops(nodes, placed, scop.params.len(), &declaring)
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
fn unroll_loops(
    nodes: Vec<Node>,
    placed: &[Placed],
    n_param: usize,
    declaring: &BTreeSet<usize>,
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
