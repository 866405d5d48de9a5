//! User-facing diagnostics: one error, labelled spans in one or more source texts (a script
//! and the C file it transforms, a command-line argument, ...), rendered with ariadne.
//!
//! Every stage reports problems in user input as a [`Diagnostic`] rather than panicking; the
//! CLI decides the exit code. A diagnostic is data -- a stable code from the registry in
//! [`codes`], a severity, a message, labelled spans, notes and help -- rendered three ways:
//! for a terminal with ariadne ([`Diagnostic::render`]), and as JSON or SARIF
//! ([`output`]).

pub mod codes;
pub mod output;

pub use codes::{Code, Severity};

use ariadne::{Color, Config, IndexType, Label, ReportKind};
use std::ops::Range;

/// A labelled byte range in a named source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanLabel {
    pub source: String,
    pub range: Range<usize>,
    pub label: String,
}

/// A report about user input (or about a run), with its code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The registered code; it cannot be left out.
    pub code: Code,
    /// The code's default severity unless [`Diagnostic::with_severity`] changed it.
    pub severity: Severity,
    pub message: String,
    /// The first label is the primary location.
    pub labels: Vec<SpanLabel>,
    pub notes: Vec<String>,
    /// A boxed `str` rather than a `String`: it keeps a [`Report`] small enough to be the
    /// error of a `Result` everywhere.
    pub help: Option<Box<str>>,
}

impl Diagnostic {
    /// A diagnostic of `code`, with the code's default severity.
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            labels: vec![],
            notes: vec![],
            help: None,
        }
    }

    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }

    /// The first line of a report without source text: `error[L0601]: cannot read ...`.
    pub fn headline(&self) -> String {
        format!(
            "{}[{}]: {}",
            self.severity.word(),
            self.code.id(),
            self.message
        )
    }

    pub fn with_label(
        mut self,
        source: &str,
        range: Range<usize>,
        label: impl Into<String>,
    ) -> Diagnostic {
        self.labels.push(SpanLabel {
            source: source.to_string(),
            range,
            label: label.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into().into_boxed_str());
        self
    }

    /// Renders the report against the given `(name, text)` sources. Labels whose source is
    /// not given are dropped; a report without labels is a plain `error[CODE]: ...` line
    /// (with its notes and help below it).
    pub fn render(&self, sources: &[(&str, &str)], color: bool) -> String {
        let labels: Vec<&SpanLabel> = self
            .labels
            .iter()
            .filter(|l| sources.iter().any(|(n, _)| *n == l.source))
            .collect();
        let Some(primary) = labels.first() else {
            let mut s = format!("{}\n", self.headline());
            for n in &self.notes {
                s.push_str(&format!("  = note: {n}\n"));
            }
            if let Some(h) = &self.help {
                s.push_str(&format!("  = help: {h}\n"));
            }
            return s;
        };
        // Inside the text and on character boundaries (ariadne slices by byte).
        let clamp = |l: &SpanLabel| -> (String, Range<usize>) {
            let text = sources
                .iter()
                .find(|(n, _)| *n == l.source)
                .map_or("", |(_, t)| *t);
            let len = text.len();
            let mut start = l.range.start.min(len);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = l.range.end.clamp(start, len);
            while !text.is_char_boundary(end) {
                end += 1;
            }
            (l.source.clone(), start..end)
        };
        // `Error[L0401]: ...`, coloured as ariadne colours its own kinds.
        let (word, kind_color) = match self.severity {
            Severity::Error => ("Error", Color::Red),
            Severity::Warning => ("Warning", Color::Yellow),
            Severity::Note => ("Note", Color::Fixed(147)),
        };
        let kind = format!("{word}[{}]", self.code.id());
        let mut b = ariadne::Report::build(ReportKind::Custom(&kind, kind_color), clamp(primary))
            .with_config(
                Config::default()
                    .with_index_type(IndexType::Byte)
                    .with_color(color),
            )
            .with_message(&self.message);
        for l in &labels {
            b = b.with_label(Label::new(clamp(l)).with_message(&l.label));
        }
        for n in &self.notes {
            b = b.with_note(n);
        }
        if let Some(h) = &self.help {
            b = b.with_help(h);
        }
        let cache = ariadne::sources(sources.iter().map(|(n, t)| (n.to_string(), t.to_string())));
        let mut out = Vec::new();
        match b.finish().write(cache, &mut out) {
            // ariadne colours a custom kind even when colour is off: take it out again.
            Ok(()) if !color => strip_ansi(&String::from_utf8_lossy(&out)),
            Ok(()) => String::from_utf8_lossy(&out).into_owned(),
            Err(_) => format!("{}\n", self.headline()),
        }
    }
}

/// `text` without its ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A diagnostic together with the texts of the files it points into, ready to render.
#[derive(Clone, Debug)]
pub struct Report {
    pub diagnostic: Diagnostic,
    pub sources: Vec<(String, String)>,
}

impl Report {
    pub fn render(&self, color: bool) -> String {
        let srcs: Vec<(&str, &str)> = self
            .sources
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        self.diagnostic.render(&srcs, color)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_inside_characters_do_not_panic() {
        let d = Diagnostic::new(codes::SCRIPT_SYNTAX, "x")
            .with_label("f", 0..1, "here")
            .with_label("f", 1..2, "and here");
        let out = d.render(&[("f", "é\nabc")], false);
        assert!(out.contains("here"));
        let d = Diagnostic::new(codes::SCRIPT_SYNTAX, "x").with_label("f", 50..90, "past the end");
        assert!(d.render(&[("f", "short")], false).contains("past the end"));
    }

    #[test]
    fn the_code_and_severity_are_in_the_header() {
        let d = Diagnostic::new(codes::DEPENDENCE_VIOLATED, "illegal transformation: x")
            .with_label("s", 0..3, "here");
        let out = d.render(&[("s", "abc\n")], false);
        assert!(
            out.starts_with("Error[L0401]: illegal transformation: x"),
            "{out}"
        );
        assert!(!out.contains('\u{1b}'), "{out}");
        let coloured = d.render(&[("s", "abc\n")], true);
        assert!(coloured.contains('\u{1b}') && coloured.contains("Error[L0401]"));
        let w = Diagnostic::new(codes::NOT_TIMED, "not timed");
        assert_eq!(w.severity, Severity::Warning);
        assert_eq!(w.render(&[], false), "warning[L0706]: not timed\n");
        let n = Diagnostic::new(codes::CANNOT_READ, "m")
            .with_severity(Severity::Note)
            .with_label("s", 0..1, "l");
        assert!(n.render(&[("s", "x")], false).starts_with("Note[L0601]: m"));
    }
}
