//! Place: every piece of the state as a scan item with its final schedule θ and its marks.

use crate::model::state::{Mark, State};
use crate::presburger::Map;

/// A statement (or a piece of one) with its final schedule θ, a map from the statement's
/// instances to 2d+1 time vectors, restricted to the instances the piece covers.
#[derive(Clone, Debug)]
pub struct Placed {
    pub stmt: usize,
    /// The state's piece this is (the index copy plans count members by); `None` for
    /// statements the state has no piece of (an expansion's write-back and release, copies'
    /// fills and corners).
    pub piece: Option<usize>,
    pub schedule: Map,
    /// Marks on its iteration dims (iteration dim `j` is scanned dim `2j+1`).
    pub marks: Vec<Mark>,
}

/// What an instance of a statement does in the generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// The statement's own text, iterators replaced.
    Source,
    /// `printf("S1 3 4\n")`: the statement's name and iterator values, one line per
    /// instance (trace validation; the file must include `<stdio.h>`).
    Trace,
}

/// The state's pieces, in order, each with its θ and its marks.
pub fn place(state: &State) -> Vec<Placed> {
    state
        .pieces
        .iter()
        .enumerate()
        .map(|(i, p)| Placed {
            stmt: p.stmt,
            piece: Some(i),
            schedule: p.schedule(),
            marks: p.marks.clone(),
        })
        .collect()
}
