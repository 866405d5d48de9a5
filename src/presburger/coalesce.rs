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

use super::basic::Basic;
use super::budget::{self, Budgeted};
use super::int::Int;
use super::row::Row;
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

/// The parts of a union with those that differ only in the constant of one equality, by
/// consecutive values, made one: `∪_{c = a..b} { L + c = 0 ∧ C }` is `{ -b <= L <= -a ∧ C }`,
/// exactly, whatever `L` and `C` are (each part's locals are its own, and the union of the
/// parts' existentials is the existential of the union). Register rows of generated code
/// are such parts (`i = 14e + r` for each row `r` of a strip); their union is the strip
/// (`0 <= i - 14e <= 13`), which the pairwise merge of [`coalesce`] does not find (each
/// pair alone is not convex) nor tries past [`MAX_PARTS`]. No emptiness test is made.
pub fn merge_shifted(mut parts: Vec<Basic>) -> Vec<Basic> {
    while let Some((members, k, lo, hi)) = shifted_run(&parts) {
        let first = members[0];
        let mut b = parts[first].clone();
        let (mut eqs, mut ineqs) = (b.eqs().to_vec(), b.ineqs().to_vec());
        let row = normalized(&eqs.swap_remove(k));
        // `L + c = 0` for `c` in `lo..=hi`: `L + hi >= 0` and `-L - lo >= 0`.
        let mut up = row.clone();
        up[0] = hi;
        let mut down: Row = row.iter().map(|v| -v).collect();
        down[0] = -lo;
        ineqs.push(up);
        ineqs.push(down);
        b.set_rows(eqs, ineqs);
        let mut keep: Vec<Basic> = parts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !members.contains(i))
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

/// Two or more parts equal but for the constant of one equality, by consecutive constants:
/// the parts, the equality's index in the first, and the constants' range.
fn shifted_run(parts: &[Basic]) -> Option<(Vec<usize>, usize, Int, Int)> {
    // A part's rows but equality `k`, in a canonical order, with that equality's row
    // without its constant: what two parts to merge must share.
    let shape = |b: &Basic, k: usize| {
        let mut eqs: Vec<Row> = b.eqs().iter().map(normalized).collect();
        let mut row = eqs.swap_remove(k);
        let c = std::mem::replace(&mut row[0], Int::ZERO);
        eqs.sort();
        let mut ineqs = b.ineqs().to_vec();
        ineqs.sort();
        ((row, eqs, ineqs), c)
    };
    for (i, b) in parts.iter().enumerate() {
        for k in 0..b.eqs().len() {
            let (key, c) = shape(b, k);
            let mut members = vec![(c, i)];
            for (j, o) in parts.iter().enumerate() {
                if j == i || o.divs() != b.divs() || o.eqs().len() != b.eqs().len() {
                    continue;
                }
                if let Some(kj) = (0..o.eqs().len()).find(|&kj| shape(o, kj).0 == key) {
                    members.push((shape(o, kj).1, j));
                }
            }
            if members.len() < 2 {
                continue;
            }
            members.sort();
            // The run of consecutive constants that holds part `i`.
            let at = members.iter().position(|m| m.1 == i).unwrap_or(0);
            let (mut lo, mut hi) = (at, at);
            while lo > 0 && &members[lo - 1].0 + &Int::ONE == members[lo].0 {
                lo -= 1;
            }
            while hi + 1 < members.len() && &members[hi].0 + &Int::ONE == members[hi + 1].0 {
                hi += 1;
            }
            if hi > lo {
                let run: Vec<usize> = members[lo..=hi].iter().map(|m| m.1).collect();
                let first = run[0];
                // The equality's index in the run's first part.
                let kf = (0..parts[first].eqs().len())
                    .find(|&kf| shape(&parts[first], kf).0 == key)
                    .unwrap_or(k);
                return Some((run, kf, members[lo].0.clone(), members[hi].0.clone()));
            }
        }
    }
    None
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
    /// `e` a local without a closed form, as projections leave it), make their strip; rows
    /// with a gap between them stay apart; the points are the same.
    #[test]
    fn shifted_equalities() {
        use crate::presburger::{Int, Set, Space, Tuple};
        let row = |r: i64, extent: i64| {
            let mut b = Basic::universe(0, 1);
            let e = b.add_local();
            let mut eq = b.zero_row();
            eq[0] = Int::from(-r);
            eq[b.col_dim(0)] = Int::ONE;
            eq[e] = Int::from(-4);
            b.add_eq(eq);
            let mut lo = b.zero_row();
            lo[e] = Int::ONE;
            b.add_ineq(lo);
            let mut hi = b.zero_row();
            hi[0] = Int::from(extent);
            hi[e] = Int::from(-1);
            b.add_ineq(hi);
            b
        };
        let space = Space {
            params: vec![],
            domain: None,
            range: Tuple::new(None, &["i"]),
        };
        let merged = |parts: Vec<Basic>| {
            let set = Set::from_parts(space.clone(), parts);
            let m = set.merge_shifted();
            let pts = |x: &Set| x.points(10_000).unwrap();
            assert_eq!(pts(&m), pts(&set), "{set}: {m}");
            m.n_basic()
        };
        assert_eq!(merged((0..4).map(|r| row(r, 5)).collect()), 1);
        // Rows 0, 1 and 3: the first two are one strip, the third stays.
        assert_eq!(merged([0, 1, 3].map(|r| row(r, 5)).to_vec()), 2);
        // Parts that differ elsewhere are left alone.
        assert_eq!(merged(vec![row(0, 5), row(1, 4)]), 2);
    }

    #[test]
    fn floors() {
        let (_, n) =
            count("{ [i] : 0 <= i <= 7 and floor(i/4) = 0 or 0 <= i <= 7 and floor(i/4) = 1 }");
        assert_eq!(n, 1);
    }
}
