//! What the names a region uses are, as far as the model needs to know: integers (which can
//! be loop bounds and subscripts), arrays and pointers (how many subscripts they take),
//! functions, enumeration constants.
//!
//! Only declarations outside the region are collected here (file scope, the function's
//! parameters, the function body outside the region); the builder keeps the region's own.

use lang_c::ast::{
    BlockItem, Declaration, DeclarationSpecifier, Declarator, DeclaratorKind, DerivedDeclarator,
    ExternalDeclaration, FunctionDefinition, SpecifierQualifier, Statement, StorageClassSpecifier,
    TranslationUnit, TypeSpecifier,
};
use lang_c::span::{Node, Span};
use lang_c::visit::Visit;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// The scalar type class of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    Integer {
        unsigned: bool,
    },
    Floating,
    /// Structs, unions, `void`, anything else.
    Other,
}

/// Where a name is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    File,
    /// A parameter of the region's function.
    Param,
    /// Inside the region's function (outside the region).
    Local,
}

/// One level of a declarator's type, from the name outward: `double (*A)[N]` is
/// `[Pointer, Array]`, `double *A[N]` is `[Array, Pointer]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclLevel {
    Array,
    Pointer,
    /// A function, or a level a typedef hides.
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    pub class: TypeClass,
    /// Array dimensions plus pointer levels: how many subscripts the name takes.
    pub rank: usize,
    pub function: bool,
    pub enumerator: bool,
    pub scope: Scope,
    /// The declarator's levels, from the name outward (a parameter's first array level
    /// is adjusted to a pointer, as C does); levels from a typedef are `Other`.
    pub levels: Vec<DeclLevel>,
    /// The type specifiers and qualifiers as written after preprocessing (`int`,
    /// `unsigned long`), and whether a storage class (`static`, `extern`…) was given.
    pub type_text: String,
    pub storage_class: bool,
}

/// A parameter of the region's function, for a copy of its parameter list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnParam {
    pub name: String,
    /// The declaration, in the preprocessed text.
    pub span: Range<usize>,
    /// Its declaration specifiers (the element type of an array parameter), in the
    /// preprocessed text.
    pub specifiers: Option<Range<usize>>,
}

/// The region's function, for outlining the transformed region into a function of its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionDecl {
    /// Where the definition starts in the preprocessed text.
    pub start: usize,
    /// Its parameters, in order; `None` when they cannot be copied (an old-style or
    /// variadic definition, an unnamed parameter).
    pub params: Option<Vec<FnParam>>,
}

#[derive(Default)]
pub struct Symbols {
    vars: HashMap<String, VarInfo>,
    typedefs: HashMap<String, (TypeClass, usize)>,
    /// Names whose address is taken (`&x`) in the region's function.
    address_taken: HashSet<String>,
    scope: Option<Scope>,
    pub function: Option<FunctionDecl>,
    pre: String,
}

/// Collects the names of `&name` expressions.
struct AddressTaken<'a>(&'a mut HashSet<String>);

impl<'ast> Visit<'ast> for AddressTaken<'_> {
    fn visit_unary_operator_expression(
        &mut self,
        e: &'ast lang_c::ast::UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        if e.operator.node == lang_c::ast::UnaryOperator::Address {
            if let lang_c::ast::Expression::Identifier(id) = &e.operand.node {
                self.0.insert(id.node.name.clone());
            }
        }
        lang_c::visit::visit_unary_operator_expression(self, e, span);
    }
}

impl Symbols {
    pub fn get(&self, name: &str) -> Option<&VarInfo> {
        self.vars.get(name)
    }

    /// Declares `name` as the file does not (a fragment's names, declared by their use).
    pub fn declare_implicit(&mut self, name: &str, info: VarInfo) {
        self.vars.insert(name.to_string(), info);
    }

    /// Whether `&name` occurs in the region's function (for its parameters and locals).
    pub fn address_taken(&self, name: &str) -> bool {
        self.address_taken.contains(name)
    }

