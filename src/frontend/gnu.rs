//! GNU C that lang-c 0.15 cannot read, made readable without moving a byte.
//!
//! The compiler's own headers use constructs lang-c's grammar lacks: an attribute between
//! `struct` and its tag (`omp.h`), `__int128` (`immintrin.h` through `bmi2intrin.h`),
//! `x ?: y`. None of them matters to the model of a region that does not use them, so
//! outside the regions being modelled they are rewritten in the preprocessed text into
//! text of the same length that lang-c reads: an attribute becomes spaces, `__int128` a
//! plain integer type, `?:` the operator `||`. Every byte offset, and so every span and
//! line marker, stays valid. The text of the regions (between `#pragma scop` and
//! `#pragma endscop`) is never touched: what lang-c cannot read there is reported, with
//! what it is ([`unreadable_at`]).

use crate::model::lex::lex;
use std::ops::Range;

/// One construct rewritten, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    pub range: Range<usize>,
    pub what: &'static str,
}

/// Identifier and punctuation tokens of preprocessed text, outside line markers and
/// directives, string and character literals.
pub(crate) fn tokens(text: &str) -> Vec<Range<usize>> {
    let mut out = vec![];
    // Whether no token has been seen on this line yet, and whether the line is a line
    // marker or a directive the preprocessor left (`#pragma`).
    let (mut line_start, mut directive) = (true, false);
    for t in lex(text) {
        if t.is_blank() {
            if text[t.range].contains('\n') {
                (line_start, directive) = (true, false);
            }
            continue;
        }
        if line_start && &text[t.range.clone()] == "#" {
            directive = true;
        }
        line_start = false;
        if !directive {
            out.push(t.range);
        }
    }
    out
}

