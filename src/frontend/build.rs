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

use super::srcmap::{normalize, SourceMap};
use super::symbols::{declarator_name, declarator_rank, is_function, Symbols, TypeClass};
use crate::diag::Diagnostic;
use crate::model::aff::{self, LinExpr};
use crate::model::{
    Access, AccessKind, Array, LoopInfo, Schedule, Scop, SourceSpan, Statement as MStatement, Tag,
    TagKind,
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
}

/// While inside an opaque construct: which jumps stay inside it.
#[derive(Clone, Copy)]
struct Opaque {
    in_loop: bool,
    in_switch: bool,
}

/// Names the region writes or counts with, found before the walk (a name's role must be
/// known before its first use: `n` is only a parameter if nothing in the region writes it).
#[derive(Default)]
struct PrePass {
    written: HashMap<String, Range<usize>>,
    counters: HashSet<String>,
    idents: HashSet<String>,
    /// Counters declared by the loop whose step is being visited: the step writes a
    /// variable of that loop only, not the name outside it.
    own: Vec<String>,
}

impl PrePass {
    fn write(&mut self, name: &str, span: &Span) {
        if !self.own.iter().any(|o| o == name) {
            self.written
                .entry(name.to_string())
                .or_insert_with(|| range(span));
        }
    }
}

impl<'ast> Visit<'ast> for PrePass {
    fn visit_identifier(&mut self, id: &'ast lang_c::ast::Identifier, _: &'ast Span) {
        self.idents.insert(id.name.clone());
    }

    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast lang_c::ast::BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        use BinaryOperator::*;
        if matches!(
            b.operator.node,
            Assign
                | AssignMultiply
                | AssignDivide
                | AssignModulo
                | AssignPlus
                | AssignMinus
                | AssignShiftLeft
                | AssignShiftRight
                | AssignBitwiseAnd
                | AssignBitwiseXor
                | AssignBitwiseOr
        ) {
            if let Expression::Identifier(id) = &b.lhs.node {
                self.write(&id.node.name, span);
            }
        }
        visit::visit_binary_operator_expression(self, b, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast lang_c::ast::UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        use UnaryOperator::*;
        if matches!(
            u.operator.node,
            PostIncrement | PostDecrement | PreIncrement | PreDecrement | Address
        ) {
            if let Expression::Identifier(id) = &u.operand.node {
                self.write(&id.node.name, span);
            }
        }
        visit::visit_unary_operator_expression(self, u, span);
    }

