//! A region that is one test choosing between two versions of its code: the no-overlap
//! test of generated code (`codegen::overlap`), read for `loopy equiv` only.
//!
//! Generated code for a region whose arrays may overlap in memory is
//!
//! ```c
//! { const unsigned long loopy_lo_C = …, loopy_hi_C = …; …
//!   if (TEST) { loopy_fast_kernel(…, ni, nj, C, A); }   /* or the transformed code itself */
//!   else { /* the original code */ } }
//! ```
//!
//! Whichever way the test goes, the region computes what the version it chose computes:
//! the region is equivalent to a program when both versions are. This module finds the
//! shape and gives the frontend the statements of one version to model: the `else`
//! branch's (the original version), or the `then` branch's, which is the body of the
//! function it calls when it is one call (the transformed version). The declarations
//! before the test and the test itself must have no effect (no call, assignment,
//! increment), and nothing of the versions may read what those declarations declare. A
//! call is followed only where it passes each parameter the variable of the same name
//! with the same type (so the function's body reads the caller's arrays and scalars), or,
//! for an extent of an array parameter (`double (*restrict C)[loopy_C_1]`), the caller's
//! own extent of that array, `(long)(sizeof(C[0]) / sizeof(C[0][0]))`: then `C[i][j]`
//! is the same element in both. Anything else is refused with its span.

use super::region::Region;
use super::srcmap::SourceMap;
use super::symbols::{declarator_name, Symbols};
use crate::diag::{codes, Diagnostic};
use crate::model::Version;
use lang_c::ast::{
    ArraySize, BlockItem, DeclaratorKind, DerivedDeclarator, Expression, ExternalDeclaration,
    FunctionDefinition, Initializer, Statement, TranslationUnit, UnaryOperator,
};
use lang_c::span::{Node, Span};
use lang_c::visit::Visit;

/// Which version of a two-version region to model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Which {
    /// The code the test runs when it passes (the transformed code).
    #[default]
    Transformed,
    /// The code it runs otherwise (the original code).
    Original,
}

/// The region to model for `which`, and what was chosen, when `reg` is a two-version
/// region; `reg` itself otherwise.
pub fn choose<'a>(
    unit: &'a TranslationUnit,
    sm: &SourceMap,
    reg: Region<'a>,
    which: Which,
) -> Result<(Region<'a>, Option<Version>), Diagnostic> {
    let Some(shape) = shape(reg.items) else {
        return Ok((reg, None));
    };
    let Shape {
        locals,
        test,
        then,
        otherwise,
    } = shape;
    let span = |s: &Span| sm.span_or_pre(s.start..s.end);
    let refuse = |s: &Span, what: String| {
        let sp = span(s);
        Diagnostic::new(codes::UNSUPPORTED_C, what).with_label(
            &sp.file,
            sp.range,
            "in this test between two versions",
        )
    };
    for (e, s) in locals.iter().map(|(_, e)| e).chain([&test]) {
        if let Some(at) = effect(e, s) {
            return Err(refuse(
                &at,
                "the test between two versions of the region has an effect (a call, an \
                 assignment or an increment): its versions cannot be read apart"
                    .into(),
            ));
        }
    }
    let names: Vec<&str> = locals.iter().map(|(n, _)| n.as_str()).collect();
    let version = Version {
        original: which == Which::Original,
        test: span(test.1),
        function: match &then {
            Then::Call(c) => Some(c.name.clone()),
            Then::Code(_) => None,
        },
    };
    let items = match (which, then) {
        (Which::Original, _) => otherwise,
        (Which::Transformed, Then::Code(items)) => items,
        (Which::Transformed, Then::Call(c)) => {
            let f = followed(unit, sm, &reg, &c, &names)?;
            return Ok((f, Some(version)));
        }
    };
    if let Some((n, s)) = reads_any(items, &names) {
        return Err(refuse(
            &s,
            format!("a version of the region reads `{n}`, declared before the test"),
        ));
    }
    Ok((
        Region {
            function: reg.function,
            items,
            range: reg.range,
        },
        Some(version),
    ))
}

/// The region's parts, when it is declarations then `if (test) … else …`, alone or as
/// the one block of the region.
struct Shape<'a> {
    /// The names declared before the test, with their initializers.
    locals: Vec<(String, (&'a Expression, &'a Span))>,
    test: (&'a Expression, &'a Span),
    then: Then<'a>,
    otherwise: &'a [Node<BlockItem>],
}

enum Then<'a> {
    Call(Call<'a>),
    Code(&'a [Node<BlockItem>]),
}

/// A call statement: the function's name and the arguments.
struct Call<'a> {
    name: String,
    args: &'a [Node<Expression>],
    span: &'a Span,
}