/// The rewrites that make `text` readable to lang-c, outside the ranges of `keep`.
pub fn rewrites(text: &str, keep: &[Range<usize>]) -> Vec<Rewrite> {
    let toks = tokens(text);
    let t = |k: usize| toks.get(k).map_or("", |r| &text[r.clone()]);
    let kept = |r: &Range<usize>| keep.iter().any(|k| r.start < k.end && k.start < r.end);
    let mut out = vec![];
    let mut k = 0;
    while k < toks.len() {
        let here = toks[k].clone();
        match t(k) {
            "__attribute__" | "__attribute" if t(k + 1) == "(" => {
                // The attribute with its balanced parentheses.
                let mut depth = 0usize;
                let mut j = k + 1;
                while j < toks.len() {
                    match t(j) {
                        "(" => depth += 1,
                        ")" => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j == toks.len() {
                    break;
                }
                let r = here.start..toks[j].end;
                if !kept(&r) {
                    out.push(Rewrite {
                        range: r,
                        what: "a GNU attribute `__attribute__((…))`",
                    });
                }
                k = j + 1;
                continue;
            }
            // Only silences warnings; lang-c cannot read it before a cast of a compound
            // literal, `__extension__ (__m128)(__v4sf){ … }` (`xmmintrin.h`).
            "__extension__" if !kept(&here) => out.push(Rewrite {
                range: here,
                what: "`__extension__`",
            }),
            "__int128" | "__int128_t" | "__uint128_t" if !kept(&here) => out.push(Rewrite {
                range: here,
                what: "the 128-bit integer type `__int128`",
            }),
            "?" if t(k + 1) == ":" => {
                let r = here.start..toks[k + 1].end;
                if !kept(&r) {
                    out.push(Rewrite {
                        range: r,
                        what: "the conditional with an omitted operand `x ?: y`",
                    });
                }
                k += 2;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// Applies `rewrites` to `text`: same length, same line structure.
pub fn apply(text: &mut String, rewrites: &[Rewrite]) {
    let mut b = std::mem::take(text).into_bytes();
    for rw in rewrites {
        let r = rw.range.clone();
        let old = String::from_utf8_lossy(&b[r.clone()]).into_owned();
        let new: String = match old.as_str() {
            // An integer type of the same length, padded with spaces.
            "__int128" | "__int128_t" => format!("{:<w$}", "long", w = r.len()),
            "__uint128_t" => format!("{:<w$}", "unsigned", w = r.len()),
            o if o.starts_with('?') => {
                // `?` and `:` with white space between: `||` then spaces on one line; on
                // several, spaces (newlines kept) ending with `||` where `:` was.
                let blank = |s: &str| -> String {
                    s.chars()
                        .map(|c| if c == '\n' { '\n' } else { ' ' })
                        .collect()
                };
                if !o.contains('\n') {
                    format!("||{}", blank(&o[2..]))
                } else if o.len() >= 3 && matches!(o.as_bytes()[o.len() - 2], b' ' | b'\t') {
                    format!("{}||", blank(&o[..o.len() - 2]))
                } else {
                    continue;
                }
            }
            o => o
                .bytes()
                .map(|c| if c == b'\n' { '\n' } else { ' ' })
                .collect(),
        };
        if new.len() == r.len() {
            b[r].copy_from_slice(new.as_bytes());
        }
    }
    *text = String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into());
}

/// The byte ranges from each `#pragma scop` line to its `#pragma endscop` line (to the end
/// of the text for one that never ends): the text that is modelled and never rewritten.
pub fn regions(pre: &str) -> Vec<Range<usize>> {
    let mut out = vec![];
    let mut open: Option<usize> = None;
    for p in super::region::pragmas(pre) {
        match (p.end, open) {
            (false, None) => open = Some(p.range.start),
            (true, Some(s)) => {
                out.push(s..p.range.end);
                open = None;
            }
            _ => {}
        }
    }
    if let Some(s) = open {
        out.push(s..pre.len());
    }
    out
}

/// The bodies of the functions that the `regions` call and `text` defines, from `{` to
/// `}`: modelled too where a region is a test between two versions whose transformed
/// version is a call (`versions`), and so never rewritten either.
pub fn called_bodies(text: &str, regions: &[Range<usize>]) -> Vec<Range<usize>> {
    let toks = tokens(text);
    let t = |k: usize| toks.get(k).map_or("", |r| &text[r.clone()]);
    let word = |s: &str| s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    let inside = |r: &Range<usize>| regions.iter().any(|g| g.start <= r.start && r.end <= g.end);
    let called: Vec<&str> = (0..toks.len())
        .filter(|&k| inside(&toks[k]) && word(t(k)) && t(k + 1) == "(")
        .map(t)
        .collect();
    // The token after the bracket that opens at `k` closes.
    let after = |k: usize, open: &str, close: &str| {
        let mut depth = 0usize;
        for j in k..toks.len() {
            if t(j) == open {
                depth += 1;
            } else if t(j) == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(j + 1);
                }
            }
        }
        None
    };
    let mut out = vec![];
    let (mut k, mut depth) = (0, 0usize);
    while k < toks.len() {
        match t(k) {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            w if depth == 0 && t(k + 1) == "(" && called.contains(&w) => {
                if let Some(j) = after(k + 1, "(", ")").filter(|&j| t(j) == "{") {
                    if let Some(e) = after(j, "{", "}") {
                        out.push(toks[j].start..toks[e - 1].end);
                        k = e;
                        continue;
                    }
                }
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// What lang-c cannot read at `offset` of `text`, when it is one of the constructs known to
/// stop it (for reports of a syntax error): a description and a way around it.
pub fn unreadable_at(text: &str, offset: usize) -> Option<(&'static str, &'static str)> {
    let toks = tokens(text);
    // The token at the offset and the two before it (lang-c stops at or just after the
    // construct).
    let k = toks.iter().position(|r| r.end > offset)?;
    let t = |j: usize| toks.get(j).map_or("", |r| &text[r.clone()]);
    for j in k.saturating_sub(2)..=k {
        match t(j) {
            "__int128" | "__int128_t" | "__uint128_t" => {
                return Some((
                    "the 128-bit integer type `__int128`",
                    "use a 64-bit type (`long long`, `int64_t`) in the region",
                ))
            }
            "?" if t(j + 1) == ":" => {
                return Some((
                    "the conditional with an omitted operand `x ?: y`",
                    "write `x ? x : y` (or a temporary when `x` has side effects)",
                ))
            }
            "__attribute__" | "__attribute" => {
                return Some((
                    "a GNU attribute in a place lang-c's grammar does not allow",
                    "move the attribute after the declarator, or leave it out of the region",
                ))
            }
            "struct" | "union" | "enum" if t(j + 1).starts_with("__attribute") => {
                return Some((
                    "a GNU attribute between `struct` and its tag",
                    "move the attribute after the closing brace of the definition",
                ))
            }
            _ => {}
        }
    }
    // A function defined inside a function body: `T f(…) {` where a statement is expected.
    let (a, b, c) = (t(k.saturating_sub(1)), t(k), t(k + 1));
    if b == "{" && a == ")" && !c.is_empty() {
        let mut depth = 0usize;
        let mut j = k;
        while j > 0 {
            j -= 1;
            match t(j) {
                ")" => depth += 1,
                "(" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        let name = t(j.saturating_sub(1));
        let ty = t(j.saturating_sub(2));
        let is_ident = |s: &str| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        };
        let keyword = matches!(
            name,
            "if" | "for" | "while" | "switch" | "sizeof" | "return"
        );
        if is_ident(name) && is_ident(ty) && !keyword {
            return Some((
                "a nested function (a function defined inside another function)",
                "define the function at file scope",
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(text: &str, keep: &[Range<usize>]) -> String {
        let mut t = text.to_string();
        apply(&mut t, &rewrites(text, keep));
        assert_eq!(t.len(), text.len());
        t
    }

    #[test]
    fn attributes_become_spaces() {
        let t = "typedef struct __attribute__((__aligned__ (sizeof (void *)))) omp_depend_t\n{ char x[16]; } d;\n";
        let r = rewritten(t, &[]);
        assert!(r.starts_with("typedef struct "), "{r}");
        assert!(r.contains("   omp_depend_t\n{ char x[16]; }"), "{r}");
        assert!(!r.contains("attribute"));
    }

    #[test]
    fn int128_and_elvis() {
        let t = "unsigned __int128 x = (unsigned __int128) a * b;\nint y = a ?: b; int z = a ?\n : b;\n";
        let r = rewritten(t, &[]);
        assert_eq!(
            r,
            "unsigned long     x = (unsigned long    ) a * b;\nint y = a || b; int z = a  \n|| b;\n"
        );
    }

    #[test]
    fn kept_ranges_literals_and_directives_are_untouched() {
        let t = "#pragma scop\nint y = a ?: b;\n#pragma endscop\nchar *s = \"?:\"; __attribute__((x)) int q;\n# 1 \"__int128\"\n";
        let keep = regions(t);
        assert_eq!(keep.len(), 1);
        let r = rewritten(t, &keep);
        assert!(r.contains("int y = a ?: b;"));
        assert!(r.contains("\"?:\""));
        assert!(r.contains("# 1 \"__int128\""));
        assert!(!r.contains("__attribute__"));
    }

    #[test]
    fn names_what_stops_the_parser() {
        let t = "void f(void) { int g(int x) { return x; } }";
        let at = t.find("{ return").unwrap();
        assert!(unreadable_at(t, at).unwrap().0.contains("nested function"));
        let t = "int y = a ?: b;";
        assert!(unreadable_at(t, t.find(':').unwrap())
            .unwrap()
            .0
            .contains("omitted operand"));
        let t = "for (i = 0; i < n; i++) {";
        assert_eq!(unreadable_at(t, t.find('{').unwrap()), None);
    }
}

/// C's keywords (and GNU spellings) that can start a statement or a declaration.
const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "_Alignas",
    "__inline",
    "__inline__",
    "__restrict",
    "__restrict__",
    "__const",
    "__volatile__",
    "__asm__",
    "asm",
    "__asm",
    "typeof",
    "__typeof__",
    "__typeof",
];

/// Where a function is defined without a return type (`main() { … }`, `static f(x) int x;
/// { … }`: C89's implicit `int`, which C99 removed and lang-c does not read): the offsets of
/// the function names, before which `int ` makes the definition C99. Only definitions at
/// file scope count; declarations (`f();`) are left alone (a typedef name would read the
/// same).
pub fn implicit_int(text: &str, keep: &[Range<usize>]) -> Vec<usize> {
    let toks = tokens(text);
    let t = |k: usize| toks.get(k).map_or("", |r| &text[r.clone()]);
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && !KEYWORDS.contains(&s)
    };
    let specifier = |s: &str| {
        matches!(
            s,
            "static" | "extern" | "inline" | "__inline" | "__inline__" | "_Noreturn"
        )
    };
    let type_word = |s: &str| {
        matches!(
            s,
            "int"
                | "char"
                | "short"
                | "long"
                | "float"
                | "double"
                | "unsigned"
                | "signed"
                | "register"
                | "const"
                | "struct"
                | "union"
                | "enum"
                | "_Bool"
        )
    };
    // The matching `(` or `{` of each closing one.
    let mut opener = vec![usize::MAX; toks.len()];
    let mut depth = vec![0usize; toks.len()];
    let mut stack: Vec<usize> = vec![];
    for k in 0..toks.len() {
        match t(k) {
            "(" | "{" | "[" => {
                depth[k] = stack.len();
                stack.push(k);
            }
            ")" | "}" | "]" => {
                if let Some(o) = stack.pop() {
                    opener[k] = o;
                }
                depth[k] = stack.len();
            }
            _ => depth[k] = stack.len(),
        }
    }
    let closer = |o: usize| (o + 1..toks.len()).find(|&j| opener[j] == o);
    let mut out = vec![];
    for k in 0..toks.len() {
        if depth[k] != 0 || !ident(t(k)) || t(k + 1) != "(" || specifier(t(k)) {
            continue;
        }
        if keep.iter().any(|r| r.contains(&toks[k].start)) {
            continue;
        }
        // What comes before: the start of the file, `;`, or the end of a function body,
        // then only storage class and function specifiers.
        let mut p = k;
        while p > 0 && specifier(t(p - 1)) {
            p -= 1;
        }
        let starts = match p.checked_sub(1) {
            None => true,
            Some(q) => {
                t(q) == ";"
                    || (t(q) == "}"
                        && opener[q] != usize::MAX
                        && opener[q] > 0
                        && matches!(t(opener[q] - 1), ")" | ";"))
            }
        };
        if !starts {
            continue;
        }
        let Some(close) = closer(k + 1) else {
            continue;
        };
        // `{` next, or K&R parameter declarations, each starting with a type word.
        let mut j = close + 1;
        let mut at_decl = true;
        let body = loop {
            match t(j) {
                "{" => break at_decl,
                "" | "(" | "=" | "}" => break false,
                ";" => at_decl = true,
                w => {
                    if at_decl && !type_word(w) {
                        break false;
                    }
                    at_decl = false;
                }
            }
            j += 1;
        };
        if body {
            out.push(toks[k].start);
        }
    }
    out
}

/// `text` with `int ` inserted at each offset of `at` (increasing).
pub fn insert_int(text: &str, at: &[usize]) -> String {
    let mut out = String::with_capacity(text.len() + 4 * at.len());
    let mut prev = 0;
    for &a in at {
        out.push_str(&text[prev..a]);
        out.push_str("int ");
        prev = a;
    }
    out.push_str(&text[prev..]);
    out
}

#[cfg(test)]
mod implicit_tests {
    use super::*;

    fn fixed(t: &str) -> String {
        insert_int(t, &implicit_int(t, &[]))
    }

    #[test]
    fn implicit_int_definitions_get_int() {
        assert_eq!(fixed("main() {\n}\n"), "int main() {\n}\n");
        assert_eq!(
            fixed("double a;\nstatic f(x) int x; { return x; }\ng(void) { }"),
            "double a;\nstatic int f(x) int x; { return x; }\nint g(void) { }"
        );
        // Declarations, statements, typed definitions and struct returns stay.
        for t in [
            "f();\nint main() { if (x) { } while (y) { } }",
            "struct S { int x; } f(void) { }",
            "T (x);",
            "int x = g(1);",
        ] {
            assert_eq!(fixed(t), t);
        }
    }
}
