//! The BLIS recipe: contraction statements recognised from their dependences and accesses,
//! and the script that blocks each one as BLIS does, with the standard library's
//! `gemm_block` (or `gemm_block_scaled`) and the machine model's sizes.
//!
//! A *contraction* is a statement of three loops that updates an element of a 2-d array
//! with `+` (`C[i][j] += A[i][k] * B[k][j]`, `-=` included) and reads two other 2-d arrays:
//! the loop the updated element does not depend on is the reduction loop `k`; one operand
//! is invariant in one of the other two loops (`A[i][k]`, invariant in `j`), the other in
//! the other (`B[k][j]`, invariant in `i`). Names play no part. Its loops can be reordered
//! when every dependence of the statement on itself is between the update's own accesses
//! (the reduction, which any order of the loops keeps up to reassociation, as a tiling
//! does); the verifier judges the whole script anyway, as for every candidate.

use super::script::Names;
use crate::model::Scop;
use crate::verify::{marks::update_access, Dependence, Program};

/// The block sizes of the recipe (the machine model's `MR`, `NR`, `KC`, `MC`, `NC`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlisSizes {
    pub mr: u64,
    pub nr: u64,
    pub kc: u64,
    pub mc: u64,
    pub nc: u64,
    /// Elements of a double per vector register (`NVEC`).
    pub lanes: u64,
    /// L_FMA: the multiply-add's latency in cycles.
    pub latency: u64,
    /// N_FMA: the multiply-adds issued per cycle.
    pub issue: u64,
    /// Where they come from, for the report.
    pub from: String,
}

/// The machine model's block sizes for doubles (`loopy machine`), or why they are unknown.
pub fn machine_sizes(machine: Result<&crate::machine::Machine, &str>) -> Result<BlisSizes, String> {
    let m = machine.map_err(|e| format!("the compiler could not be asked: {e}"))?;
    let model = m.model();
    let v = |n: &str| match model.explain(n) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(format!("the machine model has no {n}: {e}")),
        None => Err(format!("the machine model has no {n}")),
    };
    let (nr, kc, nc) = (v("NR")?, v("KC")?, v("NC")?);
    // The model lowers NC so that the packed KC x NC panel of B fits one copy buffer.
    let from = match model.double.nc.as_ref().ok().and_then(|n| n.from_l3) {
        Some(l3) => format!("the machine model's for doubles, `loopy machine`; NC {l3} lowered to {nc} so that a KC x NC panel fits a copy buffer"),
        None => "the machine model's for doubles, `loopy machine`".to_string(),
    };
    Ok(BlisSizes {
        mr: v("MR")?,
        nr,
        kc,
        mc: v("MC")?,
        nc,
        lanes: v("NVEC")?,
        latency: u64::from(model.double.inputs.pipeline.fma_latency),
        issue: u64::from(model.double.inputs.pipeline.fma_per_cycle),
        from,
    })
}

/// A statement recognised as a contraction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contraction {
    pub stmt: usize,
    /// The statement's iterator indices of the row loop `i`, the reduction `k` and the
    /// column loop `j`.
    pub loops: [usize; 3],
    /// C names of the operands `A[i][k]`, `B[k][j]` and of the updated `C[i][j]`.
    pub a: String,
    pub b: String,
    pub c: String,
    /// A scalar the statement multiplies by that the kernel never writes (`alpha`).
    pub scale: Option<String>,
    /// The parameters the row and column loops run up to (`0 <= i < ni`).
    pub extents: [String; 2],
}

/// One statement's verdict: recognised, or why the recipe does not apply to it (only for
/// statements that update an element with `+` in three loops: those that look like one).
pub type Recognised = Result<Contraction, (usize, String)>;

/// The subscripts' coefficients of an access over the statement's iterators and whether it
/// has constants or parameters; `None` when it is not affine.
pub(super) fn subscripts(
    scop: &Scop,
    s: usize,
    a: &crate::model::Access,
) -> Option<Vec<(Vec<i64>, bool)>> {
    let st = &scop.statements[s];
    if !a.exact {
        return None;
    }
    let rows = super::space::affine_rows(&a.relation, &scop.params)?;
    let n = st.iterators.len();
    rows.iter()
        .map(|r| {
            let it: Option<Vec<i64>> = r[..n].iter().map(|x| x.to_i64()).collect();
            Some((it?, r[n..].iter().any(|x| !x.is_zero())))
        })
        .collect()
}

