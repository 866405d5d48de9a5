//! Affine expressions over *named* variables, and the sets and maps they describe.
//!
//! The presburger core works on column positions; the frontend and the script interpreter
//! think in names (`i`, `j`, `n`). A [`LinExpr`] keeps names until the last moment, so that a
//! constraint can be stated before anyone knows which names are parameters: when a set is
//! built, every name that is not one of its dimensions becomes a parameter, and sets with
//! different parameters combine by name (as isl's do).

use crate::presburger::affine::{fmt_affine, Times};
use crate::presburger::{Basic, Int, Map, Set, Space, Tuple};
use std::fmt;

/// `constant + Σ coefficient · name`. No zero coefficients, each name at most once, in order
/// of first appearance.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LinExpr {
    pub constant: Int,
    pub terms: Vec<(String, Int)>,
}

impl LinExpr {
    pub fn zero() -> LinExpr {
        LinExpr::default()
    }

    pub fn constant(c: impl Into<Int>) -> LinExpr {
        LinExpr {
            constant: c.into(),
            terms: vec![],
        }
    }

    pub fn var(name: &str) -> LinExpr {
        LinExpr {
            constant: Int::ZERO,
            terms: vec![(name.to_string(), Int::ONE)],
        }
    }

    /// The coefficient of `name` (zero when absent).
    pub fn coeff(&self, name: &str) -> Int {
        self.terms
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Int::ZERO, |(_, c)| c.clone())
    }

    /// `Some(c)` when the expression mentions no variable.
    pub fn as_constant(&self) -> Option<&Int> {
        self.terms.is_empty().then_some(&self.constant)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|(n, _)| n.as_str())
    }

    pub fn add(&self, other: &LinExpr) -> LinExpr {
        let mut r = self.clone();
        r.constant += &other.constant;
        for (n, c) in &other.terms {
            r.add_term(n, c);
        }
        r
    }

    pub fn sub(&self, other: &LinExpr) -> LinExpr {
        self.add(&other.neg())
    }

    pub fn neg(&self) -> LinExpr {
        self.scale(&Int::from(-1))
    }

    pub fn scale(&self, k: &Int) -> LinExpr {
        if k.is_zero() {
            return LinExpr::zero();
        }
        LinExpr {
            constant: &self.constant * k,
            terms: self.terms.iter().map(|(n, c)| (n.clone(), c * k)).collect(),
        }
    }

    /// `self / d`, when every coefficient and the constant are multiples of `d` (not 0).
    pub fn exact_div(&self, d: &Int) -> Option<LinExpr> {
        if d.is_zero() {
            return None;
        }
        let div = |c: &Int| c.mod_floor(d).is_zero().then(|| c.div_floor(d));
        let mut terms = vec![];
        for (n, c) in &self.terms {
            terms.push((n.clone(), div(c)?));
        }
        Some(LinExpr {
            constant: div(&self.constant)?,
            terms,
        })
    }

    pub fn add_constant(&self, c: &Int) -> LinExpr {
        let mut r = self.clone();
        r.constant += c;
        r
    }

    fn add_term(&mut self, name: &str, c: &Int) {
        if let Some(i) = self.terms.iter().position(|(n, _)| n == name) {
            self.terms[i].1 += c;
            if self.terms[i].1.is_zero() {
                self.terms.remove(i);
            }
        } else if !c.is_zero() {
            self.terms.push((name.to_string(), c.clone()));
        }
    }

    /// Renames variables (names not in `from` are kept).
    pub fn rename(&self, from: &str, to: &str) -> LinExpr {
        let mut r = LinExpr::constant(self.constant.clone());
        for (n, c) in &self.terms {
            r.add_term(if n == from { to } else { n }, c);
        }
        r
    }

    /// The row `[constant, params.., dims..]` of this expression in `space` (a set space,
    /// or a map space whose input and output dimensions are consecutive), padded with zero
    /// locals to `width`. Every name must be a parameter or dimension of the space.
    fn row(&self, space: &Space, width: usize) -> Vec<Int> {
        let mut r = vec![Int::ZERO; width];
        r[0] = self.constant.clone();
        let dims = space.dim_names();
        for (n, c) in &self.terms {
            let col = match dims.iter().position(|d| d == n) {
                Some(d) => 1 + space.n_param() + d,
                None => {
                    1 + space
                        .param_index(n)
                        .expect("LinExpr::row: name is neither a dimension nor a parameter")
                }
            };
            r[col] += c;
        }
        r
    }
}

