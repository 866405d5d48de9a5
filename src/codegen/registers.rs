//! Register blocks: a copy generated as local variables instead of a buffer in memory.
//!
//! A copy (`model::copy`) stages a box of an array in a buffer for each execution of its
//! window. When the box is a small constant, the fill and the write-back cover the whole
//! box, and every access of the window's statements to the buffer has a constant index
//! once the enclosing unrolled loops are resolved, the buffer can live in registers: each
//! element (or each group of `lanes` consecutive elements along the last dimension) becomes
//! a local variable of the window, filled from the array before the window and written back
//! after it. A loop marked `vectorize` over the last dimension becomes one statement per
//! group of lanes, written with GCC/Clang vector types: the block's accumulators are
//! vectors, operands that vary along the loop are vector loads (or, where their lanes are
//! apart in memory, vectors built from one element per lane), the others are scalars the
//! compiler broadcasts. This is the shape of a BLIS micro-kernel.
//!
//! Nothing new is trusted: the copy was verified as a copy, and this only changes where the
//! buffer lives. Each window is decided on its own; a window that does not qualify keeps the
//! buffer in memory, as before (for instance the partial tiles around full ones).
//!
//! Vector statements keep the statement's expression and evaluation order: a vector
//! operation computes, lane by lane, exactly what the scalar statement computes for that
//! lane, so the outputs are the same bit for bit (with the same floating-point contraction
//! setting on both sides).

use super::ast::{find_map, ids_in, Element, Expr, LoopPragma, Node};
use super::body::{self, Access, BufferAccess, Index, Linear, Seg, Sub};
use super::copy::Extra;
use super::names::{buffer, offset};
use super::place::Body;
use super::stage::Staging;
use crate::diag::{codes, Diagnostic};
use crate::model::copy::{BufDim, CopyPlan};
use crate::model::marks::MarkKind;
use crate::model::{AccessKind, Scop};
use crate::presburger::row::Row;
use crate::presburger::Int;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// What the generated code may assume of the machine it is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// Bytes of one vector register (64 with AVX-512, 32 with AVX2, 16 with SSE or NEON),
    /// or 0: register blocks are scalars. Vector types are plain GCC/Clang vector
    /// extensions, so the code is correct for any value; the value only decides the
    /// shape that runs fast.
    pub vector_bytes: u32,
    /// Whether copies may become register blocks at all.
    pub registers: bool,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            vector_bytes: 0,
            registers: true,
        }
    }
}

impl Target {
    /// Lanes of a vector of doubles (1: no vectors).
    pub fn lanes(&self) -> usize {
        self.lanes_of(8)
    }

    /// Lanes of a vector of elements of `bytes` bytes (1: no vectors).
    pub fn lanes_of(&self, bytes: usize) -> usize {
        (self.vector_bytes as usize / bytes.max(1)).max(1)
    }
}

/// What the pass needs of the kernel.
struct Ctx<'a> {
    pub n_param: usize,
    pub n_stmt: usize,
    pub params: &'a [String],
    /// Per statement item: the C names of its iterators, outermost first.
    pub iters: &'a [Vec<String>],
    /// Per statement item: its body, the copied arrays' accesses already replaced by their
    /// buffers'.
    pub texts: &'a [Vec<Seg>],
    /// Per statement item: the C names of the arrays and scalars it writes.
    pub writes: &'a [Vec<String>],
    /// Per statement item: the copies whose buffers its body names.
    pub buffers: &'a [BTreeSet<usize>],
    /// Lanes of one register per array (C name), from its element type; `lanes` for an
    /// array whose type is not known (8-byte elements assumed).
    pub lanes_of: BTreeMap<String, usize>,
    pub lanes: usize,
}

/// The register form of the copies where it applies: the new nodes, the type definitions
/// they need (to put before the loops) and, per plan, whether the buffer in memory is still
/// used by some window.
pub(super) struct Registers {
    pub nodes: Vec<Node>,
    pub typedefs: Vec<TypeDef>,
    pub buffer_used: Vec<bool>,
    /// Per plan, whether some window took the register form.
    pub formed: Vec<bool>,
    /// The copies whose box is small and constant but none of whose windows took the
    /// register form, each with why its first window did not.
    pub not_formed: Vec<(usize, Why)>,
}

/// A type the register blocks define before the loops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum TypeDef {
    /// `typedef __typeof__(A[0]..) name;`: the element type of array `array`.
    Element {
        name: String,
        array: String,
        rank: usize,
    },
    /// A vector of `lanes` elements of type `elem`; `unaligned`: aligned as one element
    /// and allowed to alias it (for loads and stores at any element).
    Vector {
        name: String,
        elem: String,
        lanes: usize,
        unaligned: bool,
    },
}

impl TypeDef {
    /// The vector type `ty` of `lanes` elements of array `array` (of rank `rank`), after
    /// its element type `ty_e`.
    fn vector_of(
        ty: &str,
        array: &str,
        rank: usize,
        lanes: usize,
        unaligned: bool,
    ) -> [TypeDef; 2] {
        let elem = format!("{ty}_e");
        [
            TypeDef::Element {
                name: elem.clone(),
                array: array.to_string(),
                rank,
            },
            TypeDef::Vector {
                name: ty.to_string(),
                elem,
                lanes,
                unaligned,
            },
        ]
    }
}

impl std::fmt::Display for TypeDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TypeDef::Element { name, array, rank } => {
                write!(
                    f,
                    "typedef __typeof__({array}{}) {name};",
                    "[0]".repeat(*rank)
                )
            }
            TypeDef::Vector {
                name,
                elem: e,
                lanes: l,
                unaligned,
            } => {
                write!(
                    f,
                    "typedef {e} {name} __attribute__((vector_size({l} * sizeof({e}))"
                )?;
                if *unaligned {
                    write!(f, ", aligned(sizeof({e})), __may_alias__")?;
                }
                write!(f, "));")
            }
        }
    }
}

