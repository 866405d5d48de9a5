//! A line diff (longest common subsequence) printed unified-style, for `:diff`.

use std::fmt::Write;

/// One line of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// The line is in both texts (index in the old, index in the new).
    Keep(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// A shortest edit script from `a` to `b` (lines).
fn edit_script(a: &[&str], b: &[&str]) -> Vec<Op> {
    // Common prefix and suffix need no table.
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (n, m) = (a_mid.len(), b_mid.len());
    // lcs[i][j]: length of the LCS of a_mid[i..] and b_mid[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a_mid[i] == b_mid[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let mut ops: Vec<Op> = (0..prefix).map(|k| Op::Keep(k, k)).collect();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a_mid[i] == b_mid[j] {
            ops.push(Op::Keep(prefix + i, prefix + j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            ops.push(Op::Delete(prefix + i));
            i += 1;
        } else {
            ops.push(Op::Insert(prefix + j));
            j += 1;
        }
    }
    for k in 0..suffix {
        ops.push(Op::Keep(prefix + n + k, prefix + m + k));
    }
    ops
}

/// The changes from `old` to `new` as unified-diff hunks with `context` lines around each
/// change, under `--- old_name` / `+++ new_name` headers. Empty when the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str, context: usize) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = edit_script(&a, &b);
    let changed: Vec<usize> = (0..ops.len())
        .filter(|&k| !matches!(ops[k], Op::Keep(..)))
        .collect();
    if changed.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // Group changes whose context windows touch into one hunk.
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(context);
        let mut end = (changed[k] + context + 1).min(ops.len());
        k += 1;
        while k < changed.len() && changed[k] <= end + context {
            end = (changed[k] + context + 1).min(ops.len());
            k += 1;
        }
        let hunk = &ops[start..end];
        // Lines of each text before the hunk.
        let (mut a0, mut b0) = (0, 0);
        for op in &ops[..start] {
            match *op {
                Op::Keep(..) => {
                    a0 += 1;
                    b0 += 1;
                }
                Op::Delete(_) => a0 += 1,
                Op::Insert(_) => b0 += 1,
            }
        }
        let a_len = hunk.iter().filter(|o| !matches!(o, Op::Insert(_))).count();
        let b_len = hunk.iter().filter(|o| !matches!(o, Op::Delete(_))).count();
        let range = |s: usize, l: usize| {
            if l == 0 {
                format!("{s},0")
            } else if l == 1 {
                format!("{}", s + 1)
            } else {
                format!("{},{l}", s + 1)
            }
        };
        let _ = writeln!(out, "@@ -{} +{} @@", range(a0, a_len), range(b0, b_len));
        for op in hunk {
            let _ = match *op {
                Op::Keep(i, _) => writeln!(out, " {}", a[i]),
                Op::Delete(i) => writeln!(out, "-{}", a[i]),
                Op::Insert(j) => writeln!(out, "+{}", b[j]),
            };
        }
    }
    out
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

    /// Applying the diff's `-`/`+` lines to the old text gives the new one.
    #[test]
    fn edit_scripts_rebuild_the_new_text() {
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
                let a: Vec<&str> = s.split(' ').filter(|w| !w.is_empty()).collect();
                let b: Vec<&str> = t.split(' ').filter(|w| !w.is_empty()).collect();
                let ops = edit_script(&a, &b);
                let rebuilt: Vec<&str> = ops
                    .iter()
                    .filter_map(|o| match *o {
                        Op::Keep(i, _) => Some(a[i]),
                        Op::Insert(j) => Some(b[j]),
                        Op::Delete(_) => None,
                    })
                    .collect();
                assert_eq!(rebuilt, b, "{s:?} -> {t:?}");
                let old: Vec<&str> = ops
                    .iter()
                    .filter_map(|o| match *o {
                        Op::Keep(i, _) | Op::Delete(i) => Some(a[i]),
                        Op::Insert(_) => None,
                    })
                    .collect();
                assert_eq!(old, a);
            }
        }
    }
}
