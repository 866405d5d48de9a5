//! From byte offsets in the preprocessed text back to the user's own files.
//!
//! lang-c gives spans into the output of `cc -E`. The `# N "file"` markers in that output say
//! which file and line each preprocessed line comes from; a table of them is built once (lang-c's
//! own `loc::get_location_for_offset` rescans from the start on every call). Within a line,
//! the preprocessor collapses white space, drops comments and expands macros, so columns are
//! recovered by aligning the tokens of the preprocessed line with those of the original line
//! (longest common subsequence): a token that survived preprocessing maps exactly, and an
//! expanded macro maps to the text of its invocation.

use crate::model::lex::{lex, lex_skipping, Kind};
use crate::model::SourceSpan;
use std::cell::OnceCell;
use std::ops::Range;

/// Widens a byte range to character boundaries of `text` (diagnostic labels that cut a
/// UTF-8 sequence make the renderer panic).
pub fn snap(text: &str, r: Range<usize>) -> Range<usize> {
    let mut s = r.start.min(text.len());
    while !text.is_char_boundary(s) {
        s -= 1;
    }
    let mut e = r.end.clamp(s, text.len());
    while !text.is_char_boundary(e) {
        e += 1;
    }
    s..e
}

/// Name under which diagnostics show the preprocessed text when a span has no original.
pub const PREPROCESSED: &str = "<preprocessed>";

/// An original file: its text, where its lines start, which bytes are comments.
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
    comment: Vec<bool>,
}

impl SourceFile {
    pub fn new(name: &str, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let comment = comment_mask(&text);
        SourceFile {
            name: name.to_string(),
            text,
            line_starts,
            comment,
        }
    }

    /// Byte range of 1-based line `line` without its newline.
    pub fn line_range(&self, line: usize) -> Option<Range<usize>> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e - 1);
        let end = if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        Some(start..end.max(start))
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, off: usize) -> usize {
        match self.line_starts.binary_search(&off) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}

/// Marks the bytes of `/* */` and `//` comments (outside string and character literals).
fn comment_mask(text: &str) -> Vec<bool> {
    let mut m = vec![false; text.len()];
    for t in lex(text) {
        if t.kind == Kind::Comment {
            m[t.range].fill(true);
        }
    }
    m
}

/// A token: its byte range in the line's text and its spelling.
#[derive(Debug)]
struct Tok<'a> {
    range: Range<usize>,
    text: &'a str,
}

/// The tokens of C text (identifiers, numbers, literals, single punctuation characters),
/// without white space and the bytes `skip` marks. Offsets are relative to `text`.
fn tokens<'a>(text: &'a str, skip: impl Fn(usize) -> bool) -> Vec<Tok<'a>> {
    lex_skipping(text, skip)
        .into_iter()
        .filter(|t| !t.is_blank())
        .map(|t| Tok {
            text: &text[t.range.clone()],
            range: t.range,
        })
        .collect()
}

