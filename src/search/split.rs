//! The alias-split recipe: a statement whose innermost loop writes, at one iteration, the
//! element that every iteration reads (floyd-warshall's `path[i][j] = min(path[i][j],
//! path[i][k] + path[k][j])` writes `path[i][k]` at `j = k`). A compiler cannot keep that
//! read in a register across the loop, since the loop may change it, so it neither hoists
//! the load nor vectorizes the loop. Splitting the loop at that iteration (before it, at
//! it, after it) keeps every instance in its place and leaves two loops in which the read
//! element is not written.
//!
//! Recognised from the accesses, not from names: an affine write whose subscripts use the
//! innermost iterator `j` in one subscript alone, with coefficient ±1, and an affine read of
//! the same array that does not use `j` and agrees with the write in every other subscript;
//! they meet at one `j`, an affine function `j0` of the outer iterators and parameters.
//! Proposed only where some instance of the statement has `j = j0` (an exact emptiness
//! test), so that a loop whose range stops short of the point (LU's `j > k`) is left alone.
//! Each piece runs where it ran, so the split itself is always legal; the verifier judges
//! the script, as for every candidate (other statements in the same loop may order it).

use super::blocks::fresh;
use super::script::Names;
use super::space::affine_rows;
use crate::model::{AccessKind, Scop};
use crate::presburger::affine::{fmt_affine, Times};
use crate::presburger::row::Row;
use crate::presburger::Int;

/// A split the recipe proposes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub stmt: usize,
    /// The level of the innermost loop (its iterator's index).
    pub level: usize,
    /// `j0` as text over the statement's iterators and the parameters.
    pub at: String,
    /// Whether `j0` uses a parameter (the set then names the parameters).
    pub params: bool,
    /// The C name of the array written and read.
    pub array: String,
}

/// Every split the recipe proposes on the kernel as it is, one per statement and point.
pub fn splits(scop: &Scop) -> Vec<Split> {
    let mut out: Vec<Split> = vec![];
    for s in 0..scop.statements.len() {
        for sp in recognise(scop, s) {
            if !out.contains(&sp) {
                out.push(sp);
            }
        }
    }
    out
}

/// The splits of statement `s`.
fn recognise(scop: &Scop, s: usize) -> Vec<Split> {
    let st = &scop.statements[s];
    let n = st.iterators.len();
    if n == 0 || st.opaque.is_some() {
        return vec![];
    }
    let j = n - 1;
    let rows = |a: &crate::model::Access| {
        a.exact
            .then(|| affine_rows(&a.relation, &scop.params))
            .flatten()
    };
    let writes: Vec<&crate::model::Access> = (st.accesses.iter())
        .filter(|a| a.kind == AccessKind::Write)
        .collect();
    let [w] = writes[..] else { return vec![] };
    let Some(wr) = rows(w) else { return vec![] };
    // The one subscript of the write that uses j, with coefficient ±1.
    let using: Vec<usize> = (0..wr.len()).filter(|&d| !wr[d][j].is_zero()).collect();
    let [d] = using[..] else { return vec![] };
    let a = wr[d][j].clone();
    if a != Int::ONE && a != -Int::ONE {
        return vec![];
    }
    let mut out = vec![];
    for r in st.accesses.iter() {
        if r.kind != AccessKind::Read || r.array != w.array {
            continue;
        }
        let Some(rr) = rows(r) else { continue };
        let agree = (0..wr.len()).all(|e| e == d || rr[e] == wr[e]);
        if rr.len() != wr.len() || !rr[d][j].is_zero() || !agree {
            continue;
        }
        // a·j + rest = read  ⇒  j = a·(read − rest), as a = ±1.
        let point: Vec<Int> = (0..rr[d].len())
            .map(|k| {
                let rest = if k == j { Int::ZERO } else { wr[d][k].clone() };
                &a * &(&rr[d][k] - &rest)
            })
            .collect();
        let mut vars = st.iterators.clone();
        vars.extend(scop.params.iter().cloned());
        let last = point.len() - 1;
        let at = fmt_affine(point[..last].iter().zip(&vars), &point[last], Times::Star);
        let params = point[n..last].iter().any(|v| !v.is_zero());
        if reached(scop, s, &point) {
            out.push(Split {
                stmt: s,
                level: j,
                at,
                params,
                array: (scop.array(&w.array)).map_or(w.array.clone(), |x| x.c_name.clone()),
            });
        }
    }
    out
}

/// Whether some instance of statement `s` has its innermost iterator equal to `point`
/// (`[iterators | parameters | constant]`, no coefficient on the innermost iterator).
fn reached(scop: &Scop, s: usize, point: &[Int]) -> bool {
    let st = &scop.statements[s];
    let (n, np) = (st.iterators.len(), scop.params.len());
    // j − point = 0 over `[1, parameters, iterators]`.
    let mut row: Row = vec![-&point[n + np]];
    row.extend((0..np).map(|q| -&point[n + q]));
    row.extend((0..n).map(|i| -&point[i]));
    row[np + n] = Int::ONE;
    let domain = st.domain.align_params(&scop.params);
    !domain.add_constraints(&[row], &[]).is_empty()
}

/// A handle not in `taken`: `x` itself when free.
fn free(x: String, taken: &[String]) -> String {
    if taken.contains(&x) {
        fresh(&x, taken)
    } else {
        x
    }
}

/// The recipe's script for one split, a comment before each step saying what it is for.
pub fn script(sp: &Split, names: &Names) -> Vec<String> {
    let c_array = &sp.array;
    let h = &names.handles[sp.stmt];
    let its = &names.iterators[sp.stmt];
    let j = &its[sp.level];
    let mut taken = names.handles.clone();
    let mut name = |suffix: &str| {
        let x = free(format!("{h}{suffix}"), &taken);
        taken.push(x.clone());
        x
    };
    let (lo, rest, at, hi) = (name("Lo"), name("Rest"), name("At"), name("Hi"));
    let space = if sp.params {
        format!("[{}] -> ", names.params.join(", "))
    } else {
        String::new()
    };
    let tuple = its.join(", ");
    let l = sp.level;
    vec![
        format!(
            "# the alias-split recipe on {h} (recognised from the accesses): its loop {j} writes,"
        ),
        format!(
            "# at {j} = {}, the element of `{c_array}` that each of its iterations reads,",
            sp.at
        ),
        "# so the compiler can neither keep that read in a register nor vectorize the loop;"
            .to_string(),
        "# the loop split there, every instance in its place: first the iterations before it"
            .to_string(),
        format!(
            "({lo}, {rest}) = isplit({h}, {space}{{[{tuple}] : {j} < {}}}, {l})",
            sp.at
        ),
        "# then that iteration, and the loop after it, which vectorizes as the first part does"
            .to_string(),
        format!(
            "({at}, {hi}) = isplit({rest}, {space}{{[{tuple}] : {j} <= {}}}, {l})",
            sp.at
        ),
    ]
}
