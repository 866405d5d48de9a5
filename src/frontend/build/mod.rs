//! The walk from a region's C syntax to the polyhedral model.
//!
//! One pass over the region, in textual order, keeps the state of the loop tree: the
//! modelled loops around the current point, the current domain context (a set over their
//! iterators: loop bounds, strides, `if` conditions), and the current position path of the
//! 2d+1 schedule. Every statement created takes a snapshot of that state.
//!
//! Nothing here is allowed to be wrong. What cannot be modelled exactly is either
//! over-approximated (a subscript that is not affine leaves its dimension unconstrained; a
//! loop, `if` or `while` that cannot be modelled becomes one opaque statement that may touch
//! everything its body touches), or, when no sound approximation exists (jumps, pointers,
//! calls with unknown effects, writes to loop counters), rejected with a diagnostic.

mod accesses;
mod affine;
mod declarations;
mod finish;
mod heap;
mod lanes;
mod loops;
mod offsets;
mod opaque;
mod prepass;
pub(crate) use prepass::is_assignment;
mod statements;
mod updates;
mod values;

use super::srcmap::{normalize, SourceMap};
use super::symbols::{
    declarator_name, declarator_rank, is_function, DeclLevel, Scope, Symbols, TypeClass,
};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::aff::{self, LinExpr};
use crate::model::{
    Access, AccessKind, Array, Host, HostName, HostParam, LoopInfo, Schedule, Scop, SourceSpan,
    Statement as MStatement, Storage, Tag, TagKind,
};
use crate::presburger::{Int, Map, Set, Space, Tuple};
use lang_c::ast::{
    BinaryOperator, BlockItem, Constant, Declaration, DeclarationSpecifier, Expression,
    ForInitializer, ForStatement, Initializer, IntegerBase, Label, Statement,
    StorageClassSpecifier, UnaryOperator,
};
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

type R<T> = Result<T, Diagnostic>;
/// `Ok(Err(why))`: the construct is not affine (a reason the user can read).
type Affine<T> = R<Result<T, String>>;

/// Functions known to have no side effects: calling them reads their arguments only.
const PURE: &[&str] = &[
    "sqrt",
    "cbrt",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "fabs",
    "abs",
    "labs",
    "llabs",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "nearbyint",
    "fmin",
    "fmax",
    "fma",
    "fmod",
    "remainder",
    "hypot",
    "erf",
    "erfc",
    "tgamma",
    "copysign",
    "fdim",
];

fn is_pure(name: &str) -> bool {
    let base = name
        .strip_prefix("__builtin_")
        .unwrap_or(name)
        .trim_end_matches(['f', 'l']);
    PURE.contains(&base) || PURE.contains(&name.strip_prefix("__builtin_").unwrap_or(name))
}

/// `1 subscript`, `2 subscripts`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn range(s: &Span) -> Range<usize> {
    s.start..s.end
}

/// An affine value that may depend on conditions (`a < b ? a : b`): pieces with disjoint
/// conditions over the current iterators; `None` is "always".
#[derive(Clone, Debug)]
struct Piece {
    cond: Option<Set>,
    expr: LinExpr,
}

type PwAff = Vec<Piece>;

fn and_cond(a: &Option<Set>, b: &Option<Set>) -> Option<Set> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(a), Some(b)) => Some(a.intersect(b)),
    }
}

fn combine(a: &PwAff, b: &PwAff, f: impl Fn(&LinExpr, &LinExpr) -> LinExpr) -> PwAff {
    let mut out = vec![];
    for p in a {
        for q in b {
            out.push(Piece {
                cond: and_cond(&p.cond, &q.cond),
                expr: f(&p.expr, &q.expr),
            });
        }
    }
    out
}

fn constant_of(p: &PwAff) -> Option<Int> {
    match p.as_slice() {
        [Piece { cond: None, expr }] => expr.as_constant().cloned(),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Read,
    Write,
    ReadWrite,
}

impl Mode {
    fn kinds(self) -> &'static [AccessKind] {
        match self {
            Mode::Read => &[AccessKind::Read],
            Mode::Write => &[AccessKind::Write],
            Mode::ReadWrite => &[AccessKind::Read, AccessKind::Write],
        }
    }
}

/// What a name means inside the region.
#[derive(Clone, Debug)]
enum Binding {
    /// The iterator of an enclosing modelled loop (its name in the model).
    Iter(String),
    /// A variable declared inside the region (its array name in the model).
    Local {
        array: String,
        rank: usize,
        private_depth: Option<usize>,
    },
    /// A variable that lives inside one opaque construct: invisible outside it.
    OpaqueLocal,
}

struct Frame {
    iterator: String,
    c_name: String,
    step: Int,
    first: Option<LinExpr>,
    span: SourceSpan,
    outer_counter: bool,
    /// The lanes of a vector statement (`lanes.rs`).
    lanes: bool,
}

/// What a loop whose counter is declared outside it leaves there, for a loop right after it
/// that continues from that value (`for (; i <= …; i++)`, the remainder of an unrolled
/// loop).
struct Left {
    c_name: String,
    /// The iterators of the loops around both.
    outer: Vec<String>,
    /// For each point of those loops, the counter's values along its stride that the
    /// condition refuses: the first of them, in the loop's direction, is the value left.
    past: Set,
    up: bool,
}

/// While inside an opaque construct: which jumps stay inside it.
#[derive(Clone, Copy)]
struct Opaque {
    in_loop: bool,
    in_switch: bool,
}

use prepass::PrePass;