/// The iterator a subscript is, when it is exactly one iterator (coefficient 1, nothing
/// added).
pub(super) fn single(sub: &(Vec<i64>, bool)) -> Option<usize> {
    let (it, other) = sub;
    let nz: Vec<usize> = (0..it.len()).filter(|&k| it[k] != 0).collect();
    match nz[..] {
        [k] if it[k] == 1 && !other => Some(k),
        _ => None,
    }
}

/// Every statement that looks like a contraction (a `+` update in three loops), with its
/// verdict.
pub fn contractions(scop: &Scop, program: &Program, deps: &[Dependence]) -> Vec<Recognised> {
    let mut out = vec![];
    for (s, st) in scop.statements.iter().enumerate() {
        let add = crate::model::state::RedOp::Add;
        match &st.update {
            Some(u) if u.op == add && st.iterators.len() == 3 => {}
            _ => continue,
        }
        out.push(recognise(scop, program, deps, s).map_err(|why| (s, why)));
    }
    out
}

/// The shape both recipes start from: the iterator indices `[i, k, j]` of a `+` update of
/// `C[i][j]` in three loops whose instances depend on each other only through the reduction
/// (so that its loops can be reordered), or why it is not one.
pub(super) fn update_shape(
    scop: &Scop,
    program: &Program,
    deps: &[Dependence],
    s: usize,
) -> Result<[usize; 3], String> {
    let st = &scop.statements[s];
    let u = st.update.as_ref().expect("an update");
    let name = |a: &str| scop.array(a).map_or(a.to_string(), |x| x.c_name.clone());
    let w = (st.accesses.iter())
        .find(|a| a.kind == crate::model::AccessKind::Write)
        .expect("an update writes");
    let cs = subscripts(scop, s, w).ok_or("the updated element's subscripts are not affine")?;
    let not_2d = || {
        format!(
            "the updated `{}` is not a 2-d array subscripted by two loops",
            name(&u.array)
        )
    };
    let (Some(i), Some(j)) = (cs.first().and_then(single), cs.get(1).and_then(single)) else {
        return Err(not_2d());
    };
    if cs.len() != 2 || i == j {
        return Err(not_2d());
    }
    let k = 3 - i - j;
    // Reordering the loops: every dependence of the statement on itself must be the
    // reduction's (between the update's own accesses).
    let add = crate::model::state::RedOp::Add;
    if let Some(d) = deps.iter().find(|d| {
        d.source == s
            && d.sink == s
            && !(update_access(program, d.source_access, add)
                && update_access(program, d.sink_access, add))
    }) {
        return Err(format!(
            "{} {} dependence of the statement on itself through `{}` is not the reduction's, and forbids reordering its loops",
            if d.kind == crate::verify::DepKind::Flow { "a" } else { "an" },
            d.kind.name(),
            name(&d.array)
        ));
    }
    Ok([i, k, j])
}

/// The iterator indices `[i, k, j]` and operands of a `+` update in three loops, or why it
/// is not a contraction.
fn recognise(
    scop: &Scop,
    program: &Program,
    deps: &[Dependence],
    s: usize,
) -> Result<Contraction, String> {
    let st = &scop.statements[s];
    let u = st.update.as_ref().expect("an update");
    let name = |a: &str| scop.array(a).map_or(a.to_string(), |x| x.c_name.clone());
    let written = |a: &str| {
        (scop.statements.iter()).any(|t| {
            t.accesses
                .iter()
                .any(|x| x.array == a && x.kind == crate::model::AccessKind::Write)
        })
    };
    let [i, k, j] = update_shape(scop, program, deps, s)?;
    let mut a = None;
    let mut b = None;
    let mut scale = None;
    for x in st.accesses.iter().filter(|x| x.array != u.array) {
        let arr = name(&x.array);
        let sub = subscripts(scop, s, x).ok_or(format!("`{arr}`'s subscripts are not affine"))?;
        if sub.is_empty() && !written(&x.array) && scale.is_none() {
            scale = Some(arr);
            continue;
        }
        let loops: Vec<Option<usize>> = sub.iter().map(single).collect();
        match loops[..] {
            [Some(r), Some(c)] if (r, c) == (i, k) && a.is_none() => a = Some(arr),
            [Some(r), Some(c)] if (r, c) == (k, j) && b.is_none() => b = Some(arr),
            _ => {
                let varies: Vec<usize> = (0..3)
                    .filter(|&l| sub.iter().any(|(it, _)| it[l] != 0))
                    .collect();
                return Err(if varies.len() == 3 {
                    format!("the operand `{arr}` varies in every loop")
                } else {
                    format!(
                        "the operand `{arr}` is not read as `{arr}[i][k]` or `{arr}[k][j]` (rows of the updated array by the reduction, or the reduction by its columns)"
                    )
                });
            }
        }
    }
    let (Some(a), Some(b)) = (a, b) else {
        return Err(format!(
            "`{}` is not updated by the product of an `A[i][k]` and a `B[k][j]`",
            name(&u.array)
        ));
    };
    if a == b {
        return Err(format!("both operands are the one array `{a}`"));
    }
    let extents = box_extents(scop, s, [i, k, j])
        .ok_or("its domain is not a box `0 <= i < n` of parameters in each loop")?;
    Ok(Contraction {
        stmt: s,
        loops: [i, k, j],
        a,
        b,
        c: name(&u.array),
        scale,
        extents,
    })
}

