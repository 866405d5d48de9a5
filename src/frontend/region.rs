//! Which statements are modelled: those between `#pragma scop` and `#pragma endscop`, or a
//! whole function body (`--function`).
//!
//! Pragmas never reach lang-c's syntax tree (it skips lines starting with `#`), so they are
//! found in the preprocessed text, and a region is the run of block items of one `{ }` block
//! that lie between the two pragma lines.

use super::srcmap::SourceMap;
use crate::diag::codes;
use crate::diag::Diagnostic;
use lang_c::ast::{BlockItem, ExternalDeclaration, Statement, TranslationUnit};
use lang_c::span::Node;
use std::ops::Range;

/// The file name of the lines inserted around file-scope fragments (`fragment.rs`).
pub const FRAGMENT_FILE: &str = "<fragment>";

/// A `#pragma scop` or `#pragma endscop` line in the preprocessed text.
#[derive(Clone, Debug)]
pub struct Pragma {
    pub end: bool,
    /// The whole line.
    pub range: Range<usize>,
}

/// Finds `#pragma scop` / `#pragma endscop` lines (also what `_Pragma("scop")` becomes).
pub fn pragmas(pre: &str) -> Vec<Pragma> {
    let mut out = vec![];
    let mut start = 0;
    for line in pre.split_inclusive('\n') {
        let range = start..start + line.trim_end_matches(['\n', '\r']).len();
        start += line.len();
        let t = line.trim();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let mut words = rest.split_whitespace();
        if words.next() != Some("pragma") {
            continue;
        }
        let end = match words.next() {
            Some("scop") => false,
            Some("endscop") => true,
            _ => continue,
        };
        if words.next().is_none() {
            out.push(Pragma { end, range });
        }
    }
    out
}

/// The statements to model.
pub struct Region<'a> {
    pub function: String,
    /// The block items of the region (a run inside one `{ }` block).
    pub items: &'a [Node<BlockItem>],
    /// Byte range in the preprocessed text: from the `#pragma scop` line to the
    /// `#pragma endscop` line, or the function body.
    pub range: Range<usize>,
}

/// A function definition: name and body.
fn functions(unit: &TranslationUnit) -> Vec<(String, &Node<Statement>, Range<usize>)> {
    unit.0
        .iter()
        .filter_map(|ed| match &ed.node {
            ExternalDeclaration::FunctionDefinition(f) => {
                let name = super::symbols::declarator_name(&f.node.declarator.node)?;
                Some((name, &f.node.statement, f.span.start..f.span.end))
            }
            _ => None,
        })
        .collect()
}

/// The innermost `{ }` block inside `s` whose span holds `r`.
fn innermost_block<'a>(
    s: &'a Node<Statement>,
    r: &Range<usize>,
) -> Option<&'a Vec<Node<BlockItem>>> {
    if !(s.span.start <= r.start && r.end <= s.span.end) {
        return None;
    }
    let deeper = |st: &'a Node<Statement>| innermost_block(st, r);
    match &s.node {
        Statement::Compound(items) => {
            for it in items {
                if let BlockItem::Statement(st) = &it.node {
                    if let Some(b) = deeper(st) {
                        return Some(b);
                    }
                }
            }
            Some(items)
        }
        Statement::Labeled(l) => deeper(&l.node.statement),
        Statement::If(i) => deeper(&i.node.then_statement)
            .or_else(|| i.node.else_statement.as_deref().and_then(deeper)),
        Statement::While(w) => deeper(&w.node.statement),
        Statement::DoWhile(w) => deeper(&w.node.statement),
        Statement::Switch(w) => deeper(&w.node.statement),
        Statement::For(f) => deeper(&f.node.statement),
        _ => None,
    }
}

/// A function of the unit: name, body and the definition's range.
type Function<'a> = (String, &'a Node<Statement>, Range<usize>);

/// A pragma region: its function, its range (pragma lines included) and its opening line.
type Found = (String, Range<usize>, Range<usize>);