/// For each token of `a`, the index of the token of `b` it is aligned with.
fn align(a: &[Tok], b: &[Tok]) -> Vec<Option<usize>> {
    let (n, m) = (a.len(), b.len());
    let mut res = vec![None; n];
    if n.saturating_mul(m) > 4_000_000 {
        // Too long for the quadratic table: greedy in-order matching.
        let mut j = 0;
        for (i, t) in a.iter().enumerate() {
            if let Some(k) = b[j..].iter().position(|u| u.text == t.text) {
                res[i] = Some(j + k);
                j += k + 1;
            }
        }
        return res;
    }
    // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
    let w = m + 1;
    let mut lcs = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if a[i].text == b[j].text {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i].text == b[j].text && lcs[i * w + j] == lcs[(i + 1) * w + j + 1] + 1 {
            res[i] = Some(j);
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * w + j] >= lcs[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    res
}

/// An identifier of the original line that has no counterpart in the preprocessed one is
/// (most likely) a macro invocation. Tokens of its arguments may reappear inside the
/// expansion and get aligned there; forget those alignments, so that every part of the
/// expansion maps to the whole invocation `M(a, b)`.
fn unalign_macro_arguments(al: &mut [Option<usize>], otoks: &[Tok]) {
    let mut inv = vec![None; otoks.len()];
    for (k, j) in al.iter().enumerate() {
        if let Some(j) = j {
            inv[*j] = Some(k);
        }
    }
    for j in 0..otoks.len() {
        let t = otoks[j].text.as_bytes()[0];
        if inv[j].is_some() || !(t.is_ascii_alphabetic() || t == b'_') {
            continue;
        }
        let mut end = j;
        if otoks.get(j + 1).is_some_and(|t| t.text == "(") {
            let mut depth = 0usize;
            for (jj, t) in otoks.iter().enumerate().skip(j + 1) {
                match t.text {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    _ => {}
                }
                end = jj;
                if depth == 0 {
                    break;
                }
            }
        }
        for k in inv[j + 1..=end].iter().flatten() {
            al[*k] = None;
        }
    }
}

/// One line of the preprocessed text.
struct PreLine {
    start: usize,
    end: usize,
    /// File index and 1-based line in that file, unless this is a line marker.
    loc: Option<(usize, usize)>,
}

/// Parses a line marker `# 12 "file" 1 3` (or `#line 12 "file"`): line and file name.
fn line_marker(s: &str) -> Option<(usize, String)> {
    let s = s.strip_prefix('#')?.trim_start();
    let s = s.strip_prefix("line").unwrap_or(s).trim_start();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let line: usize = s[..digits].parse().ok()?;
    let s = s[digits..].trim_start().strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = s.chars();
    loop {
        match chars.next()? {
            '"' => break,
            '\\' => {
                let c = chars.next()?;
                if c.is_digit(8) {
                    // Up to three octal digits.
                    let mut v = c.to_digit(8)?;
                    let rest = chars.as_str();
                    let more: String = rest.chars().take_while(|c| c.is_digit(8)).take(2).collect();
                    for d in more.chars() {
                        v = v * 8 + d.to_digit(8)?;
                        chars.next();
                    }
                    name.push(char::from_u32(v)?);
                } else {
                    name.push(c);
                }
            }
            c => name.push(c),
        }
    }
    Some((line, name))
}

/// The preprocessed text with the way back to the original files.
pub struct SourceMap {
    pub pre: String,
    lines: Vec<PreLine>,
    names: Vec<String>,
    files: Vec<OnceCell<Option<SourceFile>>>,
    main: usize,
}

impl SourceMap {
    /// `main_name` is the file name as the preprocessor prints it (the path it was given);
    /// other files named by markers are read from disk when first needed.
    pub fn new(pre: String, main_name: &str, main_text: String) -> SourceMap {
        let mut names = vec![main_name.to_string()];
        let mut lines = vec![];
        let mut cur: Option<(usize, usize)> = None;
        let mut start = 0;
        let bytes = pre.as_bytes();
        while start <= pre.len() {
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(pre.len(), |p| start + p);
            let text = &pre[start..end];
            let trimmed = text.trim_start();
            if let Some((line, name)) = trimmed
                .starts_with('#')
                .then(|| line_marker(trimmed))
                .flatten()
            {
                let id = match names.iter().position(|n| *n == name) {
                    Some(i) => i,
                    None => {
                        names.push(name);
                        names.len() - 1
                    }
                };
                cur = Some((id, line));
                lines.push(PreLine {
                    start,
                    end,
                    loc: None,
                });
            } else {
                // Text before any marker is taken to be the main file (as with
                // `parse_preprocessed` on plain text).
                let (id, line) = cur.unwrap_or((0, 1));
                lines.push(PreLine {
                    start,
                    end,
                    loc: Some((id, line)),
                });
                cur = Some((id, line + 1));
            }
            if end == pre.len() {
                break;
            }
            start = end + 1;
        }
        let files = names.iter().map(|_| OnceCell::new()).collect::<Vec<_>>();
        let _ = files[0].set(Some(SourceFile::new(main_name, main_text)));
        SourceMap {
            pre,
            lines,
            names,
            files,
            main: 0,
        }
    }

    fn file(&self, id: usize) -> Option<&SourceFile> {
        self.files[id]
            .get_or_init(|| {
                let name = &self.names[id];
                if name.starts_with('<') {
                    return None;
                }
                std::fs::read_to_string(name)
                    .ok()
                    .map(|t| SourceFile::new(name, t))
            })
            .as_ref()
    }

    pub fn main_file(&self) -> &SourceFile {
        self.file(self.main).expect("main file is always loaded")
    }

    fn line_index(&self, off: usize) -> usize {
        match self.lines.binary_search_by(|l| l.start.cmp(&off)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The original file and line of a preprocessed offset (by the line table only).
    pub fn line_of(&self, off: usize) -> Option<(&str, usize)> {
        let l = &self.lines[self.line_index(off.min(self.pre.len()))];
        let (id, line) = l.loc?;
        Some((self.names[id].as_str(), line))
    }

    /// Maps a preprocessed offset to (file, byte offset). `end` selects the end-of-span
    /// reading: the offset is exclusive and maps to the end of the token before it.
    fn map_offset(&self, off: usize, end: bool) -> Option<(usize, usize)> {
        let off = off.min(self.pre.len());
        let probe = if end { off.saturating_sub(1) } else { off };
        let li = self.line_index(probe);
        let pl = &self.lines[li];
        let (id, line) = pl.loc?;
        let file = self.file(id)?;
        let orange = file.line_range(line)?;
        let otext = &file.text[orange.clone()];
        let ptext = &self.pre[pl.start..pl.end];
        let ptoks = tokens(ptext, |_| false);
        let otoks = tokens(otext, |i| file.comment[orange.start + i]);
        let base = orange.start;
        if otoks.is_empty() {
            return Some((id, base));
        }
        let mut al = align(&ptoks, &otoks);
        unalign_macro_arguments(&mut al, &otoks);
        let rel = off - pl.start;
        // The token that holds (or, for a start, follows; for an end, precedes) the offset.
        let k = if end {
            match ptoks.iter().rposition(|t| t.range.start < rel) {
                Some(k) => k,
                None => return Some((id, base + otoks[0].range.start)),
            }
        } else {
            match ptoks.iter().position(|t| t.range.end > rel) {
                Some(k) => k,
                None => return Some((id, base + otoks[otoks.len() - 1].range.end)),
            }
        };
        if let Some(j) = al[k] {
            let t = &ptoks[k];
            let o = &otoks[j];
            let o_len = o.range.len();
            let pos = if end {
                o.range.start + (rel - t.range.start).min(o_len)
            } else {
                o.range.start + rel.saturating_sub(t.range.start).min(o_len)
            };
            return Some((id, base + pos));
        }
        // An expanded macro: the original tokens between the aligned neighbours.
        let before = al[..k].iter().rev().find_map(|x| *x);
        let after = al[k + 1..].iter().find_map(|x| *x);
        let lo = before.map_or(0, |j| j + 1);
        let hi = after.unwrap_or(otoks.len());
        let pos = if lo < hi {
            if end {
                otoks[hi - 1].range.end
            } else {
                otoks[lo].range.start
            }
        } else if end {
            after.map_or(otoks[otoks.len() - 1].range.end, |j| otoks[j].range.start)
        } else {
            before.map_or(otoks[0].range.start, |j| otoks[j].range.end)
        };
        Some((id, base + pos))
    }

    /// The original span of a preprocessed byte range, when it has one.
    pub fn span(&self, range: Range<usize>) -> Option<SourceSpan> {
        let (f1, s) = self.map_offset(range.start, false)?;
        let file = self.file(f1)?;
        let e = match self.map_offset(range.end.max(range.start + 1), true) {
            Some((f2, e)) if f2 == f1 && e >= s => e,
            // Ends in another file or before it starts (a macro spanning lines): up to the
            // end of the first line.
            _ => {
                let l = file.line_of(s);
                file.line_range(l).map_or(s, |r| r.end.max(s))
            }
        };
        let r = snap(&file.text, s..e);
        let (s, e) = (r.start, r.end);
        Some(SourceSpan {
            file: file.name.clone(),
            range: s..e,
            line: file.line_of(s),
            end_line: file.line_of(e.saturating_sub(1).max(s)),
        })
    }

    /// A span for diagnostics: the original one, or else the preprocessed text itself.
    pub fn span_or_pre(&self, range: Range<usize>) -> SourceSpan {
        self.span(range.clone()).unwrap_or_else(|| {
            let r = snap(&self.pre, range);
            let (s, e) = (r.start, r.end);
            let b = self.pre.as_bytes();
            let line = b[..s].iter().filter(|&&c| c == b'\n').count() + 1;
            let end_line = line + b[s..e].iter().filter(|&&c| c == b'\n').count();
            SourceSpan {
                file: PREPROCESSED.to_string(),
                range: s..e,
                line,
                end_line,
            }
        })
    }

    /// The text of an original span.
    pub fn text(&self, span: &SourceSpan) -> Option<&str> {
        if span.file == PREPROCESSED {
            return self.pre.get(span.range.clone());
        }
        let id = self.names.iter().position(|n| *n == span.file)?;
        self.file(id)?.text.get(span.range.clone())
    }

    /// `(name, text)` of every source the spans refer to, for rendering diagnostics.
    pub fn sources<'a>(&self, files: impl IntoIterator<Item = &'a str>) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = vec![];
        for f in files {
            if out.iter().any(|(n, _)| n == f) {
                continue;
            }
            if f == PREPROCESSED {
                out.push((f.to_string(), self.pre.clone()));
            } else if let Some(id) = self.names.iter().position(|n| n == f) {
                if let Some(sf) = self.file(id) {
                    out.push((f.to_string(), sf.text.clone()));
                }
            }
        }
        out
    }
}

/// C text on one line: comments removed, white space runs collapsed to one space (outside
/// string and character literals), trimmed.
pub fn normalize(text: &str) -> String {
    let mask = comment_mask(text);
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    let mut in_lit: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_lit.is_none() && mask[i] {
            space = true;
            continue;
        }
        if let Some(q) = in_lit {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q || c == '\n' {
                in_lit = None;
            }
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        if c == '"' || c == '\'' {
            in_lit = Some(c);
        }
        out.push(c);
    }
    out
}

/// Where statement `s` of the preprocessed text `pre` ends: after its last `;` or `}`. The
/// parser's span of an `if` without `else` runs on over what follows it (the blank lines and
/// a `#pragma endscop` line after the statement, read while looking for an `else`).
pub(super) fn statement_end(pre: &str, s: &lang_c::span::Span) -> usize {
    pre.get(s.start..s.end)
        .and_then(|t| t.rfind([';', '}']))
        .map_or(s.end, |k| s.start + k + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(
            line_marker("# 12 \"a/b.c\" 1 3"),
            Some((12, "a/b.c".to_string()))
        );
        assert_eq!(
            line_marker("#line 3 \"x\\\\y\\\"z\\101\""),
            Some((3, "x\\y\"zA".to_string()))
        );
        assert_eq!(line_marker("#pragma scop"), None);
        assert_eq!(line_marker("# \"x\""), None);
        assert_eq!(line_marker("# 1 \"unterminated"), None);
    }

    #[test]
    fn maps_through_collapsed_space_and_macros() {
        let orig = "int x;\n#define M(a) ((a)+1)\nInit:   C[i]  =  M(k) ; /* c */\n";
        let pre = "# 1 \"f.c\"\nint x;\n\nInit: C[i] = ((k)+1) ;\n";
        let sm = SourceMap::new(pre.to_string(), "f.c", orig.to_string());
        let p = pre.find("C[i]").unwrap();
        let e = pre.find(" ;").unwrap() + 2;
        let sp = sm.span(p..e).unwrap();
        assert_eq!(sm.text(&sp), Some("C[i]  =  M(k) ;"));
        assert_eq!(sp.line, 3);
        // The expanded macro alone maps to its invocation.
        let m = pre.find("((k)").unwrap();
        let sp = sm.span(m..m + 7).unwrap();
        assert_eq!(sm.text(&sp), Some("M(k)"));
    }

    #[test]
    fn normalizes_statement_text() {
        assert_eq!(
            normalize("A[i] =  /* x */ B[i]\n    + \"a  b\" ;"),
            "A[i] = B[i] + \"a  b\" ;"
        );
    }
}

#[cfg(test)]
mod snap_tests {
    use super::*;

    #[test]
    fn spans_widen_to_whole_characters() {
        let t = "aé b";
        assert_eq!(snap(t, 2..2), 1..3);
        assert_eq!(snap(t, 0..2), 0..3);
        assert_eq!(snap(t, 4..99), 4..5);
    }
}

/// Where the file that holds `offset` of the preprocessed text `pre` is included from: the
/// chain of `(file, line)` of the `#include` lines, innermost first, and whether the
/// preprocessor marks the file as a system header (flag 3 of its line markers).
pub fn include_chain(pre: &str, offset: usize) -> (Vec<(String, usize)>, bool) {
    // (file, next line) of the file being read, and of those that include it.
    let mut cur: Option<(String, usize)> = None;
    let mut stack: Vec<(String, usize)> = vec![];
    let mut system = false;
    let mut start = 0;
    for line in pre.split_inclusive('\n') {
        if start > offset {
            break;
        }
        let t = line.trim_start();
        let marker = t
            .starts_with('#')
            .then(|| line_marker(t.trim_end()))
            .flatten();
        match marker {
            Some((l, name)) => {
                // The flags after the file name.
                let after = t.rfind('"').map_or("", |p| &t[p + 1..]);
                let flags: Vec<&str> = after.split_whitespace().collect();
                if flags.contains(&"1") {
                    if let Some(c) = cur.take() {
                        stack.push(c);
                    }
                } else if flags.contains(&"2") {
                    stack.pop();
                }
                system = flags.contains(&"3");
                cur = Some((name, l));
            }
            None => {
                if let Some(c) = cur.as_mut() {
                    c.1 += 1;
                }
            }
        }
        start += line.len();
    }
    let chain = stack
        .into_iter()
        .rev()
        .filter(|(f, _)| !f.starts_with('<'))
        .collect();
    (chain, system)
}

#[cfg(test)]
mod include_tests {
    use super::*;

    #[test]
    fn include_chain_names_the_include_lines() {
        let pre = "# 0 \"a.c\"\n# 1 \"<built-in>\"\n# 1 \"a.c\"\nint x;\n\n# 1 \"/usr/include/h.h\" 1 3 4\n# 5 \"/usr/include/h.h\" 3 4\nstruct s;\n# 3 \"a.c\" 2\nint y;\n";
        let at = pre.find("struct s").unwrap();
        let (chain, system) = include_chain(pre, at);
        assert_eq!(chain, vec![("a.c".to_string(), 3)]);
        assert!(system);
        let (chain, system) = include_chain(pre, pre.find("int y").unwrap());
        assert!(chain.is_empty() && !system);
    }
}