    /// File-scope declarations, then `function`'s parameters and the declarations of its
    /// body that are not inside `region` (byte range in the preprocessed text `pre`).
    pub fn collect(
        unit: &TranslationUnit,
        pre: &str,
        function: &str,
        region: Range<usize>,
    ) -> Symbols {
        let mut s = Symbols {
            pre: pre.to_string(),
            scope: Some(Scope::File),
            ..Symbols::default()
        };
        for ed in &unit.0 {
            match &ed.node {
                ExternalDeclaration::Declaration(d) => s.declaration(&d.node),
                ExternalDeclaration::FunctionDefinition(f) => {
                    if let Some(n) = declarator_name(&f.node.declarator.node) {
                        s.vars.insert(
                            n,
                            VarInfo {
                                class: TypeClass::Other,
                                rank: 0,
                                function: true,
                                enumerator: false,
                                scope: Scope::File,
                                levels: vec![DeclLevel::Other],
                                type_text: String::new(),
                                storage_class: false,
                            },
                        );
                    }
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        for ed in &unit.0 {
            if let ExternalDeclaration::FunctionDefinition(f) = &ed.node {
                if declarator_name(&f.node.declarator.node).as_deref() == Some(function) {
                    s.function(&f.node, &f.span, &region);
                    AddressTaken(&mut s.address_taken).visit_function_definition(&f.node, &f.span);
                }
            }
        }
        s
    }

    fn function(&mut self, f: &FunctionDefinition, span: &Span, region: &Range<usize>) {
        self.scope = Some(Scope::Param);
        let mut params: Option<Vec<FnParam>> = Some(vec![]);
        let mut seen = false;
        for d in &f.declarator.node.derived {
            if let DerivedDeclarator::Function(fd) = &d.node {
                seen = true;
                if fd.node.ellipsis == lang_c::ast::Ellipsis::Some {
                    params = None;
                }
                let only_void = fd.node.parameters.len() == 1
                    && fd.node.parameters[0].node.declarator.is_none()
                    && matches!(
                        fd.node.parameters[0].node.specifiers[..],
                        [Node {
                            node: DeclarationSpecifier::TypeSpecifier(Node {
                                node: TypeSpecifier::Void,
                                ..
                            }),
                            ..
                        }]
                    );
                for p in &fd.node.parameters {
                    let (class, base_rank) = self.class_of(&p.node.specifiers);
                    let (type_text, storage_class) = self.type_text(&p.node.specifiers);
                    if let Some(decl) = &p.node.declarator {
                        self.declare(&decl.node, class, base_rank, type_text, storage_class);
                    }
                    if only_void {
                        continue;
                    }
                    let decl = p.node.declarator.as_ref();
                    match (decl.and_then(|d| declarator_name(&d.node)), params.as_mut()) {
                        (Some(name), Some(v)) => {
                            let specs = &p.node.specifiers;
                            v.push(FnParam {
                                name,
                                span: p.span.start..p.span.end,
                                specifiers: specs
                                    .first()
                                    .zip(specs.last())
                                    .map(|(a, b)| a.span.start..b.span.end),
                            });
                        }
                        _ => params = None,
                    }
                }
            }
        }
        if !seen || !f.declarations.is_empty() {
            params = None;
        }
        self.function = Some(FunctionDecl {
            start: span.start,
            params,
        });
        self.scope = Some(Scope::Local);
        for d in &f.declarations {
            self.declaration(&d.node);
        }
        self.statement(&f.statement, region);
    }

    /// The type specifiers and qualifiers of a declaration as written (preprocessed), and
    /// whether it has a storage class.
    pub(crate) fn type_text(&self, specs: &[Node<DeclarationSpecifier>]) -> (String, bool) {
        let mut words = vec![];
        let mut storage = false;
        for s in specs {
            match &s.node {
                DeclarationSpecifier::TypeSpecifier(_) | DeclarationSpecifier::TypeQualifier(_) => {
                    if let Some(t) = self.pre.get(s.span.start..s.span.end) {
                        words.push(t.to_string());
                    }
                }
                DeclarationSpecifier::StorageClass(c) => {
                    storage |= c.node != StorageClassSpecifier::Register;
                }
                _ => {}
            }
        }
        (words.join(" "), storage)
    }

    fn statement(&mut self, s: &Node<Statement>, region: &Range<usize>) {
        let end = |pre: &str, s: &lang_c::span::Span| super::srcmap::statement_end(pre, s);
        if s.span.start >= region.start && end(&self.pre, &s.span) <= region.end {
            return;
        }
        match &s.node {
            Statement::Compound(items) => {
                for it in items {
                    if it.span.start >= region.start && end(&self.pre, &it.span) <= region.end {
                        continue;
                    }
                    match &it.node {
                        BlockItem::Declaration(d) => self.declaration(&d.node),
                        BlockItem::Statement(st) => self.statement(st, region),
                        BlockItem::StaticAssert(_) => {}
                    }
                }
            }
            Statement::Labeled(l) => self.statement(&l.node.statement, region),
            Statement::If(i) => {
                self.statement(&i.node.then_statement, region);
                if let Some(e) = &i.node.else_statement {
                    self.statement(e, region);
                }
            }
            Statement::While(w) => self.statement(&w.node.statement, region),
            Statement::DoWhile(w) => self.statement(&w.node.statement, region),
            Statement::Switch(w) => self.statement(&w.node.statement, region),
            Statement::For(f) => {
                if let lang_c::ast::ForInitializer::Declaration(d) = &f.node.initializer.node {
                    self.declaration(&d.node);
                }
                self.statement(&f.node.statement, region);
            }
            _ => {}
        }
    }

    pub fn declaration(&mut self, d: &Declaration) {
        let typedef = d.specifiers.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::StorageClass(c)
                if c.node == StorageClassSpecifier::Typedef)
        });
        let (class, base_rank) = self.class_of_decl(&d.specifiers);
        let (type_text, storage_class) = self.type_text(&d.specifiers);
        self.enumerators(&d.specifiers);
        for id in &d.declarators {
            let decl = &id.node.declarator.node;
            if typedef {
                if let Some(n) = declarator_name(decl) {
                    self.typedefs
                        .insert(n, (class, base_rank + declarator_rank(decl)));
                }
            } else {
                self.declare(decl, class, base_rank, type_text.clone(), storage_class);
            }
        }
    }

