//! Whole windows: a copy that may live in registers, its windows where the footprint fills
//! the box separated from the partial ones, so that the scan gives the whole ones loops of
//! their own (with constant trip counts, where the register form applies).
//!
//! A register block needs its window's fill to cover the whole box with loops of constant
//! trip count (`registers::whole_box`). A script that tiles without splitting off the
//! partial tiles (`isplit`) has one loop over whole and partial windows alike, whose bounds
//! are `min`s: no window qualifies. As isl's AST builder does with its "separate" option,
//! the generator splits the staged statements themselves by whether their window is whole,
//! `W = dom F \ dom(Box \ F)` for the footprint `F(t)` and the box `Box(t)` (the corners
//! and constant extents of the plan). Both halves keep their schedule, so the instances run
//! in the same order: this only separates one loop into two ranges, which the scan already
//! does for items whose ranges differ.

use super::registers::block_sizes;
use super::stage::Staging;
use crate::model::copy::CopyPlan;
use crate::presburger::row::Row;
use crate::presburger::{budget, Basic, Int, Map, Set};

/// The copies that may become register blocks and whose windows are whole for some outer
/// iterations and partial for others, innermost window first, each with the condition
/// that its window is whole (inequalities over `[1 | params | t]`).
pub(super) fn candidates(st: &Staging, n_param: usize) -> Vec<(usize, Vec<Row>)> {
    let mut out: Vec<(usize, Vec<Row>)> = (0..st.plans.len())
        .filter(|&c| block_sizes(&st.plans, c).is_some())
        .filter_map(|c| Some((c, whole_windows(&st.plans[c], n_param)?)))
        .collect();
    out.sort_by_key(|(c, _)| std::cmp::Reverse(st.plans[*c].mark.outer));
    out
}

/// Per scan item: the condition, over `[1 | params | scanned dims]`, that its windows of
/// every copy `chosen` are whole (from [`candidates`]), for the statement items those
/// copies stage; `None` for the others.
pub(super) fn conditions(
    st: &Staging,
    n_param: usize,
    n_scan: usize,
    chosen: &[&(usize, Vec<Row>)],
) -> Vec<Option<Vec<Row>>> {
    let mut out: Vec<Option<Vec<Row>>> = vec![None; st.placed.len()];
    for (c, rows) in chosen {
        let plan = &st.plans[*c];
        let k = plan.mark.outer;
        // Columns [1 | params | t] to [1 | params | scanned dims]: `t_j` is dim `2j + 1`.
        let lift = |r: &Row| {
            let mut x = vec![Int::ZERO; 1 + n_param + n_scan];
            x[..=n_param].clone_from_slice(&r[..=n_param]);
            for j in 0..k {
                x[1 + n_param + 2 * j + 1] = r[1 + n_param + j].clone();
            }
            x
        };
        for &m in &plan.members {
            if m < st.n_stmt {
                out[m]
                    .get_or_insert_with(Vec::new)
                    .extend(rows.iter().map(lift));
            }
        }
    }
    out
}

/// The windows of `plan` whose footprint is its whole box, as inequalities over
/// `[1 | params | t]` without locals, when some windows are whole and some are not and the
/// condition is such a conjunction; `None` otherwise (nothing to separate).
fn whole_windows(plan: &CopyPlan, n_param: usize) -> Option<Vec<Row>> {
    let f = &plan.footprint;
    let (k, r) = (f.n_in(), f.n_out());
    if f.space().n_param() != n_param || plan.lower.len() != r || plan.size.len() != r {
        return None;
    }
    let boxed = box_of(plan, n_param, k, r)?;
    let domain = f.try_domain().ok()?;
    let boxes = Map::from_set(&Set::from_basic(f.wrap().space().clone(), boxed), k)
        .try_intersect_domain(&domain)
        .ok()?;
    let partial = boxes.try_subtract(f).ok()?.try_domain().ok()?;
    if partial.try_is_empty().ok()? {
        return None;
    }
    let whole = domain.try_subtract(&partial).ok()?.try_coalesce().ok()?;
    if budget::spent() || whole.try_is_empty().ok()? {
        return None;
    }
    let [b] = whole.parts() else { return None };
    if b.n_div() > 0 {
        return None;
    }
    let mut rows: Vec<Row> = b.ineqs().to_vec();
    for e in b.eqs() {
        rows.push(e.clone());
        rows.push(e.iter().map(|v| -v).collect());
    }
    Some(rows)
}

/// `{ [t, x] : lower(t) <= x < lower(t) + size }` over the wrapped space of the footprint
/// (`k` outer values, `r` box dimensions), the corners' floors as locals; `None` when a
/// corner is not an expression of the parameters and `t` with known floors.
fn box_of(plan: &CopyPlan, n_param: usize, k: usize, r: usize) -> Option<Basic> {
    let mut b = Basic::universe(n_param, k + r);
    for (d, corner) in plan.lower.iter().enumerate() {
        let cb = &corner.basic;
        if cb.n_param() != n_param || cb.n_dim() != k + 1 {
            return None;
        }
        let e_col = 1 + n_param + k;
        // Where each of the corner's columns goes in `b` (its own `e` nowhere).
        let mut to: Vec<Option<usize>> =
            (0..cb.width()).map(|c| (c < e_col).then_some(c)).collect();
        let translate = |row: &Row, to: &[Option<usize>], width: usize| -> Option<Row> {
            let mut x = vec![Int::ZERO; width];
            for (c, v) in row.iter().enumerate() {
                if !v.is_zero() {
                    x[(*to.get(c)?)?] += v;
                }
            }
            Some(x)
        };
        for (i, div) in cb.divs().iter().enumerate() {
            let div = div.as_ref()?;
            let num = translate(div.num(), &to, b.width())?;
            to[cb.col_div(i)] = Some(b.add_div(num, div.den().clone()));
        }
        let lower = translate(&corner.row, &to, b.width())?;
        let x = 1 + n_param + k + d;
        let mut above: Row = lower.iter().map(|v| -v).collect();
        above[x] += &Int::ONE;
        let mut below = lower;
        below[x] -= &Int::ONE;
        below[0] += &(&plan.size[d] - &Int::ONE);
        b.add_ineq(above);
        b.add_ineq(below);
    }
    Some(b)
}
