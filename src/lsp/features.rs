//! What the server answers from an analysis: hovers, completions, definitions, and the
//! repair of an illegal step as a code action.

use super::analysis::{Analysis, StepVerdict};
use super::ops::{self, procedures, Procedure};
use super::text::{word_at, LineIndex};
use super::uri;
use crate::driver::Run;
use crate::presburger::budget;
use crate::script::stdlib::{STD_NAME, STD_TEXT};
use lsp_types::{
    CompletionItem, CompletionItemKind, Documentation, Location, MarkupContent, MarkupKind,
    TextEdit,
};
use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The hover text at byte `at`: the step there (its moved statements' schedules before and
/// after, and whether the script is legal after it), or the tag, operation, procedure or
/// parameter named there.
pub fn hover(a: &Analysis, at: usize) -> Option<String> {
    let mut out = String::new();
    let word = word_at(&a.text, at).map(|(w, _)| w.to_string());
    if let Some(w) = &word {
        if let Some(s) = describe_name(a, w) {
            out.push_str(&s);
        }
    }
    if let Some(k) = a.step_at(at) {
        if !out.is_empty() {
            out.push_str("\n\n---\n\n");
        }
        out.push_str(&step_hover(a, k));
    }
    (!out.is_empty()).then_some(out)
}

fn describe_name(a: &Analysis, w: &str) -> Option<String> {
    if let Some(o) = ops::op(w) {
        return Some(format!(
            "```loopy\n{}\n```\n{}",
            o.signatures.join("\n"),
            o.doc
        ));
    }
    if let Some(p) = all_procedures(a).into_iter().find(|(p, _)| p.name == w) {
        return Some(format!("```loopy\n{}\n```\n{}", p.0.signature(), p.0.doc));
    }
    if let Some(p) = a.run_params().into_iter().find(|p| p.name == w) {
        return Some(format!("script parameter `{}`", p.describe()));
    }
    let kernel = a.kernel.as_ref()?;
    let scop = &kernel.scop;
    let stmts: Vec<usize> = if let Some(t) = scop.tags.iter().find(|t| t.name == w) {
        t.statements.clone()
    } else if let Some(k) = scop.statements.iter().position(|s| s.name == w) {
        vec![k]
    } else {
        return None;
    };
    let mut s = format!("`{w}`: {} statement(s) of `{}`\n", stmts.len(), scop.file);
    for k in stmts {
        let st = &scop.statements[k];
        let _ = write!(
            s,
            "\n- `{}` (line {}, {} loop(s): {}) `{}`",
            st.name,
            st.span.line,
            st.iterators.len(),
            st.iterators.join(", "),
            st.text
        );
    }
    Some(s)
}

/// Step `k`'s hover: what it is, whether the script is legal after it, and the schedules of
/// the statements it moved, before and after.
fn step_hover(a: &Analysis, k: usize) -> String {
    let (step, after) = &a.steps[k];
    let mut s = format!(
        "**step {}**: `{}`\n\n",
        step.number,
        step.text.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    match &*a.verdict_after(k) {
        StepVerdict::Legal => s.push_str("legal after this step\n"),
        StepVerdict::Illegal { count, first } => {
            let _ = writeln!(
                s,
                "**illegal** after this step ({count} violation(s)): {first}"
            );
        }
        StepVerdict::Unknown(why) => {
            let _ = writeln!(s, "legality after this step not known: {why}");
        }
    }
    let Some(before) = a.state_before(k) else {
        return s;
    };
    let mut block = String::new();
    for (i, p) in after.pieces.iter().enumerate() {
        if !p.touched.contains(&step.number) {
            continue;
        }
        let name = &after.stmt_names[p.stmt];
        let old: Vec<String> = match before.pieces.get(i).filter(|q| q.stmt == p.stmt) {
            Some(q) => vec![q.schedule().for_print().to_string()],
            None => before
                .pieces
                .iter()
                .filter(|q| q.stmt == p.stmt)
                .map(|q| q.schedule().for_print().to_string())
                .collect(),
        };
        let _ = writeln!(block, "{name}");
        for o in old {
            let _ = writeln!(block, "  before: {o}");
        }
        let _ = writeln!(block, "  after:  {}", p.schedule().for_print());
    }
    if block.is_empty() {
        s.push_str("\nno schedule changed\n");
    } else {
        let _ = write!(s, "\n```text\n{block}```\n");
    }
    s
}

/// The procedures a script can call, with where each is defined: the standard library's,
/// the script's own, and those of the files it imports.
fn all_procedures(a: &Analysis) -> Vec<(Procedure, Option<Location>)> {
    let mut out = vec![];
    let mut add = |text: &str, name: &str, path: Option<&Path>| {
        for p in procedures(text, name) {
            let loc = path.and_then(|path| {
                Some(Location {
                    uri: uri::from_path(path)?,
                    range: LineIndex::new(text).range(&p.name_span),
                })
            });
            out.push((p, loc));
        }
    };
    add(STD_TEXT, STD_NAME, super::stdlib_path().as_deref());
    add(&a.text, &a.name, Some(&a.path));
    let dir = a.path.parent().unwrap_or(Path::new("."));
    for imp in imports(&a.text) {
        let p = dir.join(&imp);
        if let Ok(t) = std::fs::read_to_string(&p) {
            add(&t, &p.display().to_string(), Some(&p));
        }
    }
    out
}

/// The paths the script imports, as written.
fn imports(text: &str) -> Vec<String> {
    let Ok(s) = crate::script::parse::parse_script(text, "") else {
        return vec![];
    };
    s.items
        .iter()
        .filter_map(|i| match i {
            crate::script::ast::ScriptItem::Import { path, .. } => Some(path.clone()),
            _ => None,
        })
        .collect()
}

/// Where the name at byte `at` is defined: a tag's C label, a statement, a procedure's
/// `def`, a parameter's `param`.
pub fn definition(a: &Analysis, at: usize) -> Option<Location> {
    let (w, _) = word_at(&a.text, at)?;
    if let Some((_, loc)) = all_procedures(a).into_iter().find(|(p, _)| p.name == w) {
        return loc;
    }
    if let Some(p) = a.run_params().into_iter().find(|p| p.name == w) {
        let sources = vec![(a.name.clone(), a.text.clone())];
        return a.location(&p.source, &p.span, &sources);
    }
    let kernel = a.kernel.as_ref()?;
    let span = if let Some(t) = kernel.scop.tags.iter().find(|t| t.name == w) {
        &t.span
    } else {
        &kernel.scop.statements.iter().find(|s| s.name == w)?.span
    };
    a.location(&span.file, &span.range, &kernel.sources)
}

/// Where a completion is asked: which call and which of its arguments, if inside one.
#[derive(Debug, PartialEq, Eq)]
enum Context {
    /// The start of a statement.
    Statement,
    /// Argument `arg` (from 0) of a call of `op`; `first` is the first argument's text.
    Arg {
        op: String,
        arg: usize,
        first: String,
    },
    /// Inside a list `[...]` or a set or map `{...}`: integers and names of integers.
    Integers,
}

fn context(text: &str, at: usize) -> Context {
    let before = &text[..at.min(text.len())];
    let mut depth = 0usize;
    let mut commas = 0usize;
    for (k, c) in before.char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '[' | '{' => return Context::Integers,
            '(' => {
                let head = before[..k].trim_end();
                let start = head
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(0, |p| p + 1);
                let inner = &before[k + 1..];
                let first = inner.split(',').next().unwrap_or("").trim().to_string();
                return Context::Arg {
                    op: head[start..].to_string(),
                    arg: commas,
                    first: if commas == 0 { String::new() } else { first },
                };
            }
            ',' if depth == 0 => commas += 1,
            ';' if depth == 0 => return Context::Statement,
            '\n' if depth == 0 => {
                let prev = before[..k].trim_end();
                if !(prev.ends_with(',') || prev.ends_with('(')) {
                    return Context::Statement;
                }
            }
            _ => {}
        }
    }
    Context::Statement
}

