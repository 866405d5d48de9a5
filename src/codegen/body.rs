//! Statement bodies as the passes carry them: the statement's C text read once, when it
//! enters code generation, into segments (names, members, numbers, literals, punctuation,
//! white space, and array accesses with their bracketed subscripts, each subscript with its
//! affine form when it has one). `copy` replaces accesses to a copied array by typed buffer
//! accesses, `registers` replaces buffer accesses by registers, vector loads and gathers,
//! and [`Printer`] writes the segments as C, the statement's iterators replaced by their
//! values. No pass reads text back.

use super::names::{buffer, offset};
use crate::model::copy::{BufDim, CopyPlan};
use crate::model::lex::{lex, Kind, Token};
use crate::presburger::Int;
use std::fmt::Write;

/// One segment of a statement's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// An identifier that is not a member name: a variable, an iterator, a function.
    Name(String),
    /// A member name, after `.` or `->`.
    Member(String),
    Number(String),
    /// A string or character literal, or a comment.
    Literal(String),
    /// A run of white space.
    Space(String),
    /// One punctuation character.
    Punct(char),
    /// `name[s0][s1]..`: an identifier and the bracketed subscripts that follow it.
    Access(Access),
    /// An access to a copy's buffer, in place of the array's access.
    Buffer(BufferAccess),
    /// A register of a register block (`codegen::registers`); `lane`: one element of a
    /// vector register.
    Register {
        name: String,
        lane: Option<i64>,
    },
    /// `(*(ty *)&access)`: lanes consecutive in memory loaded as one vector.
    VectorLoad {
        ty: String,
        access: Box<Seg>,
    },
    /// `((ty){a[s + 0 w], a[s + 1 w], ...})`: a vector of one element per lane, lane `l`
    /// reading `access` with each subscript moved by `l` times its step.
    Gather {
        ty: String,
        access: Access,
        steps: Vec<Int>,
        lanes: usize,
    },
}

/// An array access as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub name: String,
    pub subs: Vec<Sub>,
}

/// One bracketed subscript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sub {
    /// The white space before its `[`.
    pub before: String,
    /// What the brackets hold.
    pub segs: Vec<Seg>,
    /// Its value when affine in names with integer coefficients.
    pub lin: Option<Linear>,
}

/// An access to copy `copy`'s buffer standing for the array's access with subscripts
/// `subs` (one per array dimension): `buf[idx]..`, one index per dimension of the buffer's
/// layout, then the subscripts `rest` the array's access had beyond its rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferAccess {
    pub copy: usize,
    pub subs: Vec<Sub>,
    /// Per dimension of the layout, how its index is written.
    pub index: Vec<Index>,
    pub rest: Vec<Sub>,
}

/// How one index into a buffer is written, for layout dimension `bd` along array dimension
/// `d` with subscript `s` and offset `o`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Index {
    /// `(s) - o`, `((s) - o) / b` or `((s) - o) % b` ([`BufDim::index`]).
    Layout,
    /// A known place inside a block.
    Const(Int),
    /// The block of `s = b·(...) + c` when the corner `o` is a multiple of `b`:
    /// `(((s) - c) / b - o / b)` (`((s) / b - o / b)` when `c` is 0).
    Aligned(Int),
}

/// An affine expression of names with integer coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linear {
    pub constant: i64,
    pub terms: Vec<(String, i64)>,
}

/// A statement's text as segments.
pub fn parse(text: &str) -> Vec<Seg> {
    segs(text, &lex(text))
}

/// The identifiers of C text that are not member names, in order.
pub fn identifiers(text: &str) -> Vec<String> {
    let mut out = vec![];
    names(&parse(text), &mut out);
    out
}

/// The identifiers of segments that are not member names: names, arrays accessed, and the
/// names in subscripts (also of buffer accesses, vector loads and gathers).
pub fn names(segs: &[Seg], out: &mut Vec<String>) {
    let subs = |subs: &[Sub], out: &mut Vec<String>| {
        for sub in subs {
            names(&sub.segs, out);
        }
    };
    for s in segs {
        match s {
            Seg::Name(n) => out.push(n.clone()),
            Seg::Access(a) | Seg::Gather { access: a, .. } => {
                out.push(a.name.clone());
                subs(&a.subs, out);
            }
            Seg::Buffer(b) => subs(&b.subs, out),
            Seg::VectorLoad { access, .. } => names(std::slice::from_ref(access), out),
            _ => {}
        }
    }
}

