//! Loops: bounds, steps and strides of modelled `for` loops.

use super::*;

/// Where a loop's counter starts.
enum Start<'f> {
    /// At the value of the initializer.
    Value(&'f Node<Expression>),
    /// At the value the loop just before left in it.
    Continues(Left),
}

/// Whether expression `e` names the identifier `name` anywhere.
fn mentions(e: &Node<Expression>, name: &str) -> bool {
    struct Finds<'n>(&'n str, bool);
    impl<'ast> lang_c::visit::Visit<'ast> for Finds<'_> {
        fn visit_identifier(
            &mut self,
            id: &'ast lang_c::ast::Identifier,
            _: &'ast lang_c::span::Span,
        ) {
            self.1 |= id.name == self.0;
        }
    }
    let mut f = Finds(name, false);
    lang_c::visit::Visit::visit_expression(&mut f, &e.node, &e.span);
    f.1
}

impl<'a> Builder<'a> {
    /// Models a `for` loop and walks its body, or says why it cannot be modelled (then
    /// nothing has changed). `left`: what the loop just before it left in its counter, for
    /// a loop that continues from there. Returns what this loop leaves in its counter, when
    /// the counter is declared outside it.
    pub(super) fn for_loop(
        &mut self,
        f: &ForStatement,
        s: &Node<Statement>,
        left: Option<Left>,
    ) -> Affine<Option<Left>> {
        // The counter and its first value.
        let (c_name, start, declared) = match self.loop_counter(f, left) {
            Ok(c) => c,
            Err(why) => return Ok(Err(why)),
        };
        let outer_counter = match self.outer_counter(f, &c_name, declared)? {
            Ok(o) => o,
            Err(why) => return Ok(Err(why)),
        };
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
        // A minimum, maximum or rounded division (generated code's first values) is read
        // as the comparison `i >= first` (`<=` counting down), like a division.
        let shaped = matches!(&start, Start::Value(init)
            if step.abs().is_one() && self.shaped(init) && !mentions(init, &c_name));
        let (init_pw, divided) = match &start {
            Start::Value(_) if shaped => (vec![], true),
            Start::Value(init) => match self.aff(init, true)? {
                Ok(p) => (p, false),
                Err(why) => match self.divided_start(init, &step)? {
                    Ok(p) => (p, true),
                    Err(_) => return Ok(Err(format!("the initial value is not affine: {why}"))),
                },
            },
            Start::Continues(l) => {
                if !step.abs().is_one() || step.is_positive() != l.up {
                    return Ok(Err(format!(
                        "the loop continues from the value `{c_name}` was left with, but its step is not one in the earlier loop's direction"
                    )));
                }
                (vec![], false)
            }
        };
        // A start with divisions, or from the value an earlier loop left, has no one affine
        // first value.
        let first: PwAff = if divided { vec![] } else { init_pw.clone() };
        let iterator = self.enter_loop(f, s, &c_name, &step, &first, outer_counter);
        let leave = |b: &mut Self| {
            b.loops.pop();
            b.scopes.pop();
        };
        let from = match &start {
            Start::Value(init) if shaped => Some(*init),
            _ => None,
        };
        let (cond_set, fail_set, from) = match self.loop_sets(cond, from, &iterator, &step) {
            Ok(Ok(sets)) => sets,
            Ok(Err(why)) => {
                leave(self);
                return Ok(Err(why));
            }
            Err(d) => {
                leave(self);
                return Err(d);
            }
        };
        let lower = match &start {
            Start::Continues(l) => self.iterations_after(l, &iterator),
            Start::Value(_) if shaped => aff::add_dim(&self.ctx, &iterator).intersect(&from),
            Start::Value(_) if divided => self.iterations_from_divided(&init_pw, &iterator, &step),
            Start::Value(_) => self.iterations_from(&init_pw, &iterator, &step),
        };
        let up = step.is_positive();
        if !self.stays_false(&lower, (&cond_set, &fail_set), &iterator, up) {
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
        self.forget_assigned(&f.statement);
        let r = self.stmt(&f.statement);
        self.next.pop();
        self.path.pop();
        self.ctx = saved;
        leave(self);
        r?;
        // A counter declared outside keeps the first value the condition refuses.
        Ok(Ok((!declared).then(|| Left {
            c_name,
            outer: self.dims(),
            past: lower.intersect(&fail_set),
            up: step.is_positive(),
        })))
    }

    /// Where a loop's condition holds, where it fails (built directly: subtracting a
    /// condition's quotients is costly, as in the `floord` bounds of generated
    /// wavefronts), and, for a first value `from` that is a minimum, maximum or rounded
    /// division ([`Builder::shaped`]), the comparison `i >= from` (`<=` counting down);
    /// the universe without one.
    fn loop_sets(
        &mut self,
        cond: &Node<Expression>,
        from: Option<&Node<Expression>>,
        iterator: &str,
        step: &Int,
    ) -> Affine<(Set, Set, Set)> {
        use super::affine::Operand::{Node, Value};
        let not_affine = |what: &str, why: String| Ok(Err(format!("{what} is not affine: {why}")));
        let cond_set = match self.condition(cond, true)? {
            Ok(c) => c,
            Err(why) => return not_affine("the condition", why),
        };
        let fail_set = match self.negation(cond, true)? {
            Ok(c) => c,
            Err(why) => return not_affine("the condition", why),
        };
        let Some(init) = from else {
            return Ok(Ok((cond_set, fail_set, self.universe())));
        };
        let i = vec![Piece {
            cond: None,
            expr: LinExpr::var(iterator),
        }];
        let op = match step.is_positive() {
            true => BinaryOperator::GreaterOrEqual,
            false => BinaryOperator::LessOrEqual,
        };
        match self.compare_nodes(Value(i), &op, Node(init), true)? {
            Ok(from) => Ok(Ok((cond_set, fail_set, from))),
            Err(why) => not_affine("the initial value", why),
        }
    }

    /// The iterations of a loop that continues from the value an earlier loop left in its
    /// counter: from the first value the earlier loop's condition refused on (in its
    /// direction), `left.past`'s first.
    fn iterations_after(&self, left: &Left, iterator: &str) -> Set {
        let dims = self.dims();
        let n = dims.len() - 1;
        let taken = |x: &str| dims.iter().any(|d| d == x);
        let at = self.fresh(&format!("{iterator}_left"), taken);
        let mut with_at = dims[..n].to_vec();
        with_at.push(at.clone());
        let name = left.past.tuple().name.clone();
        let past = left.past.clone().with_tuple(Tuple {
            name,
            dims: with_at.clone(),
        });
        with_at.push(iterator.to_string());
        let (i, v) = (LinExpr::var(iterator), LinExpr::var(&at));
        let from = if left.up { i.sub(&v) } else { v.sub(&i) };
        aff::add_dim(&past, iterator)
            .intersect(&aff::set_from(&with_at, &[], &[from]))
            .project_out(n, 1)
            .intersect(&aff::add_dim(&self.ctx, iterator))
    }

    /// The loop's counter, its first value and whether the loop declares it; or why the
    /// initializer is not `i = …` / `int i = …`, nor empty right after a loop that left a
    /// value in the counter (`left`).
    fn loop_counter<'f>(
        &self,
        f: &'f ForStatement,
        left: Option<Left>,
    ) -> Result<(String, Start<'f>, bool), String> {
        if let ForInitializer::Empty = &f.initializer.node {
            return match left {
                Some(l) if l.outer == self.dims() => Ok((l.c_name.clone(), Start::Continues(l), false)),
                _ => Err("the loop has no first value (and does not follow a loop that counts with the same variable)".into()),
            };
        }
        let (c_name, init, declared) = self.counter_and_value(f)?;
        Ok((c_name, Start::Value(init), declared))
    }

