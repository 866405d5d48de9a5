//! The plan of a copy into a local buffer (`copy(l, k, A)`, planned by `plan::copy`): for
//! every iteration `t` of the outer `k` loops of the staged pieces, the elements of `A` they
//! touch (the *footprint* `F(t)`) live in a buffer, filled before the inner loops and
//! written back (the elements they write, `W(t)`) after them.
//!
//! [`CopyPlan`] is what the verifier and the code generator both read; this module also
//! holds the box arithmetic plans are built with (shared with `plan::expand`): a box's lower
//! corner per dimension as one quasi-affine expression of the parameters and `t` (an exact
//! parametric minimum, [`Corner`]), and its extent (the exact maximum, over every parameter
//! value and every `t`, of the footprint's width), or, where that maximum grows with the
//! parameters, the exact maximum per parameter value ([`Extent`], computed when the region
//! starts). It imports nothing of the schedule state.

use super::marks::CopyMark;
use crate::presburger::affine::{fmt_affine, Times};
use crate::presburger::row::Row;
use crate::presburger::{Basic, Int, Map, Set, Space, Tuple};

/// Work steps (see `presburger::budget`) allowed for the parametric maximum of one
/// dimension's width: the boxes of the examples take about 100 to 150, random kernels of
/// the property tests up to some 15 000; a footprint whose maximum splinters (whose steps
/// may each take long, on growing coefficients) is refused instead of stalling every later
/// step of the script.
pub const PARAMETRIC_BUDGET: u64 = 20_000;

/// One `copy` of the final state, ready to verify and to generate.
#[derive(Clone, Debug)]
pub struct CopyPlan {
    pub mark: CopyMark,
    /// The array's C name and rank.
    pub c_name: String,
    pub rank: usize,
    /// Indices of the staged pieces in the state's `pieces` (the state holding the plan,
    /// `State::copy_plans`).
    pub members: Vec<usize>,
    /// Positions `p0..p(k-1)` every staged piece shares.
    pub prefix: Vec<Int>,
    /// Smallest and largest position `pk` of a staged piece: the window of an outer iteration
    /// holds the pieces with these outer positions and `first <= pk <= last`.
    pub first: Int,
    pub last: Int,
    /// `[t0..t(k-1)] -> A[e]`: the elements the staged instances of outer iteration `t`
    /// touch, and the ones they write.
    pub footprint: Map,
    pub written: Map,
    /// Lower corner of the box, per array dimension.
    pub lower: Vec<Corner>,
    /// Extent of the box, per array dimension, where it is a constant; 0 where it depends
    /// on the parameters (`runtime[d]` is then `Some`).
    pub size: Vec<Int>,
    /// The extent of each dimension whose largest width depends on the parameters: such a
    /// buffer is allocated when the region starts, with the size the parameters give it.
    pub runtime: Vec<Option<Extent>>,
    /// How many copies of the same array come before this one in the plan list: the first
    /// buffer of an array is `loopy_A`, the next ones are numbered.
    pub buffer_index: usize,
    /// The copy of the same array, if any, whose buffer this one fills from and writes back
    /// to: the innermost copy whose window holds this one's and that stages every piece
    /// this one stages.
    pub source: Option<usize>,
    /// For a scaled copy, the C name of its factor: the buffer holds `factor * A[e]`.
    pub factor: Option<String>,
    /// The buffer's dimensions, outermost first (the array's own dimensions, whole, unless
    /// the code generator lays the buffer out in the order the inner loops walk it).
    pub layout: Vec<BufDim>,
}

/// Register blocks (copies the code generator may keep in registers) of at most this many
/// elements.
pub const MAX_REGISTER_ELEMENTS: i64 = 512;

impl CopyPlan {
    /// The extents of the box when its size allows a register block: constant extents, at
    /// most [`MAX_REGISTER_ELEMENTS`] in all, of an array (not a scalar).
    pub fn register_sized(&self) -> Option<Vec<i64>> {
        if self.runtime.iter().any(Option::is_some) {
            return None;
        }
        let sizes: Vec<i64> = self.size.iter().map(Int::to_i64).collect::<Option<_>>()?;
        let total = sizes.iter().try_fold(1i64, |a, &s| a.checked_mul(s))?;
        (self.rank > 0 && total <= MAX_REGISTER_ELEMENTS).then_some(sizes)
    }
}

