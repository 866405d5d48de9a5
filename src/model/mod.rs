//! The polyhedral program: statements with iteration domains, array accesses, loop
//! components (tags) and 2d+1 schedules (Loopy paper, §3.2).
//!
//! Everything here is what later stages need and nothing about C syntax: the script
//! interpreter rewrites [`Schedule`]s and resolves [`Tag`]s, the verifier computes
//! dependences from [`Access`] relations and checks the final θ, and the code generator scans
//! domains and re-emits each statement's text. The frontend fills it in. Depends on
//! [`crate::presburger`] only.

pub mod aff;
pub mod copy;
pub mod expand;
pub mod json;
pub mod lex;
pub mod marks;
pub mod program;
pub mod render;
pub mod schedule;
pub mod state;
pub mod text;
pub mod value;

pub use aff::LinExpr;
pub use schedule::Schedule;

use crate::presburger::{Int, Map, Set};
use std::ops::Range;

/// Where something is in the user's original files (not the preprocessed text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceSpan {
    /// The file as named on the command line (or by `#include`).
    pub file: String,
    /// Byte range in that file.
    pub range: Range<usize>,
    /// 1-based lines of the first and last byte.
    pub line: usize,
    pub end_line: usize,
}

/// A static control part: the modelled region of one C function.
#[derive(Clone, Debug)]
pub struct Scop {
    /// The C file the region is in.
    pub file: String,
    /// The function whose body holds the region (for a fragment, the function the frontend
    /// wraps it in: `loopy_fragment`).
    pub function: String,
    /// The region is a fragment: statements at file scope, in no function of the file
    /// (`docs/frontend.md`, "Fragments").
    pub fragment: bool,
    /// The modelled statements, from the first to the last (for splicing code back).
    pub region: SourceSpan,
    /// Free integer names in bounds, conditions and subscripts, in order of first use.
    /// Every set and map below has exactly these parameters, in this order.
    pub params: Vec<String>,
    /// What the code itself says about the parameters (e.g. `n >= 0` for an `unsigned n`);
    /// the universe when it says nothing. Never assumed: no `n > 0` unless written.
    pub context: Set,
    /// Every array or scalar the statements touch, in order of first access.
    pub arrays: Vec<Array>,
    /// In textual order; statement `k` is named `S{k}`.
    pub statements: Vec<Statement>,
    pub tags: Vec<Tag>,
    /// Declarations inside the region that are not statements (`static` and `extern`
    /// locals), as written: generated code for the region starts with them.
    pub declarations: Vec<String>,
    /// The function holding the region, as far as generated code needs it to move the
    /// transformed region into a function of its own (`codegen::overlap`).
    pub host: Host,
    /// Checks that stop the program (`if (__builtin_mul_overflow(…)) __builtin_abort();`,
    /// `if (!buffer) __builtin_abort();`), read only in generated code for `loopy equiv`:
    /// what the region computes is compared where they pass.
    pub stops: Vec<SourceSpan>,
    /// Set where the region is one test choosing between two versions of its code (the
    /// no-overlap test of generated code, read for `loopy equiv` only): which version this
    /// model is of. The region computes what a program computes when both versions do.
    pub version: Option<Version>,
}

/// One version of a region that is a test between two (`Scop::version`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// The version the test runs when it fails (the original code); else the one it runs
    /// when it passes (the transformed code).
    pub original: bool,
    /// The test's condition.
    pub test: SourceSpan,
    /// The function the transformed version is a call of, whose body was modelled.
    pub function: Option<String>,
}

/// The function that holds the region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Host {
    /// Where its definition starts in the main file, when it starts there.
    pub start: Option<usize>,
    /// Its parameters, in order, when they can be copied to another function's list.
    pub params: Option<Vec<HostParam>>,
    /// The names the region uses that are the function's parameters or variables declared
    /// in it outside the region (sorted by name).
    pub names: Vec<HostName>,
}