    fn enumerators(&mut self, specs: &[Node<DeclarationSpecifier>]) {
        for s in specs {
            if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                if let TypeSpecifier::Enum(e) = &t.node {
                    for en in &e.node.enumerators {
                        self.vars.insert(
                            en.node.identifier.node.name.clone(),
                            VarInfo {
                                class: TypeClass::Integer { unsigned: false },
                                rank: 0,
                                function: false,
                                enumerator: true,
                                scope: self.scope.unwrap_or(Scope::File),
                                levels: vec![],
                                type_text: String::new(),
                                storage_class: false,
                            },
                        );
                    }
                }
            }
        }
    }

    fn declare(
        &mut self,
        decl: &Declarator,
        class: TypeClass,
        base_rank: usize,
        type_text: String,
        storage_class: bool,
    ) {
        if let Some(n) = declarator_name(decl) {
            let function = is_function(decl);
            let scope = self.scope.unwrap_or(Scope::File);
            let mut levels = declarator_levels(decl);
            if scope == Scope::Param && levels.first() == Some(&DeclLevel::Array) {
                levels[0] = DeclLevel::Pointer;
            }
            levels.extend(std::iter::repeat_n(DeclLevel::Other, base_rank));
            self.vars.insert(
                n,
                VarInfo {
                    class,
                    rank: base_rank + declarator_rank(decl),
                    function,
                    enumerator: false,
                    scope,
                    levels,
                    type_text,
                    storage_class,
                },
            );
        }
    }

    /// The class and pointer/array rank a list of declaration specifiers gives.
    pub fn class_of_decl(&self, specs: &[Node<DeclarationSpecifier>]) -> (TypeClass, usize) {
        self.class_of(specs)
    }

    fn class_of(&self, specs: &[Node<DeclarationSpecifier>]) -> (TypeClass, usize) {
        let ts = specs.iter().filter_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
            _ => None,
        });
        self.classify(ts)
    }

    /// Same as for declarations, for the specifiers of a type name (casts).
    pub fn class_of_type_name(&self, specs: &[Node<SpecifierQualifier>]) -> (TypeClass, usize) {
        let ts = specs.iter().filter_map(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
            _ => None,
        });
        self.classify(ts)
    }

    fn classify<'a>(&self, ts: impl Iterator<Item = &'a TypeSpecifier>) -> (TypeClass, usize) {
        let mut int = false;
        let mut unsigned = false;
        let mut float = false;
        let mut other = false;
        let mut rank = 0;
        for t in ts {
            match t {
                TypeSpecifier::Char
                | TypeSpecifier::Short
                | TypeSpecifier::Int
                | TypeSpecifier::Long
                | TypeSpecifier::Signed
                | TypeSpecifier::Enum(_) => int = true,
                TypeSpecifier::Unsigned | TypeSpecifier::Bool => {
                    int = true;
                    unsigned = true;
                }
                TypeSpecifier::Float
                | TypeSpecifier::Double
                | TypeSpecifier::TS18661Float(_)
                | TypeSpecifier::Complex => float = true,
                TypeSpecifier::TypedefName(n) => match self.typedefs.get(&n.node.name) {
                    Some((TypeClass::Integer { unsigned: u }, r)) => {
                        int = true;
                        unsigned |= *u;
                        rank += r;
                    }
                    Some((TypeClass::Floating, r)) => {
                        float = true;
                        rank += r;
                    }
                    _ => other = true,
                },
                _ => other = true,
            }
        }
        let class = if other || (int && float) {
            TypeClass::Other
        } else if float {
            TypeClass::Floating
        } else if int {
            TypeClass::Integer { unsigned }
        } else {
            TypeClass::Other
        };
        (class, rank)
    }
}

