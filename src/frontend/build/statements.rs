//! Blocks, statements and the tags of loop components.

use super::*;
use crate::diag::codes;

impl<'a> Builder<'a> {
    /// The region's items (its own block is not a loop component: no first-label rule).
    pub fn region(&mut self, items: &[Node<BlockItem>]) -> R<()> {
        self.block(items, None)
    }

    /// A `{ }` block; `span` is `None` for the region's own items.
    pub(super) fn block(&mut self, items: &[Node<BlockItem>], span: Option<&Span>) -> R<()> {
        self.scopes.push(HashMap::new());
        let r = self.block_items(items, span);
        self.scopes.pop();
        r
    }

    pub(super) fn block_items(&mut self, items: &[Node<BlockItem>], span: Option<&Span>) -> R<()> {
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
                BlockItem::Declaration(d) => {
                    self.left = None;
                    self.declaration(d)?
                }
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

    pub(super) fn add_tag(
        &mut self,
        name: String,
        label: &Span,
        kind: TagKind,
        start: usize,
        depth: usize,
    ) -> R<()> {
        let span = self.span(label);
        if let Some(prev) = self.tags.iter().find(|t| t.name == name) {
            let d = Diagnostic::new(
                codes::DUPLICATE_TAG,
                format!("the tag `{name}` is defined twice"),
            );
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

    pub(super) fn stmt(&mut self, s: &Node<Statement>) -> R<()> {
        // What a loop left in its counter reaches the next statement only (through a
        // label to the statement it labels).
        if matches!(s.node, Statement::Labeled(_)) {
            return self.stmt_kind(s, None);
        }
        let left = self.left.take();
        let r = self.stmt_kind(s, left);
        if !matches!(s.node, Statement::For(_)) {
            self.left = None;
        }
        r
    }

    fn stmt_kind(&mut self, s: &Node<Statement>, left: Option<Left>) -> R<()> {
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
            Statement::Expression(Some(e)) if self.is_free(e) => Ok(()),
            Statement::Expression(Some(e)) => match self.statement_lanes(e) {
                Some(lanes) => {
                    self.in_lanes(lanes, &s.span, |b| b.expression_statement(e, &s.span))
                }
                None => self.expression_statement(e, &s.span),
            },
            Statement::If(i) if self.stopping_check(i, s)? => Ok(()),
            Statement::If(i) => match self.condition(&i.node.condition, false)? {
                Ok(cond) => {
                    let saved = self.ctx.clone();
                    self.ctx = saved.intersect(&cond);
                    let r = self.stmt(&i.node.then_statement);
                    if r.is_ok() {
                        if let Some(e) = &i.node.else_statement {
                            let no = match self.negation(&i.node.condition, false)? {
                                Ok(no) => no,
                                Err(_) => self.complement(&cond),
                            };
                            self.ctx = saved.intersect(&no);
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
            Statement::For(f) => match self.for_loop(&f.node, s, left)? {
                Ok(left) => {
                    self.left = left;
                    Ok(())
                }
                Err(why) => {
                    self.left = None;
                    self.opaque_construct(s, why)
                }
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

    pub(super) fn jump_error(&self, s: &Node<Statement>) -> Diagnostic {
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
    /// An expression statement: its accesses, and what it stores.
    fn expression_statement(&mut self, e: &Node<Expression>, span: &Span) -> R<()> {
        let mut acc = vec![];
        self.expr(e, Mode::Read, &mut acc)?;
        let update = self.update_of(e, &acc);
        let mut store = self.store_of(e, &acc);
        if self.current_lanes().is_some() {
            store = store.and_then(|st| self.lane_store(st, &acc));
        }
        self.push_statement(span, acc, None);
        if let Some(st) = self.stmts.last_mut() {
            st.update = update;
            st.store = store;
        }
        self.note_assignment(e)
    }

    pub(super) fn push_statement(
        &mut self,
        span: &Span,
        accesses: Vec<Access>,
        opaque: Option<String>,
    ) {
        self.forget_written(&accesses);
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
                lanes: f.lanes,
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
            update: None,
            store: Err("not an assignment".into()),
        });
    }
}
