//! The row-block recipe: a product computed one row at a time through a temporary row
//! (doitgen's `sum[p] = 0; sum[p] += A[r][q][s] * C4[s][p]; A[r][q][p] = sum[p]`), computed
//! `MR` rows at once. The temporary, reused by every iteration of the outer loops, is what
//! forbids running several rows together: the recipe gives it one row per iteration of the
//! row loop (`expand` along the outer loops, then `contract` gives back all but the row
//! loop), cuts the row loop into blocks of `MR`, and keeps each block's `MR x NR` part of
//! the temporary in vector registers across the reduction loop (a register block of the
//! storage), as a matrix product's micro-kernel does.
//!
//! Recognised from the accesses, not from names: an update `x[p] += a * b` in loops
//! `(o1 … ok, p, s)` (or `(…, s, p)`) whose temporary `x` is indexed by `p` alone, one
//! operand read along `ok` and `s` but not `p`, the other along `s` and `p` but not `ok`; a
//! statement before it that sets `x[p]` without reading `x`, and one after it that reads
//! `x[p]` into another array, each sharing the outer loops with it; no other statement
//! touching `x`. The verifier judges each script, as for every candidate.

use super::blocks::fresh;
use super::recipe::{shared, single, subscripts, BlisSizes};
use super::script::Names;
use crate::model::state::RedOp;
use crate::model::{AccessKind, Scop};

/// Three statements the row-block recipe applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rows {
    /// The statement that sets the temporary, the update, the one that reads it out.
    pub init: usize,
    pub update: usize,
    pub out: usize,
    /// The temporary's C name.
    pub x: String,
    /// The outer loops of the update (the last is the row loop).
    pub k: usize,
    /// The update's iterator indices of the column loop `p` and the reduction loop `s`.
    pub p: usize,
    pub s: usize,
}

/// One update's verdict for the row-block recipe.
pub type Found = Result<Rows, (usize, String)>;

/// The row-block recipe's verdict on each `+` update of a one-dimensional array in at least
/// three loops (those that look like a row of a product), except arrays in `expanded` (model
/// names: a prefix expanded them already, so no temporary is shared any more).
pub fn rows(scop: &Scop, names: &Names, expanded: &[String]) -> Vec<Found> {
    let mut out = vec![];
    for (u, st) in scop.statements.iter().enumerate() {
        let Some(up) = &st.update else { continue };
        let rank = scop.array(&up.array).map_or(0, |a| a.rank);
        if up.op != RedOp::Add || rank != 1 || st.iterators.len() < 3 {
            continue;
        }
        if expanded.contains(&up.array) {
            continue;
        }
        out.push(recognise(scop, names, u).map_err(|why| (u, why)));
    }
    out
}

/// The iterators an access's subscripts use (its coefficients), `None` when not affine.
fn used(scop: &Scop, s: usize, a: &crate::model::Access) -> Option<Vec<bool>> {
    let subs = subscripts(scop, s, a)?;
    let n = scop.statements[s].iterators.len();
    Some(
        (0..n)
            .map(|i| subs.iter().any(|(c, _)| c[i] != 0))
            .collect(),
    )
}

/// The iterator index statement `s` accesses the one-dimensional `x` with, when it is one
/// iterator alone.
fn index_of(scop: &Scop, s: usize, a: &crate::model::Access) -> Option<usize> {
    match &subscripts(scop, s, a)?[..] {
        [sub] => single(sub),
        _ => None,
    }
}

