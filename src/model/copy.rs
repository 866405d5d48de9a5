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
//! of the footprint's width). A footprint whose width is unbounded, or whose box holds more
//! elements than the copy's limit, is refused.

use super::state::{prefix_map, CopyMark, Piece, State};
use crate::diag::Diagnostic;
use crate::presburger::omega::Row;
use crate::presburger::{Basic, Int, Map, Set, Space, Tuple};

/// One `copy` of the final state, ready to verify and to generate.
#[derive(Clone, Debug)]
pub struct CopyPlan {
    pub mark: CopyMark,
    /// The array's C name and rank.
    pub c_name: String,
    pub rank: usize,
    /// Indices of the staged pieces.
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
    /// Extent of the box, per array dimension.
    pub size: Vec<Int>,
    /// The buffer's dimensions, outermost first, as array dimensions (the identity unless
    /// the code generator lays the buffer out in the order the inner loops walk it).
    pub layout: Vec<usize>,
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
    let np = b.n_param;
    let mut terms: Vec<(Int, String)> = vec![];
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
            match &b.divs[i] {
                Some(d) => format!(
                    "{floord}({}, {})",
                    row_text(b, &d.num, params, t, floord),
                    d.den
                ),
                None => "0".to_string(),
            }
        };
        terms.push((v.clone(), name));
    }
    let mut s = String::new();
    for (v, name) in terms {
        let neg = v.is_negative();
        let a = v.abs();
        if s.is_empty() {
            if neg {
                s.push('-');
            }
        } else {
            s.push_str(if neg { " - " } else { " + " });
        }
        if !a.is_one() {
            s.push_str(&format!("{a} * "));
        }
        s.push_str(&name);
    }
    let c = &r[0];
    if s.is_empty() {
        return c.to_string();
    }
    if c.is_positive() {
        s.push_str(&format!(" + {c}"));
    } else if c.is_negative() {
        s.push_str(&format!(" - {}", c.abs()));
    }
    s
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
    let np = s.space().n_param();
    let mut dims: Vec<String> = s.space().params.clone();
    dims.extend(s.space().range.dims.iter().cloned());
    let names: Vec<&str> = dims.iter().map(String::as_str).collect();
    let space = Space::set(&[], Tuple::new(None, &names));
    let parts = s
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.n_dim += np;
            b.n_param = 0;
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
            b.n_dim -= n;
            b.n_param += n;
            b
        })
        .collect();
    Set::from_parts(space, parts)
}

/// The largest `e'_d - e_d` over two elements of one footprint, over every parameter value
/// and outer iteration: `Ok(None)` when the footprint is empty, `Err(())` when unbounded.
fn width(f: &Map, d: usize) -> Result<Option<Int>, ()> {
    let r = f.n_out();
    // [e] -> [e'] with a common t.
    let pairs = f.inverse().apply_range(f).wrap();
    let all = params_as_dims(&pairs);
    let np = pairs.space().n_param();
    // δ = e'_d - e_d in front.
    let n = all.n_dim();
    let mut names: Vec<String> = vec!["delta".to_string()];
    names.extend(all.space().range.dims.iter().cloned());
    let ns: Vec<&str> = names.iter().map(String::as_str).collect();
    let space = Space::set(&[], Tuple::new(None, &ns));
    let parts: Vec<Basic> = all
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.insert_dims(0, 1);
            let mut row = b.zero_row();
            row[b.col_dim(0)] = Int::ONE;
            row[b.col_dim(1 + np + r + d)] = Int::from(-1);
            row[b.col_dim(1 + np + d)] = Int::ONE;
            b.add_eq(row);
            b
        })
        .collect();
    let s = Set::from_parts(space, parts).project_out(1, n);
    match s.lexmax_point() {
        Ok(Some(v)) => Ok(Some(v[0].clone())),
        Ok(None) => Ok(None),
        Err(_) => Err(()),
    }
}