fn punct(text: &str, t: &Token, c: char) -> bool {
    t.kind == Kind::Punct && text[t.range.clone()].chars().eq([c])
}

/// Whether the identifier `toks[i]` follows `.` or `->`.
fn is_member(text: &str, toks: &[Token], i: usize) -> bool {
    let Some(p) = (0..i).rev().find(|&j| toks[j].kind != Kind::Space) else {
        return false;
    };
    punct(text, &toks[p], '.')
        || (punct(text, &toks[p], '>')
            && p > 0
            && punct(text, &toks[p - 1], '-')
            && toks[p - 1].range.end == toks[p].range.start)
}

fn segs(text: &str, toks: &[Token]) -> Vec<Seg> {
    let mut out = vec![];
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let s = text[t.range.clone()].to_string();
        i += 1;
        out.push(match t.kind {
            Kind::Ident if is_member(text, toks, i - 1) => Seg::Member(s),
            Kind::Ident => match subscripts(text, toks, i) {
                Some((subs, next)) => {
                    i = next;
                    Seg::Access(Access { name: s, subs })
                }
                None => Seg::Name(s),
            },
            Kind::Number => Seg::Number(s),
            Kind::Literal | Kind::Comment => Seg::Literal(s),
            Kind::Space => Seg::Space(s),
            Kind::Punct => Seg::Punct(s.chars().next().unwrap_or(' ')),
        });
    }
    out
}

/// The bracketed subscripts from `toks[at]` on (white space allowed before each), and the
/// index after the last `]`; `None` when there is none.
fn subscripts(text: &str, toks: &[Token], at: usize) -> Option<(Vec<Sub>, usize)> {
    let mut subs = vec![];
    let mut k = at;
    loop {
        let mut j = k;
        while toks.get(j).is_some_and(|t| t.kind == Kind::Space) {
            j += 1;
        }
        if !toks.get(j).is_some_and(|t| punct(text, t, '[')) {
            break;
        }
        let open = j;
        let mut depth = 0;
        let close = (open..toks.len()).find(|&c| {
            if punct(text, &toks[c], '[') {
                depth += 1;
            } else if punct(text, &toks[c], ']') {
                depth -= 1;
            }
            depth == 0
        });
        let Some(close) = close else { break };
        let inner = &toks[open + 1..close];
        subs.push(Sub {
            before: toks[k..open]
                .iter()
                .map(|t| &text[t.range.clone()])
                .collect(),
            segs: segs(text, inner),
            lin: linear(text, inner),
        });
        k = close + 1;
    }
    (!subs.is_empty()).then_some((subs, k))
}

