//! loopy: programmable, formally verified loop transformations for C kernels.
//!
//! The pipeline, one module per stage (dependencies point one way only):
//! [`presburger`] is the exact integer set library everything else is built on; [`model`] is
//! the polyhedral program (statements, domains, accesses, tags, 2d+1 schedules) and
//! [`frontend`] builds it from C.

pub mod bench;
pub mod cli;
pub mod codegen;
pub mod diag;
pub mod draw;
pub mod driver;
pub mod frontend;
pub mod machine;
pub mod manifest;
pub mod model;
pub mod native;
pub mod presburger;
pub mod repl;
pub mod script;
pub mod search;
pub mod suggest;
pub mod verify;
