//! The loop AST that scanning produces, and its C text.
//!
//! Expressions are affine rows over `[1, parameters, c0, c1, ...]` (the scanned dimensions
//! bound by enclosing loops), combined with floor/ceil divisions, min and max. C integer
//! division truncates toward zero, so divisions print as `floord`/`ceild` helpers that are
//! correct for negative operands (and as plain `/` when both sides are known non-negative
//! constants).

use super::body::Seg;
use super::text::CText;
use crate::model::copy::{Corner, Extent};
use crate::presburger::affine::{fmt_row, Times};
use crate::presburger::row::Row;
use crate::presburger::{Basic, Int};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// `row · (1, params, c0, c1, ...)`; the row may be shorter than the full width.
    Aff(Row),
    /// `aff + Σ k·e`
    Sum(Row, Vec<(Int, Expr)>),
    Floor(Box<Expr>, Int),
    Ceil(Box<Expr>, Int),
    /// Division known to be exact.
    ExactDiv(Box<Expr>, Int),
    Max(Vec<Expr>),
    Min(Vec<Expr>),
    /// Not expressible; printed as a comment (a bug if it ever reaches generated code).
    Comment(String),
}

impl Expr {
    pub fn floor(e: Expr, d: Int) -> Expr {
        match reduce(e, d) {
            (e, d) if d.is_one() => e,
            (Expr::Aff(r), d) if is_constant(&r) => Expr::Aff(vec![r[0].div_floor(&d)]),
            (e, d) => Expr::Floor(Box::new(e), d),
        }
    }

    pub fn ceil(e: Expr, d: Int) -> Expr {
        match reduce(e, d) {
            (e, d) if d.is_one() => e,
            (Expr::Aff(r), d) if is_constant(&r) => Expr::Aff(vec![r[0].div_ceil(&d)]),
            (e, d) => Expr::Ceil(Box::new(e), d),
        }
    }

    /// `aff + k*e`, affine when `e` is.
    pub fn add_scaled(aff: Row, k: Int, e: Expr) -> Expr {
        match e {
            Expr::Aff(r) => {
                let n = aff.len().max(r.len());
                let at = |x: &Row, i: usize| x.get(i).cloned().unwrap_or(Int::ZERO);
                Expr::Aff((0..n).map(|i| &at(&aff, i) + &(&k * &at(&r, i))).collect())
            }
            e => Expr::Sum(aff, vec![(k, e)]),
        }
    }

    pub fn max(v: Vec<Expr>) -> Expr {
        let mut v = unique(v);
        if v.len() == 1 {
            v.pop().expect("one")
        } else {
            Expr::Max(v)
        }
    }

    pub fn min(v: Vec<Expr>) -> Expr {
        let mut v = unique(v);
        if v.len() == 1 {
            v.pop().expect("one")
        } else {
            Expr::Min(v)
        }
    }

    /// A row over a conjunction's columns: parameters and scanned dims stay affine, known
    /// locals become floors of their definitions.
    pub fn from_row(r: &Row, b: &Basic) -> Expr {
        let start = b.div_start();
        let aff: Row = r[..start.min(r.len())].to_vec();
        let mut terms = vec![];
        for i in 0..b.n_div() {
            let c = b.col_div(i);
            if c < r.len() && !r[c].is_zero() {
                let e = match &b.divs()[i] {
                    Some(d) => Expr::floor(Expr::from_row(d.num(), b), d.den().clone()),
                    None => Expr::Comment(format!("existential e{i}")),
                };
                terms.push((r[c].clone(), e));
            }
        }
        if terms.is_empty() {
            Expr::Aff(aff)
        } else {
            Expr::Sum(aff, terms)
        }
    }
}