/// Why a window of a copy whose box is small and constant keeps its buffer in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The box's lower corner is not an affine expression of the enclosing loops.
    Corner,
    /// The footprint does not fill the box: the fill (or write-back) is not one nest of
    /// constant trip counts over the whole box.
    Partial,
    /// An access to the buffer has no constant place in the block once the unrolled loops
    /// are resolved (a loop over the block is neither unrolled nor the vectorized one).
    Index,
    /// A loop marked `vectorize` over the block does not run a whole number of vectors
    /// from a place the block's lanes start at.
    Vector,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Why::Corner => "the block's corner is not an affine expression of the loops around it",
            Why::Partial => "no window's footprint fills the whole box (every window is a partial tile, and the whole ones could not be separated by an affine condition)",
            Why::Index => "an access to the block has no constant place in it: every loop over the block inside the window must be unrolled, or be the innermost one and vectorized",
            Why::Vector => "the vectorized loop over the block does not run a whole number of vectors",
        })
    }
}

/// One plan's items and register layout.
struct Block<'a> {
    plan: &'a CopyPlan,
    /// The plan's index.
    copy: usize,
    setup: usize,
    fill: usize,
    write_back: Option<usize>,
    /// Lanes of one register (1: scalars); divides the box's last extent.
    lanes: usize,
    sizes: Vec<i64>,
}

impl Block<'_> {
    fn elem_type(&self) -> String {
        format!("{}_e", buffer(self.plan))
    }
    fn reg_type(&self) -> String {
        if self.lanes > 1 {
            format!("{}_v", buffer(self.plan))
        } else {
            self.elem_type()
        }
    }
    fn unaligned_type(&self) -> String {
        format!("{}_vu", buffer(self.plan))
    }
    /// The register holding element `idx` of the box (its lane, when vectors).
    fn reg(&self, idx: &[i64]) -> (String, Option<i64>) {
        let r = idx.len();
        let mut name = format!("{}_r", buffer(self.plan));
        for (d, &v) in idx.iter().enumerate() {
            if d > 0 {
                name.push('_');
            }
            if d + 1 == r && self.lanes > 1 {
                let _ = write!(name, "{}", v / self.lanes as i64);
            } else {
                let _ = write!(name, "{v}");
            }
        }
        if r == 0 {
            name.push('0');
        }
        let lane = (self.lanes > 1).then(|| idx[r - 1] % self.lanes as i64);
        (name, lane)
    }
    /// Every register's first element, in row-major order.
    fn registers(&self) -> Vec<Vec<i64>> {
        let mut out: Vec<Vec<i64>> = vec![vec![]];
        for (d, &s) in self.sizes.iter().enumerate() {
            let step = if d + 1 == self.sizes.len() {
                self.lanes as i64
            } else {
                1
            };
            out = out
                .into_iter()
                .flat_map(|p| {
                    (0..s).step_by(step as usize).map(move |v| {
                        let mut q = p.clone();
                        q.push(v);
                        q
                    })
                })
                .collect();
        }
        out
    }
    /// `A[o0 + i0][o1 + i1]`: the array element of box index `idx`, read as a vector of
    /// the register's lanes when it has several.
    fn element(&self, idx: &[i64]) -> Element {
        Element {
            array: self.plan.c_name.clone(),
            subscripts: (idx.iter().enumerate())
                .map(|(d, &v)| (offset(self.plan, d), v))
                .collect(),
            vector: (self.lanes > 1).then(|| self.unaligned_type()),
        }
    }
    /// One move per register: its load from the array (`fill`) or its store back.
    fn moves(&self, fill: bool) -> Vec<Node> {
        self.registers()
            .iter()
            .map(|idx| Node::Move {
                reg: self.reg(idx).0,
                element: self.element(idx),
                store: !fill,
            })
            .collect()
    }
    fn declaration(&self) -> Node {
        Node::Registers {
            ty: self.reg_type(),
            names: self.registers().iter().map(|i| self.reg(i).0).collect(),
        }
    }
    fn typedefs(&self) -> Vec<TypeDef> {
        let e = self.elem_type();
        let mut out = vec![TypeDef::Element {
            name: e.clone(),
            array: self.plan.c_name.clone(),
            rank: self.plan.rank,
        }];
        if self.lanes > 1 {
            for (name, unaligned) in [(self.reg_type(), false), (self.unaligned_type(), true)] {
                out.push(TypeDef::Vector {
                    name,
                    elem: e.clone(),
                    lanes: self.lanes,
                    unaligned,
                });
            }
        }
        out
    }
}

/// The register form of the copies' windows that qualify, for [`Body::Source`] where the
/// target allows register blocks.
pub(super) fn registers(
    scop: &Scop,
    st: &Staging,
    target: &Target,
    body: Body,
    nodes: Vec<Node>,
) -> Registers {
    if body != Body::Source || !target.registers || st.plans.is_empty() {
        return Registers {
            nodes,
            typedefs: vec![],
            buffer_used: vec![true; st.plans.len()],
            formed: vec![false; st.plans.len()],
            not_formed: vec![],
        };
    }
    let stmts = || {
        st.placed[..st.n_stmt]
            .iter()
            .map(|p| &scop.statements[p.stmt])
    };
    let iters: Vec<Vec<String>> = stmts()
        .map(|s| s.loops.iter().map(|l| l.c_name.clone()).collect())
        .collect();
    let writes: Vec<Vec<String>> = stmts()
        .map(|s| {
            s.accesses
                .iter()
                .filter(|a| a.kind == AccessKind::Write)
                .filter_map(|a| scop.arrays.iter().find(|x| x.name == a.array))
                .map(|x| x.c_name.clone())
                .collect()
        })
        .collect();
    let ctx = Ctx {
        n_param: scop.params.len(),
        n_stmt: st.n_stmt,
        params: &scop.params,
        iters: &iters,
        texts: &st.texts,
        writes: &writes,
        buffers: &st.named,
        lanes_of: (scop.arrays.iter())
            .filter_map(|a| {
                let bytes = a.float_bytes()?;
                Some((a.c_name.clone(), target.lanes_of(bytes)))
            })
            .collect(),
        lanes: target.lanes(),
    };
    let mut regs = register_blocks(nodes, &st.plans, &st.extras, &ctx);
    regs.not_formed.retain(|&(c, _)| asks_for_registers(st, c));
    regs
}

