//! The register-block recipe: for a `+` update of `C[i][j]` in three loops that the BLIS
//! recipe does not take (a triangular domain, both operands read from one array, a sum of
//! products: syrk, syr2k), the `MR × NR` block of `C` kept in vector registers across the
//! reduction loop `k`, on the whole tiles of the domain; the tiles the domain cuts run as
//! written.
//!
//! The whole tiles are derived from the domain, not from names: a tile is whole when every
//! corner of its box satisfies each of the domain's constraints, and for an affine
//! constraint the worst corner is known from the signs of its coefficients (the tile's first
//! row or column where the coefficient is positive, its last where it is negative). The
//! verifier judges each script, as for every candidate.

use super::recipe::{own_nest, subscripts, update_shape, Recognised};
use super::script::Names;
use crate::model::{AccessKind, Scop};
use crate::presburger::Int;
use crate::verify::{Dependence, Program};

/// A statement the register-block recipe applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub stmt: usize,
    /// The statement's iterator indices of the row loop `i`, the reduction `k` and the
    /// column loop `j` of the updated `C[i][j]`.
    pub loops: [usize; 3],
    /// The C name of the updated array.
    pub c: String,
    /// The conditions (over the statement's iterators, parameters, `MR` and `NR`) under
    /// which an instance lies in a whole tile.
    pub whole: Vec<String>,
}

/// One statement's verdict for the register-block recipe.
pub type Found = Result<Block, (usize, String)>;

/// The register-block recipe's verdict on each statement the BLIS recipe skipped whose shape
/// both recipes need (a `+` update of a 2-d element in three loops whose instances depend on
/// each other only through the reduction): the others were skipped with their reason already.
pub fn blocks(
    scop: &Scop,
    program: &Program,
    deps: &[Dependence],
    names: &Names,
    found: &[Recognised],
) -> Vec<Found> {
    let mut out = vec![];
    for (s, _) in found.iter().filter_map(|r| r.as_ref().err()) {
        let Ok(loops) = update_shape(scop, program, deps, *s) else {
            continue;
        };
        out.push(recognise(scop, names, *s, loops).map_err(|why| (*s, why)));
    }
    out
}

/// An operand of statement `s` that another statement writes inside a loop they share (a
/// time step: the product's loops cannot be blocked apart from it), with that statement.
fn written_beside(scop: &Scop, names: &Names, s: usize) -> Option<(String, usize)> {
    let st = &scop.statements[s];
    let u = st.update.as_ref()?;
    let reads = (st.accesses.iter())
        .filter(|a| a.kind != AccessKind::Write && a.array != u.array)
        .map(|a| &a.array);
    for x in reads {
        let writer = (0..scop.statements.len()).find(|&t| {
            t != s
                && super::recipe::shared(names, s.min(t), s.max(t)) > 0
                && (scop.statements[t].accesses.iter())
                    .any(|a| a.array == *x && a.kind == AccessKind::Write)
        });
        if let Some(t) = writer {
            return Some((x.clone(), t));
        }
    }
    None
}

/// The block of statement `s` (loops `[i, k, j]`), or why its block of `C` cannot stay in
/// registers or its whole tiles are not known.
fn recognise(scop: &Scop, names: &Names, s: usize, loops: [usize; 3]) -> Result<Block, String> {
    let st = &scop.statements[s];
    let u = st.update.as_ref().expect("an update");
    let c = scop
        .array(&u.array)
        .map_or(u.array.clone(), |x| x.c_name.clone());
    let w = (st.accesses.iter())
        .find(|a| a.kind == AccessKind::Write)
        .expect("an update writes");
    let own = subscripts(scop, s, w);
    let other = st
        .accesses
        .iter()
        .filter(|a| a.array == u.array && a.kind != AccessKind::Write)
        .any(|a| subscripts(scop, s, a) != own);
    if other {
        return Err(format!(
            "it reads other elements of `{c}` than the one it updates, so the block of `{c}` cannot stay in registers"
        ));
    }
    if let Some((x, t)) = written_beside(scop, names, s) {
        let x = scop.array(&x).map_or(x.clone(), |a| a.c_name.clone());
        return Err(format!(
            "its operand `{x}` is written by {} inside a loop they share, so its loops cannot be blocked apart from that statement",
            names.handles[t]
        ));
    }
    let whole = whole_tiles(scop, s, loops)?;
    Ok(Block {
        stmt: s,
        loops,
        c,
        whole,
    })
}

