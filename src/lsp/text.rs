//! Byte offsets (what loopy's spans are) and LSP positions (lines and UTF-16 columns).

use lsp_types::{Position, Range};

/// Where each line of a text starts, to convert between byte offsets and positions.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(k, _)| k + 1));
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped into the text, and back to a character
    /// boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col: usize = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum();
        Position::new(line as u32, col as u32)
    }

    pub fn range(&self, r: &std::ops::Range<usize>) -> Range {
        Range::new(self.position(r.start), self.position(r.end.max(r.start)))
    }

    /// The byte offset of a position (a column past the line's end is its end; a line past
    /// the text's end is the text's end).
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(p.line as usize + 1)
            .map_or(self.text.len(), |e| e - 1);
        let mut units = 0u32;
        for (k, c) in self.text[start..end].char_indices() {
            if units >= p.character {
                return start + k;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

/// The identifier around byte `at` and its range, if any.
pub fn word_at(text: &str, at: usize) -> Option<(&str, std::ops::Range<usize>)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let at = at.min(text.len());
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(at, |(k, _)| k);
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(k, _)| at + k);
    let w = &text[start..end];
    (!w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit())).then_some((w, start..end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_through_utf16() {
        let t = "ab\né𝄞x\n\nlast";
        let ix = LineIndex::new(t);
        assert_eq!(ix.position(0), Position::new(0, 0));
        assert_eq!(ix.position(3), Position::new(1, 0));
        // é is one UTF-16 unit, 𝄞 two.
        let x = t.find('x').unwrap();
        assert_eq!(ix.position(x), Position::new(1, 3));
        assert_eq!(ix.offset(Position::new(1, 3)), x);
        assert_eq!(ix.offset(Position::new(1, 99)), x + 1);
        assert_eq!(ix.offset(Position::new(3, 2)), t.len() - 2);
        assert_eq!(ix.offset(Position::new(9, 0)), t.len());
        assert_eq!(ix.position(t.len() + 5), Position::new(3, 4));
    }

    #[test]
    fn words() {
        let t = "tile(Mult, [32, 8])";
        assert_eq!(word_at(t, 2).map(|w| w.0), Some("tile"));
        assert_eq!(word_at(t, 4).map(|w| w.0), Some("tile"));
        assert_eq!(word_at(t, 7).map(|w| w.0), Some("Mult"));
        assert_eq!(word_at(t, 13), None);
    }
}
