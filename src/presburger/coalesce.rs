//! Coalescing: fewer conjunctions for the same union.
//!
//! After the method of isl's `isl_set_coalesce`: two conjunctions `A` and `B` are replaced by
//! one when a conjunction built from their own constraints holds exactly their points. Every
//! constraint of `A` is classified against `B` (valid: `B` satisfies it everywhere) and vice
//! versa. The candidate `H` keeps the constraints valid for both sides, so `H ⊇ A ∪ B`; it
//! replaces them when `H \ A \ B` has no integer point, decided exactly by difference. This
//! covers pieces whose union is convex (one contains the other, or they overlap into a box)
//! and a piece extended over an adjacent one (`0 <= i <= 5` and `6 <= i <= 10` over the
//! integers). Unlike isl, the final test is the exact difference rather than a case analysis
//! of facets, so a merge is never wrong and only costs emptiness tests.
//!
//! Parts are merged only when every local has a definition (a floor). When the two parts'
//! floors differ (other floors, or the same ones in another order) they are first aligned:
//! each floor of `B` is rewritten over the columns of `A` and added to `A` unless `A` has it
//! already, and each part gains the definitions of the floors only the other uses, so that a
//! constraint means the same thing on both sides. Floors left unused by the merged part are
//! dropped. Parts with locals that have no closed form are left alone.

use super::basic::{Basic, Div};
use super::budget::{self, Budgeted};
use super::int::Int;
use super::row::Row;
use std::collections::HashMap;
use std::collections::HashSet;

/// Most parts a union may have for the pairwise search (quadratic in the number of parts).
const MAX_PARTS: usize = 24;

/// The parts of a union, with pairs merged where one conjunction of their constraints holds
/// exactly their points; never more parts than given, the same integer points.
pub fn coalesce(parts: Vec<Basic>) -> Budgeted<Vec<Basic>> {
    let mut kept = Vec::with_capacity(parts.len());
    for mut b in parts {
        if b.normalize() && !b.try_is_empty()? {
            kept.push(b);
        }
    }
    let mut parts = kept;
    if parts.len() > MAX_PARTS {
        return Ok(parts);
    }
    // Merge until no pair merges: each merge removes a part. A pair that did not merge
    // will not merge later either (an attempt depends on its two parts alone), so it is
    // not tried again after other merges: the parts carry names, a merged one a new name.
    let mut names: Vec<usize> = (0..parts.len()).collect();
    let mut fresh = parts.len();
    let mut apart: HashSet<(usize, usize)> = HashSet::new();
    'outer: loop {
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                if apart.contains(&(names[i], names[j])) {
                    continue;
                }
                if let Some(h) = merge(&parts[i], &parts[j]) {
                    parts[i] = h;
                    parts.remove(j);
                    names[i] = fresh;
                    names.remove(j);
                    fresh += 1;
                    continue 'outer;
                }
                apart.insert((names[i], names[j]));
            }
        }
        // An attempt cut short by the enclosing budget answers "no merge": say so.
        budget::check()?;
        return Ok(parts);
    }
}

/// One conjunction with exactly the points of `a ∪ b`, from their constraints, if there is
/// one of the kind described in the module documentation.
///
/// One attempt is given at most [`MERGE_STEPS`] steps of the work budget: past them the two
/// parts stay apart. Coalescing only changes the form of a union, so a hard emptiness test
/// (parts whose aligned floors make the Omega test splinter) is not worth a refusal or a
/// long wait; the steps used are charged to the enclosing budget as usual.
pub fn merge(a: &Basic, b: &Basic) -> Option<Basic> {
    budget::with_budget(MERGE_STEPS, || merge_unbounded(a, b))
        .ok()
        .and_then(Result::ok)
        .flatten()
}

/// Most steps one merge attempt may take (see [`merge`]). No example's generated code
/// changes under this limit.
pub const MERGE_STEPS: u64 = 200_000;