impl fmt::Display for LinExpr {
    /// C-like: `2*i - n + 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let terms = self.terms.iter().map(|(n, c)| (c, n));
        f.write_str(&fmt_affine(terms, &self.constant, Times::Star))
    }
}

/// Names used by the expressions that are not in `dims`, in order of first appearance.
fn params_of<'a>(dims: &[String], exprs: impl IntoIterator<Item = &'a LinExpr>) -> Vec<String> {
    let mut ps: Vec<String> = vec![];
    for e in exprs {
        for n in e.names() {
            if !dims.iter().any(|d| d == n) && !ps.iter().any(|p| p == n) {
                ps.push(n.to_string());
            }
        }
    }
    ps
}

/// `{ [dims] : eqs = 0 and ineqs >= 0 }`; names that are not dimensions become parameters.
pub fn set_from(dims: &[String], eqs: &[LinExpr], ineqs: &[LinExpr]) -> Set {
    let params = params_of(dims, eqs.iter().chain(ineqs));
    let space = Space {
        params,
        domain: None,
        range: Tuple {
            name: None,
            dims: dims.to_vec(),
        },
    };
    let mut b = Basic::universe(space.n_param(), space.n_dim());
    for e in eqs {
        b.add_eq(e.row(&space, b.width()));
    }
    for e in ineqs {
        b.add_ineq(e.row(&space, b.width()));
    }
    Set::from_basic(space, b)
}

/// Every point of the space with `dims` (no constraints, no parameters).
pub fn universe(dims: &[String]) -> Set {
    set_from(dims, &[], &[])
}

/// `{ [dims] : expr ≡ 0 (mod modulus) }`, i.e. `∃q: expr = modulus·q`, with `q` given as the
/// floor `expr / modulus` so that negation (for `else` branches) stays exact.
pub fn congruence(dims: &[String], expr: &LinExpr, modulus: &Int) -> Set {
    assert!(modulus.is_positive());
    let params = params_of(dims, [expr]);
    let space = Space {
        params,
        domain: None,
        range: Tuple {
            name: None,
            dims: dims.to_vec(),
        },
    };
    let mut b = Basic::universe(space.n_param(), space.n_dim());
    let num = expr.row(&space, b.width());
    let q = b.add_div(num, modulus.clone());
    let mut eq = expr.row(&space, b.width());
    eq[q] = -modulus;
    b.add_eq(eq);
    Set::from_basic(space, b)
}

/// `{ in[..] -> out[exprs] }`: each output is an affine expression of the inputs and
/// parameters (names not among the inputs become parameters).
pub fn map_from(input: &Tuple, output: &Tuple, exprs: &[LinExpr]) -> Map {
    let outs: Vec<Option<LinExpr>> = exprs.iter().cloned().map(Some).collect();
    relation(input, output, &outs)
}

/// `{ in[..] -> out[..] }` where output `k` equals `outs[k]` when it is `Some`, and is
/// unconstrained when it is `None` (a subscript that is not affine).
pub fn relation(input: &Tuple, output: &Tuple, outs: &[Option<LinExpr>]) -> Map {
    assert_eq!(output.len(), outs.len());
    let params = params_of(&input.dims, outs.iter().flatten());
    let space = Space {
        params,
        domain: Some(input.clone()),
        range: output.clone(),
    };
    let mut b = Basic::universe(space.n_param(), space.n_dim());
    let n_in = input.len();
    for (k, e) in outs.iter().enumerate() {
        if let Some(e) = e {
            let mut r = e.row(&space, b.width());
            r[b.col_dim(n_in + k)] -= &Int::ONE;
            b.add_eq(r);
        }
    }
    Map::from_basic(space, b)
}

