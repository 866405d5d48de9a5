//! The line diff of `:diff`, printed unified-style (the `similar` crate's Myers diff).

use similar::{Algorithm, TextDiff};

/// The changes from `old` to `new` as unified-diff hunks with `context` lines around each
/// change, under `--- old_name` / `+++ new_name` headers. Empty when the texts are equal.
/// A missing final newline is not a change (both texts are compared line by line).
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str, context: usize) -> String {
    let lines = |t: &str| -> String { t.lines().map(|l| format!("{l}\n")).collect() };
    let (a, b) = (lines(old), lines(new));
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_lines(&a, &b);
    if diff
        .ops()
        .iter()
        .all(|o| matches!(o, similar::DiffOp::Equal { .. }))
    {
        return String::new();
    }
    diff.unified_diff()
        .context_radius(context)
        .header(old_name, new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a\nb\n", "a\nb\n", "x", "y", 3), "");
    }

    #[test]
    fn one_changed_line() {
        let d = unified("a\nb\nc\n", "a\nB\nc\n", "old", "new", 1);
        assert_eq!(d, "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    }

    #[test]
    fn separate_hunks_and_insertions() {
        let old: String = (1..=20).map(|k| format!("{k}\n")).collect();
        let new: String = (1..=20)
            .filter(|&k| k != 18)
            .map(|k| {
                if k == 3 {
                    "3\nx\n".to_string()
                } else {
                    format!("{k}\n")
                }
            })
            .collect();
        let d = unified(&old, &new, "o", "n", 1);
        assert_eq!(
            d,
            "--- o\n+++ n\n@@ -3,2 +3,3 @@\n 3\n+x\n 4\n@@ -17,3 +18,2 @@\n 17\n-18\n 19\n"
        );
    }

    #[test]
    fn from_and_to_empty() {
        assert_eq!(
            unified("", "a\nb\n", "o", "n", 3),
            "--- o\n+++ n\n@@ -0,0 +1,2 @@\n+a\n+b\n"
        );
        assert_eq!(
            unified("a\n", "", "o", "n", 3),
            "--- o\n+++ n\n@@ -1 +0,0 @@\n-a\n"
        );
    }

    /// With context enough to keep every line, the ` ` and `+` lines are the new text and
    /// the ` ` and `-` lines the old one.
    #[test]
    fn diffs_rebuild_both_texts() {
        let texts = [
            "a b c d e f",
            "a x c d y f g",
            "b c",
            "",
            "f e d c b a",
            "a a b b a a",
        ];
        for s in texts {
            for t in texts {
                let a: String = s
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(|w| format!("{w}\n"))
                    .collect();
                let b: String = t
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(|w| format!("{w}\n"))
                    .collect();
                let d = unified(&a, &b, "o", "n", 100);
                if s == t {
                    assert_eq!(d, "");
                    continue;
                }
                let body: Vec<&str> = d.lines().skip(2).filter(|l| !l.starts_with("@@")).collect();
                let side = |keep: char| -> String {
                    body.iter()
                        .filter(|l| l.starts_with(' ') || l.starts_with(keep))
                        .map(|l| format!("{}\n", &l[1..]))
                        .collect()
                };
                assert_eq!(side('+'), b, "{s:?} -> {t:?}:\n{d}");
                assert_eq!(side('-'), a, "{s:?} -> {t:?}:\n{d}");
            }
        }
    }
}