/// `v` without repeated expressions, in first-seen order.
fn unique(v: Vec<Expr>) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::with_capacity(v.len());
    for e in v {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

fn is_constant(r: &Row) -> bool {
    r.iter().skip(1).all(Int::is_zero)
}

/// An affine numerator and its divisor divided by their common factor (floor and ceiling
/// of `2x / 6` and `x / 3` agree).
fn reduce(e: Expr, d: Int) -> (Expr, Int) {
    match e {
        Expr::Aff(r) => {
            let g = r.iter().fold(d.clone(), |acc, v| acc.gcd(v));
            if g > Int::ONE {
                (
                    Expr::Aff(r.iter().map(|v| v.div_exact(&g)).collect()),
                    d.div_exact(&g),
                )
            } else {
                (Expr::Aff(r), d)
            }
        }
        e => (e, d),
    }
}

impl Expr {
    /// Whether the value depends on column `col` (of `[1, params, c0, ...]`).
    pub fn uses_col(&self, col: usize) -> bool {
        let row = |r: &Row| r.get(col).is_some_and(|v| !v.is_zero());
        match self {
            Expr::Aff(r) => row(r),
            Expr::Sum(r, terms) => row(r) || terms.iter().any(|(_, e)| e.uses_col(col)),
            Expr::Floor(e, _) | Expr::Ceil(e, _) | Expr::ExactDiv(e, _) => e.uses_col(col),
            Expr::Max(v) | Expr::Min(v) => v.iter().any(|e| e.uses_col(col)),
            Expr::Comment(_) => true,
        }
    }
}

impl Cond {
    pub fn uses_col(&self, col: usize) -> bool {
        match self {
            Cond::Ge(e) | Cond::Eq(e) | Cond::Divisible(e, _) => e.uses_col(col),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `e >= 0`
    Ge(Expr),
    /// `e == 0`
    Eq(Expr),
    /// `e % d == 0`
    Divisible(Expr, Int),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    For {
        var: usize,
        /// The loop variable's name when it counts one of the statements' own iterators
        /// (so bodies keep their original subscripts); otherwise the printer's default.
        name: Option<String>,
        lower: Expr,
        /// Step (1 unless the schedule leaves gaps, e.g. after scaling).
        step: Int,
        upper: Expr,
        body: Vec<Node>,
    },
    /// A dimension fixed to one value (a loop of one iteration).
    Assign {
        var: usize,
        value: Expr,
        body: Vec<Node>,
    },
    If {
        conds: Vec<Cond>,
        body: Vec<Node>,
    },
    /// Statement `id` with the values of its iterators.
    Stmt {
        id: usize,
        args: Vec<Expr>,
    },
    Comment(String),
    /// A marked loop: its OpenMP directive and `body`, the one loop it applies to.
    Omp {
        pragma: LoopPragma,
        body: Vec<Node>,
    },
    /// A loop unrolled `factor` times whose trip count is not a known constant:
    /// `for (v = lower; v <= upper - (factor - 1) * step; v += factor * step) { body }`
    /// (`body` holds the `factor` copies, shifted by `0, step, ...`), then
    /// `for (; v <= upper; v += step) { rest }` for the remaining iterations, the counter
    /// declared once before both.
    Unrolled {
        var: usize,
        name: Option<String>,
        lower: Expr,
        step: Int,
        upper: Expr,
        factor: Int,
        body: Vec<Node>,
        rest: Vec<Node>,
    },
    /// A C block `{ ... }` (one unrolled copy of a body that declares variables).
    Block(Vec<Node>),
    /// Statement `id` with its own body (a register block's statement,
    /// `codegen::registers`): `body` with the statement's iterators replaced by `args`.
    Text {
        id: usize,
        args: Vec<Expr>,
        body: Vec<Seg>,
        /// The copies whose buffers in memory `body` still names.
        buffers: Vec<usize>,
    },
    /// `#pragma omp parallel`: a team of threads runs `body`, each with its own copy of
    /// the `private` counters and its own heap `buffers` (allocated when the region starts,
    /// freed at its end).
    Parallel {
        private: Vec<String>,
        buffers: Vec<ThreadBuffer>,
        body: Vec<Node>,
    },
    /// `#pragma omp single`: one thread of the region runs `body`, the others wait at its
    /// barrier.
    Single(Vec<Node>),
    /// A register block's variables (vector accumulators when `ty` is a vector type):
    /// `ty r0, r1, ...;`.
    Registers {
        ty: String,
        names: Vec<String>,
    },
    /// A register filled from the array element `element` (`reg = element;`) or, `store`,
    /// stored back to it (`element = reg;`).
    Move {
        reg: String,
        element: Element,
        store: bool,
    },
}

/// An element of an array a register block reads or writes: `array[o0 + i0][o1 + i1]..`,
/// each subscript a copy's offset variable plus a constant; `vector`: the unaligned
/// vector type through which the register's lanes are read or written at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    pub array: String,
    pub subscripts: Vec<(String, i64)>,
    pub vector: Option<String>,
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(ty) = &self.vector {
            write!(f, "*({ty} *)&")?;
        }
        f.write_str(&self.array)?;
        for (o, v) in &self.subscripts {
            write!(f, "[{o} + {v}]")?;
        }
        Ok(())
    }
}

/// The OpenMP directive of a marked loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopPragma {
    /// `omp parallel for`: a loop with a team of its own.
    ParallelFor(Clauses),
    /// `omp for`: a work-sharing loop of an enclosing parallel region.
    For(Clauses),
    /// `omp simd`.
    Simd,
    /// `omp atomic`: not a loop's but one update statement's (an array element of a
    /// `parallel(l, k, op)` reduction).
    Atomic,
}

/// The data-sharing clauses of a parallel loop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clauses {
    pub private: Vec<String>,
    /// Private variables that start with the value they had before the loop.
    pub firstprivate: Vec<String>,
    /// The operator (`+`, `*`, `min`, `max`) and the scalars each thread combines into.
    pub reduction: Option<(&'static str, Vec<String>)>,
}

impl Clauses {
    /// The variables OpenMP forbids to be private to an enclosing region.
    pub fn restricted(&self) -> impl Iterator<Item = &String> {
        let red = self.reduction.iter().flat_map(|(_, v)| v);
        self.firstprivate.iter().chain(red)
    }
}

/// A buffer each thread of a parallel region allocates on the heap: a pointer to arrays of
/// the inner extents of `dims`, elements of type `ty`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadBuffer {
    pub ty: String,
    pub name: String,
    pub dims: Vec<Int>,
}

