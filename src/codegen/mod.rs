//! Code generation: scanning schedules into loop nests (Ancourt & Irigoin) and printing C.

pub mod ast;
pub mod copy;
pub mod expand;
pub mod kernel;
pub mod marks;
pub mod overlap;
pub mod registers;
pub mod scan;

pub use kernel::{generate, generate_with_copies, Body, Placed};
pub use registers::Target;
pub use scan::{disjoint_parts, scan, scan_in, scan_sets, Item};

use crate::diag::Diagnostic;
use crate::model::Scop;
use crate::presburger::{Map, Set};

/// The refusal of a schedule some of whose iterators the scan cannot express (`why` says
/// which); [`generate`] and `loopy check` give the same.
pub fn undetermined_diagnostic(why: &str) -> Diagnostic {
    Diagnostic::new(format!("cannot generate code: {why}")).with_note(
        "the code generator takes each iterator from the schedule's equalities, from a pair of bounds through its floors and mods, or from its parametric lexicographic minimum, and none gave this one; a schedule that is not one-to-one has no such value",
    )
}

/// Refuses, as [`generate`] does, schedules (`schedules[i]` of statement `stmts[i]`, maps
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
    let stmt = |_: usize, args: &[String]| format!("{stmt_name}({});", args.join(", "));
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
    let mut body = String::new();
    p.nodes(&nodes, 0, &mut body);
    format!("{}{body}", p.helpers.defines())
}
