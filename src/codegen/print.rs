//! Print: the tree as C, the helper macros it uses and the region's declarations before
//! it, the copies' releases after it.

use super::ast::{for_each, loop_names, Arg, CPrinter, Cond, Expr, Helpers, LoopPragma, Node};
use super::body::{Printer, Seg};
use super::copy::Extra;
use super::place::Body;
use super::registers::TypeDef;
use super::stage::Staging;
use super::text::CText;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::Scop;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Prefix of the helper macros, so they cannot clash with the user's names.
const MACRO_PREFIX: &str = "loopy_";

/// What the passes before printing leave besides the tree.
pub(super) struct Decls<'a> {
    /// The names of the scanned dims' loops that count no iterator.
    pub fresh: &'a [String],
    /// Type definitions of the register blocks, before the loops.
    pub register_types: &'a [TypeDef],
    /// Per copy: whether a window still uses its buffer in memory.
    pub buffer_used: &'a [bool],
    /// Per copy: whether its buffer is declared for the whole region.
    pub region_buffer: &'a [bool],
}

/// The C text replacing the region.
pub(super) fn print(
    scop: &Scop,
    st: &Staging,
    body: Body,
    nodes: &[Node],
    d: &Decls,
) -> Result<CText, Diagnostic> {
    let (plans, placed, texts, n_stmt) = (&st.plans[..], &st.placed[..], &st.texts, st.n_stmt);
    let fresh = d.fresh;
    let predeclared = predeclared(scop);
    let largest = super::ast::largest_constant(nodes);
    if largest > i64::from(i32::MAX) {
        return Err(Diagnostic::new(codes::CONSTANT_TOO_LARGE, format!(
            "cannot generate code: the unrolled loops would need the constant {largest}, which does not fit the type `int` of the loop counters"
        ))
        .with_help("use a smaller unroll factor"));
    }
    let var = |k: usize| fresh[k].clone();
    let text_stmt = |id: usize, args: &[Arg], segs: &[Seg]| -> String {
        let st = &scop.statements[placed[id].stmt];
        let mut subst: Vec<(String, String)> = vec![];
        for (l, a) in st.loops.iter().zip(args) {
            // An inner loop reusing a name hides the outer one, as in C.
            subst.retain(|(n, _)| *n != l.c_name);
            subst.push((l.c_name.clone(), a.operand()));
        }
        let value = |n: &str| subst.iter().find(|(x, _)| x == n).map(|(_, v)| v.clone());
        Printer {
            plans,
            subst: &value,
        }
        .text(segs)
    };
    let stmt = |id: usize, args: &[Arg]| -> String {
        if id >= n_stmt && body == Body::Trace {
            // Traces print statement instances only; the copy's loops stay, empty.
            let (what, c) = match &st.extras[id - n_stmt] {
                Extra::Setup(c) => ("corner", c),
                Extra::Fill(c) => ("fill", c),
                Extra::WriteBack(c) => ("write-back", c),
            };
            return format!("/* {what} of the copy of {} */", plans[*c].c_name);
        }
        if id >= n_stmt {
            let floord = format!("{MACRO_PREFIX}floord");
            return super::copy::item_text(
                &st.extras[id - n_stmt],
                plans,
                &scop.params,
                args,
                &floord,
            );
        }
        let st = &scop.statements[placed[id].stmt];
        match body {
            Body::Source => text_stmt(id, args, &texts[id]),
            Body::Trace => {
                let fmt: String = args.iter().map(|_| " %d").collect();
                let vals: String = args.iter().map(|a| format!(", {}", a.text)).collect();
                format!("printf(\"{}{fmt}\\n\"{vals});", st.name)
            }
        }
    };
    let mut p = CPrinter {
        params: &scop.params,
        var: &var,
        stmt: &stmt,
        text: &text_stmt,
        helpers: Helpers {
            prefix: MACRO_PREFIX,
            ..Helpers::default()
        },
        bound: vec![],
        names: vec![],
        predeclared: &predeclared,
    };
    // The corners of the copies' boxes, and their run-time extents, may use floors.
    if plans.iter().any(|c| {
        c.lower.iter().any(super::ast::corner_floors)
            || c.runtime.iter().flatten().any(super::ast::extent_floors)
    }) {
        p.helpers.floord = true;
    }
    let mut text = CText::new();
    p.nodes(nodes, 0, &mut text);
    let mut out = p.helpers.defines();
    out.code(&declarations(scop, st, body, d));
    out.nest(&text, "");
    if body == Body::Source {
        for plan in plans {
            out.code(&super::copy::release(plan));
        }
    }
    out.code(&unused_counters(nodes, &predeclared));
    Ok(out)
}