impl ThreadBuffer {
    /// The lines that allocate it, 64-byte aligned (`aligned_alloc`, the size rounded up to
    /// a multiple of 64 as C11 asks), the program stopped with a message on standard error
    /// when the allocation fails. The size is a constant expression (`sizeof` an array type
    /// of the buffer's extents), so an impossible size fails to compile.
    fn allocation(&self) -> [String; 2] {
        let dims: Vec<String> = self.dims.iter().map(|d| format!("[{d}]")).collect();
        let (ty, buf) = (&self.ty, &self.name);
        [
            format!(
                "{ty} (*{buf}){} = aligned_alloc(64, (sizeof({ty}{}) + 63) / 64 * 64);",
                dims[1..].concat(),
                dims.concat()
            ),
            format!(
                "if (!{buf}) {{ perror(\"loopy: cannot allocate a thread's buffer {buf}\"); __builtin_abort(); }}"
            ),
        ]
    }
}

/// The declarations a region with thread buffers starts with.
const ALLOC_EXTERNS: [&str; 2] = [
    "extern void *aligned_alloc(__SIZE_TYPE__, __SIZE_TYPE__);",
    "extern void perror(const char *);",
];

impl Clauses {
    fn text(&self) -> String {
        let mut s = String::new();
        if !self.private.is_empty() {
            let _ = write!(s, " private({})", self.private.join(", "));
        }
        if !self.firstprivate.is_empty() {
            let _ = write!(s, " firstprivate({})", self.firstprivate.join(", "));
        }
        if let Some((op, vars)) = &self.reduction {
            let _ = write!(s, " reduction({op}: {})", vars.join(", "));
        }
        s
    }
}

impl std::fmt::Display for LoopPragma {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoopPragma::ParallelFor(c) => write!(f, "omp parallel for{}", c.text()),
            LoopPragma::For(c) => write!(f, "omp for{}", c.text()),
            LoopPragma::Simd => write!(f, "omp simd"),
            LoopPragma::Atomic => write!(f, "omp atomic"),
        }
    }
}

impl Node {
    /// The node with `f` applied to each list of nodes it holds (a loop's, a guard's or a
    /// block's body; both parts of an unrolled loop), everything else unchanged: the
    /// rebuilding step of a rewrite that recurses through the tree.
    pub fn map_bodies(self, mut f: impl FnMut(Vec<Node>) -> Vec<Node>) -> Node {
        match self.try_map_bodies(|b| Ok::<_, std::convert::Infallible>(f(b))) {
            Ok(n) => n,
            Err(never) => match never {},
        }
    }

    /// [`Node::map_bodies`] for a rewrite that can fail: the first error is returned (an
    /// unrolled loop's body is rewritten before its rest).
    pub fn try_map_bodies<E>(
        self,
        mut f: impl FnMut(Vec<Node>) -> Result<Vec<Node>, E>,
    ) -> Result<Node, E> {
        Ok(match self {
            Node::For {
                var,
                name,
                lower,
                step,
                upper,
                body,
            } => Node::For {
                var,
                name,
                lower,
                step,
                upper,
                body: f(body)?,
            },
            Node::Assign { var, value, body } => Node::Assign {
                var,
                value,
                body: f(body)?,
            },
            Node::If { conds, body } => Node::If {
                conds,
                body: f(body)?,
            },
            Node::Unrolled {
                var,
                name,
                lower,
                step,
                upper,
                factor,
                body,
                rest,
            } => {
                let body = f(body)?;
                Node::Unrolled {
                    var,
                    name,
                    lower,
                    step,
                    upper,
                    factor,
                    body,
                    rest: f(rest)?,
                }
            }
            Node::Block(body) => Node::Block(f(body)?),
            Node::Omp { pragma, body } => Node::Omp {
                pragma,
                body: f(body)?,
            },
            Node::Parallel {
                private,
                buffers,
                body,
            } => Node::Parallel {
                private,
                buffers,
                body: f(body)?,
            },
            Node::Single(body) => Node::Single(f(body)?),
            n => n,
        })
    }

    /// The nodes of the lists this node holds, one list after the other.
    pub fn children(&self) -> Vec<&Node> {
        self.bodies().into_iter().flatten().collect()
    }

    /// The lists of nodes this node holds, in the order they run.
    pub fn bodies(&self) -> Vec<&[Node]> {
        match self {
            Node::For { body, .. }
            | Node::Assign { body, .. }
            | Node::If { body, .. }
            | Node::Block(body)
            | Node::Omp { body, .. }
            | Node::Parallel { body, .. }
            | Node::Single(body) => vec![body],
            Node::Unrolled { body, rest, .. } => vec![body, rest],
            Node::Stmt { .. }
            | Node::Text { .. }
            | Node::Comment(_)
            | Node::Registers { .. }
            | Node::Move { .. } => vec![],
        }
    }
}

/// The first `Some` that `f` gives on the nodes of `nodes` and of the lists they hold,
/// each node before its bodies: the one read-only walk of the tree.
pub fn find_map<T>(nodes: &[Node], f: &mut dyn FnMut(&Node) -> Option<T>) -> Option<T> {
    for n in nodes {
        if let Some(t) = f(n) {
            return Some(t);
        }
        for b in n.bodies() {
            if let Some(t) = find_map(b, f) {
                return Some(t);
            }
        }
    }
    None
}

