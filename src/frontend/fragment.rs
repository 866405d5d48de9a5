//! Fragments: a `#pragma scop` region at file scope, the way Pluto's users keep kernels
//! (statements with no function around them, possibly after some declarations).
//!
//! Such a region is wrapped in a function of its own in the preprocessed text: the function's
//! first and last lines are inserted around the pragma lines under line markers of a file
//! that does not exist (`<fragment>`), followed by markers back to the user's file, so that
//! every span of the region still maps to the user's own text. The names the region uses and
//! the file does not declare are then declared by their use ([`declare_by_use`]).

use super::region::FRAGMENT_FILE as FILE;
use super::symbols::{DeclLevel, Scope, Symbols, TypeClass, VarInfo};
use lang_c::ast::{
    BinaryOperator, BinaryOperatorExpression, BlockItem, CallExpression, Declarator, Expression,
    ForInitializer, ForStatement, IfStatement, MemberExpression, UnaryOperator,
    UnaryOperatorExpression, WhileStatement,
};
use lang_c::span::{Node, Span};
use lang_c::visit::Visit;
use std::collections::{BTreeMap, BTreeSet};

/// The name of the function around the `k`-th fragment.
pub fn function_name(k: usize) -> String {
    if k == 0 {
        "loopy_fragment".to_string()
    } else {
        format!("loopy_fragment_{k}")
    }
}

/// A line marker naming `name` (escaped the way the preprocessor writes it).
fn marker(line: usize, name: &str) -> String {
    let escaped: String = name
        .chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("# {line} \"{escaped}\"\n")
}

/// Wraps each `#pragma scop` … `#pragma endscop` region that is at file scope (outside any
/// `{ }`) in a function: the new text and the names of the functions, or `None` when there
/// is no such region. `line_of` gives the original file and line of a preprocessed offset.
pub fn wrap(
    pre: &str,
    line_of: impl Fn(usize) -> Option<(String, usize)>,
) -> Option<(String, Vec<String>)> {
    let pragmas = super::region::pragmas(pre);
    let toks = super::gnu::tokens(pre);
    // Brace depth at each pragma line.
    let depth_at = |off: usize| -> i64 {
        toks.iter()
            .take_while(|r| r.start < off)
            .map(|r| match &pre[r.clone()] {
                "{" => 1,
                "}" => -1,
                _ => 0,
            })
            .sum()
    };
    let mut pairs = vec![];
    let mut open: Option<&super::region::Pragma> = None;
    for p in &pragmas {
        match (p.end, open) {
            (false, None) => open = Some(p),
            (true, Some(o)) => {
                if depth_at(o.range.start) == 0 && depth_at(p.range.start) == 0 {
                    pairs.push((o.range.clone(), p.range.clone()));
                }
                open = None;
            }
            // Nested or unmatched pragmas are reported by `region::select`.
            _ => return None,
        }
    }
    if pairs.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(pre.len() + 200 * pairs.len());
    let mut names = vec![];
    let mut at = 0;
    for (k, (open, close)) in pairs.into_iter().enumerate() {
        let (file, line) = line_of(open.start)?;
        let (efile, eline) = line_of(close.start)?;
        if efile != file {
            return None;
        }
        let name = function_name(k);
        out.push_str(&pre[at..open.start]);
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&marker(1, FILE));
        out.push_str(&format!("void {name}(void) {{\n"));
        out.push_str(&marker(line, &file));
        out.push_str(&pre[open.start..close.end]);
        out.push('\n');
        out.push_str(&marker(1, FILE));
        out.push_str("}\n");
        out.push_str(&marker(eline + 1, &file));
        // Past the endscop line's newline.
        at = if pre[close.end..].starts_with('\n') {
            close.end + 1
        } else {
            close.end
        };
        names.push(name);
    }
    out.push_str(&pre[at..]);
    Some((out, names))
}

