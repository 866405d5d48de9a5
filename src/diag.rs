//! User-facing diagnostics: one error, labelled spans in one or more source texts (a script
//! and the C file it transforms, a command-line argument, ...), rendered with ariadne.
//!
//! Every stage reports problems in user input as a [`Diagnostic`] rather than panicking; the
//! CLI decides the exit code.

use ariadne::{Config, IndexType, Label, ReportKind};
use std::ops::Range;

/// A labelled byte range in a named source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanLabel {
    pub source: String,
    pub range: Range<usize>,
    pub label: String,
}

/// An error report about user input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    /// The first label is the primary location.
    pub labels: Vec<SpanLabel>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            labels: vec![],
            notes: vec![],
            help: None,
        }
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
        self.help = Some(help.into());
        self
    }

    /// Renders the report against the given `(name, text)` sources. Labels whose source is
    /// not given are dropped; a report without labels is a plain `error: ...` line.
    pub fn render(&self, sources: &[(&str, &str)], color: bool) -> String {
        let labels: Vec<&SpanLabel> = self
            .labels
            .iter()
            .filter(|l| sources.iter().any(|(n, _)| *n == l.source))
            .collect();
        let Some(primary) = labels.first() else {
            let mut s = format!("error: {}\n", self.message);
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
        let mut b = ariadne::Report::build(ReportKind::Error, clamp(primary))
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
            Ok(()) => String::from_utf8_lossy(&out).into_owned(),
            Err(_) => format!("error: {}\n", self.message),
        }
    }
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
        let d = Diagnostic::new("x")
            .with_label("f", 0..1, "here")
            .with_label("f", 1..2, "and here");
        let out = d.render(&[("f", "é\nabc")], false);
        assert!(out.contains("here"));
        let d = Diagnostic::new("x").with_label("f", 50..90, "past the end");
        assert!(d.render(&[("f", "short")], false).contains("past the end"));
    }
}
