//! What rides on a schedule without changing it, and where it came from: the marks on a
//! piece's loops (`parallel`, `vectorize`, `unroll`), the copies it stages (`copy`), and the
//! [`Origin`] of every handle and operation, for reports. Leaf types of the model: the
//! schedule state ([`super::state`]) and the plans ([`super::copy`], [`super::expand`])
//! hold them; this module imports none of them.

use std::ops::Range;

/// A byte range in a script or C source.
pub type Span = Range<usize>;

/// Where a handle came from, for diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub source: String,
    pub span: Span,
    pub what: String,
}

/// The associative operator of a reduction (`s += e`, `s *= e`, `s = min(s, e)`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RedOp {
    Add,
    Mul,
    Min,
    Max,
}

impl RedOp {
    /// The operator as OpenMP and the script language spell it.
    pub fn symbol(self) -> &'static str {
        match self {
            RedOp::Add => "+",
            RedOp::Mul => "*",
            RedOp::Min => "min",
            RedOp::Max => "max",
        }
    }
}

/// What a mark asks of the generated loop. Marks never change the schedule θ; they are
/// directives that ride on it. (Further directives, such as unrolling, are added here as
/// variants of their own.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// `parallel(l, k)` / `parallel(l, k, op)`: an OpenMP parallel loop, with an optional
    /// reduction operator.
    Parallel { reduction: Option<RedOp> },
    /// `vectorize(l, k)`: an OpenMP `simd` loop.
    Vectorize,
    /// `unroll(l, k, u)`: the loop body appears `factor` times per iteration (constant
    /// offsets), the remainder handled by a following loop; no loop at all when the trip
    /// count is a constant at most `factor`. Order is unchanged, so there is nothing to
    /// verify.
    Unroll { factor: u32 },
}

impl MarkKind {
    /// The mark as the script wrote it (`parallel`, `parallel(+)`, `vectorize`).
    pub fn describe(&self) -> String {
        match self {
            MarkKind::Parallel { reduction: None } => "parallel".to_string(),
            MarkKind::Parallel {
                reduction: Some(op),
            } => format!("parallel({})", op.symbol()),
            MarkKind::Vectorize => "vectorize".to_string(),
            MarkKind::Unroll { factor } => format!("unroll({factor})"),
        }
    }

    /// Whether the mark runs iterations of its loop together or in any order, so that the
    /// verifier must find no dependence between them (`parallel`, `vectorize`; not `unroll`,
    /// which keeps the order).
    pub fn reorders(&self) -> bool {
        match self {
            MarkKind::Parallel { .. } | MarkKind::Vectorize => true,
            MarkKind::Unroll { .. } => false,
        }
    }
}

/// A mark on one iteration dim of a piece: the generated loop scanning schedule dim
/// `2 * dim + 1` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Index of the iteration dim (0-based: loop k of a component is dim k - 1).
    pub dim: usize,
    pub kind: MarkKind,
    /// The script operation that set it, for reports.
    pub origin: Origin,
    /// Its step number.
    pub step: usize,
}

/// `copy(l, k, A)` on one piece: inside each iteration of the outer `outer` loops, the
/// elements of `array` that the staged pieces (every piece carrying this copy, identified by
/// its step) touch live in a local buffer. Like a mark it rides on the schedule: later steps
/// carry it (`outer` follows the loops it counts) or refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyMark {
    /// The array's model name.
    pub array: String,
    /// Number of outer loops (k) whose iterations each get their own buffer contents.
    pub outer: usize,
    /// Most elements the buffer may have (the user raises it with a fourth argument).
    pub limit: u64,
    /// The script operation that set it, for reports.
    pub origin: Origin,
    /// Its step number (several pieces staged by one `copy` share it).
    pub step: usize,
    /// A scaled copy (`copy_scaled(l, k, A, alpha)`): the scalar (model name) whose
    /// product with each element the buffer holds.
    pub scale: Option<String>,
    /// `copy_written(l, k, A)`: the buffer holds only the elements the staged pieces write;
    /// a staged statement's accesses with the subscripts of its own write read and write
    /// the buffer, its other accesses to `A` read `A` (each must touch none of the written
    /// elements: `plan::copy`).
    pub written_only: bool,
}

/// The default bound on a copy buffer's number of elements: 2^20 (8 MiB of `double`).
pub const COPY_LIMIT: u64 = 1 << 20;
