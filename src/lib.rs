//! loopy: programmable, formally verified loop transformations for C kernels.
//!
//! A kernel is a C region (`#pragma scop` … `#pragma endscop`, or a function's body) whose
//! statements may carry tags (C labels). A script in the Loopy language rewrites the
//! schedules of the tagged loop components (`realign`, `affine`, `tile`, `interchange`, …);
//! the verifier checks exactly that every dependence keeps its direction and that the new
//! schedule is one-to-one, and the code generator writes the transformed region.
//!
//! ```
//! use loopy::{generate, Kernel, Options, Run};
//! use std::path::Path;
//!
//! let c = "\
//! void f(int n, double C[100][100], double A[100][100], double B[100][100]) {
//!   int i, j, k;
//! #pragma scop
//!   for (i = 0; i < n; i++)
//!     for (j = 0; j < n; j++)
//!       for (k = 0; k < n; k++) {
//! Mult:   C[i][j] = C[i][j] + A[i][k] * B[k][j];
//!       }
//! #pragma endscop
//! }
//! ";
//! // Model the kernel (the text needs no preprocessing), run a script on it, check it.
//! let kernel = Kernel::from_text("matmul.c", c, &Options::default()).expect("a kernel");
//! let run = Run::new(&kernel, "interchange(Mult, 2, 3)\n", "s.loopy", Path::new("."))
//!     .expect("the script runs");
//! assert!(run.check().is_empty(), "interchanging j and k is legal");
//!
//! // An illegal script is reported, with a witness.
//! let bad = Run::new(&kernel, "reverse(Mult, 3)\n", "bad.loopy", Path::new(".")).unwrap();
//! let violations = bad.check();
//! assert!(!violations.is_empty());
//! let report = bad.reports(&kernel, &violations)[0].render(false);
//! assert!(report.contains("dependence"), "{report}");
//!
//! // Generate the transformed code of the legal one.
//! let code = generate(&kernel, &run.interp.state).expect("code");
//! assert!(code.region.contains("for (k = 0; k < n; k++)"), "{}", code.region);
//! ```
//!
//! A second example: the integer core on its own, in isl's notation.
//!
//! ```
//! use loopy::presburger::{parse_set, Int};
//!
//! let s = parse_set("[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }", &[]).unwrap();
//! let t = parse_set("[n] -> { [i, j] : j > i }", &[]).unwrap();
//! assert!(s.intersect(&t).is_empty());
//! let point = s.fix_param("n", &Int::from(3)).unwrap().sample().expect("not empty");
//! assert_eq!(point.params, [Int::from(3)]);
//! assert!(point.coords[1] <= point.coords[0]);
//! ```
//!
//! # The public API
//!
//! A library user models a kernel, runs scripts on it, checks them and generates code; these
//! modules and items are public and documented:
//!
//! - [`presburger`]: the exact integer set library everything else is built on (sets and
//!   maps of affine constraints, emptiness with a witness, lexicographic optima, isl's text).
//! - [`model`]: the polyhedral program (statements, domains, accesses, tags, 2d+1
//!   schedules) and the schedule state scripts rewrite.
//! - [`plan`]: the planners that decide a copy's buffer and an expansion's storage from the
//!   schedule state (the interpreter calls them after each step; the plan types are the
//!   model's).
//! - [`frontend`]: builds the model from C ([`Options`]: defines, include paths).
//! - [`script`]: the Loopy language: parsing a script, its interpreter, its parameters.
//! - [`verify`]: exact dependences and the legality checks of a transformed schedule
//!   ([`Violation`], with a witness).
//! - [`driver`]: the stages together for a kernel and a script: [`Kernel`], [`Run`],
//!   [`generate`] giving [`Generated`] code (and [`driver::generate_with`] with a [`Body`]:
//!   the statements' own text, or a trace of the instances).
//! - [`diag`]: coded diagnostics ([`Diagnostic`], [`Report`]) and their text, JSON and SARIF.
//! - [`scan_set_to_c`]: the C loops visiting a set's points in lexicographic order;
//!   [`Target`]: what generated code may assume of the machine (vector width, register
//!   blocks), a [`Kernel`]'s field;
//!   [`model_names`]: the names `param NAME = model` reads; [`main`]: the command line.
//!
//! The remaining stages are internal to the crate (`pub(crate)`), and so are the
//! commands built on them: code generation's passes (`codegen`), compiling and timing
//! (`native`, `bench`, `timing`), the machine model (`machine`), `loopy.toml` (`manifest`),
//! the legal-schedule space and its search (`search`), repairs of an illegal script
//! (`suggest`), `tune`, `draw`, `equiv`, the REPL (`repl`), the language server (`lsp`)
//! and the command line (`cli`). docs/ARCHITECTURE.md maps every module; unit tests live
//! beside the code they test, integration tests in `tests/` use the API above and the
//! `loopy` binary.

pub(crate) mod bench;
pub(crate) mod cli;
pub(crate) mod codegen;
pub mod diag;
pub(crate) mod draw;
pub mod driver;
pub(crate) mod equiv;
pub mod frontend;
pub(crate) mod lsp;
pub(crate) mod machine;
pub(crate) mod manifest;
pub mod model;
pub(crate) mod native;
pub mod plan;
pub mod presburger;
pub(crate) mod repl;
pub mod script;
pub(crate) mod search;
pub(crate) mod suggest;
pub(crate) mod timing;
pub(crate) mod tune;
pub mod verify;

#[cfg(test)]
mod testing;

pub use cli::main;
pub use codegen::{scan_set_to_c, Body, Target};
pub use diag::{Diagnostic, Report};
pub use driver::{generate, Generated, Kernel, Run};
pub use frontend::Options;
pub use verify::Violation;

/// Every name `param NAME = model` reads from the machine model (`MR`, …, then `double.MR`,
/// `float.MR`, …): the keys of [`script::params::ModelValues`], for a caller that supplies its
/// own table of model values in [`script::params::Settings`] instead of probing the machine.
pub fn model_names() -> Vec<String> {
    machine::model::Model::names()
}