fn shape(items: &[Node<BlockItem>]) -> Option<Shape<'_>> {
    if let [Node {
        node: BlockItem::Statement(s),
        ..
    }] = items
    {
        if let Statement::Compound(inner) = &s.node {
            return shape(inner);
        }
    }
    let (last, before) = items.split_last()?;
    let BlockItem::Statement(st) = &last.node else {
        return None;
    };
    let Statement::If(i) = &st.node else {
        return None;
    };
    let otherwise = block(i.node.else_statement.as_deref()?)?;
    let then = block(&i.node.then_statement)?;
    let mut locals = vec![];
    for it in before {
        let BlockItem::Declaration(d) = &it.node else {
            return None;
        };
        for id in &d.node.declarators {
            let name = declarator_name(&id.node.declarator.node)?;
            let init = match &id.node.initializer.as_ref()?.node {
                Initializer::Expression(e) => e,
                Initializer::List(_) => return None,
            };
            locals.push((name, (&init.node, &init.span)));
        }
    }
    if locals.is_empty() {
        return None;
    }
    let then = match call(then) {
        Some(c) => Then::Call(c),
        None => Then::Code(then),
    };
    Some(Shape {
        locals,
        test: (&i.node.condition.node, &i.node.condition.span),
        then,
        otherwise,
    })
}

/// The items of a `{ }` block.
fn block(s: &Node<Statement>) -> Option<&[Node<BlockItem>]> {
    match &s.node {
        Statement::Compound(items) => Some(items),
        _ => None,
    }
}

/// The block's one statement, when it is a call of a named function.
fn call(items: &[Node<BlockItem>]) -> Option<Call<'_>> {
    let [Node {
        node: BlockItem::Statement(s),
        span,
    }] = items
    else {
        return None;
    };
    let Statement::Expression(Some(e)) = &s.node else {
        return None;
    };
    let Expression::Call(c) = &e.node else {
        return None;
    };
    let Expression::Identifier(id) = &c.node.callee.node else {
        return None;
    };
    Some(Call {
        name: id.node.name.clone(),
        args: &c.node.arguments,
        span,
    })
}

/// Where `e` has an effect: a call, an assignment, an increment or a decrement, or a
/// statement expression.
fn effect(e: &Expression, s: &Span) -> Option<Span> {
    struct Effects(Option<Span>);
    impl<'ast> Visit<'ast> for Effects {
        fn visit_expression(&mut self, e: &'ast Expression, span: &'ast Span) {
            let hit = match e {
                Expression::Call(_) | Expression::Statement(_) => true,
                Expression::UnaryOperator(u) => matches!(
                    u.node.operator.node,
                    UnaryOperator::PreIncrement
                        | UnaryOperator::PreDecrement
                        | UnaryOperator::PostIncrement
                        | UnaryOperator::PostDecrement
                ),
                Expression::BinaryOperator(b) => super::build::is_assignment(&b.node.operator.node),
                _ => false,
            };
            if hit && self.0.is_none() {
                self.0 = Some(*span);
            }
            lang_c::visit::visit_expression(self, e, span);
        }
    }
    let mut v = Effects(None);
    v.visit_expression(e, s);
    v.0
}

/// The first identifier among `names` that `items` mention, with its span.
fn reads_any<'a>(items: &[Node<BlockItem>], names: &'a [&str]) -> Option<(&'a str, Span)> {
    struct Names<'n>(&'n [&'n str], Option<(&'n str, Span)>);
    impl<'ast, 'n> Visit<'ast> for Names<'n> {
        fn visit_identifier(&mut self, id: &'ast lang_c::ast::Identifier, span: &'ast Span) {
            if self.1.is_none() {
                if let Some(n) = self.0.iter().find(|n| **n == id.name) {
                    self.1 = Some((n, *span));
                }
            }
        }
    }
    let mut v = Names(names, None);
    for it in items {
        v.visit_block_item(&it.node, &it.span);
    }
    v.1
}