fn merge_unbounded(a: &Basic, b: &Basic) -> Budgeted<Option<Basic>> {
    budget::tick(1 + (a.eqs.len() + a.ineqs.len() + b.eqs.len() + b.ineqs.len()) as u64)?;
    if a.n_param != b.n_param || a.n_dim != b.n_dim {
        return Ok(None);
    }
    if a.divs.iter().chain(&b.divs).any(Option::is_none) {
        return Ok(None);
    }
    if a.divs != b.divs {
        let Some((a, b)) = align(a, b) else {
            return Ok(None);
        };
        let Some(mut h) = merge_aligned(&a, &b)? else {
            return Ok(None);
        };
        // Floors that only one side used may be left with nothing but their definition.
        h.eliminate_locals();
        return Ok(Some(h));
    }
    merge_aligned(a, b)
}

/// [`merge`] of two parts with the same locals (the same floors in the same columns).
fn merge_aligned(a: &Basic, b: &Basic) -> Budgeted<Option<Basic>> {
    let mut h = a.clone();
    h.eqs.clear();
    h.ineqs.clear();
    // Definitions of the locals hold on both sides.
    for i in 0..a.n_div() {
        if let Some(d) = a.div_constraints(a.col_div(i)) {
            h.ineqs.extend(d);
        }
    }
    keep_valid(a, b, &mut h)?;
    keep_valid(b, a, &mut h)?;
    // H ⊇ A ∪ B by construction; equal when nothing of H lies outside both.
    for p in h.try_subtract(a)? {
        if !p.try_subtract(b)?.is_empty() {
            return Ok(None);
        }
    }
    h.normalize();
    Ok(Some(h))
}

/// `a` and `b` over one list of floors: `a` with the floors of `b` it lacks appended, and `b`
/// rewritten over the same columns (with the definitions of the floors it does not use).
/// `None` when a local has no definition.
fn align(a: &Basic, b: &Basic) -> Option<(Basic, Basic)> {
    let mut a2 = a.clone();
    // Column of `b` -> column of the aligned parts.
    let mut map: Vec<usize> = (0..b.div_start()).collect();
    for (i, d) in b.divs.iter().enumerate() {
        let d = d.as_ref()?;
        let mut num = a2.zero_row();
        for (c, v) in d.num.iter().enumerate() {
            if v.is_zero() {
                continue;
            }
            // A floor is defined from the columns before its own.
            let &to = map.get(c)?;
            num[to] = &num[to] + v;
        }
        map.push(a2.add_div(num, d.den.clone()));
        debug_assert_eq!(map.len(), b.div_start() + i + 1);
    }
    let mut b2 = Basic::universe(a2.n_param, a2.n_dim);
    b2.divs = a2.divs.clone();
    let w = a2.width();
    let remap = |r: &Row| -> Row {
        let mut x = vec![Int::ZERO; w];
        for (c, v) in r.iter().enumerate() {
            x[map[c]] = &x[map[c]] + v;
        }
        x
    };
    b2.eqs = b.eqs.iter().map(remap).collect();
    b2.ineqs = b.ineqs.iter().map(remap).collect();
    for i in 0..a2.n_div() {
        let col = a2.col_div(i);
        if !map[b.div_start()..].contains(&col) {
            b2.ineqs.extend(b2.div_constraints(col)?);
        }
    }
    Some((a2, b2))
}

/// Adds to `h` the constraints of `from` that every point of `other` satisfies (an equality
/// as its two inequalities when only one side holds for `other`).
fn keep_valid(from: &Basic, other: &Basic, h: &mut Basic) -> Budgeted<()> {
    let neg = |r: &Row| -> Row { r.iter().map(|v| -v).collect() };
    for r in &from.eqs {
        let (ge, le) = (valid(other, r)?, valid(other, &neg(r))?);
        match (ge, le) {
            (true, true) => push(&mut h.eqs, r.clone()),
            (true, false) => push(&mut h.ineqs, r.clone()),
            (false, true) => push(&mut h.ineqs, neg(r)),
            (false, false) => {}
        }
    }
    for r in &from.ineqs {
        if valid(other, r)? {
            push(&mut h.ineqs, r.clone());
        }
    }
    Ok(())
}

