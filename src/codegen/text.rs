//! C text as typed lines: lines of code, which move with the block that holds them, and
//! preprocessor lines, which stay in the first column. The passes after printing (the
//! no-overlap test, the outlined function, the splice into the file) place the text by
//! these kinds and never read a line back.

use std::fmt::Write;

/// One line of C, without its end of line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Line {
    /// Code, with the indentation it has inside the text; indented further with the
    /// block that holds it (an empty line stays empty).
    Code(String),
    /// A preprocessor line (a macro definition, a conditional, a directive at the text's
    /// top level): always in the first column.
    Pre(String),
}

/// Lines of C. Writing to it (`write!`, [`CText::code`]) adds lines of code, one per end of
/// line; [`CText::pre`] adds preprocessor lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CText {
    lines: Vec<Line>,
    /// The line being written, not yet ended.
    open: String,
}

impl CText {
    pub fn new() -> CText {
        CText::default()
    }

    /// The user's source as written: a line whose first character is `#` is a
    /// preprocessor line, every other a line of code.
    pub fn source(text: &str) -> CText {
        let mut out = CText::new();
        for l in text.lines() {
            if l.as_bytes().first() == Some(&b'#') {
                out.lines.push(Line::Pre(l.to_string()));
            } else {
                out.lines.push(Line::Code(l.to_string()));
            }
        }
        out
    }

    /// Whether the text starts with a preprocessor line (which must start its line in a
    /// file).
    pub fn opens_with_pre(&self) -> bool {
        matches!(self.lines.first(), Some(Line::Pre(_)))
    }

    /// Lines of code: each line of `text` (which ends its last line, or not).
    pub fn code(&mut self, text: &str) {
        self.open.push_str(text);
        self.end_lines();
    }

    /// Preprocessor lines: each line of `text`.
    pub fn pre(&mut self, text: &str) {
        debug_assert!(
            self.open.is_empty(),
            "a preprocessor line inside a line of code"
        );
        self.lines
            .extend(text.lines().map(|l| Line::Pre(l.to_string())));
    }

    /// A directive (`#pragma ...`) at `pad`: a line of code inside a block, a preprocessor
    /// line at the text's top level (where `pad` is empty).
    pub fn directive(&mut self, pad: &str, text: &str) {
        if pad.is_empty() {
            self.pre(text);
        } else {
            self.code(&format!("{pad}{text}\n"));
        }
    }

    /// The lines of `other` after these, its lines of code indented by `by`.
    pub fn nest(&mut self, other: &CText, by: &str) {
        debug_assert!(other.open.is_empty(), "an unfinished line");
        for l in &other.lines {
            self.lines.push(match l {
                Line::Code(c) if !c.is_empty() => Line::Code(format!("{by}{c}")),
                l => l.clone(),
            });
        }
    }

    /// The text placed at a column: every line of code but the first indented by
    /// `indent` (the first continues a line that has it), lines joined by ends of line,
    /// none after the last.
    pub fn placed(&self, indent: &str) -> String {
        let mut out = String::new();
        for (k, l) in self.lines.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            match l {
                Line::Code(c) => {
                    if k > 0 && !c.is_empty() {
                        out.push_str(indent);
                    }
                    out.push_str(c);
                }
                Line::Pre(p) => out.push_str(p),
            }
        }
        out
    }

    fn end_lines(&mut self) {
        while let Some(at) = self.open.find('\n') {
            let line: String = self.open.drain(..=at).collect();
            self.lines
                .push(Line::Code(line[..line.len() - 1].to_string()));
        }
    }
}

impl Write for CText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.code(s);
        Ok(())
    }
}

impl std::fmt::Display for CText {
    /// Every line ended by an end of line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for l in &self.lines {
            match l {
                Line::Code(s) | Line::Pre(s) => writeln!(f, "{s}")?,
            }
        }
        f.write_str(&self.open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_moves_code_and_keeps_preprocessor_lines() {
        let mut inner = CText::new();
        inner.pre("#define X 1\n");
        inner.code("a;\n\nb;\n");
        inner.directive("", "#pragma omp parallel for");
        inner.directive("  ", "#pragma omp simd");
        let mut outer = CText::new();
        outer.code("{\n");
        outer.nest(&inner, "  ");
        outer.code("}\n");
        assert_eq!(
            outer.to_string(),
            "{\n#define X 1\n  a;\n\n  b;\n#pragma omp parallel for\n    #pragma omp simd\n}\n"
        );
        assert_eq!(
            outer.placed("\t"),
            "{\n#define X 1\n\t  a;\n\n\t  b;\n#pragma omp parallel for\n\t    #pragma omp simd\n\t}"
        );
    }

    #[test]
    fn writes_end_lines_where_the_text_does() {
        let mut t = CText::new();
        let _ = write!(t, "for (i = 0; ");
        let _ = writeln!(t, "i < n; i++) {{");
        let _ = writeln!(t, "  s(i);\n}}");
        assert_eq!(t.to_string(), "for (i = 0; i < n; i++) {\n  s(i);\n}\n");
    }
}
