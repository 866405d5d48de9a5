//! The dependence-hoisting recipe (Yi, Kennedy and Adve, §6.2): blocking an imperfect loop
//! nest that tiling cannot reach. Cholesky's and LU's statements sit at different depths and
//! their loops carry dependences that no permutable band covers, so the §4.1 schedules leave
//! them as they are; two computation slices (`loopy slices`) can still be hoisted and
//! strip-mined one inside the other, which blocks the nest (`block_slices` of the standard
//! library; `examples/cholesky-pb/cholesky-pb.loopy` is that script, written by hand).
//!
//! Recognised from the dependences, not from names: a loop nest of several statements at
//! different depths, three loops deep or more, whose valid slices (`verify::slices`, exact)
//! include the one that takes every statement's outermost loop. That slice is hoisted first;
//! each other valid slice, in the order they are listed, up to [`SECOND_SLICES`], is the
//! second. The block size is the model's square tile (the search's first tile size), a
//! `param` that the answer's finishing descent tunes. The verifier judges every script.

use super::script::Names;
use crate::model::state::State;
use crate::verify::slices::{nest_segments, Oracle, Slice};
use crate::verify::{Dependence, Program};

/// The second slices tried per nest: each one more candidate to time.
pub const SECOND_SLICES: usize = 3;

/// Alignments searched for the slices (`loopy slices --align-range`).
const ALIGN_RANGE: i64 = 1;

/// A blocking the recipe proposes: the nest's statements, the slice hoisted first (every
/// statement's outermost loop) and the one hoisted inside its strips.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hoist {
    pub stmts: Vec<usize>,
    pub first: Slice,
    pub second: Slice,
}

/// Every blocking the recipe proposes on the program (the kernel after the search's
/// prefix, if any), nest by nest.
pub fn hoists(state: &State, program: &Program, deps: &[Dependence]) -> Vec<Hoist> {
    let mut oracle = Oracle::new(program, deps);
    let mut out = vec![];
    for (_, seg) in nest_segments(state) {
        let depths: Vec<usize> = (seg.iter())
            .map(|&s| program.stmts[s].domain.n_dim())
            .collect();
        let deepest = depths.iter().copied().max().unwrap_or(0);
        if seg.len() < 2 || deepest < 3 || depths.iter().all(|&d| d == deepest) {
            continue;
        }
        let slices = oracle.slices(&seg, ALIGN_RANGE);
        let outermost = |x: &Slice| x.entries.iter().all(|e| e.level == 1);
        let Some(first) = slices.iter().find(|x| outermost(x)) else {
            continue;
        };
        for second in slices.iter().filter(|x| !outermost(x)).take(SECOND_SLICES) {
            out.push(Hoist {
                stmts: seg.clone(),
                first: first.clone(),
                second: second.clone(),
            });
        }
    }
    out
}

/// `{Lower: i, Div: j + 1}`: a slice in the language's syntax.
pub fn slice_text(x: &Slice, names: &Names) -> String {
    let parts: Vec<String> = (x.entries.iter())
        .map(|e| {
            let h = &names.handles[e.stmt];
            let it = &names.iterators[e.stmt][e.level - 1];
            match e.align {
                0 => format!("{h}: {it}"),
                a if a > 0 => format!("{h}: {it} + {a}"),
                a => format!("{h}: {it} - {}", -a),
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The statements of a nest as a group: `{Lower, Div, Diag, Root}`.
pub fn group(h: &Hoist, names: &Names) -> String {
    let hs: Vec<&str> = (h.stmts.iter())
        .map(|&s| names.handles[s].as_str())
        .collect();
    format!("{{{}}}", hs.join(", "))
}

/// The recipe's script for one blocking with blocks of `size`, a comment before each step
/// saying what it is for.
pub fn script(h: &Hoist, names: &Names, size: u32) -> Vec<String> {
    let mut taken: Vec<String> = names.handles.clone();
    taken.extend(names.params.iter().cloned());
    let param = match taken.iter().any(|t| t == "HB") {
        true => super::blocks::fresh("HB", &taken),
        false => "HB".to_string(),
    };
    vec![
        format!("param {param} = {size}"),
        "# blocking by dependence hoisting (Yi, Kennedy and Adve, §6.2): the nest's".to_string(),
        "# statements lie at different depths, so no permutable band tiles it; the slice of"
            .to_string(),
        "# their outermost loops is hoisted and strip-mined, then the second slice is hoisted"
            .to_string(),
        "# inside its strips and strip-mined too (both slices valid: `loopy slices`); blocks"
            .to_string(),
        format!("# of {param}: the machine model's square tile"),
        format!(
            "block_slices({}, {}, {}, {param})",
            group(h, names),
            slice_text(&h.first, names),
            slice_text(&h.second, names)
        ),
    ]
}
