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
//! Parts are merged only when their locals have the same definitions (the same floors in the
//! same columns), so that a constraint means the same thing in both; parts with locals that
//! have no closed form are left alone.

use super::basic::Basic;
use super::budget;
use super::int::Int;
use super::omega::Row;

/// Most parts a union may have for the pairwise search (quadratic in the number of parts).
const MAX_PARTS: usize = 24;

/// The parts of a union, with pairs merged where one conjunction of their constraints holds
/// exactly their points; never more parts than given, the same integer points.
pub fn coalesce(parts: Vec<Basic>) -> Vec<Basic> {
    let mut parts: Vec<Basic> = parts
        .into_iter()
        .filter_map(|mut b| (b.normalize() && !b.is_empty()).then_some(b))
        .collect();
    if parts.len() > MAX_PARTS {
        return parts;
    }
    // Merge until no pair merges: each merge removes a part.
    'outer: loop {
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                if let Some(h) = merge(&parts[i], &parts[j]) {
                    parts[i] = h;
                    parts.remove(j);
                    continue 'outer;
                }
            }
        }
        return parts;
    }
}

/// One conjunction with exactly the points of `a ∪ b`, from their constraints, if there is
/// one of the kind described in the module documentation.
pub fn merge(a: &Basic, b: &Basic) -> Option<Basic> {
    budget::tick(1 + (a.eqs.len() + a.ineqs.len() + b.eqs.len() + b.ineqs.len()) as u64);
    if a.n_param != b.n_param || a.n_dim != b.n_dim || a.divs != b.divs {
        return None;
    }
    if a.divs.iter().any(Option::is_none) {
        return None;
    }
    let mut h = a.clone();
    h.eqs.clear();
    h.ineqs.clear();
    // Definitions of the locals hold on both sides.
    for i in 0..a.n_div() {
        if let Some(d) = a.div_constraints(a.col_div(i)) {
            h.ineqs.extend(d);
        }
    }
    keep_valid(a, b, &mut h);
    keep_valid(b, a, &mut h);
    // H ⊇ A ∪ B by construction; equal when nothing of H lies outside both.
    let outside_a = h.subtract(a);
    if outside_a.iter().all(|p| p.subtract(b).is_empty()) {
        h.normalize();
        Some(h)
    } else {
        None
    }
}

/// Adds to `h` the constraints of `from` that every point of `other` satisfies (an equality
/// as its two inequalities when only one side holds for `other`).
fn keep_valid(from: &Basic, other: &Basic, h: &mut Basic) {
    let neg = |r: &Row| -> Row { r.iter().map(|v| -v).collect() };
    for r in &from.eqs {
        let (ge, le) = (valid(other, r), valid(other, &neg(r)));
        match (ge, le) {
            (true, true) => push(&mut h.eqs, r.clone()),
            (true, false) => push(&mut h.ineqs, r.clone()),
            (false, true) => push(&mut h.ineqs, neg(r)),
            (false, false) => {}
        }
    }
    for r in &from.ineqs {
        if valid(other, r) {
            push(&mut h.ineqs, r.clone());
        }
    }
}

fn push(rows: &mut Vec<Row>, r: Row) {
    if !rows.contains(&r) {
        rows.push(r);
    }
}

/// Whether every integer point of `b` satisfies `r >= 0`.
fn valid(b: &Basic, r: &Row) -> bool {
    let mut p = b.clone();
    let mut n: Row = r.iter().map(|v| -v).collect();
    n[0] -= &Int::ONE;
    p.ineqs.push(n);
    p.is_empty()
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn floors() {
        let (_, n) =
            count("{ [i] : 0 <= i <= 7 and floor(i/4) = 0 or 0 <= i <= 7 and floor(i/4) = 1 }");
        assert_eq!(n, 1);
    }
}
