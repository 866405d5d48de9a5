//! Scan: the staged items into one loop nest (`scan`, after Ancourt & Irigoin), each
//! statement's iterators recovered from θ, loops that count no iterator named afresh.

use super::ast::Node;
use super::body::identifiers;
use super::copy::Extra;
use super::place::Placed;
use super::scan::{disjoint_parts, Item};
use super::stage::Staging;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::CopyPlan;
use crate::model::Scop;
use crate::presburger::row::Row;
use crate::presburger::{Basic, Int, Set};
use std::collections::BTreeSet;

/// The loop nest of the staged items, and the names of the scanned dims' loops that count
/// no iterator.
/// The whole windows of the copies in `separate` (from `whole::candidates`) are separated
/// from the partial ones.
pub(super) fn scan(
    scop: &Scop,
    st: &Staging,
    separate: &[&(usize, Vec<Row>)],
) -> Result<(Vec<Node>, Vec<String>), Diagnostic> {
    let n_param = scop.params.len();
    let placed = &st.placed[..];
    let n_scan = placed.iter().map(|p| p.schedule.n_out()).max().unwrap_or(0);
    let fresh = fresh_names(scop, n_scan);
    let mut items = vec![];
    let mut inner_names: Vec<Vec<String>> = vec![];
    let whole = super::whole::conditions(st, n_param, n_scan, separate);
    for (id, p) in placed.iter().enumerate() {
        if p.schedule.n_out() != n_scan {
            return Err(Diagnostic::new(
                codes::INTERNAL,
                "internal error: statements' schedules have different lengths",
            ));
        }
        let set = p.schedule.inverse().wrap().simplify();
        for (group, part) in split(set, whole[id].as_deref()) {
            for b in disjoint_parts(&part) {
                items.push(Item {
                    id,
                    basic: b,
                    group,
                });
            }
        }
        inner_names.push(match st.extra(id) {
            // The C name each iterator has in the statement's text.
            None => scop.statements[p.stmt]
                .loops
                .iter()
                .map(|l| l.c_name.clone())
                .collect(),
            Some(Extra::Setup(c) | Extra::Fill(c) | Extra::WriteBack(c)) => {
                copy_names(scop, placed, &st.plans[*c], &fresh)
            }
        });
    }
    let mut ctx = Basic::universe(n_param, n_scan);
    if let [c] = scop.context.parts() {
        if c.n_div() == 0 {
            let widen = |r: &Row| {
                let mut r = r.clone();
                r.resize(1 + n_param + n_scan, Int::ZERO);
                r
            };
            ctx.extend_eqs(c.eqs().iter().map(widen));
            ctx.extend_ineqs(c.ineqs().iter().map(widen));
        }
    }
    let nodes = super::scan::scan_in(items, n_param, n_scan, inner_names, &ctx);
    if let Some(why) = undetermined(&nodes) {
        return Err(undetermined_diagnostic(&why));
    }
    let largest = super::ast::largest_constant(&nodes);
    if largest > i64::from(i32::MAX) {
        return Err(Diagnostic::new(codes::CONSTANT_TOO_LARGE, format!(
            "cannot generate code: the loops would need the constant {largest}, which does not fit the type `int` of the loop counters"
        ))
        .with_note(format!(
            "generated loop counters are `int`, whose values and constants must stay within ±{}; a schedule coefficient or offset this large (a skew, shift or scale) has no C loop for it",
            i32::MAX
        ))
        .with_help("use smaller coefficients in the script; the transformation itself may be legal (`loopy check` decides that)"));
    }
    Ok((nodes, fresh))
}

/// An item's points split by the condition that its windows are whole (rows over
/// `[1 | params | scanned dims]`): group 1 the whole ones, group 0 the rest. Unsplit (one
/// group 0) without a condition, or when one side is empty.
fn split(set: Set, whole: Option<&[Row]>) -> Vec<(u8, Set)> {
    let Some(rows) = whole else {
        return vec![(0, set)];
    };
    // Only the conditions the points do not already satisfy: the rest is then one part
    // per condition that fails, not parts that are empty for every parameter but not
    // known to be.
    let rows: Vec<Row> = rows
        .iter()
        .filter(|r| {
            let mut not: Row = r.iter().map(|v| -v).collect();
            not[0] -= &Int::ONE;
            !set.add_constraints(&[], &[not]).is_empty()
        })
        .cloned()
        .collect();
    if rows.is_empty() {
        return vec![(0, set)];
    }
    let inside = set.add_constraints(&[], &rows).simplify();
    let rest = set.subtract(&inside);
    if inside.is_empty() || rest.is_empty() {
        return vec![(0, set)];
    }
    vec![(1, inside), (0, rest)]
}

