//! Flop counts: the manifest's `flops = "2*NI*NJ*NK"` (or `--flops`), an expression in the
//! program's size macros, evaluated exactly (rationals over big integers) with the macro
//! values the compiler sees at the size being benched.
//!
//! Grammar: integers (C suffixes `u`, `l` allowed), names, `+ - * / ^ ( )`, unary minus;
//! `^` takes a non-negative integer exponent and binds tightest (right to left). A name
//! is a macro: the one of that exact name, else the only one whose name equals it up to
//! case (`ni` reads `NI`). A macro's body is itself evaluated by this grammar, so
//! `#define N (2*M)` works.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::HashMap;
use std::ops::Range;

/// An exact rational number (denominator positive, lowest terms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ratio {
    num: BigInt,
    den: BigInt,
}

impl Ratio {
    fn int(n: BigInt) -> Ratio {
        Ratio {
            num: n,
            den: BigInt::one(),
        }
    }

    fn new(num: BigInt, den: BigInt) -> Ratio {
        let g = num.gcd(&den);
        let (mut num, mut den) = (num / &g, den / g);
        if den.is_negative() {
            num = -num;
            den = -den;
        }
        Ratio { num, den }
    }

    fn add(&self, o: &Ratio) -> Ratio {
        Ratio::new(&self.num * &o.den + &o.num * &self.den, &self.den * &o.den)
    }

    fn neg(&self) -> Ratio {
        Ratio {
            num: -self.num.clone(),
            den: self.den.clone(),
        }
    }

    fn mul(&self, o: &Ratio) -> Ratio {
        Ratio::new(&self.num * &o.num, &self.den * &o.den)
    }

    /// `None` when `o` is zero.
    fn div(&self, o: &Ratio) -> Option<Ratio> {
        (!o.num.is_zero()).then(|| Ratio::new(&self.num * &o.den, &self.den * &o.num))
    }

    /// The nearest double (both parts converted; counts are far below 2^1023).
    pub fn to_f64(&self) -> f64 {
        let n = self.num.to_f64().unwrap_or(f64::NAN);
        let d = self.den.to_f64().unwrap_or(f64::NAN);
        n / d
    }

