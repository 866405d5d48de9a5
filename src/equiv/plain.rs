//! Relations without divisions where they have one. Projecting out a tile coordinate, or
//! composing through it, leaves an existential (`∃e: 4e ≤ k ≤ 4e + 3`) or a piece per
//! residue, although the relation is often a plain polyhedron (`k ≥ 0`); every later
//! difference would split on them. Here a relation is replaced by the polyhedron of its
//! constraints without divisions, within a bound, when that polyhedron is no larger than
//! the relation (checked exactly: the answer is always the same relation).

use super::counting;
use crate::presburger::{budget, Int, Map, Set};

/// `set` as one set without divisions where there is one (see [`without_divisions`]).
pub fn plain_set(set: &Set, bound: Option<&Set>) -> Set {
    let bound = bound.map(|b| Map::from_set(b, 0));
    without_divisions(&Map::from_set(set, 0), bound.as_ref())
        .range()
        .with_tuple(set.tuple().clone())
}

/// `map` as one relation without divisions where there is one: the constraints without
/// divisions that every part satisfies, within `bound` (the two domains), when that
/// relation is no larger than `map` (checked exactly); `map` itself otherwise.
pub fn without_divisions(map: &Map, bound: Option<&Map>) -> Map {
    let map = map.coalesce();
    let parts = map.parts();
    let needs = parts.len() > 1 || parts.iter().any(|b| b.n_div() > 0);
    if !needs {
        return map;
    }
    let w = 1 + map.space().n_param() + map.n_in() + map.n_out();
    let holds = |r: &[Int]| map.satisfies(r);
    let plain = |r: &Vec<Int>| r[w..].iter().all(Int::is_zero);
    let (mut eqs, mut ineqs) = (vec![], vec![]);
    for b in parts {
        for r in b.eqs().iter().filter(|r| plain(r)) {
            let minus: Vec<Int> = r[..w].iter().map(|v| -v).collect();
            if holds(&r[..w]) && holds(&minus) {
                eqs.push(r[..w].to_vec());
            }
        }
        for r in b.ineqs().iter().filter(|r| plain(r)) {
            if holds(&r[..w]) {
                ineqs.push(r[..w].to_vec());
            }
        }
    }
    let hull = match bound {
        Some(b) => b.add_constraints(&eqs, &ineqs),
        None => Map::universe(map.space().clone()).add_constraints(&eqs, &ineqs),
    };
    if within_cap(|| hull.is_subset(&map)) == Some(true) {
        hull.coalesce()
    } else {
        map
    }
}

/// Steps an exactness check of a relation without divisions may take. The check only
/// decides whether a simpler form of the same relation can be used; the relation as it is
/// serves where the check is dearer than that (a division that no plain polyhedron
/// describes makes the difference splinter by residue). In the folded 2mm-fast proof the
/// checks that finish take under two thousand steps on average; those that do not, millions.
const CHECK_STEPS: u64 = 250_000;

/// `f`'s answer when it takes at most [`CHECK_STEPS`] of the integer core's steps (charged
/// to the enclosing budget either way), `None` otherwise.
fn within_cap<T>(f: impl FnOnce() -> T) -> Option<T> {
    budget::with_budget(CHECK_STEPS, f).ok()
}

/// A statement's instances without the dimensions that the others determine (its
/// points): a tile coordinate `c3` with `4 c3 <= k <= 4 c3 + 3` is `⌊k/4⌋`, fixed by `k`.
/// Where the statement's subscripts count an iterator from its tile's start, the
/// instances are first counted as the subscripts do ([`super::counting`]), unless that
/// leaves more dimensions. Both steps are bijections between the instances and the
/// points.
#[derive(Clone, Debug)]
pub struct Points {
    /// The instances.
    pub full: Set,
    /// `S[x] -> S[M x]`, the instances counted as the subscripts do, where that helps.
    pub change: Option<Map>,
    /// The instances in those coordinates (`full` where there is no change).
    pub counted: Set,
    /// `S[x] -> S[x without the determined dimensions]` on the instances (after the
    /// change).
    pub map: Map,
    /// The dimensions kept (of `counted`), in order.
    pub keep: Vec<usize>,
    /// The points, without existentials where that is exact.
    pub domain: Set,
}

