//! loopy: programmable, formally verified loop transformations for C kernels.
//!
//! The pipeline, one module per stage (dependencies point one way only):
//! [`presburger`] is the exact integer set library everything else is built on.

pub mod cli;
pub mod diag;
pub mod presburger;
pub mod script;
pub mod verify;
