//! Declarations in the region and their initialisers.

use super::*;

/// What a declaration's specifiers give each of its declarators.
struct DeclType {
    /// Levels from the type itself (a typedef'd array, a vector's lanes).
    base: usize,
    type_text: String,
    /// A vector type's lanes.
    vector: Option<usize>,
    /// `static`, `extern` or thread-local: initialised once, not per iteration.
    persistent: bool,
}

/// The initialisers of one declaration, gathered into one statement (or, with generated
/// code read, one statement per declarator, pushed as they come).
struct Inits {
    store: Result<crate::model::value::Store, String>,
    /// Declarators initialised into the gathered statement.
    count: usize,
    acc: Vec<Access>,
    /// Some declarator has an initializer.
    any: bool,
    /// The variables declared (not `static`), for the statement's `declares`.
    declared: Vec<String>,
}

impl<'a> Builder<'a> {
    pub(super) fn declaration(&mut self, d: &Node<Declaration>) -> R<()> {
        let storage = d.node.specifiers.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::StorageClass(c) => Some(c.node.clone()),
            _ => None,
        });
        if matches!(storage, Some(StorageClassSpecifier::Typedef)) {
            if self.generated.is_some() && self.opaque.is_none() {
                return self.region_typedef(d);
            }
            return Err(self.err(
                "type definitions cannot be inside the region",
                &d.span,
                "a typedef",
            ));
        }
        let persistent = matches!(
            storage,
            Some(StorageClassSpecifier::Static)
                | Some(StorageClassSpecifier::ThreadLocal)
                | Some(StorageClassSpecifier::Extern)
        );
        if persistent && self.opaque.is_none() {
            let sp = self.span(&d.span);
            self.declarations
                .push(normalize(self.sm.text(&sp).unwrap_or("")));
        }
        if matches!(storage, Some(StorageClassSpecifier::Extern)) {
            return Ok(());
        }
        let ty = self.declared_type(d, persistent)?;
        let mut inits = Inits {
            store: Err("a declaration without an initializer".to_string()),
            count: 0,
            acc: vec![],
            any: false,
            declared: vec![],
        };
        for x in &d.node.declarators {
            self.declarator(x, &ty, &mut inits)?;
        }
        let Inits {
            mut store,
            count,
            mut acc,
            mut any,
            declared,
        } = inits;
        if self.generated.is_some() && self.opaque.is_none() && count == 0 {
            any = false;
        }
        if count > 1 {
            store = Err("the declaration initialises more than one variable".into());
        }
        if any && self.opaque.is_none() {
            self.push_statement(&d.span, acc, None);
            if let Some(st) = self.stmts.last_mut() {
                st.declares = declared;
                st.store = store;
            }
        } else if self.opaque.is_some() {
            self.opaque_acc.append(&mut acc);
        }
        Ok(())
    }

    /// What the declaration's specifiers say of every declarator: the element type and
    /// the levels it adds, with a region typedef or `__typeof__` read (generated code: a
    /// vector's lanes are one more dimension).
    fn declared_type(&self, d: &Node<Declaration>, persistent: bool) -> R<DeclType> {
        let (_, mut base) = self.syms.class_of_decl(&d.node.specifiers);
        let (mut type_text, _) = self.syms.type_text(&d.node.specifiers);
        let mut vector = None;
        if self.generated.is_some() {
            match self.region_type(&d.node.specifiers) {
                Ok(Some(t)) => {
                    type_text = t.elem;
                    if t.lanes > 1 {
                        vector = Some(t.lanes);
                        base += 1;
                    }
                }
                Ok(None) => {}
                Err(why) => {
                    return Err(self.err(
                        format!("the type of this declaration cannot be read: {why}"),
                        &d.span,
                        "declared here",
                    ))
                }
            }
        }
        Ok(DeclType {
            base,
            type_text,
            vector,
            persistent,
        })
    }

    /// One declarator: the variable it declares and, when it has one, its initializer's
    /// accesses (in `inits`; with generated code read, a statement of its own).
    fn declarator(
        &mut self,
        x: &Node<lang_c::ast::InitDeclarator>,
        ty: &DeclType,
        inits: &mut Inits,
    ) -> R<()> {
        let decl = &x.node.declarator.node;
        if is_function(decl) {
            return Ok(());
        }
        let Some(name) = declarator_name(decl) else {
            return Ok(());
        };
        let (array, rank, private_depth) = self.declare_variable(&name, decl, ty)?;
        self.local_decls.insert(array.clone(), x.span);
        if !ty.persistent {
            inits.declared.push(array.clone());
        }
        // A static initializer runs once, before the program starts.
        let Some(i) = &x.node.initializer else {
            return Ok(());
        };
        if ty.persistent {
            return Ok(());
        }
        if self.generated.is_some()
            && rank > 0
            && matches!(&i.node, Initializer::Expression(e) if super::heap::is_malloc(e))
        {
            // A buffer on the heap: a local array with no known element yet.
            self.heap_buffer(&array);
            return Ok(());
        }
        if ty.vector.is_some() {
            return Err(self.err(
                "a vector variable declared with a value cannot be read",
                &x.span,
                "declare it, then assign it",
            ));
        }
        inits.any = true;
        self.initializer(&i.node, &mut inits.acc)?;
        if self.opaque.is_some() {
            return Ok(());
        }
        let subs = (0..rank)
            .map(|_| Err("initialised as a whole".to_string()))
            .collect();
        self.add_access(
            &array,
            &name,
            rank,
            private_depth,
            subs,
            Mode::Write,
            &x.span,
            &mut inits.acc,
        )?;
        let one = self.store_of_init(&i.node, &inits.acc);
        if self.generated.is_none() {
            inits.count += 1;
            inits.store = one;
            return Ok(());
        }
        // Read for `loopy equiv`: each declarator is a statement of its own, and an
        // integer set to an affine value is known (`offsets.rs`).
        self.push_statement(&x.span, std::mem::take(&mut inits.acc), None);
        if let Some(st) = self.stmts.last_mut() {
            st.declares = vec![array];
            st.store = one;
        }
        match &i.node {
            Initializer::Expression(v) => self.note_value(&name, v),
            Initializer::List(_) => Ok(()),
        }
    }

    /// Declares `name` in the current scope: its model name (fresh where it clashes), its
    /// rank and the loop depth it is private to.
    fn declare_variable(
        &mut self,
        name: &str,
        decl: &lang_c::ast::Declarator,
        ty: &DeclType,
    ) -> R<(String, usize, Option<usize>)> {
        let rank = ty.base + declarator_rank(decl);
        let clash = |n: &str| {
            self.syms.get(n).is_some() || self.local_names.contains(n) || self.lookup(n).is_some()
        };
        let array = if clash(name) {
            self.fresh(name, clash)
        } else {
            name.to_string()
        };
        self.local_names.insert(array.clone());
        self.local_types.insert(array.clone(), ty.type_text.clone());
        if let Some(l) = ty.vector {
            self.set_vector(&array, l);
        }
        self.declare_extents(&array, decl, ty.vector)?;
        // A variable declared inside the region is a new one in every iteration of the
        // loops around it, unless it is static.
        let private_depth = (!ty.persistent).then_some(self.loops.len());
        if self.opaque.is_some() {
            self.bind(name, Binding::OpaqueLocal);
        } else {
            self.bind(
                name,
                Binding::Local {
                    array: array.clone(),
                    rank,
                    private_depth,
                },
            );
        }
        Ok((array, rank, private_depth))
    }

    pub(super) fn initializer(&mut self, i: &Initializer, acc: &mut Vec<Access>) -> R<()> {
        match i {
            Initializer::Expression(e) => self.expr(e, Mode::Read, acc),
            Initializer::List(items) => {
                for it in items {
                    self.initializer(&it.node.initializer.node, acc)?;
                }
                Ok(())
            }
        }
    }
}