/// What the region declares before its loops: its `static` and `extern` locals, the copies'
/// buffers (or their offsets alone, where each thread allocates the buffer) and the
/// register blocks' types.
fn declarations(scop: &Scop, st: &Staging, body: Body, d: &Decls) -> String {
    let mut out = String::new();
    let floord = format!("{MACRO_PREFIX}floord");
    // `static` and `extern` locals of the region (and an expansion's storage): one object
    // for the whole function, so declared once, before the loops that use them and before
    // the copies' buffers, whose element types may name them.
    for x in &scop.declarations {
        let _ = writeln!(out, "{x}");
    }
    if body == Body::Source {
        let each = st.plans.iter().zip(d.buffer_used).zip(d.region_buffer);
        for ((plan, used), whole) in each {
            if !whole {
                // Each thread allocates the buffer; the region keeps only the offsets.
                out.push_str(&super::copy::offset_declarations(plan));
            } else {
                out.push_str(&super::copy::declarations(
                    plan,
                    &scop.params,
                    &floord,
                    !used,
                ));
            }
        }
        for t in d.register_types {
            let _ = writeln!(out, "{t}");
        }
    }
    out
}

/// Counters declared outside the region that no generated loop counts with any more (the
/// compiler would call them unused), each used once.
fn unused_counters(nodes: &[Node], predeclared: &[String]) -> String {
    let mut out = String::new();
    let used = loop_names(nodes);
    for n in predeclared {
        if !used.contains(n) {
            let _ = writeln!(out, "(void){n}; /* no longer a loop counter */");
        }
    }
    out
}

/// Counters declared outside the region (assigned, not declared, by generated loops).
pub(super) fn predeclared(scop: &Scop) -> Vec<String> {
    scop.statements
        .iter()
        .flat_map(|s| s.loops.iter())
        .filter(|l| l.outer_counter)
        .map(|l| l.c_name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The names of the program that the printed code uses, from the pieces the printer writes:
/// loop counters (those no loop counts with any more are named once, see
/// [`unused_counters`]), parameters in bounds, guards and arguments, the names statement
/// bodies keep (their iterators are replaced by values), copied arrays and their factors,
/// parameters in the copies' corners and extents, the region's own declarations and the
/// variables of parallel clauses. The outlined function (`overlap`) marks the host's
/// parameters that are not among them.
pub(super) fn names_used(
    scop: &Scop,
    st: &Staging,
    body: Body,
    nodes: &[Node],
) -> BTreeSet<String> {
    let mut out = loop_names(nodes);
    out.extend(predeclared(scop));
    let np = scop.params.len();
    let mut params = vec![false; np];
    let mut uses = |e: &Expr| {
        for (k, used) in params.iter_mut().enumerate() {
            *used |= e.uses_col(1 + k);
        }
    };
    let mut segs: Vec<String> = vec![];
    for_each(nodes, &mut |n| match n {
        Node::For { lower, upper, .. } | Node::Unrolled { lower, upper, .. } => {
            uses(lower);
            uses(upper);
        }
        Node::Assign { value, .. } => uses(value),
        Node::If { conds, .. } => conds.iter().for_each(|c| match c {
            Cond::Ge(e) | Cond::Eq(e) | Cond::Divisible(e, _) => uses(e),
        }),
        Node::Stmt { id, args } | Node::Text { id, args, .. } => {
            args.iter().for_each(&mut uses);
            let text = match n {
                Node::Text { body, .. } => Some(&body[..]),
                _ => (*id < st.n_stmt && body == Body::Source).then(|| &st.texts[*id][..]),
            };
            if let Some(t) = text {
                let mut names = vec![];
                super::body::names(t, &mut names);
                let its = &scop.statements[st.placed[*id].stmt].loops;
                segs.extend(
                    names
                        .into_iter()
                        .filter(|x| its.iter().all(|l| &l.c_name != x)),
                );
            }
        }
        Node::Omp {
            pragma: LoopPragma::ParallelFor(c) | LoopPragma::For(c),
            ..
        } => {
            segs.extend(c.private.iter().chain(&c.firstprivate).cloned());
            segs.extend(c.reduction.iter().flat_map(|(_, v)| v.iter().cloned()));
        }
        Node::Parallel { private, .. } => segs.extend(private.iter().cloned()),
        _ => {}
    });
    out.extend(segs);
    if body == Body::Source {
        for plan in &st.plans {
            out.insert(plan.c_name.clone());
            out.extend(plan.factor.iter().flat_map(|f| super::body::identifiers(f)));
            let rows = (plan.lower.iter().map(|c| (&c.basic, &c.row))).chain(
                plan.runtime
                    .iter()
                    .flatten()
                    .flat_map(|e| e.pieces.iter().map(|p| (&p.basic, &p.value))),
            );
            for (b, r) in rows {
                let divs = b.divs().iter().flatten().map(|d| d.num());
                for row in std::iter::once(r).chain(divs) {
                    for (k, used) in params.iter_mut().enumerate() {
                        *used |= row.get(1 + k).is_some_and(|v| !v.is_zero());
                    }
                }
            }
        }
    }
    for d in &scop.declarations {
        out.extend(super::body::identifiers(d));
    }
    out.extend(
        (scop.params.iter().zip(&params))
            .filter(|(_, u)| **u)
            .map(|(p, _)| p.clone()),
    );
    out
}