/// The conditions of a whole `MR × NR` tile of `(i, j)`: each constraint of the domain that
/// involves `i` or `j`, at the tile's worst corner.
fn whole_tiles(scop: &Scop, s: usize, [i, _, j]: [usize; 3]) -> Result<Vec<String>, String> {
    let st = &scop.statements[s];
    let params = &scop.params;
    let domain = st.domain.align_params(params);
    let [b] = domain.parts() else {
        return Err("its domain is a union of several conjunctions".to_string());
    };
    if b.n_div() > 0 {
        return Err("its domain has integer divisions".to_string());
    }
    let np = params.len();
    let mut rows: Vec<Vec<Int>> = b.ineqs().iter().map(|r| r.to_vec()).collect();
    for e in b.eqs() {
        rows.push(e.to_vec());
        rows.push(e.iter().map(|x| -x).collect());
    }
    let mut out = vec![];
    for r in &rows {
        let coef = |c: usize| r[c].to_i64();
        let it: Option<Vec<i64>> = (0..st.iterators.len()).map(|d| coef(1 + np + d)).collect();
        let (Some(it), Some(pars), Some(k0)) = (
            it,
            (0..np).map(|p| coef(1 + p)).collect::<Option<Vec<i64>>>(),
            coef(0),
        ) else {
            return Err("its domain's coefficients are too large".to_string());
        };
        if it[i] == 0 && it[j] == 0 {
            continue;
        }
        // `x >= 0` holds at every tile's first row or column when it holds at all.
        let nonzero: Vec<usize> = (0..it.len()).filter(|&d| it[d] != 0).collect();
        if let [x] = nonzero[..] {
            if (x == i || x == j) && it[x] == 1 && k0 == 0 && pars.iter().all(|&p| p == 0) {
                continue;
            }
        }
        let mut terms: Vec<(i64, String)> = pars
            .iter()
            .zip(params)
            .map(|(&a, p)| (a, p.clone()))
            .collect();
        let mut constant = k0;
        for (d, &a) in it.iter().enumerate() {
            let x = &st.iterators[d];
            let size = if d == i {
                "MR"
            } else if d == j {
                "NR"
            } else {
                terms.push((a, x.clone()));
                continue;
            };
            terms.push((a, format!("{size}*floor({x}/{size})")));
            if a < 0 {
                // The tile's last row or column: its first plus size − 1.
                terms.push((a, size.to_string()));
                constant -= a;
            }
        }
        terms.push((constant, String::new()));
        out.push(format!("{} >= 0", linear(&terms)));
    }
    Ok(out)
}

/// `a*x + b*y - c` from its terms (an empty name is the constant), zero terms left out.
pub(super) fn linear(terms: &[(i64, String)]) -> String {
    let mut out = String::new();
    for (a, x) in terms.iter().filter(|(a, _)| *a != 0) {
        let mag = a.unsigned_abs();
        let body = match (mag, x.is_empty()) {
            (_, true) => mag.to_string(),
            (1, false) => x.clone(),
            (_, false) => format!("{mag}*{x}"),
        };
        match (out.is_empty(), *a < 0) {
            (true, true) => out.push_str(&format!("-{body}")),
            (true, false) => out.push_str(&body),
            (false, true) => out.push_str(&format!(" - {body}")),
            (false, false) => out.push_str(&format!(" + {body}")),
        }
    }
    if out.is_empty() {
        "0".to_string()
    } else {
        out
    }
}

/// The block sizes of one register-block candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSizes {
    pub mr: u64,
    pub nr: u64,
    pub kc: u64,
    /// `NR` is one vector, not the model's.
    pub one_vector: bool,
}