/// Calls `f` on every node of `nodes` and of the lists they hold, each before its bodies,
/// with its path: the position of each node on the way to it, counted among its parent's
/// nodes (the lists of a node with several taken one after the other).
pub fn for_each_path(nodes: &[Node], f: &mut dyn FnMut(&[usize], &Node)) {
    fn go(nodes: &[&Node], path: &mut Vec<usize>, f: &mut dyn FnMut(&[usize], &Node)) {
        for (k, n) in nodes.iter().enumerate() {
            path.push(k);
            f(path, n);
            go(&n.children(), path, f);
            path.pop();
        }
    }
    go(&nodes.iter().collect::<Vec<_>>(), &mut vec![], f)
}

/// The node at a path of [`for_each_path`].
pub fn node_at<'a>(nodes: &'a [Node], path: &[usize]) -> &'a Node {
    let mut n = &nodes[path[0]];
    for &k in &path[1..] {
        n = n.children()[k];
    }
    n
}

/// Calls `f` on every node of `nodes` and of the lists they hold, each before its bodies.
pub fn for_each(nodes: &[Node], f: &mut dyn FnMut(&Node)) {
    find_map::<()>(nodes, &mut |n| {
        f(n);
        None
    });
}

/// The names of the loops of a tree that count one of the statements' own iterators.
pub fn loop_names(nodes: &[Node]) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for_each(nodes, &mut |n| {
        if let Node::For { name, .. } | Node::Unrolled { name, .. } = n {
            out.extend(name.clone());
        }
    });
    out
}

/// Pieces (scan item ids) whose statements a list of nodes runs.
pub fn ids_in(nodes: &[Node], out: &mut std::collections::BTreeSet<usize>) {
    for_each(nodes, &mut |n| {
        if let Node::Stmt { id, .. } | Node::Text { id, .. } = n {
            out.insert(*id);
        }
    });
}

impl Expr {
    /// The expression plus a constant: `e + c`, inside the affine part when there is one
    /// and distributed over `min`/`max`.
    pub fn plus_const(&self, c: &Int) -> Expr {
        let shift = |r: &Row| {
            let mut r = if r.is_empty() {
                vec![Int::ZERO]
            } else {
                r.clone()
            };
            r[0] = &r[0] + c;
            r
        };
        match self {
            Expr::Aff(r) => Expr::Aff(shift(r)),
            Expr::Sum(r, t) => Expr::Sum(shift(r), t.clone()),
            Expr::Max(v) => Expr::Max(v.iter().map(|e| e.plus_const(c)).collect()),
            Expr::Min(v) => Expr::Min(v.iter().map(|e| e.plus_const(c)).collect()),
            e => Expr::Sum(vec![c.clone()], vec![(Int::ONE, e.clone())]),
        }
    }

    /// The expression with column `col` (of `[1, params, c0, ...]`) replaced by itself
    /// plus `off`: every row with coefficient `a` on it gains `a * off`.
    pub fn shift_col(&self, col: usize, off: &Int) -> Expr {
        let row = |r: &Row| {
            let mut r = r.clone();
            if let Some(a) = r.get(col).filter(|a| !a.is_zero()).cloned() {
                r[0] = &r[0] + &(&a * off);
            }
            r
        };
        match self {
            Expr::Aff(r) => Expr::Aff(row(r)),
            Expr::Sum(r, t) => Expr::Sum(
                row(r),
                t.iter()
                    .map(|(k, e)| (k.clone(), e.shift_col(col, off)))
                    .collect(),
            ),
            Expr::Floor(e, d) => Expr::Floor(Box::new(e.shift_col(col, off)), d.clone()),
            Expr::Ceil(e, d) => Expr::Ceil(Box::new(e.shift_col(col, off)), d.clone()),
            Expr::ExactDiv(e, d) => Expr::ExactDiv(Box::new(e.shift_col(col, off)), d.clone()),
            Expr::Max(v) => Expr::Max(v.iter().map(|e| e.shift_col(col, off)).collect()),
            Expr::Min(v) => Expr::Min(v.iter().map(|e| e.shift_col(col, off)).collect()),
            Expr::Comment(c) => Expr::Comment(c.clone()),
        }
    }

    /// `self - other` when it is a constant: both affine (or the same non-affine terms
    /// plus affine parts) with equal coefficients everywhere but the constant.
    pub fn const_diff(&self, other: &Expr) -> Option<Int> {
        let split = |e: &Expr| -> Option<(Row, Vec<(Int, Expr)>)> {
            match e {
                Expr::Aff(r) => Some((r.clone(), vec![])),
                Expr::Sum(r, t) => Some((r.clone(), t.clone())),
                _ => None,
            }
        };
        let (a, ta) = split(self)?;
        let (b, tb) = split(other)?;
        if ta != tb {
            return None;
        }
        let n = a.len().max(b.len()).max(1);
        let at = |x: &Row, i: usize| x.get(i).cloned().unwrap_or(Int::ZERO);
        if (1..n).any(|i| at(&a, i) != at(&b, i)) {
            return None;
        }
        Some(&at(&a, 0) - &at(&b, 0))
    }
}

impl Cond {
    /// The condition with column `col` replaced by itself plus `off` (see
    /// [`Expr::shift_col`]).
    pub fn shift_col(&self, col: usize, off: &Int) -> Cond {
        match self {
            Cond::Ge(e) => Cond::Ge(e.shift_col(col, off)),
            Cond::Eq(e) => Cond::Eq(e.shift_col(col, off)),
            Cond::Divisible(e, d) => Cond::Divisible(e.shift_col(col, off), d.clone()),
        }
    }
}