    /// The counter and first value of `i = …` / `int i = …`, and whether the loop declares it.
    fn counter_and_value<'f>(
        &self,
        f: &'f ForStatement,
    ) -> Result<(String, &'f Node<Expression>, bool), String> {
        match &f.initializer.node {
            ForInitializer::Expression(e) => match &e.node {
                Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Assign => {
                    match &b.node.lhs.node {
                        Expression::Identifier(id) => {
                            Ok((id.node.name.clone(), &*b.node.rhs, false))
                        }
                        _ => Err("the loop does not start with `i = …`".into()),
                    }
                }
                _ => Err("the loop does not start with `i = …`".into()),
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
                                return Err(format!("the counter `{n}` is not an integer"));
                            }
                            match &init.node {
                                Initializer::Expression(e) => Ok((n, &**e, true)),
                                _ => Err("the loop does not start with `i = …`".into()),
                            }
                        }
                        _ => Err("the loop does not start with `int i = …`".into()),
                    },
                    _ => Err("the loop declares several variables".into()),
                }
            }
            _ => Err("the loop does not start with `i = …`".into()),
        }
    }

    /// Whether the (not `declared`) counter is a signed integer of the enclosing code;
    /// refuses the counter of an enclosing loop, and counters that are not integers.
    fn outer_counter(&self, f: &ForStatement, c_name: &str, declared: bool) -> Affine<bool> {
        let mut outer_counter = false;
        // Writing the counter of an enclosing loop is never modelled.
        if !declared {
            match self.lookup(c_name) {
                Some(Binding::Iter(_)) => {
                    let d = self.iterator_write(c_name, &f.initializer.span);
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
                    if let Some(info) = self.syms.get(c_name) {
                        if info.rank > 0 || !matches!(info.class, TypeClass::Integer { .. }) {
                            return Ok(Err(format!("the counter `{c_name}` is not an integer")));
                        }
                        outer_counter = info.class == TypeClass::Integer { unsigned: false };
                    }
                }
                _ => {}
            }
        }
        Ok(Ok(outer_counter))
    }

    /// Enters the loop: the counter is now an iterator (returned), with a frame of its own.
    fn enter_loop(
        &mut self,
        f: &ForStatement,
        s: &Node<Statement>,
        c_name: &str,
        step: &Int,
        init_pw: &PwAff,
        outer_counter: bool,
    ) -> String {
        let outer_dims = self.dims();
        let iterator = if outer_dims.iter().any(|d| d == c_name) {
            self.fresh(c_name, |n| outer_dims.iter().any(|d| d == n))
        } else {
            c_name.to_string()
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
        self.bind(c_name, Binding::Iter(iterator.clone()));
        self.loops.push(Frame {
            iterator: iterator.clone(),
            c_name: c_name.to_string(),
            step: step.clone(),
            first: match init_pw.as_slice() {
                [Piece { cond: None, expr }] => Some(expr.clone()),
                _ => None,
            },
            span: self.span(&header),
            outer_counter,
            lanes: false,
        });
        iterator
    }

    /// The iterations from the first value on, along the stride.
    fn iterations_from(&self, init_pw: &PwAff, iterator: &str, step: &Int) -> Set {
        let dims = self.dims();
        let i = LinExpr::var(iterator);
        let up = step.is_positive();
        let mut lower: Option<Set> = None;
        for p in init_pw {
            let base = match &p.cond {
                Some(c) => self.ctx.intersect(c),
                None => self.ctx.clone(),
            };
            let from = if up { i.sub(&p.expr) } else { p.expr.sub(&i) };
            let mut s =
                aff::add_dim(&base, iterator).intersect(&aff::set_from(&dims, &[], &[from]));
            if !step.abs().is_one() {
                s = s.intersect(&aff::congruence(&dims, &i.sub(&p.expr), &step.abs()));
            }
            lower = Some(match lower {
                None => s,
                Some(l) => l.union(&s),
            });
        }
        lower.expect("an affine value has a piece")
    }

    /// A first value with truncating divisions by positive constants (the
    /// `loopy_floord`/`loopy_ceild` starts of generated code), read as the operand of a
    /// comparison, where divisions are exact; only for a unit step (the stride of a larger
    /// one from such a start is not affine).
    fn divided_start(&mut self, init: &Node<Expression>, step: &Int) -> Affine<PwAff> {
        if !step.abs().is_one() {
            return Ok(Err("a stride from a division".into()));
        }
        self.in_comparison += 1;
        let r = self.aff(init, true);
        self.in_comparison -= 1;
        r
    }

    /// The iterations from a first value with divisions ([`Self::divided_start`]):
    /// `i >= first` (`i <= first` counting down), a comparison that reads the divisions
    /// exactly.
    fn iterations_from_divided(&self, init_pw: &PwAff, iterator: &str, step: &Int) -> Set {
        let init: PwAff = init_pw
            .iter()
            .map(|p| Piece {
                cond: p.cond.as_ref().map(|c| aff::add_dim(c, iterator)),
                expr: p.expr.clone(),
            })
            .collect();
        let i = vec![Piece {
            cond: None,
            expr: LinExpr::var(iterator),
        }];
        let op = if step.is_positive() {
            BinaryOperator::GreaterOrEqual
        } else {
            BinaryOperator::LessOrEqual
        };
        aff::add_dim(&self.ctx, iterator).intersect(&self.compare(&i, &init, &op))
    }

    /// Whether the condition stays false once it is false (an upper bound for a loop counting
    /// `up`), as it must, or the loop would stop at its first false test where the domain
    /// goes on.
    /// `cond_set` and `fail_set` are where the condition is true and where it is false.
    fn stays_false(
        &self,
        lower: &Set,
        (cond_set, fail_set): (&Set, &Set),
        iterator: &str,
        up: bool,
    ) -> bool {
        let dims = self.dims();
        let i = LinExpr::var(iterator);
        let failing = aff::widen_last(&lower.intersect(fail_set), false);
        let holding = aff::widen_last(&lower.intersect(cond_set), true);
        let later = format!("{iterator}'");
        let mut dims2 = dims.clone();
        dims2.push(later.clone());
        let order = if up {
            LinExpr::var(&later).sub(&i)
        } else {
            i.sub(&LinExpr::var(&later))
        };
        let order = aff::set_from(&dims2, &[], &[order.add_constant(&Int::from(-1))]);
        failing.intersect(&holding).intersect(&order).is_empty()
    }

    /// The constant a step expression adds to the counter.
    pub(super) fn step(&mut self, e: &Expression, c: &str) -> Affine<Int> {
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

    pub(super) fn constant(&mut self, e: &Node<Expression>) -> R<Option<Int>> {
        Ok(self.aff(e, false)?.ok().and_then(|p| constant_of(&p)))
    }

    pub(super) fn iterator_write(&self, name: &str, at: &Span) -> Diagnostic {
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
}
