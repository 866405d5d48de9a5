//! Copies into local buffers (`copy(l, k, A)`): for every iteration `t` of the outer `k`
//! loops of the staged pieces, the elements of `A` they touch (the *footprint* `F(t)`) live
//! in a buffer, filled before the inner loops and written back (the elements they write,
//! `W(t)`) after them.
//!
//! This module computes, from the final schedule state, what the verifier and the code
//! generator both need: which pieces are staged and which positions bound the *window*
//! (the part of each outer iteration between the fill and the write-back), the footprint
//! and the written part as maps `[t] -> A[e]`, and the buffer's box: its lower corner per
//! dimension as one quasi-affine expression of the parameters and `t` (an exact parametric
//! minimum), and its extent (the exact maximum, over every parameter value and every `t`,
//! of the footprint's width). Where that maximum grows with the parameters, the extent is
//! the exact maximum per parameter value ([`Extent`], computed when the region starts); a
//! footprint whose width has no bound even in terms of the parameters, or a box of constant
//! size holding more elements than the copy's limit, is refused. Several copies of one
//! array compose as `nest` says.

use super::state::{prefix_map, CopyMark, Piece, State};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::presburger::affine::{fmt_affine, Times};
use crate::presburger::row::Row;
use crate::presburger::{budget, Basic, Int, Map, Set, Space, Tuple};

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
                    row_text(b, &d.num, params, t, floord),
                    d.den
                ),
                None => "0".to_string(),
            }
        };
        terms.push((v, name));
    }
    fmt_affine(terms, &r[0], Times::SpacedStar)
}

/// `S[x] -> [t]`: the outer `k` iteration values of each instance of a piece.
pub fn outer_of(p: &Piece, k: usize) -> Map {
    let m = p.it.n_out();
    p.it.intersect_domain(&p.domain)
        .apply_range(&prefix_map(m, k))
}

fn t_tuple(k: usize) -> Tuple {
    Tuple::anonymous(k, "t")
}

fn e_tuple(r: usize) -> Tuple {
    Tuple::anonymous(r, "e")
}