/// The three statements around update `u`, or why the recipe does not apply.
fn recognise(scop: &Scop, names: &Names, u: usize) -> Result<Rows, String> {
    let st = &scop.statements[u];
    let xm = st.update.as_ref().expect("an update").array.clone();
    let x = scop.array(&xm).map_or(xm.clone(), |a| a.c_name.clone());
    let n = st.iterators.len();
    let w = (st.accesses.iter())
        .find(|a| a.kind == AccessKind::Write && a.array == xm)
        .ok_or("it writes no element of the array it updates")?;
    let p = index_of(scop, u, w)
        .ok_or_else(|| format!("`{x}` is not indexed by one loop of it alone"))?;
    let s = match p {
        _ if p + 1 == n => n - 2,
        _ if p + 2 == n => n - 1,
        _ => {
            return Err(format!(
                "the loop indexing `{x}` is not one of its two innermost"
            ))
        }
    };
    let k = n - 2;
    let row = k - 1;
    let operands: Vec<Vec<bool>> = (st.accesses.iter())
        .filter(|a| a.array != xm)
        .map(|a| used(scop, u, a).ok_or("an operand is not affine"))
        .collect::<Result<_, _>>()?;
    let along = |v: &Vec<bool>, yes: &[usize], no: &[usize]| {
        yes.iter().all(|&i| v[i]) && no.iter().all(|&i| !v[i])
    };
    let a_row = operands.iter().any(|v| along(v, &[row, s], &[p]));
    let b_col = operands.iter().any(|v| along(v, &[s, p], &[row]));
    if operands.len() != 2 || !a_row || !b_col {
        return Err(format!(
            "its operands are not one read along its rows and reduction and one along the reduction and `{x}`'s index"
        ));
    }
    let touches = |t: usize, kind: Option<AccessKind>| {
        (scop.statements[t].accesses.iter())
            .filter(|a| a.array == xm)
            .any(|a| kind.is_none_or(|k| (a.kind == AccessKind::Write) == (k == AccessKind::Write)))
    };
    let others: Vec<usize> = (0..scop.statements.len())
        .filter(|&t| t != u && touches(t, None))
        .collect();
    let [init, out] = others[..] else {
        return Err(format!(
            "not exactly one statement sets `{x}` before it and one reads it after"
        ));
    };
    let ok = init < u
        && u < out
        && touches(init, Some(AccessKind::Write))
        && !touches(init, Some(AccessKind::Read))
        && !touches(out, Some(AccessKind::Write))
        && shared(names, init, u) >= k
        && shared(names, u, out) >= k;
    if !ok {
        return Err(format!(
            "`{x}` is not set before it and read after it inside the loops around its rows"
        ));
    }
    Ok(Rows {
        init,
        update: u,
        out,
        x,
        k,
        p,
        s,
    })
}

/// The recipe's script for one group of statements, a comment before each step saying what
/// it is for; `MR` rows by `NR` columns (the machine model's register block). `par`: the
/// blocks of rows on the threads (each block sets, computes and reads out its own rows of
/// the storage, which the loops outside share).
pub fn script(r: &Rows, names: &Names, sizes: &BlisSizes, par: bool) -> Vec<String> {
    let h = |s: usize| names.handles[s].clone();
    let (i, u, o) = (h(r.init), h(r.update), h(r.out));
    let its = &names.iterators[r.update];
    let k = r.k;
    let mut taken = its.clone();
    taken.extend(names.params.iter().cloned());
    let row = &its[k - 1];
    let (p, s) = (&its[r.p], &its[r.s]);
    let rb = fresh(row, &taken);
    let pb = fresh(p, &taken);
    let outer: Vec<String> = its[..k - 1].to_vec();
    let with = |extra: &[&String]| {
        let mut v: Vec<String> = outer.clone();
        v.extend(extra.iter().map(|x| x.to_string()));
        v.join(", ")
    };
    let x = &r.x;
    let mut out = vec![
        format!("# the row-block recipe on {u}: MR rows of {row} at once (recognised from the accesses);"),
        format!("# MR x NR of `{x}` in vector registers across {s} (sizes: the machine model's"),
        "# MR and NR for doubles, `loopy machine`)".to_string(),
        format!("param MR = {}", sizes.mr),
        format!("param NR = {}", sizes.nr),
        format!("# one row of `{x}` per iteration of the loops around it"),
        format!("expand({{{i}, {u}, {o}}}, {k}, {x})"),
    ];
    if k > 1 {
        let back: Vec<String> = (1..k).map(|l| l.to_string()).collect();
        out.push(format!(
            "# the loops outside {row} given back: one storage for all of them"
        ));
        out.push(format!("contract({x}, [{}])", back.join(", ")));
    }
    let nest = if r.p < r.s { [p, s] } else { [s, p] };
    out.extend([
        format!("# blocks of MR rows of {row}"),
        format!(
            "affine({{{i}, {u}, {o}}}, {{[{}] -> [{}] : {rb} = floor({row}/MR)}})",
            with(&[row]),
            with(&[&rb, row])
        ),
        "# each block's rows set, then computed, apart".to_string(),
        format!("realign({i}, {u}, {k})"),
        "# then read out, after the whole block is computed".to_string(),
        format!("realign({u}, {o}, {k})"),
        format!("# strips of NR values of {p}; {s}, then the block's rows and the strip's values"),
        format!(
            "affine({u}, {{[{}] -> [{}] : {pb} = floor({p}/NR)}})",
            with(&[&rb, row, nest[0], nest[1]]),
            with(&[&rb, &pb, s, row, p])
        ),
        format!("# the MR x NR of `{x}` kept in registers across {s}"),
        format!("copy({u}, {}, loopy_{x}_x)", k + 1),
        "# its MR rows unrolled".to_string(),
        format!("unroll({u}, {}, MR)", k + 3),
        "# its NR values as vectors".to_string(),
        format!("vectorize({u}, {})", k + 4),
    ]);
    if par {
        out.push(format!(
            "# the blocks of MR rows on the threads (each with its own rows of `{x}`)"
        ));
        out.push(format!("parallel({i}, {k})"));
    }
    out
}