/// Adds one unconstrained dimension named `name` after the existing ones.
pub fn add_dim(set: &Set, name: &str) -> Set {
    let mut s = set.product(&universe(&[name.to_string()]));
    // `product` drops tuple names; keep the original one.
    let mut t = set.tuple().clone();
    t.dims.push(name.to_string());
    s = s.with_tuple(t);
    s
}

/// A set over `dims + [name]` read as a set over `dims + [name, name']`: the constraints
/// bind `name` (when `last` is false) or the new dimension `name'` (when `last` is true).
pub fn widen_last(set: &Set, last: bool) -> Set {
    let n = set.n_dim();
    assert!(n > 0);
    let mut t = set.tuple().clone();
    let extra = format!("{}'", t.dims[n - 1]);
    t.dims.push(extra);
    let space = Space {
        params: set.space().params.clone(),
        domain: None,
        range: t,
    };
    let parts = set
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            // Constraints on the old last dimension move to the new one when `last`.
            b.insert_dims(if last { n - 1 } else { n }, 1);
            b
        })
        .collect();
    Set::from_parts(space, parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn display_is_c_like() {
        let e = LinExpr::var("i")
            .scale(&Int::from(2))
            .sub(&LinExpr::var("n"))
            .add_constant(&Int::ONE);
        assert_eq!(e.to_string(), "2*i - n + 1");
        assert_eq!(LinExpr::var("i").neg().to_string(), "-i");
        assert_eq!(LinExpr::zero().to_string(), "0");
        assert_eq!(
            LinExpr::var("i").sub(&LinExpr::var("i")),
            LinExpr::zero(),
            "cancelled terms disappear"
        );
    }

    #[test]
    fn sets_name_their_parameters() {
        let dims = names(&["i"]);
        let lo = LinExpr::var("i");
        let hi = LinExpr::var("n")
            .sub(&LinExpr::var("i"))
            .add_constant(&Int::from(-1));
        let s = set_from(&dims, &[], &[lo, hi]);
        assert_eq!(s.to_string(), "[n] -> { [i] : 0 <= i < n }");
        let m = map_from(
            &Tuple::new(Some("S"), &["i"]),
            &Tuple::new(Some("A"), &["o0"]),
            &[LinExpr::var("i").add_constant(&Int::from(-1))],
        );
        assert_eq!(m.to_string(), "{ S[i] -> A[i - 1] }");
    }

    #[test]
    fn congruence_is_exact_under_negation() {
        let dims = names(&["i"]);
        let box_ = set_from(
            &dims,
            &[],
            &[
                LinExpr::var("i"),
                LinExpr::constant(9).sub(&LinExpr::var("i")),
            ],
        );
        let even = congruence(&dims, &LinExpr::var("i"), &Int::from(2)).intersect(&box_);
        let odd = box_.subtract(&even);
        let pts = odd.points(100).unwrap();
        let v: Vec<i64> = pts.iter().map(|p| p[0].to_i64().unwrap()).collect();
        assert_eq!(v, vec![1, 3, 5, 7, 9]);
    }

    #[test]
    fn widen_moves_constraints() {
        let dims = names(&["i"]);
        let s = set_from(&dims, &[], &[LinExpr::var("i")]);
        assert_eq!(widen_last(&s, false).to_string(), "{ [i, i'] : i >= 0 }");
        assert_eq!(widen_last(&s, true).to_string(), "{ [i, i'] : i' >= 0 }");
        assert_eq!(add_dim(&s, "j").to_string(), "{ [i, j] : i >= 0 }");
    }
}