/// One dimension of a copy's buffer, in terms of the box index `e - o` of an array
/// dimension `d` (from 0 to the box's extent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufDim {
    /// `e - o`: the whole extent.
    Whole(usize),
    /// `(e - o) / b`: the block of `b` elements (micro-panels).
    Blocks(usize, i64),
    /// `(e - o) % b`: the place inside the block.
    Within(usize, i64),
}

impl BufDim {
    /// The array dimension it indexes.
    pub fn dim(&self) -> usize {
        match *self {
            BufDim::Whole(d) | BufDim::Blocks(d, _) | BufDim::Within(d, _) => d,
        }
    }

    /// Its extent, given the box's extent along its array dimension.
    pub fn extent(&self, size: &Int) -> Int {
        match *self {
            BufDim::Whole(_) => size.clone(),
            BufDim::Blocks(_, b) => size.div_ceil(&Int::from(b)),
            BufDim::Within(_, b) => Int::from(b),
        }
    }

    /// The buffer index as C, given the box index (`(s) - o`, parenthesised).
    pub fn index(&self, box_index: &str) -> String {
        match *self {
            BufDim::Whole(_) => box_index.to_string(),
            BufDim::Blocks(_, b) => format!("({box_index}) / {b}"),
            BufDim::Within(_, b) => format!("({box_index}) % {b}"),
        }
    }
}

/// The lower corner of one dimension of a box: `row` over the columns
/// `[1 | params | t | e | locals]` of `basic` (whose locals are known floors), the value of
/// `e` in terms of the others.
#[derive(Clone, Debug)]
pub struct Corner {
    pub basic: Basic,
    pub row: Row,
}

impl Corner {
    /// The corner as C text: parameters by name, `t` by the given texts, floors through
    /// the macro `floord` (which the caller defines).
    pub fn to_c(&self, params: &[String], t: &[String], floord: &str) -> String {
        row_text(&self.basic, &self.row, params, t, floord)
    }

    /// Its value when it is a constant (no parameter, no `t`, no division).
    pub fn constant(&self) -> Option<Int> {
        let (first, rest) = self.row.split_first()?;
        rest.iter().all(Int::is_zero).then(|| first.clone())
    }
}

fn row_text(b: &Basic, r: &Row, params: &[String], t: &[String], floord: &str) -> String {
    let np = b.n_param();
    let mut terms: Vec<(&Int, String)> = vec![];
    for (c, v) in r.iter().enumerate().skip(1) {
        if v.is_zero() {
            continue;
        }
        let name = if c <= np {
            params[c - 1].clone()
        } else if c < b.div_start() {
            let k = c - 1 - np;
            if k < t.len() {
                t[k].clone()
            } else {
                "0".to_string()
            }
        } else {
            let i = c - b.div_start();
            match &b.divs()[i] {
                Some(d) => format!(
                    "{floord}({}, {})",
                    row_text(b, d.num(), params, t, floord),
                    d.den()
                ),
                None => "0".to_string(),
            }
        };
        terms.push((v, name));
    }
    fmt_affine(terms, &r[0], Times::SpacedStar)
}

/// A set whose parameters become its first dimensions (same columns, relabelled).
fn params_as_dims(s: &Set) -> Set {
    let mut dims: Vec<String> = s.space().params.clone();
    dims.extend(s.space().range.dims.iter().cloned());
    let names: Vec<&str> = dims.iter().map(String::as_str).collect();
    let space = Space::set(&[], Tuple::new(None, &names));
    let parts = s
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.set_n_param(0);
            b
        })
        .collect();
    Set::from_parts(space, parts)
}

/// The first `n` dimensions of a set become parameters (after its own).
fn dims_as_params(s: &Set, n: usize) -> Set {
    let mut params = s.space().params.clone();
    params.extend(s.space().range.dims[..n].iter().cloned());
    let dims: Vec<&str> = s.space().range.dims[n..]
        .iter()
        .map(String::as_str)
        .collect();
    let ps: Vec<&str> = params.iter().map(String::as_str).collect();
    let space = Space::set(&ps, Tuple::new(None, &dims));
    let parts = s
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.set_n_param(b.n_param() + n);
            b
        })
        .collect();
    Set::from_parts(space, parts)
}