/// Whether copy `c` has the shape of a register block: a staged statement has a loop
/// inside the copy's window marked `unroll` or `vectorize`, and no other copy of its
/// statements has a window further in. A small copy without such loops is a staged tile,
/// and the outer copies around a block are its packed panels: buffers by intent, not
/// warned about.
fn asks_for_registers(st: &Staging, c: usize) -> bool {
    let plan = &st.plans[c];
    let marked = plan.members.iter().any(|&m| {
        st.placed[m].marks.iter().any(|mk| {
            mk.dim >= plan.mark.outer
                && matches!(mk.kind, MarkKind::Unroll { .. } | MarkKind::Vectorize)
        })
    });
    let innermost = st.plans.iter().all(|p| {
        p.mark.outer <= plan.mark.outer || !p.members.iter().any(|m| plan.members.contains(m))
    });
    marked && innermost
}

/// Lanes of the registers of a block of `array` whose last extent is `last`: the element
/// type's full vector when it divides the extent, else half of it and so on down to the
/// lanes of 8-byte elements (so that a block of floats is never narrower than before the
/// element size was known), else scalars.
fn lanes_for(ctx: &Ctx, array: &str, last: i64) -> usize {
    let mut l = ctx.lanes_of.get(array).copied().unwrap_or(ctx.lanes);
    while l > 1 && l >= ctx.lanes {
        if last % l as i64 == 0 {
            return l;
        }
        l /= 2;
    }
    1
}

/// Applies the register form to every window that qualifies.
fn register_blocks(nodes: Vec<Node>, plans: &[CopyPlan], extras: &[Extra], ctx: &Ctx) -> Registers {
    let mut nodes = nodes;
    let mut typedefs = vec![];
    let mut buffer_used = vec![true; plans.len()];
    let mut loads: BTreeMap<String, [TypeDef; 2]> = BTreeMap::new();
    let mut not_formed = vec![];
    let mut formed = vec![false; plans.len()];
    for (c, plan) in plans.iter().enumerate() {
        let id_of =
            |want: &dyn Fn(&Extra) -> bool| extras.iter().position(want).map(|p| ctx.n_stmt + p);
        let (Some(setup), Some(fill)) = (
            id_of(&|e| matches!(e, Extra::Setup(x) if *x == c)),
            id_of(&|e| matches!(e, Extra::Fill(x) if *x == c)),
        ) else {
            continue;
        };
        let write_back = id_of(&|e| matches!(e, Extra::WriteBack(x) if *x == c));
        let Some(sizes) = block_sizes(plans, c) else {
            continue;
        };
        let last = sizes[plan.rank - 1];
        let lanes = lanes_for(ctx, &plan.c_name, last);
        let block = Block {
            plan,
            copy: c,
            setup,
            fill,
            write_back,
            lanes,
            sizes,
        };
        let mut pass = Pass {
            ctx,
            block: &block,
            corner: corners(plan, ctx.n_param),
            converted: 0,
            why: None,
            vector_failed: false,
            loads: &mut loads,
            others: plans
                .iter()
                .enumerate()
                .filter(|&(o, _)| o != c)
                .map(|(o, p)| (o, p, corners(p, ctx.n_param)))
                .collect(),
        };
        let mut bound = vec![];
        nodes = pass.walk(nodes, &mut bound);
        if pass.converted > 0 {
            formed[c] = true;
            typedefs.extend(block.typedefs());
            buffer_used[c] = uses_buffer(&nodes, &block, ctx);
        } else if let Some(why) = pass.why {
            not_formed.push((c, why));
        }
    }
    typedefs.extend(loads.into_values().flatten());
    Registers {
        nodes,
        typedefs,
        buffer_used,
        formed,
        not_formed,
    }
}

