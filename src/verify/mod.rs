//! Verification: exact dependences, and the legality and one-to-one checks of a transformed
//! schedule, with violation reports (Loopy paper §4.1, Pugh's dependence relations).

pub mod check;
pub mod contract;
pub mod copies;
pub mod deps;
pub mod marks;
pub mod slices;
pub mod violation;
pub mod witness;

pub use check::check;
pub use contract::{ContractFault, ContractViolation};
pub use copies::{check_copies, copy_report, CopyViolation};
pub use deps::{
    dependences, AccessKind, DepKind, Dependence, Level, Program, ProgramAccess, StmtInfo,
};
pub use marks::{check_marks, mark_report, MarkViolation};
pub use violation::{
    check_contractions, copy_violation, mark_violation, report, Violation, ViolationKind,
};
pub use witness::Instance;