/// `{ [delta] : delta = e'_d - e_d }` over pairs of elements of one footprint (a common
/// `t`), with the parameters projected out too when `params_dims` (so that one maximum
/// covers every parameter value), else kept as parameters.
fn deltas(f: &Map, d: usize, params_dims: bool) -> Set {
    let r = f.n_out();
    // [e] -> [e'] with a common t.
    let pairs = f.inverse().apply_range(f).wrap();
    let all = if params_dims {
        params_as_dims(&pairs)
    } else {
        pairs.clone()
    };
    let np = all.space().n_param();
    // Columns of the element pairs after `delta` (and the parameters, if they are dims).
    let skip = if params_dims {
        pairs.space().n_param()
    } else {
        0
    };
    let n = all.n_dim();
    let mut names: Vec<String> = vec!["delta".to_string()];
    names.extend(all.space().range.dims.iter().cloned());
    let ns: Vec<&str> = names.iter().map(String::as_str).collect();
    let ps: Vec<&str> = all.space().params.iter().map(String::as_str).collect();
    let space = Space::set(&ps, Tuple::new(None, &ns));
    let parts: Vec<Basic> = all
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.insert_dims(0, 1);
            let mut row = b.zero_row();
            row[b.col_dim(0)] = Int::ONE;
            row[b.col_dim(1 + skip + r + d)] = Int::from(-1);
            row[b.col_dim(1 + skip + d)] = Int::ONE;
            b.add_eq(row);
            b
        })
        .collect();
    let _ = np;
    Set::from_parts(space, parts).project_out(1, n)
}

/// The largest `e'_d - e_d` over two elements of one footprint, over every parameter value
/// and outer iteration: `Ok(None)` when the footprint is empty, `Err(())` when it grows
/// with the parameters (or without any bound).
pub(crate) fn width(f: &Map, d: usize) -> Result<Option<Int>, ()> {
    let s = deltas(f, d, true);
    match s.lexmax_point() {
        Ok(Some(v)) => Ok(Some(v[0].clone())),
        Ok(None) => Ok(None),
        Err(_) => Err(()),
    }
}

/// The extent of one dimension of a box whose size depends on the parameters: the exact
/// largest width of the footprint plus one, for each parameter value, as a piecewise
/// quasi-affine function of the parameters (one piece per part of the parametric maximum,
/// each a value and the conditions on the parameters where it holds). Where no piece holds,
/// the footprint is empty.
#[derive(Clone, Debug)]
pub struct Extent {
    pub pieces: Vec<ExtentPiece>,
}

/// One piece of an [`Extent`]: rows over the columns `[1 | params | delta | locals]` of
/// `basic` (whose locals are known floors of the parameters), `delta` having coefficient 0.
#[derive(Clone, Debug)]
pub struct ExtentPiece {
    pub basic: Basic,
    pub value: Row,
    /// `(row, is_equality)`: `row == 0` or `row >= 0`.
    pub conds: Vec<(Row, bool)>,
}

impl Extent {
    /// The extent as a C expression of the parameters (by name); floors through the macro
    /// `floord`. It may be 0 or negative where the footprint is empty.
    pub fn to_c(&self, params: &[String], floord: &str) -> String {
        let text = |p: &ExtentPiece, r: &Row| row_text(&p.basic, r, params, &[], floord);
        if let [p] = &self.pieces[..] {
            return text(p, &p.value);
        }
        let mut s = String::from("(");
        for p in &self.pieces {
            let conds: Vec<String> = p
                .conds
                .iter()
                .map(|(r, eq)| format!("{} {} 0", text(p, r), if *eq { "==" } else { ">=" }))
                .collect();
            if conds.is_empty() {
                s.push_str(&format!("{})", text(p, &p.value)));
                return s;
            }
            s.push_str(&format!(
                "{} ? {} : ",
                conds.join(" && "),
                text(p, &p.value)
            ));
        }
        s.push_str("0)");
        s
    }
}

/// Why a dimension has no [`Extent`].
pub(crate) enum NoExtent {
    /// No bound, even in terms of the parameters.
    Unbounded,
    /// A maximum C cannot compute (a floor whose definition is unknown).
    Inexpressible,
    /// More than [`PARAMETRIC_BUDGET`] work steps.
    Costly,
}

