//! The value each assignment stores, as a tree over its reads (`model::value`), for
//! `loopy equiv`. The reads are numbered as [`Builder::expr`] records them: the tree is
//! walked in the same order and every read it takes is checked to be the access at the
//! same place.

use super::*;
use crate::model::value::{Store, Value};

/// The reads of a statement's accesses, taken in order.
struct Reads<'x> {
    acc: &'x [Access],
    next: usize,
}

impl Reads<'_> {
    /// The next read, which must be at `at`. Reads inside `at` before it (an integer
    /// variable in a subscript) are passed over: the access relation holds their effect.
    fn take(&mut self, at: &SourceSpan) -> Result<usize, String> {
        let inside = |a: &Access| {
            a.span != *at
                && a.span.file == at.file
                && at.range.start <= a.span.range.start
                && a.span.range.end <= at.range.end
        };
        while self.next < self.acc.len()
            && (self.acc[self.next].kind != AccessKind::Read || inside(&self.acc[self.next]))
        {
            self.next += 1;
        }
        let k = self.next;
        match self.acc.get(k) {
            Some(a) if a.span == *at => {
                self.next += 1;
                Ok(k)
            }
            _ => Err("its reads could not be matched with its accesses".into()),
        }
    }
}

/// The write access at `at`: the location an assignment's left-hand side names.
fn write_at(acc: &[Access], at: &SourceSpan) -> Result<usize, String> {
    (0..acc.len())
        .find(|&k| acc[k].kind == AccessKind::Write && acc[k].span == *at)
        .ok_or_else(|| "the statement writes more than one location".into())
}

fn binary_op(op: &BinaryOperator) -> Option<&'static str> {
    use BinaryOperator::*;
    Some(match op {
        Multiply => "*",
        Divide => "/",
        Modulo => "%",
        Plus => "+",
        Minus => "-",
        ShiftLeft => "<<",
        ShiftRight => ">>",
        Less => "<",
        Greater => ">",
        LessOrEqual => "<=",
        GreaterOrEqual => ">=",
        Equals => "==",
        NotEquals => "!=",
        BitwiseAnd => "&",
        BitwiseXor => "^",
        BitwiseOr => "|",
        LogicalAnd => "&&",
        LogicalOr => "||",
        _ => return None,
    })
}

fn compound_op(op: &BinaryOperator) -> Option<&'static str> {
    use BinaryOperator::*;
    Some(match op {
        AssignMultiply => "*",
        AssignDivide => "/",
        AssignModulo => "%",
        AssignPlus => "+",
        AssignMinus => "-",
        AssignShiftLeft => "<<",
        AssignShiftRight => ">>",
        AssignBitwiseAnd => "&",
        AssignBitwiseXor => "^",
        AssignBitwiseOr => "|",
        _ => return None,
    })
}

impl<'a> Builder<'a> {
    /// What an expression statement stores: `L = e` or `L op= e`, with exactly one write,
    /// or a chain of plain assignments (`a1 = a5 = k`) each writing its own location.
    pub(super) fn store_of(&self, e: &Node<Expression>, acc: &[Access]) -> Result<Store, String> {
        let text = self.pre_text(&e.span);
        let Expression::BinaryOperator(b) = &e.node else {
            return Err(format!("`{text}` is not an assignment"));
        };
        let op = &b.node.operator.node;
        let compound = compound_op(op);
        if *op != BinaryOperator::Assign && compound.is_none() {
            return Err(format!("`{text}` is not an assignment"));
        }
        let write = write_at(acc, &self.span(&b.node.lhs.span))?;
        let mut reads = Reads { acc, next: 0 };
        let rhs = self.value(&b.node.rhs, &mut reads)?;
        let value = match compound {
            None => rhs,
            Some(o) => {
                let old = reads.take(&acc[write].span)?;
                Value::Op(o.to_string(), vec![Value::Read(old), rhs])
            }
        };
        let mut inner = vec![];
        value.assigns(&mut inner);
        let mut stored: Vec<usize> = inner.iter().map(|x| x.0).chain([write]).collect();
        stored.sort_unstable();
        stored.dedup();
        let writes: Vec<usize> = (0..acc.len())
            .filter(|&k| acc[k].kind == AccessKind::Write)
            .collect();
        if stored.len() != inner.len() + 1 || stored != writes {
            return Err("the statement writes more than one location".into());
        }
        Ok(Store { write, value })
    }

