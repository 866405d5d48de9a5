//! Parser for isl's set and map notation, as used on the command line and inside scripts.
//!
//! Accepted: `[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }`, maps `{ [i] -> [i + 1] }`,
//! unions with `;`, `and`/`or` (also `&&`/`||`), parentheses, chained comparisons
//! (`<`, `<=`, `>`, `>=`, `=`, `==`, `!=`), `exists (a, b : ...)`, `floor(e/c)`, `ceil(e/c)`,
//! the bracket floor `[e/c]` of the Loopy paper, integer division `e/c` (a floor, as in the
//! paper's `{[i, j] -> [i, j/32, j%32]}`), `e % c` (or isl's `e mod c`), `true`/`false`, juxtaposed
//! coefficients (`2i`) and `*` by constants, named tuples (`S[i, j]`), and constants,
//! expressions or repeated names in tuples (`{ [i, j, 0] -> [i, j, j] }`).
//!
//! Errors carry a byte span into the text so callers can point at the offending character.

use super::basic::Basic;
use super::int::Int;
use super::row::Row;
use super::set::{Map, Set};
use super::space::{Space, Tuple};
use std::collections::HashMap;
use std::ops::Range;

/// A parse error with the byte range it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub span: Range<usize>,
    pub message: String,
    pub help: Option<String>,
}

impl ParseError {
    fn new(span: Range<usize>, message: impl Into<String>) -> ParseError {
        ParseError {
            span,
            message: message.into(),
            help: None,
        }
    }

    fn help(mut self, h: impl Into<String>) -> ParseError {
        self.help = Some(h.into());
        self
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {}..{}",
            self.message, self.span.start, self.span.end
        )
    }
}

/// What a piece of text denoted.
#[derive(Clone, Debug)]
pub enum Parsed {
    Set(Set),
    Map(Map),
}

/// Parses a set; `known_params` may be used without a `[..] ->` declaration.
pub fn parse_set(text: &str, known_params: &[String]) -> Result<Set, ParseError> {
    match parse(text, known_params)? {
        Parsed::Set(s) => Ok(s),
        Parsed::Map(_) => Err(
            ParseError::new(0..text.len(), "expected a set, found a map")
                .help("a set has one tuple: `{ [i, j] : ... }`"),
        ),
    }
}

/// Parses a map; `known_params` may be used without a `[..] ->` declaration.
pub fn parse_map(text: &str, known_params: &[String]) -> Result<Map, ParseError> {
    match parse(text, known_params)? {
        Parsed::Map(m) => Ok(m),
        Parsed::Set(_) => Err(
            ParseError::new(0..text.len(), "expected a map, found a set")
                .help("a map has two tuples: `{ [i, j] -> [j, i] }`"),
        ),
    }
}

impl std::str::FromStr for Set {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Set, ParseError> {
        parse_set(s, &[])
    }
}

impl std::str::FromStr for Map {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Map, ParseError> {
        parse_map(s, &[])
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Int(Int),
    Sym(&'static str),
    End,
}

fn lex(text: &str) -> Result<Vec<(Tok, Range<usize>)>, ParseError> {
    const SYMS: [&str; 24] = [
        "->", "<=", ">=", "==", "!=", "&&", "||", "[", "]", "{", "}", "(", ")", ",", ";", ":", "+",
        "-", "*", "/", "%", "<", ">", "=",
    ];
    let bytes = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let v: Int = text[s..i].parse().expect("digits");
            out.push((Tok::Int(v), s..i));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let s = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$')
            {
                i += 1;
            }
            while i < bytes.len() && bytes[i] == b'\'' {
                i += 1;
            }
            out.push((Tok::Ident(text[s..i].to_string()), s..i));
            continue;
        }
        match SYMS.iter().find(|s| text[i..].starts_with(**s)) {
            Some(s) => {
                out.push((Tok::Sym(s), i..i + s.len()));
                i += s.len();
            }
            None => {
                let ch = text[i..].chars().next().expect("in bounds");
                return Err(ParseError::new(
                    i..i + ch.len_utf8(),
                    format!("unexpected character `{ch}`"),
                ));
            }
        }
    }
    out.push((Tok::End, text.len()..text.len()));
    Ok(out)
}

