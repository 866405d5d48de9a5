//! Declarations in the region and their initialisers.

use super::*;

impl<'a> Builder<'a> {
    pub(super) fn declaration(&mut self, d: &Node<Declaration>) -> R<()> {
        let storage = d.node.specifiers.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::StorageClass(c) => Some(c.node.clone()),
            _ => None,
        });
        if matches!(storage, Some(StorageClassSpecifier::Typedef)) {
            if self.lanes.is_some() && self.opaque.is_none() {
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
        let (_, mut base) = self.syms.class_of_decl(&d.node.specifiers);
        let (mut type_text, _) = self.syms.type_text(&d.node.specifiers);
        // A region typedef or `__typeof__` (read with vector types): its element type, and
        // a vector's lanes as one more dimension.
        let mut vector = None;
        if self.lanes.is_some() {
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
        let mut store = Err("a declaration without an initializer".to_string());
        let mut inits = 0;
        let mut acc = vec![];
        let mut init = false;
        let mut declared = vec![];
        for x in &d.node.declarators {
            let decl = &x.node.declarator.node;
            if is_function(decl) {
                continue;
            }
            let Some(name) = declarator_name(decl) else {
                continue;
            };
            let rank = base + declarator_rank(decl);
            let clash = |n: &str| {
                self.syms.get(n).is_some()
                    || self.local_names.contains(n)
                    || self.lookup(n).is_some()
            };
            let array = if clash(&name) {
                self.fresh(&name, clash)
            } else {
                name.clone()
            };
            self.local_names.insert(array.clone());
            self.local_types.insert(array.clone(), type_text.clone());
            if let Some(l) = vector {
                self.set_vector(&array, l);
            }
            self.declare_extents(&array, decl, vector)?;
            if !persistent {
                declared.push(array.clone());
            }
            // A variable declared inside the region is a new one in every iteration of
            // the loops around it, unless it is static.
            let private_depth = (!persistent).then_some(self.loops.len());
            if self.opaque.is_some() {
                self.bind(&name, Binding::OpaqueLocal);
            } else {
                self.bind(
                    &name,
                    Binding::Local {
                        array: array.clone(),
                        rank,
                        private_depth,
                    },
                );
            }
            // A static initializer runs once, before the program starts.
            let Some(i) = &x.node.initializer else {
                continue;
            };
            if persistent {
                continue;
            }
            if self.lanes.is_some()
                && rank > 0
                && matches!(&i.node, Initializer::Expression(e) if super::heap::is_malloc(e))
            {
                // A buffer on the heap: a local array with no known element yet.
                self.heap_buffer(&array);
                continue;
            }
            if vector.is_some() {
                return Err(self.err(
                    "a vector variable declared with a value cannot be read",
                    &x.span,
                    "declare it, then assign it",
                ));
            }
            init = true;
            self.initializer(&i.node, &mut acc)?;
            if self.opaque.is_none() {
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
                    &mut acc,
                )?;
                let one = self.store_of_init(&i.node, &acc);
                if self.lanes.is_some() {
                    // Read for `loopy equiv`: each declarator is a statement of its own,
                    // and an integer set to an affine value is known (`offsets.rs`).
                    self.push_statement(&x.span, std::mem::take(&mut acc), None);
                    if let Some(st) = self.stmts.last_mut() {
                        st.declares = vec![array.clone()];
                        st.store = one;
                    }
                    if let Initializer::Expression(v) = &i.node {
                        self.note_value(&name, v)?;
                    }
                    continue;
                }
                inits += 1;
                store = one;
            }
        }
        if self.lanes.is_some() && self.opaque.is_none() && inits == 0 {
            init = false;
        }
        if inits > 1 {
            store = Err("the declaration initialises more than one variable".into());
        }
        if init && self.opaque.is_none() {
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
