//! The `.loopy` script language: grammar (`grammar/loopy.pest`), syntax tree, and (with the
//! model) the interpreter that rewrites schedules.

pub mod ast;
pub mod interp;
pub mod params;
pub mod parse;
pub mod stdlib;

pub use parse::parse_script;
