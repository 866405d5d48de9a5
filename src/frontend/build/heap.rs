//! Heap buffers of generated code and the checks that stop the program, for `loopy equiv`.
//!
//! Generated code keeps an expanded or packed array on the heap when its size depends on
//! the parameters:
//!
//! ```c
//! unsigned long bytes = sizeof(sum[0]);
//! if (__builtin_mul_overflow(bytes, (unsigned long)n0, &bytes)) __builtin_abort();
//! __typeof__(sum[0]) (*buf)[n1] = __builtin_malloc(bytes);
//! if (!buf) __builtin_abort();
//! … buf[q][p] …
//! __builtin_free(buf);
//! ```
//!
//! - A pointer declared with `malloc(…)` (or `__builtin_malloc`, or `aligned_alloc`) is a
//!   buffer of the region,
//!   an array with one dimension per level of its declarator, whose elements hold nothing
//!   known until written: as a local array declared without a value. Its size is not
//!   read (as with any array, its elements are taken to be within it).
//! - `free(buf)` ends it and computes nothing.
//! - `if (__builtin_mul_overflow(a, b, &v)) __builtin_abort();` writes `v` (with a value
//!   that is not compared: a statement of its own, whose store is refused if a compared
//!   value reads `v`) and may stop the program; so may `if (!buf) __builtin_abort();`
//!   (after `perror("…");` in a block).
//!   Such checks are recorded (`Scop::stops`): what the region computes is compared where
//!   they pass, and `loopy equiv` says so.

use super::*;
use lang_c::ast::{ArraySize, Declarator, DeclaratorKind, DerivedDeclarator, IfStatement};

/// `abort()` or `__builtin_abort()` as a statement, possibly in a block after calls of
/// `perror` with a string literal (a message on the error stream, which touches no
/// variable).
fn is_abort(s: &Node<Statement>) -> bool {
    match &s.node {
        Statement::Compound(items) => match items.split_last() {
            Some((last, before)) => {
                matches!(&last.node, BlockItem::Statement(x) if is_abort(x))
                    && before
                        .iter()
                        .all(|it| matches!(&it.node, BlockItem::Statement(x) if is_message(x)))
            }
            None => false,
        },
        Statement::Expression(Some(e)) => call_name(e).is_some_and(|n| {
            matches!(n, "abort" | "__builtin_abort") && call_args(e).is_some_and(|a| a.is_empty())
        }),
        _ => false,
    }
}

/// `perror("…");`.
fn is_message(s: &Node<Statement>) -> bool {
    let Statement::Expression(Some(e)) = &s.node else {
        return false;
    };
    call_name(e) == Some("perror")
        && call_args(e)
            .is_some_and(|a| matches!(a, [x] if matches!(x.node, Expression::StringLiteral(_))))
}

fn call_name(e: &Node<Expression>) -> Option<&str> {
    match &e.node {
        Expression::Call(c) => match &c.node.callee.node {
            Expression::Identifier(id) => Some(id.node.name.as_str()),
            _ => None,
        },
        _ => None,
    }
}

fn call_args(e: &Node<Expression>) -> Option<&[Node<Expression>]> {
    match &e.node {
        Expression::Call(c) => Some(&c.node.arguments),
        _ => None,
    }
}

/// Whether `e` is `malloc(…)`, `__builtin_malloc(…)` or `aligned_alloc(…, …)` (generated
/// code's buffer of each thread).
pub(super) fn is_malloc(e: &Node<Expression>) -> bool {
    call_name(e).is_some_and(|n| matches!(n, "malloc" | "__builtin_malloc" | "aligned_alloc"))
}

impl<'a> Builder<'a> {
    /// Records the buffer `array` (a model name) as allocated on the heap.
    pub(super) fn heap_buffer(&mut self, array: &str) {
        if let Some(l) = &mut self.generated {
            l.heap.insert(array.to_string());
        }
    }

    /// The heap buffer the identifier `e` names.
    fn heap_named(&self, e: &Node<Expression>) -> Option<String> {
        let Expression::Identifier(id) = &e.node else {
            return None;
        };
        match self.lookup(&id.node.name) {
            Some(Binding::Local { array, .. })
                if self
                    .generated
                    .as_ref()
                    .is_some_and(|l| l.heap.contains(array)) =>
            {
                Some(array.clone())
            }
            _ => None,
        }
    }

