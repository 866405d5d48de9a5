//! The finished model: checks over the whole region, then the `Scop`.

use super::*;
use crate::diag::codes;

impl<'a> Builder<'a> {
    pub fn finish(mut self, file: &str, function: &str, region: SourceSpan) -> R<Scop> {
        // Loop counters must not be read or written outside the loops they count: the
        // model does not see the loop headers' writes.
        for st in &self.stmts {
            for a in &st.accesses {
                let Some(arr) = self.arrays.iter().find(|x| x.name == a.array) else {
                    continue;
                };
                if arr.rank == 0 && self.pre.counters.contains(&arr.c_name) {
                    let name = &arr.c_name;
                    return Err(Diagnostic::new(codes::COUNTER_ESCAPES, format!(
                        "the loop counter `{name}` is used outside the loops that count with it"
                    ))
                    .with_label(&a.span.file, a.span.range.clone(), format!("{} `{name}`", if a.kind == AccessKind::Read { "reads" } else { "writes" }))
                    .with_note("the model does not see the values a loop leaves in its counter, nor keeps them when loops are transformed")
                    .with_help(format!("use another variable here, or declare the counter in the loop: `for (int {name} = …)`")));
                }
            }
        }
        let params = self.params.clone();
        // Reads of parameters are not accesses: they never change inside the region. A
        // value that read one reads the parameter's integer value, and the slots of the
        // other accesses move down.
        for st in &mut self.stmts {
            let mut slot = vec![None; st.accesses.len()];
            let mut next = 0;
            for (k, a) in st.accesses.iter().enumerate() {
                if !params.contains(&a.array) {
                    slot[k] = Some(next);
                    next += 1;
                }
            }
            let names: Vec<String> = st.accesses.iter().map(|a| a.array.clone()).collect();
            if let Ok(store) = &mut st.store {
                match slot.get(store.write).copied().flatten() {
                    Some(w) if renumber(&mut store.value, &slot, &names) => store.write = w,
                    _ => st.store = Err("the statement writes a parameter".into()),
                }
            }
            st.accesses.retain(|a| !params.contains(&a.array));
        }
        self.arrays.retain(|a| !params.contains(&a.name));
        // A macro that expands to several statements gives them one original span; its
        // text would be emitted once per statement, so they keep the expanded text.
        let spans: Vec<SourceSpan> = self.stmts.iter().map(|s| s.span.clone()).collect();
        for (k, st) in self.stmts.iter_mut().enumerate() {
            let shared = spans.iter().enumerate().any(|(j, o)| {
                j != k
                    && o.file == st.span.file
                    && o.range.start < st.span.range.end
                    && st.span.range.start < o.range.end
            });
            if shared {
                st.text = st.expanded_text.clone();
            }
        }
        // A loop that declares its counter may shadow a name the region also uses as a
        // parameter (outside that loop): give the iterator a fresh name so that no set has
        // a parameter and a dimension of one name.
        for k in 0..self.stmts.len() {
            let clashes: Vec<String> = self.stmts[k]
                .iterators
                .iter()
                .filter(|i| params.contains(i))
                .cloned()
                .collect();
            for old in clashes {
                let its = self.stmts[k].iterators.clone();
                let new = self.fresh(&old, |n| {
                    params.iter().any(|p| p == n) || its.iter().any(|i| i == n)
                });
                self.stmts[k].rename_iterator(&old, &new);
            }
        }
        let depth = self
            .stmts
            .iter()
            .map(|s| s.schedule.depth())
            .max()
            .unwrap_or(0);
        for st in &mut self.stmts {
            st.domain = st.domain.align_params(&params).simplify();
            st.schedule.pad_to(depth);
            st.schedule.dims = st.schedule.dims.align_params(&params);
            for a in &mut st.accesses {
                a.relation = a.relation.align_params(&params).simplify();
            }
        }
        // Facts the code states: unsigned parameters are not negative.
        let space = Space {
            params: params.clone(),
            domain: None,
            range: Tuple::default(),
        };
        let mut context = Set::universe(space);
        for p in &params {
            if let Some(info) = self.syms.get(p) {
                if matches!(info.class, TypeClass::Integer { unsigned: true }) {
                    context = context.intersect(&aff::set_from(&[], &[], &[LinExpr::var(p)]));
                }
            }
        }
        let context = context.align_params(&params).simplify();
        // Tags in the order their labels appear (they are completed inside out).
        let host = self.host(file);
        let mut tags = self.tags;
        tags.sort_by_key(|t| (t.span.file != file, t.span.range.start));
        Ok(Scop {
            file: file.to_string(),
            function: function.to_string(),
            fragment: false,
            region,
            params,
            context,
            arrays: self.arrays,
            statements: self.stmts,
            tags,
            declarations: self.declarations,
            host,
            stops: self.generated.map(|l| l.stops).unwrap_or_default(),
            version: None,
        })
    }

