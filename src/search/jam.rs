//! The row-jam recipe: unroll-and-jam of a row loop whose inner loop adds into one element
//! per row (atax's `tmp[i] = tmp[i] + A[i][j] * x[j]`, gesummv, bicg, mvt). Such a loop is
//! a chain of dependent additions that the compiler may not reorder, so it neither
//! vectorizes it nor overlaps its multiply-adds; `U` rows at once run `U` independent
//! chains, and an operand read along the inner loop alone (`x[j]`) is loaded once for the
//! `U` rows. Every element is still summed in its own order: the output is bit for bit the
//! same.
//!
//! Recognised from the accesses and the domains, not from names: a nest of one or two loops
//! `(i, j)` whose statements lie in the row loop `i`, one or more of them in an inner loop
//! `j`, at least one updating an element whose subscripts do not use `j` (the chain); the
//! inner loops' bounds do not depend on the row (a triangular nest is skipped with that
//! reason). The script cuts the row loop into strips of `U`, runs each part of the row's
//! body over the strip's rows apart, puts `j` outside the `U` rows of each inner loop and
//! unrolls them, and splits the whole strips from the last partial one. The verifier judges
//! each script, as for every candidate.

use super::blocks::{fresh, linear};
use super::script::Names;
use crate::model::{AccessKind, Scop};

/// A nest the row-jam recipe applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jam {
    /// The nest's parts in order: runs of statements in the row loop alone, and the
    /// statements of each inner loop.
    pub parts: Vec<Part>,
    /// The statements whose inner loop is a chain, and the C name of each one's element.
    pub chains: Vec<(usize, String)>,
    /// The row loop's first row, `[constant, parameters…]`: strips start there.
    pub first: Vec<i64>,
    /// The row loop's upper bounds, each a constraint `a*i + g >= 0` (`a < 0`) as
    /// `[constant, parameters…, a]`.
    pub upper: Vec<Vec<i64>>,
    /// The first inner loop whose columns depend on the row, when there is one.
    pub tail: Option<Tail>,
}

/// An inner loop whose last columns depend on the row (trisolv's `j < i`): the columns
/// every row of a strip has (left of the strip's first row) are jammed, the others run
/// row by row after them with the rest of the row's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// Its index in [`Jam::parts`] (an inner part of one statement).
    pub part: usize,
    pub stmt: usize,
    /// The domain's constraints coupling the row `i` and the column `j`, each
    /// `a*i + c*j + g >= 0` (`c < 0`: an upper bound of the columns) as
    /// `[constant, parameters…, a, c]`.
    pub coupling: Vec<Vec<i64>>,
}

/// A part of the row loop's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Consecutive statements in the row loop alone.
    Flat(Vec<usize>),
    /// The statements of one inner loop.
    Inner(Vec<usize>),
}

impl Part {
    fn stmts(&self) -> &[usize] {
        match self {
            Part::Flat(s) | Part::Inner(s) => s,
        }
    }
}

impl Jam {
    /// Every statement of the nest, in order.
    pub fn stmts(&self) -> Vec<usize> {
        self.parts.iter().flat_map(|p| p.stmts().to_vec()).collect()
    }

    /// The jam factors to try: enough chains to cover the multiply-add's `latency` with the
    /// machine's `issue` multiply-adds per cycle first, then with one and with two, over the
    /// chains of one row, each a power of two from 2 to 16.
    pub fn factors(&self, latency: u64, issue: u64) -> Vec<u64> {
        factors(self.chains.len() as u64, latency, issue)
    }
}

/// The jam factors for `chains` chains a row ([`Jam::factors`]).
pub(super) fn factors(chains: u64, latency: u64, issue: u64) -> Vec<u64> {
    let per_row = chains.max(1);
    let mut out: Vec<u64> = vec![];
    for issue in [issue.max(1), 1, 2] {
        let u = (latency * issue)
            .div_ceil(per_row)
            .next_power_of_two()
            .clamp(2, 16);
        if !out.contains(&u) {
            out.push(u);
        }
    }
    out
}

/// One nest's verdict: recognised, or why not (with its first chain statement).
pub type Found = Result<Jam, (usize, String)>;

/// The row-jam recipe's verdict on each outermost loop of the kernel whose body has a
/// chain: loops without one are not listed.
pub fn jams(scop: &Scop, names: &Names) -> Vec<Found> {
    let n = scop.statements.len();
    let mut out = vec![];
    let mut s = 0;
    while s < n {
        let mut end = s + 1;
        if !names.iterators[s].is_empty() {
            while end < n && super::recipe::shared(names, s, end) >= 1 {
                end += 1;
            }
        }
        let nest: Vec<usize> = (s..end).collect();
        let chains = chains(scop, &nest);
        if let Some((first, _)) = chains.first() {
            let first = *first;
            out.push(recognise(scop, names, &nest, chains).map_err(|why| (first, why)));
        }
        s = end;
    }
    out
}

