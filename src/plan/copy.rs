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

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::{
    corner, parametric_extent, width, BufDim, CopyPlan, Corner, Extent, NoExtent, PARAMETRIC_BUDGET,
};
use crate::model::state::{outer_of, CopyMark, State, StateAccess};
use crate::presburger::{budget, Int, Map, Space, Tuple};

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
fn refuse(mark: &CopyMark, msg: String, label: &str) -> Diagnostic {
    Diagnostic::new(codes::STORAGE_REFUSED, msg).with_label(
        &mark.origin.source,
        mark.origin.span.clone(),
        label,
    )
}

/// Plans every copy of the pieces of `st` ([`plan`]) and keeps the plans in
/// [`State::copy_plans`]; or returns the first copy that cannot be planned, the state
/// unchanged.
pub fn plan_copies(st: &mut State) -> Result<(), Diagnostic> {
    st.copy_plans = plan(st)?;
    Ok(())
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
    implicit_factors(st, &mut out);
    nest(&mut out)?;
    for plan in &out {
        storage_copy(st, plan)?;
    }
    Ok(out)
}

/// A copy of an expansion's storage, planned on the expanded program, is generated in the
/// storage's coordinates (`codegen::expand::storage_plans`): counted from the storage's
/// lower corner, which must be an affine expression of the parameters, and without the
/// loops a `contract` gave back (one element of the storage serves every iteration of
/// those loops). Each window must then hold one iteration of every loop given back (the
/// box one element wide along its dimension), so that the buffer's element is the
/// storage's element. The verifier checks the copy on the expanded program and the
/// contraction on the statements; with one iteration of the loops given back per window,
/// moving the storage's reads to the fill and its writes to the write-back stays inside
/// the interval the contraction check covers.
fn storage_copy(st: &State, plan: &CopyPlan) -> Result<(), Diagnostic> {
    let Some(e) = (st.expansions.iter()).find(|e| e.name == plan.mark.array) else {
        return Ok(());
    };
    // The storage is indexed from its lower corner: the copy is shifted by it, which must
    // be an affine expression of the parameters.
    let affine = |c: &crate::model::copy::Corner| {
        let np = c.basic.n_param();
        (np + 1..c.row.len()).all(|i| c.row[i].is_zero())
    };
    if !e.lower.iter().all(affine) {
        return Err(refuse(
            &plan.mark,
            format!(
                "the storage `{}` starts at a corner that is not an affine expression of the parameters: its copy cannot be placed",
                e.name
            ),
            "copied here",
        ));
    }
    for (l, origin) in &e.given_back {
        if plan.size.get(*l).is_some_and(Int::is_one) {
            continue;
        }
        return Err(refuse(
            &plan.mark,
            format!(
                "a window of this copy of `{}` holds several iterations of loop {} of its expansion, which `contract` gave back: the storage has one element for all of them",
                plan.c_name,
                l + 1
            ),
            "copied here",
        )
        .with_label(&origin.source, origin.span.clone(), "given back here")
        .with_help("copy inside that loop (a larger `k`), or do not give it back"));
    }
    Ok(())
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
            // Copies whose buffers are not plain images of the array's elements share
            // their window with no other copy of the array.
            let alone = [
                (a.mark.written_only || b.mark.written_only).then_some((
                    "a `copy_written`",
                    "a `copy_written` buffer holds only the written elements, and its statements read the others from the array itself: no other copy of the array may run inside it or around it",
                )),
                (a.mark.scale.is_some() || b.mark.scale.is_some()).then_some((
                    "a scaled copy",
                    "a scaled copy's buffer holds products, not the array's elements: no other copy of the array may run inside it or around it",
                )),
            ];
            if let Some((what, note)) = alone.into_iter().flatten().next() {
                if i < j {
                    return Err(both(
                        a,
                        b,
                        format!(
                            "{what} of `{}` shares its window with another copy of `{}`",
                            b.c_name, b.c_name
                        ),
                        note,
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

/// A plain copy of an array the region never writes, the only copy of it, whose staged
/// statements read it only in products with one scalar the region never writes (`alpha *
/// A[i][k]`), holds those products: what `copy_scaled` with that scalar does. The buffer's
/// element is the product C computes first in the expression, bit for bit, and the
/// multiply leaves the statements' inner loops for the fill. A box small enough to become
/// a register block keeps the elements (a register block holds no products).
fn implicit_factors(st: &State, plans: &mut [CopyPlan]) {
    let written = |name: &str| st.accesses.iter().any(|a| a.write && a.array == name);
    for i in 0..plans.len() {
        let p = &plans[i];
        let alone = plans
            .iter()
            .filter(|q| q.mark.array == p.mark.array)
            .count()
            == 1;
        if p.mark.scale.is_some()
            || !alone
            || written(&p.mark.array)
            || p.register_sized().is_some()
        {
            continue;
        }
        let scalars = (st.arrays.iter()).filter(|a| a.2 == 0 && !a.3 && !written(&a.0));
        let factor = scalars
            .into_iter()
            .find_map(|a| scaled_statements(st, &p.mark, &p.members, &p.c_name, p.rank, &a.0).ok());
        plans[i].factor = factor;
    }
}

/// Checks the staged statements of a scaled copy of `A` (C name `c_name`) by `factor` (a
/// model name): each reads `A` only in products with the factor (`alpha * A[i][k]`), the
/// spans the code generator replaces by the buffer's elements
/// ([`crate::model::text::scaled_product`]). Returns the factor's C name.
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
        let why = match crate::model::text::accesses(text, c_name, rank) {
            Err(e) => Some(e),
            Ok(accs) => accs
                .iter()
                .find(|a| crate::model::text::scaled_product(text, a, factor_c).is_none())
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
    let written = footprint(st, &members, &mark.array, k, rank, true);
    let fp = if mark.written_only {
        written_accesses(st, &mark, &members, &c_name, &written)?;
        written.clone()
    } else {
        footprint(st, &members, &mark.array, k, rank, false)
    };
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

/// `copy_written`: the accesses of each staged statement written as its write is (the same
/// subscripts, token for token: the code generator rewrites exactly those) use the buffer,
/// its other accesses the array; the verifier checks that those touch no element the
/// staged pieces write in the same window (`verify::copies`), which it finds by the
/// accesses' relations: a relation equal to the write's is taken for a buffered access.
/// So the text must agree: refused where a statement writes the array at two places or
/// not at the start of its text, where an access is not exact, and where it reads its
/// write's element through other subscripts (`A[i][j + 0]`), which the text would send to
/// the array.
fn written_accesses(
    st: &State,
    mark: &CopyMark,
    members: &[usize],
    c_name: &str,
    written: &Map,
) -> Result<(), Diagnostic> {
    let rank = written.n_out();
    let no = |what: String| {
        refuse(mark, what, "copied here").with_note(
            "`copy_written` holds the elements the statements write in the buffer and reads the others from the array: each statement's accesses written as its write use the buffer, and every other access must touch no written element",
        )
    };
    for &i in members {
        let p = &st.pieces[i];
        let name = &st.stmt_names[p.stmt];
        let accs: Vec<&StateAccess> = (st.accesses.iter())
            .filter(|a| a.stmt == p.stmt && a.array == mark.array)
            .collect();
        let writes: Vec<&&StateAccess> = accs.iter().filter(|a| a.write).collect();
        if writes.len() > 1 {
            return Err(no(format!(
                "statement {name} writes `{c_name}` at more than one place"
            )));
        }
        if accs.iter().any(|a| !a.exact) {
            return Err(no(format!(
                "statement {name} accesses `{c_name}` at subscripts that are not affine"
            )));
        }
        let text = st.texts.get(p.stmt).map(String::as_str).unwrap_or("");
        let found = crate::model::text::accesses(text, c_name, rank)
            .map_err(|why| no(format!("statement {name}: {why}")))?;
        // How many reads the text makes at the write's own subscripts: the others written
        // as the write is, and the write itself when it is a compound assignment.
        let expected = match writes.first() {
            None => 0,
            Some(_) => {
                let squash = |v: &[String]| -> Vec<String> {
                    v.iter()
                        .map(|s| s.chars().filter(|c| !c.is_whitespace()).collect())
                        .collect()
                };
                let lhs = found
                    .first()
                    .filter(|a| text[..a.span.start].trim().is_empty());
                let after = lhs.map(|a| text[a.span.end..].trim_start()).unwrap_or("");
                let compound = ["+=", "-=", "*=", "/="]
                    .iter()
                    .any(|o| after.starts_with(o));
                let Some(lhs) = lhs.filter(|_| compound || after.starts_with('=')) else {
                    return Err(no(format!(
                        "statement {name} does not begin with its write of `{c_name}`"
                    )));
                };
                let own = squash(&lhs.subs);
                let same = found[1..].iter().filter(|a| squash(&a.subs) == own).count();
                same + usize::from(compound)
            }
        };
        let equal = accs
            .iter()
            .filter(|a| {
                !a.write
                    && writes
                        .first()
                        .is_some_and(|w| w.relation.is_equal(&a.relation))
            })
            .count();
        if equal != expected {
            return Err(no(format!(
                "statement {name} reads the element it writes through other subscripts"
            )));
        }
    }
    Ok(())
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
