//! C source to the polyhedral [`model`](crate::model), through the system preprocessor and
//! lang-c.
//!
//! The file is preprocessed with `$CC -E` (or `cc -E`) and the user's `-I`/`-D` options,
//! keeping the `# N "file"` line markers so that every span maps back to the original file.
//! The region to model is found ([`region`]), the names it uses are classified
//! ([`symbols`]), and one walk builds the statements ([`build`]). Every problem in the input
//! is a [`Diagnostic`] pointing into the user's file; nothing panics.

mod build;
pub mod fragment;
pub mod gnu;
pub mod region;
pub mod srcmap;
mod symbols;
pub mod versions;

use crate::diag::codes;
use crate::diag::{Diagnostic, Report};
use crate::model::Scop;
use crate::presburger::budget;
use lang_c::driver::{Config, Flavor};
use srcmap::SourceMap;
use std::path::{Path, PathBuf};

/// How to preprocess the file and which region to model.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-I DIR` for the preprocessor.
    pub includes: Vec<PathBuf>,
    /// `-D NAME` or `-D NAME=VALUE` for the preprocessor.
    pub defines: Vec<String>,
    /// Model this function: its `#pragma scop` regions, or its whole body if it has none.
    pub function: Option<String>,
    /// Which `#pragma scop` region, counting from 0, when there are several.
    pub scop: Option<usize>,
    /// Generated code assumes that the region's arrays do not overlap in memory, without
    /// the run-time test (`--assume-no-overlap`; read by code generation only).
    pub assume_no_overlap: bool,
    /// Read the forms of loopy's generated code that only `loopy equiv` reads: GCC vector
    /// types and their operations as loops over lanes, integer offsets set in one nest
    /// and read in another, divisions in subscripts (docs/equiv.md). A transformation
    /// would regenerate a vector statement once per lane: `check` and `apply` refuse them.
    pub read_generated: bool,
    /// Which version of a region that is a test between two (the no-overlap test of
    /// generated code) to model, where `read_generated` is set (`versions`).
    pub version: versions::Which,
}

fn plain(d: Diagnostic) -> Report {
    Report {
        diagnostic: d,
        sources: vec![],
    }
}

/// The preprocessor command: `$CC` (split at white space; `cc` when unset) with `-E` and
/// the include and define options.
pub fn preprocessor(opts: &Options) -> (String, Vec<String>) {
    let cc = std::env::var("CC")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string());
    let mut words = cc.split_whitespace().map(str::to_string);
    let cmd = words.next().unwrap_or_else(|| "cc".to_string());
    let mut args: Vec<String> = words.collect();
    args.push("-E".into());
    for i in &opts.includes {
        args.push("-I".into());
        args.push(i.display().to_string());
    }
    for d in &opts.defines {
        args.push(format!("-D{d}"));
    }
    (cmd, args)
}

/// Preprocesses and models a C file.
pub fn extract_file(path: &Path, opts: &Options) -> Result<Scop, Report> {
    let name = path.display().to_string();
    let original = std::fs::read(path).map_err(|e| {
        plain(Diagnostic::new(
            codes::CANNOT_READ,
            format!("cannot read `{name}`: {e}"),
        ))
    })?;
    let original = String::from_utf8(original).map_err(|_| {
        plain(Diagnostic::new(
            codes::CANNOT_READ,
            format!("`{name}` is not UTF-8 text"),
        ))
    })?;
    let (cmd, args) = preprocessor(opts);
    let config = Config {
        cpp_command: cmd.clone(),
        cpp_options: args.clone(),
        flavor: if cmd.contains("clang") {
            Flavor::ClangC11
        } else {
            Flavor::GnuC11
        },
    };
    let path = path.to_path_buf();
    let opts = opts.clone();
    guarded(move || match preprocess(&cmd, &args, &path) {
        Ok(pre) => parse_and_analyze(&config, pre, &name, original, &opts),
        Err(e) => {
            let shown = format!("{cmd} {} {name}", args.join(" "));
            let text = e.to_string();
            let d = Diagnostic::new(
                codes::PREPROCESSOR_FAILED,
                format!("the C preprocessor failed: `{shown}`"),
            );
            if e.kind() == std::io::ErrorKind::NotFound {
                return Err(plain(
                    d.with_note(text)
                        .with_help("set `CC` to a C compiler (it is run with `-E`)"),
                ));
            }
            let main = SourceMap::new(String::new(), &name, original);
            Err(finish_error(&main, cpp_failure(d, &text, &main)))
        }
    })
}

