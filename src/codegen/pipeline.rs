//! The passes of code generation, run in order by [`generate`]: stage copies, scan (whole
//! windows separated from partial ones), mark, unroll, register blocks, privatise,
//! regions, print (placing the state's pieces comes before, in `generate_state`; the
//! no-overlap test after, in `overlap`).

use super::ast::Node;
use super::place::{Body, Placed};
use super::print::Decls;
use super::registers::{Registers, Target};
use super::stage::Staging;
use super::text::CText;
use super::{marks, nest, print, privatise, regions, registers, stage, unroll, whole};
use crate::diag::Diagnostic;
use crate::model::copy::CopyPlan;
use crate::model::Scop;
use crate::presburger::row::Row;
use std::collections::BTreeSet;

/// The C text replacing the modelled region: helper macros, then the loop nest, with copies
/// into local buffers (planned by `model::copy`, whose members are the state's pieces:
/// each is found by [`Placed::piece`], in whatever order `placed` holds them). Lines end in
/// `\n` and are not indented.
/// Also returns the names of the program the code uses ([`print::names_used`]) and the
/// warnings on the code (copies small enough for registers that stay in
/// memory, with why).
pub(super) fn generate(
    scop: &Scop,
    placed: &[Placed],
    body: Body,
    plans: &[CopyPlan],
    target: &Target,
) -> Result<(CText, BTreeSet<String>, Vec<Diagnostic>), Diagnostic> {
    let st = stage::stage(scop, placed, plans, body)?;
    let heap = privatise::heap(&st, body);
    let (nodes, fresh, regs) = blocks(scop, &st, &heap, body, target)?;
    let (nodes, region_buffer) = privatise::thread_buffers(&st, &heap, nodes);
    let nodes = regions::regions(scop, &st, body, nodes);
    let decls = Decls {
        fresh: &fresh,
        register_types: &regs.typedefs,
        buffer_used: &regs.buffer_used,
        region_buffer: &region_buffer,
    };
    let text = print::print(scop, &st, body, &nodes, &decls)?;
    let names = print::names_used(scop, &st, body, &nodes);
    let notes = regs
        .not_formed
        .iter()
        .map(|&(c, why)| registers::not_formed(&st.plans[c], why))
        .collect();
    Ok((text, names, notes))
}

/// Scan, mark, unroll and register blocks. The whole windows of a copy that may become a
/// register block are separated from the partial ones (`whole`) when that makes some of
/// its windows take the register form without undoing another's: each candidate is tried
/// in turn, innermost window first, and kept only then (a split that forms no block buys
/// only code). A trace has no register pass to ask: it separates every candidate, so that
/// trace validation covers the separated loops.
fn blocks(
    scop: &Scop,
    st: &Staging,
    heap: &[bool],
    body: Body,
    target: &Target,
) -> Result<(Vec<Node>, Vec<String>, Registers), Diagnostic> {
    let candidates = if target.registers {
        whole::candidates(st, scop.params.len())
    } else {
        vec![]
    };
    if body != Body::Source {
        let all: Vec<_> = candidates.iter().collect();
        return scanned(scop, st, heap, body, target, &all);
    }
    let mut chosen = vec![];
    let mut best = scanned(scop, st, heap, body, target, &chosen)?;
    // Why a candidate's whole windows did not take the register form: a better reason
    // than the partial windows of the scan without its separation.
    let mut separated_why = vec![];
    for c in &candidates {
        let mut trial = chosen.clone();
        trial.push(c);
        let r = scanned(scop, st, heap, body, target, &trial)?;
        // The candidate's block forms, and every block that formed before still does.
        let kept = (best.2.formed.iter().zip(&r.2.formed)).all(|(before, now)| !before || *now);
        if r.2.formed[c.0] && kept {
            chosen = trial;
            best = r;
        } else {
            separated_why.extend(r.2.not_formed.iter().filter(|(p, _)| *p == c.0));
        }
    }
    for (p, why) in best.2.not_formed.iter_mut() {
        if let Some((_, w)) = separated_why.iter().find(|(q, _)| q == p) {
            *why = *w;
        }
    }
    Ok(best)
}

/// One scan with the whole windows of `separate` separated, then marks, unrolling and
/// register blocks.
fn scanned(
    scop: &Scop,
    st: &Staging,
    heap: &[bool],
    body: Body,
    target: &Target,
    separate: &[&(usize, Vec<Row>)],
) -> Result<(Vec<Node>, Vec<String>, Registers), Diagnostic> {
    let (nodes, fresh) = nest::scan(scop, st, separate)?;
    if body == Body::Source {
        privatise::check_declared(scop, st, &nodes)?;
    }
    let nodes = marks::mark(scop, st, &privatise::item_vars(st, heap), nodes)?;
    let nodes = unroll::unroll(scop, &st.placed, st.n_stmt, nodes)?;
    let mut regs = registers::registers(scop, st, target, body, nodes);
    let nodes = std::mem::take(&mut regs.nodes);
    Ok((nodes, fresh, regs))
}