/// Selects the region: the `index`-th pragma region (of `function`, if given), or the body
/// of `function` when it has no pragmas.
pub fn select<'a>(
    unit: &'a TranslationUnit,
    sm: &SourceMap,
    function: Option<&str>,
    index: Option<usize>,
) -> Result<Region<'a>, Diagnostic> {
    let fns = functions(unit);
    let pairs = pragma_pairs(sm)?;
    let mut regions = regions_of(sm, &fns, &pairs)?;
    if let Some(f) = function {
        if !fns.iter().any(|(n, _, _)| n == f) {
            return Err(Diagnostic::new(
                codes::REGION_NOT_FOUND,
                format!("no function `{f}` in this file"),
            )
            .with_note(
                defined_functions(sm, &fns)
                    .unwrap_or_else(|| "the file defines no function".into()),
            ));
        }
        regions.retain(|(n, _, _)| n == f);
        if regions.is_empty() {
            let (_, body, _) = fns.iter().find(|(n, _, _)| n == f).expect("checked");
            return match &body.node {
                Statement::Compound(items) => Ok(Region {
                    function: f.to_string(),
                    items,
                    range: body.span.start..body.span.end,
                }),
                _ => Err(Diagnostic::new(
                    codes::REGION_NOT_FOUND,
                    format!("`{f}` has no body"),
                )),
            };
        }
    }
    if regions.is_empty() {
        let mut d = Diagnostic::new(codes::REGION_NOT_FOUND, "no `#pragma scop` region in this file")
            .with_help("mark the kernel with `#pragma scop` and `#pragma endscop`, or name a function with `--function NAME`");
        if let Some(n) = defined_functions(sm, &fns) {
            d = d.with_note(n);
        }
        return Err(d);
    }
    let chosen = choose(sm, &fns, &regions, index)?;
    let (fname, r, _) = regions.swap_remove(chosen);
    region_items(sm, &fns, fname, r)
}

/// `d` with a label `msg` on the preprocessed range `r`.
fn label(sm: &SourceMap, r: Range<usize>, msg: String, d: Diagnostic) -> Diagnostic {
    let sp = sm.span_or_pre(r);
    d.with_label(&sp.file, sp.range, msg)
}

/// The pragmas, paired: each `#pragma scop` with its `#pragma endscop`.
fn pragma_pairs(sm: &SourceMap) -> Result<Vec<(Pragma, Pragma)>, Diagnostic> {
    let mut pairs: Vec<(Pragma, Pragma)> = vec![];
    let mut open: Option<Pragma> = None;
    for p in pragmas(&sm.pre) {
        match (p.end, open.take()) {
            (false, None) => open = Some(p),
            (false, Some(o)) => {
                let d =
                    Diagnostic::new(codes::SCOP_MALFORMED, "`#pragma scop` regions cannot nest");
                let d = label(sm, o.range, "this region is still open".into(), d);
                return Err(label(sm, p.range, "when this one starts".into(), d)
                    .with_help("end the first region with `#pragma endscop`"));
            }
            (true, Some(o)) => pairs.push((o, p)),
            (true, None) => {
                let d = Diagnostic::new(
                    codes::SCOP_MALFORMED,
                    "`#pragma endscop` without `#pragma scop`",
                );
                return Err(label(sm, p.range, "no region to end".into(), d));
            }
        }
    }
    if let Some(o) = open {
        let d = Diagnostic::new(
            codes::SCOP_MALFORMED,
            "`#pragma scop` without `#pragma endscop`",
        );
        return Err(label(sm, o.range, "this region never ends".into(), d));
    }
    Ok(pairs)
}

/// Each region with its function.
fn regions_of(
    sm: &SourceMap,
    fns: &[Function],
    pairs: &[(Pragma, Pragma)],
) -> Result<Vec<Found>, Diagnostic> {
    let mut regions: Vec<Found> = vec![];
    for (s, e) in pairs {
        let r = s.range.start..e.range.end;
        match fns
            .iter()
            .find(|(_, _, fr)| fr.start <= r.start && r.end <= fr.end)
        {
            Some((name, _, _)) => regions.push((name.clone(), r, s.range.clone())),
            None => {
                let d = Diagnostic::new(
                    codes::SCOP_MALFORMED,
                    "a `#pragma scop` region must be inside a function body",
                );
                return Err(label(
                    sm,
                    s.range.clone(),
                    "this region is not inside one function".into(),
                    d,
                ));
            }
        }
    }
    Ok(regions)
}

/// The functions of the user's file, for reports.
fn defined_functions(sm: &SourceMap, fns: &[Function]) -> Option<String> {
    let mut names: Vec<String> = fns
        .iter()
        .filter(|(_, b, _)| {
            sm.line_of(b.span.start).map(|(f, _)| f) == Some(sm.main_file().name.as_str())
        })
        .map(|(n, _, _)| format!("`{n}`"))
        .collect();
    names.dedup();
    (!names.is_empty()).then(|| format!("functions defined here: {}", names.join(", ")))
}