    /// `free(buf)` of a heap buffer: nothing to model.
    pub(super) fn is_free(&self, e: &Node<Expression>) -> bool {
        self.generated.is_some()
            && call_name(e).is_some_and(|n| matches!(n, "free" | "__builtin_free"))
            && call_args(e).is_some_and(|a| matches!(a, [x] if self.heap_named(x).is_some()))
    }

    /// A check that stops the program (`if (…) __builtin_abort();`), modelled; false when
    /// `i` is not one.
    pub(super) fn stopping_check(&mut self, i: &Node<IfStatement>, s: &Node<Statement>) -> R<bool> {
        if self.generated.is_none()
            || self.opaque.is_some()
            || i.node.else_statement.is_some()
            || !is_abort(&i.node.then_statement)
        {
            return Ok(false);
        }
        let cond = &i.node.condition;
        // `!buf`: the allocation failed.
        if let Expression::UnaryOperator(u) = &cond.node {
            if u.node.operator.node == UnaryOperator::Negate
                && self.heap_named(&u.node.operand).is_some()
            {
                self.stop_at(&s.span);
                return Ok(true);
            }
        }
        // `__builtin_mul_overflow(a, b, &v)`: `v = a * b`, or the program stops.
        let overflow = call_name(cond)
            .is_some_and(|n| matches!(n, "__builtin_mul_overflow" | "__builtin_add_overflow"));
        let Some([a, b, out]) = call_args(cond)
            .filter(|_| overflow)
            .and_then(|x| <&[_; 3]>::try_from(x).ok())
        else {
            return Ok(false);
        };
        let Expression::UnaryOperator(addr) = &out.node else {
            return Ok(false);
        };
        if addr.node.operator.node != UnaryOperator::Address {
            return Ok(false);
        }
        let Expression::Identifier(_) = &addr.node.operand.node else {
            return Ok(false);
        };
        let mut acc = vec![];
        self.expr(a, Mode::Read, &mut acc)?;
        self.expr(b, Mode::Read, &mut acc)?;
        self.expr(&addr.node.operand, Mode::Write, &mut acc)?;
        self.push_statement(&s.span, acc, None);
        if let Some(st) = self.stmts.last_mut() {
            st.store = Err("an overflow check, whose value is not compared".into());
        }
        self.stop_at(&s.span);
        Ok(true)
    }

    fn stop_at(&mut self, span: &Span) {
        let sp = self.span(span);
        if let Some(l) = &mut self.generated {
            l.stops.push(sp);
        }
    }

    /// Records the extents of a variable declared in the region (`array`, its model
    /// name) from its declarator, with one more for a vector's lanes.
    pub(super) fn declare_extents(
        &mut self,
        array: &str,
        d: &Declarator,
        lanes: Option<usize>,
    ) -> R<()> {
        if self.generated.is_none() {
            return Ok(());
        }
        let mut ext = self.declarator_extents(d)?;
        if let Some(l) = lanes {
            ext.push(Some(LinExpr::constant(l as i64)));
        }
        if let Some(x) = &mut self.generated {
            x.extents.insert(array.to_string(), ext);
        }
        Ok(())
    }

    /// The extents recorded for `array`.
    pub(super) fn extents_of(&self, array: &str) -> Vec<Option<LinExpr>> {
        self.generated
            .as_ref()
            .and_then(|l| l.extents.get(array).cloned())
            .unwrap_or_default()
    }

    /// One extent per level of a declarator, from the name outward as `declarator_levels`
    /// counts them: an array's size where it is affine in the parameters, none for a
    /// pointer.
    fn declarator_extents(&mut self, d: &Declarator) -> R<Vec<Option<LinExpr>>> {
        let mut out = match &d.kind.node {
            DeclaratorKind::Declarator(i) => self.declarator_extents(&i.node)?,
            _ => vec![],
        };
        let mut pointers = 0;
        for x in &d.derived {
            match &x.node {
                DerivedDeclarator::Pointer(_) => pointers += 1,
                DerivedDeclarator::Array(a) => {
                    let size = match &a.node.size {
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.aff(e, false)? {
                                Ok(p) => match p.as_slice() {
                                    [Piece { cond: None, expr }]
                                        if expr
                                            .names()
                                            .all(|n| !self.dims().iter().any(|d| d == n)) =>
                                    {
                                        Some(expr.clone())
                                    }
                                    _ => None,
                                },
                                Err(_) => None,
                            }
                        }
                        _ => None,
                    };
                    out.push(size);
                }
                _ => out.push(None),
            }
        }
        out.extend(std::iter::repeat_n(None, pointers));
        Ok(out)
    }
}
