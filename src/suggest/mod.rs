//! `loopy suggest`: for an illegal script, the smallest change that the checker accepts.
//! The changes tried are a fixed list of small edits of the script (other values of a skew
//! factor or a shift, other fusion depths, skews before a tiling; here) and the changes
//! computed from the legal-schedule space of `search::space` (`repair`), merged smallest
//! first; each is checked by the ordinary checker (docs/search.md, "`loopy suggest`").
//!
//! Uses `driver`, `script` (parsing) and `search` (the space); nothing imports it but the
//! CLI.

pub mod repair;
#[cfg(test)]
mod repair_tests;
#[cfg(test)]
mod suggest_tests;

use crate::driver::{Kernel, Run};
use crate::presburger::budget;
use crate::script::ast::{Arg, ScriptItem, Stmt};
use crate::script::parse::parse_script;
use std::path::Path;

/// One change to a script.
#[derive(Clone, Debug)]
pub struct Change {
    /// `(lines touched, total size of the change)`: smaller is smaller.
    pub cost: (usize, i64),
    /// What to do, for people: `insert before line 3:` or `replace line 2 with:`.
    pub what: String,
    /// The lines to paste.
    pub lines: Vec<String>,
    /// The whole script after the change.
    pub text: String,
    /// Computed from the legal-schedule space (`repair.rs`) rather than taken from the
    /// fixed list of [`changes`].
    pub space: bool,
}

