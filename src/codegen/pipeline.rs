//! The passes of code generation, run in order by [`generate`]: stage copies, scan, mark,
//! unroll, register blocks, privatise, regions, print (placing the state's pieces comes
//! before, in `generate_state`; the no-overlap test after, in `overlap`).

use super::place::{Body, Placed};
use super::print::Decls;
use super::registers::Target;
use super::{marks, nest, print, privatise, regions, registers, stage, unroll};
use crate::diag::Diagnostic;
use crate::model::copy::CopyPlan;
use crate::model::Scop;

/// The C text replacing the modelled region: helper macros, then the loop nest, with copies
/// into local buffers (planned by `model::copy`, whose members are the state's pieces:
/// each is found by [`Placed::piece`], in whatever order `placed` holds them). Lines end in
/// `\n` and are not indented.
pub(super) fn generate(
    scop: &Scop,
    placed: &[Placed],
    body: Body,
    plans: &[CopyPlan],
    target: &Target,
) -> Result<String, Diagnostic> {
    let st = stage::stage(scop, placed, plans, body)?;
    let (nodes, fresh) = nest::scan(scop, &st)?;
    if body == Body::Source {
        privatise::check_declared(scop, &st, &nodes)?;
    }
    let heap = privatise::heap(&st, body);
    let nodes = marks::mark(scop, &st, &privatise::item_vars(&st, &heap), nodes)?;
    let nodes = unroll::unroll(scop, &st.placed, st.n_stmt, nodes)?;
    let regs = registers::registers(scop, &st, target, body, nodes);
    let (nodes, region_buffer) = privatise::thread_buffers(&st, &heap, regs.nodes);
    let nodes = regions::regions(scop, &st, body, nodes);
    let decls = Decls {
        fresh: &fresh,
        register_types: &regs.typedefs,
        buffer_used: &regs.buffer_used,
        region_buffer: &region_buffer,
    };
    print::print(scop, &st, body, &nodes, &decls)
}