    /// The host function as generated code needs it (`Scop::host`).
    fn host(&self, file: &str) -> Host {
        let Some(f) = &self.syms.function else {
            return Host::default();
        };
        let start = self
            .sm
            .span(f.start..f.start + 1)
            .filter(|s| s.file == file)
            .map(|s| s.range.start);
        // Text as written in the main file when the range maps there whole.
        let written = |r: &std::ops::Range<usize>| -> String {
            let pre = self.sm.pre.get(r.clone()).unwrap_or("");
            let orig = self
                .sm
                .span(r.clone())
                .filter(|s| s.file == file)
                .and_then(|s| self.sm.text(&s).map(str::to_string));
            let text = orig.unwrap_or_else(|| pre.to_string());
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        let params = f.params.as_ref().map(|ps| {
            ps.iter()
                .map(|p| {
                    let levels = self
                        .syms
                        .get(&p.name)
                        .map(|i| i.levels.clone())
                        .unwrap_or_default();
                    let arrays = levels.first() == Some(&DeclLevel::Pointer)
                        && levels[1..].iter().all(|l| *l == DeclLevel::Array);
                    let text = written(&p.span);
                    let specifiers = p
                        .specifiers
                        .as_ref()
                        .map(|r| element_type(&written(r), &text, self.sm.pre.get(r.clone())));
                    HostParam {
                        name: p.name.clone(),
                        text,
                        specifiers,
                        array_levels: if arrays { levels.len() } else { 0 },
                    }
                })
                .collect()
        });
        let mut names: Vec<HostName> = self
            .pre
            .idents
            .iter()
            .filter_map(|n| {
                let info = self.syms.get(n)?;
                if info.function || info.enumerator || info.scope == Scope::File {
                    return None;
                }
                let arithmetic =
                    matches!(info.class, TypeClass::Integer { .. } | TypeClass::Floating);
                Some(HostName {
                    name: n.clone(),
                    param: info.scope == Scope::Param,
                    written: self.pre.written.contains_key(n),
                    counter: self.pre.counters.contains(n),
                    scalar_type: (info.rank == 0 && arithmetic && !info.storage_class)
                        .then(|| info.type_text.clone()),
                })
            })
            .collect();
        names.sort_by(|a, b| a.name.cmp(&b.name));
        Host {
            start,
            params,
            names,
        }
    }
}

/// The element type of a parameter as written: its specifiers' original text when that is
/// words only (`DATA_TYPE`, `const double`); for a declarator written by a macro
/// (`DATA_TYPE POLYBENCH_2D(A, NI, NJ, ni, nj)`, where the specifiers do not map back
/// alone), the words before the macro; else as the compiler sees them.
fn element_type(mapped: &str, param: &str, pre: Option<&str>) -> String {
    let words = |t: &str| {
        !t.is_empty()
            && t.split_whitespace()
                .all(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    };
    if words(mapped) {
        return mapped.to_string();
    }
    if let Some(open) = param.find('(') {
        let head: Vec<&str> = param[..open].split_whitespace().collect();
        // The macro's arguments end the declaration (a mapped range may run on to the
        // `,` or `)` after it).
        let mut depth = 0;
        let close = param[open..].char_indices().find_map(|(k, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(open + k)
        });
        let rest_ok = close.is_some_and(|c| {
            param[c + 1..]
                .chars()
                .all(|x| x.is_whitespace() || x == ',' || x == ')')
        });
        if head.len() >= 2 && rest_ok && words(&head.join(" ")) {
            return head[..head.len() - 1].join(" ");
        }
    }
    pre.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Moves a value's read slots to the accesses' new positions; a read of a removed access
/// (a parameter) becomes the parameter's name. False when an assignment inside the value
/// writes a parameter.
fn renumber(v: &mut crate::model::value::Value, slot: &[Option<usize>], names: &[String]) -> bool {
    use crate::model::value::Value;
    match v {
        Value::Read(k) => match slot.get(*k).copied().flatten() {
            Some(n) => *k = n,
            None => *v = Value::Name(names.get(*k).cloned().unwrap_or_default()),
        },
        Value::Const(_) | Value::Name(_) => {}
        Value::Op(_, xs) => return xs.iter_mut().all(|x| renumber(x, slot, names)),
        Value::Assign(w, x) => match slot.get(*w).copied().flatten() {
            Some(n) => {
                *w = n;
                return renumber(x, slot, names);
            }
            None => return false,
        },
    }
    true
}

#[cfg(test)]
mod tests {
    use super::element_type;

    #[test]
    fn element_types_as_written() {
        assert_eq!(
            element_type("const double", "const double *A", Some("const double")),
            "const double"
        );
        // A declarator written by a macro: the words before it.
        assert_eq!(
            element_type(
                "DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),",
                "DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),",
                Some("double")
            ),
            "DATA_TYPE"
        );
        // Anything else: as the compiler sees it.
        assert_eq!(element_type("T(x", "T(x", Some("double")), "double");
    }
}