/// The statements of `nest` two loops deep that update an element whose subscripts do not
/// use the inner loop, with the element's C name.
fn chains(scop: &Scop, nest: &[usize]) -> Vec<(usize, String)> {
    let mut out = vec![];
    for &s in nest {
        let st = &scop.statements[s];
        let Some(up) = &st.update else { continue };
        if st.iterators.len() != 2 || st.opaque.is_some() {
            continue;
        }
        let write =
            (st.accesses.iter()).find(|a| a.kind == AccessKind::Write && a.array == up.array);
        let Some(subs) = write.and_then(|w| super::recipe::subscripts(scop, s, w)) else {
            continue;
        };
        if subs.iter().all(|(c, _)| c[1] == 0) {
            let c = scop
                .array(&up.array)
                .map_or(up.array.clone(), |a| a.c_name.clone());
            out.push((s, c));
        }
    }
    out
}

/// The nest's parts and whole strips, or why the recipe does not apply.
fn recognise(
    scop: &Scop,
    names: &Names,
    nest: &[usize],
    chains: Vec<(usize, String)>,
) -> Result<Jam, String> {
    let mut parts: Vec<Part> = vec![];
    for &s in nest {
        let st = &scop.statements[s];
        if st.opaque.is_some() {
            return Err(format!(
                "{} is a construct the model over-approximates",
                names.handles[s]
            ));
        }
        let depth = st.iterators.len();
        let prev = parts.last_mut();
        match (depth, prev) {
            (1, Some(Part::Flat(v))) => v.push(s),
            (1, _) => parts.push(Part::Flat(vec![s])),
            (2, Some(Part::Inner(v))) if super::recipe::shared(names, v[0], s) >= 2 => v.push(s),
            (2, _) => parts.push(Part::Inner(vec![s])),
            _ => {
                return Err(format!(
                    "{} lies {depth} loops deep: the recipe takes a row loop and one inner loop",
                    names.handles[s]
                ))
            }
        }
    }
    let tail = tail(scop, names, &parts)?;
    let (first, upper) = row_bounds(scop, nest[0])?;
    Ok(Jam {
        parts,
        chains,
        first,
        upper,
        tail,
    })
}

/// The first inner part whose columns depend on the row, or why such a part cannot be
/// split into the columns of the whole strip and the rest.
fn tail(scop: &Scop, names: &Names, parts: &[Part]) -> Result<Option<Tail>, String> {
    let np = scop.params.len();
    for (k, p) in parts.iter().enumerate() {
        let Part::Inner(stmts) = p else { continue };
        for &s in stmts {
            let h = &names.handles[s];
            let its = &scop.statements[s].iterators;
            let rows = constraints(scop, s).map_err(|why| format!("{h}: {why}"))?;
            let coupling: Vec<Vec<i64>> = (rows.into_iter())
                .filter(|r| r[1 + np] != 0 && r[2 + np] != 0)
                .collect();
            if coupling.is_empty() {
                continue;
            }
            if stmts.len() > 1 {
                return Err(format!(
                    "the bounds of {h}'s loop {} depend on the row {} and other statements share that loop",
                    its[1], its[0]
                ));
            }
            if coupling.iter().any(|r| r[2 + np] > 0) {
                return Err(format!(
                    "the first column of {h}'s loop {} depends on the row {}",
                    its[1], its[0]
                ));
            }
            return Ok(Some(Tail {
                part: k,
                stmt: s,
                coupling,
            }));
        }
    }
    Ok(None)
}

/// The domain's constraints of statement `s` as `[constant, parameters…, iterators…]` rows
/// (each equality as two inequalities), or why they cannot be read.
pub(super) fn constraints(scop: &Scop, s: usize) -> Result<Vec<Vec<i64>>, String> {
    set_constraints(&scop.statements[s].domain, &scop.params)
}