/// Completions at byte `at`: operations and procedures where a statement starts; the
/// kernel's tags and statements where a handle goes; loop numbers (with their iterators),
/// arrays and parameters where those go.
pub fn completion(a: &Analysis, at: usize) -> Vec<CompletionItem> {
    let mut out = vec![];
    let item = |label: String, kind, detail: String, doc: String| CompletionItem {
        label,
        kind: Some(kind),
        detail: (!detail.is_empty()).then_some(detail),
        documentation: (!doc.is_empty()).then_some(Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: doc,
        })),
        ..Default::default()
    };
    let params = |out: &mut Vec<CompletionItem>| {
        for p in a.run_params() {
            out.push(item(
                p.name.clone(),
                CompletionItemKind::CONSTANT,
                p.describe(),
                String::new(),
            ));
        }
    };
    match context(&a.text, at) {
        Context::Statement => {
            for o in ops::OPS {
                out.push(item(
                    o.name.to_string(),
                    CompletionItemKind::FUNCTION,
                    o.signatures.join("  |  "),
                    o.doc.to_string(),
                ));
            }
            for (p, _) in all_procedures(a) {
                if ops::op(&p.name).is_none() && !out.iter().any(|i| i.label == p.name) {
                    out.push(item(
                        p.name.clone(),
                        CompletionItemKind::FUNCTION,
                        p.signature(),
                        p.doc.clone(),
                    ));
                }
            }
        }
        Context::Integers => params(&mut out),
        Context::Arg { op, arg, first } => {
            let o = ops::op(&op);
            let handle_first = op != "contract";
            if arg == 0 && handle_first {
                handles(a, &mut out);
            } else if o.is_some_and(|o| o.loop_args.contains(&arg)) {
                loops(a, &first, &mut out);
                params(&mut out);
            } else if matches!(
                (op.as_str(), arg),
                ("copy" | "copy_scaled" | "copy_written" | "expand", 2) | ("contract", 0)
            ) {
                if let Some(k) = &a.kernel {
                    for arr in &k.scop.arrays {
                        out.push(item(
                            arr.name.clone(),
                            CompletionItemKind::VARIABLE,
                            "array or scalar of the kernel".into(),
                            String::new(),
                        ));
                    }
                }
            } else {
                params(&mut out);
            }
        }
    }
    out
}