fn push(rows: &mut Vec<Row>, r: Row) {
    if !rows.contains(&r) {
        rows.push(r);
    }
}

/// Whether every integer point of `b` satisfies `r >= 0`.
fn valid(b: &Basic, r: &Row) -> Budgeted<bool> {
    let mut p = b.clone();
    let mut n: Row = r.iter().map(|v| -v).collect();
    n[0] -= &Int::ONE;
    p.ineqs.push(n);
    p.try_is_empty()
}

/// The parts of a union that differ only in their constants, by steps of one shift, made
/// one: where part `r` (for `r = 0..=n`) is `{ R_k + r·d_k ⋈ 0 for every row k }` with the
/// same coefficients and `d_e = 1` for an equality `e`, `r` is `−R_e` on each point, so
/// the union is `{ R_k − d_k·R_e ⋈ 0 for k ≠ e, 0 <= −R_e <= n }`, exactly, whatever the
/// rows are (each part's locals are its own, and the union of the parts' existentials is
/// the existential of the union). Register rows of generated code are such parts (`i =
/// 14e + r` for each row `r` of a strip, and the row's position among the block's stores
/// `31 + 2r` in its time); their union is the strip (`0 <= i - 14e <= 13`), which the
/// pairwise merge of [`coalesce`] does not find (each pair alone is not convex) nor tries
/// past [`MAX_PARTS`]. No emptiness test is made.
pub fn merge_shifted(mut parts: Vec<Basic>) -> Vec<Basic> {
    while let Some(run) = shifted_run(&parts) {
        let b = run.merged(&parts[run.members[0]]);
        let mut keep: Vec<Basic> = (parts.into_iter().enumerate())
            .filter(|(i, _)| !run.members.contains(i))
            .map(|(_, p)| p)
            .collect();
        keep.push(b);
        parts = keep;
    }
    parts
}

/// An equality row with its first non-zero coefficient after the constant positive.
fn normalized(r: &Row) -> Row {
    match r[1..].iter().find(|v| !v.is_zero()) {
        Some(v) if v.is_negative() => r.iter().map(|x| -x).collect(),
        _ => r.clone(),
    }
}

/// Equalities and inequalities.
type Rows = (Vec<Row>, Vec<Row>);

/// A part's rows in a canonical order (equalities normalized; each kind sorted by its
/// coefficients, then its constant): what two parts to merge must share is `key`, the
/// rows without their constants; `consts` are the constants, equalities first.
struct Shape {
    key: Rows,
    consts: Vec<Int>,
}

impl Shape {
    fn new(b: &Basic) -> Shape {
        let order = |x: &Row, y: &Row| (&x[1..], &x[0]).cmp(&(&y[1..], &y[0]));
        let mut eqs: Vec<Row> = b.eqs().iter().map(normalized).collect();
        eqs.sort_by(order);
        let mut ineqs = b.ineqs().to_vec();
        ineqs.sort_by(order);
        let consts = eqs.iter().chain(&ineqs).map(|r| r[0].clone()).collect();
        let strip = |rows: Vec<Row>| -> Vec<Row> {
            (rows.into_iter())
                .map(|mut r| {
                    r[0] = Int::ZERO;
                    r
                })
                .collect()
        };
        Shape {
            key: (strip(eqs), strip(ineqs)),
            consts,
        }
    }
}

/// Parts to merge: `members[r]` is part `r` of the run, whose constants are the first's
/// plus `r·step`; `step` is one at equality `e`.
struct Run {
    members: Vec<usize>,
    e: usize,
    step: Vec<Int>,
}

