//! The triangular jam recipe: a row loop `i` whose first inner loop `j` (its columns
//! bounded by the row, `j < i`) holds a chain in a third loop `k` — a statement updating an
//! element whose subscripts use the row and the column, not `k` (cholesky's
//! `A[i][j] -= A[i][k] * A[j][k]`) — and, after `k`, at most one statement writing the same
//! element (its division by the diagonal). Such a chain is a sequence of dependent updates
//! the compiler may not reorder; the rows of a strip of `U` rows have the columns left of
//! the strip in common, so for those the strip's `U` chains of a column run side by side
//! (`k` outside the `U` rows, unrolled), each element updated in its own order, its `U`
//! entries held in registers across `k` (`copy_written`: the other elements the chain reads
//! come from the array). The columns inside the strip and the rest of each row run row by
//! row as written, and so do the first strip and the last partial one.
//!
//! Recognised from the accesses and the domains, not from names; the verifier judges each
//! script, as for every candidate (a chain whose rows read each other's columns makes the
//! reordering illegal, and the candidate is skipped).

use super::blocks::fresh;
use super::jam::{
    constraints, row_bounds_in, set_constraints, strip_columns, strip_of, whole_strips,
};
use super::script::Names;
use crate::model::{AccessKind, Scop};

/// A nest the recipe applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriJam {
    /// The chain: three loops `(i, j, k)`.
    pub chain: usize,
    /// The statement after `k` in the column loop writing the chain's element, if any.
    pub after: Option<usize>,
    /// The element's array (its name in the model).
    pub array: String,
    /// The row loop's first row `[constant, parameters…]` and upper bounds
    /// `[constant, parameters…, a]` (`a*i + g >= 0`, `a < 0`).
    pub first: Vec<i64>,
    pub upper: Vec<Vec<i64>>,
    /// The chain's constraints coupling the row and the column, `[constant, parameters…,
    /// a, c]` (`a*i + c*j + g >= 0`, `c < 0`).
    pub coupling: Vec<Vec<i64>>,
}

/// One nest's verdict: recognised, or why not (with its chain statement).
pub type Found = Result<TriJam, (usize, String)>;

/// The recipe's verdict on each statement three loops deep that updates an element whose
/// subscripts do not use its innermost loop, in a domain where the columns depend on the
/// row (the others are not listed: a rectangular product is the BLIS recipe's).
pub fn trijams(scop: &Scop, names: &Names) -> Vec<Found> {
    let np = scop.params.len();
    let triangular = |s: usize| {
        constraints(scop, s).is_ok_and(|rows| rows.iter().any(|r| r[1 + np] != 0 && r[2 + np] != 0))
    };
    let chains =
        (0..scop.statements.len()).filter(|&s| chain_array(scop, s).is_some() && triangular(s));
    chains
        .map(|s| recognise(scop, names, s).map_err(|why| (s, why)))
        .collect()
}

/// The array of the element statement `s` updates, when `s` lies in three loops and the
/// element's subscripts use the outer two and not the third.
fn chain_array(scop: &Scop, s: usize) -> Option<String> {
    let st = &scop.statements[s];
    let up = st.update.as_ref()?;
    if st.iterators.len() != 3 || st.opaque.is_some() {
        return None;
    }
    let w = (st.accesses.iter()).find(|a| a.kind == AccessKind::Write && a.array == up.array)?;
    let subs = super::recipe::subscripts(scop, s, w)?;
    let uses = |d: usize| subs.iter().any(|(c, _)| c[d] != 0);
    (uses(0) && uses(1) && !uses(2)).then(|| up.array.clone())
}