/// A parameter of the host function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostParam {
    pub name: String,
    /// The declaration as written (macros unexpanded) when it is all in the main file,
    /// else as the compiler sees it.
    pub text: String,
    /// Its declaration specifiers, written the same way: the element type of a parameter
    /// that is a pointer or an array.
    pub specifiers: Option<String>,
    /// The levels of its type from the name outward are a pointer then arrays only
    /// (`double *A`, `double A[N][M]`, `double (*A)[M]`), this many in all; 0 otherwise.
    pub array_levels: usize,
}

/// A parameter or local variable of the host function that the region uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostName {
    pub name: String,
    /// A parameter (else a local variable).
    pub param: bool,
    /// The region assigns it (or counts with it: `counter`).
    pub written: bool,
    pub counter: bool,
    /// Its type specifiers (`int`, `unsigned long`) when it is a scalar of arithmetic type
    /// declared without a storage class.
    pub scalar_type: Option<String>,
}

/// Where the elements of an array (or a scalar) of the region live: what decides whether
/// two arrays can overlap in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Declared inside the region.
    Region,
    /// A variable of its own (an array or a scalar, at file scope, in the function or a
    /// parameter passed by value): no two variables overlap. `pointed`: a pointer may
    /// point into it (an array, a file-scope scalar, a scalar whose address is taken).
    Variable { pointed: bool },
    /// Reached through a pointer: a pointer variable, or a parameter declared as an array
    /// (C passes a pointer). Its elements may overlap anything a pointer can reach.
    /// `contiguous`: every level after the first is an array, so the elements lie at
    /// offsets from the pointer that `sizeof` gives.
    Pointer { contiguous: bool, param: bool },
}

/// One C statement (or one opaque construct) and all its dynamic instances.
#[derive(Clone, Debug)]
pub struct Statement {
    /// `S0`, `S1`, … in textual order; the tuple name of the domain and of every relation.
    pub name: String,
    /// The C label written on this very statement, if any.
    pub label: Option<String>,
    /// Iterators of the enclosing modelled loops, outermost first. Names are the C names,
    /// except that an inner loop reusing an outer loop's name gets a fresh one (see
    /// [`LoopInfo::c_name`]).
    pub iterators: Vec<String>,
    /// `params -> { S[iterators] : … }`: the instances that execute.
    pub domain: Set,
    pub accesses: Vec<Access>,
    pub schedule: Schedule,
    /// The statement as written in the original file (macros unexpanded; comments removed
    /// and white space collapsed outside literals), without its label.
    pub text: String,
    /// The same after preprocessing (what the compiler sees).
    pub expanded_text: String,
    pub span: SourceSpan,
    /// The enclosing modelled loops, outermost first (one per iterator).
    pub loops: Vec<LoopInfo>,
    /// Set when the statement stands for a construct that could not be modelled exactly (a
    /// `while` loop, an `if` on data, a `for` loop with non-affine bounds): its instances
    /// are those of the enclosing loops and its accesses over-approximate everything the
    /// construct may touch. The text says why.
    pub opaque: Option<String>,
    /// The variables (model names) this statement declares: a declaration with an
    /// initializer inside the region is a statement, and the code generator keeps it in the
    /// same block as every use of what it declares.
    pub declares: Vec<String>,
    /// Set when the statement is an associative update of one location (`s += e`,
    /// `C[i][j] *= e`, `s -= e` (a `+` update), `s = s + e`, `s = fmax(s, e)`): its only
    /// write, one exact read of the same element, and otherwise only reads of the array
    /// with other subscripts (`B[k][j]` in `B[i][j] += A[k][i] * B[k][j]`), which the
    /// verifier judges element by element against what a marked loop updates.
    pub update: Option<Update>,
    /// What the statement stores, when it is one assignment (`x = e`, `x op= e`, a
    /// declaration with an initializer); otherwise why not (for `loopy equiv`).
    pub store: Result<value::Store, String>,
}