/// A variable of the piece being parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Var {
    Param(usize),
    Dim(usize),
    /// An existential or a floor division, by creation order.
    Local(usize),
}

/// An affine expression over the piece's variables.
#[derive(Clone, Debug)]
struct Aff {
    c: Int,
    terms: Vec<(Var, Int)>,
}

impl Aff {
    fn constant(c: Int) -> Aff {
        Aff { c, terms: vec![] }
    }
    fn var(v: Var) -> Aff {
        Aff {
            c: Int::ZERO,
            terms: vec![(v, Int::ONE)],
        }
    }
    fn is_const(&self) -> bool {
        self.terms.iter().all(|(_, c)| c.is_zero())
    }
    fn scale(&self, k: &Int) -> Aff {
        Aff {
            c: &self.c * k,
            terms: self.terms.iter().map(|(v, c)| (*v, c * k)).collect(),
        }
    }
    fn add(&self, o: &Aff) -> Aff {
        let mut r = self.clone();
        r.c = &r.c + &o.c;
        for (v, c) in &o.terms {
            match r.terms.iter_mut().find(|(w, _)| w == v) {
                Some((_, d)) => *d = &*d + c,
                None => r.terms.push((*v, c.clone())),
            }
        }
        r.terms.retain(|(_, c)| !c.is_zero());
        r
    }
    fn sub(&self, o: &Aff) -> Aff {
        self.add(&o.scale(&Int::from(-1)))
    }
}

/// A local variable of a piece: an existential, or `floor(num / den)`.
#[derive(Clone, Debug)]
enum Local {
    Exists,
    Div(Aff, Int),
}

/// A formula in disjunctive normal form: a list of conjunctions of constraints.
type Dnf = Vec<Vec<Cons>>;

#[derive(Clone, Debug)]
enum Cons {
    /// `aff = 0`
    Eq(Aff),
    /// `aff >= 0`
    Ge(Aff),
}

const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    toks: Vec<(Tok, Range<usize>)>,
    pos: usize,
    depth: usize,
    /// Declared parameters (in order) and parameters allowed implicitly.
    params: Vec<String>,
    implicit: &'a [String],
    /// Names that stand for integer constants.
    constants: &'a [(String, Int)],
    // Per piece:
    scope: Vec<HashMap<String, Var>>,
    dims: Vec<String>,
    locals: Vec<Local>,
    tuple_eqs: Vec<Cons>,
}

/// Parses a set or a map.
pub fn parse(text: &str, known_params: &[String]) -> Result<Parsed, ParseError> {
    parse_with_constants(text, known_params, &[])
}

/// Parses a set or a map in which the given names stand for integer constants (the integer
/// arguments of a script procedure: `{ [i] -> [i1, i2] : i1 = [i/s] and i2 = i % s }`).
pub fn parse_with_constants(
    text: &str,
    known_params: &[String],
    constants: &[(String, Int)],
) -> Result<Parsed, ParseError> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
        params: vec![],
        implicit: known_params,
        constants,
        scope: vec![],
        dims: vec![],
        locals: vec![],
        tuple_eqs: vec![],
    };
    p.top()
}

struct Piece {
    domain: Option<Tuple>,
    range: Tuple,
    dnf: Dnf,
    locals: Vec<Local>,
    span: Range<usize>,
}