impl Points {
    /// The points of the instances `full` of a statement whose subscripts (rows of
    /// coefficients on its dimensions, [`super::counting::subscripts`]) are `subs`.
    pub fn new(full: &Set, subs: &[Vec<Int>]) -> Points {
        let (map, keep, domain) = reducing_map(full);
        let plain = Points {
            full: full.clone(),
            change: None,
            counted: full.clone(),
            map,
            keep,
            domain,
        };
        let Some(m) = counting::change(full.n_dim(), subs) else {
            return plain;
        };
        let change = counting::change_map(full, &m);
        let counted = full.apply(&change);
        let (map, keep, domain) = reducing_map(&counted);
        if keep.len() > plain.keep.len() {
            return plain;
        }
        Points {
            full: full.clone(),
            map: change.apply_range(&map),
            change: Some(change),
            counted,
            keep,
            domain,
        }
    }

    /// The instances themselves as their points.
    pub fn identity(full: &Set) -> Points {
        Points {
            full: full.clone(),
            change: None,
            counted: full.clone(),
            map: full.identity(),
            keep: (0..full.n_dim()).collect(),
            domain: full.clone(),
        }
    }

    /// Are the points the instances themselves?
    pub fn is_identity(&self) -> bool {
        self.change.is_none() && self.keep.len() == self.full.n_dim()
    }
}

/// `map`, between the instances of `from` and `to` (`None`: an array's elements, which
/// stay), on their points: one relation without divisions where there is one
/// ([`plain_through`]), the composition with the points' maps otherwise.
pub fn on_points(map: &Map, from: Option<&Points>, to: Option<&Points>) -> Map {
    if from.is_none_or(Points::is_identity) && to.is_none_or(Points::is_identity) {
        return map.coalesce();
    }
    let composed = composed(map, from, to);
    plain_on(map, &composed, from, to)
        .or_else(|| plain_by_parts(map, from, to))
        .unwrap_or(composed)
}

/// `map` on the points part by part, each part one relation without divisions (the two
/// halves of a symmetric copy), or `None` where a part is not one.
fn plain_by_parts(map: &Map, from: Option<&Points>, to: Option<&Points>) -> Option<Map> {
    let map = map.coalesce();
    if map.parts().len() < 2 {
        return None;
    }
    let mut out: Option<Map> = None;
    for b in map.parts() {
        let part = Map::from_basic(map.space().clone(), b.clone());
        let m = plain_on(&part, &composed(&part, from, to), from, to)?;
        out = Some(out.map_or(m.clone(), |u| u.union(&m)));
    }
    out
}

/// `map` on the points as one relation without divisions, or `None` where it is not one.
pub fn plain_on_points(map: &Map, from: Option<&Points>, to: Option<&Points>) -> Option<Map> {
    if from.is_none_or(Points::is_identity) && to.is_none_or(Points::is_identity) {
        let m = map.coalesce();
        return m.parts().iter().all(|b| b.n_div() == 0).then_some(m);
    }
    plain_on(map, &composed(map, from, to), from, to).or_else(|| plain_by_parts(map, from, to))
}

/// `map` composed with the points' maps of its sides.
fn composed(map: &Map, from: Option<&Points>, to: Option<&Points>) -> Map {
    let mut m = map.clone();
    if let Some(p) = from {
        m = p.map.inverse().apply_range(&m);
    }
    if let Some(p) = to {
        m = m.apply_range(&p.map);
    }
    m.coalesce()
}

fn plain_on(map: &Map, composed: &Map, from: Option<&Points>, to: Option<&Points>) -> Option<Map> {
    let side = |p: Option<&Points>, space: Set| -> (Vec<usize>, Set, Set) {
        match p {
            Some(p) => (p.keep.clone(), p.counted.clone(), p.domain.clone()),
            None => {
                let u = Set::universe(space.space().clone());
                ((0..u.n_dim()).collect(), u.clone(), u)
            }
        }
    };
    let (ki, fi, ri) = side(from, map.domain());
    let (ko, fo, ro) = side(to, map.range());
    let full_bound = Map::from_domain_and_range(&fi, &fo);
    let bound = Map::from_domain_and_range(&ri, &ro);
    // `map` between the instances as the points count them.
    let mut counted = map.clone();
    if let Some(c) = from.and_then(|p| p.change.as_ref()) {
        counted = c.inverse().apply_range(&counted);
    }
    if let Some(c) = to.and_then(|p| p.change.as_ref()) {
        counted = counted.apply_range(c);
    }
    plain_through(&counted, composed, (&ki, &ko), &full_bound, &bound)
}