/// The region `index` chooses among `regions` (none needed when there is one).
fn choose(
    sm: &SourceMap,
    fns: &[Function],
    regions: &[Found],
    index: Option<usize>,
) -> Result<usize, Diagnostic> {
    match (index, regions.len()) {
        (None, 1) => Ok(0),
        (Some(i), n) if i < n => Ok(i),
        (idx, n) => {
            let mut d = match idx {
                None => Diagnostic::new(
                    codes::REGION_NOT_FOUND,
                    format!("this file has {n} `#pragma scop` regions; choose one with `--scop N`"),
                ),
                Some(i) => Diagnostic::new(
                    codes::REGION_NOT_FOUND,
                    format!(
                        "`--scop {i}`: there {} only {n} region{} (numbered from 0)",
                        if n == 1 { "is" } else { "are" },
                        if n == 1 { "" } else { "s" }
                    ),
                ),
            };
            for (k, (f, r, pr)) in regions.iter().enumerate() {
                // A fragment's function is the frontend's own (`fragment::wrap`).
                let fragment = fns.iter().any(|(n, _, fr)| {
                    n == f
                        && fr.start <= r.start
                        && r.end <= fr.end
                        && sm.line_of(fr.start).map(|(file, _)| file) == Some(FRAGMENT_FILE)
                });
                let msg = if fragment {
                    format!("region {k} (a fragment at file scope)")
                } else {
                    format!("region {k} (in `{f}`)")
                };
                d = label(sm, pr.clone(), msg, d);
            }
            Err(d)
        }
    }
}

/// The region `r` of function `fname`: the items of its innermost block between the pragma
/// lines, none crossing them.
fn region_items<'a>(
    sm: &SourceMap,
    fns: &[Function<'a>],
    fname: String,
    r: Range<usize>,
) -> Result<Region<'a>, Diagnostic> {
    let (_, body, _) = fns
        .iter()
        .find(|(n, b, _)| *n == fname && b.span.start <= r.start && r.end <= b.span.end)
        .ok_or_else(|| {
            label(
                sm,
                r.clone(),
                "this region".into(),
                Diagnostic::new(
                    codes::SCOP_MALFORMED,
                    "a `#pragma scop` region must be inside a function body",
                ),
            )
        })?;
    let Some(items) = innermost_block(body, &r) else {
        return Err(label(
            sm,
            r,
            "this region".into(),
            Diagnostic::new(
                codes::SCOP_MALFORMED,
                "a `#pragma scop` region must be inside a `{ }` block",
            ),
        ));
    };
    // The items between the pragma lines; none may cross them.
    let end = |s: &lang_c::span::Span| super::srcmap::statement_end(&sm.pre, s);
    let inside: Vec<usize> = (0..items.len())
        .filter(|&k| items[k].span.start >= r.start && end(&items[k].span) <= r.end)
        .collect();
    for it in items {
        let s = &it.span;
        let overlaps = s.start < r.end && end(s) > r.start;
        let within = s.start >= r.start && end(s) <= r.end;
        if overlaps && !within {
            let d = Diagnostic::new(
                codes::SCOP_MALFORMED,
                "`#pragma scop` and `#pragma endscop` must enclose whole statements of one block",
            );
            let d = label(
                sm,
                s.start..s.end,
                "this statement crosses the region's boundary".into(),
                d,
            );
            return Err(d);
        }
    }
    let (Some(&first), Some(&last)) = (inside.first(), inside.last()) else {
        return Err(label(
            sm,
            r,
            "nothing to model here".into(),
            Diagnostic::new(
                codes::SCOP_MALFORMED,
                "the `#pragma scop` region holds no statement",
            ),
        ));
    };
    Ok(Region {
        function: fname,
        items: &items[first..=last],
        range: r,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_pragma_lines() {
        let pre = "int x;\n#pragma scop\n  # pragma  endscop  \n#pragma scop extra\n#pragma omp parallel\n";
        let p = pragmas(pre);
        assert_eq!(p.len(), 2);
        assert!(!p[0].end && p[1].end);
        assert_eq!(&pre[p[0].range.clone()], "#pragma scop");
        assert_eq!(&pre[p[1].range.clone()], "  # pragma  endscop  ");
    }
}