/// A change the checker accepts, and how many were checked to find it.
pub struct Suggestion {
    pub change: Change,
    pub tried: usize,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

fn int_arg(a: &Arg) -> Option<(i64, std::ops::Range<usize>)> {
    match a {
        Arg::Int(v, s) => v.to_i64().map(|v| (v, s.clone())),
        _ => None,
    }
}

/// Every change tried, smallest first: other values of the last integer of each `skew` and
/// `shift`, other depths of each `realign` (`fuse`, `distribute`), and one or two skews of
/// the tiled loops inserted before each `tile`.
pub fn changes(text: &str, name: &str) -> Vec<Change> {
    let Ok(script) = parse_script(text, name) else {
        return vec![];
    };
    let mut out: Vec<Change> = vec![];
    let replace = |span: std::ops::Range<usize>, with: &str| -> String {
        format!("{}{with}{}", &text[..span.start], &text[span.end..])
    };
    for item in &script.items {
        let ScriptItem::Stmt(Stmt::Call { call, span, .. }) = item else {
            continue;
        };
        let op = call.name.text.as_str();
        let stmt_text = &text[span.clone()];
        let line = line_of(text, span.start);
        let deltas: &[i64] = &[1, -1, 2, -2, 3, -3];
        match op {
            "skew" | "shift" | "realign" | "fuse" | "distribute" => {
                let Some((v, at)) = call.args.last().and_then(int_arg) else {
                    continue;
                };
                for &d in deltas {
                    let w = v + d;
                    if (op == "skew" && w == 0) || (op != "skew" && op != "shift" && w < 0) {
                        continue;
                    }
                    let rel = at.start - span.start..at.end - span.start;
                    let new_stmt =
                        format!("{}{w}{}", &stmt_text[..rel.start], &stmt_text[rel.end..]);
                    out.push(Change {
                        cost: (1, d.abs()),
                        what: format!("replace line {line} (`{stmt_text}`) with:"),
                        lines: vec![new_stmt],
                        text: replace(at.clone(), &w.to_string()),
                        space: false,
                    });
                }
            }
            "tile" => {
                let Some(h) = call.args.first() else {
                    continue;
                };
                let handle = &text[h.span()];
                // The loops tiled: the explicit list, or the first ones.
                let deepest = match call.args.as_slice() {
                    [_, Arg::List(loops, _), Arg::List(..)] => loops
                        .iter()
                        .filter_map(|a| match a {
                            Arg::Int(v, _) => v.to_i64(),
                            _ => None,
                        })
                        .max()
                        .unwrap_or(0),
                    [_, Arg::List(sizes, _)] => sizes.len() as i64,
                    _ => 0,
                };
                let mut skews: Vec<(i64, i64, i64)> = vec![];
                for f in 1..=2 {
                    for k in (2..=deepest).rev() {
                        for m in (1..k).rev() {
                            skews.push((k, m, f));
                        }
                    }
                }
                let line_start = text[..span.start].rfind('\n').map_or(0, |p| p + 1);
                let indent: String = text[line_start..span.start]
                    .chars()
                    .take_while(|c| c.is_whitespace())
                    .collect();
                let insert = |lines: &[String]| -> String {
                    let mut s = String::new();
                    for l in lines {
                        s.push_str(l);
                        s.push('\n');
                        s.push_str(&indent);
                    }
                    format!("{}{s}{}", &text[..span.start], &text[span.start..])
                };
                let skew = |&(k, m, f): &(i64, i64, i64)| format!("skew({handle}, {k}, {m}, {f})");
                for s in &skews {
                    let lines = vec![skew(s)];
                    out.push(Change {
                        cost: (1, s.2),
                        what: format!("insert before line {line} (`{stmt_text}`):"),
                        text: insert(&lines),
                        lines,
                        space: false,
                    });
                }
                for (i, a) in skews.iter().enumerate() {
                    for b in &skews[i + 1..] {
                        // Outer loops are skewed last (their old values feed the inner ones).
                        if (a.0, a.1) == (b.0, b.1) || a.0 < b.0 {
                            continue;
                        }
                        let lines = vec![skew(a), skew(b)];
                        out.push(Change {
                            cost: (2, a.2 + b.2),
                            what: format!("insert before line {line} (`{stmt_text}`):"),
                            text: insert(&lines),
                            lines,
                            space: false,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    // Stable: among equal costs, the order above (script order, then as generated).
    out.sort_by_key(|c| c.cost);
    out
}

/// Every change tried, smallest first: the changes computed from the legal-schedule space
/// (`repair.rs`) and the fixed list of [`changes`], merged and ordered by cost (the space's
/// first among equal costs, then script order), a change that gives the same script as an
/// earlier one dropped. `limit` is the work budget of each computation.
pub fn all_changes(
    kernel: &Kernel,
    run: &mut Run,
    text: &str,
    name: &str,
    base: &Path,
    limit: u64,
) -> Vec<Change> {
    let mut out = repair::space_changes_within(kernel, run, text, name, base, limit);
    out.extend(changes(text, name));
    out.sort_by_key(|c| (c.cost, !c.space));
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert(c.text.clone()));
    out
}

/// The smallest change that makes the script legal, checked with the ordinary checker.
pub fn suggest(
    kernel: &Kernel,
    run: &mut Run,
    text: &str,
    name: &str,
    base: &Path,
    max_tries: usize,
    limit: u64,
) -> Option<Suggestion> {
    let all = all_changes(kernel, run, text, name, base, limit);
    for (k, c) in all.into_iter().take(max_tries).enumerate() {
        let tried = k + 1;
        run.restart(kernel);
        let ok = budget::with_budget(limit, || {
            run.apply(kernel, &c.text, name, base).is_ok() && run.check().is_empty()
        });
        if matches!(ok, Ok(true)) {
            return Some(Suggestion { change: c, tried });
        }
    }
    None
}

/// A suggestion (or that none was found) as text for the terminal.
pub fn render(s: &Option<Suggestion>) -> String {
    match s {
        Some(s) => {
            let from = if s.change.space {
                "computed from the legal-schedule space, "
            } else {
                ""
            };
            let mut out = format!(
                "suggestion ({from}verified legal; the smallest of the {} change(s) tried): {}\n",
                s.tried, s.change.what
            );
            for l in &s.change.lines {
                out.push_str(&format!("    {l}\n"));
            }
            out
        }
        None => "no suggestion: no change of a skew factor, a shift, a fusion depth, a shift \
                 before a fusion or skews before a tiling that was tried makes the script legal\n"
            .to_string(),
    }
}