/// The parameters `[ni, nj]` when the statement's domain is `0 <= x < p` in each of its
/// loops (`loops` = `[i, k, j]`), each `p` a parameter.
fn box_extents(scop: &Scop, s: usize, loops: [usize; 3]) -> Option<[String; 2]> {
    let st = &scop.statements[s];
    let params = &scop.params;
    let dims = &st.iterators;
    let head = format!("[{}] -> {{ [{}] : ", params.join(", "), dims.join(", "));
    let mut ext: Vec<String> = vec![String::new(); 3];
    for (slot, &l) in loops.iter().enumerate() {
        // A necessary condition per loop: the domain lies in `0 <= x < p`.
        let found = params.iter().find(|p| {
            let text = format!("{head}0 <= {} < {p} }}", dims[l]);
            crate::presburger::parse_set(&text, params).is_ok_and(|bx| {
                st.domain
                    .is_subset(&bx.with_tuple(st.domain.tuple().clone()))
            })
        })?;
        ext[slot] = found.clone();
    }
    let text = format!(
        "{head}0 <= {} < {} and 0 <= {} < {} and 0 <= {} < {} }}",
        dims[loops[0]], ext[0], dims[loops[1]], ext[1], dims[loops[2]], ext[2]
    );
    let bx = crate::presburger::parse_set(&text, params)
        .ok()?
        .with_tuple(st.domain.tuple().clone());
    st.domain
        .is_equal(&bx)
        .then(|| [ext[0].clone(), ext[2].clone()])
}

pub(super) use super::script::shared;

/// Gives statement `s` a nest of its own: the statements it shares loops with in the kernel
/// leave them (a blocking reorders all its loops). Adds nothing a line of `out` already says.
pub(super) fn own_nest(names: &Names, s: usize, out: &mut Vec<String>) {
    let h = &names.handles[s];
    let n = names.handles.len();
    let mut say = |why: String, line: String| {
        if !out.contains(&line) {
            out.push(why);
            out.push(line);
        }
    };
    if s > 0 && shared(names, s - 1, s) > 0 {
        say(
            format!("# give {h} a nest of its own (the blocking reorders all its loops)"),
            format!("realign({}, {h}, 0)", names.handles[s - 1]),
        );
    }
    if s + 1 < n && shared(names, s, s + 1) > 0 {
        say(
            "# and the statement after it leaves its loops".to_string(),
            format!("realign({h}, {}, 0)", names.handles[s + 1]),
        );
    }
}

/// The `MC` of a blocking whose `MC`-row blocks run on `threads` threads: at most the
/// model's, and small enough that a product of [`super::cost::NOMINAL`] rows has at least
/// four blocks per thread (the last, partial block then costs a thread at most a quarter of
/// its share), a multiple of `MR`.
pub fn mc_on_threads(sizes: &BlisSizes, threads: u64) -> u64 {
    let rows = super::cost::NOMINAL as u64 / (4 * threads.max(1));
    let mc = (rows / sizes.mr.max(1)).max(1) * sizes.mr;
    mc.min(sizes.mc)
}

