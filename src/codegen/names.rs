//! The C names of a copy's buffer and of its offset and extent variables (a leaf: the
//! statement bodies, the copies' code and the register blocks all name them).

use crate::model::copy::CopyPlan;

/// The buffer's C name: `loopy_A` for the first copy of `A`, `loopy2_A`, `loopy3_A`… for
/// the next ones.
pub fn buffer(plan: &CopyPlan) -> String {
    match plan.buffer_index {
        0 => format!("loopy_{}", plan.c_name),
        n => format!("loopy{}_{}", n + 1, plan.c_name),
    }
}

/// The C name of the offset along dimension `d`.
pub fn offset(plan: &CopyPlan, d: usize) -> String {
    format!("{}_o{d}", buffer(plan))
}

/// The C name of the run-time extent along dimension `d`.
pub fn extent(plan: &CopyPlan, d: usize) -> String {
    format!("{}_n{d}", buffer(plan))
}