/// [`constraints`] of any set over the kernel's parameters.
pub(super) fn set_constraints(
    domain: &crate::presburger::Set,
    params: &[String],
) -> Result<Vec<Vec<i64>>, String> {
    let domain = domain.align_params(params);
    let [b] = domain.parts() else {
        return Err("its domain is a union of several conjunctions".to_string());
    };
    if b.n_div() > 0 {
        return Err("its domain has integer divisions".to_string());
    }
    let mut rows: Vec<Vec<i64>> = vec![];
    let small = |r: &[crate::presburger::Int]| -> Result<Vec<i64>, String> {
        (r.iter().map(|x| x.to_i64()))
            .collect::<Option<Vec<i64>>>()
            .ok_or_else(|| "its domain's coefficients are too large".to_string())
    };
    for r in b.ineqs() {
        rows.push(small(r)?);
    }
    for e in b.eqs() {
        let e = small(e)?;
        rows.push(e.iter().map(|x| -x).collect());
        rows.push(e);
    }
    Ok(rows)
}

/// The row loop's first row and upper bounds, from the constraints of statement `s`'s
/// domain on the row `i` alone: one lower bound `i + g >= 0` (the first row is `-g`) and any
/// number of upper bounds.
pub(super) fn row_bounds(scop: &Scop, s: usize) -> Result<(Vec<i64>, Vec<Vec<i64>>), String> {
    let depth = scop.statements[s].iterators.len();
    row_bounds_in(constraints(scop, s)?, scop.params.len(), depth)
}

/// [`row_bounds`] from a domain's constraint rows over `depth` iterators.
pub(super) fn row_bounds_in(
    rows: Vec<Vec<i64>>,
    np: usize,
    depth: usize,
) -> Result<(Vec<i64>, Vec<Vec<i64>>), String> {
    let mut lower: Vec<Vec<i64>> = vec![];
    let mut upper: Vec<Vec<i64>> = vec![];
    for r in rows {
        let a = r[1 + np];
        if a == 0 || (2 + np..1 + np + depth).any(|c| r[c] != 0) {
            continue;
        }
        let mut row = r[..1 + np].to_vec();
        if a > 0 {
            if a != 1 {
                return Err("its row loop's lower bound has a coefficient other than 1".to_string());
            }
            let first: Vec<i64> = row.iter().map(|x| -x).collect();
            if !lower.contains(&first) {
                lower.push(first);
            }
        } else {
            row.push(a);
            if !upper.contains(&row) {
                upper.push(row);
            }
        }
    }
    match &lower[..] {
        [first] => Ok((first.clone(), upper)),
        [] => Err("its row loop has no lower bound".to_string()),
        _ => Err("its row loop has several lower bounds".to_string()),
    }
}

/// `first` (`[constant, parameters…]`) plus `extra` as terms for [`linear`].
fn terms(first: &[i64], params: &[String], scale: i64) -> Vec<(i64, String)> {
    let mut out: Vec<(i64, String)> = (first[1..].iter().zip(params))
        .map(|(&c, p)| (scale * c, p.clone()))
        .collect();
    out.push((scale * first[0], String::new()));
    out
}

/// The strip of row `i`: `floor((i - first)/u)`.
pub(super) fn strip_of(first: &[i64], params: &[String], i: &str, u: &str) -> String {
    let mut t = vec![(1, i.to_string())];
    t.extend(terms(first, params, -1));
    let shifted = linear(&merge(t));
    if shifted == i {
        format!("floor({i}/{u})")
    } else {
        format!("floor(({shifted})/{u})")
    }
}

/// Terms with those of one name added up (in the order of their first appearance), the
/// constant last.
fn merge(t: Vec<(i64, String)>) -> Vec<(i64, String)> {
    let mut out: Vec<(i64, String)> = vec![];
    for (c, x) in t.into_iter().chain([(0, String::new())]) {
        match out.iter_mut().find(|(_, y)| *y == x) {
            Some((d, _)) => *d += c,
            None => out.push((c, x)),
        }
    }
    let constant = out
        .iter()
        .position(|(_, x)| x.is_empty())
        .map(|k| out.remove(k));
    out.extend(constant);
    out
}

/// The conditions under which strip `b` of `u` rows lies whole inside the row's bounds: its
/// last row, `first + u*b + u - 1`, satisfies every upper bound (its first row satisfies
/// the lower bound for every `b >= 0`).
pub(super) fn whole_strips(
    (first, upper): (&[i64], &[Vec<i64>]),
    params: &[String],
    b: &str,
    u: &str,
) -> String {
    let np = params.len();
    let mut out = vec![];
    for r in upper {
        let t = at_strip_row((&r[..=np], r[np + 1]), first, params, (b, u), true);
        out.push(format!("{} >= 0", linear(&merge(t))));
    }
    if out.is_empty() {
        "0 = 0".to_string()
    } else {
        out.join(" and ")
    }
}

