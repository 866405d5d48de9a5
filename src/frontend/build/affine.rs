//! Affine expressions, conditions and comparisons.

use super::*;
use lang_c::ast::{BinaryOperatorExpression, CastExpression, ConditionalExpression, Identifier};

/// One affine piece, everywhere.
fn one(x: LinExpr) -> Affine<PwAff> {
    Ok(Ok(vec![Piece {
        cond: None,
        expr: x,
    }]))
}

/// Not affine, for the reason given.
fn not(why: String) -> Affine<PwAff> {
    Ok(Err(why))
}

/// A side of a comparison: an expression of the source, or a value already read.
#[derive(Clone)]
pub(super) enum Operand<'e> {
    Node(&'e Node<Expression>),
    Value(PwAff),
}

/// `text` without the parentheses that enclose all of it (a node's span can take them).
fn unparenthesized(mut text: &str) -> &str {
    loop {
        let t = text.trim();
        let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) else {
            return t;
        };
        // `(a) + (b)` starts and ends with parentheses that do not enclose it all.
        let mut depth = 0i32;
        for c in inner.chars() {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            if depth < 0 {
                return t;
            }
        }
        text = inner;
    }
}

/// The comparison true exactly where `op` is false.
fn opposite(op: &BinaryOperator) -> BinaryOperator {
    use BinaryOperator::*;
    match op {
        Less => GreaterOrEqual,
        GreaterOrEqual => Less,
        Greater => LessOrEqual,
        LessOrEqual => Greater,
        Equals => NotEquals,
        NotEquals => Equals,
        other => other.clone(),
    }
}

impl<'a> Builder<'a> {
    /// An integer expression as an affine function of the iterators and parameters.
    /// `bound` is set for loop bounds, where a variable the region writes is an error rather
    /// than an approximation.
    pub(super) fn aff(&mut self, e: &Node<Expression>, bound: bool) -> Affine<PwAff> {
        match &e.node {
            Expression::Constant(c) => self.aff_constant(e, c),
            Expression::Identifier(id) => self.aff_identifier(e, id, bound),
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
            Expression::Cast(c) => self.aff_cast(e, c, bound),
            Expression::BinaryOperator(b) if b.node.operator.node != BinaryOperator::Index => {
                self.aff_binary(e, b, bound)
            }
            Expression::Conditional(c) => self.aff_conditional(c, bound),
            Expression::BinaryOperator(_) => {
                not(format!("`{}` reads an array", self.pre_text(&e.span)))
            }
            Expression::Call(_) => not(format!("`{}` calls a function", self.pre_text(&e.span))),
            _ => not(format!("`{}` is not affine", self.pre_text(&e.span))),
        }
    }

    /// A constant `c` (the expression `e`): an integer or a plain character.
    fn aff_constant(&self, e: &Node<Expression>, c: &Node<Constant>) -> Affine<PwAff> {
        match &c.node {
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
        }
    }