/// The handles a script can name: the kernel's tags and statements, and the handles its
/// steps have made.
fn handles(a: &Analysis, out: &mut Vec<CompletionItem>) {
    let Some(k) = &a.kernel else {
        return;
    };
    let scop = &k.scop;
    for t in &scop.tags {
        let names: Vec<&str> = t
            .statements
            .iter()
            .map(|&s| scop.statements[s].name.as_str())
            .collect();
        out.push(CompletionItem {
            label: t.name.clone(),
            kind: Some(CompletionItemKind::REFERENCE),
            detail: Some(format!("tag at line {}: {}", t.span.line, names.join(", "))),
            ..Default::default()
        });
    }
    for s in &scop.statements {
        out.push(CompletionItem {
            label: s.name.clone(),
            kind: Some(CompletionItemKind::REFERENCE),
            detail: Some(format!("statement at line {}: {}", s.span.line, s.text)),
            ..Default::default()
        });
    }
    if let Some((_, st)) = a.steps.last() {
        for h in st.handles.keys() {
            if !out.iter().any(|i| &i.label == h) {
                out.push(CompletionItem {
                    label: h.clone(),
                    kind: Some(CompletionItemKind::REFERENCE),
                    detail: Some("handle made by the script".into()),
                    ..Default::default()
                });
            }
        }
    }
}

/// Loop numbers of the handle `first` (its first statement's loops), with their iterators.
fn loops(a: &Analysis, first: &str, out: &mut Vec<CompletionItem>) {
    let Some(k) = &a.kernel else {
        return;
    };
    let scop = &k.scop;
    let stmt = scop
        .tags
        .iter()
        .find(|t| t.name == first)
        .and_then(|t| t.statements.first().copied())
        .or_else(|| scop.statements.iter().position(|s| s.name == first));
    let iters: Vec<String> = match stmt {
        Some(s) => scop.statements[s].iterators.clone(),
        None => {
            let n = scop
                .statements
                .iter()
                .map(|s| s.iterators.len())
                .max()
                .unwrap_or(0);
            (1..=n).map(|k| format!("loop {k}")).collect()
        }
    };
    for (i, name) in iters.iter().enumerate() {
        out.push(CompletionItem {
            label: (i + 1).to_string(),
            kind: Some(CompletionItemKind::VALUE),
            detail: Some(format!(
                "loop {}: `{name}`{}",
                i + 1,
                if i == 0 { " (outermost)" } else { "" }
            )),
            sort_text: Some(format!("{:03}", i + 1)),
            ..Default::default()
        });
    }
}

/// The smallest change of the script that the checker accepts, as one edit of its text
/// (what `loopy suggest` prints), with a title; `None` when the script is legal or no
/// change was found.
pub fn repair(a: &Analysis, cancel: Arc<AtomicBool>) -> Option<(String, TextEdit)> {
    if a.violations.is_empty() {
        return None;
    }
    let kernel = a.kernel.as_ref()?;
    let settings = a.run.as_ref()?.interp.settings().clone();
    let base = a.path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let found = budget::with_cancel(cancel, || {
        let mut run = budget::with_budget(a.budget, || Run::start(kernel)).ok()?;
        run.interp.set_settings(settings);
        crate::suggest::suggest(kernel, &mut run, &a.text, &a.name, &base, 300, a.budget)
    })?;
    let new = &found.change.text;
    let title = format!(
        "loopy: {} {}",
        found.change.what,
        found.change.lines.join("; ")
    );
    Some((title, minimal_edit(&a.text, new)))
}