/// The identifier a declarator declares.
pub fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// Pointer and array levels of a declarator (a function declarator has none).
pub fn declarator_rank(d: &Declarator) -> usize {
    let own = d
        .derived
        .iter()
        .filter(|x| {
            matches!(
                x.node,
                DerivedDeclarator::Pointer(_) | DerivedDeclarator::Array(_)
            )
        })
        .count();
    let inner = match &d.kind.node {
        DeclaratorKind::Declarator(i) => declarator_rank(&i.node),
        _ => 0,
    };
    own + inner
}

/// The levels of a declarator's type from the name outward: the inner declarator's, then
/// the suffixes (`[]`, `()`) left to right, then the pointers right to left.
pub fn declarator_levels(d: &Declarator) -> Vec<DeclLevel> {
    let mut out = match &d.kind.node {
        DeclaratorKind::Declarator(i) => declarator_levels(&i.node),
        _ => vec![],
    };
    let mut pointers = vec![];
    for x in &d.derived {
        match x.node {
            DerivedDeclarator::Pointer(_) => pointers.push(DeclLevel::Pointer),
            DerivedDeclarator::Array(_) => out.push(DeclLevel::Array),
            DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => {
                out.push(DeclLevel::Other)
            }
            DerivedDeclarator::Block(_) => out.push(DeclLevel::Other),
        }
    }
    out.extend(pointers.into_iter().rev());
    out
}

/// Does the declarator declare a function (not a pointer to one)?
pub fn is_function(d: &Declarator) -> bool {
    matches!(d.kind.node, DeclaratorKind::Identifier(_))
        && d.derived.iter().any(|x| {
            matches!(
                x.node,
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels_of(src: &str) -> Vec<(String, Vec<DeclLevel>)> {
        let config = lang_c::driver::Config {
            cpp_command: String::new(),
            cpp_options: vec![],
            flavor: lang_c::driver::Flavor::GnuC11,
        };
        let p = lang_c::driver::parse_preprocessed(&config, src.to_string()).unwrap();
        let mut out = vec![];
        for ed in &p.unit.0 {
            if let ExternalDeclaration::Declaration(d) = &ed.node {
                for id in &d.node.declarators {
                    let decl = &id.node.declarator.node;
                    out.push((declarator_name(decl).unwrap(), declarator_levels(decl)));
                }
            }
        }
        out
    }

    #[test]
    fn levels_go_from_the_name_outward() {
        use DeclLevel::{Array as A, Pointer as P};
        let got =
            levels_of("double (*a)[4]; double *b[4]; double c[2][3]; int **d; double (*e[2])[3];");
        assert_eq!(
            got,
            vec![
                ("a".to_string(), vec![P, A]),
                ("b".to_string(), vec![A, P]),
                ("c".to_string(), vec![A, A]),
                ("d".to_string(), vec![P, P]),
                ("e".to_string(), vec![A, P, A]),
            ]
        );
    }

    #[test]
    fn parameters_are_pointers_and_addresses_are_seen() {
        let src = "double g[4];\nvoid f(int n, double A[8][4], double *B, double s) {\n  double t = 0, *p = &t;\n  int i;\n  for (i = 0; i < n; i++) B[i] = A[i][0] * s + *p + g[0];\n}\n";
        let config = lang_c::driver::Config {
            cpp_command: String::new(),
            cpp_options: vec![],
            flavor: lang_c::driver::Flavor::GnuC11,
        };
        let p = lang_c::driver::parse_preprocessed(&config, src.to_string()).unwrap();
        let s = Symbols::collect(&p.unit, &p.source, "f", 0..0);
        let a = s.get("A").unwrap();
        assert_eq!(
            (a.scope, a.levels.clone()),
            (Scope::Param, vec![DeclLevel::Pointer, DeclLevel::Array])
        );
        assert_eq!(s.get("B").unwrap().levels, vec![DeclLevel::Pointer]);
        assert_eq!(s.get("g").unwrap().scope, Scope::File);
        assert_eq!(s.get("g").unwrap().levels, vec![DeclLevel::Array]);
        assert_eq!(s.get("t").unwrap().scope, Scope::Local);
        assert_eq!(s.get("t").unwrap().type_text, "double");
        assert!(s.address_taken("t"));
        assert!(!s.address_taken("s"));
        let params = s.function.as_ref().unwrap().params.as_ref().unwrap();
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["n", "A", "B", "s"]);
        assert_eq!(&p.source[params[1].span.clone()], "double A[8][4]");
    }
}