/// The exact lower corner of dimension `d` of the footprint as one expression of the
/// parameters and `t`, if it is one.
fn corner(f: &Map, d: usize, k: usize) -> Option<Corner> {
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
            .eqs
            .iter()
            .find(|row| row[c].is_one() || (-&row[c]).is_one())
        else {
            continue;
        };
        if b.divs.iter().any(Option::is_none) {
            continue;
        }
        let s = -&eq[c];
        let mut row: Row = eq.iter().map(|v| &s * v).collect();
        row[c] = Int::ZERO;
        // Back to columns [1 | params | t | e | locals]: the t params follow the program's.
        let mut basic = b.clone();
        basic.n_param -= nt;
        basic.n_dim += nt;
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
    Diagnostic::new(msg).with_label(&mark.origin.source, mark.origin.span.clone(), label)
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
    // One buffer per array: two copies of one array would each see the other's buffer
    // as the array.
    for (i, a) in out.iter().enumerate() {
        if let Some(b) = out[..i].iter().find(|b| b.mark.array == a.mark.array) {
            return Err(refuse(
                &a.mark,
                format!("`{}` is copied twice", a.c_name),
                "second copy",
            )
            .with_label(&b.mark.origin.source, b.mark.origin.span.clone(), "first copy")
            .with_note("an array has at most one buffer; stage every statement that needs it in one `copy` (a group `{A, B}`)"));
        }
    }
    Ok(out)
}

fn plan_one(st: &State, mark: CopyMark, members: Vec<usize>) -> Result<CopyPlan, Diagnostic> {
    let k = mark.outer;
    let Some((_, c_name, rank, private)) = st.arrays.iter().find(|a| a.0 == mark.array).cloned()
    else {
        return Err(refuse(
            &mark,
            format!("the kernel has no array `{}`", mark.array),
            "copied here",
        ));
    };
    if private {
        return Err(refuse(
            &mark,
            format!("`{c_name}` is declared inside the region"),
            "copied here",
        )
        .with_note("only arrays declared outside the modelled region are copied"));
    }
    if rank == 0 {
        return Err(refuse(
            &mark,
            format!("`{c_name}` is a scalar, not an array"),
            "copied here",
        )
        .with_note("a scalar is already kept in a register by the compiler"));
    }
    let first = &st.pieces[members[0]];
    let prefix: Vec<Int> = first.pos[..k].to_vec();
    for &i in &members {
        let p = &st.pieces[i];
        if p.pos[..k] != prefix[..] {
            return Err(refuse(
                &mark,
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
                &mark,
                format!(
                    "statement {} is {} loop(s) deep, fewer than the {k} outer loops of the copy",
                    st.stmt_names[p.stmt], p.depth
                ),
                "copied here",
            ));
        }
        if let Some(a) = st
            .accesses
            .iter()
            .find(|a| a.stmt == p.stmt && a.array == mark.array && !a.exact)
        {
            let _ = a;
            return Err(refuse(
                &mark,
                format!(
                    "statement {} accesses `{c_name}` through a subscript that is not affine",
                    st.stmt_names[p.stmt]
                ),
                "copied here",
            )
            .with_note("the footprint of a copy must be exact"));
        }
    }
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
    if fp.is_empty() {
        return Err(refuse(
            &mark,
            format!("the staged statements touch no element of `{c_name}`"),
            "copied here",
        ));
    }
    let mut size = vec![];
    let mut lower = vec![];
    let mut total = Int::ONE;
    for d in 0..rank {
        let w = match width(&fp, d) {
            Ok(Some(w)) => w,
            Ok(None) => Int::ZERO,
            Err(()) => {
                return Err(refuse(
                    &mark,
                    format!(
                        "the footprint of `{c_name}` in one iteration of the outer {k} loop(s) is unbounded along its dimension {}",
                        d + 1
                    ),
                    "copied here",
                )
                .with_note("a buffer's extent is the largest width of the footprint over every parameter value: it must be a constant")
                .with_help("copy inside more loops (a larger k), or tile the loops first so that one iteration touches a block"));
            }
        };
        let n = &w + &Int::ONE;
        total = &total * &n;
        size.push(n);
        let Some(c) = corner(&fp, d, k) else {
            return Err(refuse(
                &mark,
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
    let limit = Int::from(mark.limit as i64);
    if total > limit {
        return Err(refuse(
            &mark,
            format!(
                "the buffer for `{c_name}` would hold {total} elements ({}), more than the limit of {}",
                size.iter().map(Int::to_string).collect::<Vec<_>>().join(" × "),
                mark.limit
            ),
            "copied here",
        )
        .with_help(format!(
            "raise the limit with a fourth argument, `copy(l, {k}, {}, {total})`, or copy inside more loops",
            mark.array
        )));
    }
    Ok(CopyPlan {
        c_name,
        rank,
        members,
        prefix,
        first: first_pos,
        last: last_pos,
        footprint: fp,
        written,
        lower,
        layout: (0..size.len()).collect(),
        size,
        mark,
    })
}