    /// What a declaration with one initialised declarator stores.
    pub(super) fn store_of_init(
        &self,
        init: &Initializer,
        acc: &[Access],
    ) -> Result<Store, String> {
        let Initializer::Expression(e) = init else {
            return Err("an initializer list".into());
        };
        let writes: Vec<usize> = (0..acc.len())
            .filter(|&k| acc[k].kind == AccessKind::Write)
            .collect();
        let [write] = writes[..] else {
            return Err("the declaration initialises more than one variable".into());
        };
        let mut reads = Reads { acc, next: 0 };
        let value = self.value(e, &mut reads)?;
        Ok(Store { write, value })
    }

    fn value(&self, e: &Node<Expression>, reads: &mut Reads) -> Result<Value, String> {
        let text = || self.pre_text(&e.span);
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Iter(it)) => Ok(Value::Name(it.clone())),
                Some(Binding::OpaqueLocal) => {
                    Err(format!("`{}` is local to an opaque construct", text()))
                }
                _ if self.syms.get(&id.node.name).is_some_and(|v| v.enumerator) => {
                    Ok(Value::Const(id.node.name.clone()))
                }
                _ => reads.take(&self.span(&e.span)).map(Value::Read),
            },
            Expression::Constant(_) => Ok(Value::Const(text())),
            Expression::BinaryOperator(b) => {
                let op = &b.node.operator.node;
                if *op == BinaryOperator::Index {
                    return reads.take(&self.span(&e.span)).map(Value::Read);
                }
                if *op == BinaryOperator::Assign {
                    let w = write_at(reads.acc, &self.span(&b.node.lhs.span))?;
                    let x = self.value(&b.node.rhs, reads)?;
                    return Ok(Value::Assign(w, Box::new(x)));
                }
                let Some(name) = binary_op(op) else {
                    return Err(format!("`{}` assigns inside an expression", text()));
                };
                let l = self.value(&b.node.lhs, reads)?;
                let r = self.value(&b.node.rhs, reads)?;
                Ok(Value::Op(name.into(), vec![l, r]))
            }
            Expression::UnaryOperator(u) => {
                if u.node.operator.node == UnaryOperator::Indirection
                    && self.current_lanes().is_some()
                {
                    // `*(V *)&X[…]`: the lane's element, recorded at the whole expression.
                    return reads.take(&self.span(&e.span)).map(Value::Read);
                }
                let name = match u.node.operator.node {
                    UnaryOperator::Minus => "neg",
                    UnaryOperator::Plus => "pos",
                    UnaryOperator::Negate => "!",
                    UnaryOperator::Complement => "~",
                    _ => return Err(format!("`{}` has a side effect or an address", text())),
                };
                let x = self.value(&u.node.operand, reads)?;
                Ok(Value::Op(name.into(), vec![x]))
            }
            // `(V){X[…], …}`: the lane's element, recorded at the whole expression.
            Expression::CompoundLiteral(_) if self.current_lanes().is_some() => {
                reads.take(&self.span(&e.span)).map(Value::Read)
            }
            Expression::Cast(c) => {
                let ty = normalize(&self.pre_text(&c.node.type_name.span));
                let x = self.value(&c.node.expression, reads)?;
                Ok(Value::Op(format!("cast {ty}"), vec![x]))
            }
            Expression::Conditional(c) => {
                let k = self.value(&c.node.condition, reads)?;
                let t = self.value(&c.node.then_expression, reads)?;
                let f = self.value(&c.node.else_expression, reads)?;
                Ok(Value::Op("?:".into(), vec![k, t, f]))
            }
            Expression::Call(c) => {
                let Expression::Identifier(f) = &c.node.callee.node else {
                    return Err(format!("`{}` calls through a pointer", text()));
                };
                let mut args = vec![];
                for a in &c.node.arguments {
                    args.push(self.value(a, reads)?);
                }
                Ok(Value::Op(format!("call {}", f.node.name), args))
            }
            _ => Err(format!("`{}` is not an arithmetic expression", text())),
        }
    }
}
