//! A statement's text as copies see it: where it accesses an array with all its subscripts
//! ([`accesses`]), and where such an access is one operand of a product with a scalar
//! factor ([`scaled_product`]), the form a scaled copy (`copy_scaled(l, k, A, alpha)`)
//! replaces by one element of its buffer.
//!
//! The text is the statement as written (comments removed, macros unexpanded); the
//! code generator rewrites exactly the spans these functions return, so what the planner
//! accepts here is what the generator writes.

use std::ops::Range;

/// One access `A[s0]..[s(r-1)]` in a statement's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextAccess {
    /// From the array's name to the last `]`.
    pub span: Range<usize>,
    /// The subscripts as written, trimmed.
    pub subs: Vec<String>,
}

/// Every access to the array `name` of rank `rank` in `text`, in order; refused when the
/// name appears other than with all its subscripts (through a macro, as a pointer) or not at
/// all.
pub fn accesses(text: &str, name: &str, rank: usize) -> Result<Vec<TextAccess>, String> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let tok = &text[start..i];
            let before = text[..start].trim_end();
            let member = before.ends_with('.') || before.ends_with("->");
            if tok != name || member {
                continue;
            }
            let mut subs = vec![];
            let mut j = i;
            while subs.len() < rank {
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j >= b.len() || b[j] != b'[' {
                    break;
                }
                let s0 = j + 1;
                let mut depth = 0;
                while j < b.len() {
                    match b[j] {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= b.len() {
                    break;
                }
                subs.push(text[s0..j].trim().to_string());
                j += 1;
            }
            if subs.len() != rank {
                return Err(format!(
                    "`{name}` appears in the statement without its {rank} subscript(s)"
                ));
            }
            out.push(TextAccess {
                span: start..j,
                subs,
            });
            i = j;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "the statement's text does not name `{name}` (a macro?)"
        ));
    }
    Ok(out)
}

/// The span of the product of `access` with the scalar `factor` when the access is one
/// operand of a multiplication whose other operand is exactly `factor`, as C groups the
/// text: `factor * A[..]` or `A[..] * factor`, with nothing binding tighter on either side
/// (`x * alpha * A[i]` is `(x * alpha) * A[i]` and `-alpha * A[i]` multiplies `-alpha`: no
/// such product). Replacing the span by a value equal to the product leaves what the
/// statement computes unchanged, bit for bit.
pub fn scaled_product(text: &str, access: &TextAccess, factor: &str) -> Option<Range<usize>> {
    let (s, e) = (access.span.start, access.span.end);
    // factor * A[..]
    if let Some(star) = prev_char(text, s)
        .filter(|&(_, c)| c == '*')
        .map(|(p, _)| p)
    {
        if let Some(f) = ident_ending_at(text, star) {
            if &text[f.clone()] == factor && opens_operand(text, f.start) && !postfix_after(text, e)
            {
                return Some(f.start..e);
            }
        }
    }
    // A[..] * factor
    let (star, c) = next_char(text, e)?;
    if c != '*' || text[star + 1..].starts_with('=') || !opens_operand(text, s) {
        return None;
    }
    let f = ident_starting_after(text, star + 1)?;
    (&text[f.clone()] == factor && !postfix_after(text, f.end)).then_some(s..f.end)
}

/// The last non-blank character before byte `at`, with its position.
fn prev_char(text: &str, at: usize) -> Option<(usize, char)> {
    text[..at]
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_whitespace())
}