/// The recipe's script for some contractions, a comment before each step saying what it is
/// for; on `threads` threads when there are more than one (the standard library's `_par`
/// blockings with [`mc_on_threads`], the edges' rows in parallel).
pub fn script(cs: &[&Contraction], names: &Names, sizes: &BlisSizes, threads: u64) -> Vec<String> {
    let par = threads > 1;
    let par_suffix = if par { "_par" } else { "" };
    let mc = if par {
        mc_on_threads(sizes, threads)
    } else {
        sizes.mc
    };
    let mut out = vec![
        "# BLIS's blocking of each contraction (recognised from its accesses and dependences),"
            .to_string(),
        "# MR x NR: the block of the result in registers; KC x NC: a packed panel of the right"
            .to_string(),
        "# operand; MC x KC: a packed block of the left one".to_string(),
        format!("# (sizes: {})", sizes.from),
    ];
    if mc != sizes.mc {
        out.push(format!(
            "# (MC lowered from {} so that {} rows make at least four blocks per thread)",
            sizes.mc,
            super::cost::NOMINAL
        ));
    }
    for (p, v) in [
        ("MR", sizes.mr),
        ("NR", sizes.nr),
        ("KC", sizes.kc),
        ("MC", mc),
        ("NC", sizes.nc),
    ] {
        out.push(format!("param {p} = {v}"));
    }
    for c in cs {
        let s = c.stmt;
        let h = &names.handles[s];
        let it = &names.iterators[s];
        let times = c
            .scale
            .as_ref()
            .map_or(String::new(), |s| format!("{s} * "));
        out.push(format!(
            "# {h}: {}[{i}][{j}] += {times}{}[{i}][{k}] * {}[{k}][{j}]",
            c.c,
            c.a,
            c.b,
            i = it[c.loops[0]],
            k = it[c.loops[1]],
            j = it[c.loops[2]]
        ));
        own_nest(names, s, &mut out);
        if c.loops != [0, 1, 2] {
            out.push(format!(
                "# loops in the order row, reduction, column ({}, {}, {}) that the blocking starts from",
                it[c.loops[0]], it[c.loops[1]], it[c.loops[2]]
            ));
            out.push(format!(
                "permute({h}, [{}, {}, {}])",
                c.loops[0] + 1,
                c.loops[1] + 1,
                c.loops[2] + 1
            ));
        }
        let (full, rest) = (format!("Blis{s}"), format!("Edge{s}"));
        out.push(
            "# whole MR x NR micro-tiles apart from the edges, which run as written".to_string(),
        );
        // A square product's two extents are one parameter, named once.
        let [ni, nj] = &c.extents;
        let space = if ni == nj {
            format!("[{ni}]")
        } else {
            format!("[{ni}, {nj}]")
        };
        out.push(format!(
            "({full}, {rest}) = isplit({h}, {space} -> {{[i, k, j] : i < MR*floor({ni}/MR) and j < NR*floor({nj}/NR)}}, 0)"
        ));
        match &c.scale {
            Some(sc) => {
                out.push(format!(
                    "# panels of {} and blocks of {} (packed times {sc}), the block of {} in registers",
                    c.b, c.a, c.c
                ));
                out.push(format!(
                    "gemm_block_scaled{par_suffix}({full}, {}, {sc}, {}, {}, MR, NR, KC, MC, NC)",
                    c.a, c.b, c.c
                ));
            }
            None => {
                out.push(format!(
                    "# panels of {} and blocks of {} packed, the block of {} in registers",
                    c.b, c.a, c.c
                ));
                out.push(format!(
                    "gemm_block{par_suffix}({full}, {}, {}, {}, MR, NR, KC, MC, NC)",
                    c.a, c.b, c.c
                ));
            }
        }
        if par {
            out.push("# the MC-row blocks ran on the threads; the edges' rows do too".to_string());
            out.push(format!("parallel({rest}, 1)"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(mr: u64, mc: u64) -> BlisSizes {
        BlisSizes {
            mr,
            nr: 16,
            kc: 109,
            mc,
            nc: 9616,
            lanes: 8,
            latency: 4,
            issue: 2,
            from: String::new(),
        }
    }

    /// On threads, MC makes at least four blocks per thread of 1000 rows, a multiple of MR,
    /// never more than the model's.
    #[test]
    fn mc_on_threads_balances_the_row_blocks() {
        assert_eq!(mc_on_threads(&sizes(14, 896), 2), 112);
        assert_eq!(mc_on_threads(&sizes(6, 72), 2), 72);
        assert_eq!(mc_on_threads(&sizes(14, 896), 16), 14);
        assert_eq!(mc_on_threads(&sizes(14, 896), 100), 14);
        for t in 2..9 {
            let mc = mc_on_threads(&sizes(14, 896), t);
            assert_eq!(mc % 14, 0);
            assert!(1000 / mc >= 4 * t || mc == 14, "{t} threads: {mc}");
        }
    }
}
