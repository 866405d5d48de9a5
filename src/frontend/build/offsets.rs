//! Integer variables with a known affine value, for `loopy equiv` reading generated code.
//!
//! Generated code addresses a packed panel through offsets set before the nest that fills
//! it and read again in the nest that uses it (`loopy_B_o0 = 384 * c3;` … `loopy_B[…][k -
//! loopy_B_o0][…]`). Such a variable, read in a subscript or a bound, is its value where
//! the value reaching the read is known exactly:
//! - the last assignment walked is `x = e` (or `int x = e`) with `e` affine, one piece;
//! - it was made in the same iterations of every loop around it as the read: its loops
//!   are the first loops around the read (the same loops, not loops of the same names);
//! - at every point of the read's context it was made: the read's context, taken to the
//!   assignment's loops, lies in the assignment's (an `if` around the assignment is
//!   implied by the read's own bounds).
//!
//! Any other write of the variable forgets its value (a compound assignment, `x++`, an
//! opaque construct, a declaration), and so does a loop whose body assigns it, for the
//! whole body: a read early in an iteration would see the previous iteration's value.
//! Anything else keeps the variable computed inside the region, not affine, as before.

use super::*;
use lang_c::ast::UnaryOperatorExpression;

/// The value an assignment gave an integer variable.
#[derive(Clone, Debug)]
pub struct Known {
    value: LinExpr,
    /// Where the loops around the assignment start: which loops they are.
    loops: Vec<usize>,
    /// The assignment's context, over those loops' iterators.
    domain: Set,
}

/// The variables a statement assigns (`x = …`, `x op= …`, `x++`), by their C names.
#[derive(Default)]
struct Assigned(HashSet<String>);

impl<'ast> Visit<'ast> for Assigned {
    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast lang_c::ast::BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        if super::prepass::is_assignment(&b.operator.node) {
            if let Expression::Identifier(id) = &b.lhs.node {
                self.0.insert(id.node.name.clone());
            }
        }
        visit::visit_binary_operator_expression(self, b, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        use UnaryOperator::*;
        if matches!(
            u.operator.node,
            PostIncrement | PostDecrement | PreIncrement | PreDecrement | Address
        ) {
            if let Expression::Identifier(id) = &u.operand.node {
                self.0.insert(id.node.name.clone());
            }
        }
        visit::visit_unary_operator_expression(self, u, span);
    }
}

impl<'a> Builder<'a> {
    fn loop_ids(&self) -> Vec<usize> {
        self.loops.iter().map(|f| f.span.range.start).collect()
    }

    /// The value of the integer variable `array` (a model name) at the current point,
    /// when it is known (above).
    pub(super) fn known_value(&self, array: &str) -> Option<LinExpr> {
        let k = self.generated.as_ref()?.known.get(array)?;
        let here = self.loop_ids();
        if !here.starts_with(&k.loops) {
            return None;
        }
        let n = k.loops.len();
        let ctx = self.ctx.project_out(n, here.len() - n);
        ctx.is_subset(&k.domain).then(|| k.value.clone())
    }

    /// A statement writes the variables of `acc`'s writes: their values are forgotten.
    pub(super) fn forget_written(&mut self, acc: &[Access]) {
        if let Some(l) = &mut self.generated {
            for a in acc.iter().filter(|a| a.kind == AccessKind::Write) {
                l.known.remove(&a.array);
            }
        }
    }

    /// After the statement `e`: when it is `x = v`, with `x` an integer variable of the
    /// region and `v` affine, `x` holds `v`.
    pub(super) fn note_assignment(&mut self, e: &Node<Expression>) -> R<()> {
        if self.generated.is_none() {
            return Ok(());
        }
        let Expression::BinaryOperator(b) = &e.node else {
            return Ok(());
        };
        if b.node.operator.node != BinaryOperator::Assign {
            return Ok(());
        }
        let Expression::Identifier(id) = &b.node.lhs.node else {
            return Ok(());
        };
        self.note_value(&id.node.name, &b.node.rhs)
    }

    /// `name = value` was just walked: `name` holds `value` where it is an integer
    /// variable of the region and `value` one affine piece.
    pub(super) fn note_value(&mut self, name: &str, value: &Node<Expression>) -> R<()> {
        if self.generated.is_none() {
            return Ok(());
        }
        let Some(Binding::Local { array, rank: 0, .. }) = self.lookup(name).cloned() else {
            return Ok(());
        };
        let integer = self
            .local_types
            .get(&array)
            .is_some_and(|t| integer_type(t));
        if !integer {
            return Ok(());
        }
        let v = match self.aff(value, false)? {
            Ok(p) => p,
            Err(_) => return Ok(()),
        };
        if let [Piece { cond: None, expr }] = v.as_slice() {
            let known = Known {
                value: expr.clone(),
                loops: self.loop_ids(),
                domain: self.ctx.clone(),
            };
            if let Some(l) = &mut self.generated {
                l.known.insert(array, known);
            }
        }
        Ok(())
    }

    /// Before a loop's body: the variables it assigns are not known in it.
    pub(super) fn forget_assigned(&mut self, body: &Node<Statement>) {
        if self.generated.is_none() {
            return;
        }
        let mut a = Assigned::default();
        a.visit_statement(&body.node, &body.span);
        let arrays: Vec<String> =
            a.0.iter()
                .filter_map(|n| match self.lookup(n) {
                    Some(Binding::Local { array, .. }) => Some(array.clone()),
                    _ => None,
                })
                .collect();
        if let Some(l) = &mut self.generated {
            for x in arrays {
                l.known.remove(&x);
            }
        }
    }
}

/// Whether the words of a type are a builtin integer type's.
fn integer_type(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    !words.is_empty()
        && words.iter().all(|w| {
            matches!(
                *w,
                "int" | "long" | "short" | "signed" | "unsigned" | "char" | "const"
            )
        })
}
