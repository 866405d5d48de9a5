//! GCC vector types read as loops over their lanes, for `loopy equiv`.
//!
//! Generated register blocks keep a block of `C` in variables of a vector type declared
//! in the region (`typedef double v __attribute__((vector_size(8 * sizeof(double))))`),
//! load and store them through a cast (`r = *(vu *)&C[i][j]`) and update them with one
//! operation per vector (`r += a * *(vu *)&B[k][j]`). Such a statement computes, lane by
//! lane, what the scalar statement computes on the elements `C[i][j + l]`. It is read as
//! that scalar statement inside a loop over the lanes `0 <= l < L`, a loop of its own
//! that the model marks (`LoopInfo::lanes`):
//! - a vector variable is an array with one more dimension, the lane (`r[l]`);
//! - `*(V *)&X[s…][e]` is the element `X[s…][e + l]`, as the subscripts count elements
//!   (the lanes of a row are the row's next elements);
//! - a scalar operand is the same in every lane (GCC's broadcast).
//!
//! The lanes of one operation run together: every lane reads before any lane writes.
//! Read as a loop, they run one after the other; the two agree when no lane writes an
//! element that another lane of the statement touches, which `loopy equiv` checks
//! exactly as for a SIMD loop (`equiv::omp`), never assumes. GCC converts a scalar
//! operand to the vector's element type, where C's usual conversions could choose
//! another: a vector statement whose reads are not all of the vector's element type, or
//! that has a literal, is not compared (its store is refused).
//!
//! Only `loopy equiv` reads vector types (`Options::read_generated`): a transformation of
//! such a statement would regenerate it once per lane. Elsewhere a typedef in the region
//! is refused, as before.

use super::*;
use crate::model::value::{Store, Value};
use lang_c::ast::{
    DerivedDeclarator, Extension, SpecifierQualifier, TypeName, TypeOf, TypeSpecifier,
};

/// A type declared in the region: a builtin arithmetic element type, and its lanes (1 for
/// a scalar type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RegionType {
    pub elem: String,
    pub lanes: usize,
}

/// The type specifiers of a type name's specifiers and qualifiers.
fn type_specifiers(specs: &[Node<SpecifierQualifier>]) -> Vec<&TypeSpecifier> {
    specs
        .iter()
        .filter_map(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
            _ => None,
        })
        .collect()
}

/// The bytes of a builtin arithmetic type on x86-64 and AArch64 (LP64).
fn size_of(elem: &str) -> Option<usize> {
    let words: Vec<&str> = elem
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "signed" | "unsigned" | "restrict"
            )
        })
        .collect();
    Some(match words.as_slice() {
        ["char"] => 1,
        ["short"] | ["short", "int"] => 2,
        [] | ["int"] | ["float"] => 4,
        ["long"] | ["long", "int"] | ["long", "long"] | ["long", "long", "int"] | ["double"] => 8,
        ["long", "double"] => 16,
        _ => return None,
    })
}

impl<'a> Builder<'a> {
    /// The lanes of the vector statement being walked.
    pub(super) fn current_lanes(&self) -> Option<(String, usize)> {
        self.generated.as_ref()?.current.clone()
    }

    /// Enters (`1`) or leaves (`-1`) a subscript.
    pub(super) fn subscripts(&mut self, by: isize) {
        if let Some(l) = &mut self.generated {
            l.in_subscript = l.in_subscript.saturating_add_signed(by);
        }
    }

    /// Whether a subscript is being read of generated code.
    pub(super) fn in_subscript(&self) -> bool {
        self.generated.as_ref().is_some_and(|l| l.in_subscript > 0)
    }

    /// The lanes of the model array `array`, when it is a vector variable.
    pub(super) fn vector_lanes(&self, array: &str) -> Option<usize> {
        self.generated.as_ref()?.vectors.get(array).copied()
    }

    pub(super) fn set_vector(&mut self, array: &str, lanes: usize) {
        if let Some(l) = &mut self.generated {
            l.vectors.insert(array.to_string(), lanes);
        }
    }