/// The warning that no window of `plan` (whose box is small enough) took the register
/// form, and why, at the script's `copy`.
pub(super) fn not_formed(plan: &CopyPlan, why: Why) -> Diagnostic {
    let sizes: Vec<String> = plan.size.iter().map(ToString::to_string).collect();
    let help = match why {
        Why::Partial => Some("tile by sizes that leave whole tiles, or split the partial ones off with `isplit` (docs/language.md)"),
        Why::Index => Some("unroll the loops over the block's rows (`unroll`) and mark the loop over its last dimension, innermost, `vectorize`"),
        Why::Vector => Some("make the block's last extent a multiple of the vector's lanes (`loopy machine` prints them)"),
        Why::Corner => None,
    };
    let d = Diagnostic::new(
        codes::REGISTER_BLOCK_NOT_FORMED,
        format!(
            "the copy of `{}` stays a buffer in memory, not registers: {why}",
            plan.c_name
        ),
    )
    .with_label(
        &plan.mark.origin.source,
        plan.mark.origin.span.clone(),
        "copied here",
    )
    .with_note(format!(
        "its box of {} elements is small enough for registers; the program is correct either way, only slower",
        sizes.join(" x ")
    ));
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

/// The extents of copy `c`'s box when its buffer may live in registers: a box of constant
/// extents, at most [`crate::model::copy::MAX_REGISTER_ELEMENTS`] in all, of an array (not a
/// scalar; [`crate::model::copy::CopyPlan::register_sized`]). A buffer
/// of run-time size, a scaled one, one filled from another copy's buffer, or one another
/// copy fills from stays in memory.
pub(super) fn block_sizes(plans: &[CopyPlan], c: usize) -> Option<Vec<i64>> {
    let plan = &plans[c];
    if plan.factor.is_some() || plan.source.is_some() || plans.iter().any(|p| p.source == Some(c)) {
        return None;
    }
    plan.register_sized()
}

/// The lower corner of each box dimension as a row over `[1, params, c0, c1, ...]` (the
/// copy's outer iteration `t` is scanned dims `1, 3, 5, ...`), when it is affine.
fn corners(plan: &CopyPlan, n_param: usize) -> Option<Vec<Row>> {
    let k = plan.mark.outer;
    plan.lower
        .iter()
        .map(|c| {
            let b = &c.basic;
            let r = &c.row;
            // Columns [1 | params | t | e | locals].
            if (b.div_start()..r.len()).any(|i| !r[i].is_zero()) {
                return None;
            }
            if b.n_param() != n_param {
                return None;
            }
            let mut out: Row = vec![Int::ZERO; 1 + n_param + 2 * k];
            out[0] = r[0].clone();
            out[1..=n_param].clone_from_slice(&r[1..=n_param]);
            for j in 0..k {
                out[1 + n_param + 2 * j + 1] = r[1 + n_param + j].clone();
            }
            // The value of `e` may not depend on another `e`.
            if r[1 + n_param + k..b.div_start()]
                .iter()
                .any(|v| !v.is_zero())
            {
                return None;
            }
            Some(out)
        })
        .collect()
}

/// Whether a node list still uses the buffer in memory: a fill or write-back item, or a
/// statement naming the buffer.
fn uses_buffer(nodes: &[Node], block: &Block, ctx: &Ctx) -> bool {
    let c = block.copy;
    find_map(nodes, &mut |n| match n {
        Node::Stmt { id, .. } => (*id == block.fill
            || Some(*id) == block.write_back
            || (*id < ctx.n_stmt && ctx.buffers[*id].contains(&c)))
        .then_some(()),
        Node::Text { buffers, .. } => buffers.contains(&c).then_some(()),
        _ => None,
    })
    .is_some()
}

struct Pass<'a, 'b> {
    ctx: &'a Ctx<'a>,
    block: &'a Block<'a>,
    corner: Option<Vec<Row>>,
    converted: usize,
    /// Why the first window that did not take the register form did not.
    why: Option<Why>,
    /// Whether the last window's statements failed at a vectorized loop.
    vector_failed: bool,
    /// Typedefs of the unaligned vector types of arrays loaded as vectors, by type name.
    loads: &'b mut BTreeMap<String, [TypeDef; 2]>,
    /// The other copies, with their corners when affine (their buffers may be loaded).
    others: Vec<(usize, &'a CopyPlan, Option<Vec<Row>>)>,
}

/// How one subscript of an operand of a vector statement moves across the lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// The same in every lane.
    Fixed,
    /// Up by one from each lane to the next, within one row of memory.
    Lanes,
}

/// Values of scanned dims fixed by enclosing assignments (affine rows).
type Bound = Vec<Option<Row>>;

fn expand(r: &Row, bound: &Bound, n_param: usize) -> Row {
    let mut r = r.clone();
    for k in (0..bound.len()).rev() {
        let col = 1 + n_param + k;
        if col >= r.len() || r[col].is_zero() {
            continue;
        }
        if let Some(v) = &bound[k] {
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

fn sub(a: &Row, b: &Row) -> Row {
    let n = a.len().max(b.len());
    let at = |x: &Row, i: usize| x.get(i).cloned().unwrap_or(Int::ZERO);
    (0..n).map(|i| &at(a, i) - &at(b, i)).collect()
}

fn constant(r: &Row) -> Option<i64> {
    if r.iter().skip(1).all(Int::is_zero) {
        r.first().map_or(Some(0), Int::to_i64)
    } else {
        None
    }
}

fn coef(r: &Row, col: usize) -> Int {
    r.get(col).cloned().unwrap_or(Int::ZERO)
}

impl Pass<'_, '_> {
    fn walk(&mut self, nodes: Vec<Node>, bound: &mut Bound) -> Vec<Node> {
        let mut out = vec![];
        let mut nodes: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
        let mut i = 0;
        while i < nodes.len() {
            if nodes[i]
                .as_ref()
                .is_some_and(|n| alone(n, self.block.setup))
            {
                match self.window(&nodes, i, bound) {
                    Ok((end, block)) => {
                        out.push(block);
                        self.converted += 1;
                        i = end;
                        continue;
                    }
                    Err(why) => {
                        self.why.get_or_insert(why);
                    }
                }
            }
            let n = nodes[i].take().expect("each node once");
            out.push(self.descend(n, bound));
            i += 1;
        }
        out
    }

    fn descend(&mut self, n: Node, bound: &mut Bound) -> Node {
        match n {
            Node::Assign { var, value, body } => {
                let saved = set_bound(bound, var, &value, self.ctx.n_param);
                let body = self.walk(body, bound);
                bound[var] = saved;
                Node::Assign { var, value, body }
            }
            n => n.map_bodies(|body| self.walk(body, bound)),
        }
    }

    /// The window starting with the setup at `nodes[at]`: the fill right after it, then the
    /// window's statements, then the write-back. Returns the index after the window and its
    /// register form, or `None` when it does not qualify.
    fn window(
        &mut self,
        nodes: &[Option<Node>],
        at: usize,
        bound: &mut Bound,
    ) -> Result<(usize, Node), Why> {
        let corner = self.corner.clone().ok_or(Why::Corner)?;
        let b = self.block;
        let only = |n: &Node, id: usize| {
            let mut ids = BTreeSet::new();
            ids_in(std::slice::from_ref(n), &mut ids);
            !ids.is_empty() && ids.iter().all(|&x| x == id)
        };
        let get = |k: usize| nodes.get(k).and_then(Option::as_ref);
        // The fill: one nest over the whole box.
        let fill = get(at + 1).ok_or(Why::Partial)?;
        if !only(fill, b.fill) || !whole_box(fill, &b.sizes) {
            return Err(Why::Partial);
        }
        let mut end = at + 2;
        while get(end).is_some_and(|n| {
            let mut ids = BTreeSet::new();
            ids_in(std::slice::from_ref(n), &mut ids);
            !ids.contains(&b.setup)
                && !ids.contains(&b.fill)
                && b.write_back.is_none_or(|w| !ids.contains(&w))
        }) {
            end += 1;
        }
        let body_end = end;
        if let Some(w) = b.write_back {
            let wb = get(end).ok_or(Why::Partial)?;
            if !only(wb, w) || !whole_box(wb, &b.sizes) {
                return Err(Why::Partial);
            }
            end += 1;
        }
        let body: Vec<Node> = (at + 2..body_end)
            .map(|k| get(k).cloned())
            .collect::<Option<_>>()
            .ok_or(Why::Index)?;
        self.vector_failed = false;
        let body = self
            .body(body, bound, &corner)
            .ok_or(if self.vector_failed {
                Why::Vector
            } else {
                Why::Index
            })?;
        let mut inner = vec![b.declaration()];
        inner.push(get(at).ok_or(Why::Index)?.clone());
        inner.extend(b.moves(true));
        inner.extend(body);
        if b.write_back.is_some() {
            inner.extend(b.moves(false));
        }
        Ok((end, Node::Block(inner)))
    }

    /// The window's statements with every buffer access turned into a register, or `None`.
    fn body(&mut self, nodes: Vec<Node>, bound: &mut Bound, corner: &[Row]) -> Option<Vec<Node>> {
        let mut out = vec![];
        for n in nodes {
            match n {
                Node::Omp {
                    pragma: LoopPragma::Simd,
                    body: lp,
                } if matches!(&lp[..], [Node::For { .. }]) => {
                    let Some(Node::For {
                        var,
                        name,
                        lower,
                        step,
                        upper,
                        body,
                    }) = lp.into_iter().next()
                    else {
                        unreachable!("matched")
                    };
                    if !self.touches(&body) {
                        out.push(Node::Omp {
                            pragma: LoopPragma::Simd,
                            body: vec![Node::For {
                                var,
                                name,
                                lower,
                                step,
                                upper,
                                body: self.body(body, bound, corner)?,
                            }],
                        });
                        continue;
                    }
                    out.extend(self.vector_loop(var, &lower, &step, &upper, body, bound, corner)?);
                }
                Node::Assign { var, value, body } => {
                    let saved = set_bound(bound, var, &value, self.ctx.n_param);
                    let body = self.body(body, bound, corner);
                    bound[var] = saved;
                    out.push(Node::Assign {
                        var,
                        value,
                        body: body?,
                    });
                }
                n @ (Node::For { .. }
                | Node::Unrolled { .. }
                | Node::If { .. }
                | Node::Block(_)
                | Node::Omp { .. }) => out.push(
                    n.try_map_bodies(|b| self.body(b, bound, corner).ok_or(()))
                        .ok()?,
                ),
                Node::Stmt { id, args } => {
                    // Statements that do not use the block (and other copies' items) stay.
                    if id < self.ctx.n_stmt && self.names_buffer(id) {
                        let body = self.rewrite(id, &args, bound, corner, None)?;
                        let buffers = self.others_named(id);
                        out.push(Node::Text {
                            id,
                            args,
                            body,
                            buffers,
                        });
                    } else {
                        out.push(Node::Stmt { id, args });
                    }
                }
                Node::Text { .. } => return None,
                n => out.push(n),
            }
        }
        Some(out)
    }

    fn names_buffer(&self, id: usize) -> bool {
        self.ctx.buffers[id].contains(&self.block.copy)
    }

    /// The buffers other than the block's that statement `id`'s body names.
    fn others_named(&self, id: usize) -> Vec<usize> {
        let own = self.block.copy;
        self.ctx.buffers[id]
            .iter()
            .copied()
            .filter(|&c| c != own)
            .collect()
    }

    fn touches(&self, nodes: &[Node]) -> bool {
        let mut ids = BTreeSet::new();
        ids_in(nodes, &mut ids);
        ids.iter()
            .any(|&id| id < self.ctx.n_stmt && self.names_buffer(id))
    }

    /// A loop marked `vectorize` whose statements use the block: one copy of its body per
    /// group of lanes, the loop variable fixed to the group's first value.
    #[allow(clippy::too_many_arguments)]
    fn vector_loop(
        &mut self,
        var: usize,
        lower: &Expr,
        step: &Int,
        upper: &Expr,
        body: Vec<Node>,
        bound: &mut Bound,
        corner: &[Row],
    ) -> Option<Vec<Node>> {
        let lanes = self.block.lanes as i64;
        let trips = upper
            .const_diff(lower)
            .and_then(|d| d.to_i64())
            .map(|d| d + 1);
        let (Some(trips), Expr::Aff(lo), true) = (trips, lower, step.is_one()) else {
            self.vector_failed = true;
            return None;
        };
        if trips <= 0 || trips % lanes != 0 {
            self.vector_failed = true;
            return None;
        }
        let np = self.ctx.n_param;
        let mut out = vec![];
        for q in 0..trips / lanes {
            let mut value = lo.clone();
            if value.is_empty() {
                value.push(Int::ZERO);
            }
            value[0] = &value[0] + &Int::from(q * lanes);
            let saved = bound.get(var).cloned().flatten();
            if bound.len() <= var {
                bound.resize(var + 1, None);
            }
            bound[var] = Some(expand(&value, bound, np));
            let stmts = self.vector_body(&body, var, bound, corner);
            bound[var] = saved;
            let stmts = stmts?;
            out.push(Node::Assign {
                var,
                value: Expr::Aff(value),
                body: stmts,
            });
        }
        Some(out)
    }

    /// The body of a vector loop for one group of lanes (the loop variable fixed in
    /// `bound`): statements, under assignments only.
    fn vector_body(
        &mut self,
        nodes: &[Node],
        var: usize,
        bound: &mut Bound,
        corner: &[Row],
    ) -> Option<Vec<Node>> {
        let mut out = vec![];
        for n in nodes {
            match n {
                Node::Assign {
                    var: v,
                    value,
                    body,
                } => {
                    let saved = set_bound(bound, *v, value, self.ctx.n_param);
                    let body = self.vector_body(body, var, bound, corner);
                    bound[*v] = saved;
                    out.push(Node::Assign {
                        var: *v,
                        value: value.clone(),
                        body: body?,
                    });
                }
                Node::Stmt { id, args } if *id < self.ctx.n_stmt && self.names_buffer(*id) => {
                    let body = self.rewrite(*id, args, bound, corner, Some(var))?;
                    out.push(Node::Text {
                        id: *id,
                        args: args.clone(),
                        body,
                        buffers: self.others_named(*id),
                    });
                }
                _ => return None,
            }
        }
        Some(out)
    }

    /// An operand of a vector statement whose lanes are not one row of memory (a subscript
    /// other than the last moves with the loop, or the last moves by more than one): a
    /// vector built from one element per lane, `(T){A[s], A[s + w], ...}`, lane `l`
    /// reading the element iteration `l` of the group reads (each subscript `s` plus `l`
    /// times its step `w` along the loop). Only for plain arrays (another copy's buffer is
    /// read through its layout, `walks`). With one lane (scalar registers) the operand is
    /// the element itself.
    fn gather(&mut self, op: Operand, site: &Site) -> Option<Seg> {
        let lanes = self.block.lanes;
        let Operand::Array(a) = op else { return None };
        let a = a.tight();
        if lanes < 2 {
            return Some(Seg::Access(a));
        }
        let np = self.ctx.n_param;
        let steps: Vec<Int> = a
            .subs
            .iter()
            .map(|s| {
                Some(coef(
                    &expand(&site.row(&s.lin)?, &site.unbound, np),
                    site.vcol?,
                ))
            })
            .collect::<Option<_>>()?;
        let name = &a.name;
        let ty = format!("loopy_vg{lanes}_{name}");
        let rank = a.subs.len();
        self.loads
            .entry(ty.clone())
            .or_insert_with(|| TypeDef::vector_of(&ty, name, rank, lanes, false));
        Some(Seg::Gather {
            ty,
            access: a,
            steps,
            lanes,
        })
    }

    /// How each subscript of an operand moves across the lanes of the vector loop, or
    /// `None` when some subscript moves otherwise. A copy's buffer is read through its
    /// layout: a block index `((s) - o) / b` or a place `((s) - o) % b` moves with the
    /// lanes only inside one block, which holds when `b` is a multiple of the lanes and
    /// `s - o` is one at the first lane.
    fn walks(&self, op: Operand, site: &Site) -> Option<Vec<Walk>> {
        let np = self.ctx.n_param;
        let lanes = self.block.lanes as i64;
        let vcol = site.vcol?;
        let moves = |r: &Row| coef(&expand(r, &site.unbound, np), vcol);
        let step = |w: Int| {
            if w.is_zero() {
                Some(Walk::Fixed)
            } else if w.is_one() {
                Some(Walk::Lanes)
            } else {
                None
            }
        };
        let b = match op {
            Operand::Array(a) => {
                return a
                    .subs
                    .iter()
                    .map(|s| step(moves(&site.row(&s.lin)?)))
                    .collect()
            }
            Operand::Buffer(b) => b,
        };
        let (plan, corner) = self.other(b.copy)?;
        if !b.rest.is_empty() {
            return None;
        }
        let mut out = vec![];
        for bd in &plan.layout {
            let d = bd.dim();
            let r = site.row(&b.subs[d].lin)?;
            let w = step(moves(&r))?;
            let inside_one_block = |b: i64| {
                let Some(corner) = corner else { return false };
                let first = sub(
                    &expand(&r, site.bound, np),
                    &expand(&corner[d], site.bound, np),
                );
                b % lanes == 0
                    && first
                        .iter()
                        .all(|v| v.mod_floor(&Int::from(lanes)).is_zero())
            };
            out.push(match (bd, w) {
                (_, Walk::Fixed) => Walk::Fixed,
                (BufDim::Whole(_), Walk::Lanes) => Walk::Lanes,
                (BufDim::Blocks(_, b), Walk::Lanes) if inside_one_block(*b) => Walk::Fixed,
                (BufDim::Within(_, b), Walk::Lanes) if inside_one_block(*b) => Walk::Lanes,
                _ => return None,
            });
        }
        Some(out)
    }

    /// Another copy's plan and its corners, by the copy's index.
    fn other(&self, copy: usize) -> Option<(&CopyPlan, &Option<Vec<Row>>)> {
        self.others
            .iter()
            .find(|(c, _, _)| *c == copy)
            .map(|(_, p, corner)| (*p, corner))
    }

    /// The indices of an access to another copy's buffer, each into a dimension laid out
    /// in blocks of `b` (`((s) - o) / b` and `((s) - o) % b`) written without the division
    /// where it is exact: when the box's corner `o` is a multiple of `b` for every outer
    /// iteration and `s` is `b` times an affine function of the loops plus a constant `c`
    /// (a row of an unrolled block, `s = 6*c9 + 1`), the place inside the block is the
    /// constant `c mod b` and the block is `((s) - (c mod b)) / b - o / b`, a division the
    /// compiler folds away (`(6*c9)/6` is `c9`), so a micro-kernel's rows of a packed panel
    /// share one base address. The index is never negative (`s` lies in the box), so C's
    /// division is the floor these identities use.
    fn aligned(&self, b: &BufferAccess, site: &Site) -> BufferAccess {
        let mut out = b.clone();
        let Some((plan, Some(corner))) = self.other(b.copy) else {
            return out;
        };
        let np = self.ctx.n_param;
        for (ix, bd) in out.index.iter_mut().zip(&plan.layout) {
            let (BufDim::Blocks(d, k) | BufDim::Within(d, k)) = *bd else {
                continue;
            };
            let m = Int::from(k);
            let divides = |r: &Row| r.iter().all(|v| v.mod_floor(&m).is_zero());
            if !divides(&corner[d]) {
                continue;
            }
            let Some(r) = site.row(&b.subs[d].lin) else {
                continue;
            };
            let r = expand(&r, site.bound, np);
            if !r[1..].iter().all(|v| v.mod_floor(&m).is_zero()) {
                continue;
            }
            let c = r[0].mod_floor(&m);
            *ix = match bd {
                BufDim::Within(..) => Index::Const(c),
                _ => Index::Aligned(c),
            };
        }
        out
    }

    /// The box index a block access reads: constant once the enclosing unrolled loops are
    /// resolved, inside the box, and in a vector statement (the loop at column `vcol`)
    /// walking the last dimension a whole register at a time. Only a buffer laid out
    /// whole along every dimension, accessed with its rank's subscripts.
    fn box_index(&self, acc: &BufferAccess, site: &Site) -> Option<Vec<i64>> {
        let b = self.block;
        let np = self.ctx.n_param;
        let whole = b.plan.layout.iter().all(|d| matches!(d, BufDim::Whole(_)));
        if !whole || b.plan.layout.len() != b.plan.rank || !acc.rest.is_empty() {
            return None;
        }
        let mut idx = vec![0i64; b.plan.rank];
        for bd in &b.plan.layout {
            let d = bd.dim();
            let r = site.row(&acc.subs[d].lin)?;
            let e = expand(&r, site.bound, np);
            let v = constant(&sub(&e, &expand(&site.corner[d], site.bound, np)))?;
            if v < 0 || v >= b.sizes[d] {
                return None;
            }
            let walks = site.vcol.map(|c| coef(&expand(&r, &site.unbound, np), c));
            let last = d + 1 == b.plan.rank;
            match walks {
                Some(w) if last && (!w.is_one() || v % b.lanes as i64 != 0) => return None,
                Some(w) if !last && !w.is_zero() => return None,
                _ => {}
            }
            idx[d] = v;
        }
        Some(idx)
    }

    /// In a vector statement, an access to another array (or another copy's buffer): a
    /// scalar where nothing moves with the lanes, a vector load where its last subscript
    /// walks them, else a vector of one element per lane.
    fn vector_access(&mut self, op: Operand, site: &Site) -> Option<Seg> {
        let lanes = self.block.lanes;
        let Some(walks) = self.walks(op, site) else {
            // Lanes apart in memory: one element per lane.
            return self.gather(op, site);
        };
        let (name, access) = match op {
            Operand::Array(a) => (a.name.clone(), Seg::Access(a.tight())),
            Operand::Buffer(b) => {
                let plan = self.other(b.copy)?.0;
                (buffer(plan), Seg::Buffer(self.aligned(b, site)))
            }
        };
        let n = walks.len();
        if walks.iter().all(|w| *w == Walk::Fixed) || lanes == 1 {
            return Some(access);
        }
        if !(walks[..n - 1].iter().all(|w| *w == Walk::Fixed) && walks[n - 1] == Walk::Lanes) {
            return self.gather(op, site);
        }
        let ty = format!("loopy_vu{lanes}_{name}");
        self.loads
            .entry(ty.clone())
            .or_insert_with(|| TypeDef::vector_of(&ty, &name, n, lanes, true));
        Some(Seg::VectorLoad {
            ty,
            access: Box::new(access),
        })
    }

    /// Statement `id`'s body with every access to the buffer replaced by its register (the
    /// iterators stay, for the printer to substitute), white space one blank. With
    /// `vector = Some(v)`, the statement stands for `lanes` consecutive iterations of the
    /// loop over scanned dim `v` (fixed in `bound` to the first): the block's accesses
    /// must walk the last dimension with the loop, whole registers at a time; other arrays
    /// are loaded as vectors where their last subscript walks with the loop and are
    /// scalars where nothing does.
    fn rewrite(
        &mut self,
        id: usize,
        args: &[Expr],
        bound: &Bound,
        corner: &[Row],
        vector: Option<usize>,
    ) -> Option<Vec<Seg>> {
        let ctx = self.ctx;
        let np = ctx.n_param;
        let mut unbound = bound.clone();
        if let Some(v) = vector {
            if unbound.len() > v {
                unbound[v] = None;
            }
        }
        // The iterators' values as rows over scanned dims, unexpanded (to see the vector
        // loop) and expanded.
        let site = Site {
            ctx,
            id,
            args: args
                .iter()
                .map(|a| match a {
                    Expr::Aff(r) => Some(r.clone()),
                    _ => None,
                })
                .collect(),
            bound,
            unbound,
            corner,
            vcol: vector.map(|v| 1 + np + v),
        };
        if vector.is_some() {
            // Only the block may be written: a vector store elsewhere is not generated.
            let own = &self.block.plan.c_name;
            if ctx.writes[id].iter().any(|w| w != own) {
                return None;
            }
        }
        let segs = body::collapse(&ctx.texts[id]);
        match vector {
            None => self.scalar_segs(&segs, &site),
            Some(_) => self.vector_segs(&segs, &site),
        }
    }

    /// The block's accesses as registers (a lane of a vector register where the block
    /// is vectors), wherever they are.
    fn scalar_segs(&self, segs: &[Seg], site: &Site) -> Option<Vec<Seg>> {
        let subs = |v: &[Sub]| -> Option<Vec<Sub>> {
            v.iter()
                .map(|s| {
                    Some(Sub {
                        segs: self.scalar_segs(&s.segs, site)?,
                        ..s.clone()
                    })
                })
                .collect()
        };
        segs.iter()
            .map(|s| {
                Some(match s {
                    Seg::Buffer(b) if b.copy == self.block.copy => {
                        let (name, lane) = self.block.reg(&self.box_index(b, site)?);
                        Seg::Register { name, lane }
                    }
                    Seg::Buffer(b) => Seg::Buffer(BufferAccess {
                        subs: subs(&b.subs)?,
                        rest: subs(&b.rest)?,
                        ..b.clone()
                    }),
                    Seg::Access(a) => Seg::Access(Access {
                        name: a.name.clone(),
                        subs: subs(&a.subs)?,
                    }),
                    s => s.clone(),
                })
            })
            .collect()
    }

    /// A vector statement's segments: the block's accesses as whole registers, other
    /// accesses as scalars, vector loads or gathers; `None` where a call, a literal, an
    /// iterator walking with the loop or an operator other than `+ - * / = ( ) . ;`
    /// appears.
    fn vector_segs(&mut self, segs: &[Seg], site: &Site) -> Option<Vec<Seg>> {
        let np = self.ctx.n_param;
        let mut out = vec![];
        for (k, s) in segs.iter().enumerate() {
            out.push(match s {
                Seg::Buffer(b) if b.copy == self.block.copy => Seg::Register {
                    name: self.block.reg(&self.box_index(b, site)?).0,
                    lane: None,
                },
                // A buffer of rank 0 is a scalar.
                Seg::Buffer(b) if b.subs.is_empty() && b.rest.is_empty() => s.clone(),
                Seg::Buffer(b) => self.vector_access(Operand::Buffer(b), site)?,
                // A blank before the brackets: not read as an access.
                Seg::Access(a) if !a.subs[0].before.is_empty() => return None,
                Seg::Access(a) => self.vector_access(Operand::Array(a), site)?,
                Seg::Name(n) | Seg::Member(n) => {
                    if matches!(segs.get(k + 1), Some(Seg::Punct('('))) {
                        // A call: not applied to vectors.
                        return None;
                    }
                    // A scalar name: an iterator walking with the loop is not a vector.
                    if let Some(j) = self.ctx.iters[site.id].iter().rposition(|x| x == n) {
                        let r = site.args.get(j)?.as_ref()?;
                        if !coef(&expand(r, &site.unbound, np), site.vcol?).is_zero() {
                            return None;
                        }
                    }
                    s.clone()
                }
                Seg::Punct(c)
                    if !matches!(c, '+' | '-' | '*' | '/' | '(' | ')' | '=' | ';' | '.') =>
                {
                    return None
                }
                Seg::Literal(_) => return None,
                s => s.clone(),
            });
        }
        Some(out)
    }
}

/// An operand of a vector statement: an array's access or another copy's buffer's.
#[derive(Clone, Copy)]
enum Operand<'s> {
    Array(&'s Access),
    Buffer(&'s BufferAccess),
}

/// The statement a rewrite is for, and where it runs.
struct Site<'s> {
    ctx: &'s Ctx<'s>,
    id: usize,
    /// The iterators' values, when affine, as rows over scanned dims.
    args: Vec<Option<Row>>,
    bound: &'s Bound,
    /// `bound` without the vector loop's value.
    unbound: Bound,
    corner: &'s [Row],
    /// The vector loop's column, in a vector statement.
    vcol: Option<usize>,
}

impl Site<'_> {
    /// A subscript's row over scanned dims, or `None` if it is not affine in the
    /// statement's iterators and the parameters.
    fn row(&self, lin: &Option<Linear>) -> Option<Row> {
        let lin = lin.as_ref()?;
        let np = self.ctx.n_param;
        let mut row: Row = vec![Int::ZERO; 1 + np];
        row[0] = Int::from(lin.constant);
        for (name, c) in &lin.terms {
            let c = Int::from(*c);
            if let Some(p) = self.ctx.params.iter().position(|p| p == name) {
                row[1 + p] = &row[1 + p] + &c;
            } else {
                let k = self.ctx.iters[self.id].iter().rposition(|n| n == name)?;
                let a = self.args.get(k)?.as_ref()?;
                if row.len() < a.len() {
                    row.resize(a.len(), Int::ZERO);
                }
                for (x, y) in row.iter_mut().zip(a) {
                    *x = &*x + &(&c * y);
                }
            }
        }
        Some(row)
    }
}

fn set_bound(bound: &mut Bound, var: usize, value: &Expr, n_param: usize) -> Option<Row> {
    if bound.len() <= var {
        bound.resize(var + 1, None);
    }
    let v = match value {
        Expr::Aff(r) => Some(expand(r, bound, n_param)),
        _ => None,
    };
    std::mem::replace(&mut bound[var], v)
}

/// Whether a fill or write-back nest covers the whole box: a chain of loops with constant
/// trip counts and assignments (loops of one iteration), without guards, down to the one
/// item, whose trip counts multiply to the box's size. The item runs once per element of
/// the footprint, which lies in the box, so the footprint is then the whole box.
fn whole_box(n: &Node, sizes: &[i64]) -> bool {
    let mut n = n;
    let mut count: i64 = 1;
    loop {
        match n {
            Node::For {
                lower,
                step,
                upper,
                body,
                ..
            } if step.is_one() && body.len() == 1 => {
                let Some(t) = upper.const_diff(lower).and_then(|d| d.to_i64()) else {
                    return false;
                };
                count = count.saturating_mul(t + 1);
                n = &body[0];
            }
            Node::Assign { body, .. } if body.len() == 1 => n = &body[0],
            Node::Stmt { .. } => break,
            _ => return false,
        }
    }
    count == sizes.iter().product::<i64>()
}

/// Whether `n` is item `id` alone under assignments (the fixed dims of its schedule).
fn alone(n: &Node, id: usize) -> bool {
    match n {
        Node::Assign { body, .. } if body.len() == 1 => alone(&body[0], id),
        Node::Stmt { id: x, .. } => *x == id,
        _ => false,
    }
}
