//! Associative updates: statements of the form `x op= e`, `x = x op e`, `x = fmin(x, e)`,
//! recorded so that a `parallel` mark with a reduction can be verified.

use super::*;
use crate::model::state::RedOp;
use crate::model::Update;

/// The text of an expression without white space, for comparing two lvalues.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

impl<'a> Builder<'a> {
    /// The update an expression statement performs, if it is an associative update of one
    /// location: syntactically `L op= e` or `L = L op e` (`L = e op L`; `L -= e` and
    /// `L = L - e` as `+`, since `x − e` is `x + (−e)`, but never `L = e - L`), or
    /// `L = fmin(L, e)` and friends, and over its accesses exactly one write, exact, whose
    /// array is otherwise only read: by exactly one exact read of the same element, and by
    /// reads of other elements (`e` may read other elements of the array).
    pub(super) fn update_of(&self, e: &Node<Expression>, acc: &[Access]) -> Option<Update> {
        use BinaryOperator as B;
        let Expression::BinaryOperator(b) = &e.node else {
            return None;
        };
        let lhs = &b.node.lhs;
        let same = |x: &Node<Expression>| {
            squeeze(&self.pre_text(&x.span)) == squeeze(&self.pre_text(&lhs.span))
        };
        let op = match b.node.operator.node {
            B::AssignPlus | B::AssignMinus => RedOp::Add,
            B::AssignMultiply => RedOp::Mul,
            B::Assign => match &b.node.rhs.node {
                Expression::BinaryOperator(r) => match r.node.operator.node {
                    B::Plus if same(&r.node.lhs) || same(&r.node.rhs) => RedOp::Add,
                    B::Minus if same(&r.node.lhs) => RedOp::Add,
                    B::Multiply if same(&r.node.lhs) || same(&r.node.rhs) => RedOp::Mul,
                    _ => return None,
                },
                Expression::Call(c) => {
                    let Expression::Identifier(f) = &c.node.callee.node else {
                        return None;
                    };
                    let op = match f.node.name.as_str() {
                        "fmin" | "fminf" | "fminl" => RedOp::Min,
                        "fmax" | "fmaxf" | "fmaxl" => RedOp::Max,
                        _ => return None,
                    };
                    match &c.node.arguments[..] {
                        [x, y] if same(x) || same(y) => op,
                        _ => return None,
                    }
                }
                _ => return None,
            },
            _ => return None,
        };
        let mut writes = acc.iter().filter(|a| a.kind == AccessKind::Write);
        let (Some(w), None) = (writes.next(), writes.next()) else {
            return None;
        };
        // The other accesses to the array: all reads, exactly one of them of the element
        // written (the update's own read). Reads of other elements (`B[k][j]` in
        // `B[i][j] += A[k][i] * B[k][j]`) are allowed here; the verifier judges them element
        // by element against what a marked loop updates.
        let others: Vec<&Access> = acc
            .iter()
            .filter(|a| a.array == w.array && !std::ptr::eq(*a, w))
            .collect();
        if !w.exact || others.iter().any(|a| a.kind != AccessKind::Read) {
            return None;
        }
        let mut same = others.iter().filter(|a| a.relation.is_equal(&w.relation));
        let (Some(r), None) = (same.next(), same.next()) else {
            return None;
        };
        r.exact.then(|| Update {
            op,
            array: w.array.clone(),
        })
    }
}