/// `S[x] -> S[x without the dimensions the others determine]` on `domain`, outer
/// dimensions dropped first (the tile coordinates of generated code come before the
/// points they contain).
fn reducing_map(domain: &Set) -> (Map, Vec<usize>, Set) {
    let n = domain.n_dim();
    let mut keep: Vec<usize> = (0..n).collect();
    for d in 0..n {
        let others: Vec<usize> = keep.iter().copied().filter(|&k| k != d).collect();
        if determined(domain, d, &others) {
            keep = others;
        }
    }
    let np = domain.space().n_param();
    let mut reduced = domain.clone();
    for d in (0..n).rev() {
        if !keep.contains(&d) {
            reduced = reduced.project_out(d, 1);
        }
    }
    let mut tuple = domain.tuple().clone();
    tuple.dims = keep.iter().map(|&k| tuple.dims[k].clone()).collect();
    let reduced = plain_set(&reduced.simplify(), None).with_tuple(tuple);
    let mut eqs = vec![];
    for (j, &k) in keep.iter().enumerate() {
        let mut r = vec![Int::ZERO; 1 + np + n + keep.len()];
        r[1 + np + k] = Int::ONE;
        r[1 + np + n + j] = Int::from(-1);
        eqs.push(r);
    }
    let map = Map::from_domain_and_range(domain, &reduced).add_constraints(&eqs, &[]);
    (map, keep, reduced)
}

/// Does `domain` hold no two points that agree on `others` and differ in `d`?
fn determined(domain: &Set, d: usize, others: &[usize]) -> bool {
    let n = domain.n_dim();
    let np = domain.space().n_param();
    let row = || vec![Int::ZERO; 1 + np + 2 * n];
    let mut eqs = vec![];
    for &k in others {
        let mut r = row();
        r[1 + np + k] = Int::ONE;
        r[1 + np + n + k] = Int::from(-1);
        eqs.push(r);
    }
    let mut lt = row();
    lt[1 + np + n + d] = Int::ONE;
    lt[1 + np + d] = Int::from(-1);
    lt[0] = Int::from(-1);
    Map::from_domain_and_range(domain, domain)
        .add_constraints(&eqs, &[lt])
        .is_empty()
}

