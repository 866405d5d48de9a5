//! The loop AST that scanning produces, and its C text.
//!
//! Expressions are affine rows over `[1, parameters, c0, c1, ...]` (the scanned dimensions
//! bound by enclosing loops), combined with floor/ceil divisions, min and max. C integer
//! division truncates toward zero, so divisions print as `floord`/`ceild` helpers that are
//! correct for negative operands (and as plain `/` when both sides are known non-negative
//! constants).

use crate::presburger::omega::Row;
use crate::presburger::{Basic, Int};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// `row · (1, params, c0, c1, ...)`; the row may be shorter than the full width.
    Aff(Row),
    /// `aff + Σ k·e`
    Sum(Row, Vec<(Int, Expr)>),
    Floor(Box<Expr>, Int),
    Ceil(Box<Expr>, Int),
    /// Division known to be exact.
    ExactDiv(Box<Expr>, Int),
    Max(Vec<Expr>),
    Min(Vec<Expr>),
    /// Not expressible; printed as a comment (a bug if it ever reaches generated code).
    Comment(String),
}

impl Expr {
    pub fn floor(e: Expr, d: Int) -> Expr {
        if d.is_one() {
            e
        } else {
            Expr::Floor(Box::new(e), d)
        }
    }

    pub fn ceil(e: Expr, d: Int) -> Expr {
        if d.is_one() {
            e
        } else {
            Expr::Ceil(Box::new(e), d)
        }
    }

    pub fn max(mut v: Vec<Expr>) -> Expr {
        v.dedup();
        if v.len() == 1 {
            v.pop().expect("one")
        } else {
            Expr::Max(v)
        }
    }

    pub fn min(mut v: Vec<Expr>) -> Expr {
        v.dedup();
        if v.len() == 1 {
            v.pop().expect("one")
        } else {
            Expr::Min(v)
        }
    }

    /// A row over a conjunction's columns: parameters and scanned dims stay affine, known
    /// locals become floors of their definitions.
    pub fn from_row(r: &Row, b: &Basic) -> Expr {
        let start = b.div_start();
        let aff: Row = r[..start.min(r.len())].to_vec();
        let mut terms = vec![];
        for i in 0..b.n_div() {
            let c = b.col_div(i);
            if c < r.len() && !r[c].is_zero() {
                let e = match &b.divs[i] {
                    Some(d) => Expr::floor(Expr::from_row(&d.num, b), d.den.clone()),
                    None => Expr::Comment(format!("existential e{i}")),
                };
                terms.push((r[c].clone(), e));
            }
        }
        if terms.is_empty() {
            Expr::Aff(aff)
        } else {
            Expr::Sum(aff, terms)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `e >= 0`
    Ge(Expr),
    /// `e == 0`
    Eq(Expr),
    /// `e % d == 0`
    Divisible(Expr, Int),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    For {
        var: usize,
        lower: Expr,
        upper: Expr,
        body: Vec<Node>,
    },
    /// A dimension fixed to one value (a loop of one iteration).
    Assign {
        var: usize,
        value: Expr,
        body: Vec<Node>,
    },
    If {
        conds: Vec<Cond>,
        body: Vec<Node>,
    },
    /// Statement `id` with the values of its iterators.
    Stmt {
        id: usize,
        args: Vec<Expr>,
    },
    Comment(String),
}

/// Which helper macros a piece of C uses.
#[derive(Default, Debug)]
pub struct Helpers {
    pub floord: bool,
    pub ceild: bool,
    pub min: bool,
    pub max: bool,
}

impl Helpers {
    /// `#define`s for the helpers used (correct for negative operands, divisor > 0).
    pub fn defines(&self) -> String {
        let mut s = String::new();
        if self.floord {
            s.push_str(
                "#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))\n",
            );
        }
        if self.ceild {
            s.push_str(
                "#define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))\n",
            );
        }
        if self.max {
            s.push_str("#define max(x, y) ((x) > (y) ? (x) : (y))\n");
        }
        if self.min {
            s.push_str("#define min(x, y) ((x) < (y) ? (x) : (y))\n");
        }
        s
    }
}

/// Prints expressions and loops as C.
pub struct CPrinter<'a> {
    pub params: &'a [String],
    /// Name of scanned dimension `k`.
    pub var: &'a dyn Fn(usize) -> String,
    /// Text of statement `id` given its argument texts.
    pub stmt: &'a dyn Fn(usize, &[String]) -> String,
    pub helpers: Helpers,
    /// Dimensions fixed by an enclosing assignment, replaced by their value.
    pub bound: Vec<Option<String>>,
}

impl CPrinter<'_> {
    fn var_name(&self, k: usize) -> String {
        match self.bound.get(k).cloned().flatten() {
            Some(v) if v.contains(' ') || v.starts_with('-') => format!("({v})"),
            Some(v) => v,
            None => (self.var)(k),
        }
    }