/// A token of an affine subscript.
#[derive(Clone, Copy)]
enum Tok<'t> {
    Name(&'t str),
    Num(&'t str),
    Punct(char),
}

/// The affine form of a subscript's tokens: `+`, `-`, `*` by a constant, parentheses,
/// integer literals and names; `None` for anything else.
fn linear(text: &str, toks: &[Token]) -> Option<Linear> {
    let t: Vec<Tok> = toks
        .iter()
        .filter(|t| !t.is_blank())
        .map(|t| {
            let s = &text[t.range.clone()];
            Some(match t.kind {
                Kind::Ident => Tok::Name(s),
                Kind::Number => Tok::Num(s),
                Kind::Punct => Tok::Punct(s.chars().next()?),
                _ => return None,
            })
        })
        .collect::<Option<_>>()?;
    let mut p = 0;
    let e = sum(&t, &mut p)?;
    (p == t.len()).then_some(e)
}

impl Linear {
    fn scaled(mut self, k: i64) -> Option<Linear> {
        self.constant = self.constant.checked_mul(k)?;
        for t in &mut self.terms {
            t.1 = t.1.checked_mul(k)?;
        }
        Some(self)
    }
    fn plus(mut self, o: Linear) -> Option<Linear> {
        self.constant = self.constant.checked_add(o.constant)?;
        for (n, c) in o.terms {
            match self.terms.iter_mut().find(|t| t.0 == n) {
                Some(t) => t.1 = t.1.checked_add(c)?,
                None => self.terms.push((n, c)),
            }
        }
        Some(self)
    }
    fn as_constant(&self) -> Option<i64> {
        self.terms.iter().all(|t| t.1 == 0).then_some(self.constant)
    }
}

fn sum(t: &[Tok], p: &mut usize) -> Option<Linear> {
    let mut acc = product(t, p)?;
    while let Some(Tok::Punct(c @ ('+' | '-'))) = t.get(*p) {
        *p += 1;
        let r = product(t, p)?;
        acc = acc.plus(if *c == '-' { r.scaled(-1)? } else { r })?;
    }
    Some(acc)
}

fn product(t: &[Tok], p: &mut usize) -> Option<Linear> {
    let mut acc = unary(t, p)?;
    while let Some(Tok::Punct('*')) = t.get(*p) {
        *p += 1;
        let r = unary(t, p)?;
        acc = match (acc.as_constant(), r.as_constant()) {
            (Some(k), _) => r.scaled(k)?,
            (_, Some(k)) => acc.scaled(k)?,
            _ => return None,
        };
    }
    Some(acc)
}

fn unary(t: &[Tok], p: &mut usize) -> Option<Linear> {
    let tok = *t.get(*p)?;
    *p += 1;
    match tok {
        Tok::Punct('-') => unary(t, p)?.scaled(-1),
        Tok::Punct('+') => unary(t, p),
        Tok::Punct('(') => {
            let e = sum(t, p)?;
            if !matches!(t.get(*p), Some(Tok::Punct(')'))) {
                return None;
            }
            *p += 1;
            Some(e)
        }
        Tok::Num(n) => Some(Linear {
            constant: n.parse().ok()?,
            terms: vec![],
        }),
        Tok::Name(n) => Some(Linear {
            constant: 0,
            terms: vec![(n.to_string(), 1)],
        }),
        Tok::Punct(_) => None,
    }
}

/// `segs` without the white space at either end.
pub fn trimmed(segs: &[Seg]) -> &[Seg] {
    let space = |s: &Seg| matches!(s, Seg::Space(_));
    let start = segs.iter().position(|s| !space(s)).unwrap_or(segs.len());
    let end = segs
        .iter()
        .rposition(|s| !space(s))
        .map_or(start, |e| e + 1);
    &segs[start..end]
}

impl Access {
    /// The access written tight: no white space before or inside the ends of its brackets.
    pub fn tight(&self) -> Access {
        Access {
            name: self.name.clone(),
            subs: self.subs.iter().map(Sub::tight).collect(),
        }
    }
}

impl Sub {
    fn tight(&self) -> Sub {
        Sub {
            before: String::new(),
            segs: trimmed(&self.segs).to_vec(),
            lin: self.lin.clone(),
        }
    }
}

/// `segs` with every run of white space (inside subscripts too) one blank.
pub fn collapse(segs: &[Seg]) -> Vec<Seg> {
    let subs = |v: &[Sub]| -> Vec<Sub> {
        v.iter()
            .map(|s| Sub {
                before: if s.before.is_empty() { "" } else { " " }.to_string(),
                segs: collapse(&s.segs),
                lin: s.lin.clone(),
            })
            .collect()
    };
    segs.iter()
        .map(|s| match s {
            Seg::Space(_) => Seg::Space(" ".to_string()),
            Seg::Access(a) => Seg::Access(Access {
                name: a.name.clone(),
                subs: subs(&a.subs),
            }),
            Seg::Buffer(b) => Seg::Buffer(BufferAccess {
                copy: b.copy,
                subs: subs(&b.subs),
                index: b.index.clone(),
                rest: subs(&b.rest),
            }),
            s => s.clone(),
        })
        .collect()
}

/// Writes segments as C.
pub struct Printer<'a> {
    pub plans: &'a [CopyPlan],
    /// The text replacing a name (a statement's iterator by its value), if any.
    pub subst: &'a dyn Fn(&str) -> Option<String>,
}

