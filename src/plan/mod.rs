//! The planners: the code that decides, from a schedule state, the plans the model holds
//! (`model::copy::CopyPlan`, `model::expand::ExpandPlan`). They sit above the model and
//! below the stages that call them: the script interpreter plans an `expand` when it runs
//! and every copy after each step, and the verifier and the code generator read the plans
//! from the state.

pub mod copy;
pub mod expand;