    /// A variable (the expression `e`): an iterator, or an integer the region does not write,
    /// which becomes a parameter.
    fn aff_identifier(
        &mut self,
        e: &Node<Expression>,
        id: &Node<Identifier>,
        bound: bool,
    ) -> Affine<PwAff> {
        let name = &id.node.name;
        match self.lookup(name) {
            Some(Binding::Iter(m)) => return one(LinExpr::var(m)),
            Some(Binding::Local { array, .. }) => {
                return match self.known_value(array) {
                    Some(v) => one(v),
                    None => not(format!("`{name}` is computed inside the region")),
                }
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

    /// A cast (the expression `e`): affine when to an integer type.
    fn aff_cast(
        &mut self,
        e: &Node<Expression>,
        c: &Node<CastExpression>,
        bound: bool,
    ) -> Affine<PwAff> {
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

    /// A binary operation other than indexing (the expression `e`): sums, products and shifts
    /// by constants, divisions of constants.
    fn aff_binary(
        &mut self,
        e: &Node<Expression>,
        b: &Node<BinaryOperatorExpression>,
        bound: bool,
    ) -> Affine<PwAff> {
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
            // C division truncates towards zero; only constants are folded, except in the
            // operands of a comparison (quotients, below).
            _ if lc.is_none()
                && (self.in_comparison > 0 || self.in_subscript())
                && rc.as_ref().is_some_and(|d| d.is_positive()) =>
            {
                let d = rc.unwrap_or(Int::ONE);
                Ok(self.truncating(&l, &d, op == BinaryOperator::Divide))
            }
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

    /// `c ? t : f`: the pieces of `t` where `c` holds and those of `f` where it does not.
    fn aff_conditional(&mut self, c: &Node<ConditionalExpression>, bound: bool) -> Affine<PwAff> {
        if self.in_comparison > 0 || self.in_subscript() {
            if let Some((ceil, n, d)) = self.rounded_division(c) {
                let num = match self.aff(n, bound)? {
                    Ok(v) => v,
                    Err(w) => return not(w),
                };
                return Ok(self.rounded(&num, &d, ceil));
            }
        }
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
        let no = match self.negation(&c.node.condition, bound)? {
            Ok(s) => s,
            Err(w) => return not(w),
        };
        let (yes, no) = (Some(cond), Some(no));
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

    /// A condition as a set over the current iterators (`bound`: see [`Builder::aff`]).
    pub(super) fn condition(&mut self, e: &Node<Expression>, bound: bool) -> Affine<Set> {
        self.condition_as(e, bound, true)
    }

    /// Where a condition is false, built as directly as where it is true: a comparison by
    /// the opposite comparison, `&&` and `||` by De Morgan. The expressions are total (a
    /// conditional's pieces cover both branches, a division's both signs), so this is
    /// exactly the complement of [`Builder::condition`], without subtracting a set whose
    /// quotients (`floord` in a generated bound) make the subtraction costly.
    pub(super) fn negation(&mut self, e: &Node<Expression>, bound: bool) -> Affine<Set> {
        self.condition_as(e, bound, false)
    }

    /// Where condition `e` has the truth value `want`.
    fn condition_as(&mut self, e: &Node<Expression>, bound: bool, want: bool) -> Affine<Set> {
        use BinaryOperator::*;
        match &e.node {
            Expression::BinaryOperator(b) => {
                let op = b.node.operator.node.clone();
                match op {
                    LogicalAnd | LogicalOr => {
                        let l = match self.condition_as(&b.node.lhs, bound, want)? {
                            Ok(l) => l,
                            Err(w) => return Ok(Err(w)),
                        };
                        let r = match self.condition_as(&b.node.rhs, bound, want)? {
                            Ok(r) => r,
                            Err(w) => return Ok(Err(w)),
                        };
                        // `a && b` is true where both are, false where either is false.
                        Ok(Ok(if (op == LogicalAnd) == want {
                            l.intersect(&r)
                        } else {
                            l.union(&r)
                        }))
                    }
                    Less | Greater | LessOrEqual | GreaterOrEqual | Equals | NotEquals => {
                        if matches!(op, Equals | NotEquals) {
                            if let Some(s) = self.divisibility(&b.node.lhs, &b.node.rhs)? {
                                let divides = (op == Equals) == want;
                                return Ok(Ok(if divides { s } else { self.complement(&s) }));
                            }
                        }
                        let op = if want { op } else { opposite(&op) };
                        let (l, r) = (Operand::Node(&b.node.lhs), Operand::Node(&b.node.rhs));
                        self.compare_nodes(l, &op, r, bound)
                    }
                    _ => self.truth(e, bound, want),
                }
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                self.condition_as(&u.node.operand, bound, !want)
            }
            _ => self.truth(e, bound, want),
        }
    }

    /// The comparison `l op r` of two C expressions as a set. A side that is a minimum or
    /// a maximum (`x < y ? x : y`, as `loopy_min` and `loopy_max` expand) is compared
    /// operand by operand: `i <= min(x, y)` is `i <= x && i <= y`, `i <= max(x, y)` is
    /// `i <= x || i <= y`. The same set as comparing the conditional's pieces, without
    /// the pieces' condition `x < y`, whose quotients (two `floord` bounds compared) need
    /// existentials that later tests pay for.
    pub(super) fn compare_nodes<'e>(
        &mut self,
        l: Operand<'e>,
        op: &BinaryOperator,
        r: Operand<'e>,
        bound: bool,
    ) -> Affine<Set> {
        use BinaryOperator::*;
        let ordering = matches!(op, Less | LessOrEqual | Greater | GreaterOrEqual);
        fn extremum<'e>(
            b: &Builder,
            o: &Operand<'e>,
            ordering: bool,
        ) -> Option<(bool, &'e Node<Expression>, &'e Node<Expression>)> {
            match o {
                Operand::Node(e) if ordering => b.extremum(e),
                _ => None,
            }
        }
        if let Some((min, x, y)) = extremum(self, &r, ordering) {
            let below = matches!(op, Less | LessOrEqual);
            let a = match self.compare_nodes(l.clone(), op, Operand::Node(x), bound)? {
                Ok(a) => a,
                Err(w) => return Ok(Err(w)),
            };
            let b = match self.compare_nodes(l, op, Operand::Node(y), bound)? {
                Ok(b) => b,
                Err(w) => return Ok(Err(w)),
            };
            // Below a minimum or above a maximum: both; else either.
            return Ok(Ok(if min == below {
                a.intersect(&b)
            } else {
                a.union(&b)
            }));
        }
        if extremum(self, &l, ordering).is_some() {
            let flipped = match op {
                Less => Greater,
                LessOrEqual => GreaterOrEqual,
                Greater => Less,
                _ => LessOrEqual,
            };
            return self.compare_nodes(r, &flipped, l, bound);
        }
        self.in_comparison += 1;
        let lv = self.operand(l, bound);
        let rv = self.operand(r, bound);
        self.in_comparison -= 1;
        let lv = match lv? {
            Ok(x) => x,
            Err(w) => return Ok(Err(w)),
        };
        let rv = match rv? {
            Ok(x) => x,
            Err(w) => return Ok(Err(w)),
        };
        Ok(Ok(self.compare(&lv, &rv, op)))
    }

    fn operand(&mut self, o: Operand, bound: bool) -> Affine<PwAff> {
        match o {
            Operand::Node(e) => self.aff(e, bound),
            Operand::Value(v) => Ok(Ok(v)),
        }
    }

    /// Whether `e` is a minimum or maximum, or a rounded division, as generated code
    /// writes them ([`Builder::compare_nodes`] reads it better than its pieces).
    pub(super) fn shaped(&self, e: &Node<Expression>) -> bool {
        self.extremum(e).is_some()
            || matches!(&e.node, Expression::Conditional(c) if self.rounded_division(c).is_some())
    }

    /// `(true, x, y)` when `e` is the minimum of `x` and `y` written as a conditional
    /// (`x < y ? x : y`, `x <= y ? x : y`, `y > x ? x : y`, …), `(false, x, y)` for the
    /// maximum; the branches must be the compared expressions, word for word.
    fn extremum<'e>(
        &self,
        e: &'e Node<Expression>,
    ) -> Option<(bool, &'e Node<Expression>, &'e Node<Expression>)> {
        use BinaryOperator::*;
        let Expression::Conditional(c) = &e.node else {
            return None;
        };
        let Expression::BinaryOperator(b) = &c.node.condition.node else {
            return None;
        };
        let less = match b.node.operator.node {
            Less | LessOrEqual => true,
            Greater | GreaterOrEqual => false,
            _ => return None,
        };
        let text = |x: &Node<Expression>| unparenthesized(&self.pre_text(&x.span)).to_string();
        let (x, y) = (&b.node.lhs, &b.node.rhs);
        let (t, f) = (&c.node.then_expression, &c.node.else_expression);
        if text(t) == text(x) && text(f) == text(y) {
            Some((less, x, y))
        } else if text(t) == text(y) && text(f) == text(x) {
            Some((!less, x, y))
        } else {
            None
        }
    }

    /// `(false, n, d)` where `c` is the rounding-down division of `n` by a positive
    /// constant `d` as `loopy_floord` expands (`n < 0 ? -((-n + d - 1) / d) : n / d`),
    /// `(true, n, d)` for `loopy_ceild`'s rounding up (`n < 0 ? -(-n / d) : (n + d - 1) /
    /// d`); the repeated operands must be the same words.
    fn rounded_division<'e>(
        &self,
        c: &'e Node<ConditionalExpression>,
    ) -> Option<(bool, &'e Node<Expression>, Int)> {
        use BinaryOperator::*;
        let text = |x: &Node<Expression>| unparenthesized(&self.pre_text(&x.span)).to_string();
        let bin = |x: &'e Node<Expression>, op: BinaryOperator| match &x.node {
            Expression::BinaryOperator(b) if b.node.operator.node == op => {
                Some((&*b.node.lhs, &*b.node.rhs))
            }
            _ => None,
        };
        let neg = |x: &'e Node<Expression>| match &x.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Minus => {
                Some(&*u.node.operand)
            }
            _ => None,
        };
        // `n + d - 1`, whose `n` is returned.
        let up = |x: &'e Node<Expression>, d: &str| {
            let (sum, one) = bin(x, Minus)?;
            let (m, dd) = bin(sum, Plus)?;
            (text(one) == "1" && text(dd) == d).then_some(m)
        };
        let (n, zero) = bin(&c.node.condition, Less)?;
        let (high, d) = bin(&c.node.else_expression, Divide)?;
        let (low, d2) = bin(neg(&c.node.then_expression)?, Divide)?;
        let dt = text(d);
        let k: i64 = dt.parse().ok()?;
        if text(zero) != "0" || k <= 0 || text(d2) != dt {
            return None;
        }
        let nt = text(n);
        let same = |x: Option<&Node<Expression>>| x.is_some_and(|x| text(x) == nt);
        if same(Some(high)) && same(up(low, &dt).and_then(neg)) {
            return Some((false, n, Int::from(k)));
        }
        if same(neg(low)) && same(up(high, &dt)) {
            return Some((true, n, Int::from(k)));
        }
        None
    }

    /// `floor(num / d)`, or `ceil(num / d)` (`-floor(-num / d)`), as one quotient per piece:
    /// exact for every sign, so no piece per sign as C's truncating division needs.
    fn rounded(&mut self, num: &PwAff, d: &Int, ceil: bool) -> Result<PwAff, String> {
        let mut out = vec![];
        for p in num {
            if self
                .quotients
                .iter()
                .any(|(q, _, _)| !p.expr.coeff(q).is_zero())
            {
                return Err("a division of a quotient".into());
            }
            let n = if ceil { p.expr.neg() } else { p.expr.clone() };
            let q = LinExpr::var(&self.quotient(&n, d));
            out.push(Piece {
                cond: p.cond.clone(),
                expr: if ceil { q.neg() } else { q },
            });
        }
        Ok(out)
    }

    /// The name of the quotient `floor(num / d)`: one per numerator and divisor in
    /// generated code (`j / 16` and `j % 16` share theirs, so that the access needs no
    /// existential), a new one otherwise.
    fn quotient(&mut self, num: &LinExpr, d: &Int) -> String {
        let generated = self.generated.is_some();
        let same = self
            .quotients
            .iter()
            .find(|(_, n, e)| generated && n == num && e == d)
            .map(|x| x.0.clone());
        same.unwrap_or_else(|| {
            let name = format!("q{}'", self.quotients.len());
            self.quotients.push((name.clone(), num.clone(), d.clone()));
            name
        })
    }

    /// `e % k == 0` (either way round) as the set where `k` divides `e`. C's `%` truncates,
    /// but whether the remainder is zero does not depend on the rounding, so this one use
    /// of `%` is affine (Presburger) for any sign of `e`.
    pub(super) fn divisibility(
        &mut self,
        a: &Node<Expression>,
        b: &Node<Expression>,
    ) -> R<Option<Set>> {
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

    /// An integer used as a condition: where it is non-zero (`want`), or zero.
    pub(super) fn truth(&mut self, e: &Node<Expression>, bound: bool, want: bool) -> Affine<Set> {
        match self.aff(e, bound)? {
            Ok(v) => {
                let zero = vec![Piece {
                    cond: None,
                    expr: LinExpr::zero(),
                }];
                let op = match want {
                    true => BinaryOperator::NotEquals,
                    false => BinaryOperator::Equals,
                };
                Ok(Ok(self.compare(&v, &zero, &op)))
            }
            Err(w) => Ok(Err(w)),
        }
    }

    pub(super) fn compare(&self, l: &PwAff, r: &PwAff, op: &BinaryOperator) -> Set {
        use BinaryOperator::*;
        let mut out = self.empty();
        for p in l {
            for q in r {
                // d = rhs - lhs
                let d = q.expr.sub(&p.expr);
                let m1 = Int::from(-1);
                let (dims, quotients) = self.with_quotients(&d);
                // Each alternative is a conjunction of `e >= 0`.
                let alternatives: Vec<Vec<LinExpr>> = match op {
                    Less => vec![vec![d.add_constant(&m1)]],
                    LessOrEqual => vec![vec![d.clone()]],
                    Greater => vec![vec![d.neg().add_constant(&m1)]],
                    GreaterOrEqual => vec![vec![d.neg()]],
                    Equals => vec![vec![d.clone(), d.neg()]],
                    _ => vec![vec![d.add_constant(&m1)], vec![d.neg().add_constant(&m1)]],
                };
                let mut atom = self.empty();
                for ineqs in alternatives {
                    let part = match without_quotients(&ineqs, &quotients) {
                        Some(rows) => aff::set_from(&self.dims(), &[], &rows),
                        None => self.project_quotients(
                            aff::set_from(&dims, &[], &ineqs),
                            &dims,
                            &quotients,
                        ),
                    };
                    atom = atom.union(&part);
                }
                let atom = match and_cond(&p.cond, &q.cond) {
                    Some(c) => atom.intersect(&c),
                    None => atom,
                };
                out = out.union(&atom);
            }
        }
        out
    }

    /// `l / d` (`divide`) or `l % d` of C, truncating, for a constant `d > 0`, as pieces
    /// over quotients `q = floor(e / d)`: `e >= 0` gives `q` (remainder `e - d q`), `e < 0`
    /// gives `-floor(-e / d)` (remainder `e + d floor(-e / d)`). Only for the operands of a
    /// comparison, where [`Builder::compare`] defines each quotient and projects it out.
    fn truncating(&mut self, l: &PwAff, d: &Int, divide: bool) -> Result<PwAff, String> {
        let dims = self.dims();
        let mut out = vec![];
        let generated = self.generated.is_some();
        for p in l {
            // Generated code divides multiples (`(16 * c7) / 16`, `2720 * c1 / 16`): the
            // quotient is exact, whatever the sign.
            if generated {
                if let Some(q) = p.expr.exact_div(d) {
                    out.push(Piece {
                        cond: p.cond.clone(),
                        expr: if divide { q } else { LinExpr::zero() },
                    });
                    continue;
                }
            }
            if self
                .quotients
                .iter()
                .any(|(q, _, _)| !p.expr.coeff(q).is_zero())
            {
                return Err("a division of a quotient".into());
            }
            for sign in [1i64, -1] {
                let num = p.expr.scale(&Int::from(sign));
                let q = LinExpr::var(&self.quotient(&num, d));
                // e >= 0 for the first piece, e <= -1 for the second.
                let side = if sign > 0 {
                    p.expr.clone()
                } else {
                    p.expr.neg().add_constant(&Int::from(-1))
                };
                let cond = Some(aff::set_from(&dims, &[], &[side]));
                if and_cond(&p.cond, &cond).is_some_and(|c| c.is_empty()) {
                    continue;
                }

                let expr = match (divide, sign > 0) {
                    (true, true) => q,
                    (true, false) => q.neg(),
                    (false, true) => p.expr.sub(&q.scale(d)),
                    (false, false) => p.expr.add(&q.scale(d)),
                };
                out.push(Piece {
                    cond: and_cond(&p.cond, &cond),
                    expr,
                });
            }
        }
        // A sign the context rules out (generated code's numerators are counted from a
        // tile's start, never negative); in an empty context, every piece stays.
        let over_ctx = self.ctx.tuple().dims.len() == dims.len();
        if generated && over_ctx {
            let possible = |p: &Piece| {
                p.cond
                    .as_ref()
                    .is_none_or(|c| !c.intersect(&self.ctx).is_empty())
            };
            if out.iter().any(possible) {
                out.retain(possible);
            }
        }
        Ok(out)
    }

    /// The current iterators followed by the quotients `e` uses, and those quotients.
    fn with_quotients(&self, e: &LinExpr) -> (Vec<String>, Vec<(String, LinExpr, Int)>) {
        let mut dims = self.dims();
        let used: Vec<_> = self
            .quotients
            .iter()
            .filter(|(q, _, _)| !e.coeff(q).is_zero())
            .cloned()
            .collect();
        dims.extend(used.iter().map(|(q, _, _)| q.clone()));
        (dims, used)
    }

    /// `atom` (over `dims`, the iterators then the quotients) with each quotient defined
    /// (`d q <= num <= d q + d - 1`) and projected out.
    fn project_quotients(
        &self,
        atom: Set,
        dims: &[String],
        quotients: &[(String, LinExpr, Int)],
    ) -> Set {
        if quotients.is_empty() {
            return atom;
        }
        let mut s = atom;
        for (q, num, d) in quotients {
            let dq = LinExpr::var(q).scale(d);
            let lo = num.sub(&dq);
            let hi = dq.sub(num).add_constant(&(d - &Int::ONE));
            s = s.intersect(&aff::set_from(dims, &[], &[lo, hi]));
        }
        let n = quotients.len();
        s.project_out(dims.len() - n, n)
    }
}

/// `ineqs` (each `e >= 0`) with every quotient `q = floor(num / d)` replaced exactly, where
/// each inequality has at most one, with coefficient 1 or -1: `q >= -r` is `num + d r >= 0`
/// and `q <= r` is `d r + d - 1 - num >= 0`. `None` otherwise.
fn without_quotients(
    ineqs: &[LinExpr],
    quotients: &[(String, LinExpr, Int)],
) -> Option<Vec<LinExpr>> {
    let mut out = vec![];
    for e in ineqs {
        let used: Vec<_> = quotients
            .iter()
            .filter(|(q, _, _)| !e.coeff(q).is_zero())
            .collect();
        match used[..] {
            [] => out.push(e.clone()),
            [(q, num, d)] => {
                let c = e.coeff(q);
                let rest = e.sub(&LinExpr::var(q).scale(&c));
                if c.is_one() {
                    out.push(num.add(&rest.scale(d)));
                } else if (-&c).is_one() {
                    out.push(rest.scale(d).add_constant(&(d - &Int::ONE)).sub(num));
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(out)
}