impl Printer<'_> {
    pub fn text(&self, segs: &[Seg]) -> String {
        let mut out = String::new();
        for s in segs {
            self.seg(s, &mut out);
        }
        out
    }

    fn subs(&self, subs: &[Sub], out: &mut String) {
        for s in subs {
            let _ = write!(out, "{}[{}]", s.before, self.text(&s.segs));
        }
    }

    fn seg(&self, s: &Seg, out: &mut String) {
        match s {
            Seg::Name(n) => match (self.subst)(n) {
                Some(v) => out.push_str(&v),
                None => out.push_str(n),
            },
            Seg::Member(t) | Seg::Number(t) | Seg::Literal(t) | Seg::Space(t) => out.push_str(t),
            Seg::Punct(c) => out.push(*c),
            Seg::Access(a) => {
                out.push_str(&a.name);
                self.subs(&a.subs, out);
            }
            Seg::Buffer(b) => self.buffer(b, out),
            Seg::Register { name, lane } => {
                out.push_str(name);
                if let Some(l) = lane {
                    let _ = write!(out, "[{l}]");
                }
            }
            Seg::VectorLoad { ty, access } => {
                let _ = write!(out, "(*({ty} *)&");
                self.seg(access, out);
                out.push(')');
            }
            Seg::Gather {
                ty,
                access,
                steps,
                lanes,
            } => self.gather(ty, access, steps, *lanes, out),
        }
    }

    fn buffer(&self, b: &BufferAccess, out: &mut String) {
        let plan = &self.plans[b.copy];
        out.push_str(&buffer(plan));
        for (bd, ix) in plan.layout.iter().zip(&b.index) {
            let d = bd.dim();
            let s = self.text(trimmed(&b.subs[d].segs));
            let off = offset(plan, d);
            let i = match (ix, bd) {
                (Index::Const(c), _) => c.to_string(),
                (Index::Aligned(c), BufDim::Blocks(_, k)) if c.is_zero() => {
                    format!("(({s}) / {k} - {off} / {k})")
                }
                (Index::Aligned(c), BufDim::Blocks(_, k)) => {
                    format!("((({s}) - {c}) / {k} - {off} / {k})")
                }
                _ => bd.index(&format!("({s}) - {off}")),
            };
            let _ = write!(out, "[{i}]");
        }
        self.subs(&b.rest, out);
    }

    fn gather(&self, ty: &str, a: &Access, steps: &[Int], lanes: usize, out: &mut String) {
        let elems: Vec<String> = (0..lanes as i64)
            .map(|l| {
                let mut e = a.name.clone();
                for (s, w) in a.subs.iter().zip(steps) {
                    let g = self.text(&s.segs);
                    let d = w * &Int::from(l);
                    if d.is_zero() {
                        let _ = write!(e, "[{g}]");
                    } else if d.is_negative() {
                        let _ = write!(e, "[({g}) - {}]", d.abs());
                    } else {
                        let _ = write!(e, "[({g}) + {d}]");
                    }
                }
                e
            })
            .collect();
        let _ = write!(out, "(({ty}){{{}}})", elems.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(segs: &[Seg]) -> String {
        let subst = |n: &str| (n == "i").then(|| "(c1 + 2)".to_string());
        Printer {
            plans: &[],
            subst: &subst,
        }
        .text(segs)
    }

    #[test]
    fn bodies_print_back_with_iterators_replaced() {
        let t = "A[i] [ j ] = s.i + p->i + ij + \"i j\" + 'i' + 1e-5 + B[C[i]] + i;";
        assert_eq!(
            print(&parse(t)),
            "A[(c1 + 2)] [ j ] = s.i + p->i + ij + \"i j\" + 'i' + 1e-5 + B[C[(c1 + 2)]] + (c1 + 2);"
        );
        assert_eq!(identifiers("x = y.z + f(w) * 2u;"), ["x", "y", "f", "w"]);
    }

    #[test]
    fn accesses_are_typed_with_affine_subscripts() {
        let segs = parse("A [i][ (2 * i + 1) - j*3 - (-4) ] = p[i * j] + q[i / 2] + r[07];");
        let Seg::Access(a) = &segs[0] else {
            panic!("an access: {segs:?}")
        };
        assert_eq!(a.name, "A");
        assert_eq!(a.subs[0].before, " ");
        let l = a.subs[1].lin.as_ref().expect("affine");
        assert_eq!(l.constant, 5);
        assert_eq!(l.terms, vec![("i".to_string(), 2), ("j".to_string(), -3)]);
        let lins: Vec<Option<i64>> = segs
            .iter()
            .filter_map(|s| match s {
                Seg::Access(a) if a.name != "A" => Some(a.subs[0].lin.as_ref().map(|l| l.constant)),
                _ => None,
            })
            .collect();
        assert_eq!(lins, vec![None, None, Some(7)]);
        assert_eq!(
            print(&[Seg::Access(a.tight())]),
            "A[(c1 + 2)][(2 * (c1 + 2) + 1) - j*3 - (-4)]"
        );
    }

    #[test]
    fn white_space_collapses() {
        let segs = collapse(&parse("x  =\n  A  [ i ];"));
        assert_eq!(print(&segs), "x = A [ (c1 + 2) ];");
    }
}