fn recognise(scop: &Scop, names: &Names, s: usize) -> Result<TriJam, String> {
    let h = &names.handles[s];
    let array = chain_array(scop, s).expect("a chain");
    let n = scop.statements.len();
    let row: Vec<usize> = (0..n)
        .filter(|&t| super::recipe::shared(names, s, t) >= 1)
        .collect();
    if row.first() != Some(&s) {
        return Err(format!(
            "{h}'s column loop is not the first thing in its row loop"
        ));
    }
    let mut after = None;
    for &t in &row[1..] {
        if super::recipe::shared(names, s, t) < 2 {
            continue;
        }
        let st = &scop.statements[t];
        if super::recipe::shared(names, s, t) >= 3 || st.iterators.len() != 2 || after.is_some() {
            return Err(format!(
                "{} shares {h}'s column loop: the recipe takes one statement after the chain there",
                names.handles[t]
            ));
        }
        if !same_element(scop, s, t) {
            return Err(format!(
                "{} shares {h}'s column loop and writes another element",
                names.handles[t]
            ));
        }
        after = Some(t);
    }
    let np = scop.params.len();
    let rows = constraints(scop, s).map_err(|why| format!("{h}: {why}"))?;
    let coupling: Vec<Vec<i64>> = (rows.into_iter())
        .filter(|r| r[1 + np] != 0 && r[2 + np] != 0)
        .collect();
    if coupling.iter().any(|r| r[3 + np] != 0 || r[2 + np] > 0) {
        return Err(format!(
            "the first column of {h}'s loop, or its third loop, depends on the row"
        ));
    }
    if coupling.is_empty() {
        return Err(format!(
            "the columns of {h}'s loop do not depend on the row: the row-jam recipe's form"
        ));
    }
    // The row loop's bounds: the rows of the statements of the row loop, each domain
    // projected on the row (a statement's own constraints on the row may be implied by its
    // columns', as `i >= 1` by `0 <= j < i`).
    let on_row = |t: usize| {
        let d = scop.statements[t].domain.align_params(&scop.params);
        let n = d.n_dim();
        d.project_out(1, n - 1)
            .with_tuple(crate::presburger::Tuple::anonymous(1, "i"))
    };
    let row_dom = (row.iter().map(|&t| on_row(t)))
        .reduce(|a, b| a.union(&b))
        .expect("the chain's row")
        .coalesce();
    let rows_of_i = set_constraints(&row_dom, &scop.params).map_err(|why| format!("{h}: {why}"))?;
    let (first, upper) = row_bounds_in(rows_of_i, np, 1).map_err(|why| format!("{h}: {why}"))?;
    Ok(TriJam {
        chain: s,
        after,
        array,
        first: first[..=np].to_vec(),
        upper,
        coupling: coupling.into_iter().map(|r| r[..3 + np].to_vec()).collect(),
    })
}

/// Whether statement `t` (loops `i, j`) writes the element the chain `s` (loops `i, j, k`)
/// updates: the same array at the same subscripts of the row and the column.
fn same_element(scop: &Scop, s: usize, t: usize) -> bool {
    let Some(array) = chain_array(scop, s) else {
        return false;
    };
    let write = |x: usize| {
        let st = &scop.statements[x];
        let mut ws = (st.accesses.iter()).filter(|a| a.kind == AccessKind::Write);
        let w = ws
            .next()
            .filter(|w| w.array == array && ws.next().is_none())?;
        let rows = super::space::affine_rows(&w.relation, &scop.params)?;
        Some((w.array.clone(), rows))
    };
    let (Some((a, rs)), Some((b, rt))) = (write(s), write(t)) else {
        return false;
    };
    let drop_k = |r: &Vec<crate::presburger::Int>| {
        let mut r = r.clone();
        r.remove(2);
        r
    };
    a == b && rs.len() == rt.len() && rs.iter().map(drop_k).eq(rt.iter().cloned())
}

