//! The pre-pass: names the region writes or counts with, found before the walk.

use super::*;

/// Names the region writes or counts with, found before the walk (a name's role must be
/// known before its first use: `n` is only a parameter if nothing in the region writes it).
#[derive(Default)]
pub(super) struct PrePass {
    pub(super) written: HashMap<String, Range<usize>>,
    pub(super) counters: HashSet<String>,
    pub(super) idents: HashSet<String>,
    /// Counters declared by the loop whose step is being visited: the step writes a
    /// variable of that loop only, not the name outside it.
    pub(super) own: Vec<String>,
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
        if is_assignment(&b.operator.node) {
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

/// `=` or a compound assignment (`+=`, `<<=`, …).
pub(crate) fn is_assignment(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(
        op,
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
    )
}