    fn aff(&self, r: &Row) -> String {
        let np = self.params.len();
        let mut s = String::new();
        for (k, c) in r.iter().enumerate().skip(1) {
            if c.is_zero() {
                continue;
            }
            let name = if k <= np {
                self.params[k - 1].clone()
            } else {
                self.var_name(k - 1 - np)
            };
            let neg = c.is_negative();
            let a = c.abs();
            if s.is_empty() {
                if neg {
                    s.push('-');
                }
            } else {
                s.push_str(if neg { " - " } else { " + " });
            }
            if !a.is_one() {
                let _ = write!(s, "{a} * ");
            }
            s.push_str(&name);
        }
        let c = &r[0];
        if s.is_empty() {
            return c.to_string();
        }
        if c.is_positive() {
            let _ = write!(s, " + {c}");
        } else if c.is_negative() {
            let _ = write!(s, " - {}", c.abs());
        }
        s
    }

    pub fn expr(&mut self, e: &Expr) -> String {
        match e {
            Expr::Aff(r) => self.aff(r),
            Expr::Sum(r, terms) => {
                let mut s = if r.iter().all(Int::is_zero) {
                    String::new()
                } else {
                    self.aff(r)
                };
                for (k, t) in terms {
                    let t = self.expr(t);
                    let term = if k.abs().is_one() {
                        t
                    } else {
                        format!("{} * {t}", k.abs())
                    };
                    if s.is_empty() {
                        s = if k.is_negative() {
                            format!("-{term}")
                        } else {
                            term
                        };
                    } else {
                        let _ = write!(s, " {} {term}", if k.is_negative() { "-" } else { "+" });
                    }
                }
                if s.is_empty() {
                    "0".to_string()
                } else {
                    s
                }
            }
            Expr::Floor(x, d) => {
                self.helpers.floord = true;
                format!("floord({}, {d})", self.expr(x))
            }
            Expr::Ceil(x, d) => {
                self.helpers.ceild = true;
                format!("ceild({}, {d})", self.expr(x))
            }
            Expr::ExactDiv(x, d) => format!("({}) / {d}", self.expr(x)),
            Expr::Max(v) => {
                self.helpers.max = true;
                self.fold("max", v)
            }
            Expr::Min(v) => {
                self.helpers.min = true;
                self.fold("min", v)
            }
            Expr::Comment(c) => format!("/* {c} */ 0"),
        }
    }

    fn fold(&mut self, f: &str, v: &[Expr]) -> String {
        let mut it = v.iter();
        let mut s = self.expr(it.next().expect("non-empty"));
        for e in it {
            s = format!("{f}({s}, {})", self.expr(e));
        }
        s
    }

    fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::Ge(e) => format!("{} >= 0", self.expr(e)),
            Cond::Eq(e) => format!("{} == 0", self.expr(e)),
            Cond::Divisible(e, d) => format!("({}) % {d} == 0", self.expr(e)),
        }
    }

    /// The C text of a list of nodes at an indentation.
    pub fn nodes(&mut self, nodes: &[Node], indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent);
        for n in nodes {
            match n {
                Node::For {
                    var,
                    lower,
                    upper,
                    body,
                } => {
                    let v = self.var_name(*var);
                    let lo = self.expr(lower);
                    let hi = self.expr(upper);
                    let _ = writeln!(out, "{pad}for (int {v} = {lo}; {v} <= {hi}; {v}++) {{");
                    self.nodes(body, indent + 1, out);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Assign { var, value, body } => {
                    // A loop of one iteration: its value is used directly.
                    let val = self.expr(value);
                    if self.bound.len() <= *var {
                        self.bound.resize(*var + 1, None);
                    }
                    let saved = self.bound[*var].replace(val);
                    self.nodes(body, indent, out);
                    self.bound[*var] = saved;
                }
                Node::If { conds, body } => {
                    let cs: Vec<String> = conds.iter().map(|c| self.cond(c)).collect();
                    let _ = writeln!(out, "{pad}if ({}) {{", cs.join(" && "));
                    self.nodes(body, indent + 1, out);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Stmt { id, args } => {
                    let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
                    let _ = writeln!(out, "{pad}{}", (self.stmt)(*id, &a));
                }
                Node::Comment(c) => {
                    let _ = writeln!(out, "{pad}/* {c} */");
                }
            }
        }
    }
}
