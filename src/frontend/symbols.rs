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
use lang_c::span::Node;
use std::collections::HashMap;
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    pub class: TypeClass,
    /// Array dimensions plus pointer levels: how many subscripts the name takes.
    pub rank: usize,
    pub function: bool,
    pub enumerator: bool,
}

#[derive(Default)]
pub struct Symbols {
    vars: HashMap<String, VarInfo>,
    typedefs: HashMap<String, (TypeClass, usize)>,
}

impl Symbols {
    pub fn get(&self, name: &str) -> Option<&VarInfo> {
        self.vars.get(name)
    }

    /// File-scope declarations, then `function`'s parameters and the declarations of its
    /// body that are not inside `region` (byte range in the preprocessed text).
    pub fn collect(unit: &TranslationUnit, function: &str, region: Range<usize>) -> Symbols {
        let mut s = Symbols::default();
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
                    s.function(&f.node, &region);
                }
            }
        }
        s
    }

    fn function(&mut self, f: &FunctionDefinition, region: &Range<usize>) {
        for d in &f.declarator.node.derived {
            if let DerivedDeclarator::Function(fd) = &d.node {
                for p in &fd.node.parameters {
                    let (class, base_rank) = self.class_of(&p.node.specifiers);
                    if let Some(decl) = &p.node.declarator {
                        self.declare(&decl.node, class, base_rank);
                    }
                }
            }
        }
        for d in &f.declarations {
            self.declaration(&d.node);
        }
        self.statement(&f.statement, region);
    }

    fn statement(&mut self, s: &Node<Statement>, region: &Range<usize>) {
        if s.span.start >= region.start && s.span.end <= region.end {
            return;
        }
        match &s.node {
            Statement::Compound(items) => {
                for it in items {
                    if it.span.start >= region.start && it.span.end <= region.end {
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
        self.enumerators(&d.specifiers);
        for id in &d.declarators {
            let decl = &id.node.declarator.node;
            if typedef {
                if let Some(n) = declarator_name(decl) {
                    self.typedefs
                        .insert(n, (class, base_rank + declarator_rank(decl)));
                }
            } else {
                self.declare(decl, class, base_rank);
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
                            },
                        );
                    }
                }
            }
        }
    }

    fn declare(&mut self, decl: &Declarator, class: TypeClass, base_rank: usize) {
        if let Some(n) = declarator_name(decl) {
            let function = is_function(decl);
            self.vars.insert(
                n,
                VarInfo {
                    class,
                    rank: base_rank + declarator_rank(decl),
                    function,
                    enumerator: false,
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