impl<'a> Parser<'a> {
    /// Guards recursion: deeply nested input is an error, never a stack overflow.
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                self.span(),
                "parentheses nested too deeply",
            ));
        }
        Ok(())
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].0
    }
    fn span(&self) -> Range<usize> {
        self.toks[self.pos].1.clone()
    }
    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].1.end
        }
    }
    fn bump(&mut self) -> (Tok, Range<usize>) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }
    fn is_kw(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(x) if x == s)
    }
    fn describe(t: &Tok) -> String {
        match t {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(v) => format!("`{v}`"),
            Tok::Sym(s) => format!("`{s}`"),
            Tok::End => "end of input".to_string(),
        }
    }
    fn expect(&mut self, s: &'static str) -> Result<Range<usize>, ParseError> {
        if self.is_sym(s) {
            Ok(self.bump().1)
        } else {
            Err(ParseError::new(
                self.span(),
                format!("expected `{s}`, found {}", Self::describe(self.peek())),
            ))
        }
    }
    fn ident(&mut self, what: &str) -> Result<(String, Range<usize>), ParseError> {
        match self.peek().clone() {
            Tok::Ident(s) if !is_keyword(&s) => {
                let sp = self.bump().1;
                Ok((s, sp))
            }
            t => Err(ParseError::new(
                self.span(),
                format!("expected {what}, found {}", Self::describe(&t)),
            )),
        }
    }

    fn top(&mut self) -> Result<Parsed, ParseError> {
        // Optional parameter list.
        if self.is_sym("[") {
            self.bump();
            if !self.is_sym("]") {
                loop {
                    let (n, sp) = self.ident("a parameter name")?;
                    if let Some(v) = self.constant(&n) {
                        return Err(ParseError::new(
                            sp,
                            format!("`{n}` stands for the constant {v} here; it cannot also be a parameter of this set or map"),
                        )
                        .help(format!("drop `{n}` from the parameter list, or rename the parameter")));
                    }
                    if self.params.contains(&n) {
                        return Err(ParseError::new(
                            sp,
                            format!("parameter `{n}` is declared twice"),
                        ));
                    }
                    self.params.push(n);
                    if self.is_sym(",") {
                        self.bump();
                    } else {
                        break;
                    }
                }
            }
            self.expect("]")?;
            self.expect("->")?;
        }
        let open = self.expect("{")?;
        let mut pieces: Vec<Piece> = vec![];
        if !self.is_sym("}") {
            loop {
                pieces.push(self.piece()?);
                if self.is_sym(";") {
                    self.bump();
                    if self.is_sym("}") {
                        break;
                    }
                } else {
                    break;
                }
            }
        }
        if !self.is_sym("}") {
            let msg = if pieces.is_empty() {
                format!(
                    "expected a tuple like `[i, j]` or `}}`, found {}",
                    Self::describe(self.peek())
                )
            } else {
                format!(
                    "expected `;`, `}}` or an operator, found {}",
                    Self::describe(self.peek())
                )
            };
            return Err(ParseError::new(self.span(), msg));
        }
        self.bump();
        if *self.peek() != Tok::End {
            return Err(ParseError::new(
                self.span(),
                "unexpected text after the closing `}`",
            ));
        }
        self.build(pieces, open)
    }

    fn piece(&mut self) -> Result<Piece, ParseError> {
        let start = self.span().start;
        self.scope = vec![HashMap::new()];
        self.dims = vec![];
        self.locals = vec![];
        self.tuple_eqs = vec![];
        // `{ : n >= 0 }`: a set with no dimensions (conditions on the parameters).
        let first = if self.is_sym(":") {
            Tuple::default()
        } else {
            self.tuple("i")?
        };
        let (domain, range) = if self.is_sym("->") {
            self.bump();
            let second = self.tuple("o")?;
            (Some(first), second)
        } else {
            (None, first)
        };
        let mut dnf: Dnf = vec![vec![]];
        if self.is_sym(":") {
            self.bump();
            dnf = self.disj()?;
        }
        let eqs = std::mem::take(&mut self.tuple_eqs);
        for conj in dnf.iter_mut() {
            conj.extend(eqs.iter().cloned());
        }
        Ok(Piece {
            domain,
            range,
            dnf,
            locals: std::mem::take(&mut self.locals),
            span: start..self.prev_end(),
        })
    }

    fn tuple(&mut self, fresh: &str) -> Result<Tuple, ParseError> {
        let mut name = None;
        if let Tok::Ident(s) = self.peek().clone() {
            if !is_keyword(&s) && matches!(self.peek_at(1), Tok::Sym("[")) {
                self.bump();
                name = Some(s);
            }
        }
        if !self.is_sym("[") {
            return Err(ParseError::new(
                self.span(),
                format!(
                    "expected a tuple like `[i, j]`, found {}",
                    Self::describe(self.peek())
                ),
            ));
        }
        self.bump();
        let mut dims = vec![];
        if !self.is_sym("]") {
            loop {
                // A fresh name declares a dimension; anything else is an expression that the
                // (anonymous) dimension equals.
                let fresh_name = match (self.peek().clone(), self.peek_at(1).clone()) {
                    (Tok::Ident(s), Tok::Sym(",")) | (Tok::Ident(s), Tok::Sym("]"))
                        if !is_keyword(&s)
                            && self.lookup(&s).is_none()
                            && self.constant(&s).is_none() =>
                    {
                        Some(s)
                    }
                    _ => None,
                };
                // A constant's name never declares a dimension, and would silently fix the
                // dimension to its value if it stood alone: refuse it.
                if let (Tok::Ident(n), Tok::Sym("," | "]")) =
                    (self.peek().clone(), self.peek_at(1).clone())
                {
                    if let Some(v) = self.constant(&n) {
                        return Err(ParseError::new(
                            self.span(),
                            format!("`{n}` stands for the constant {v} here, so it cannot name a dimension"),
                        )
                        .help(format!("rename the dimension (or the constant); to fix a dimension to {v}, write the value in a constraint")));
                    }
                }
                let d = self.dims.len();
                let k = dims.len();
                match fresh_name {
                    Some(s) => {
                        self.bump();
                        self.scope[0].insert(s.clone(), Var::Dim(d));
                        self.dims.push(s.clone());
                        dims.push(s);
                    }
                    None => {
                        let e = self.expr()?;
                        let mut n = format!("{fresh}{k}");
                        while self.lookup(&n).is_some() {
                            n.push('\'');
                        }
                        self.dims.push(n.clone());
                        self.tuple_eqs.push(Cons::Eq(Aff::var(Var::Dim(d)).sub(&e)));
                        dims.push(n);
                    }
                }
                if self.is_sym(",") {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.expect("]")?;
        Ok(Tuple { name, dims })
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        for s in self.scope.iter().rev() {
            if let Some(v) = s.get(name) {
                return Some(*v);
            }
        }
        self.params.iter().position(|p| p == name).map(Var::Param)
    }

    fn disj(&mut self) -> Result<Dnf, ParseError> {
        let mut out = self.conj()?;
        while self.is_kw("or") || self.is_sym("||") {
            self.bump();
            out.extend(self.conj()?);
        }
        Ok(out)
    }

    fn conj(&mut self) -> Result<Dnf, ParseError> {
        let mut out = self.atom()?;
        while self.is_kw("and") || self.is_sym("&&") {
            self.bump();
            let rhs = self.atom()?;
            let mut next = vec![];
            for a in &out {
                for b in &rhs {
                    let mut c = a.clone();
                    c.extend(b.iter().cloned());
                    next.push(c);
                }
            }
            out = next;
        }
        Ok(out)
    }

    fn atom(&mut self) -> Result<Dnf, ParseError> {
        self.enter()?;
        let r = self.atom_inner();
        self.depth -= 1;
        r
    }

    fn atom_inner(&mut self) -> Result<Dnf, ParseError> {
        if self.is_kw("true") {
            self.bump();
            return Ok(vec![vec![]]);
        }
        if self.is_kw("false") {
            self.bump();
            return Ok(vec![]);
        }
        if self.is_kw("not") || self.is_sym("!") {
            return Err(ParseError::new(self.span(), "negation is not supported")
                .help("write the complement with comparisons, e.g. `i < 0 or i > N`"));
        }
        if self.is_kw("exists") {
            self.bump();
            self.expect("(")?;
            let mut frame = HashMap::new();
            loop {
                let (n, _) = self.ident("an existential variable name")?;
                let id = self.locals.len();
                self.locals.push(Local::Exists);
                frame.insert(n, Var::Local(id));
                if self.is_sym(",") {
                    self.bump();
                } else {
                    break;
                }
            }
            self.expect(":")?;
            self.scope.push(frame);
            let body = self.disj();
            self.scope.pop();
            let body = body?;
            self.expect(")")?;
            return Ok(body);
        }
        if self.is_sym("(") {
            // Either a parenthesised formula or a comparison starting with `(expr)`.
            let depth = self.depth;
            let save = (self.pos, self.locals.len());
            if let Ok(d) = self.comparison() {
                return Ok(d);
            }
            self.pos = save.0;
            self.locals.truncate(save.1);
            self.depth = depth;
            self.bump();
            let d = self.disj()?;
            self.expect(")")?;
            return Ok(d);
        }
        self.comparison()
    }

    /// `e1, e2 op f1, f2 op ...`: every expression of a list is compared with every
    /// expression of the next (isl's `0 <= i, j < N`).
    fn expr_list(&mut self) -> Result<Vec<Aff>, ParseError> {
        let mut v = vec![self.expr()?];
        while self.is_sym(",") {
            self.bump();
            v.push(self.expr()?);
        }
        Ok(v)
    }

    fn comparison(&mut self) -> Result<Dnf, ParseError> {
        let mut lhs = self.expr_list()?;
        let mut out: Dnf = vec![vec![]];
        let mut any = false;
        loop {
            let op = match self.peek() {
                Tok::Sym(s) if ["<", "<=", ">", ">=", "=", "==", "!="].contains(s) => *s,
                _ => break,
            };
            self.bump();
            let rhs = self.expr_list()?;
            any = true;
            for l in &lhs {
                for r in &rhs {
                    let d = r.sub(l);
                    let one = Aff::constant(Int::ONE);
                    let below = Cons::Ge(d.sub(&one)); // l < r
                    let above = Cons::Ge(d.scale(&Int::from(-1)).sub(&one)); // l > r
                    if op == "!=" {
                        let mut next = vec![];
                        for c in &out {
                            let mut a = c.clone();
                            a.push(below.clone());
                            let mut b = c.clone();
                            b.push(above.clone());
                            next.push(a);
                            next.push(b);
                        }
                        out = next;
                        continue;
                    }
                    let cons = match op {
                        "<" => below,
                        "<=" => Cons::Ge(d),
                        ">" => above,
                        ">=" => Cons::Ge(d.scale(&Int::from(-1))),
                        _ => Cons::Eq(d),
                    };
                    for c in out.iter_mut() {
                        c.push(cons.clone());
                    }
                }
            }
            lhs = rhs;
        }
        if !any {
            return Err(ParseError::new(
                self.span(),
                format!(
                    "expected a comparison (`<`, `<=`, `=`, ...), found {}",
                    Self::describe(self.peek())
                ),
            ));
        }
        Ok(out)
    }

    fn expr(&mut self) -> Result<Aff, ParseError> {
        // A leading minus belongs to the first factor, as in C: `-x/2` is `floor((-x)/2)`.
        if self.is_sym("+") {
            self.bump();
        }
        let mut e = self.term()?;
        loop {
            if self.is_sym("+") {
                self.bump();
                e = e.add(&self.term()?);
            } else if self.is_sym("-") {
                self.bump();
                e = e.sub(&self.term()?);
            } else {
                return Ok(e);
            }
        }
    }

    fn term(&mut self) -> Result<Aff, ParseError> {
        let start = self.span().start;
        let mut e = self.factor()?;
        loop {
            if self.is_sym("*") {
                self.bump();
                let fstart = self.span().start;
                let f = self.factor()?;
                e = self.mul(e, f, start..self.prev_end(), fstart)?;
            } else if self.is_sym("/") {
                // Integer division, as in the Loopy paper (`[i, j/32, j%32]`) and C:
                // `e / c` is `floor(e / c)`. Inside `floor(e / c)` and `[e / c]` this
                // already makes the quotient, and the outer floor is the identity.
                self.bump();
                let (c, sp) = self.positive_const()?;
                e = self.new_div(e, c, sp)?;
            } else if self.is_sym("%") || self.is_kw("mod") {
                // `mod` is isl's spelling (`(i + 1) mod 4 = 0`).
                self.bump();
                let (c, sp) = self.positive_const()?;
                // e % c = e - c * floor(e / c)
                let q = self.new_div(e.clone(), c.clone(), sp)?;
                e = e.sub(&q.scale(&c));
            } else if matches!(self.peek(), Tok::Ident(s) if !is_keyword(s) || s == "floor" || s == "ceil")
                || (self.is_sym("(") && matches!(self.toks[self.pos - 1].0, Tok::Int(_)))
            {
                // Juxtaposition: `2i`, `3(i + 1)`.
                if !e.is_const() {
                    return Err(ParseError::new(
                        self.span(),
                        "expected an operator between two terms",
                    ));
                }
                let fstart = self.span().start;
                let f = self.factor()?;
                e = self.mul(e, f, start..self.prev_end(), fstart)?;
            } else {
                return Ok(e);
            }
        }
    }

    fn mul(
        &mut self,
        a: Aff,
        b: Aff,
        span: Range<usize>,
        _b_start: usize,
    ) -> Result<Aff, ParseError> {
        if a.is_const() {
            Ok(b.scale(&a.c))
        } else if b.is_const() {
            Ok(a.scale(&b.c))
        } else {
            Err(
                ParseError::new(span, "product of two variables is not affine")
                    .help("constraints must be affine: multiply variables only by constants"),
            )
        }
    }

    fn constant(&self, name: &str) -> Option<Int> {
        if self.scope.iter().any(|s| s.contains_key(name)) {
            return None;
        }
        self.constants
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    fn positive_const(&mut self) -> Result<(Int, Range<usize>), ParseError> {
        match self.peek().clone() {
            Tok::Int(v) if v.is_positive() => Ok((v, self.bump().1)),
            Tok::Int(_) => Err(ParseError::new(self.span(), "division by zero")),
            Tok::Ident(n) if self.constant(&n).is_some() => {
                let v = self.constant(&n).expect("checked");
                if v.is_positive() {
                    Ok((v, self.bump().1))
                } else {
                    Err(ParseError::new(
                        self.span(),
                        format!("`{n}` is {v}: division needs a positive constant"),
                    ))
                }
            }
            t => Err(ParseError::new(
                self.span(),
                format!(
                    "expected a positive integer constant, found {}",
                    Self::describe(&t)
                ),
            )
            .help("only division by constants is affine")),
        }
    }

    fn new_div(&mut self, num: Aff, den: Int, _sp: Range<usize>) -> Result<Aff, ParseError> {
        if den.is_one() {
            return Ok(num);
        }
        if num.is_const() {
            return Ok(Aff::constant(num.c.div_floor(&den)));
        }
        let id = self.locals.len();
        self.locals.push(Local::Div(num, den));
        Ok(Aff::var(Var::Local(id)))
    }

    /// `num / den` inside `floor(...)`, `ceil(...)` or `[...]`.
    fn quotient(&mut self, close: &'static str, ceil: bool) -> Result<Aff, ParseError> {
        let num = self.expr()?;
        let (den, sp) = if self.is_sym("/") {
            self.bump();
            self.positive_const()?
        } else {
            (Int::ONE, self.span())
        };
        self.expect(close)?;
        if ceil {
            // ceil(e/c) = -floor(-e/c)
            Ok(self
                .new_div(num.scale(&Int::from(-1)), den, sp)?
                .scale(&Int::from(-1)))
        } else {
            self.new_div(num, den, sp)
        }
    }

    fn factor(&mut self) -> Result<Aff, ParseError> {
        self.enter()?;
        let r = self.factor_inner();
        self.depth -= 1;
        r
    }

    fn factor_inner(&mut self) -> Result<Aff, ParseError> {
        let (t, sp) = (self.peek().clone(), self.span());
        match t {
            Tok::Int(v) => {
                self.bump();
                Ok(Aff::constant(v))
            }
            Tok::Sym("-") => {
                self.bump();
                Ok(self.factor()?.scale(&Int::from(-1)))
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Sym("[") => {
                self.bump();
                self.quotient("]", false)
            }
            Tok::Ident(s)
                if (s == "floor" || s == "ceil") && matches!(self.peek_at(1), Tok::Sym("(")) =>
            {
                self.bump();
                self.bump();
                self.quotient(")", s == "ceil")
            }
            Tok::Ident(s) if !is_keyword(&s) => {
                self.bump();
                if let Some(v) = self.lookup(&s) {
                    return Ok(Aff::var(v));
                }
                if let Some(v) = self.constant(&s) {
                    return Ok(Aff::constant(v));
                }
                if self.implicit.contains(&s) {
                    self.params.push(s);
                    return Ok(Aff::var(Var::Param(self.params.len() - 1)));
                }
                let mut e = ParseError::new(sp, format!("unknown identifier `{s}`"));
                e = e.help(format!(
                    "declare it as a parameter (`[{s}] -> {{ ... }}`) or as a tuple dimension"
                ));
                Err(e)
            }
            t => Err(ParseError::new(
                sp,
                format!("expected an expression, found {}", Self::describe(&t)),
            )),
        }
    }

    fn build(&mut self, pieces: Vec<Piece>, open: Range<usize>) -> Result<Parsed, ParseError> {
        let np = self.params.len();
        let Some(first) = pieces.first() else {
            return Err(ParseError::new(
                open.start..self.prev_end(),
                "cannot tell a set from a map in `{ }`",
            )
            .help("write the empty set as `{ [i] : false }`"));
        };
        let shape = |p: &Piece| {
            (
                p.domain.as_ref().map(|t| (t.name.clone(), t.len())),
                (p.range.name.clone(), p.range.len()),
            )
        };
        let space = Space {
            params: self.params.clone(),
            domain: first.domain.clone(),
            range: first.range.clone(),
        };
        let mut parts = vec![];
        for p in &pieces {
            if shape(p) != shape(first) {
                return Err(ParseError::new(
                    p.span.clone(),
                    "all parts of a union must have the same tuples as the first",
                ));
            }
            let nd = space.n_dim();
            for conj in &p.dnf {
                let mut b = Basic::universe(np, nd);
                // Locals: add in order; each div's numerator only uses earlier ones.
                let mut local_col: Vec<usize> = vec![];
                let row_of = |b: &Basic, a: &Aff, local_col: &[usize]| -> Row {
                    let mut r = b.zero_row();
                    r[0] = a.c.clone();
                    for (v, c) in &a.terms {
                        let col = match v {
                            Var::Param(i) => b.col_param(*i),
                            Var::Dim(i) => b.col_dim(*i),
                            Var::Local(i) => local_col[*i],
                        };
                        r[col] += c;
                    }
                    r
                };
                for l in &p.locals {
                    let col = match l {
                        Local::Exists => b.add_local(),
                        Local::Div(num, den) => {
                            let r = row_of(&b, num, &local_col);
                            b.add_div(r, den.clone())
                        }
                    };
                    local_col.push(col);
                }
                for c in conj {
                    match c {
                        Cons::Eq(a) => {
                            let r = row_of(&b, a, &local_col);
                            b.add_eq(r);
                        }
                        Cons::Ge(a) => {
                            let r = row_of(&b, a, &local_col);
                            b.add_ineq(r);
                        }
                    }
                }
                parts.push(b);
            }
        }
        // Parameter indices are stable (the list only grows), and every part is built with
        // the final parameter count.
        Ok(if space.is_map() {
            Parsed::Map(Map::from_parts(space, parts))
        } else {
            Parsed::Set(Set::from_parts(space, parts))
        })
    }
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "and" | "or" | "exists" | "not" | "true" | "false" | "floor" | "ceil" | "mod"
    )
}