/// The exact largest width plus one of dimension `d` of the footprint, per parameter value.
pub(crate) fn parametric_extent(f: &Map, d: usize) -> Result<Extent, NoExtent> {
    let s = deltas(f, d, false);
    let max = s.lexmax().map_err(|_| NoExtent::Unbounded)?.simplify();
    let mut pieces = vec![];
    for b in max.parts() {
        let c = b.col_dim(0);
        if b.divs()
            .iter()
            .any(|v| v.as_ref().is_none_or(|v| !v.num()[c].is_zero()))
        {
            return Err(NoExtent::Inexpressible);
        }
        let Some(k) = b
            .eqs()
            .iter()
            .position(|row| row[c].is_one() || (-&row[c]).is_one())
        else {
            return Err(NoExtent::Inexpressible);
        };
        // delta = value, then value + 1.
        let s = -&b.eqs()[k][c];
        let mut value: Row = b.eqs()[k].iter().map(|v| &s * v).collect();
        value[c] = Int::ZERO;
        value[0] = &value[0] + &Int::ONE;
        // The other constraints with delta replaced by its value.
        let subst = |row: &Row| -> Row {
            let a = &row[c];
            let mut out: Row = row.clone();
            out[c] = Int::ZERO;
            if !a.is_zero() {
                for (i, v) in value.iter().enumerate() {
                    out[i] = &out[i] + &(a * v);
                }
                // value holds delta + 1.
                out[0] = &out[0] - a;
            }
            out
        };
        let mut conds = vec![];
        for (i, row) in b.eqs().iter().enumerate() {
            if i != k {
                conds.push((subst(row), true));
            }
        }
        for row in b.ineqs() {
            conds.push((subst(row), false));
        }
        pieces.push(ExtentPiece {
            basic: b.clone(),
            value,
            conds,
        });
    }
    if pieces.is_empty() {
        return Err(NoExtent::Inexpressible);
    }
    Ok(Extent { pieces })
}

/// The exact lower corner of dimension `d` of the footprint as one expression of the
/// parameters and `t`, if it is one.
pub(crate) fn corner(f: &Map, d: usize, k: usize) -> Option<Corner> {
    let r = f.n_out();
    let w = f.wrap();
    // Keep t and e_d: project out the other element dims.
    let mut s = w.clone();
    if d + 1 < r {
        s = s.project_out(k + d + 1, r - d - 1);
    }
    if d > 0 {
        s = s.project_out(k, d);
    }
    let s = dims_as_params(&s, k);
    let min = s.lexmin().ok()?.simplify();
    single_expression(&min, k)
}

/// The smallest (or largest) value of a one-dimensional set over its parameters, as one
/// quasi-affine expression of them, when it is one (an exact parametric extremum). `None`
/// when the set is unbounded that way, empty, or its extremum is piecewise.
pub fn bound(s: &Set, max: bool) -> Option<Corner> {
    let opt = if max { s.lexmax() } else { s.lexmin() };
    single_expression(&opt.ok()?.simplify(), 0)
}

/// The one expression of a piecewise value `min` (a set of one dimension over the
/// parameters and `nt` outer values made parameters) that every part agrees with.
fn single_expression(min: &Set, nt: usize) -> Option<Corner> {
    if min.is_empty() {
        return None;
    }
    // Candidate expressions, one per part; a candidate holds when every part agrees with it
    // (parts may write one value differently, e.g. `8*i2` and `96*i1` where they are equal).
    let mut candidates: Vec<Corner> = vec![];
    for b in min.parts() {
        let c = b.col_dim(0);
        let Some(eq) = b
            .eqs()
            .iter()
            .find(|row| row[c].is_one() || (-&row[c]).is_one())
        else {
            continue;
        };
        if b.divs().iter().any(Option::is_none) {
            continue;
        }
        let s = -&eq[c];
        let mut row: Row = eq.iter().map(|v| &s * v).collect();
        row[c] = Int::ZERO;
        // Back to columns [1 | params | t | e | locals]: the t params follow the program's.
        let mut basic = b.clone();
        basic.set_n_param(basic.n_param() - nt);
        candidates.push(Corner { basic, row });
    }
    let holds = |cand: &Corner| -> bool {
        let uses_divs = cand.row[cand.basic.div_start()..]
            .iter()
            .any(|v| !v.is_zero());
        if uses_divs {
            return min.parts().len() == 1;
        }
        let base = &cand.row[..cand.basic.div_start()];
        min.parts().iter().all(|b| {
            // e - cand >= 1 or cand - e >= 1 on b: both must be empty.
            let c = b.col_dim(0);
            let mut diff = b.zero_row();
            for (i, v) in base.iter().enumerate() {
                diff[i] = -v;
            }
            diff[c] = Int::ONE;
            let mut above = diff.clone();
            above[0] = &above[0] - &Int::ONE;
            let mut below: Row = diff.iter().map(|v| -v).collect();
            below[0] = &below[0] - &Int::ONE;
            let mut x = b.clone();
            x.add_ineq(above);
            let mut y = b.clone();
            y.add_ineq(below);
            x.is_empty() && y.is_empty()
        })
    };
    candidates.into_iter().find(|c| holds(c))
}