/// The footprint of pieces `members` on `array`: `[t] -> [e]` (reads and writes, or writes
/// only).
fn footprint(
    st: &State,
    members: &[usize],
    array: &str,
    k: usize,
    rank: usize,
    writes_only: bool,
) -> Map {
    let mut out: Option<Map> = None;
    for &i in members {
        let p = &st.pieces[i];
        let outer = outer_of(p, k);
        for a in st
            .accesses
            .iter()
            .filter(|a| a.stmt == p.stmt && a.array == array && (a.write || !writes_only))
        {
            let f = outer
                .inverse()
                .apply_range(&a.relation)
                .with_space_names(t_tuple(k), e_tuple(rank));
            out = Some(match out {
                None => f,
                Some(o) => o.union(&f),
            });
        }
    }
    out.unwrap_or_else(|| {
        let params: Vec<&str> = st.params.iter().map(String::as_str).collect();
        Map::empty(Space::map(&params, t_tuple(k), e_tuple(rank)))
    })
    .simplify()
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
            .any(|v| v.as_ref().is_none_or(|v| !v.num[c].is_zero()))
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

fn refuse(mark: &CopyMark, msg: String, label: &str) -> Diagnostic {
    Diagnostic::new(codes::STORAGE_REFUSED, msg).with_label(
        &mark.origin.source,
        mark.origin.span.clone(),
        label,
    )
}

impl State {
    /// Plans every copy of the pieces ([`plan`]) and keeps the plans in
    /// [`State::copy_plans`]; or returns the first copy that cannot be planned, the state
    /// unchanged.
    pub fn plan_copies(&mut self) -> Result<(), Diagnostic> {
        self.copy_plans = plan(self)?;
        Ok(())
    }
}

/// Every copy of the state, planned; or the first one that cannot be.
pub fn plan(st: &State) -> Result<Vec<CopyPlan>, Diagnostic> {
    // Group by (step, array): one `copy` may stage several pieces.
    let mut keys: Vec<(usize, String)> = vec![];
    for p in &st.pieces {
        for c in &p.copies {
            let key = (c.step, c.array.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    let mut out = vec![];
    for (step, array) in keys {
        let members: Vec<usize> = (0..st.pieces.len())
            .filter(|&i| {
                st.pieces[i]
                    .copies
                    .iter()
                    .any(|c| c.step == step && c.array == array)
            })
            .collect();
        let mark = st.pieces[members[0]]
            .copies
            .iter()
            .find(|c| c.step == step && c.array == array)
            .expect("member")
            .clone();
        out.push(plan_one(st, mark, members)?);
    }
    nest(&mut out)?;
    Ok(out)
}

/// Whether the window of `b` lies inside the window of `a` (for every outer iteration of
/// `b`, inside the one of `a` it is part of).
fn holds(a: &CopyPlan, b: &CopyPlan) -> bool {
    let (ka, kb) = (a.mark.outer, b.mark.outer);
    if kb < ka || b.prefix[..ka] != a.prefix[..] {
        return false;
    }
    if kb == ka {
        b.first >= a.first && b.last <= a.last
    } else {
        b.prefix[ka] >= a.first && b.prefix[ka] <= a.last
    }
}

/// Whether the windows of two copies share a piece position.
fn overlap(a: &CopyPlan, b: &CopyPlan) -> bool {
    holds(a, b)
        || holds(b, a)
        || (a.mark.outer == b.mark.outer
            && a.prefix == b.prefix
            && a.first <= b.last
            && b.first <= a.last)
}

/// Several copies of one array. Copies whose windows are disjoint each fill from and write
/// back to the array. Where one window holds another, the inner copy stages either none of
/// the outer copy's pieces (both then work on the array: the outer copy's verification sees
/// the inner copy's staged instances as unstaged ones of its window, and its fill and
/// write-back touch only elements those instances touch) or only pieces the outer copy
/// stages (it then fills from and writes back to the outer buffer, which is the array its
/// pieces see). Windows that overlap without one holding the other, and an inner copy that
/// stages some of the outer copy's pieces and some others, are refused. Sets each plan's
/// buffer number and the copy it fills from.
fn nest(plans: &mut [CopyPlan]) -> Result<(), Diagnostic> {
    let n = plans.len();
    for j in 0..n {
        plans[j].buffer_index = (0..j)
            .filter(|&i| plans[i].mark.array == plans[j].mark.array)
            .count();
    }
    // Whether plan `i` is outside plan `j` (equal windows: the earlier step is outside).
    let outside = |plans: &[CopyPlan], i: usize, j: usize| -> bool {
        holds(&plans[i], &plans[j])
            && (!holds(&plans[j], &plans[i]) || (plans[i].mark.step, i) < (plans[j].mark.step, j))
    };
    for j in 0..n {
        let mut sources: Vec<usize> = vec![];
        for i in 0..n {
            let (a, b) = (&plans[i], &plans[j]);
            if i == j || a.mark.array != b.mark.array || !overlap(a, b) {
                continue;
            }
            let both = |x: &CopyPlan, y: &CopyPlan, msg: String, note: &str| {
                refuse(&y.mark, msg, "this copy")
                    .with_label(
                        &x.mark.origin.source,
                        x.mark.origin.span.clone(),
                        "the other copy",
                    )
                    .with_note(note.to_string())
            };
            if a.mark.scale.is_some() || b.mark.scale.is_some() {
                if i < j {
                    return Err(both(
                        a,
                        b,
                        format!(
                            "a scaled copy of `{}` shares its window with another copy of `{}`",
                            b.c_name, b.c_name
                        ),
                        "a scaled copy's buffer holds products, not the array's elements: no other copy of the array may run inside it or around it",
                    ));
                }
                continue;
            }
            if !holds(a, b) && !holds(b, a) {
                if i < j {
                    return Err(both(
                        a,
                        b,
                        format!(
                            "two copies of `{}` overlap without one holding the other",
                            b.c_name
                        ),
                        "copies of one array either run apart or one runs inside the other: the window of one (from its fill to its write-back) holds the whole window of the other",
                    ));
                }
                continue;
            }
            if !outside(plans, i, j) {
                continue;
            }
            let inner = &plans[j].members;
            let outer = &plans[i].members;
            if inner.iter().all(|m| outer.contains(m)) {
                sources.push(i);
            } else if inner.iter().any(|m| outer.contains(m)) {
                return Err(both(
                    a,
                    b,
                    format!(
                        "this copy of `{}` runs inside another copy of `{}` and stages both statements that copy stages and statements it does not",
                        b.c_name, b.c_name
                    ),
                    "a copy inside another copy of the same array stages either only statements the outer copy stages (it then copies from the outer buffer) or none of them",
                ));
            }
        }
        // The innermost of the copies it could fill from: the others hold it.
        plans[j].source = sources
            .iter()
            .copied()
            .find(|&s| sources.iter().all(|&o| o == s || outside(plans, o, s)));
    }
    Ok(())
}

/// Checks the staged statements of a scaled copy of `A` (C name `c_name`) by `factor` (a
/// model name): each reads `A` only in products with the factor (`alpha * A[i][k]`), the
/// spans the code generator replaces by the buffer's elements
/// ([`super::text::scaled_product`]). Returns the factor's C name.
fn scaled_statements(
    st: &State,
    mark: &CopyMark,
    members: &[usize],
    c_name: &str,
    rank: usize,
    factor: &str,
) -> Result<String, Diagnostic> {
    let factor_c = (st.arrays.iter())
        .find(|a| a.0 == factor)
        .map_or(factor, |a| a.1.as_str());
    let mut seen = vec![];
    for &i in members {
        let stmt = st.pieces[i].stmt;
        if seen.contains(&stmt) {
            continue;
        }
        seen.push(stmt);
        let Some(text) = st.texts.get(stmt) else {
            continue;
        };
        let why = match super::text::accesses(text, c_name, rank) {
            Err(e) => Some(e),
            Ok(accs) => accs
                .iter()
                .find(|a| super::text::scaled_product(text, a, factor_c).is_none())
                .map(|a| {
                    format!(
                        "it reads `{}` not as a product with `{factor_c}`",
                        &text[a.span.clone()]
                    )
                }),
        };
        if let Some(why) = why {
            return Err(refuse(
                mark,
                format!(
                    "statement {} cannot read the scaled copy of `{c_name}`: {why}",
                    st.stmt_names[stmt]
                ),
                "copied here",
            )
            .with_note(format!("the statement: {text}"))
            .with_note(format!(
                "every read of `{c_name}` by the staged statements must be `{factor_c} * {c_name}[..]` or `{c_name}[..] * {factor_c}`, a product C computes before anything else in the expression, so that the buffer's element replaces it bit for bit"
            )));
        }
    }
    Ok(factor_c.to_string())
}

fn plan_one(st: &State, mark: CopyMark, members: Vec<usize>) -> Result<CopyPlan, Diagnostic> {
    let k = mark.outer;
    let (c_name, rank) = copied_array(st, &mark)?;
    let prefix = shared_prefix(st, &mark, &members, &c_name)?;
    let first_pos = members
        .iter()
        .map(|&i| st.pieces[i].pos[k].clone())
        .min()
        .expect("members");
    let last_pos = members
        .iter()
        .map(|&i| st.pieces[i].pos[k].clone())
        .max()
        .expect("members");
    let fp = footprint(st, &members, &mark.array, k, rank, false);
    let written = footprint(st, &members, &mark.array, k, rank, true);
    if mark.scale.is_some() && !written.is_empty() {
        return Err(refuse(
            &mark,
            format!("the statements staged by this scaled copy write `{c_name}`"),
            "copied here",
        )
        .with_note("a scaled copy holds the products of the elements with the factor: it is read-only, with no write-back"));
    }
    let factor = match &mark.scale {
        Some(f) => Some(scaled_statements(st, &mark, &members, &c_name, rank, f)?),
        None => None,
    };
    if fp.is_empty() {
        return Err(refuse(
            &mark,
            format!("the staged statements touch no element of `{c_name}`"),
            "copied here",
        ));
    }
    let b = buffer_box(&fp, &mark, &c_name, rank)?;
    require_within_limit(&mark, &c_name, &b)?;
    Ok(CopyPlan {
        c_name,
        rank,
        members,
        prefix,
        first: first_pos,
        last: last_pos,
        footprint: fp,
        written,
        lower: b.lower,
        layout: (0..b.size.len()).map(BufDim::Whole).collect(),
        size: b.size,
        runtime: b.runtime,
        buffer_index: 0,
        source: None,
        factor,
        mark,
    })
}

/// The copied array's C name and rank, or why it cannot be copied.
fn copied_array(st: &State, mark: &CopyMark) -> Result<(String, usize), Diagnostic> {
    let Some((_, c_name, rank, private)) = st.arrays.iter().find(|a| a.0 == mark.array).cloned()
    else {
        return Err(refuse(
            mark,
            format!("the kernel has no array `{}`", mark.array),
            "copied here",
        ));
    };
    if private {
        return Err(refuse(
            mark,
            format!("`{c_name}` is declared inside the region"),
            "copied here",
        )
        .with_note("only arrays declared outside the modelled region are copied"));
    }
    if rank == 0 {
        return Err(refuse(
            mark,
            format!("`{c_name}` is a scalar, not an array"),
            "copied here",
        )
        .with_note("a scalar is already kept in a register by the compiler"));
    }
    Ok((c_name, rank))
}

/// The positions of the outer loops the staged pieces share, refusing pieces that do not
/// share them, are too shallow or access the array inexactly.
fn shared_prefix(
    st: &State,
    mark: &CopyMark,
    members: &[usize],
    c_name: &str,
) -> Result<Vec<Int>, Diagnostic> {
    let k = mark.outer;
    let first = &st.pieces[members[0]];
    let prefix: Vec<Int> = first.pos[..k].to_vec();
    for &i in members {
        let p = &st.pieces[i];
        if p.pos[..k] != prefix[..] {
            return Err(refuse(
                mark,
                format!(
                    "the statements staged by this copy ({} and {}) no longer share their outer {k} loop(s)",
                    st.stmt_names[first.stmt], st.stmt_names[p.stmt]
                ),
                "copied here",
            )
            .with_help("copy after the steps that separate the loops, or copy each part on its own"));
        }
        if p.depth < k {
            return Err(refuse(
                mark,
                format!(
                    "statement {} is {} loop(s) deep, fewer than the {k} outer loops of the copy",
                    st.stmt_names[p.stmt], p.depth
                ),
                "copied here",
            ));
        }
        if st
            .accesses
            .iter()
            .any(|a| a.stmt == p.stmt && a.array == mark.array && !a.exact)
        {
            return Err(refuse(
                mark,
                format!(
                    "statement {} accesses `{c_name}` through a subscript that is not affine",
                    st.stmt_names[p.stmt]
                ),
                "copied here",
            )
            .with_note("the footprint of a copy must be exact"));
        }
    }
    Ok(prefix)
}

/// The buffer's box over a footprint: per dimension, its constant size (0 where `runtime`
/// holds a size of the parameters) and lower corner; `total` the product of the sizes.
struct BufferBox {
    size: Vec<Int>,
    runtime: Vec<Option<Extent>>,
    lower: Vec<Corner>,
    total: Int,
}

/// The box of the footprint `fp` of rank `rank`, or why it has none.
fn buffer_box(
    fp: &Map,
    mark: &CopyMark,
    c_name: &str,
    rank: usize,
) -> Result<BufferBox, Diagnostic> {
    let k = mark.outer;
    let mut size = vec![];
    let mut runtime = vec![];
    let mut lower = vec![];
    let mut total = Int::ONE;
    for d in 0..rank {
        match width(fp, d) {
            Ok(w) => {
                let n = &w.unwrap_or(Int::ZERO) + &Int::ONE;
                total = &total * &n;
                size.push(n);
                runtime.push(None);
            }
            Err(()) => {
                let e = parametric_width(fp, d, mark, c_name)?;
                size.push(Int::ZERO);
                runtime.push(Some(e));
            }
        }
        let Some(c) = corner(fp, d, k) else {
            return Err(refuse(
                mark,
                format!(
                    "the lower corner of the footprint of `{c_name}` along dimension {} is not one affine expression of the outer loops",
                    d + 1
                ),
                "copied here",
            )
            .with_note("the smallest subscript differs in form between iterations (for example at a boundary)")
            .with_help("split the boundary iterations off with `isplit` and copy the regular part"));
        };
        lower.push(c);
    }
    Ok(BufferBox {
        size,
        runtime,
        lower,
        total,
    })
}

/// The width of `fp` along `d` as an extent of the parameters, within its own work budget,
/// or why there is none.
fn parametric_width(
    fp: &Map,
    d: usize,
    mark: &CopyMark,
    c_name: &str,
) -> Result<Extent, Diagnostic> {
    let k = mark.outer;
    match budget::with_budget(PARAMETRIC_BUDGET, || parametric_extent(fp, d))
        .unwrap_or(Err(NoExtent::Costly))
    {
        Ok(e) => Ok(e),
        Err(NoExtent::Unbounded) => Err(refuse(
            mark,
            format!(
                "the footprint of `{c_name}` in one iteration of the outer {k} loop(s) is unbounded along its dimension {}",
                d + 1
            ),
            "copied here",
        )
        .with_note("its width has no bound, not even one in terms of the parameters")
        .with_help("copy inside more loops (a larger k), or tile the loops first so that one iteration touches a block")),
        Err(NoExtent::Costly) => Err(refuse(
            mark,
            format!(
                "the largest width of the footprint of `{c_name}` along dimension {} depends on the parameters and takes more than {PARAMETRIC_BUDGET} work steps to compute",
                d + 1
            ),
            "copied here",
        )
        .with_note("the boxes of copies in real kernels take a few hundred steps; this footprint's parametric maximum splinters")
        .with_help("copy inside more loops (a larger k), or tile the loops first so that one iteration touches a block of constant size")),
        Err(NoExtent::Inexpressible) => Err(refuse(
            mark,
            format!(
                "the largest width of the footprint of `{c_name}` along dimension {} depends on the parameters in a way the generated code cannot compute",
                d + 1
            ),
            "copied here",
        )
        .with_help("copy inside more loops (a larger k), or tile the loops first so that one iteration touches a block of constant size")),
    }
}

/// The limit bounds boxes of known size; one whose size depends on the parameters is
/// allocated at run time with the size they give it.
fn require_within_limit(mark: &CopyMark, c_name: &str, b: &BufferBox) -> Result<(), Diagnostic> {
    let k = mark.outer;
    let total = &b.total;
    let limit = Int::from(mark.limit as i64);
    if b.runtime.iter().all(Option::is_none) && *total > limit {
        return Err(refuse(
            mark,
            format!(
                "the buffer for `{c_name}` would hold {total} elements ({}), more than the limit of {}",
                b.size.iter().map(Int::to_string).collect::<Vec<_>>().join(" × "),
                mark.limit
            ),
            "copied here",
        )
        .with_help(format!(
            "raise the limit with a fourth argument, `copy(l, {k}, {}, {total})`, or copy inside more loops",
            mark.array
        )));
    }
    Ok(())
}