/// An associative update `x = x op e` (see [`Statement::update`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    pub op: state::RedOp,
    /// The array (model name) whose element is updated.
    pub array: String,
}

/// A modelled `for` loop around a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInfo {
    /// The iterator's name in the model (a dimension of the domain).
    pub iterator: String,
    /// The variable's name in C.
    pub c_name: String,
    /// Signed step: `1` for `i++`, `-1` for `i--`, `2` for `i += 2`.
    pub step: Int,
    /// The counter's first value, when it is one affine expression of the outer iterators
    /// and parameters (not a `min`/`max`). Polly-style normalised counters, which the
    /// paper's scripts were written against (examples/README.md), are
    /// `(iterator - first) / step`.
    pub first: Option<LinExpr>,
    /// The `for (…)` header.
    pub span: SourceSpan,
    /// The counter is a signed integer variable declared outside the region (PolyBench's
    /// `int i, j;` at the top of the function): generated loops may count with it again,
    /// and must, or the compiler calls it unused.
    pub outer_counter: bool,
    /// Not a loop of the program: the lanes of a vector statement (`loopy equiv` reads a
    /// GCC vector operation as a loop over its lanes; docs/equiv.md). Its span is the
    /// statement's.
    pub lanes: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    Read,
    Write,
}

/// One array (or scalar) reference of a statement.
#[derive(Clone, Debug)]
pub struct Access {
    /// The array's name in the model (see [`Array::name`]).
    pub array: String,
    pub kind: AccessKind,
    /// `params -> { S[iterators] -> A[subscripts] }`, to be read on the statement's domain
    /// (it is not intersected with it). A scalar is a 0-d array: `S[i] -> x[]`.
    pub relation: Map,
    /// False when `relation` over-approximates: a subscript that is not affine is left
    /// unconstrained (the access may touch any element along that dimension), and writes of
    /// opaque statements may not happen at all. Dependences computed from an inexact access
    /// are a superset of the real ones, never a subset.
    pub exact: bool,
    /// Why the access is not exact (shown to the user).
    pub note: Option<String>,
    pub span: SourceSpan,
}

/// An array or scalar the region touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// Unique in the model. Equal to `c_name` unless two variables declared inside the
    /// region share a C name, when later ones get a suffix.
    pub name: String,
    pub c_name: String,
    /// Number of subscripts (0 for a scalar).
    pub rank: usize,
    /// `Some(d)` for a variable declared inside the region at loop depth `d` (inside `d`
    /// modelled loops): C creates a fresh one for every iteration of those `d` loops, so two
    /// instances whose first `d` iterators differ never communicate through it. The
    /// verifier may drop dependences between such instances; the code generator must keep
    /// the declaration and its uses together.
    pub private_depth: Option<usize>,
    /// Where its elements live (for the no-overlap test of generated code).
    pub storage: Storage,
    /// The element type's specifiers as written after preprocessing (`double`,
    /// `const float`), when the declaration is known.
    pub elem_type: Option<String>,
    /// For a variable declared in the region, read for `loopy equiv`: the number of
    /// elements of each dimension, as an affine expression of the parameters where the
    /// declaration gives one (`[384]`, `[m]`; a pointer's level has none). `equiv` checks
    /// that every access stays within them: past a row's end an access is the next row's
    /// element, which the subscripts would call another. Empty otherwise.
    pub extents: Vec<Option<aff::LinExpr>>,
    /// For a variable declared in the region: its declaration (where a parallel region
    /// makes it each thread's own, for `loopy equiv`).
    pub declared: Option<SourceSpan>,
}

impl Array {
    /// Bytes of one element when its type is a C floating type as declared after
    /// preprocessing (`double`, `const float`, `long double`); `None` for other types or an
    /// unknown declaration.
    pub fn float_bytes(&self) -> Option<usize> {
        let words: Vec<&str> = self.elem_type.as_deref()?.split_whitespace().collect();
        let has = |w: &str| words.contains(&w);
        match (has("float"), has("double"), has("long")) {
            (true, false, false) => Some(4),
            (false, true, false) => Some(8),
            (false, true, true) => Some(16),
            _ => None,
        }
    }
}