/// The terms of `g + a*i` (`g`: `[constant, parameters…]`) at the first row of strip `b` of
/// `u` rows, `i = first + u*b`, or at its last (`last`), `first + u*b + u - 1`.
fn at_strip_row(
    (g, a): (&[i64], i64),
    first: &[i64],
    params: &[String],
    (b, u): (&str, &str),
    last: bool,
) -> Vec<(i64, String)> {
    let mut t = terms(g, params, 1);
    t.extend(terms(first, params, a));
    t.push((a, format!("{u}*{b}")));
    if last {
        t.push((a, u.to_string()));
        t.push((-a, String::new()));
    }
    t
}

/// The columns of the tail's inner loop that every row of strip `b` has: each coupling
/// constraint at the strip's worst row (its first where the row's coefficient is positive,
/// its last where it is negative).
pub(super) fn strip_columns(
    first: &[i64],
    coupling: &[Vec<i64>],
    params: &[String],
    (b, u): (&str, &str),
    col: &str,
) -> String {
    let np = params.len();
    let mut out = vec![];
    for r in coupling {
        let (a, c) = (r[np + 1], r[np + 2]);
        let mut t = at_strip_row((&r[..=np], a), first, params, (b, u), a < 0);
        t.push((c, col.to_string()));
        out.push(format!("{} >= 0", linear(&merge(t))));
    }
    out.join(" and ")
}

/// The recipe's script for some nests with jam factor `u`, a comment before each step
/// saying what it is for.
pub fn script(jams: &[&Jam], names: &Names, u: u64) -> Vec<String> {
    let mut taken: Vec<String> = names.handles.clone();
    taken.extend(names.params.iter().cloned());
    taken.extend(names.iterators.iter().flatten().cloned());
    let uname = if taken.iter().any(|x| x == "U") {
        fresh("U", &taken)
    } else {
        "U".to_string()
    };
    let mut out = vec![
        "# the row-jam recipe (recognised from the accesses): an inner loop that adds into one"
            .to_string(),
        "# element per row is a chain of dependent additions the compiler may not reorder;"
            .to_string(),
        format!("# {uname} rows at once run {uname} independent chains, each element summed in its own order"),
        format!("# ({uname}: the multiply-add latency over the chains of a row, `loopy machine`)"),
        format!("param {uname} = {u}"),
    ];
    for j in jams {
        nest_script(j, names, &uname, &mut out);
    }
    out
}

/// The words a nest's script uses: the handles it defines (none a handle already), the
/// strip loop's name, the parameter space of its sets and maps, the row and column names.
struct Words {
    taken: Vec<String>,
    rows: String,
    b: String,
    space: String,
    row: String,
    col: String,
}

impl Words {
    fn new(j: &Jam, names: &Names, u: &str) -> Words {
        let stmts = j.stmts();
        let two = (stmts.iter().copied()).find(|&s| names.iterators[s].len() == 2);
        let its = &names.iterators[two.unwrap_or(stmts[0])];
        let mut vars = names.params.clone();
        vars.extend(names.iterators.iter().flatten().cloned());
        vars.push(u.to_string());
        let b = if vars.iter().any(|x| x == "b") {
            fresh("b", &vars)
        } else {
            "b".to_string()
        };
        let space = match names.params.is_empty() {
            true => String::new(),
            false => format!("[{}] -> ", names.params.join(", ")),
        };
        let mut w = Words {
            taken: names.handles.clone(),
            rows: String::new(),
            b,
            space,
            row: its[0].clone(),
            col: its.get(1).cloned().unwrap_or_default(),
        };
        w.rows = w.name(format!("Jam{}", stmts[0]));
        w
    }

    /// `x`, or a fresh name when `x` is taken; taken from then on.
    fn name(&mut self, x: String) -> String {
        let x = match self.taken.contains(&x) {
            true => fresh(&x, &self.taken),
            false => x,
        };
        self.taken.push(x.clone());
        x
    }
}

/// One part of a nest as the script sees it: its statements' handles, and whether it is an
/// inner loop (jammed) or statements in the row loop alone.
type Piece = (Vec<String>, bool);

/// `{A, B}` for several handles, `A` for one.
fn group(hs: &[String]) -> String {
    match hs {
        [x] => x.clone(),
        _ => format!("{{{}}}", hs.join(", ")),
    }
}

