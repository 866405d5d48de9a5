//! Accesses: the reads and writes of expressions, and their relations.

use super::*;

impl<'a> Builder<'a> {
    /// Records the accesses of an expression evaluated with `mode` (an lvalue is written).
    pub(super) fn expr(
        &mut self,
        e: &Node<Expression>,
        mode: Mode,
        acc: &mut Vec<Access>,
    ) -> R<()> {
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
                UnaryOperator::Indirection if self.current_lanes().is_some() => {
                    self.lane_access(e, mode, acc)
                }
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
            Expression::CompoundLiteral(c) if self.current_lanes().is_some() => {
                self.not_lvalue(e, mode)?;
                self.gather_access(e, &c.node, acc)
            }
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

    pub(super) fn not_lvalue(&self, e: &Node<Expression>, mode: Mode) -> R<()> {
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

    pub(super) fn ident_access(
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
                if let Some(lanes) = self.vector_lanes(&array) {
                    let lane = self.lane_subscript(name, lanes, span)?;
                    if rank != 1 {
                        return Err(self.pointer_use(name, span));
                    }
                    return self.add_access(
                        &array,
                        name,
                        1,
                        private_depth,
                        vec![lane],
                        mode,
                        span,
                        acc,
                    );
                }
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

    pub(super) fn pointer_use(&self, name: &str, span: &Span) -> Diagnostic {
        self.err(
            format!("the array `{name}` is used as a pointer"),
            span,
            "pointer arithmetic or aliasing",
        )
        .with_note(
            "loopy tracks array elements by their subscripts; use `A[i][j]` with every subscript",
        )
    }

    pub(super) fn index_access(
        &mut self,
        e: &Node<Expression>,
        mode: Mode,
        acc: &mut Vec<Access>,
    ) -> R<()> {
        self.index_access_at(e, mode, acc, None, e.span)
    }

    /// `*(V *)&X[…][e]` in a vector statement: the element `X[…][e + lane]`.
    fn lane_access(&mut self, e: &Node<Expression>, mode: Mode, acc: &mut Vec<Access>) -> R<()> {
        let (x, t, span) = self.lane_pointer(e).map_err(|why| {
            self.err(
                format!("this dereference cannot be modelled: {why}"),
                &e.span,
                "dereferences a pointer",
            )
        })?;
        let (lane, lanes) = self.current_lanes().expect("in a vector statement");
        if t.lanes != lanes {
            return Err(self.err(
                format!("a vector of {} lanes in a statement of {lanes}", t.lanes),
                &e.span,
                "another width",
            ));
        }
        if !matches!(&x.node, Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index)
        {
            return Err(self.err(
                "only the address of an array element is read as lanes",
                &x.span,
                "not an element",
            ));
        }
        let mut by = vec![Int::ZERO; subscripts_of(x).len()];
        if let Some(last) = by.last_mut() {
            *last = Int::ONE;
        }
        self.index_access_at(x, mode, acc, Some((&lane, &by)), span)
    }

    /// `(V){X[s(0)], X[s(1)], …}` in a vector statement of `V`'s lanes, each lane an
    /// element of one array whose subscripts step by the same amount from lane to lane
    /// (a column of a block gathered into a vector): the element `X[s(0) + lane·d]`.
    fn gather_access(
        &mut self,
        e: &Node<Expression>,
        c: &lang_c::ast::CompoundLiteral,
        acc: &mut Vec<Access>,
    ) -> R<()> {
        let refuse = |b: &Self, why: String| {
            Err(b.err(
                format!("this vector of elements cannot be read as lanes: {why}"),
                &e.span,
                "a vector built of elements",
            ))
        };
        let (lane, lanes) = self.current_lanes().expect("in a vector statement");
        let t = match self.type_name(&c.type_name.node) {
            Ok(t) if t.lanes == lanes => t,
            Ok(t) => return refuse(self, format!("{} lanes in a statement of {lanes}", t.lanes)),
            Err(why) => return refuse(self, why),
        };
        let mut elems = vec![];
        for it in &c.initializer_list {
            match &it.node.initializer.node {
                Initializer::Expression(x) if it.node.designation.is_empty() => elems.push(&**x),
                _ => return refuse(self, "a lane that is not one element".into()),
            }
        }
        if elems.len() != lanes {
            return refuse(self, format!("{} values for {lanes} lanes", elems.len()));
        }
        let mut subs: Vec<Vec<LinExpr>> = vec![];
        for x in &elems {
            match self.type_of(x) {
                Ok(xt) if xt.elem == t.elem => {}
                Ok(xt) => {
                    return refuse(self, format!("a vector of `{}` over `{}`", t.elem, xt.elem))
                }
                Err(why) => return refuse(self, why),
            }
            let mut row = vec![];
            for s in subscripts_of(x) {
                self.subscripts(1);
                let a = self.aff(s, false);
                self.subscripts(-1);
                match a? {
                    Ok(p) if p.len() == 1 && p[0].cond.is_none() => row.push(p[0].expr.clone()),
                    _ => {
                        return refuse(
                            self,
                            format!("`{}` is not one affine subscript", self.pre_text(&s.span)),
                        )
                    }
                }
            }
            subs.push(row);
        }
        let same_array = elems.iter().all(|x| array_name(x) == array_name(elems[0]));
        if !same_array || array_name(elems[0]).is_none() {
            return refuse(self, "its lanes are not elements of one array".into());
        }
        let mut by = vec![];
        for k in 0..subs[0].len() {
            let step = subs
                .get(1)
                .map_or(LinExpr::zero(), |r| r[k].sub(&subs[0][k]));
            let Some(d) = step.as_constant().cloned() else {
                return refuse(
                    self,
                    "its lanes' subscripts do not differ by a constant".into(),
                );
            };
            for (l, row) in subs.iter().enumerate() {
                let want = subs[0][k].add_constant(&(d.clone() * Int::from(l as i64)));
                if row.len() != subs[0].len() || row[k] != want {
                    return refuse(self, format!("lane {l} is not the first lane's element moved {l} times by the same step"));
                }
            }
            by.push(d);
        }
        self.index_access_at(elems[0], Mode::Read, acc, Some((&lane, &by)), e.span)
    }

    /// The lane subscript of a vector variable, inside a vector statement of its width.
    fn lane_subscript(&self, name: &str, lanes: usize, span: &Span) -> R<Result<PwAff, String>> {
        match self.current_lanes() {
            Some((lane, l)) if l == lanes => Ok(Ok(vec![Piece {
                cond: None,
                expr: LinExpr::var(&lane),
            }])),
            _ => Err(self.err(
                format!(
                    "the vector `{name}` is used outside a vector operation of its {lanes} lanes"
                ),
                span,
                "a vector",
            )),
        }
    }

    /// The access of `X[…]` (`e`) recorded at `at`; `shift`: a lane, added to each
    /// subscript times its coefficient.
    fn index_access_at(
        &mut self,
        e: &Node<Expression>,
        mode: Mode,
        acc: &mut Vec<Access>,
        shift: Option<(&str, &[Int])>,
        at: Span,
    ) -> R<()> {
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
            }) => {
                // An array of vectors: its last dimension is the lane.
                let r = match self.vector_lanes(&array) {
                    Some(_) => rank - 1,
                    None => rank,
                };
                (array, Some(r), private_depth)
            }
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
            self.subscripts(1);
            let a = self.aff(s, false);
            self.subscripts(-1);
            affs.push(match a? {
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
        if let Some((lane, by)) = shift {
            for (a, k) in affs.iter_mut().zip(by) {
                if let Ok(a) = a {
                    let l = LinExpr::var(lane).scale(k);
                    a.iter_mut().for_each(|p| p.expr = p.expr.add(&l));
                }
            }
        }
        if let Some(lanes) = self.vector_lanes(&array) {
            if shift.is_some() {
                return Err(self.err("a pointer into a vector", &e.span, "not read as lanes"));
            }
            affs.push(self.lane_subscript(&name, lanes, &e.span)?);
        }
        self.add_access(
            &array,
            &name,
            affs.len(),
            private_depth,
            affs,
            mode,
            &at,
            acc,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_access(
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
                let storage = self.storage(array, c_name, rank);
                let elem_type = if self.local_names.contains(array) {
                    self.local_types.get(array).cloned()
                } else {
                    self.syms.get(c_name).map(|v| v.type_text.clone())
                }
                .filter(|t| !t.is_empty());
                self.arrays.push(Array {
                    name: array.to_string(),
                    c_name: c_name.to_string(),
                    rank,
                    private_depth,
                    storage,
                    elem_type,
                    extents: self.extents_of(array),
                    declared: self.local_decls.get(array).map(|s| self.span(s)),
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

    /// Where the elements of an array accessed with `rank` subscripts live.
    fn storage(&self, array: &str, c_name: &str, rank: usize) -> Storage {
        if self.local_names.contains(array)
            || matches!(self.lookup(c_name), Some(Binding::Local { .. }))
        {
            return Storage::Region;
        }
        let Some(info) = self.syms.get(c_name) else {
            return Storage::Pointer {
                contiguous: false,
                param: false,
            };
        };
        let param = info.scope == Scope::Param;
        if rank == 0 {
            return Storage::Variable {
                pointed: info.scope == Scope::File || self.syms.address_taken(c_name),
            };
        }
        match info.levels.first() {
            Some(DeclLevel::Array) if !param => Storage::Variable { pointed: true },
            Some(DeclLevel::Pointer) => Storage::Pointer {
                contiguous: info.levels.len() >= rank
                    && info.levels[1..rank].iter().all(|l| *l == DeclLevel::Array),
                param,
            },
            _ => Storage::Pointer {
                contiguous: false,
                param,
            },
        }
    }

    /// `input -> output[exprs]`; the quotients the subscripts use (a division in a
    /// subscript of generated code, `(c7 - 2720 * c1) / 16`) are defined and projected out.
    fn relation_of(&self, input: &Tuple, output: &Tuple, exprs: &[Option<LinExpr>]) -> Map {
        let used: Vec<&(String, LinExpr, Int)> = self
            .quotients
            .iter()
            .filter(|(q, _, _)| exprs.iter().flatten().any(|e| !e.coeff(q).is_zero()))
            .collect();
        if used.is_empty() {
            return aff::relation(input, output, exprs);
        }
        // A quotient that is a subscript up to a constant (`P[(j - 16c) / 16][…]`) is that
        // output: the relation needs no existential.
        let outs: Vec<String> = (0..exprs.len()).map(|k| format!("o#{k}")).collect();
        let mut subst: Vec<(String, LinExpr)> = vec![];
        for (q, _, _) in &used {
            let at = exprs.iter().enumerate().find_map(|(k, e)| {
                let e = e.as_ref()?;
                let alone = e.terms.len() == 1 && e.coeff(q).is_one();
                alone.then(|| LinExpr::var(&outs[k]).add_constant(&-e.constant.clone()))
            });
            match at {
                Some(v) => subst.push((q.clone(), v)),
                None => return self.relation_projected(input, output, exprs, &used),
            }
        }
        let put = |e: &LinExpr| {
            subst.iter().fold(e.clone(), |acc, (q, v)| {
                let c = acc.coeff(q);
                let rest = LinExpr {
                    constant: acc.constant.clone(),
                    terms: acc.terms.iter().filter(|(n, _)| n != q).cloned().collect(),
                };
                rest.add(&v.scale(&c))
            })
        };
        let mut eqs = vec![];
        for (k, e) in exprs.iter().enumerate() {
            if let Some(e) = e {
                eqs.push(LinExpr::var(&outs[k]).sub(&put(e)));
            }
        }
        let mut ineqs = vec![];
        for (q, num, d) in &used {
            let dq = put(&LinExpr::var(q)).scale(d);
            ineqs.push(put(num).sub(&dq));
            ineqs.push(dq.sub(&put(num)).add_constant(&(d - &Int::ONE)));
        }
        let mut dims = input.dims.clone();
        dims.extend(outs.iter().cloned());
        let pairs = aff::set_from(&dims, &eqs, &ineqs);
        Map::from_set(&pairs, input.dims.len()).with_space_names(input.clone(), output.clone())
    }

    /// `input -> output[exprs]` with the quotients `used` as existentials.
    fn relation_projected(
        &self,
        input: &Tuple,
        output: &Tuple,
        exprs: &[Option<LinExpr>],
        used: &[&(String, LinExpr, Int)],
    ) -> Map {
        let mut wide = input.clone();
        wide.dims.extend(used.iter().map(|(q, _, _)| q.clone()));
        let mut defs = vec![];
        for (q, num, d) in used {
            let dq = LinExpr::var(q).scale(d);
            defs.push(num.sub(&dq));
            defs.push(dq.sub(num).add_constant(&(d - &Int::ONE)));
        }
        let m = aff::relation(&wide, output, exprs)
            .intersect_domain(&aff::set_from(&wide.dims, &[], &defs).with_tuple(wide.clone()));
        let n_in = input.dims.len();
        let pairs = m.wrap().project_out(n_in, used.len());
        Map::from_set(&pairs, n_in).with_space_names(input.clone(), output.clone())
    }

    /// `S[iterators] -> A[subscripts]`, a union over the pieces of piecewise subscripts.
    pub(super) fn relation(&self, array: &str, subs: &[Result<PwAff, String>]) -> Map {
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
            let mut m = self.relation_of(&input, &output, &exprs);
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
}

/// The subscripts of `X[a][b]…`, outermost first (none for anything else).
fn subscripts_of(e: &Node<Expression>) -> Vec<&Node<Expression>> {
    let mut subs = vec![];
    let mut cur = e;
    while let Expression::BinaryOperator(b) = &cur.node {
        if b.node.operator.node != BinaryOperator::Index {
            break;
        }
        subs.push(&*b.node.rhs);
        cur = &b.node.lhs;
    }
    subs.reverse();
    subs
}

/// The array `X[…]` subscripts, when it is named.
fn array_name(e: &Node<Expression>) -> Option<&str> {
    let mut cur = e;
    while let Expression::BinaryOperator(b) = &cur.node {
        if b.node.operator.node != BinaryOperator::Index {
            return None;
        }
        cur = &b.node.lhs;
    }
    match &cur.node {
        Expression::Identifier(id) if !std::ptr::eq(cur, e) => Some(&id.node.name),
        _ => None,
    }
}