/// What the walk knows of the forms of generated code it reads for `loopy equiv`
/// (`Options::read_generated`): vector types (`lanes.rs`), integer offsets (`offsets.rs`),
/// heap buffers, stopping checks and extents (`heap.rs`).
#[derive(Clone, Debug, Default)]
pub struct Generated {
    /// The region's typedef names.
    types: HashMap<String, lanes::RegionType>,
    /// The model arrays of vector variables, with their lanes (the last dimension).
    vectors: HashMap<String, usize>,
    /// The lane iterator of the vector statement being walked, and its lanes.
    current: Option<(String, usize)>,
    /// The integer variables whose values are known (`offsets.rs`), by model name.
    known: HashMap<String, offsets::Known>,
    /// While above zero, a subscript is being read: a division by a positive constant
    /// gives a quotient (`affine.rs`), defined in the access relation.
    in_subscript: usize,
    /// Buffers allocated on the heap (`heap.rs`), by model name.
    heap: HashSet<String>,
    /// The checks that stop the program (`heap.rs`).
    stops: Vec<SourceSpan>,
    /// The extents of the variables declared in the region (`heap.rs`), by model name.
    extents: HashMap<String, Vec<Option<LinExpr>>>,
}

pub struct Builder<'a> {
    sm: &'a SourceMap,
    syms: &'a Symbols,
    pre: PrePass,
    scopes: Vec<HashMap<String, Binding>>,
    loops: Vec<Frame>,
    /// The current domain context: a set over the iterators of `loops`.
    ctx: Set,
    /// Positions of the enclosing loops.
    path: Vec<Int>,
    /// Next child position at each level (one more entry than `loops`).
    next: Vec<i64>,
    stmts: Vec<MStatement>,
    tags: Vec<Tag>,
    params: Vec<String>,
    arrays: Vec<Array>,
    /// Where each array was first accessed (for rank mismatch reports).
    array_first: HashMap<String, Range<usize>>,
    /// Names of variables declared inside the region (model names).
    local_names: HashSet<String>,
    /// The element type of each variable declared in the region (model names).
    local_types: HashMap<String, String>,
    /// The declaration of each variable declared in the region (by model name).
    local_decls: HashMap<String, Span>,
    /// While above zero, the operands of a comparison are being read: a division by a
    /// positive constant may give quotients (see `affine.rs`).
    in_comparison: usize,
    /// Every quotient made: its name, numerator and divisor (`q = floor(num / d)`).
    quotients: Vec<(String, LinExpr, Int)>,
    /// Text of `static` and `extern` declarations in the region (see `Scop::declarations`).
    declarations: Vec<String>,
    opaque: Option<Opaque>,
    /// The accesses of the opaque construct being walked.
    opaque_acc: Vec<Access>,
    /// What the statement just walked left in a loop counter, when it was such a loop.
    left: Option<Left>,
    /// The forms of generated code, when they are read (`Generated`); otherwise a typedef
    /// in the region is refused, as are heap buffers and integer offsets.
    generated: Option<Generated>,
}

impl<'a> Builder<'a> {
    pub fn new(sm: &'a SourceMap, syms: &'a Symbols, items: &'a [Node<BlockItem>]) -> Self {
        let mut pre = PrePass::default();
        for it in items {
            pre.visit_block_item(&it.node, &it.span);
        }
        Builder {
            sm,
            syms,
            pre,
            scopes: vec![HashMap::new()],
            loops: vec![],
            ctx: aff::universe(&[]),
            path: vec![],
            next: vec![0],
            stmts: vec![],
            tags: vec![],
            params: vec![],
            arrays: vec![],
            array_first: HashMap::new(),
            local_names: HashSet::new(),
            local_types: HashMap::new(),
            local_decls: HashMap::new(),
            in_comparison: 0,
            quotients: vec![],
            declarations: vec![],
            opaque: None,
            opaque_acc: vec![],
            left: None,
            generated: None,
        }
    }

    /// Reads GCC vector types in the region as lanes (for `loopy equiv`).
    pub fn read_generated(&mut self) {
        self.generated = Some(Generated::default());
    }

    // ----------------------------------------------------------------- helpers

    fn span(&self, s: &Span) -> SourceSpan {
        self.sm.span_or_pre(range(s))
    }

    fn err(&self, msg: impl Into<String>, s: &Span, label: impl Into<String>) -> Diagnostic {
        let sp = self.span(s);
        Diagnostic::new(codes::UNSUPPORTED_C, msg).with_label(&sp.file, sp.range, label)
    }

    fn with_label(&self, d: Diagnostic, s: &SourceSpan, label: impl Into<String>) -> Diagnostic {
        d.with_label(&s.file, s.range.clone(), label)
    }

    fn pre_text(&self, s: &Span) -> String {
        normalize(self.sm.pre.get(range(s)).unwrap_or(""))
    }

    fn dims(&self) -> Vec<String> {
        self.loops.iter().map(|f| f.iterator.clone()).collect()
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn bind(&mut self, name: &str, b: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name.to_string(), b);
    }

    /// A name not used by anything in sight.
    fn fresh(&self, base: &str, taken: impl Fn(&str) -> bool) -> String {
        (1..)
            .map(|k| format!("{base}_{k}"))
            .find(|n| {
                !taken(n)
                    && !self.pre.idents.contains(n)
                    && self.syms.get(n).is_none()
                    && !self.local_names.contains(n)
            })
            .expect("some fresh name")
    }

    fn next_position(&mut self) -> Int {
        let n = self.next.last_mut().expect("a level");
        let p = *n;
        *n += 1;
        Int::from(p)
    }

    fn universe(&self) -> Set {
        aff::universe(&self.dims())
    }

    fn empty(&self) -> Set {
        aff::set_from(&self.dims(), &[], &[LinExpr::constant(-1)])
    }

    fn complement(&self, s: &Set) -> Set {
        self.universe().subtract(s)
    }

    fn stmt_name(&self) -> String {
        format!("S{}", self.stmts.len())
    }
}
