//! The exact integer Presburger core: affine constraints over parameters, dimensions and
//! existentially quantified locals; sets and maps as finite unions of conjunctions; the Omega
//! test for emptiness with a witness; and isl's textual notation.
//!
//! Knows nothing of C or scripts.

pub mod affine;
pub mod basic;
pub mod budget;
pub mod build;
pub mod coalesce;
pub mod int;
pub mod linalg;
pub mod omega;
pub mod parse;
pub mod pip;
pub mod print;
pub mod row;
pub mod sample;
pub mod set;
pub mod simplex;
pub mod space;

pub use basic::{Basic, Div, Reduced};
pub use int::Int;
pub use parse::{parse, parse_map, parse_set, parse_with_constants, ParseError, Parsed};
pub use print::fmt_point;
pub use set::{BoundError, Map, Point, Set};
pub use simplex::{Lp, Optimum, Rat};
pub use space::{Space, Tuple};