/// Runs the preprocessor on `path`: its output, or an error whose text is the compiler's
/// messages (`NotFound` when the command does not exist).
fn preprocess(cmd: &str, args: &[String], path: &Path) -> std::io::Result<String> {
    let out = std::process::Command::new(cmd)
        .args(args)
        .arg(path)
        .output()?;
    if out.status.success() {
        String::from_utf8(out.stdout)
            .map_err(|_| std::io::Error::other("the preprocessed text is not UTF-8"))
    } else {
        Err(std::io::Error::other(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }
}

/// Parses preprocessed text, after rewriting what lang-c cannot read outside the regions
/// ([`gnu`]), giving implicit-`int` functions their `int` and wrapping fragments in
/// functions ([`fragment`]), and models it.
fn parse_and_analyze(
    config: &Config,
    mut pre: String,
    name: &str,
    original: String,
    opts: &Options,
) -> Result<Scop, Report> {
    let regions = gnu::regions(&pre);
    let keep = if regions.is_empty() {
        // No region (`--function`): the user's file is modelled as written.
        file_lines(&pre, name)
    } else if opts.read_generated {
        let mut keep = regions.clone();
        keep.extend(gnu::called_bodies(&pre, &regions));
        keep
    } else {
        regions.clone()
    };
    let rewrites = gnu::rewrites(&pre, &keep);
    gnu::apply(&mut pre, &rewrites);
    // C89's implicit `int` is the meaning of such a definition anywhere.
    let implicit = gnu::implicit_int(&pre, &regions);
    if !implicit.is_empty() {
        pre = gnu::insert_int(&pre, &implicit);
    }
    let mut fragments = vec![];
    let wrapped = {
        let lines = SourceMap::new(pre.clone(), name, String::new());
        fragment::wrap(&pre, |o| lines.line_of(o).map(|(f, l)| (f.to_string(), l)))
    };
    if let Some((text, names)) = wrapped {
        pre = text;
        fragments = names;
    }
    match lang_c::driver::parse_preprocessed(config, pre) {
        Ok(p) => {
            let sm = SourceMap::new(p.source, name, original);
            analyze(&sm, &p.unit, opts, &fragments)
        }
        Err(e) => {
            let sm = SourceMap::new(e.source.clone(), name, original);
            Err(syntax_error(&sm, &e))
        }
    }
}

/// The byte ranges of the preprocessed lines that come from the file `name`.
fn file_lines(pre: &str, name: &str) -> Vec<std::ops::Range<usize>> {
    let lines = SourceMap::new(pre.to_string(), name, String::new());
    let mut out: Vec<std::ops::Range<usize>> = vec![];
    let mut start = 0;
    for line in pre.split_inclusive('\n') {
        let r = start..start + line.len();
        start = r.end;
        if lines.line_of(r.start).is_some_and(|(f, _)| f == name) {
            match out.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                _ => out.push(r),
            }
        }
    }
    out
}

/// The compiler's messages as notes, its first error in the user's file as a label.
fn cpp_failure(mut d: Diagnostic, text: &str, main: &SourceMap) -> Diagnostic {
    let f = main.main_file();
    let mut labelled = false;
    // gcc's source excerpts (`  1 | …`, `    | ^~~`) repeat what the label shows.
    let excerpt = |l: &str| {
        let t = l.trim_start();
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit());
        t.trim_start().starts_with('|')
    };
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !excerpt(l))
        .take(20)
    {
        if !labelled {
            if let Some((l, c, msg)) = cpp_error_location(line, &f.name) {
                if let Some(r) = f.line_range(l) {
                    let at = (r.start + c.saturating_sub(1)).min(r.end);
                    let label = srcmap::snap(&f.text, at..(at + 1).min(r.end).max(at));
                    d = d.with_label(&f.name, label, msg);
                    labelled = true;
                    continue;
                }
            }
        }
        d = d.with_note(line.trim_end().to_string());
    }
    d
}

/// `file:line:col: error: message` from the compiler, when it is about `file`.
fn cpp_error_location(line: &str, file: &str) -> Option<(usize, usize, String)> {
    let rest = line.strip_prefix(file)?.strip_prefix(':')?;
    let mut parts = rest.splitn(3, ':');
    let l: usize = parts.next()?.trim().parse().ok()?;
    let c: usize = parts.next()?.trim().parse().ok()?;
    let msg = parts.next()?.trim().to_string();
    Some((l, c, msg))
}