/// The first non-blank character from byte `at`, with its position.
fn next_char(text: &str, at: usize) -> Option<(usize, char)> {
    (text[at..].char_indices())
        .find(|(_, c)| !c.is_whitespace())
        .map(|(p, c)| (at + p, c))
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier whose last character is the last non-blank one before byte `at` (not a
/// member after `.` or `->`, not a number).
fn ident_ending_at(text: &str, at: usize) -> Option<Range<usize>> {
    let (p, c) = prev_char(text, at)?;
    if !is_ident(c) {
        return None;
    }
    let end = p + 1;
    let start = text[..end]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_ident(*c))
        .last()
        .map(|(i, _)| i)?;
    let first = text[start..].chars().next()?;
    let before = text[..start].trim_end();
    (!first.is_ascii_digit() && !before.ends_with('.') && !before.ends_with("->"))
        .then_some(start..end)
}

/// The identifier starting at the first non-blank character from byte `at`.
fn ident_starting_after(text: &str, at: usize) -> Option<Range<usize>> {
    let (p, c) = next_char(text, at)?;
    if !is_ident(c) || c.is_ascii_digit() {
        return None;
    }
    let len = text[p..].chars().take_while(|c| is_ident(*c)).count();
    Some(p..p + len)
}

/// Whether an operand starting at byte `at` is the left operand of what follows it: the
/// text before it ends an operator that binds more loosely than `*` (or nothing, an opening
/// parenthesis, a comma), not a `*`, `/`, `%`, a unary operator or a cast.
fn opens_operand(text: &str, at: usize) -> bool {
    let Some((p, c)) = prev_char(text, at) else {
        return true;
    };
    match c {
        '(' | '[' | '=' | ',' | '?' | ':' | '<' | '>' | '{' | ';' => true,
        '|' => text[..p].ends_with('|'),
        '&' => text[..p].ends_with('&'),
        '+' | '-' => {
            // Binary only: an operand ends before it, and it is not `++` or `--`.
            if text[..p].ends_with(c) {
                return false;
            }
            prev_char(text, p).is_some_and(|(_, d)| is_ident(d) || d == ')' || d == ']')
        }
        _ => false,
    }
}

/// Whether a postfix operator (a subscript, a call, a member, `++`, `--`) follows byte `at`.
fn postfix_after(text: &str, at: usize) -> bool {
    let rest = text[at..].trim_start();
    rest.starts_with('[')
        || rest.starts_with('(')
        || rest.starts_with('.')
        || rest.starts_with("->")
        || rest.starts_with("++")
        || rest.starts_with("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(text: &str) -> Option<String> {
        let acc = accesses(text, "A", 2).unwrap();
        scaled_product(text, &acc[0], "alpha").map(|r| text[r].to_string())
    }

    #[test]
    fn accesses_are_found_with_their_subscripts() {
        let t = "C[i][j] += alpha * A[i][k] * B[k][j];";
        let a = accesses(t, "A", 2).unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(&t[a[0].span.clone()], "A[i][k]");
        assert_eq!(a[0].subs, vec!["i", "k"]);
        assert!(accesses("x = A;", "A", 2).is_err());
        assert!(accesses("x = s.A[0][1];", "A", 2).is_err());
    }

    #[test]
    fn products_with_the_factor_are_found() {
        assert_eq!(
            product("C[i][j] += alpha * A[i][k] * B[k][j];").as_deref(),
            Some("alpha * A[i][k]")
        );
        assert_eq!(
            product("C[i][j] += A[i][k]*alpha * B[k][j];").as_deref(),
            Some("A[i][k]*alpha")
        );
        assert_eq!(
            product("C[i][j] = (alpha*A[i][k]);").as_deref(),
            Some("alpha*A[i][k]")
        );
        assert_eq!(
            product("C[i][j] = C[i][j] - alpha * A[i][k];").as_deref(),
            Some("alpha * A[i][k]")
        );
    }

    #[test]
    fn products_grouped_otherwise_are_not() {
        // (x * alpha) * A, (-alpha) * A, a cast, alpha * (A * B), alpha / A, A * alpha[0].
        for t in [
            "C[i][j] += x * alpha * A[i][k];",
            "C[i][j] += -alpha * A[i][k];",
            "C[i][j] += (double)alpha * A[i][k];",
            "C[i][j] += beta * A[i][k];",
            "C[i][j] += alpha / A[i][k];",
            "C[i][j] += x / A[i][k] * alpha;",
            "C[i][j] += A[i][k] * alpha[0];",
            "C[i][j] += A[i][k] * alpha2;",
            "C[i][j] += A[i][k] *= alpha;",
            "C[i][j] += s.alpha * A[i][k];",
        ] {
            assert_eq!(product(t), None, "{t}");
        }
    }
}