    /// A `typedef` in the region, recorded when vector types are read.
    pub(super) fn region_typedef(&mut self, d: &Node<Declaration>) -> R<()> {
        let refuse = |b: &Self, why: String| {
            Err(b.err(
                format!("this type definition cannot be read: {why}"),
                &d.span,
                "a typedef",
            ))
        };
        let base = match self.region_type(&d.node.specifiers) {
            Ok(Some(t)) => t,
            Ok(None) => match self.syms.class_of_decl(&d.node.specifiers) {
                (TypeClass::Integer { .. } | TypeClass::Floating, 0) => RegionType {
                    elem: self.syms.type_text(&d.node.specifiers).0,
                    lanes: 1,
                },
                _ => return refuse(self, "its type is not a builtin arithmetic type".into()),
            },
            Err(why) => return refuse(self, why),
        };
        let spec_ext = d.node.specifiers.iter().filter_map(|s| match &s.node {
            DeclarationSpecifier::Extension(x) => Some(x.iter()),
            _ => None,
        });
        let spec_ext: Vec<&Node<Extension>> = spec_ext.flatten().collect();
        for x in &d.node.declarators {
            let decl = &x.node.declarator.node;
            let Some(name) = declarator_name(decl) else {
                return refuse(self, "it names nothing".into());
            };
            if !decl.derived.is_empty() {
                return refuse(
                    self,
                    format!("`{name}` is an array, pointer or function type"),
                );
            }
            let mut t = base.clone();
            for ext in spec_ext.iter().copied().chain(&decl.extensions) {
                match self.attribute_lanes(&ext.node, &t) {
                    Ok(Some(l)) => t.lanes = l,
                    Ok(None) => {}
                    Err(why) => return refuse(self, why),
                }
            }
            if let Some(l) = &mut self.generated {
                l.types.insert(name, t);
            }
        }
        Ok(())
    }

    /// The lanes an attribute gives a type (`vector_size`), `None` for attributes that do
    /// not change values (`aligned`, `may_alias`); anything else is refused.
    fn attribute_lanes(&self, ext: &Extension, t: &RegionType) -> Result<Option<usize>, String> {
        let Extension::Attribute(a) = ext else {
            return Err("an extension other than an attribute".into());
        };
        let name = a.name.node.trim_matches('_');
        match name {
            "aligned" | "may_alias" => Ok(None),
            "vector_size" => {
                if t.lanes != 1 {
                    return Err("a vector of vectors".into());
                }
                let [arg] = a.arguments.as_slice() else {
                    return Err("`vector_size` takes one argument".into());
                };
                let bytes = self.constant_bytes(arg)?;
                let size = size_of(&t.elem)
                    .ok_or_else(|| format!("the size of `{}` is not known", t.elem))?;
                if bytes == 0 || bytes % size != 0 {
                    return Err(format!(
                        "{bytes} bytes is not a whole number of `{}`",
                        t.elem
                    ));
                }
                Ok(Some(bytes / size))
            }
            _ => Err(format!("the attribute `{}`", a.name.node)),
        }
    }