/// One edit that turns `old` into `new`: the part between their common prefix and suffix.
pub fn minimal_edit(old: &str, new: &str) -> TextEdit {
    let mut p = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let max_s = old.len().min(new.len()) - p;
    let mut s = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_s)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - s) || !new.is_char_boundary(new.len() - s) {
        s -= 1;
    }
    let ix = LineIndex::new(old);
    TextEdit {
        range: ix.range(&(p..old.len() - s)),
        new_text: new[p..new.len() - s].to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts() {
        let c = |t: &str| context(t, t.len());
        assert_eq!(c(""), Context::Statement);
        assert_eq!(c("tile(A, [4])\nint"), Context::Statement);
        assert_eq!(c("a(X); b"), Context::Statement);
        assert_eq!(
            c("interchange(Mult, "),
            Context::Arg {
                op: "interchange".into(),
                arg: 1,
                first: "Mult".into()
            }
        );
        assert_eq!(
            c("x = lift(\n  Mult,\n  "),
            Context::Arg {
                op: "lift".into(),
                arg: 1,
                first: "Mult".into()
            }
        );
        assert_eq!(
            c("affine(M"),
            Context::Arg {
                op: "affine".into(),
                arg: 0,
                first: String::new()
            }
        );
        assert_eq!(c("tile(M, [3, "), Context::Integers);
        assert_eq!(c("affine(M, {[i] -> [i + "), Context::Integers);
        assert_eq!(
            c("tile(M, [3, 4], "),
            Context::Arg {
                op: "tile".into(),
                arg: 2,
                first: "M".into()
            }
        );
    }

    #[test]
    fn edits_are_minimal() {
        let e = minimal_edit("a\nskew(L, 1)\nb\n", "a\nskew(L, 2)\nb\n");
        assert_eq!(e.new_text, "2");
        assert_eq!(e.range.start, lsp_types::Position::new(1, 8));
        assert_eq!(e.range.end, lsp_types::Position::new(1, 9));
        let e = minimal_edit("tile(L)\n", "skew(L, 2, 1, 1)\ntile(L)\n");
        assert_eq!(e.new_text, "skew(L, 2, 1, 1)\n");
        assert_eq!(e.range.start, e.range.end);
        let e = minimal_edit("aaa", "aa");
        assert_eq!(e.new_text, "");
    }
}

#[cfg(test)]
mod analysis_tests {
    use super::*;
    use crate::lsp::analysis::{analyse, Kernels};
    use std::path::PathBuf;

    fn analysed(text: &str) -> Analysis {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/matmul/matmul.loopy");
        analyse(
            &p,
            text,
            &mut Kernels::default(),
            budget::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        )
        .unwrap()
    }

    #[test]
    fn refused_steps_are_reported_where_they_are_written() {
        let t = "interchange(Mult, 2, 3)\ntile(Mul, [4])\n";
        let a = analysed(t);
        assert_eq!(a.diagnostics.len(), 1, "{:?}", a.diagnostics);
        let d = &a.diagnostics[0];
        assert_eq!(d.range.start, lsp_types::Position::new(1, 5), "{d:?}");
        assert!(d.message.contains("Mul"), "{}", d.message);
        let t = "interchange(Mult, 2)\n";
        let a = analysed(t);
        assert_eq!(a.diagnostics.len(), 1);
        assert_eq!(a.diagnostics[0].range.start.line, 0);
        let t = "nosuch(Mult)\n";
        assert_eq!(analysed(t).diagnostics.len(), 1);
    }

    #[test]
    fn hovers_and_definitions() {
        let t = "interchange(Mult, 2, 3)\n";
        let a = analysed(t);
        let h = hover(&a, t.find("Mult").unwrap()).unwrap();
        assert!(h.contains("statement(s)"), "{h}");
        assert!(h.contains("step 1") && h.contains("after:"), "{h}");
        let h = hover(&a, 2).unwrap();
        assert!(h.contains("interchange(l, a, b)"), "{h}");
        let d = definition(&a, t.find("Mult").unwrap()).unwrap();
        assert!(d.uri.as_str().ends_with("matmul.c"), "{d:?}");
        let t = "tile2(Mult, 4, 4)\n";
        let a = analysed(t);
        let d = definition(&a, 1).unwrap();
        assert!(d.uri.as_str().ends_with("std.loopy"), "{d:?}");
        let c = completion(&a, t.find(", 4").unwrap());
        assert!(c.iter().any(|i| i.label == "Mult"), "{c:?}");
        let c = completion(&a, t.find("4").unwrap());
        assert!(!c.iter().any(|i| i.label == "Mult"));
    }
}