/// `full` (between full instances) on the kept dimensions `keep` (of its inputs and
/// outputs) as one relation without divisions: the constraints on kept dimensions only
/// that every part satisfies, within `bound`, when with `full_bound` they describe
/// exactly `full`. The constraints are taken from the parts of `full` and of `composed`
/// (`full` composed with the points' maps, whose projections give those that the tile
/// coordinates hid); that they describe `full` is checked on the full instances, where
/// the tile coordinates are dimensions, not existentials. `None` when it does not hold.
fn plain_through(
    full: &Map,
    composed: &Map,
    keep: (&[usize], &[usize]),
    full_bound: &Map,
    bound: &Map,
) -> Option<Map> {
    let full = full.coalesce();
    let (np, ni, no) = (full.space().n_param(), full.n_in(), full.n_out());
    let w = 1 + np + ni + no;
    let kept: Vec<usize> = (0..1 + np)
        .chain(keep.0.iter().map(|k| 1 + np + k))
        .chain(keep.1.iter().map(|k| 1 + np + ni + k))
        .collect();
    // Candidates over the kept columns, from both relations' parts (no divisions).
    let mut cands: Vec<(bool, Vec<Int>)> = vec![];
    let mut add = |eq: bool, r: Vec<Int>| {
        if r[1..].iter().any(|v| !v.is_zero()) && !cands.contains(&(eq, r.clone())) {
            cands.push((eq, r));
        }
    };
    for b in full.parts() {
        let usable = |r: &&Vec<Int>| {
            r.iter()
                .enumerate()
                .all(|(c, v)| v.is_zero() || (c < w && kept.contains(&c)))
        };
        let pick = |r: &Vec<Int>| -> Vec<Int> { kept.iter().map(|&c| r[c].clone()).collect() };
        b.eqs()
            .iter()
            .filter(usable)
            .for_each(|r| add(true, pick(r)));
        b.ineqs()
            .iter()
            .filter(usable)
            .for_each(|r| add(false, pick(r)));
    }
    let wk = kept.len();
    for b in composed.parts() {
        let plain = |r: &&Vec<Int>| r[wk..].iter().all(Int::is_zero);
        b.eqs()
            .iter()
            .filter(plain)
            .for_each(|r| add(true, r[..wk].to_vec()));
        b.ineqs()
            .iter()
            .filter(plain)
            .for_each(|r| add(false, r[..wk].to_vec()));
    }
    let lift = |r: &[Int]| -> Vec<Int> {
        let mut f = vec![Int::ZERO; w];
        for (c, v) in kept.iter().zip(r) {
            f[*c] = v.clone();
        }
        f
    };
    let holds = |r: &[Int]| full.satisfies(&lift(r));
    let (mut eqs, mut ineqs) = (vec![], vec![]);
    for (eq, r) in cands {
        let minus: Vec<Int> = r.iter().map(|v| -v).collect();
        match (holds(&r), eq && holds(&minus)) {
            (true, true) => eqs.push(r),
            (true, false) => ineqs.push(r),
            _ => {}
        }
    }
    let lifted = |rows: &[Vec<Int>]| -> Vec<Vec<Int>> { rows.iter().map(|r| lift(r)).collect() };
    let hull = full_bound.add_constraints(&lifted(&eqs), &lifted(&ineqs));
    let same = || hull.is_subset(&full) && full.is_subset(&hull);
    if within_cap(same) != Some(true) {
        return None;
    }
    Some(bound.add_constraints(&eqs, &ineqs).coalesce())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::{parse_map, parse_set};

    const TILED: &str = "[n] -> { S[c, i, k] : 0 <= i < n and 0 <= k < n and 4c <= k <= 4c + 3 }";

    #[test]
    fn a_tile_coordinate_is_dropped_and_the_points_have_no_existential() {
        let p = Points::new(&parse_set(TILED, &[]).unwrap(), &[]);
        assert_eq!(p.keep, vec![1, 2]);
        let plain = parse_set("[n] -> { S[i, k] : 0 <= i < n and 0 <= k < n }", &[]).unwrap();
        assert!(p.domain.is_equal(&plain));
        assert!(p.domain.parts().iter().all(|b| b.n_div() == 0));
        // Nothing is dropped where no dimension is fixed by the others.
        let rect = parse_set("[n] -> { S[i, k] : 0 <= i < n and 0 <= k < n }", &[]).unwrap();
        assert!(Points::new(&rect, &[]).is_identity());
    }

    #[test]
    fn an_iterator_counted_from_its_tile_is_counted_as_its_subscript_and_the_tile_dropped() {
        // `for (c3) for (i) for (c9 = 0; c9 <= 7; c9++) … A[i][8 * c3 + c9]`, triangular.
        let d = parse_set(
            "[n] -> { S[c3, i, c9] : c3 >= 0 and 0 <= c9 <= 7 and 8c3 + c9 < i < n }",
            &[],
        )
        .unwrap();
        let without = Points::new(&d, &[]);
        assert_eq!(without.keep.len(), 3);
        let subs = vec![vec![Int::from(8), Int::ZERO, Int::ONE]];
        let p = Points::new(&d, &subs);
        assert!(p.change.is_some() && !p.is_identity());
        assert_eq!(p.keep, vec![1, 2]);
        let want = parse_set("[n] -> { S[i, k] : 0 <= k < i < n }", &[]).unwrap();
        assert!(p.domain.is_equal(&want), "{}", p.domain);
        // A bijection: the instances are the points taken back.
        assert!(p.map.is_injective() && d.apply(&p.map).is_equal(&p.domain));
    }

    #[test]
    fn the_pieces_of_a_tiled_reduction_make_one_plain_relation() {
        let d = parse_set(TILED, &[]).unwrap();
        let p = Points::new(&d, &[]);
        // The previous update: in the same tile, or the last point of the previous one.
        let prev = parse_map(
            "[n] -> { S[c, i, k] -> S[c, i, k - 1] : 0 <= i < n and 4c < k <= 4c + 3 and k < n; \
             S[c, i, k] -> S[c - 1, i, k - 1] : 0 <= i < n and k = 4c and c >= 1 and k < n }",
            &[],
        )
        .unwrap()
        .intersect_domain(&d)
        .intersect_range(&d);
        let r = on_points(&prev, Some(&p), Some(&p));
        let want = parse_map(
            "[n] -> { S[i, k] -> S[i, k - 1] : 0 <= i < n and 1 <= k < n }",
            &[],
        )
        .unwrap();
        assert!(r.is_equal(&want), "{r}");
        assert!(r.parts().len() == 1 && r.parts()[0].n_div() == 0, "{r}");
        // Pieces that differ by residue stay what they are (composed, not merged).
        let odd = parse_map(
            "[n] -> { S[c, i, k] -> S[c, i, k - 1] : 0 <= i < n and 4c < k <= 4c + 3 and k < n }",
            &[],
        )
        .unwrap()
        .intersect_domain(&d)
        .intersect_range(&d);
        let r = on_points(&odd, Some(&p), Some(&p));
        let all = parse_map(
            "[n] -> { S[i, k] -> S[i, k - 1] : 0 <= i < n and 1 <= k < n }",
            &[],
        )
        .unwrap();
        assert!(r.is_subset(&all) && !all.is_subset(&r), "{r}");
    }
}