/// The refusal of a schedule some of whose iterators the scan cannot express (`why` says
/// which); `generate_state` and `loopy check` give the same.
pub fn undetermined_diagnostic(why: &str) -> Diagnostic {
    Diagnostic::new(codes::ITERATOR_NOT_DETERMINED, format!("cannot generate code: {why}")).with_note(
        "the code generator takes each iterator from the schedule's equalities, from a pair of bounds through its floors and mods, or from its parametric lexicographic minimum, and none gave this one; a schedule that is not one-to-one has no such value",
    )
}

/// Fresh names of the scanned dims (loops counting no iterator): `c<k>`, avoiding every
/// identifier the statements use.
fn fresh_names(scop: &Scop, n_scan: usize) -> Vec<String> {
    let mut reserved: BTreeSet<String> = scop.params.iter().cloned().collect();
    for s in &scop.statements {
        reserved.extend(identifiers(&s.text));
        reserved.extend(s.loops.iter().map(|l| l.c_name.clone()));
    }
    (0..n_scan)
        .map(|k| {
            let mut n = format!("c{k}");
            while reserved.contains(&n) {
                n.push('_');
            }
            n
        })
        .collect()
}

/// The names of a copy's item's iterators: the outer loops keep the name the staged
/// statements give them; element loops get the fresh name of their dim.
fn copy_names(scop: &Scop, placed: &[Placed], plan: &CopyPlan, fresh: &[String]) -> Vec<String> {
    let k = plan.mark.outer;
    let mut names: Vec<String> = (0..k)
        .map(|d| outer_name(scop, placed, plan, d).unwrap_or_else(|| fresh[2 * d + 1].clone()))
        .collect();
    names.extend((0..plan.rank).map(|d| fresh[2 * (k + d) + 1].clone()));
    names
}

/// The first iterator the scan could not express, if any.
fn undetermined(nodes: &[Node]) -> Option<String> {
    use super::ast::Expr;
    super::ast::find_map(nodes, &mut |n| match n {
        Node::Stmt { args, .. } | Node::Text { args, .. } => args.iter().find_map(|a| match a {
            Expr::Comment(c) => Some(c.clone()),
            _ => None,
        }),
        Node::Comment(c) => Some(c.clone()),
        _ => None,
    })
}

/// The C name the staged statements' loop at iteration dim `d` counts, when every staged
/// piece's schedule has that dim equal to one of its iterators with one name.
fn outer_name(scop: &Scop, placed: &[Placed], plan: &CopyPlan, d: usize) -> Option<String> {
    let mut name: Option<String> = None;
    for &i in &plan.members {
        let p = &placed[i];
        let st = &scop.statements[p.stmt];
        let w = p.schedule.wrap();
        let ni = p.schedule.n_in();
        let np = w.space().n_param();
        let width = 1 + np + ni + p.schedule.n_out();
        let found = (0..ni).find(|&x| {
            let mut r = vec![crate::presburger::Int::ZERO; width];
            r[1 + np + x] = crate::presburger::Int::ONE;
            r[1 + np + ni + 2 * d + 1] = crate::presburger::Int::from(-1);
            let mut above = r.clone();
            above[0] = crate::presburger::Int::from(-1);
            let mut below: Vec<_> = r.iter().map(|v| -v.clone()).collect();
            below[0] = crate::presburger::Int::from(-1);
            w.add_constraints(&[], &[above]).is_empty()
                && w.add_constraints(&[], &[below]).is_empty()
        })?;
        let n = st.loops.get(found)?.c_name.clone();
        match &name {
            None => name = Some(n),
            Some(m) if *m == n => {}
            Some(_) => return None,
        }
    }
    name
}