/// The script with jam factor `u`, a comment before each step saying what it is for.
pub fn script(t: &TriJam, names: &Names, u: u64) -> Vec<String> {
    let mut taken: Vec<String> = names.handles.clone();
    let mut vars = names.params.clone();
    vars.extend(names.iterators.iter().flatten().cloned());
    let pick = |x: &str, taken: &mut Vec<String>| {
        let x = if taken.iter().any(|y| y == x) {
            fresh(x, taken)
        } else {
            x.to_string()
        };
        taken.push(x.clone());
        x
    };
    let uname = pick("U", &mut vars.clone());
    vars.push(uname.clone());
    let b = pick("b", &mut vars.clone());
    let space = match names.params.is_empty() {
        true => String::new(),
        false => format!("[{}] -> ", names.params.join(", ")),
    };
    let its = &names.iterators[t.chain];
    let (i, j) = (&its[0], &its[1]);
    let s = names.handles[t.chain].clone();
    let rows = pick("Rows", &mut taken);
    let (s_main, s_rest) = (
        pick(&format!("{s}Main"), &mut taken),
        pick(&format!("{s}Rest"), &mut taken),
    );
    let main = pick("Main", &mut taken);
    let (first, others) = (pick("First", &mut taken), pick("Others", &mut taken));
    let (full, part) = (pick("Full", &mut taken), pick("Part", &mut taken));
    let params = &names.params;
    let strip = strip_of(&t.first, params, i, &uname);
    let cols = strip_columns(&t.first, &t.coupling, params, (&b, &uname), j);
    let whole = whole_strips((&t.first, &t.upper), params, &b, &uname);
    let array = &t.array;
    let split = |h: &str, m: &str, r: &str| {
        format!("({m}, {r}) = isplit({h}, {space}{{[{b}, {i}, {j}] : {b} >= 1 and {cols} and {whole}}}, 3)")
    };
    let k = &its[2];
    let mut out = vec![
        "# the triangular jam recipe (recognised from the accesses): a chain of dependent".to_string(),
        format!("# updates per element of row {i}, column {j}; {uname} rows at once for the columns left"),
        format!("# of their strip run {uname} chains side by side, each element updated in its own order"),
        format!("# ({uname}: the multiply-add latency over the chains of a row, `loopy machine`)"),
        format!("param {uname} = {u}"),
        format!("# the loop of rows {i}"),
        format!("{rows} = lift({s}, 1)"),
        format!("# strips of {uname} rows from its first row"),
        format!("affine({rows}, {space}{{[{i}] -> [{b}, {i}] : {b} = {strip}}})"),
        format!("# {s}'s columns left of a whole strip after the first, apart from the others"),
        split(&s, &s_main, &s_rest),
    ];
    // The statement after the chain in the column loop, split alike and kept right after
    // it; then the jammed columns' loop apart from the rest of the strip's rows.
    let after = t.after.map(|a| {
        let d = names.handles[a].clone();
        let parts = (
            pick(&format!("{d}Main"), &mut taken),
            pick(&format!("{d}Rest"), &mut taken),
        );
        (d, parts)
    });
    let mut last = s_main.clone();
    if let Some((d, (d_main, d_rest))) = &after {
        out.extend([
            format!("# {d}'s the same"),
            split(d, d_main, d_rest),
            format!("# those columns of {d} right after {s}'s, in the column loop"),
            format!("move_before({d_main}, {s_rest})"),
        ]);
        last = d_main.clone();
    }
    out.extend([
        "# their column loop apart, before the strip's rows run one by one".to_string(),
        format!("realign({last}, {s_rest}, 1)"),
        "# the loop of the strip's rows".to_string(),
        format!("{main} = lift({s_main}, 2)"),
        "# the columns outside it".to_string(),
        format!("interchange({main}, 2, 3)"),
    ]);
    if let Some((d, (d_main, _))) = &after {
        out.push(format!("# {s} and {d} apart inside a column"));
        out.push(format!("realign({s_main}, {d_main}, 2)"));
    }
    out.extend([
        format!("# {k} outside the strip's rows: {uname} chains side by side"),
        format!("interchange({s_main}, 3, 4)"),
        format!("# the {uname} rows unrolled"),
        format!("unroll({s_main}, 4, {uname})"),
    ]);
    let staged = match &after {
        Some((d, (d_main, _))) => {
            out.push(format!("# and {d}'s too"));
            out.push(format!("unroll({d_main}, 3, {uname})"));
            format!("{{{s_main}, {d_main}}}")
        }
        None => s_main.clone(),
    };
    out.extend([
        format!("# the {uname} elements of a column in registers across {k}"),
        format!("copy_written({staged}, 2, {array})"),
        "# the first strip apart (then the whole strips run in a loop of their own)".to_string(),
        format!("({first}, {others}) = isplit({rows}, {space}{{[{b}] : {b} <= 0}}, 0)"),
        "# and the last partial one: the register block whole".to_string(),
        format!("({full}, {part}) = isplit({others}, {space}{{[{b}] : {whole}}}, 0)"),
    ]);
    out
}
