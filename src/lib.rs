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
//! The pipeline, one module per stage (dependencies point one way only, docs/ARCHITECTURE.md):
//! [`presburger`] is the exact integer set library everything else is built on; [`model`] is
//! the polyhedral program (statements, domains, accesses, tags, 2d+1 schedules) and
//! [`frontend`] builds it from C; [`script`] parses and interprets scripts over the model's
//! schedule state, whose copy and expansion plans [`plan`] decides; [`verify`] computes dependences and checks a transformed schedule;
//! [`codegen`] scans the schedule into C; [`driver`] ties these together for a kernel and a
//! script ([`Kernel`], [`Run`]). Above them: [`native`] (compiling and timing), [`bench`],
//! [`timing`] (the timing loop of [`search`] and [`tune`]), [`suggest`], [`draw`], [`machine`],
//! [`manifest`]; [`cli`] and [`repl`] are the
//! command line and its REPL.
//!
//! The re-exports below are the entry points a library user needs. The modules are public
//! so that the integration tests and benchmarks can reach their internals; apart from the
//! re-exported types, their contents are internal to loopy and may change.

pub mod bench;
pub mod cli;
pub mod codegen;
pub mod diag;
pub mod draw;
pub mod driver;
pub mod equiv;
pub mod frontend;
pub mod lsp;
pub mod machine;
pub mod manifest;
pub mod model;
pub mod native;
pub mod plan;
pub mod presburger;
pub mod repl;
pub mod script;
pub mod search;
pub mod suggest;
pub mod timing;
pub mod tune;
pub mod verify;

pub use diag::{Diagnostic, Report};
pub use driver::{generate, Generated, Kernel, Run};
pub use frontend::Options;
pub use verify::Violation;