/// The body of the function `c` calls, as the region to model, after checking that the
/// call passes what the body reads (see the module's comment).
fn followed<'a>(
    unit: &'a TranslationUnit,
    sm: &SourceMap,
    reg: &Region<'a>,
    c: &Call<'_>,
    locals: &[&str],
) -> Result<Region<'a>, Diagnostic> {
    let label = |s: &Span, d: Diagnostic, msg: &str| {
        let sp = sm.span_or_pre(s.start..s.end);
        d.with_label(&sp.file, sp.range, msg)
    };
    let refuse = |s: &Span, what: String| {
        label(
            s,
            Diagnostic::new(codes::UNSUPPORTED_C, what),
            "in the call the test between two versions makes",
        )
    };
    let f = definition(unit, &c.name)
        .ok_or_else(|| refuse(c.span, format!("`{}` is not defined in this file", c.name)))?;
    let params = parameters(&f.node)
        .ok_or_else(|| refuse(c.span, format!("`{}`'s parameters cannot be read", c.name)))?;
    if params.len() != c.args.len() {
        return Err(refuse(
            c.span,
            format!(
                "`{}` takes {} parameters and is passed {}",
                c.name,
                params.len(),
                c.args.len()
            ),
        ));
    }
    let Statement::Compound(items) = &f.node.statement.node else {
        return Err(refuse(c.span, format!("`{}` has no body", c.name)));
    };
    let body = f.node.statement.span.start..f.node.statement.span.end;
    let caller = Symbols::collect(unit, &sm.pre, &reg.function, reg.range.clone());
    let callee = Symbols::collect(unit, &sm.pre, &c.name, body.clone());
    for (p, a) in params.iter().zip(c.args) {
        let text = sm.pre.get(a.span.start..a.span.end).unwrap_or("");
        if let Some(n) = locals.iter().find(|n| mentions(text, n)) {
            return Err(refuse(
                &a.span,
                format!("the argument reads `{n}`, declared before the test"),
            ));
        }
        if let Some((array, d)) = extent_of(&params, &p.name) {
            let want = format!(
                "(long)(sizeof({})/sizeof({}))",
                element(array, d),
                element(array, d + 1)
            );
            if squeeze(text) != want {
                return Err(refuse(
                    &a.span,
                    format!(
                        "`{}` is an extent of `{array}` in `{}`: the argument must be the \
                         caller's extent, `(long)(sizeof({}) / sizeof({}))`",
                        p.name,
                        c.name,
                        element(array, d),
                        element(array, d + 1)
                    ),
                ));
            }
            continue;
        }
        if squeeze(text) != p.name {
            return Err(refuse(
                &a.span,
                format!(
                    "the parameter `{}` of `{}` is passed something other than the caller's `{}`",
                    p.name, c.name, p.name
                ),
            ));
        }
        let (x, y) = (caller.get(&p.name), callee.get(&p.name));
        let same = match (x, y) {
            (Some(x), Some(y)) => {
                x.class == y.class && x.rank == y.rank && x.type_text == y.type_text
            }
            _ => false,
        };
        if !same {
            return Err(refuse(
                &a.span,
                format!(
                    "`{}` has another type in `{}` than in the caller",
                    p.name, c.name
                ),
            ));
        }
    }
    Ok(Region {
        function: c.name.clone(),
        items,
        range: body,
    })
}

fn definition<'a>(unit: &'a TranslationUnit, name: &str) -> Option<&'a Node<FunctionDefinition>> {
    unit.0.iter().find_map(|ed| match &ed.node {
        ExternalDeclaration::FunctionDefinition(f)
            if declarator_name(&f.node.declarator.node).as_deref() == Some(name) =>
        {
            Some(f)
        }
        _ => None,
    })
}

/// A parameter: its name and the identifiers its declarator uses as array extents, with
/// the subscript each counts (`(*C)[n1][n2]`: `n1` for subscript 1, `n2` for 2).
struct Param {
    name: String,
    extents: Vec<(String, usize)>,
}

fn parameters(f: &FunctionDefinition) -> Option<Vec<Param>> {
    let fd = f
        .declarator
        .node
        .derived
        .iter()
        .find_map(|d| match &d.node {
            DerivedDeclarator::Function(fd) => Some(fd),
            _ => None,
        })?;
    let mut out = vec![];
    for p in &fd.node.parameters {
        let d = &p.node.declarator.as_ref()?.node;
        let mut levels = vec![];
        levels_of(d, &mut levels);
        let extents = levels
            .iter()
            .enumerate()
            .filter_map(|(k, l)| l.clone().map(|n| (n, k)))
            .collect();
        out.push(Param {
            name: declarator_name(d)?,
            extents,
        });
    }
    Some(out)
}

/// The levels of a declarator from its name outward: an array level whose extent is an
/// identifier gives the identifier, every other level `None`.
fn levels_of(d: &lang_c::ast::Declarator, out: &mut Vec<Option<String>>) {
    if let DeclaratorKind::Declarator(inner) = &d.kind.node {
        levels_of(&inner.node, out);
    }
    for l in &d.derived {
        out.push(match &l.node {
            DerivedDeclarator::Array(a) => match &a.node.size {
                ArraySize::VariableExpression(e) => match &e.node {
                    Expression::Identifier(id) => Some(id.node.name.clone()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        });
    }
}

/// The array parameter and the subscript whose extent the parameter `name` is.
fn extent_of<'p>(params: &'p [Param], name: &str) -> Option<(&'p str, usize)> {
    params.iter().find_map(|p| {
        p.extents
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| (p.name.as_str(), *k))
    })
}

fn element(x: &str, k: usize) -> String {
    format!("{x}{}", "[0]".repeat(k))
}

/// `s` without white space.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether the C text `s` has the identifier `name` as a word of its own.
fn mentions(s: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    s.match_indices(name).any(|(k, _)| {
        let before = s[..k].chars().next_back().is_none_or(|c| !ident(c));
        let after = s[k + name.len()..].chars().next().is_none_or(|c| !ident(c));
        before && after
    })
}
