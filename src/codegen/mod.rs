//! Code generation: scanning schedules into loop nests (Ancourt & Irigoin) and printing C.

pub mod ast;
pub mod body;
pub mod copy;
pub mod expand;
mod marks;
mod names;
mod nest;
pub mod overlap;
mod pipeline;
pub mod place;
mod print;
mod privatise;
pub mod regions;
pub mod registers;
pub mod scan;
mod stage;
pub mod text;
mod unroll;
mod whole;

pub use nest::undetermined_diagnostic;
pub use place::Body;
pub use registers::Target;
pub use scan::scan_sets;

use crate::diag::Diagnostic;
use crate::model::program::Program;
use crate::model::state::State;
use crate::model::Scop;
use crate::presburger::{Int, Map, Set};
use std::borrow::Cow;

/// The code of a region under a final schedule state ([`generate_state`]).
#[derive(Clone, Debug)]
pub struct Code<'a> {
    /// The C text replacing the region: helper macros, then the loop nest, before any
    /// run-time test ([`overlap::guard`]).
    pub text: text::CText,
    /// The names of the program the code uses (its counters, parameters, arrays and
    /// scalars), read from the pieces printed.
    pub names: std::collections::BTreeSet<String>,
    /// The program the code was generated from: the kernel's own, or the kernel with the
    /// state's expansions applied ([`expand::expanded`]).
    pub program: Cow<'a, Scop>,
    /// Warnings on the code (a copy small enough for registers that stays in memory).
    pub notes: Vec<Diagnostic>,
}

/// Code for `scop` under the schedules of `state` (which the caller has verified): every
/// piece of the state is placed with its θ and its marks, the copies are generated from the
/// state's plans (`State::copy_plans`, whose members are pieces of the state, found in the
/// placed statements by [`place::Placed::piece`]), and, for [`Body::Source`], the state's expansions give the
/// program the code is generated from. A trace ([`Body::Trace`]) prints the statements'
/// instances only: it touches no variable, so it has no storage to declare, fill or write
/// back.
pub fn generate_state<'a>(
    scop: &'a Scop,
    state: &State,
    body: Body,
    target: &Target,
) -> Result<Code<'a>, Diagnostic> {
    let mut placed = place::place(state);
    // An expanded program: its statements' accesses rewritten, the storage's own
    // statements after every piece.
    let program = if state.expansions.is_empty() || body != Body::Source {
        Cow::Borrowed(scop)
    } else {
        let next = state
            .pieces
            .iter()
            .map(|p| p.pos[0].clone())
            .max()
            .map_or(Int::ZERO, |p| &p + &Int::ONE);
        let view = Program::for_state(scop, state);
        Cow::Owned(expand::expanded(
            scop,
            &view,
            &state.expansions,
            &mut placed,
            next,
        )?)
    };
    // Copies of an expansion's storage, in the storage's coordinates.
    let plans = match &program {
        Cow::Owned(_) => expand::storage_plans(&state.copy_plans, &state.expansions),
        Cow::Borrowed(_) => state.copy_plans.clone(),
    };
    let (text, names, notes) = pipeline::generate(&program, &placed, body, &plans, target)?;
    Ok(Code {
        text,
        names,
        program,
        notes,
    })
}

/// Refuses, as [`generate_state`] does, schedules (`schedules[i]` of statement `stmts[i]`, maps
/// from its instances to times of one length) with an iterator the scan cannot express.
pub fn check_determined(scop: &Scop, pieces: &[(usize, Map)]) -> Result<(), Diagnostic> {
    let n_scan = pieces.iter().map(|(_, m)| m.n_out()).max().unwrap_or(0);
    for (stmt, m) in pieces {
        let set = m.inverse().wrap().simplify();
        if let Some(d) = scan::first_undetermined(&set, n_scan) {
            let st = &scop.statements[*stmt];
            let name = st
                .loops
                .get(d)
                .map_or(d.to_string(), |l| format!("`{}`", l.c_name));
            return Err(undetermined_diagnostic(&format!(
                "iterator {name} of statement `{}` is not determined by the schedule",
                st.name
            )));
        }
    }
    Ok(())
}

/// C for `loopy calc scan`: a loop nest calling `S(i, j, ...)` for every point of the set,
/// in lexicographic order, preceded by the helper macros it uses.
pub fn scan_set_to_c(set: &Set) -> String {
    // Scan [dims, copy of dims]: the copies, fixed by equalities, are the statement's
    // arguments.
    let n = set.n_dim();
    let pairs = set.identity().wrap();
    let params = set.space().params.clone();
    let dims = set.space().range.dims.clone();
    // Dimension names when they are usable C identifiers, else c0, c1, ...
    let usable = |d: &String, k: usize| {
        d.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !d.starts_with(|c: char| c.is_ascii_digit())
            && !params.contains(d)
            && !dims[..k].contains(d)
    };
    let names: Vec<String> = dims
        .iter()
        .enumerate()
        .map(|(k, d)| {
            if usable(d, k) {
                d.clone()
            } else {
                format!("c{k}")
            }
        })
        .collect();
    let nodes = scan_sets(&[(0, pairs)], n, vec![names.clone()]);
    let stmt_name = set
        .space()
        .range
        .name
        .clone()
        .unwrap_or_else(|| "S".to_string());
    let var = |k: usize| names[k].clone();
    let stmt = |_: usize, args: &[ast::Arg]| {
        let args: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
        format!("{stmt_name}({});", args.join(", "))
    };
    let mut p = ast::CPrinter {
        params: &params,
        var: &var,
        stmt: &stmt,
        text: &|id, args, _| stmt(id, args),
        helpers: ast::Helpers::default(),
        bound: vec![],
        names: vec![],
        predeclared: &[],
    };
    let mut body = text::CText::new();
    p.nodes(&nodes, 0, &mut body);
    format!("{}{body}", p.helpers.defines())
}