/// Models already preprocessed text (no `cc` run). `name` and `original` are the file the
/// text came from: line markers naming it map spans back into `original`; text before any
/// marker is taken to be `original` itself.
pub fn extract_preprocessed(
    name: &str,
    original: &str,
    preprocessed: String,
    opts: &Options,
) -> Result<Scop, Report> {
    let name = name.to_string();
    let original = original.to_string();
    let opts = opts.clone();
    guarded(move || {
        let config = Config {
            cpp_command: String::new(),
            cpp_options: vec![],
            flavor: Flavor::GnuC11,
        };
        parse_and_analyze(&config, preprocessed, &name, original, &opts)
    })
}

/// Runs `f` on a thread with a large stack (lang-c's parser and the walks recurse on the
/// nesting depth of the C code), turning a panic into an internal-error diagnostic.
fn guarded<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Report> + Send + 'static,
) -> Result<T, Report> {
    // The frontend's thread works under what is left of the caller's work budget (a
    // generated region's loop bounds can take the integer core long), and the steps it
    // used are charged to the caller.
    let (left, whole) = (budget::left(), budget::limit());
    let f = move || match left {
        None => f().map(|v| (v, 0)),
        Some(steps) => match budget::with_budget_counted(steps, f) {
            Ok((r, used)) => r.map(|v| (v, used)),
            Err(mut e) => {
                // Said of the caller's budget, which is the one to raise.
                e.limit = whole.unwrap_or(e.limit);
                Err(plain(budget::diagnostic(&e)))
            }
        },
    };
    let h = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .map_err(|e| {
            plain(Diagnostic::new(
                codes::INTERNAL,
                format!("cannot start the frontend: {e}"),
            ))
        })?;
    let (v, used) = h.join().unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(plain(
            Diagnostic::new(
                codes::INTERNAL,
                format!("internal error in the C frontend: {what}"),
            )
            .with_note("this is a bug in loopy; please report it with the C file"),
        ))
    })?;
    // Charged whole: past the caller's budget, its scope is spent and says so.
    let _ = budget::tick(used);
    Ok(v)
}

fn syntax_error(sm: &SourceMap, e: &lang_c::driver::SyntaxError) -> Report {
    // lang-c's names for what it expected; some are empty (a rule without a name) and some
    // are rule names rather than tokens.
    let mut expected: Vec<(&str, String)> = e
        .expected
        .iter()
        .filter_map(|s| {
            let shown = match s.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
                Some(t) => format!("`{t}`"),
                None if *s == "<typedef_name>" => "a type name".to_string(),
                None => format!("`{s}`"),
            };
            (!shown.trim_matches('`').trim().is_empty()).then_some((*s, shown))
        })
        .collect();
    expected.sort_unstable();
    expected.dedup_by(|a, b| a.1 == b.1);
    let expected: Vec<String> = expected.into_iter().map(|(_, s)| s).collect();
    let sp = sm.span_or_pre(e.offset..e.offset + 1);
    let shown = expected
        .iter()
        .take(8)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = if expected.len() > 8 { ", …" } else { "" };
    let found = sm
        .pre
        .get(e.offset..)
        .and_then(|t| gnu::tokens(t).first().map(|r| t[r.clone()].to_string()))
        .filter(|t| !t.is_empty());
    let label = match (&found, expected.is_empty()) {
        (Some(t), true) => format!("loopy could not read the C code from `{t}` on"),
        (None, true) => "loopy could not read the C code here".to_string(),
        (Some(t), false) => format!("found `{t}`, expected {shown}{more}"),
        (None, false) => format!("the file ends here, expected {shown}{more}"),
    };
    let in_main = sp.file == sm.main_file().name;
    let (chain, system) = srcmap::include_chain(&sm.pre, e.offset);
    let what = gnu::unreadable_at(&sm.pre, e.offset);
    let mut d = if !in_main && sp.file != srcmap::PREPROCESSED {
        let kind = if system { "system header" } else { "header" };
        let construct = match what {
            Some((w, _)) => w.to_string(),
            None => {
                // The header's line, as written.
                let line = sm.sources([sp.file.as_str()]).first().and_then(|(_, t)| {
                    t.lines()
                        .nth(sp.line.checked_sub(1)?)
                        .map(|x| x.trim().to_string())
                });
                match line {
                    Some(l) if !l.is_empty() => format!("`{l}`"),
                    _ => "the text at the label".to_string(),
                }
            }
        };
        let mut msg = format!("C syntax error in the {kind} `{}`", sp.file);
        if let Some((f, l)) = chain.last() {
            msg.push_str(&format!(" included from {f}:{l}"));
        }
        let d = Diagnostic::new(codes::C_SYNTAX, msg).with_label(&sp.file, sp.range.clone(), label);
        let d = d.with_note(format!("loopy could not read this construct: {construct}"));
        let d = chain.iter().rev().skip(1).fold(d, |d, (f, l)| {
            d.with_note(format!("the header is reached through {f}:{l}"))
        });
        d.with_help(
            "loopy's C parser (lang-c) does not read every GNU extension; when the header is \
             not needed for the region, include it only where the region is not modelled \
             (behind `#ifndef LOOPY`, with `-D LOOPY`), or report the construct",
        )
    } else {
        Diagnostic::new(codes::C_SYNTAX, "C syntax error").with_label(
            &sp.file,
            sp.range.clone(),
            label,
        )
    };
    if in_main && fragment_statement(sm, e.offset) {
        d = d
            .with_note("this is a statement outside any function")
            .with_help(
                "to model statements at file scope (a fragment), put them between \
                 `#pragma scop` and `#pragma endscop`; otherwise put them in a function",
            );
    } else if let Some((w, fix)) = what.filter(|_| in_main) {
        d = d
            .with_note(format!("loopy could not read this construct: {w}"))
            .with_help(fix.to_string());
    } else if in_main
        && expected.iter().all(|x| x == "a type name" || x == "`;`")
        && found
            .as_deref()
            .is_some_and(|t| t.starts_with(|c: char| c.is_alphabetic() || c == '_'))
    {
        let t = found.as_deref().unwrap_or_default();
        d = d
            .with_note(format!(
                "`{t}` is declared without a type (C89's implicit `int`, which C99 removed and \
                 loopy does not read in declarations)"
            ))
            .with_help(format!("write the type: `int {t}`"));
    } else if in_main {
        d = d.with_note("loopy reads C11 with GNU extensions (lang-c's parser)");
    }
    finish_error(sm, d)
}

