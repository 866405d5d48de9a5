//! Opaque constructs: what cannot be modelled exactly, over-approximated.

use super::*;

impl<'a> Builder<'a> {
    /// One statement standing for a whole construct that is not modelled.
    pub(super) fn opaque_construct(&mut self, s: &Node<Statement>, why: String) -> R<()> {
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

    pub(super) fn opaque_stmt(&mut self, s: &Node<Statement>) -> R<()> {
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

    pub(super) fn opaque_for(&mut self, f: &ForStatement, state: Opaque) -> R<()> {
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
}