/// How a name is used in a fragment.
#[derive(Default)]
struct Uses {
    /// Counters of `for` loops (`for (i = …`).
    iterators: BTreeSet<String>,
    /// Subscripted names and the largest number of subscripts.
    arrays: BTreeMap<String, usize>,
    /// Assigned names (`x = …`, `x += …`, `x++`).
    written: BTreeSet<String>,
    /// Names in loop bounds, conditions and subscripts.
    affine: BTreeSet<String>,
    /// Every other name read.
    values: BTreeSet<String>,
    /// Names declared in the region.
    declared: BTreeSet<String>,
    /// Inside a bound, a condition or a subscript.
    in_affine: usize,
}

impl Uses {
    fn name(&mut self, n: &str) {
        if self.in_affine > 0 {
            self.affine.insert(n.to_string());
        } else {
            self.values.insert(n.to_string());
        }
    }

    fn affine<F: FnOnce(&mut Self)>(&mut self, f: F) {
        self.in_affine += 1;
        f(self);
        self.in_affine -= 1;
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_expression(&mut self, e: &'ast Expression, span: &'ast Span) {
        match e {
            Expression::Identifier(id) => self.name(&id.node.name),
            _ => lang_c::visit::visit_expression(self, e, span),
        }
    }

    fn visit_declarator(&mut self, d: &'ast Declarator, span: &'ast Span) {
        if let Some(n) = super::symbols::declarator_name(d) {
            self.declared.insert(n);
        }
        lang_c::visit::visit_declarator(self, d, span);
    }

    fn visit_call_expression(&mut self, c: &'ast CallExpression, _: &'ast Span) {
        // The callee is a function, not a variable.
        if !matches!(c.callee.node, Expression::Identifier(_)) {
            self.visit_expression(&c.callee.node, &c.callee.span);
        }
        for a in &c.arguments {
            self.visit_expression(&a.node, &a.span);
        }
    }

    fn visit_member_expression(&mut self, m: &'ast MemberExpression, _: &'ast Span) {
        self.visit_expression(&m.expression.node, &m.expression.span);
    }

    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        use BinaryOperator as B;
        match b.operator.node {
            B::Index => {
                let mut subs = vec![];
                let mut cur: &Node<Expression> = &b.rhs;
                subs.push(cur);
                cur = &b.lhs;
                while let Expression::BinaryOperator(inner) = &cur.node {
                    if inner.node.operator.node != B::Index {
                        break;
                    }
                    subs.push(&inner.node.rhs);
                    cur = &inner.node.lhs;
                }
                match &cur.node {
                    Expression::Identifier(id) => {
                        let r = self.arrays.entry(id.node.name.clone()).or_default();
                        *r = (*r).max(subs.len());
                    }
                    _ => self.visit_expression(&cur.node, &cur.span),
                }
                self.affine(|u| {
                    for s in subs {
                        u.visit_expression(&s.node, &s.span);
                    }
                });
            }
            ref op if super::build::is_assignment(op) => {
                if let Expression::Identifier(id) = &b.lhs.node {
                    self.written.insert(id.node.name.clone());
                }
                lang_c::visit::visit_binary_operator_expression(self, b, span);
            }
            _ => lang_c::visit::visit_binary_operator_expression(self, b, span),
        }
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        use UnaryOperator as U;
        if matches!(
            u.operator.node,
            U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement
        ) {
            if let Expression::Identifier(id) = &u.operand.node {
                self.written.insert(id.node.name.clone());
            }
        }
        lang_c::visit::visit_unary_operator_expression(self, u, span);
    }

    fn visit_for_statement(&mut self, f: &'ast ForStatement, _: &'ast Span) {
        self.affine(|u| {
            match &f.initializer.node {
                ForInitializer::Expression(e) => {
                    if let Expression::BinaryOperator(b) = &e.node {
                        if b.node.operator.node == BinaryOperator::Assign {
                            if let Expression::Identifier(id) = &b.node.lhs.node {
                                u.iterators.insert(id.node.name.clone());
                            }
                        }
                    }
                    u.visit_expression(&e.node, &e.span);
                }
                ForInitializer::Declaration(d) => u.visit_declaration(&d.node, &d.span),
                _ => {}
            }
            if let Some(c) = &f.condition {
                u.visit_expression(&c.node, &c.span);
            }
            if let Some(s) = &f.step {
                u.visit_expression(&s.node, &s.span);
            }
        });
        self.visit_statement(&f.statement.node, &f.statement.span);
    }

