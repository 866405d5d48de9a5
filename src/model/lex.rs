//! C text as tokens: the one lexer of the stages that read or rewrite C as text (the
//! frontend's rewrites of GNU constructs and its map back to the user's file, the code
//! generator's rewriting of statement texts).
//!
//! It knows tokens, not grammar: identifiers (GCC's `$` and non-ASCII bytes included),
//! numbers (with exponent signs: `1e-5` is one token), string and character literals (to
//! the closing quote or the end of the line), comments, runs of white space, and single
//! punctuation characters. Every token is a byte range of the
//! text; the ranges cover the text without gaps, apart from skipped bytes.

use std::ops::Range;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    /// A string or character literal, quotes included.
    Literal,
    /// `/* ... */` or `// ...` (to the end of the line, the newline excluded).
    Comment,
    /// A run of white space, newlines included.
    Space,
    /// One punctuation character.
    Punct,
}

/// A token: its kind and its byte range in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub range: Range<usize>,
}

impl Token {
    /// Whether it is white space or a comment.
    pub fn is_blank(&self) -> bool {
        matches!(self.kind, Kind::Space | Kind::Comment)
    }
}

/// The tokens of `text`.
pub fn lex(text: &str) -> Vec<Token> {
    lex_skipping(text, |_| false)
}

/// The tokens of `text`, the bytes `skip` marks left out (a line's bytes inside a comment
/// that started on an earlier line, for instance).
pub fn lex_skipping(text: &str, skip: impl Fn(usize) -> bool) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if skip(i) {
            i += 1;
            continue;
        }
        let (kind, end) = token_at(text, i, &skip);
        // Never split a UTF-8 sequence.
        let mut end = end.min(b.len());
        while end < b.len() && !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(Token {
            kind,
            range: i..end,
        });
        i = end;
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The kind of the token starting at `i` and where it ends.
fn token_at(text: &str, i: usize, skip: &impl Fn(usize) -> bool) -> (Kind, usize) {
    let b = text.as_bytes();
    let c = b[i];
    let next = b.get(i + 1).copied();
    let mut j = i + 1;
    if c.is_ascii_whitespace() {
        while j < b.len() && b[j].is_ascii_whitespace() && !skip(j) {
            j += 1;
        }
        (Kind::Space, j)
    } else if c.is_ascii_digit() || (c == b'.' && next.is_some_and(|d| d.is_ascii_digit())) {
        while j < b.len() {
            let d = b[j];
            let exponent_sign =
                (d == b'+' || d == b'-') && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P');
            if !(is_ident(d) || d == b'.' || exponent_sign) {
                break;
            }
            j += 1;
        }
        (Kind::Number, j)
    } else if is_ident(c) {
        while j < b.len() && is_ident(b[j]) {
            j += 1;
        }
        (Kind::Ident, j)
    } else if c == b'"' || c == b'\'' {
        while j < b.len() && b[j] != c && b[j] != b'\n' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        (Kind::Literal, (j + 1).min(b.len()))
    } else if c == b'/' && next == Some(b'*') {
        j += 1;
        while j < b.len() && !(b[j] == b'*' && b.get(j + 1) == Some(&b'/')) {
            j += 1;
        }
        (Kind::Comment, (j + 2).min(b.len()))
    } else if c == b'/' && next == Some(b'/') {
        while j < b.len() && b[j] != b'\n' {
            j += 1;
        }
        (Kind::Comment, j)
    } else {
        (
            Kind::Punct,
            i + text[i..].chars().next().map_or(1, char::len_utf8),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(text: &str) -> Vec<(Kind, &str)> {
        lex(text)
            .into_iter()
            .map(|t| (t.kind, &text[t.range]))
            .collect()
    }

    #[test]
    fn tokens_cover_the_text() {
        let text = "x$1 = .5e-3 + 'a' /* c */ - \"s\\\"t\" // end\n\tA[i]→;";
        let toks = lex(text);
        let mut at = 0;
        for t in &toks {
            assert_eq!(t.range.start, at);
            at = t.range.end;
        }
        assert_eq!(at, text.len());
        let kinds = spelled(text);
        assert_eq!(kinds[0], (Kind::Ident, "x$1"));
        assert!(kinds.contains(&(Kind::Number, ".5e-3")));
        assert!(kinds.contains(&(Kind::Literal, "'a'")));
        assert!(kinds.contains(&(Kind::Comment, "/* c */")));
        assert!(kinds.contains(&(Kind::Literal, "\"s\\\"t\"")));
        assert!(kinds.contains(&(Kind::Comment, "// end")));
        // Non-ASCII characters are identifier characters, as GCC reads them.
        assert!(kinds.contains(&(Kind::Ident, "→")));
        assert!(kinds.contains(&(Kind::Space, "\n\t")));
    }

    #[test]
    fn a_literal_ends_at_the_line() {
        assert_eq!(
            spelled("'x\ny"),
            vec![(Kind::Literal, "'x\n"), (Kind::Ident, "y"),]
        );
    }

    #[test]
    fn skipped_bytes_are_left_out() {
        let text = "don't */ a";
        // The first 8 bytes are the end of a comment that started earlier.
        let toks = lex_skipping(text, |i| i < 8);
        let words: Vec<&str> = toks.iter().map(|t| &text[t.range.clone()]).collect();
        assert_eq!(words, vec![" ", "a"]);
    }
}