    pub fn is_positive(&self) -> bool {
        self.num.is_positive()
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.den.is_one() {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// A parsed expression; spans are byte ranges of the expression's text.
#[derive(Clone, Debug, PartialEq)]
pub enum FlopsExpr {
    Int(BigInt),
    Name(String, Range<usize>),
    Neg(Box<FlopsExpr>),
    Bin(char, Box<FlopsExpr>, Box<FlopsExpr>, Range<usize>),
}

/// A syntax or evaluation error at a byte range of the expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub span: Range<usize>,
}

fn err<T>(message: impl Into<String>, span: Range<usize>) -> Result<T, Error> {
    Err(Error {
        message: message.into(),
        span,
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(BigInt),
    Name(String),
    Op(char),
}

fn lex(text: &str) -> Result<Vec<(Tok, Range<usize>)>, Error> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let digits = &text[s..i];
            while i < b.len() && matches!(b[i], b'u' | b'U' | b'l' | b'L') {
                i += 1;
            }
            if i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                return err("only whole decimal numbers are allowed here", s..i + 1);
            }
            let n: BigInt = digits.parse().expect("decimal digits");
            out.push((Tok::Int(n), s..i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Name(text[s..i].to_string()), s..i));
        } else if b"+-*/^()".contains(&c) {
            out.push((Tok::Op(c as char), i..i + 1));
            i += 1;
        } else {
            let ch = text[i..].chars().next().expect("in bounds");
            return err(
                format!("unexpected `{ch}` (an expression uses numbers, names and + - * / ^ ( ))"),
                i..i + ch.len_utf8(),
            );
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, Range<usize>)>,
    at: usize,
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn span(&self) -> Range<usize> {
        self.toks
            .get(self.at)
            .map_or(self.end..self.end, |t| t.1.clone())
    }

    fn sum(&mut self) -> Result<FlopsExpr, Error> {
        let mut l = self.product()?;
        while let Some(Tok::Op(c @ ('+' | '-'))) = self.peek().cloned() {
            let sp = self.span();
            self.at += 1;
            let r = self.product()?;
            l = FlopsExpr::Bin(c, Box::new(l), Box::new(r), sp);
        }
        Ok(l)
    }

    fn product(&mut self) -> Result<FlopsExpr, Error> {
        let mut l = self.unary()?;
        while let Some(Tok::Op(c @ ('*' | '/'))) = self.peek().cloned() {
            let sp = self.span();
            self.at += 1;
            let r = self.unary()?;
            l = FlopsExpr::Bin(c, Box::new(l), Box::new(r), sp);
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<FlopsExpr, Error> {
        match self.peek() {
            Some(Tok::Op('-')) => {
                self.at += 1;
                Ok(FlopsExpr::Neg(Box::new(self.unary()?)))
            }
            Some(Tok::Op('+')) => {
                self.at += 1;
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<FlopsExpr, Error> {
        let base = self.atom()?;
        if let Some(Tok::Op('^')) = self.peek() {
            let sp = self.span();
            self.at += 1;
            let exp = self.unary()?;
            return Ok(FlopsExpr::Bin('^', Box::new(base), Box::new(exp), sp));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<FlopsExpr, Error> {
        let sp = self.span();
        match self.peek().cloned() {
            Some(Tok::Int(n)) => {
                self.at += 1;
                Ok(FlopsExpr::Int(n))
            }
            Some(Tok::Name(s)) => {
                self.at += 1;
                Ok(FlopsExpr::Name(s, sp))
            }
            Some(Tok::Op('(')) => {
                self.at += 1;
                let e = self.sum()?;
                match self.peek() {
                    Some(Tok::Op(')')) => {
                        self.at += 1;
                        Ok(e)
                    }
                    _ => err("expected `)`", self.span()),
                }
            }
            Some(Tok::Op(c)) => err(format!("expected a number, a name or `(`, not `{c}`"), sp),
            None => err("the expression ends too early", sp),
        }
    }
}

/// Parses an expression.
pub fn parse(text: &str) -> Result<FlopsExpr, Error> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        at: 0,
        end: text.len(),
    };
    if p.peek().is_none() {
        return err("the expression is empty", 0..text.len());
    }
    let e = p.sum()?;
    if p.peek().is_some() {
        return err(
            "expected an operator or the end of the expression",
            p.span(),
        );
    }
    Ok(e)
}

/// The object-like macros the compiler defines for a file: `NAME` to its body.
pub type MacroBodies = HashMap<String, String>;

/// Reads the output of `cc -E -dM` (`#define NAME BODY` lines; function-like macros are
/// left out).
pub fn parse_macro_dump(text: &str) -> MacroBodies {
    let mut m = MacroBodies::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("#define ") else {
            continue;
        };
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if rest[name_end..].starts_with('(') {
            continue;
        }
        m.insert(
            rest[..name_end].to_string(),
            rest[name_end..].trim().to_string(),
        );
    }
    m
}

/// The macro a name means: exact, else the unique one equal up to case.
fn lookup<'a>(name: &str, macros: &'a MacroBodies) -> Result<(&'a str, &'a str), String> {
    if let Some((k, v)) = macros.get_key_value(name) {
        return Ok((k, v));
    }
    let mut found: Vec<(&str, &str)> = macros
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    found.sort();
    match found.len() {
        1 => Ok(found[0]),
        0 => Err(format!("unknown name `{name}`: no macro of that name (in any case) is defined for this program")),
        _ => Err(format!(
            "`{name}` is ambiguous: the macros {} all match it",
            found
                .iter()
                .map(|(k, _)| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Evaluates `e` exactly, names read from `macros`.
pub fn eval(e: &FlopsExpr, macros: &MacroBodies) -> Result<Ratio, Error> {
    eval_in(e, macros, &mut vec![])
}

fn eval_in(e: &FlopsExpr, macros: &MacroBodies, stack: &mut Vec<String>) -> Result<Ratio, Error> {
    match e {
        FlopsExpr::Int(n) => Ok(Ratio::int(n.clone())),
        FlopsExpr::Neg(x) => Ok(eval_in(x, macros, stack)?.neg()),
        FlopsExpr::Name(n, sp) => {
            let (name, body) = lookup(n, macros).or_else(|m| err(m, sp.clone()))?;
            if stack.iter().any(|s| s == name) || stack.len() > 64 {
                return err(
                    format!("the macro `{name}` is defined in terms of itself"),
                    sp.clone(),
                );
            }
            let inner = parse(body).map_err(|x| Error {
                message: format!(
                    "the macro `{name}` (`{body}`) is not an integer expression: {}",
                    x.message
                ),
                span: sp.clone(),
            })?;
            stack.push(name.to_string());
            let v = eval_in(&inner, macros, stack).map_err(|x| Error {
                message: format!("in the macro `{name}`: {}", x.message),
                span: sp.clone(),
            });
            stack.pop();
            v
        }
        FlopsExpr::Bin(op, l, r, sp) => {
            let (a, b) = (eval_in(l, macros, stack)?, eval_in(r, macros, stack)?);
            match op {
                '+' => Ok(a.add(&b)),
                '-' => Ok(a.add(&b.neg())),
                '*' => Ok(a.mul(&b)),
                '/' => a
                    .div(&b)
                    .map_or_else(|| err("division by zero", sp.clone()), Ok),
                _ => {
                    let k = match (b.den.is_one(), b.num.to_u32()) {
                        (true, Some(k)) if k <= 64 => k,
                        _ => {
                            return err(
                                format!(
                                    "the exponent must be a whole number from 0 to 64, not {b}"
                                ),
                                sp.clone(),
                            )
                        }
                    };
                    Ok((0..k).fold(Ratio::int(BigInt::one()), |acc, _| acc.mul(&a)))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macros(pairs: &[(&str, &str)]) -> MacroBodies {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn value(text: &str, m: &MacroBodies) -> Result<String, Error> {
        Ok(eval(&parse(text)?, m)?.to_string())
    }

    #[test]
    fn exact_values() {
        let m = macros(&[
            ("NI", "1000"),
            ("NJ", "1100"),
            ("NK", "(1200)"),
            ("N", "2000L"),
        ]);
        assert_eq!(value("2*ni*nj*nk", &m).unwrap(), "2640000000");
        assert_eq!(value("2*N^3/3", &m).unwrap(), "16000000000/3");
        assert_eq!(value("-2^2 + (1 - 3) * -1", &m).unwrap(), "-2");
        assert_eq!(value("2^3^2", &m).unwrap(), "512");
        assert_eq!(value("N*(N-1)/2", &m).unwrap(), "1999000");
        // Far beyond 64 bits, still exact.
        assert_eq!(value("N^6", &m).unwrap(), "64000000000000000000");
        let r = eval(&parse("1/3").unwrap(), &m).unwrap();
        assert!((r.to_f64() - 1.0 / 3.0).abs() < 1e-15 && r.is_positive());
    }

    #[test]
    fn macros_in_terms_of_macros() {
        let m = macros(&[
            ("M", "(2 * N)"),
            ("N", "7"),
            ("LOOP", "LOOP + 1"),
            ("F", "1.5"),
        ]);
        assert_eq!(value("m", &m).unwrap(), "14");
        let e = value("3 * LOOP", &m).unwrap_err();
        assert!(e.message.contains("in terms of itself"), "{e:?}");
        assert_eq!(e.span, 4..8);
        let e = value("F", &m).unwrap_err();
        assert!(e.message.contains("not an integer expression"), "{e:?}");
    }

    #[test]
    fn errors_have_spans() {
        let m = macros(&[("NI", "10"), ("ni", "20"), ("Ni", "30")]);
        let e = value("2*nk", &m).unwrap_err();
        assert_eq!(
            (e.span.clone(), e.message.contains("unknown name `nk`")),
            (2..4, true)
        );
        assert_eq!(value("ni", &m).unwrap(), "20");
        let e = value("nI", &m).unwrap_err();
        assert!(e.message.contains("ambiguous"), "{e:?}");
        let e = parse("2*(n").unwrap_err();
        assert_eq!((e.message.as_str(), e.span), ("expected `)`", 4..4));
        assert_eq!(parse("2 n").unwrap_err().span, 2..3);
        assert_eq!(parse("1.5*n").unwrap_err().span, 0..2);
        assert_eq!(parse("2 % n").unwrap_err().span, 2..3);
        assert!(parse("  ").unwrap_err().message.contains("empty"));
        assert_eq!(
            value("1/(n-n)", &macros(&[("n", "4")])).unwrap_err().span,
            1..2
        );
        assert!(value("2^n", &macros(&[("n", "99")])).is_err());
    }

    #[test]
    fn macro_dumps() {
        let m = parse_macro_dump(
            "#define __STDC__ 1\n#define NI 1000\n#define MAX(a,b) ((a)>(b)?(a):(b))\n#define EMPTY\n",
        );
        assert_eq!(m.get("NI").map(String::as_str), Some("1000"));
        assert_eq!(m.get("EMPTY").map(String::as_str), Some(""));
        assert!(!m.contains_key("MAX"));
    }
}