    fn visit_if_statement(&mut self, i: &'ast IfStatement, _: &'ast Span) {
        self.affine(|u| u.visit_expression(&i.condition.node, &i.condition.span));
        self.visit_statement(&i.then_statement.node, &i.then_statement.span);
        if let Some(e) = &i.else_statement {
            self.visit_statement(&e.node, &e.span);
        }
    }

    fn visit_while_statement(&mut self, w: &'ast WhileStatement, _: &'ast Span) {
        self.affine(|u| u.visit_expression(&w.expression.node, &w.expression.span));
        self.visit_statement(&w.statement.node, &w.statement.span);
    }
}

/// What a fragment's names are, when the file does not declare them: a subscripted name is
/// an array of `double` (as many dimensions as subscripts), a loop counter an `int`
/// variable, a name in a bound, a condition or a subscript an `int` parameter, an assigned
/// name a `double` variable, any other name read a `double` parameter. Returns the
/// declarations made, as C text, for reports.
pub fn declare_by_use(syms: &mut Symbols, items: &[Node<BlockItem>]) -> Vec<String> {
    let mut u = Uses::default();
    for it in items {
        u.visit_block_item(&it.node, &it.span);
    }
    let mut made = vec![];
    let known = |syms: &Symbols, n: &str| syms.get(n).is_some() || u.declared.contains(n);
    let mut all: BTreeSet<&String> = BTreeSet::new();
    all.extend(u.iterators.iter());
    all.extend(u.arrays.keys());
    all.extend(u.written.iter());
    all.extend(u.affine.iter());
    all.extend(u.values.iter());
    for n in all {
        if known(syms, n) {
            continue;
        }
        let (class, rank, scope, text) = if u.iterators.contains(n) {
            (
                TypeClass::Integer { unsigned: false },
                0,
                Scope::Local,
                format!("int {n}"),
            )
        } else if let Some(&r) = u.arrays.get(n) {
            let dims = "[]".repeat(r);
            (
                TypeClass::Floating,
                r,
                Scope::File,
                format!("double {n}{dims}"),
            )
        } else if u.written.contains(n) {
            (TypeClass::Floating, 0, Scope::Local, format!("double {n}"))
        } else if u.affine.contains(n) {
            (
                TypeClass::Integer { unsigned: false },
                0,
                Scope::Param,
                format!("int {n}"),
            )
        } else {
            (TypeClass::Floating, 0, Scope::Param, format!("double {n}"))
        };
        let type_text = match class {
            TypeClass::Floating => "double",
            _ => "int",
        };
        syms.declare_implicit(
            n,
            VarInfo {
                class,
                rank,
                function: false,
                enumerator: false,
                scope,
                levels: vec![DeclLevel::Array; rank],
                type_text: type_text.to_string(),
                storage_class: false,
            },
        );
        made.push(text);
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_file_scope_regions_only() {
        let pre = "# 1 \"f.c\"\ndouble a[10];\n#pragma scop\nfor (i = 0; i < n; i++) a[i] = 0;\n#pragma endscop\nvoid g(void) {\n#pragma scop\nx = 1;\n#pragma endscop\n}\n";
        let sm = super::super::srcmap::SourceMap::new(pre.to_string(), "f.c", String::new());
        let (text, names) = wrap(pre, |o| sm.line_of(o).map(|(f, l)| (f.to_string(), l))).unwrap();
        assert_eq!(names, ["loopy_fragment"]);
        assert!(text.contains(
            "# 1 \"<fragment>\"\nvoid loopy_fragment(void) {\n# 2 \"f.c\"\n#pragma scop\nfor"
        ));
        assert!(
            text.contains("#pragma endscop\n# 1 \"<fragment>\"\n}\n# 5 \"f.c\"\nvoid g(void) {")
        );
        // The wrapped text maps back line by line.
        let sm2 = super::super::srcmap::SourceMap::new(text.clone(), "f.c", String::new());
        let at = text.find("for (i").unwrap();
        assert_eq!(sm2.line_of(at), Some(("f.c", 3)));
        let at = text.find("void g").unwrap();
        assert_eq!(sm2.line_of(at), Some(("f.c", 5)));
    }
}