/// Whether the syntax error at `offset` is a statement at file scope (outside any `{ }`):
/// a statement keyword, or an assignment or a subscript of a name.
fn fragment_statement(sm: &SourceMap, offset: usize) -> bool {
    let toks = gnu::tokens(&sm.pre);
    let Some(k) = toks.iter().position(|r| r.start >= offset) else {
        return false;
    };
    let depth: i64 = toks[..k]
        .iter()
        .map(|r| match &sm.pre[r.clone()] {
            "{" => 1,
            "}" => -1,
            _ => 0,
        })
        .sum();
    let t = |j: usize| toks.get(j).map_or("", |r| &sm.pre[r.clone()]);
    depth == 0
        && (matches!(t(k), "for" | "if" | "while" | "do" | "return" | "switch")
            || matches!(t(k + 1), "=" | "[" | "+" | "-" | "*" | "/" | "."))
        && t(k)
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn finish_error(sm: &SourceMap, d: Diagnostic) -> Report {
    let files: Vec<String> = d.labels.iter().map(|l| l.source.clone()).collect();
    let sources = sm.sources(files.iter().map(String::as_str));
    Report {
        diagnostic: d,
        sources,
    }
}

fn analyze(
    sm: &SourceMap,
    unit: &lang_c::ast::TranslationUnit,
    opts: &Options,
    fragments: &[String],
) -> Result<Scop, Report> {
    let run = || -> Result<Scop, Diagnostic> {
        let reg = region::select(unit, sm, opts.function.as_deref(), opts.scop)?;
        let (reg, version) = match opts.read_generated {
            true => versions::choose(unit, sm, reg, opts.version)?,
            false => (reg, None),
        };
        let mut syms = symbols::Symbols::collect(unit, &sm.pre, &reg.function, reg.range.clone());
        let fragment = fragments.contains(&reg.function);
        if fragment {
            fragment::declare_by_use(&mut syms, reg.items);
        }
        let mut b = build::Builder::new(sm, &syms, reg.items);
        if opts.read_generated {
            b.read_generated();
        }
        b.region(reg.items)?;
        let first = reg.items.first().map_or(reg.range.start, |i| i.span.start);
        let last =
            (reg.items.last()).map_or(reg.range.end, |i| srcmap::statement_end(&sm.pre, &i.span));
        let span = sm.span_or_pre(first..last);
        let mut scop = b.finish(&sm.main_file().name, &reg.function, span)?;
        scop.fragment = fragment;
        scop.version = version;
        Ok(scop)
    };
    run().map_err(|d| finish_error(sm, d))
}