    /// An integer constant expression of literals, `+`, `*` and `sizeof(type)`.
    fn constant_bytes(&self, e: &Node<Expression>) -> Result<usize, String> {
        let text = || format!("`{}` is not a constant size", self.pre_text(&e.span));
        match &e.node {
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) if i.base == IntegerBase::Decimal => {
                    i.number.parse().map_err(|_| text())
                }
                _ => Err(text()),
            },
            Expression::SizeOfTy(t) => {
                let rt = self.type_name(&t.node.0.node)?;
                let size = size_of(&rt.elem).ok_or_else(text)?;
                Ok(size * rt.lanes)
            }
            Expression::BinaryOperator(b) => {
                let l = self.constant_bytes(&b.node.lhs)?;
                let r = self.constant_bytes(&b.node.rhs)?;
                match b.node.operator.node {
                    BinaryOperator::Multiply => l.checked_mul(r).ok_or_else(text),
                    BinaryOperator::Plus => l.checked_add(r).ok_or_else(text),
                    _ => Err(text()),
                }
            }
            _ => Err(text()),
        }
    }

    /// The type declaration specifiers name, when they use a region typedef or
    /// `__typeof__` (`None`: an ordinary type, read as before); `Err` when such a type
    /// cannot be read.
    pub(super) fn region_type(
        &self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Result<Option<RegionType>, String> {
        let ts: Vec<&TypeSpecifier> = specs
            .iter()
            .filter_map(|s| match &s.node {
                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        self.specifiers_type(&ts)
    }

    pub(super) fn type_name(&self, t: &TypeName) -> Result<RegionType, String> {
        if t.declarator.is_some() {
            return Err("a derived type in `sizeof`".into());
        }
        let ts = type_specifiers(&t.specifiers);
        match self.specifiers_type(&ts)? {
            Some(rt) => Ok(rt),
            None => {
                let words: Vec<&str> = t
                    .specifiers
                    .iter()
                    .filter_map(|s| self.sm.pre.get(range(&s.span)))
                    .collect();
                Ok(RegionType {
                    elem: normalize(&words.join(" ")),
                    lanes: 1,
                })
            }
        }
    }

    /// The region type type specifiers name (`None`: not a region typedef nor
    /// `__typeof__`).
    fn specifiers_type(&self, ts: &[&TypeSpecifier]) -> Result<Option<RegionType>, String> {
        let types = self.generated.as_ref().map(|l| &l.types);
        for t in ts {
            match t {
                TypeSpecifier::TypedefName(n) => {
                    if let Some(rt) = types.and_then(|m| m.get(&n.node.name)) {
                        return match ts.len() {
                            1 => Ok(Some(rt.clone())),
                            _ => Err(format!("`{}` with other type specifiers", n.node.name)),
                        };
                    }
                }
                TypeSpecifier::TypeOf(x) => {
                    if ts.len() != 1 {
                        return Err("`__typeof__` with other type specifiers".into());
                    }
                    return match &x.node {
                        TypeOf::Expression(e) => self.type_of(e).map(Some),
                        TypeOf::Type(t) => self.type_name(&t.node).map(Some),
                    };
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// The type of `__typeof__(e)`: of a variable, an element (`C[0][0]`), or an
    /// arithmetic operation on operands of one type (`alpha * A[0][0]`).
    pub(super) fn type_of(&self, e: &Node<Expression>) -> Result<RegionType, String> {
        let not = || format!("the type of `{}` is not read", self.pre_text(&e.span));
        match &e.node {
            Expression::Identifier(id) => self.variable_type(&id.node.name, 0),
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let mut n = 0;
                let mut cur = e;
                while let Expression::BinaryOperator(b) = &cur.node {
                    if b.node.operator.node != BinaryOperator::Index {
                        return Err(not());
                    }
                    n += 1;
                    cur = &b.node.lhs;
                }
                match &cur.node {
                    Expression::Identifier(id) => self.variable_type(&id.node.name, n),
                    _ => Err(not()),
                }
            }
            Expression::BinaryOperator(b) => match b.node.operator.node {
                BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide => {
                    let l = self.type_of(&b.node.lhs)?;
                    let r = self.type_of(&b.node.rhs)?;
                    if l == r {
                        Ok(l)
                    } else {
                        Err(format!("`{}` mixes types", self.pre_text(&e.span)))
                    }
                }
                _ => Err(not()),
            },
            _ => Err(not()),
        }
    }

    /// The type of a variable subscripted `subs` times, when that is all its dimensions.
    fn variable_type(&self, name: &str, subs: usize) -> Result<RegionType, String> {
        let (rank, elem) = match self.lookup(name) {
            Some(Binding::Local { array, rank, .. }) => {
                if self.vector_lanes(array).is_some() {
                    return Err(format!("`{name}` is a vector"));
                }
                (*rank, self.local_types.get(array).cloned())
            }
            Some(_) => return Err(format!("`{name}` is not a variable")),
            None => {
                let info = self
                    .syms
                    .get(name)
                    .ok_or_else(|| format!("`{name}` is not declared"))?;
                (info.rank, Some(info.type_text.clone()))
            }
        };
        match elem.filter(|t| !t.is_empty()) {
            Some(elem) if rank == subs => Ok(RegionType { elem, lanes: 1 }),
            _ => Err(format!(
                "the type of `{name}` with {subs} subscript(s) is not read"
            )),
        }
    }

    /// The lanes of a vector statement: its left-hand side is a vector variable (or an
    /// element of an array of them), or `*(V *)&X[…]` with `V` a vector type.
    pub(super) fn statement_lanes(&self, e: &Node<Expression>) -> Option<usize> {
        self.generated.as_ref()?;
        let Expression::BinaryOperator(b) = &e.node else {
            return None;
        };
        let op = &b.node.operator.node;
        let assigns = matches!(
            op,
            BinaryOperator::Assign
                | BinaryOperator::AssignPlus
                | BinaryOperator::AssignMinus
                | BinaryOperator::AssignMultiply
                | BinaryOperator::AssignDivide
        );
        if !assigns {
            return None;
        }
        self.expression_lanes(&b.node.lhs)
    }

    /// The lanes of a vector lvalue.
    fn expression_lanes(&self, e: &Node<Expression>) -> Option<usize> {
        let mut cur = e;
        while let Expression::BinaryOperator(b) = &cur.node {
            if b.node.operator.node != BinaryOperator::Index {
                return None;
            }
            cur = &b.node.lhs;
        }
        match &cur.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Local { array, .. }) => self.vector_lanes(array),
                _ => None,
            },
            Expression::UnaryOperator(_) if std::ptr::eq(cur, e) => {
                self.deref_vector(e).map(|(_, t)| t.lanes)
            }
            _ => None,
        }
    }

    /// `*(V *)e` with `V` a vector type: `e` and the type.
    fn deref_vector<'e>(
        &self,
        e: &'e Node<Expression>,
    ) -> Option<(&'e Node<Expression>, RegionType)> {
        let Expression::UnaryOperator(u) = &e.node else {
            return None;
        };
        if u.node.operator.node != UnaryOperator::Indirection {
            return None;
        }
        let Expression::Cast(c) = &u.node.operand.node else {
            return None;
        };
        let tn = &c.node.type_name.node;
        let one_pointer = tn.declarator.as_ref().is_some_and(|d| {
            matches!(
                d.node.derived.as_slice(),
                [p] if matches!(p.node, DerivedDeclarator::Pointer(_))
            )
        });
        if !one_pointer {
            return None;
        }
        let ts = type_specifiers(&tn.specifiers);
        match self.specifiers_type(&ts) {
            Ok(Some(t)) if t.lanes > 1 => Some((&c.node.expression, t)),
            _ => None,
        }
    }

    /// `*(V *)&X[…]`: the element expression `X[…]`, the vector type, and the span of the
    /// whole dereference; `Err` says why a dereference is not of that form.
    pub(super) fn lane_pointer<'e>(
        &self,
        e: &'e Node<Expression>,
    ) -> Result<(&'e Node<Expression>, RegionType, Span), String> {
        let Some((inner, t)) = self.deref_vector(e) else {
            return Err("only `*(V *)&X[…]` with `V` a vector type is read".into());
        };
        let x = match &inner.node {
            Expression::UnaryOperator(a) if a.node.operator.node == UnaryOperator::Address => {
                &*a.node.operand
            }
            _ => {
                return Err(
                    "only the address of an element is read as lanes (`*(V *)&X[…]`)".into(),
                )
            }
        };
        match self.type_of(x) {
            Ok(xt) if xt.elem == t.elem => Ok((x, t, e.span)),
            Ok(xt) => Err(format!(
                "a vector of `{}` over elements of `{}`",
                t.elem, xt.elem
            )),
            Err(why) => Err(why),
        }
    }

    /// Walks `f` inside a loop over `lanes` lanes: the statement at `span` is one vector
    /// operation.
    pub(super) fn in_lanes(
        &mut self,
        lanes: usize,
        span: &Span,
        f: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<()> {
        let dims = self.dims();
        let it = self.fresh("lane", |n| dims.iter().any(|d| d == n));
        self.loops.push(Frame {
            iterator: it.clone(),
            c_name: it.clone(),
            step: Int::ONE,
            first: Some(LinExpr::constant(0)),
            span: self.span(span),
            outer_counter: false,
            lanes: true,
        });
        let saved = self.ctx.clone();
        let l = LinExpr::var(&it);
        let last = Int::from(lanes as i64 - 1);
        let bounds = aff::set_from(&self.dims(), &[], &[l.clone(), l.neg().add_constant(&last)]);
        self.ctx = aff::add_dim(&saved, &it).intersect(&bounds);
        let pos = self.next_position();
        self.path.push(pos);
        self.next.push(0);
        if let Some(x) = &mut self.generated {
            x.current = Some((it, lanes));
        }
        let r = f(self);
        if let Some(x) = &mut self.generated {
            x.current = None;
        }
        self.next.pop();
        self.path.pop();
        self.ctx = saved;
        self.loops.pop();
        r
    }

    /// The store of a vector statement, when every lane computes it as C would: its
    /// operations are `+`, `-`, `*`, `/` and negation, it has no literal (GCC converts a
    /// scalar to the element type, C's usual conversions might not), and every value it
    /// reads and stores has the vector's element type.
    pub(super) fn lane_store(&self, store: Store, acc: &[Access]) -> Result<Store, String> {
        let elem = |k: usize| {
            let a = acc.get(k)?;
            self.arrays
                .iter()
                .find(|x| x.name == a.array)?
                .elem_type
                .clone()
        };
        let want = elem(store.write).ok_or("the vector's element type is not known")?;
        fn check(v: &Value, ok: &dyn Fn(usize) -> bool) -> Result<(), String> {
            match v {
                Value::Read(k) if ok(*k) => Ok(()),
                Value::Read(_) => Err("it reads a value of another type than its lanes".into()),
                Value::Op(op, xs)
                    if matches!(op.as_str(), "+" | "-" | "*" | "/" | "neg" | "pos") =>
                {
                    xs.iter().try_for_each(|x| check(x, ok))
                }
                Value::Op(op, _) => Err(format!("the operation `{op}` on lanes")),
                Value::Const(c) => Err(format!(
                    "the literal `{c}` (GCC converts it to the element type)"
                )),
                Value::Name(n) => Err(format!("the integer `{n}` on lanes")),
                Value::Assign(..) => Err("an assignment inside a vector statement".into()),
            }
        }
        check(&store.value, &|k| elem(k).as_deref() == Some(want.as_str())).map_err(|why| {
            format!(
                "a vector statement is compared lane by lane only on its own element type: {why}"
            )
        })?;
        Ok(store)
    }
}