    fn visit_for_statement(&mut self, f: &'ast ForStatement, _: &'ast Span) {
        let mut own = vec![];
        match &f.initializer.node {
            ForInitializer::Expression(e) => {
                if let Expression::BinaryOperator(b) = &e.node {
                    if b.node.operator.node == BinaryOperator::Assign {
                        if let Expression::Identifier(id) = &b.node.lhs.node {
                            self.counters.insert(id.node.name.clone());
                        }
                    }
                }
            }
            ForInitializer::Declaration(d) => {
                own = d
                    .node
                    .declarators
                    .iter()
                    .filter_map(|x| declarator_name(&x.node.declarator.node))
                    .collect();
            }
            _ => {}
        }
        self.visit_for_initializer(&f.initializer.node, &f.initializer.span);
        if let Some(c) = &f.condition {
            self.visit_expression(&c.node, &c.span);
        }
        if let Some(st) = &f.step {
            let saved = std::mem::replace(&mut self.own, own);
            self.visit_expression(&st.node, &st.span);
            self.own = saved;
        }
        self.visit_statement(&f.statement.node, &f.statement.span);
    }
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
    /// Text of `static` and `extern` declarations in the region (see `Scop::declarations`).
    declarations: Vec<String>,
    opaque: Option<Opaque>,
    /// The accesses of the opaque construct being walked.
    opaque_acc: Vec<Access>,
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
            declarations: vec![],
            opaque: None,
            opaque_acc: vec![],
        }
    }

    // ----------------------------------------------------------------- helpers

    fn span(&self, s: &Span) -> SourceSpan {
        self.sm.span_or_pre(range(s))
    }

    fn err(&self, msg: impl Into<String>, s: &Span, label: impl Into<String>) -> Diagnostic {
        let sp = self.span(s);
        Diagnostic::new(msg).with_label(&sp.file, sp.range, label)
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

    // ---------------------------------------------------------------- statements

    /// The region's items (its own block is not a loop component: no first-label rule).
    pub fn region(&mut self, items: &[Node<BlockItem>]) -> R<()> {
        self.block(items, None)
    }

    /// A `{ }` block; `span` is `None` for the region's own items.
    fn block(&mut self, items: &[Node<BlockItem>], span: Option<&Span>) -> R<()> {
        self.scopes.push(HashMap::new());
        let r = self.block_items(items, span);
        self.scopes.pop();
        r
    }

    fn block_items(&mut self, items: &[Node<BlockItem>], span: Option<&Span>) -> R<()> {
        let region = span.is_none();
        // §3.1: the label of the first statement of a `{ }` block tags the block.
        let first = items.iter().position(|it| match &it.node {
            BlockItem::Statement(_) => true,
            BlockItem::Declaration(d) => d
                .node
                .declarators
                .iter()
                .any(|x| x.node.initializer.is_some()),
            BlockItem::StaticAssert(_) => false,
        });
        let block_label = match first.map(|k| &items[k].node) {
            Some(BlockItem::Statement(s)) if !region && self.opaque.is_none() => match &s.node {
                Statement::Labeled(l) => match &l.node.label.node {
                    Label::Identifier(id) => {
                        Some((id.node.name.clone(), l.node.label.span, &*l.node.statement))
                    }
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let start = self.stmts.len();
        let depth = self.loops.len();
        for (k, it) in items.iter().enumerate() {
            match &it.node {
                BlockItem::Declaration(d) => self.declaration(d)?,
                BlockItem::StaticAssert(_) => {}
                BlockItem::Statement(s) => match &block_label {
                    Some((name, _, inner)) if Some(k) == first => {
                        let before = self.stmts.len();
                        self.stmt(inner)?;
                        if self.stmts.len() == before + 1 && self.stmts[before].label.is_none() {
                            self.stmts[before].label = Some(name.clone());
                        }
                    }
                    _ => self.stmt(s)?,
                },
            }
        }
        if let Some((name, lspan, _)) = block_label {
            self.add_tag(name, &lspan, TagKind::Block, start, depth)?;
            if let Some(span) = span {
                let block = self.span(span);
                if let Some(t) = self.tags.last_mut() {
                    t.block = Some(block);
                }
            }
        }
        Ok(())
    }

    fn add_tag(
        &mut self,
        name: String,
        label: &Span,
        kind: TagKind,
        start: usize,
        depth: usize,
    ) -> R<()> {
        let span = self.span(label);
        if let Some(prev) = self.tags.iter().find(|t| t.name == name) {
            let d = Diagnostic::new(format!("the tag `{name}` is defined twice"));
            let d = self.with_label(d, &span, "second definition");
            let d = self.with_label(d, &prev.span, "first definition");
            return Err(d.with_help("tags name loop components, so each must be unique"));
        }
        if self.stmts.len() == start {
            return Err(self
                .err(
                    format!("the tag `{name}` covers no statement"),
                    label,
                    "nothing to transform under this label",
                )
                .with_help("put the label on a statement, a `{ }` block or a `for` loop"));
        }
        self.tags.push(Tag {
            name,
            span,
            kind,
            statements: (start..self.stmts.len()).collect(),
            depth,
            block: None,
        });
        Ok(())
    }

    fn stmt(&mut self, s: &Node<Statement>) -> R<()> {
        match &s.node {
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    let name = id.node.name.clone();
                    let inner = &l.node.statement;
                    let kind = match &inner.node {
                        Statement::For(_) => TagKind::Loop,
                        Statement::Compound(_) => TagKind::Block,
                        Statement::If(_) => TagKind::If,
                        _ => TagKind::Statement,
                    };
                    let start = self.stmts.len();
                    let depth = self.loops.len();
                    self.stmt(inner)?;
                    if self.stmts.len() == start + 1 && self.stmts[start].label.is_none() {
                        self.stmts[start].label = Some(name.clone());
                    }
                    self.add_tag(name, &l.node.label.span, kind, start, depth)
                }
                _ => Err(self.err(
                    "`case` and `default` labels are only allowed inside a `switch`",
                    &l.node.label.span,
                    "outside a switch",
                )),
            },
            Statement::Compound(items) => self.block(items, Some(&s.span)),
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => {
                let mut acc = vec![];
                self.expr(e, Mode::Read, &mut acc)?;
                self.push_statement(&s.span, acc, None);
                Ok(())
            }
            Statement::If(i) => match self.condition(&i.node.condition, false)? {
                Ok(cond) => {
                    let saved = self.ctx.clone();
                    self.ctx = saved.intersect(&cond);
                    let r = self.stmt(&i.node.then_statement);
                    if r.is_ok() {
                        if let Some(e) = &i.node.else_statement {
                            self.ctx = saved.subtract(&cond);
                            let r2 = self.stmt(e);
                            self.ctx = saved;
                            return r2;
                        }
                    }
                    self.ctx = saved;
                    r
                }
                Err(why) => self.opaque_construct(s, format!("the condition is not affine: {why}")),
            },
            Statement::For(f) => match self.for_loop(&f.node, s)? {
                Ok(()) => Ok(()),
                Err(why) => self.opaque_construct(s, why),
            },
            Statement::While(_) => {
                self.opaque_construct(s, "a `while` loop: its iterations are not modelled".into())
            }
            Statement::DoWhile(_) => self.opaque_construct(
                s,
                "a `do … while` loop: its iterations are not modelled".into(),
            ),
            Statement::Switch(_) => {
                self.opaque_construct(s, "a `switch` statement: its cases are not modelled".into())
            }
            Statement::Goto(_)
            | Statement::Continue
            | Statement::Break
            | Statement::Return(_)
            | Statement::Asm(_) => Err(self.jump_error(s)),
        }
    }

    fn jump_error(&self, s: &Node<Statement>) -> Diagnostic {
        let what = match &s.node {
            Statement::Goto(_) => "`goto`",
            Statement::Continue => "`continue`",
            Statement::Break => "`break`",
            Statement::Return(_) => "`return`",
            _ => "inline assembly",
        };
        self.err(
            format!("{what} cannot be modelled"),
            &s.span,
            format!("{what} inside the modelled region"),
        )
        .with_note(
            "the polyhedral model needs structured control flow: loops that run to their bounds",
        )
        .with_help("move it out of the region between `#pragma scop` and `#pragma endscop`")
    }

    /// Creates the statement for the construct at `span` with the current loop state.
    fn push_statement(&mut self, span: &Span, accesses: Vec<Access>, opaque: Option<String>) {
        let name = self.stmt_name();
        let dims = self.dims();
        let tuple = Tuple {
            name: Some(name.clone()),
            dims: dims.clone(),
        };
        let domain = self.ctx.clone().with_tuple(tuple.clone());
        let pos = self.next_position();
        let mut positions = self.path.clone();
        positions.push(pos);
        let sched_dims: Vec<LinExpr> = self
            .loops
            .iter()
            .map(|f| {
                let v = LinExpr::var(&f.iterator);
                if f.step.is_negative() {
                    v.neg()
                } else {
                    v
                }
            })
            .collect();
        let schedule = Schedule::affine(&tuple, positions, &sched_dims);
        let sp = self.span(span);
        let text = normalize(self.sm.text(&sp).unwrap_or(""));
        let loops = self
            .loops
            .iter()
            .map(|f| LoopInfo {
                iterator: f.iterator.clone(),
                c_name: f.c_name.clone(),
                step: f.step.clone(),
                first: f.first.clone(),
                span: f.span.clone(),
                outer_counter: f.outer_counter,
            })
            .collect();
        self.stmts.push(MStatement {
            name,
            label: None,
            iterators: dims,
            domain,
            accesses,
            schedule,
            text,
            expanded_text: self.pre_text(span),
            span: sp,
            loops,
            opaque,
            declares: vec![],
        });
    }

    // --------------------------------------------------------------------- loops

    /// Models a `for` loop and walks its body, or says why it cannot be modelled (then
    /// nothing has changed).
    fn for_loop(&mut self, f: &ForStatement, s: &Node<Statement>) -> Affine<()> {
        // The counter and its first value.
        let (c_name, init, declared) = match &f.initializer.node {
            ForInitializer::Expression(e) => match &e.node {
                Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Assign => {
                    match &b.node.lhs.node {
                        Expression::Identifier(id) => (id.node.name.clone(), &*b.node.rhs, false),
                        _ => return Ok(Err("the loop does not start with `i = …`".into())),
                    }
                }
                _ => return Ok(Err("the loop does not start with `i = …`".into())),
            },
            ForInitializer::Declaration(d) => {
                let (class, base) = self.syms.class_of_decl(&d.node.specifiers);
                match d.node.declarators.as_slice() {
                    [x] => match (
                        declarator_name(&x.node.declarator.node),
                        &x.node.initializer,
                    ) {
                        (Some(n), Some(init))
                            if base + declarator_rank(&x.node.declarator.node) == 0 =>
                        {
                            if !matches!(class, TypeClass::Integer { .. }) {
                                return Ok(Err(format!("the counter `{n}` is not an integer")));
                            }
                            match &init.node {
                                Initializer::Expression(e) => (n, &**e, true),
                                _ => return Ok(Err("the loop does not start with `i = …`".into())),
                            }
                        }
                        _ => return Ok(Err("the loop does not start with `int i = …`".into())),
                    },
                    _ => return Ok(Err("the loop declares several variables".into())),
                }
            }
            _ => return Ok(Err("the loop does not start with `i = …`".into())),
        };
        let mut outer_counter = false;
        // Writing the counter of an enclosing loop is never modelled.
        if !declared {
            match self.lookup(&c_name) {
                Some(Binding::Iter(_)) => {
                    let d = self.iterator_write(&c_name, &f.initializer.span);
                    return Err(Diagnostic {
                        message: format!(
                            "this loop reuses the counter `{c_name}` of an enclosing loop"
                        ),
                        ..d
                    }
                    .with_help(format!(
                        "count with another variable, or declare a new one: `for (int {c_name} = …)`"
                    )));
                }
                Some(Binding::Local { rank, .. }) if *rank > 0 => {
                    return Ok(Err(format!("the counter `{c_name}` is an array")));
                }
                None => {
                    if let Some(info) = self.syms.get(&c_name) {
                        if info.rank > 0 || !matches!(info.class, TypeClass::Integer { .. }) {
                            return Ok(Err(format!("the counter `{c_name}` is not an integer")));
                        }
                        outer_counter = info.class == TypeClass::Integer { unsigned: false };
                    }
                }
                _ => {}
            }
        }
        // The step: a constant added to the counter.
        let step = match &f.step {
            Some(st) => match self.step(&st.node, &c_name)? {
                Ok(v) => v,
                Err(why) => return Ok(Err(why)),
            },
            None => return Ok(Err("the loop has no step".into())),
        };
        let Some(cond) = &f.condition else {
            return Ok(Err("the loop has no condition".into()));
        };
        let init_pw = match self.aff(init, true)? {
            Ok(p) => p,
            Err(why) => return Ok(Err(format!("the initial value is not affine: {why}"))),
        };
        // Enter the loop: the counter is now an iterator.
        let outer_dims = self.dims();
        let iterator = if outer_dims.contains(&c_name) {
            self.fresh(&c_name, |n| outer_dims.iter().any(|d| d == n))
        } else {
            c_name.clone()
        };
        // The header `for (…)`, up to its closing parenthesis.
        let body_start = f.statement.span.start.max(s.span.start);
        let header_end = self
            .sm
            .pre
            .get(s.span.start..body_start)
            .and_then(|h| h.rfind(')'))
            .map_or(body_start, |p| s.span.start + p + 1);
        let header = Span::span(s.span.start, header_end);
        self.scopes.push(HashMap::new());
        self.bind(&c_name, Binding::Iter(iterator.clone()));
        self.loops.push(Frame {
            iterator: iterator.clone(),
            c_name: c_name.clone(),
            step: step.clone(),
            first: match init_pw.as_slice() {
                [Piece { cond: None, expr }] => Some(expr.clone()),
                _ => None,
            },
            span: self.span(&header),
            outer_counter,
        });
        let leave = |b: &mut Self| {
            b.loops.pop();
            b.scopes.pop();
        };
        let cond_set = match self.condition(cond, true) {
            Ok(Ok(c)) => c,
            Ok(Err(why)) => {
                leave(self);
                return Ok(Err(format!("the condition is not affine: {why}")));
            }
            Err(d) => {
                leave(self);
                return Err(d);
            }
        };
        // The iterations from the first value on, along the stride.
        let dims = self.dims();
        let i = LinExpr::var(&iterator);
        let up = step.is_positive();
        let mut lower: Option<Set> = None;
        for p in &init_pw {
            let base = match &p.cond {
                Some(c) => self.ctx.intersect(c),
                None => self.ctx.clone(),
            };
            let from = if up { i.sub(&p.expr) } else { p.expr.sub(&i) };
            let mut s =
                aff::add_dim(&base, &iterator).intersect(&aff::set_from(&dims, &[], &[from]));
            if !step.abs().is_one() {
                s = s.intersect(&aff::congruence(&dims, &i.sub(&p.expr), &step.abs()));
            }
            lower = Some(match lower {
                None => s,
                Some(l) => l.union(&s),
            });
        }
        let lower = lower.expect("an affine value has a piece");
        // The condition must stay false once it is false (an upper bound for a loop counting
        // up), or the loop would stop at its first false test where the domain goes on.
        let failing = aff::widen_last(&lower.subtract(&cond_set), false);
        let holding = aff::widen_last(&lower.intersect(&cond_set), true);
        let later = format!("{iterator}'");
        let mut dims2 = dims.clone();
        dims2.push(later.clone());
        let order = if up {
            LinExpr::var(&later).sub(&i)
        } else {
            i.sub(&LinExpr::var(&later))
        };
        let order = aff::set_from(&dims2, &[], &[order.add_constant(&Int::from(-1))]);
        if !failing.intersect(&holding).intersect(&order).is_empty() {
            leave(self);
            return Ok(Err(format!(
                "the condition is not a bound on `{c_name}` (it can become true again after the loop stops)"
            )));
        }
        // Walk the body.
        let saved = std::mem::replace(&mut self.ctx, lower.intersect(&cond_set));
        let pos = self.next_position();
        self.path.push(pos);
        self.next.push(0);
        let r = self.stmt(&f.statement);
        self.next.pop();
        self.path.pop();
        self.ctx = saved;
        leave(self);
        r.map(Ok)
    }

    /// The constant a step expression adds to the counter.
    fn step(&mut self, e: &Expression, c: &str) -> Affine<Int> {
        let is_c = |x: &Node<Expression>| matches!(&x.node, Expression::Identifier(id) if id.node.name == c);
        let bad = || {
            Ok(Err(format!(
                "the step is not `{c}++`, `{c}--`, `{c} += k` or `{c} -= k` with a constant k"
            )))
        };
        let k = match e {
            Expression::UnaryOperator(u) if is_c(&u.node.operand) => match u.node.operator.node {
                UnaryOperator::PostIncrement | UnaryOperator::PreIncrement => Int::ONE,
                UnaryOperator::PostDecrement | UnaryOperator::PreDecrement => Int::from(-1),
                _ => return bad(),
            },
            Expression::BinaryOperator(b) if is_c(&b.node.lhs) => {
                let sign = match b.node.operator.node {
                    BinaryOperator::AssignPlus => Int::ONE,
                    BinaryOperator::AssignMinus => Int::from(-1),
                    BinaryOperator::Assign => {
                        // c = c + k, c = k + c, c = c - k
                        match &b.node.rhs.node {
                            Expression::BinaryOperator(r) => {
                                let (op, l, rr) = (&r.node.operator.node, &r.node.lhs, &r.node.rhs);
                                let k = if is_c(l) && *op == BinaryOperator::Plus {
                                    self.constant(rr)?
                                } else if is_c(rr) && *op == BinaryOperator::Plus {
                                    self.constant(l)?
                                } else if is_c(l) && *op == BinaryOperator::Minus {
                                    self.constant(rr)?.map(|k| -k)
                                } else {
                                    None
                                };
                                match k {
                                    Some(k) if !k.is_zero() => return Ok(Ok(k)),
                                    _ => return bad(),
                                }
                            }
                            _ => return bad(),
                        }
                    }
                    _ => return bad(),
                };
                match self.constant(&b.node.rhs)? {
                    Some(k) => &sign * &k,
                    None => return bad(),
                }
            }
            _ => return bad(),
        };
        if k.is_zero() {
            return bad();
        }
        Ok(Ok(k))
    }

    fn constant(&mut self, e: &Node<Expression>) -> R<Option<Int>> {
        Ok(self.aff(e, false)?.ok().and_then(|p| constant_of(&p)))
    }

    fn iterator_write(&self, name: &str, at: &Span) -> Diagnostic {
        let mut d = self.err(
            format!("the loop counter `{name}` is written inside its loop"),
            at,
            format!("writes `{name}`"),
        );
        if let Some(f) = self.loops.iter().rev().find(|f| f.c_name == name) {
            d = self.with_label(d, &f.span, format!("the loop that `{name}` counts"));
        }
        d.with_note("a modelled loop runs exactly from its first value to its bound; changing its counter inside breaks that")
    }

    // --------------------------------------------------------- affine expressions

    /// An integer expression as an affine function of the iterators and parameters.
    /// `bound` is set for loop bounds, where a variable the region writes is an error rather
    /// than an approximation.
    fn aff(&mut self, e: &Node<Expression>, bound: bool) -> Affine<PwAff> {
        let one = |x: LinExpr| {
            Ok(Ok(vec![Piece {
                cond: None,
                expr: x,
            }]))
        };
        let not = |why: String| Ok(Err(why));
        match &e.node {
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => {
                    let digits = i.number.trim_start_matches("0x").trim_start_matches("0X");
                    let digits = digits.trim_start_matches("0b").trim_start_matches("0B");
                    let radix = match i.base {
                        IntegerBase::Decimal => 10,
                        IntegerBase::Octal => 8,
                        IntegerBase::Hexadecimal => 16,
                        IntegerBase::Binary => 2,
                    };
                    let digits = if digits.is_empty() { "0" } else { digits };
                    match i64::from_str_radix(digits, radix) {
                        Ok(v) => one(LinExpr::constant(v)),
                        Err(_) => not(format!(
                            "the constant `{}` is too large",
                            self.pre_text(&e.span)
                        )),
                    }
                }
                Constant::Float(_) => not(format!(
                    "`{}` is a floating-point value",
                    self.pre_text(&e.span)
                )),
                Constant::Character(ch) => {
                    let inner = ch.trim_start_matches('\'').trim_end_matches('\'');
                    let mut cs = inner.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) if c != '\\' => one(LinExpr::constant(c as i64)),
                        _ => not(format!("the character constant {ch}")),
                    }
                }
            },
            Expression::Identifier(id) => {
                let name = &id.node.name;
                match self.lookup(name) {
                    Some(Binding::Iter(m)) => return one(LinExpr::var(m)),
                    Some(Binding::Local { .. }) => {
                        return not(format!("`{name}` is computed inside the region"))
                    }
                    Some(Binding::OpaqueLocal) => {
                        return not(format!("`{name}` changes inside the construct"))
                    }
                    None => {}
                }
                if let Some(info) = self.syms.get(name) {
                    if info.function {
                        return not(format!("`{name}` is a function"));
                    }
                    if info.rank > 0 {
                        return not(format!("`{name}` is an array or pointer"));
                    }
                    if !matches!(info.class, TypeClass::Integer { .. }) {
                        return not(format!("`{name}` is not an integer"));
                    }
                }
                if self.pre.counters.contains(name) {
                    return not(format!("`{name}` is a loop counter, used outside its loop"));
                }
                if let Some(w) = self.pre.written.get(name) {
                    if bound {
                        let d = self.err(
                            format!("`{name}` bounds a loop, so it must be a parameter, but the region writes it"),
                            &e.span,
                            "used as a loop bound here",
                        );
                        let ws = self.sm.span_or_pre(w.clone());
                        return Err(self
                            .with_label(d, &ws, format!("`{name}` is written here"))
                            .with_note("parameters are the integers that loop bounds depend on; they must not change inside the region")
                            .with_help(format!("compute `{name}` before `#pragma scop`")));
                    }
                    return not(format!("`{name}` is written inside the region"));
                }
                if !self.params.contains(name) {
                    self.params.push(name.clone());
                }
                one(LinExpr::var(name))
            }
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::Minus => Ok(self.aff(&u.node.operand, bound)?.map(|p| {
                    p.into_iter()
                        .map(|x| Piece {
                            cond: x.cond,
                            expr: x.expr.neg(),
                        })
                        .collect()
                })),
                UnaryOperator::Plus => self.aff(&u.node.operand, bound),
                _ => not(format!("`{}` is not affine", self.pre_text(&e.span))),
            },
            Expression::Cast(c) => {
                let (class, rank) = self
                    .syms
                    .class_of_type_name(&c.node.type_name.node.specifiers);
                let derived = c
                    .node
                    .type_name
                    .node
                    .declarator
                    .as_ref()
                    .map_or(0, |d| declarator_rank(&d.node));
                if matches!(class, TypeClass::Integer { .. }) && rank + derived == 0 {
                    self.aff(&c.node.expression, bound)
                } else {
                    not(format!(
                        "`{}` converts to a non-integer type",
                        self.pre_text(&e.span)
                    ))
                }
            }
            Expression::BinaryOperator(b) if b.node.operator.node != BinaryOperator::Index => {
                let op = b.node.operator.node.clone();
                let supported = matches!(
                    op,
                    BinaryOperator::Plus
                        | BinaryOperator::Minus
                        | BinaryOperator::Multiply
                        | BinaryOperator::ShiftLeft
                        | BinaryOperator::Divide
                        | BinaryOperator::Modulo
                );
                if !supported {
                    return not(format!("`{}` is not affine", self.pre_text(&e.span)));
                }
                let l = match self.aff(&b.node.lhs, bound)? {
                    Ok(l) => l,
                    Err(w) => return not(w),
                };
                let r = match self.aff(&b.node.rhs, bound)? {
                    Ok(r) => r,
                    Err(w) => return not(w),
                };
                let (lc, rc) = (constant_of(&l), constant_of(&r));
                match op {
                    BinaryOperator::Plus => Ok(Ok(combine(&l, &r, LinExpr::add))),
                    BinaryOperator::Minus => Ok(Ok(combine(&l, &r, LinExpr::sub))),
                    BinaryOperator::Multiply => match (lc, rc) {
                        (_, Some(k)) => Ok(Ok(combine(&l, &r, |a, _| a.scale(&k)))),
                        (Some(k), _) => Ok(Ok(combine(&l, &r, |_, b| b.scale(&k)))),
                        _ => not(format!(
                            "`{}` multiplies two variables",
                            self.pre_text(&e.span)
                        )),
                    },
                    BinaryOperator::ShiftLeft => match rc.and_then(|k| k.to_i64()) {
                        Some(k) if (0..62).contains(&k) => {
                            let f = Int::from(1i64 << k);
                            Ok(Ok(combine(&l, &r, |a, _| a.scale(&f))))
                        }
                        _ => not(format!("`{}` is not affine", self.pre_text(&e.span))),
                    },
                    // C division truncates towards zero; only constants are folded.
                    _ => match (lc.and_then(|x| x.to_i64()), rc.and_then(|x| x.to_i64())) {
                        (Some(a), Some(b)) if b != 0 => {
                            let v = if op == BinaryOperator::Divide {
                                a.checked_div(b)
                            } else {
                                a.checked_rem(b)
                            };
                            match v {
                                Some(v) => one(LinExpr::constant(v)),
                                None => not("division overflows".into()),
                            }
                        }
                        _ => not(format!(
                            "`{}` divides (C division truncates; only constants are folded)",
                            self.pre_text(&e.span)
                        )),
                    },
                }
            }
            Expression::Conditional(c) => {
                let cond = match self.condition(&c.node.condition, bound)? {
                    Ok(s) => s,
                    Err(w) => return not(w),
                };
                let t = match self.aff(&c.node.then_expression, bound)? {
                    Ok(t) => t,
                    Err(w) => return not(w),
                };
                let f = match self.aff(&c.node.else_expression, bound)? {
                    Ok(f) => f,
                    Err(w) => return not(w),
                };
                let yes = Some(cond.clone());
                let no = Some(self.complement(&cond));
                let mut out = vec![];
                for p in t {
                    out.push(Piece {
                        cond: and_cond(&yes, &p.cond),
                        expr: p.expr,
                    });
                }
                for p in f {
                    out.push(Piece {
                        cond: and_cond(&no, &p.cond),
                        expr: p.expr,
                    });
                }
                Ok(Ok(out))
            }
            Expression::BinaryOperator(_) => {
                not(format!("`{}` reads an array", self.pre_text(&e.span)))
            }
            Expression::Call(_) => not(format!("`{}` calls a function", self.pre_text(&e.span))),
            _ => not(format!("`{}` is not affine", self.pre_text(&e.span))),
        }
    }

    /// A condition as a set over the current iterators (`bound`: see [`Builder::aff`]).
    fn condition(&mut self, e: &Node<Expression>, bound: bool) -> Affine<Set> {
        use BinaryOperator::*;
        match &e.node {
            Expression::BinaryOperator(b) => {
                let op = b.node.operator.node.clone();
                match op {
                    LogicalAnd | LogicalOr => {
                        let l = match self.condition(&b.node.lhs, bound)? {
                            Ok(l) => l,
                            Err(w) => return Ok(Err(w)),
                        };
                        let r = match self.condition(&b.node.rhs, bound)? {
                            Ok(r) => r,
                            Err(w) => return Ok(Err(w)),
                        };
                        Ok(Ok(if op == LogicalAnd {
                            l.intersect(&r)
                        } else {
                            l.union(&r)
                        }))
                    }
                    Less | Greater | LessOrEqual | GreaterOrEqual | Equals | NotEquals => {
                        if matches!(op, Equals | NotEquals) {
                            if let Some(s) = self.divisibility(&b.node.lhs, &b.node.rhs)? {
                                return Ok(Ok(if op == Equals { s } else { self.complement(&s) }));
                            }
                        }
                        let l = match self.aff(&b.node.lhs, bound)? {
                            Ok(l) => l,
                            Err(w) => return Ok(Err(w)),
                        };
                        let r = match self.aff(&b.node.rhs, bound)? {
                            Ok(r) => r,
                            Err(w) => return Ok(Err(w)),
                        };
                        Ok(Ok(self.compare(&l, &r, &op)))
                    }
                    _ => self.truth(e, bound),
                }
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                Ok(self
                    .condition(&u.node.operand, bound)?
                    .map(|s| self.complement(&s)))
            }
            _ => self.truth(e, bound),
        }
    }

    /// `e % k == 0` (either way round) as the set where `k` divides `e`. C's `%` truncates,
    /// but whether the remainder is zero does not depend on the rounding, so this one use
    /// of `%` is affine (Presburger) for any sign of `e`.
    fn divisibility(&mut self, a: &Node<Expression>, b: &Node<Expression>) -> R<Option<Set>> {
        for (x, zero) in [(a, b), (b, a)] {
            let Expression::BinaryOperator(m) = &x.node else {
                continue;
            };
            if m.node.operator.node != BinaryOperator::Modulo {
                continue;
            }
            if self.constant(zero)? != Some(Int::ZERO) {
                continue;
            }
            let Some(k) = self.constant(&m.node.rhs)? else {
                continue;
            };
            if k.is_zero() {
                continue;
            }
            let Ok(e) = self.aff(&m.node.lhs, false)? else {
                continue;
            };
            let dims = self.dims();
            let mut out = self.empty();
            for p in e {
                let mut s = aff::congruence(&dims, &p.expr, &k.abs());
                if let Some(c) = &p.cond {
                    s = s.intersect(c);
                }
                out = out.union(&s);
            }
            return Ok(Some(out));
        }
        Ok(None)
    }

    /// An integer used as a condition: true when non-zero.
    fn truth(&mut self, e: &Node<Expression>, bound: bool) -> Affine<Set> {
        match self.aff(e, bound)? {
            Ok(v) => {
                let zero = vec![Piece {
                    cond: None,
                    expr: LinExpr::zero(),
                }];
                Ok(Ok(self.compare(&v, &zero, &BinaryOperator::NotEquals)))
            }
            Err(w) => Ok(Err(w)),
        }
    }

    fn compare(&self, l: &PwAff, r: &PwAff, op: &BinaryOperator) -> Set {
        use BinaryOperator::*;
        let dims = self.dims();
        let mut out = self.empty();
        for p in l {
            for q in r {
                // d = rhs - lhs
                let d = q.expr.sub(&p.expr);
                let m1 = Int::from(-1);
                let atom =
                    match op {
                        Less => aff::set_from(&dims, &[], &[d.add_constant(&m1)]),
                        LessOrEqual => aff::set_from(&dims, &[], &[d]),
                        Greater => aff::set_from(&dims, &[], &[d.neg().add_constant(&m1)]),
                        GreaterOrEqual => aff::set_from(&dims, &[], &[d.neg()]),
                        Equals => aff::set_from(&dims, &[d], &[]),
                        _ => aff::set_from(&dims, &[], &[d.add_constant(&m1)])
                            .union(&aff::set_from(&dims, &[], &[d.neg().add_constant(&m1)])),
                    };
                let atom = match and_cond(&p.cond, &q.cond) {
                    Some(c) => atom.intersect(&c),
                    None => atom,
                };
                out = out.union(&atom);
            }
        }
        out
    }

    // ------------------------------------------------------------------ accesses

    /// Records the accesses of an expression evaluated with `mode` (an lvalue is written).
    fn expr(&mut self, e: &Node<Expression>, mode: Mode, acc: &mut Vec<Access>) -> R<()> {
        use BinaryOperator::*;
        match &e.node {
            Expression::Identifier(id) => self.ident_access(&id.node.name, &e.span, mode, acc),
            Expression::Constant(_) | Expression::StringLiteral(_) => Ok(()),
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_) | Expression::AlignOf(_) => Ok(()),
            Expression::BinaryOperator(b) => {
                let op = b.node.operator.node.clone();
                match op {
                    Index => self.index_access(e, mode, acc),
                    Assign => {
                        self.expr(&b.node.rhs, Mode::Read, acc)?;
                        self.expr(&b.node.lhs, Mode::Write, acc)
                    }
                    AssignMultiply | AssignDivide | AssignModulo | AssignPlus | AssignMinus
                    | AssignShiftLeft | AssignShiftRight | AssignBitwiseAnd | AssignBitwiseXor
                    | AssignBitwiseOr => {
                        self.expr(&b.node.rhs, Mode::Read, acc)?;
                        self.expr(&b.node.lhs, Mode::ReadWrite, acc)
                    }
                    _ => {
                        self.not_lvalue(e, mode)?;
                        self.expr(&b.node.lhs, Mode::Read, acc)?;
                        self.expr(&b.node.rhs, Mode::Read, acc)
                    }
                }
            }
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::PostIncrement
                | UnaryOperator::PostDecrement
                | UnaryOperator::PreIncrement
                | UnaryOperator::PreDecrement => self.expr(&u.node.operand, Mode::ReadWrite, acc),
                UnaryOperator::Address => Err(self
                    .err(
                        "taking an address cannot be modelled",
                        &e.span,
                        "a pointer into the data escapes here",
                    )
                    .with_note("loopy tracks array elements by their subscripts; a pointer could reach any of them")),
                UnaryOperator::Indirection => Err(self
                    .err(
                        "pointer dereference cannot be modelled",
                        &e.span,
                        "dereferences a pointer",
                    )
                    .with_help("write the access with subscripts: `A[i]` instead of `*(A + i)`")),
                _ => {
                    self.not_lvalue(e, mode)?;
                    self.expr(&u.node.operand, Mode::Read, acc)
                }
            },
            Expression::Cast(c) => self.expr(&c.node.expression, mode, acc),
            Expression::Conditional(c) => {
                self.not_lvalue(e, mode)?;
                self.expr(&c.node.condition, Mode::Read, acc)?;
                self.expr(&c.node.then_expression, Mode::Read, acc)?;
                self.expr(&c.node.else_expression, Mode::Read, acc)
            }
            Expression::Comma(v) => {
                for x in v.iter() {
                    self.expr(x, Mode::Read, acc)?;
                }
                Ok(())
            }
            Expression::Call(c) => {
                let name = match &c.node.callee.node {
                    Expression::Identifier(id) => Some(id.node.name.clone()),
                    _ => None,
                };
                match name {
                    Some(n) if is_pure(&n) && self.lookup(&n).is_none() => {
                        for a in &c.node.arguments {
                            self.expr(a, Mode::Read, acc)?;
                        }
                        Ok(())
                    }
                    _ => Err(self
                        .err(
                            format!(
                                "a call to `{}` cannot be modelled",
                                self.pre_text(&c.node.callee.span)
                            ),
                            &e.span,
                            "its side effects are unknown",
                        )
                        .with_note(format!(
                            "only functions without side effects may be called in a region: {}, … (math.h)",
                            PURE[..6].join(", ")
                        ))),
                }
            }
            Expression::Member(m) => {
                if m.node.operator.node == lang_c::ast::MemberOperator::Indirect {
                    return Err(self
                        .err(
                            "`->` cannot be modelled",
                            &e.span,
                            "dereferences a pointer",
                        )
                        .with_note("loopy tracks arrays by name and subscripts; a pointer could reach anything"));
                }
                let n = acc.len();
                self.expr(&m.node.expression, mode, acc)?;
                let what = self.pre_text(&e.span);
                for a in &mut acc[n..] {
                    a.exact = false;
                    a.note = Some(format!("`{what}`: the whole struct is assumed to be accessed"));
                }
                Ok(())
            }
            _ => Err(self.err(
                "this expression cannot be modelled",
                &e.span,
                "unsupported expression",
            )),
        }
    }

    fn not_lvalue(&self, e: &Node<Expression>, mode: Mode) -> R<()> {
        if mode == Mode::Read {
            Ok(())
        } else {
            Err(self.err(
                "this expression cannot be assigned to",
                &e.span,
                "not a variable or array element",
            ))
        }
    }

    fn ident_access(
        &mut self,
        name: &str,
        span: &Span,
        mode: Mode,
        acc: &mut Vec<Access>,
    ) -> R<()> {
        match self.lookup(name).cloned() {
            Some(Binding::Iter(_)) => {
                if mode != Mode::Read {
                    return Err(self.iterator_write(name, span));
                }
                Ok(())
            }
            Some(Binding::OpaqueLocal) => Ok(()),
            Some(Binding::Local {
                array,
                rank,
                private_depth,
            }) => {
                if rank > 0 {
                    return Err(self.pointer_use(name, span));
                }
                self.add_access(&array, name, 0, private_depth, vec![], mode, span, acc)
            }
            None => {
                if let Some(info) = self.syms.get(name) {
                    if info.enumerator {
                        return Ok(());
                    }
                    if info.function {
                        return Err(self.err(
                            format!("the function `{name}` is used as a value"),
                            span,
                            "a function pointer",
                        ));
                    }
                    if info.rank > 0 {
                        return Err(self.pointer_use(name, span));
                    }
                }
                self.add_access(name, name, 0, None, vec![], mode, span, acc)
            }
        }
    }

    fn pointer_use(&self, name: &str, span: &Span) -> Diagnostic {
        self.err(
            format!("the array `{name}` is used as a pointer"),
            span,
            "pointer arithmetic or aliasing",
        )
        .with_note(
            "loopy tracks array elements by their subscripts; use `A[i][j]` with every subscript",
        )
    }

    fn index_access(&mut self, e: &Node<Expression>, mode: Mode, acc: &mut Vec<Access>) -> R<()> {
        let mut subs: Vec<&Node<Expression>> = vec![];
        let mut cur = e;
        while let Expression::BinaryOperator(b) = &cur.node {
            if b.node.operator.node != BinaryOperator::Index {
                break;
            }
            subs.push(&b.node.rhs);
            cur = &b.node.lhs;
        }
        subs.reverse();
        let Expression::Identifier(id) = &cur.node else {
            return Err(self
                .err(
                    "only arrays named by a variable can be subscripted",
                    &cur.span,
                    "not an array name",
                )
                .with_note("loopy tracks arrays by name and subscripts"));
        };
        let name = id.node.name.clone();
        let (array, rank, private_depth) = match self.lookup(&name).cloned() {
            Some(Binding::Iter(_)) => {
                return Err(self.err(
                    format!("the loop counter `{name}` is not an array"),
                    &cur.span,
                    "subscripted",
                ))
            }
            Some(Binding::OpaqueLocal) => {
                for s in &subs {
                    self.expr(s, Mode::Read, acc)?;
                }
                return Ok(());
            }
            Some(Binding::Local {
                array,
                rank,
                private_depth,
            }) => (array, Some(rank), private_depth),
            None => {
                let info = self.syms.get(&name);
                if info.is_some_and(|i| i.function) {
                    return Err(self.err(
                        format!("the function `{name}` is subscripted"),
                        &cur.span,
                        "not an array",
                    ));
                }
                (name.clone(), info.map(|i| i.rank), None)
            }
        };
        if let Some(r) = rank {
            if r != subs.len() {
                let msg = if r < subs.len() {
                    format!(
                        "`{name}` has {} but {}",
                        count(r, "dimension"),
                        count(subs.len(), "subscript")
                    )
                } else {
                    format!(
                        "`{name}` has {} but only {}: the rest is pointer arithmetic",
                        count(r, "dimension"),
                        count(subs.len(), "subscript")
                    )
                };
                return Err(self
                    .err(
                        msg,
                        &e.span,
                        "every access needs one subscript per dimension",
                    )
                    .with_note("loopy tracks array elements by their subscripts"));
            }
        }
        for s in &subs {
            self.expr(s, Mode::Read, acc)?;
        }
        let mut affs = vec![];
        for s in &subs {
            affs.push(match self.aff(s, false)? {
                Ok(p) => Ok(p),
                Err(why) => {
                    let text = self.pre_text(&s.span);
                    Err(if why.starts_with(&format!("`{text}` ")) {
                        format!("subscript {why}")
                    } else {
                        format!("subscript `{text}` is not affine: {why}")
                    })
                }
            });
        }
        self.add_access(
            &array,
            &name,
            subs.len(),
            private_depth,
            affs,
            mode,
            &e.span,
            acc,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn add_access(
        &mut self,
        array: &str,
        c_name: &str,
        rank: usize,
        private_depth: Option<usize>,
        subs: Vec<Result<PwAff, String>>,
        mode: Mode,
        span: &Span,
        acc: &mut Vec<Access>,
    ) -> R<()> {
        match self.arrays.iter().find(|a| a.name == array) {
            Some(a) if a.rank != rank => {
                let first = self.array_first[array].clone();
                let d = self.err(
                    format!(
                        "`{c_name}` is accessed with {} here",
                        count(rank, "subscript")
                    ),
                    span,
                    count(rank, "subscript"),
                );
                let fs = self.sm.span_or_pre(first);
                return Err(self.with_label(
                    d,
                    &fs,
                    format!("{} here", count(a.rank, "subscript")),
                ));
            }
            Some(_) => {}
            None => {
                self.arrays.push(Array {
                    name: array.to_string(),
                    c_name: c_name.to_string(),
                    rank,
                    private_depth,
                });
                self.array_first.insert(array.to_string(), range(span));
            }
        }
        let note = subs.iter().find_map(|s| s.as_ref().err().cloned());
        let relation = self.relation(array, &subs);
        let exact = note.is_none() && self.opaque.is_none();
        let sp = self.span(span);
        for k in mode.kinds() {
            acc.push(Access {
                array: array.to_string(),
                kind: *k,
                relation: relation.clone(),
                exact,
                note: note.clone(),
                span: sp.clone(),
            });
        }
        Ok(())
    }

    /// `S[iterators] -> A[subscripts]`, a union over the pieces of piecewise subscripts.
    fn relation(&self, array: &str, subs: &[Result<PwAff, String>]) -> Map {
        let input = Tuple {
            name: Some(self.stmt_name()),
            dims: self.dims(),
        };
        let output = Tuple {
            name: Some(array.to_string()),
            dims: (0..subs.len()).map(|k| format!("o{k}")).collect(),
        };
        let mut combos: Vec<(Option<Set>, Vec<Option<LinExpr>>)> = vec![(None, vec![])];
        for s in subs {
            match s {
                Err(_) => combos.iter_mut().for_each(|c| c.1.push(None)),
                Ok(pw) => {
                    let mut next = vec![];
                    for (cond, exprs) in &combos {
                        for p in pw {
                            let mut e = exprs.clone();
                            e.push(Some(p.expr.clone()));
                            next.push((and_cond(cond, &p.cond), e));
                        }
                    }
                    combos = next;
                }
            }
        }
        let mut out: Option<Map> = None;
        for (cond, exprs) in combos {
            let mut m = aff::relation(&input, &output, &exprs);
            if let Some(c) = cond {
                m = m.intersect_domain(&c);
            }
            out = Some(match out {
                None => m,
                Some(o) => o.union(&m),
            });
        }
        out.expect("at least one piece")
    }

    // --------------------------------------------------------------- declarations

    fn declaration(&mut self, d: &Node<Declaration>) -> R<()> {
        let storage = d.node.specifiers.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::StorageClass(c) => Some(c.node.clone()),
            _ => None,
        });
        if matches!(storage, Some(StorageClassSpecifier::Typedef)) {
            return Err(self.err(
                "type definitions cannot be inside the region",
                &d.span,
                "a typedef",
            ));
        }
        let persistent = matches!(
            storage,
            Some(StorageClassSpecifier::Static)
                | Some(StorageClassSpecifier::ThreadLocal)
                | Some(StorageClassSpecifier::Extern)
        );
        if persistent && self.opaque.is_none() {
            let sp = self.span(&d.span);
            self.declarations
                .push(normalize(self.sm.text(&sp).unwrap_or("")));
        }
        if matches!(storage, Some(StorageClassSpecifier::Extern)) {
            return Ok(());
        }
        let (_, base) = self.syms.class_of_decl(&d.node.specifiers);
        let mut acc = vec![];
        let mut init = false;
        let mut declared = vec![];
        for x in &d.node.declarators {
            let decl = &x.node.declarator.node;
            if is_function(decl) {
                continue;
            }
            let Some(name) = declarator_name(decl) else {
                continue;
            };
            let rank = base + declarator_rank(decl);
            let clash = |n: &str| {
                self.syms.get(n).is_some()
                    || self.local_names.contains(n)
                    || self.lookup(n).is_some()
            };
            let array = if clash(&name) {
                self.fresh(&name, clash)
            } else {
                name.clone()
            };
            self.local_names.insert(array.clone());
            if !persistent {
                declared.push(array.clone());
            }
            // A variable declared inside the region is a new one in every iteration of
            // the loops around it, unless it is static.
            let private_depth = (!persistent).then_some(self.loops.len());
            if self.opaque.is_some() {
                self.bind(&name, Binding::OpaqueLocal);
            } else {
                self.bind(
                    &name,
                    Binding::Local {
                        array: array.clone(),
                        rank,
                        private_depth,
                    },
                );
            }
            // A static initializer runs once, before the program starts.
            let Some(i) = &x.node.initializer else {
                continue;
            };
            if persistent {
                continue;
            }
            init = true;
            self.initializer(&i.node, &mut acc)?;
            if self.opaque.is_none() {
                let subs = (0..rank)
                    .map(|_| Err("initialised as a whole".to_string()))
                    .collect();
                self.add_access(
                    &array,
                    &name,
                    rank,
                    private_depth,
                    subs,
                    Mode::Write,
                    &x.span,
                    &mut acc,
                )?;
            }
        }
        if init && self.opaque.is_none() {
            self.push_statement(&d.span, acc, None);
            if let Some(st) = self.stmts.last_mut() {
                st.declares = declared;
            }
        } else if self.opaque.is_some() {
            self.opaque_acc.append(&mut acc);
        }
        Ok(())
    }

    fn initializer(&mut self, i: &Initializer, acc: &mut Vec<Access>) -> R<()> {
        match i {
            Initializer::Expression(e) => self.expr(e, Mode::Read, acc),
            Initializer::List(items) => {
                for it in items {
                    self.initializer(&it.node.initializer.node, acc)?;
                }
                Ok(())
            }
        }
    }

    // ---------------------------------------------------------- opaque constructs

    /// One statement standing for a whole construct that is not modelled.
    fn opaque_construct(&mut self, s: &Node<Statement>, why: String) -> R<()> {
        let saved = self.opaque.replace(Opaque {
            in_loop: false,
            in_switch: false,
        });
        let saved_acc = std::mem::take(&mut self.opaque_acc);
        self.scopes.push(HashMap::new());
        let r = self.opaque_stmt(s);
        self.scopes.pop();
        self.opaque = saved;
        let acc = std::mem::replace(&mut self.opaque_acc, saved_acc);
        r?;
        self.push_statement(&s.span, acc, Some(why));
        Ok(())
    }

    fn opaque_stmt(&mut self, s: &Node<Statement>) -> R<()> {
        let mut acc = vec![];
        let state = self.opaque.expect("inside an opaque construct");
        let with = |b: &mut Self, st: Opaque, s: &Node<Statement>| -> R<()> {
            let saved = b.opaque.replace(st);
            let r = b.opaque_stmt(s);
            b.opaque = saved;
            r
        };
        match &s.node {
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    return Err(self
                        .err(
                            format!(
                                "the tag `{}` is inside a construct that cannot be modelled",
                                id.node.name
                            ),
                            &l.node.label.span,
                            "this label cannot name a loop component",
                        )
                        .with_note("the construct around it is modelled as one opaque statement")
                        .with_help("tag the whole construct instead, or make it affine"));
                }
                Label::Case(e) => {
                    self.expr(e, Mode::Read, &mut acc)?;
                    self.opaque_acc.append(&mut acc);
                    self.opaque_stmt(&l.node.statement)?;
                }
                Label::CaseRange(r) => {
                    self.expr(&r.node.low, Mode::Read, &mut acc)?;
                    self.expr(&r.node.high, Mode::Read, &mut acc)?;
                    self.opaque_acc.append(&mut acc);
                    self.opaque_stmt(&l.node.statement)?;
                }
                Label::Default => self.opaque_stmt(&l.node.statement)?,
            },
            Statement::Compound(items) => {
                self.scopes.push(HashMap::new());
                let mut r = Ok(());
                for it in items {
                    r = match &it.node {
                        BlockItem::Declaration(d) => self.declaration(d),
                        BlockItem::Statement(st) => self.opaque_stmt(st),
                        BlockItem::StaticAssert(_) => Ok(()),
                    };
                    if r.is_err() {
                        break;
                    }
                }
                self.scopes.pop();
                r?;
            }
            Statement::Expression(Some(e)) => {
                self.expr(e, Mode::Read, &mut acc)?;
            }
            Statement::Expression(None) => {}
            Statement::If(i) => {
                self.expr(&i.node.condition, Mode::Read, &mut acc)?;
                self.opaque_acc.append(&mut acc);
                self.opaque_stmt(&i.node.then_statement)?;
                if let Some(e) = &i.node.else_statement {
                    self.opaque_stmt(e)?;
                }
            }
            Statement::Switch(w) => {
                self.expr(&w.node.expression, Mode::Read, &mut acc)?;
                self.opaque_acc.append(&mut acc);
                with(
                    self,
                    Opaque {
                        in_switch: true,
                        ..state
                    },
                    &w.node.statement,
                )?;
            }
            Statement::While(w) => {
                self.expr(&w.node.expression, Mode::Read, &mut acc)?;
                self.opaque_acc.append(&mut acc);
                with(
                    self,
                    Opaque {
                        in_loop: true,
                        ..state
                    },
                    &w.node.statement,
                )?;
            }
            Statement::DoWhile(w) => {
                with(
                    self,
                    Opaque {
                        in_loop: true,
                        ..state
                    },
                    &w.node.statement,
                )?;
                self.expr(&w.node.expression, Mode::Read, &mut acc)?;
            }
            Statement::For(f) => {
                self.scopes.push(HashMap::new());
                let r = self.opaque_for(&f.node, state);
                self.scopes.pop();
                r?;
            }
            Statement::Continue if state.in_loop => {}
            Statement::Break if state.in_loop || state.in_switch => {}
            Statement::Goto(_)
            | Statement::Continue
            | Statement::Break
            | Statement::Return(_)
            | Statement::Asm(_) => return Err(self.jump_error(s)),
        }
        self.opaque_acc.append(&mut acc);
        Ok(())
    }

    fn opaque_for(&mut self, f: &ForStatement, state: Opaque) -> R<()> {
        let mut acc = vec![];
        match &f.initializer.node {
            ForInitializer::Declaration(d) => self.declaration(d)?,
            ForInitializer::Expression(e) => {
                // `k = …` counts with `k` inside this loop only; its final value is read
                // by no one (counters used outside their loops are rejected).
                let counter = match &e.node {
                    Expression::BinaryOperator(b)
                        if b.node.operator.node == BinaryOperator::Assign =>
                    {
                        match &b.node.lhs.node {
                            Expression::Identifier(id) => Some((id.node.name.clone(), &b.node.rhs)),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                match counter {
                    Some((c, rhs)) => {
                        if let Some(Binding::Iter(_)) = self.lookup(&c) {
                            return Err(self.iterator_write(&c, &e.span));
                        }
                        self.expr(rhs, Mode::Read, &mut acc)?;
                        self.bind(&c, Binding::OpaqueLocal);
                    }
                    None => self.expr(e, Mode::Read, &mut acc)?,
                }
            }
            _ => {}
        }
        if let Some(c) = &f.condition {
            self.expr(c, Mode::Read, &mut acc)?;
        }
        if let Some(st) = &f.step {
            self.expr(st, Mode::Read, &mut acc)?;
        }
        self.opaque_acc.append(&mut acc);
        let saved = self.opaque.replace(Opaque {
            in_loop: true,
            ..state
        });
        let r = self.opaque_stmt(&f.statement);
        self.opaque = saved;
        r
    }

    // --------------------------------------------------------------------- finish

    pub fn finish(mut self, file: &str, function: &str, region: SourceSpan) -> R<Scop> {
        // Loop counters must not be read or written outside the loops they count: the
        // model does not see the loop headers' writes.
        for st in &self.stmts {
            for a in &st.accesses {
                let Some(arr) = self.arrays.iter().find(|x| x.name == a.array) else {
                    continue;
                };
                if arr.rank == 0 && self.pre.counters.contains(&arr.c_name) {
                    let name = &arr.c_name;
                    return Err(Diagnostic::new(format!(
                        "the loop counter `{name}` is used outside the loops that count with it"
                    ))
                    .with_label(&a.span.file, a.span.range.clone(), format!("{} `{name}`", if a.kind == AccessKind::Read { "reads" } else { "writes" }))
                    .with_note("the model does not see the values a loop leaves in its counter, nor keeps them when loops are transformed")
                    .with_help(format!("use another variable here, or declare the counter in the loop: `for (int {name} = …)`")));
                }
            }
        }
        let params = self.params.clone();
        // Reads of parameters are not accesses: they never change inside the region.
        for st in &mut self.stmts {
            st.accesses.retain(|a| !params.contains(&a.array));
        }
        self.arrays.retain(|a| !params.contains(&a.name));
        // A macro that expands to several statements gives them one original span; its
        // text would be emitted once per statement, so they keep the expanded text.
        let spans: Vec<SourceSpan> = self.stmts.iter().map(|s| s.span.clone()).collect();
        for (k, st) in self.stmts.iter_mut().enumerate() {
            let shared = spans.iter().enumerate().any(|(j, o)| {
                j != k
                    && o.file == st.span.file
                    && o.range.start < st.span.range.end
                    && st.span.range.start < o.range.end
            });
            if shared {
                st.text = st.expanded_text.clone();
            }
        }
        // A loop that declares its counter may shadow a name the region also uses as a
        // parameter (outside that loop): give the iterator a fresh name so that no set has
        // a parameter and a dimension of one name.
        for k in 0..self.stmts.len() {
            let clashes: Vec<String> = self.stmts[k]
                .iterators
                .iter()
                .filter(|i| params.contains(i))
                .cloned()
                .collect();
            for old in clashes {
                let its = self.stmts[k].iterators.clone();
                let new = self.fresh(&old, |n| {
                    params.iter().any(|p| p == n) || its.iter().any(|i| i == n)
                });
                self.stmts[k].rename_iterator(&old, &new);
            }
        }
        let depth = self
            .stmts
            .iter()
            .map(|s| s.schedule.depth())
            .max()
            .unwrap_or(0);
        for st in &mut self.stmts {
            st.domain = st.domain.align_params(&params).simplify();
            st.schedule.pad_to(depth);
            st.schedule.dims = st.schedule.dims.align_params(&params);
            for a in &mut st.accesses {
                a.relation = a.relation.align_params(&params).simplify();
            }
        }
        // Facts the code states: unsigned parameters are not negative.
        let space = Space {
            params: params.clone(),
            domain: None,
            range: Tuple::default(),
        };
        let mut context = Set::universe(space);
        for p in &params {
            if let Some(info) = self.syms.get(p) {
                if matches!(info.class, TypeClass::Integer { unsigned: true }) {
                    context = context.intersect(&aff::set_from(&[], &[], &[LinExpr::var(p)]));
                }
            }
        }
        let context = context.align_params(&params).simplify();
        // Tags in the order their labels appear (they are completed inside out).
        let mut tags = self.tags;
        tags.sort_by_key(|t| (t.span.file != file, t.span.range.start));
        Ok(Scop {
            file: file.to_string(),
            function: function.to_string(),
            region,
            params,
            context,
            arrays: self.arrays,
            statements: self.stmts,
            tags,
            declarations: self.declarations,
        })
    }
}