/// Nodes with scanned dimension `var` (column `col`) replaced by `var + off` everywhere: in
/// loop bounds, guards, assigned values and statement arguments (one unrolled copy).
pub fn shift_nodes(nodes: &[Node], col: usize, off: &Int) -> Vec<Node> {
    shift_owned(nodes.to_vec(), col, off)
}

fn shift_owned(nodes: Vec<Node>, col: usize, off: &Int) -> Vec<Node> {
    let e = |x: Expr| x.shift_col(col, off);
    nodes
        .into_iter()
        .map(|n| {
            let n = match n {
                Node::For {
                    var,
                    name,
                    lower,
                    step,
                    upper,
                    body,
                } => Node::For {
                    var,
                    name,
                    lower: e(lower),
                    step,
                    upper: e(upper),
                    body,
                },
                Node::Assign { var, value, body } => Node::Assign {
                    var,
                    value: e(value),
                    body,
                },
                Node::If { conds, body } => Node::If {
                    conds: conds.iter().map(|c| c.shift_col(col, off)).collect(),
                    body,
                },
                Node::Stmt { id, args } => Node::Stmt {
                    id,
                    args: args.into_iter().map(e).collect(),
                },
                Node::Text {
                    id,
                    args,
                    body,
                    buffers,
                } => Node::Text {
                    id,
                    args: args.into_iter().map(e).collect(),
                    body,
                    buffers,
                },
                Node::Unrolled {
                    var,
                    name,
                    lower,
                    step,
                    upper,
                    factor,
                    body,
                    rest,
                } => Node::Unrolled {
                    var,
                    name,
                    lower: e(lower),
                    step,
                    upper: e(upper),
                    factor,
                    body,
                    rest,
                },
                n => n,
            };
            n.map_bodies(|b| shift_owned(b, col, off))
        })
        .collect()
}

/// Whether a row over `b`'s columns prints with a floor (a local `b` knows the definition
/// of), as `model::copy`'s `to_c` writes it.
fn row_floors(b: &Basic, r: &Row) -> bool {
    let start = b.div_start();
    r.iter()
        .enumerate()
        .skip(1)
        .any(|(c, v)| !v.is_zero() && c >= start && b.divs()[c - start].is_some())
}

/// Whether a box's corner prints with a floor ([`Corner::to_c`]).
pub fn corner_floors(c: &Corner) -> bool {
    row_floors(&c.basic, &c.row)
}

/// Whether a run-time extent prints with a floor ([`Extent::to_c`]: its pieces up to the
/// first without conditions, or its value alone when it has one piece).
pub fn extent_floors(e: &Extent) -> bool {
    if let [p] = &e.pieces[..] {
        return row_floors(&p.basic, &p.value);
    }
    for p in &e.pieces {
        if p.conds.iter().any(|(r, _)| row_floors(&p.basic, r)) || row_floors(&p.basic, &p.value) {
            return true;
        }
        if p.conds.is_empty() {
            break;
        }
    }
    false
}

/// Which helper macros a piece of C uses.
#[derive(Default, Debug)]
pub struct Helpers {
    /// Prepended to the macro names.
    pub prefix: &'static str,
    pub floord: bool,
    pub ceild: bool,
    pub min: bool,
    pub max: bool,
}

impl Helpers {
    /// `#define`s for the helpers used (correct for negative operands, divisor > 0).
    pub fn defines(&self) -> CText {
        let p = self.prefix;
        let mut s = CText::new();
        if self.floord {
            s.pre(&format!(
                "#define {p}floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))"
            ));
        }
        if self.ceild {
            s.pre(&format!(
                "#define {p}ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))"
            ));
        }
        if self.max {
            s.pre(&format!("#define {p}max(x, y) ((x) > (y) ? (x) : (y))"));
        }
        if self.min {
            s.pre(&format!("#define {p}min(x, y) ((x) < (y) ? (x) : (y))"));
        }
        s
    }
}

/// The value of a dimension fixed by an enclosing assignment.
#[derive(Clone, Debug)]
pub struct Bound {
    /// The value when affine (substituted into affine expressions).
    row: Option<Row>,
    /// Its C text, parenthesised unless a bare name or number.
    name: String,
    shape: Shape,
}

/// How an expression prints, as an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// A name or a number that is not negative.
    Plain,
    /// One parenthesised whole.
    Wrapped,
    /// Anything else: needs parentheses as an operand.
    Compound,
}

/// A statement's argument as printed: its C text, and how it stands as an operand.
pub struct Arg {
    pub text: String,
    /// A name or a number that is not negative.
    pub plain: bool,
    /// Needs no parentheses as an operand: plain, or one parenthesised whole.
    pub atom: bool,
}