/// What kind of construct a tag's label is written on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagKind {
    /// A single statement.
    Statement,
    /// A `{ }` block: either labelled itself, or (as in the paper, §3.1) through the label
    /// on its first statement.
    Block,
    /// A `for` loop.
    Loop,
    /// An `if` statement.
    If,
}

/// A loop component named by a C label (§3.1).
#[derive(Clone, Debug)]
pub struct Tag {
    pub name: String,
    /// The label itself.
    pub span: SourceSpan,
    pub kind: TagKind,
    /// Indices into [`Scop::statements`] of the statements the component covers: P(l) is
    /// the set of their positions.
    pub statements: Vec<usize>,
    /// Number of modelled loops around the tagged construct (a tagged loop does not count
    /// itself).
    pub depth: usize,
    /// When the label is written on the first statement of a `{ }` block and so tags the
    /// whole block (§3.1): that block.
    pub block: Option<SourceSpan>,
}

impl Scop {
    /// Name of statement `k` in messages: its tag when it has one.
    pub fn stmt_name(&self, k: usize) -> String {
        let s = &self.statements[k];
        s.label.clone().unwrap_or_else(|| s.name.clone())
    }

    /// θ of every statement, `S_k[iterators] -> [p0, j1, …]`, in statement order (not
    /// restricted to the domains).
    pub fn schedule_maps(&self) -> Vec<Map> {
        self.statements
            .iter()
            .map(|s| s.schedule.to_map())
            .collect()
    }

    /// The statement index for a name `S{k}`.
    pub fn statement(&self, name: &str) -> Option<usize> {
        self.statements.iter().position(|s| s.name == name)
    }

    pub fn tag(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| t.name == name)
    }

    pub fn array(&self, name: &str) -> Option<&Array> {
        self.arrays.iter().find(|a| a.name == name)
    }

    /// P(l): the position vectors of the statements a tag covers (distinct, sorted).
    pub fn positions(&self, tag: &Tag) -> Vec<Vec<Int>> {
        let mut v: Vec<Vec<Int>> = tag
            .statements
            .iter()
            .map(|&s| self.statements[s].schedule.positions.clone())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Length of every schedule vector (2d + 1).
    pub fn schedule_len(&self) -> usize {
        self.statements
            .first()
            .map_or(1, |s| 2 * s.schedule.depth() + 1)
    }
}

impl Statement {
    /// θ restricted to the statement's instances: `S[i] -> [p0, j1, …]` on the domain.
    pub fn schedule_on_domain(&self) -> Map {
        self.schedule.to_map().intersect_domain(&self.domain)
    }

    /// Renames an iterator everywhere it names a dimension (domain, accesses, schedule,
    /// loops). Only names change; no set changes meaning.
    pub fn rename_iterator(&mut self, old: &str, new: &str) {
        let Some(k) = self.iterators.iter().position(|i| i == old) else {
            return;
        };
        self.iterators[k] = new.to_string();
        let tuple = self.domain.tuple().clone();
        let mut t = tuple.clone();
        t.dims = self.iterators.clone();
        self.domain = self.domain.clone().with_tuple(t.clone());
        for a in &mut self.accesses {
            let out = a.relation.space().range.clone();
            a.relation = a.relation.clone().with_space_names(t.clone(), out);
        }
        let out = self.schedule.dims.space().range.clone();
        self.schedule.dims = self.schedule.dims.clone().with_space_names(t, out);
        for l in &mut self.loops {
            if l.iterator == old {
                l.iterator = new.to_string();
            }
            if let Some(f) = &l.first {
                l.first = Some(f.rename(old, new));
            }
        }
    }
}