impl Run {
    /// The union of the run's parts, from its first part.
    fn merged(&self, first: &Basic) -> Basic {
        let mut b = first.clone();
        let Shape { key, consts } = Shape::new(first);
        let rows: Vec<Row> = (key.0.into_iter().chain(key.1))
            .zip(consts)
            .map(|(mut r, c)| {
                r[0] = c;
                r
            })
            .collect();
        let n_eq = b.eqs().len();
        let re = rows[self.e].clone();
        let shifted = |k: usize| -> Row {
            (rows[k].iter().zip(&re))
                .map(|(x, y)| x - &(&self.step[k] * y))
                .collect()
        };
        let eqs = (0..n_eq).filter(|&k| k != self.e).map(shifted).collect();
        let mut ineqs: Vec<Row> = (n_eq..rows.len()).map(shifted).collect();
        // `0 <= r = −R_e <= n`.
        let n = Int::from(self.members.len() as i64 - 1);
        ineqs.push(re.iter().map(|v| -v).collect());
        let mut up = re.clone();
        up[0] = &up[0] + &n;
        ineqs.push(up);
        b.set_rows(eqs, ineqs);
        b
    }
}

/// The longest run of two or more parts whose constants step by one shift, one at an
/// equality (the first such run found among the longest). Parts are grouped by their
/// divisions and coefficients, then found by their constants: a union of hundreds of
/// parts is looked through in about as many steps as pairs at consecutive constants.
fn shifted_run(parts: &[Basic]) -> Option<Run> {
    let shapes: Vec<Shape> = parts.iter().map(Shape::new).collect();
    // The groups in the order of their first parts (the answer does not depend on a hash).
    let mut index: HashMap<(&[Option<Div>], &Rows), usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = vec![];
    for (i, (b, s)) in parts.iter().zip(&shapes).enumerate() {
        let g = *index.entry((b.divs(), &s.key)).or_insert_with(|| {
            groups.push(vec![]);
            groups.len() - 1
        });
        groups[g].push(i);
    }
    let mut best: Option<Run> = None;
    for same in groups.iter().filter(|g| g.len() > 1) {
        let by_consts: HashMap<&[Int], usize> = (same.iter().rev())
            .map(|&i| (&shapes[i].consts[..], i))
            .collect();
        let n_eq = parts[same[0]].eqs().len();
        for e in 0..n_eq {
            // The members by the constant of equality `e`.
            let mut at_e: HashMap<&Int, Vec<usize>> = HashMap::new();
            for &i in same {
                at_e.entry(&shapes[i].consts[e]).or_default().push(i);
            }
            for &i in same {
                let ci = &shapes[i].consts;
                let Some(next) = at_e.get(&(&ci[e] + &Int::ONE)) else {
                    continue;
                };
                for &j in next {
                    let step: Vec<Int> = (shapes[j].consts.iter().zip(ci))
                        .map(|(x, y)| x - y)
                        .collect();
                    let shift = |c: &[Int], by: i64| -> Vec<Int> {
                        let by = Int::from(by);
                        c.iter().zip(&step).map(|(x, d)| x + &(d * &by)).collect()
                    };
                    // Only from the run's first part.
                    if by_consts.contains_key(&shift(ci, -1)[..]) {
                        continue;
                    }
                    // Each next part's constant at `e` is one more: never one already in.
                    let mut members = vec![i, j];
                    while let Some(&k) = by_consts.get(&shift(ci, members.len() as i64)[..]) {
                        members.push(k);
                    }
                    if best
                        .as_ref()
                        .is_none_or(|b| members.len() > b.members.len())
                    {
                        best = Some(Run { members, e, step });
                    }
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::parse_set;

    fn count(s: &str) -> (usize, usize) {
        let set = parse_set(s, &[]).unwrap();
        let c = set.coalesce();
        assert!(c.is_equal(&set), "{s}: {c}");
        (set.n_basic(), c.n_basic())
    }

    #[test]
    fn adjacent_and_overlapping() {
        assert_eq!(count("{ [i] : 0 <= i <= 5 or 6 <= i <= 10 }").1, 1);
        assert_eq!(
            count("{ [i, j] : 0 <= i <= 5 and 0 <= j <= 3 or 3 <= i <= 9 and 0 <= j <= 3 }").1,
            1
        );
        assert_eq!(
            count("[N] -> { [i] : 0 <= i < 32 and i < N or 32 <= i < N }").1,
            1
        );
        // Not convex: an L shape stays in two parts.
        assert_eq!(
            count("{ [i, j] : 0 <= i <= 5 and 0 <= j <= 1 or 0 <= i <= 1 and 0 <= j <= 5 }").1,
            2
        );
        // A gap of one integer stays.
        assert_eq!(count("{ [i] : 0 <= i <= 5 or 7 <= i <= 10 }").1, 2);
    }

    /// The rows of a register block, one residue each (`i = 4e + r`, `0 <= e <= 5`, with
    /// `e` a local without a closed form, as projections leave it), and each row's
    /// position among the block's statements (`p = 31 + 2r`), make their strip; rows
    /// with a gap between them stay apart, and so do parts whose constants do not step
    /// by one shift or whose coefficients differ; the points are the same.
    #[test]
    fn shifted_equalities() {
        use crate::presburger::{Int, Set, Space, Tuple};
        // Row `r`: `i = 4e + r`, `0 <= e <= extent`, `p = 31 + slope·r`, `i <= top`.
        let row = |r: i64, extent: i64, slope: i64, top: i64, coef: i64| {
            let mut b = Basic::universe(0, 2);
            let e = b.add_local();
            let mut eq = b.zero_row();
            eq[0] = Int::from(-r);
            eq[b.col_dim(0)] = Int::ONE;
            eq[e] = Int::from(-4);
            b.add_eq(eq);
            let mut pos = b.zero_row();
            pos[0] = Int::from(-31 - slope * r);
            pos[b.col_dim(1)] = Int::ONE;
            b.add_eq(pos);
            let mut lo = b.zero_row();
            lo[e] = Int::ONE;
            b.add_ineq(lo);
            let mut hi = b.zero_row();
            hi[0] = Int::from(extent);
            hi[e] = Int::from(-coef);
            b.add_ineq(hi);
            let mut cap = b.zero_row();
            cap[0] = Int::from(top);
            cap[b.col_dim(0)] = Int::from(-1);
            b.add_ineq(cap);
            b
        };
        let space = Space {
            params: vec![],
            domain: None,
            range: Tuple::new(None, &["i", "p"]),
        };
        let merged = |parts: Vec<Basic>| {
            let set = Set::from_parts(space.clone(), parts);
            let m = set.merge_shifted();
            let pts = |x: &Set| x.points(10_000).unwrap();
            assert_eq!(pts(&m), pts(&set), "{set}: {m}");
            m.n_basic()
        };
        let plain = |r: i64| row(r, 5, 0, 100, 1);
        assert_eq!(merged((0..4).map(plain).collect()), 1);
        // Rows 0, 1 and 3: the first two are one strip, the third stays.
        assert_eq!(merged([0, 1, 3].map(plain).to_vec()), 2);
        // Two equalities and an inequality shifted together: the position by two per row,
        // the last row's cap (`i <= 20 + r`) by one.
        assert_eq!(
            merged((0..14).map(|r| row(r, 5, 2, 20 + r, 1)).collect()),
            1
        );
        // An extent shrinking by one per row steps with the row: one part.
        assert_eq!(merged(vec![row(0, 5, 2, 100, 1), row(1, 4, 2, 100, 1)]), 1);
        // Constants that do not step by one shift: the longest run is two parts.
        assert_eq!(
            merged(vec![
                row(0, 5, 2, 100, 1),
                row(1, 4, 2, 100, 1),
                row(2, 5, 2, 100, 1)
            ]),
            2
        );
        // Parts whose coefficients differ are left alone.
        assert_eq!(merged(vec![row(0, 5, 2, 100, 1), row(1, 5, 2, 100, 2)]), 2);
    }

    #[test]
    fn floors() {
        let (_, n) =
            count("{ [i] : 0 <= i <= 7 and floor(i/4) = 0 or 0 <= i <= 7 and floor(i/4) = 1 }");
        assert_eq!(n, 1);
    }
}