impl Arg {
    /// The text as an operand: in parentheses unless an atom.
    pub fn operand(&self) -> String {
        if self.atom {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// The text of statement `id` written as a body, given its arguments.
pub type BodyText<'a> = dyn Fn(usize, &[Arg], &[Seg]) -> String + 'a;

/// Prints expressions and loops as C.
pub struct CPrinter<'a> {
    pub params: &'a [String],
    /// Name of scanned dimension `k`.
    pub var: &'a dyn Fn(usize) -> String,
    /// Text of statement `id` given its arguments.
    pub stmt: &'a dyn Fn(usize, &[Arg]) -> String,
    /// Text of statement `id` written as `body` ([`Node::Text`]) given its argument texts.
    pub text: &'a BodyText<'a>,
    pub helpers: Helpers,
    /// Dimensions fixed by an enclosing assignment, replaced by their value: affine values
    /// are substituted into affine expressions (`c1 + 1` rather than `(c1) + 1`), others
    /// printed in parentheses.
    pub bound: Vec<Option<Bound>>,
    /// Names of enclosing loops that carry one (see [`Node::For`]).
    pub names: Vec<Option<String>>,
    /// Loop variables declared outside the generated code: assigned, not declared.
    pub predeclared: &'a [String],
}

impl CPrinter<'_> {
    fn var_name(&self, k: usize) -> String {
        match self.bound.get(k).cloned().flatten() {
            Some(b) => b.name,
            None => match self.names.get(k).cloned().flatten() {
                Some(n) => n,
                None => (self.var)(k),
            },
        }
    }

    /// How `e` prints ([`CPrinter::expr`]), as an operand.
    fn shape(&self, e: &Expr) -> Shape {
        match e {
            Expr::Aff(r) => {
                let r = self.expand(r);
                let terms: Vec<usize> = (1..r.len()).filter(|&k| !r[k].is_zero()).collect();
                match terms[..] {
                    [] if !r[0].is_negative() => Shape::Plain,
                    [k] if r[k].is_one() && r[0].is_zero() => self.col_shape(k),
                    _ => Shape::Compound,
                }
            }
            Expr::Sum(r, t) if r.iter().all(Int::is_zero) => match &t[..] {
                [] => Shape::Plain,
                [(k, e)] if k.is_one() => self.shape(e),
                _ => Shape::Compound,
            },
            Expr::Sum(r, t) if t.is_empty() => self.shape(&Expr::Aff(r.clone())),
            Expr::Max(v) | Expr::Min(v) if v.len() == 1 => self.shape(&v[0]),
            _ => Shape::Compound,
        }
    }

    /// How the name of column `k` of `[1, params, c0, ...]` prints.
    fn col_shape(&self, k: usize) -> Shape {
        if k <= self.params.len() {
            return Shape::Plain;
        }
        match self.bound.get(k - 1 - self.params.len()).cloned().flatten() {
            Some(b) if b.shape != Shape::Plain => Shape::Wrapped,
            _ => Shape::Plain,
        }
    }

    /// `e` printed as a statement's argument.
    fn arg(&mut self, e: &Expr) -> Arg {
        let shape = self.shape(e);
        Arg {
            text: self.expr(e),
            plain: shape == Shape::Plain,
            atom: shape != Shape::Compound,
        }
    }

    /// `r` with the affine values of bound dimensions substituted.
    fn expand(&self, r: &Row) -> Row {
        let np = self.params.len();
        let mut r = r.clone();
        for k in (0..self.bound.len()).rev() {
            let col = 1 + np + k;
            if col >= r.len() || r[col].is_zero() {
                continue;
            }
            if let Some(Bound { row: Some(v), .. }) = &self.bound[k] {
                let a = std::mem::replace(&mut r[col], Int::ZERO);
                if r.len() < v.len() {
                    r.resize(v.len(), Int::ZERO);
                }
                for (x, y) in r.iter_mut().zip(v) {
                    *x = &*x + &(&a * y);
                }
            }
        }
        r
    }

    fn aff(&self, r: &Row) -> String {
        let r = &self.expand(r);
        let np = self.params.len();
        let name = |k: usize| {
            if k <= np {
                self.params[k - 1].clone()
            } else {
                self.var_name(k - 1 - np)
            }
        };
        fmt_row(r, name, Times::SpacedStar)
    }

    pub fn expr(&mut self, e: &Expr) -> String {
        match e {
            Expr::Aff(r) => self.aff(r),
            Expr::Sum(r, terms) => {
                let mut s = if r.iter().all(Int::is_zero) {
                    String::new()
                } else {
                    self.aff(r)
                };
                for (k, t) in terms {
                    let t = self.expr(t);
                    let term = if k.abs().is_one() {
                        t
                    } else {
                        format!("{} * {t}", k.abs())
                    };
                    if s.is_empty() {
                        s = if k.is_negative() {
                            format!("-{term}")
                        } else {
                            term
                        };
                    } else {
                        let _ = write!(s, " {} {term}", if k.is_negative() { "-" } else { "+" });
                    }
                }
                if s.is_empty() {
                    "0".to_string()
                } else {
                    s
                }
            }
            Expr::Floor(x, d) => {
                self.helpers.floord = true;
                let x = self.expr(x);
                format!("{}floord({x}, {d})", self.helpers.prefix)
            }
            Expr::Ceil(x, d) => {
                self.helpers.ceild = true;
                let x = self.expr(x);
                format!("{}ceild({x}, {d})", self.helpers.prefix)
            }
            Expr::ExactDiv(x, d) => format!("({}) / {d}", self.expr(x)),
            Expr::Max(v) => {
                self.helpers.max = true;
                self.fold("max", v)
            }
            Expr::Min(v) => {
                self.helpers.min = true;
                self.fold("min", v)
            }
            Expr::Comment(c) => format!("/* {c} */ 0"),
        }
    }

    fn fold(&mut self, f: &str, v: &[Expr]) -> String {
        let mut it = v.iter();
        let mut s = self.expr(it.next().expect("non-empty"));
        for e in it {
            let e = self.expr(e);
            s = format!("{}{f}({s}, {e})", self.helpers.prefix);
        }
        s
    }

    /// `row >= 0` or `row == 0` as a comparison of two sides without negative terms where
    /// it can: `n >= 1` rather than `n - 1 >= 0`.
    fn compare(&self, r: &Row, op: &str) -> String {
        let pos: Row = r
            .iter()
            .enumerate()
            .map(|(k, v)| {
                if k > 0 && v.is_positive() {
                    v.clone()
                } else {
                    Int::ZERO
                }
            })
            .collect();
        let mut neg: Row = r
            .iter()
            .enumerate()
            .map(|(k, v)| {
                if k > 0 && v.is_negative() {
                    -v
                } else {
                    Int::ZERO
                }
            })
            .collect();
        neg[0] = -&r[0];
        if pos.iter().all(Int::is_zero) {
            let flipped = match op {
                ">=" => "<=",
                o => o,
            };
            let c: Row = vec![r[0].clone()];
            neg[0] = Int::ZERO;
            return format!("{} {flipped} {}", self.aff(&neg), self.aff(&c));
        }
        format!("{} {op} {}", self.aff(&pos), self.aff(&neg))
    }

    fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::Ge(Expr::Aff(r)) => self.compare(r, ">="),
            Cond::Eq(Expr::Aff(r)) => self.compare(r, "=="),
            Cond::Ge(e) => format!("{} >= 0", self.expr(e)),
            Cond::Eq(e) => format!("{} == 0", self.expr(e)),
            Cond::Divisible(e, d) => format!("({}) % {d} == 0", self.expr(e)),
        }
    }

    /// A loop: `for (v = lower; v <= upper; v += step) { body }`.
    fn for_loop(&mut self, n: &Node, indent: usize, out: &mut CText) {
        let Node::For {
            var,
            name,
            lower,
            step,
            upper,
            body,
        } = n
        else {
            return;
        };
        let pad = "  ".repeat(indent);
        if self.names.len() <= *var {
            self.names.resize(*var + 1, None);
        }
        let saved = std::mem::replace(&mut self.names[*var], name.clone());
        let v = self.var_name(*var);
        let lo = self.expr(lower);
        let hi = self.expr(upper);
        let decl = if self.predeclared.contains(&v) {
            ""
        } else {
            "int "
        };
        let inc = if step.is_one() {
            format!("{v}++")
        } else {
            format!("{v} += {step}")
        };
        let _ = writeln!(out, "{pad}for ({decl}{v} = {lo}; {v} <= {hi}; {inc}) {{");
        self.nodes(body, indent + 1, out);
        let _ = writeln!(out, "{pad}}}");
        self.names[*var] = saved;
    }

    /// An unrolled loop of unknown trip count ([`Node::Unrolled`]).
    fn unrolled(&mut self, n: &Node, indent: usize, out: &mut CText) {
        let Node::Unrolled {
            var,
            name,
            lower,
            step,
            upper,
            factor,
            body,
            rest,
        } = n
        else {
            return;
        };
        let pad = "  ".repeat(indent);

        if self.names.len() <= *var {
            self.names.resize(*var + 1, None);
        }
        let saved = std::mem::replace(&mut self.names[*var], name.clone());
        let v = self.var_name(*var);
        let lo = self.expr(lower);
        let hi = self.expr(upper);
        let span = step * factor;
        let last = upper.plus_const(&-(&span - step));
        let hi_main = self.expr(&last);
        let inc = |s: &Int| {
            if s.is_one() {
                format!("{v}++")
            } else {
                format!("{v} += {s}")
            }
        };
        // The counter outlives the first loop: the second continues from it.
        let declared = !self.predeclared.contains(&v);
        let inner = if declared {
            let _ = writeln!(out, "{pad}{{");
            let _ = writeln!(out, "{pad}  int {v};");
            indent + 1
        } else {
            indent
        };
        let ipad = "  ".repeat(inner);
        let _ = writeln!(
            out,
            "{ipad}for ({v} = {lo}; {v} <= {hi_main}; {}) {{",
            inc(&span)
        );
        self.nodes(body, inner + 1, out);
        let _ = writeln!(out, "{ipad}}}");
        let _ = writeln!(out, "{ipad}for (; {v} <= {hi}; {}) {{", inc(step));
        self.nodes(rest, inner + 1, out);
        let _ = writeln!(out, "{ipad}}}");
        if declared {
            let _ = writeln!(out, "{pad}}}");
        }
        self.names[*var] = saved;
    }

    /// A parallel region with each thread's buffers ([`Node::Parallel`]).
    fn parallel(
        &mut self,
        private: &[String],
        buffers: &[ThreadBuffer],
        body: &[Node],
        indent: usize,
        out: &mut CText,
    ) {
        let pad = "  ".repeat(indent);

        let mut clause = String::new();
        if !private.is_empty() {
            clause = format!(" private({})", private.join(", "));
        }
        out.directive(&pad, &format!("#pragma omp parallel{clause}"));
        let _ = writeln!(out, "{pad}{{");
        if !buffers.is_empty() {
            for e in ALLOC_EXTERNS {
                let _ = writeln!(out, "{pad}  {e}");
            }
        }
        for line in buffers.iter().flat_map(ThreadBuffer::allocation) {
            let _ = writeln!(out, "{pad}  {line}");
        }
        self.nodes(body, indent + 1, out);
        for b in buffers {
            let _ = writeln!(out, "{pad}  __builtin_free({});", b.name);
        }
        let _ = writeln!(out, "{pad}}}");
    }

    /// The C text of a list of nodes at an indentation.
    pub fn nodes(&mut self, nodes: &[Node], indent: usize, out: &mut CText) {
        let pad = "  ".repeat(indent);
        for n in nodes {
            match n {
                Node::For { .. } => self.for_loop(n, indent, out),
                Node::Assign { var, value, body } => {
                    // A loop of one iteration: its value is used directly.
                    let row = match value {
                        Expr::Aff(r) => Some(self.expand(r)),
                        _ => None,
                    };
                    let shape = self.shape(value);
                    let text = self.expr(value);
                    let val = Bound {
                        row,
                        name: match shape {
                            Shape::Plain => text,
                            _ => format!("({text})"),
                        },
                        shape,
                    };
                    if self.bound.len() <= *var {
                        self.bound.resize(*var + 1, None);
                    }
                    let saved = self.bound[*var].replace(val);
                    self.nodes(body, indent, out);
                    self.bound[*var] = saved;
                }
                Node::If { conds, body } => {
                    let cs: Vec<String> = conds.iter().map(|c| self.cond(c)).collect();
                    let _ = writeln!(out, "{pad}if ({}) {{", cs.join(" && "));
                    self.nodes(body, indent + 1, out);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Stmt { id, args } => {
                    let a: Vec<Arg> = args.iter().map(|e| self.arg(e)).collect();
                    let _ = writeln!(out, "{pad}{}", (self.stmt)(*id, &a));
                }
                Node::Text { id, args, body, .. } => {
                    let a: Vec<Arg> = args.iter().map(|e| self.arg(e)).collect();
                    let _ = writeln!(out, "{pad}{}", (self.text)(*id, &a, body));
                }
                Node::Comment(c) => {
                    let _ = writeln!(out, "{pad}/* {c} */");
                }
                Node::Omp { pragma, body } => {
                    out.directive(&pad, &format!("#pragma {pragma}"));
                    self.nodes(body, indent, out);
                }
                Node::Parallel {
                    private,
                    buffers,
                    body,
                } => self.parallel(private, buffers, body, indent, out),
                Node::Single(body) => {
                    out.directive(&pad, "#pragma omp single");
                    let _ = writeln!(out, "{pad}{{");
                    self.nodes(body, indent + 1, out);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Registers { ty, names } => {
                    let _ = writeln!(out, "{pad}{ty} {};", names.join(", "));
                }
                Node::Move {
                    reg,
                    element,
                    store,
                } => {
                    let _ = if *store {
                        writeln!(out, "{pad}{element} = {reg};")
                    } else {
                        writeln!(out, "{pad}{reg} = {element};")
                    };
                }
                Node::Unrolled { .. } => self.unrolled(n, indent, out),
                Node::Block(body) => {
                    let _ = writeln!(out, "{pad}{{");
                    self.nodes(body, indent + 1, out);
                    let _ = writeln!(out, "{pad}}}");
                }
            }
        }
    }
}

/// The constant of largest magnitude in a loop nest: coefficients, constant terms, divisors
/// and steps. The printer writes them as C integer literals.
pub fn largest_constant(nodes: &[Node]) -> Int {
    fn row(r: &[Int], m: &mut Int) {
        for v in r {
            if v.abs() > *m {
                *m = v.abs();
            }
        }
    }
    fn expr(e: &Expr, m: &mut Int) {
        match e {
            Expr::Aff(r) => row(r, m),
            Expr::Sum(r, terms) => {
                row(r, m);
                for (k, e) in terms {
                    row(std::slice::from_ref(k), m);
                    expr(e, m);
                }
            }
            Expr::Floor(e, d) | Expr::Ceil(e, d) | Expr::ExactDiv(e, d) => {
                row(std::slice::from_ref(d), m);
                expr(e, m);
            }
            Expr::Max(es) | Expr::Min(es) => es.iter().for_each(|e| expr(e, m)),
            Expr::Comment(_) => {}
        }
    }
    let mut m = Int::ZERO;
    for_each(nodes, &mut |n| match n {
        Node::For {
            lower, step, upper, ..
        } => {
            expr(lower, &mut m);
            expr(upper, &mut m);
            row(std::slice::from_ref(step), &mut m);
        }
        Node::Assign { value, .. } => expr(value, &mut m),
        Node::If { conds, .. } => {
            for c in conds {
                match c {
                    Cond::Ge(e) | Cond::Eq(e) => expr(e, &mut m),
                    Cond::Divisible(e, d) => {
                        row(std::slice::from_ref(d), &mut m);
                        expr(e, &mut m);
                    }
                }
            }
        }
        Node::Stmt { args, .. } | Node::Text { args, .. } => {
            args.iter().for_each(|e| expr(e, &mut m))
        }
        Node::Unrolled {
            lower,
            step,
            upper,
            factor,
            ..
        } => {
            expr(lower, &mut m);
            expr(upper, &mut m);
            row(&[step.clone(), step * factor], &mut m);
        }
        _ => {}
    });
    m
}