/// The lines for one nest.
fn nest_script(j: &Jam, names: &Names, u: &str, out: &mut Vec<String>) {
    let h = |s: usize| names.handles[s].clone();
    let mut w = Words::new(j, names, u);
    let on: Vec<String> = (j.chains.iter())
        .map(|(s, x)| format!("{} (`{x}`)", h(*s)))
        .collect();
    let (row, col, rows, b, space) = (&w.row, &w.col, &w.rows, &w.b, &w.space);
    let strip = strip_of(&j.first, &names.params, row, u);
    out.extend([
        format!(
            "# the loop of {row}'s rows: chains along {col} in {}",
            on.join(", ")
        ),
        format!("{rows} = lift({}, 1)", h(j.stmts()[0])),
        format!("# strips of {u} rows of {row} from its first row"),
        format!("affine({rows}, {space}{{[{row}] -> [{b}, {row}] : {b} = {strip}}})"),
    ]);
    let pieces: Vec<Piece> = (j.parts.iter())
        .map(|p| {
            let hs = p.stmts().iter().map(|&s| h(s)).collect();
            (hs, matches!(p, Part::Inner(_)))
        })
        .collect();
    let (jammed, rest) = match &j.tail {
        Some(t) => split_tail(j, t, names, u, &mut w, pieces, out),
        None => (pieces, None),
    };
    distribute(&jammed, rest.as_deref(), out);
    for (hs, _) in jammed.iter().filter(|p| p.1) {
        let g = group(hs);
        out.extend([
            format!("# {} outside the strip's rows in {g}", w.col),
            format!("interchange({g}, 2, 3)"),
            format!("# the {u} rows within unrolled: {u} chains side by side"),
            format!("unroll({g}, 3, {u})"),
        ]);
    }
    let whole = whole_strips((&j.first, &j.upper), &names.params, &w.b, u);
    let (full, part) = (
        w.name(format!("Full{}", j.stmts()[0])),
        w.name(format!("Part{}", j.stmts()[0])),
    );
    out.extend([
        "# whole strips apart from the last partial one: the unrolled copies need no test"
            .to_string(),
        format!(
            "({full}, {part}) = isplit({}, {}{{[{}] : {whole}}}, 0)",
            w.rows, w.space, w.b
        ),
    ]);
}

/// Splits the tail's columns that every row of the strip has (jammed, in place of the tail
/// and the parts after it) from the others, which run row by row after them; returns the
/// pieces jammed and the handle of the others.
fn split_tail(
    j: &Jam,
    t: &Tail,
    names: &Names,
    u: &str,
    w: &mut Words,
    mut pieces: Vec<Piece>,
    out: &mut Vec<String>,
) -> (Vec<Piece>, Option<String>) {
    let x = names.handles[t.stmt].clone();
    let (main, other) = (w.name(format!("{x}Main")), w.name(format!("{x}Rest")));
    let its = &names.iterators[t.stmt];
    let cond = strip_columns(&j.first, &t.coupling, &names.params, (&w.b, u), &its[1]);
    out.extend([
        format!("# the columns of {x} that every row of the strip has, apart from the others"),
        format!(
            "({main}, {other}) = isplit({x}, {}{{[{}, {}, {}] : {cond}}}, 2)",
            w.space, w.b, its[0], its[1]
        ),
    ]);
    pieces.truncate(t.part);
    pieces.push((vec![main], true));
    (pieces, Some(other))
}

/// Each piece over the strip's rows apart from the next; then, when the tail was split, its
/// other columns and the rest of the row's body row by row after the last.
fn distribute(pieces: &[Piece], rest: Option<&str>, out: &mut Vec<String>) {
    for w in pieces.windows(2) {
        let (before, after) = (&w[0].0, &w[1].0);
        out.extend([
            format!(
                "# per strip, {} over the strip's rows apart from {} after it",
                group(before),
                group(after)
            ),
            format!("realign({}, {}, 1)", before[before.len() - 1], after[0]),
        ]);
    }
    if let (Some(other), Some((last, _))) = (rest, pieces.last()) {
        out.extend([
            format!(
                "# then, row by row, the other columns ({other}) and the rest of the row's body"
            ),
            format!("realign({}, {other}, 1)", last[0]),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::Jam;

    /// The machine's issue rate first: with a latency of 4 and two multiply-adds a cycle,
    /// one chain a row wants 8 rows at once, then 4; two chains a row want 4, then 2.
    #[test]
    fn jam_factors_cover_the_latency_at_the_machines_issue_rate_first() {
        let jam = |chains: usize| Jam {
            parts: vec![],
            chains: (0..chains).map(|k| (k, format!("x{k}"))).collect(),
            first: vec![0],
            upper: vec![],
            tail: None,
        };
        assert_eq!(jam(1).factors(4, 2), vec![8, 4]);
        assert_eq!(jam(1).factors(4, 1), vec![4, 8]);
        assert_eq!(jam(2).factors(4, 2), vec![4, 2]);
        assert_eq!(jam(1).factors(8, 4), vec![16, 8]);
    }
}