/// The sizes to try: the machine model's register block of a product (`MR × NR`, `KC`),
/// and, when `NR` is more than one vector, the same `MR` with one vector of columns (a block
/// whose operand along `j` is gathered, as `A[j][k]` in syrk, touches one cache line per
/// column and row of `k`: fewer columns keep the panel in L1).
pub fn sizes(blis: &super::recipe::BlisSizes) -> Vec<BlockSizes> {
    let mut out = vec![BlockSizes {
        mr: blis.mr,
        nr: blis.nr,
        kc: blis.kc,
        one_vector: false,
    }];
    if blis.nr > blis.lanes && blis.lanes > 0 {
        out.push(BlockSizes {
            mr: blis.mr,
            nr: blis.lanes,
            kc: blis.kc,
            one_vector: true,
        });
    }
    out
}

/// A name for a tile loop of `x` that is none of the statement's iterators nor a parameter.
pub(super) fn fresh(x: &str, taken: &[String]) -> String {
    let mut name = format!("{x}1");
    while taken.contains(&name) {
        name.push('1');
    }
    name
}

/// The recipe's script for some statements, a comment before each step saying what it is
/// for.
/// `par`: on several threads (the tiles of rows in parallel within each panel of `k`, the
/// cut tiles' rows too).
pub fn script(bs: &[&Block], names: &Names, z: BlockSizes, par: bool) -> Vec<String> {
    let from = if z.one_vector {
        "the machine model's MR and KC for a product of doubles (`loopy machine`), NR one vector"
    } else {
        "the machine model's MR, NR and KC for a product of doubles (`loopy machine`)"
    };
    let mut out = vec![
        "# a register block of each updated array (recognised from its accesses and".to_string(),
        "# dependences): MR x NR elements of it in vector registers across the reduction loop,"
            .to_string(),
        "# on the whole tiles of its domain; the tiles the domain cuts run as written".to_string(),
        format!("# (sizes: {from})"),
        format!("param MR = {}", z.mr),
        format!("param NR = {}", z.nr),
        format!("param KC = {}", z.kc),
    ];
    for b in bs {
        let s = b.stmt;
        let h = &names.handles[s];
        let its = &names.iterators[s];
        let [i, k, j] = b.loops.map(|l| its[l].clone());
        out.push(format!("# {h}: {c}[{i}][{j}] updated along {k}", c = b.c));
        own_nest(names, s, &mut out);
        let (reg, edge) = (format!("Reg{s}"), format!("Cut{s}"));
        let tuple = its.join(", ");
        out.push(format!(
            "# whole MR x NR tiles of ({i}, {j}) inside the domain apart from the others"
        ));
        let whole = if b.whole.is_empty() {
            "0 = 0".to_string()
        } else {
            b.whole.join(" and ")
        };
        out.push(format!(
            "({reg}, {edge}) = isplit({h}, [{}] -> {{[{tuple}] : {whole}}}, 0)",
            names.params.join(", ")
        ));
        let mut taken: Vec<String> = its.clone();
        taken.extend(names.params.iter().cloned());
        let [k1, i1, j1] = [&k, &i, &j].map(|x| fresh(x, &taken));
        out.push(format!(
            "# panels of KC values of {k}, then tiles of MR rows and NR columns; {k}, {i}, {j} within"
        ));
        out.push(format!(
            "affine({reg}, {{[{tuple}] -> [{k1}, {i1}, {j1}, {k}, {i}, {j}] : {k1} = floor({k}/KC) and {i1} = floor({i}/MR) and {j1} = floor({j}/NR)}})"
        ));
        out.push(format!(
            "# the tile of {} kept in registers across {k}",
            b.c
        ));
        out.push(format!("copy({reg}, 3, {})", b.c));
        out.push("# its MR rows unrolled".to_string());
        out.push(format!("unroll({reg}, 5, MR)"));
        out.push("# its NR columns as vectors".to_string());
        out.push(format!("vectorize({reg}, 6)"));
        if par {
            out.push(format!(
                "# the tiles of rows on the threads, within each panel of {k}; the cut tiles' rows too"
            ));
            out.push(format!("parallel({reg}, 2)"));
            out.push(format!("parallel({edge}, 1)"));
        }
    }
    out
}
