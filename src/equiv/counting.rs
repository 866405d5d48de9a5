//! Iterators counted from a tile's start. Generated code sometimes counts a loop inside a
//! tile from the tile's origin (`c9` from 0 to 127, with `A[i][128 * c3 + c9]`), so that
//! the original iterator `k = 128·c3 + c9` appears only in the subscripts. An instance
//! `(c1, c3, i, c9, j)` then fixes its tile `c3` only together with `c9`, and the points
//! left after dropping determined dimensions ([`super::plain::Points`]) keep the tile.
//!
//! Counting such a statement's instances in the coordinates its subscripts use — `c9`
//! replaced by `128·c3 + c9` — is a unimodular change (one row of the identity replaced
//! by a row with 1 on its diagonal, the whole matrix of determinant ±1), so a bijection
//! between integer points that needs no division either way; after it `c3` is the
//! quotient `⌊k/128⌋` and is dropped like any tile coordinate.

use crate::presburger::{linalg, Int, Map, Set, Space};

/// The subscripts of the accesses `rels` (`S[x] -> A[f(x)]`) as rows of coefficients on
/// the statement's dimensions (parameters and constants left out): those written as one
/// equality `a_o = f(x)` without existentials.
pub fn subscripts<'a>(rels: impl IntoIterator<Item = &'a Map>) -> Vec<Vec<Int>> {
    let mut out: Vec<Vec<Int>> = vec![];
    for rel in rels {
        let (np, ni, no) = (rel.space().n_param(), rel.n_in(), rel.n_out());
        let ins = 1 + np..1 + np + ni;
        let outs = 1 + np + ni..1 + np + ni + no;
        for b in rel.parts() {
            for r in b.eqs() {
                let no_div = r[outs.end..].iter().all(Int::is_zero);
                let out_cols: Vec<usize> = outs.clone().filter(|&c| !r[c].is_zero()).collect();
                let [o] = out_cols[..] else { continue };
                if !no_div || r[o].abs() != Int::ONE {
                    continue;
                }
                // a_o·r[o] + e·x + … = 0, so a_o = -r[o]·(e·x + …).
                let e: Vec<Int> = r[ins.clone()].iter().map(|v| -(v * &r[o])).collect();
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
    }
    out
}

/// The change `y = M x` of a statement's `n` dimensions that counts them as its
/// subscripts `subs` do: each subscript over two dimensions or more with a coefficient ±1
/// on a dimension not changed yet (the innermost such) replaces that dimension, as long
/// as the matrix stays unimodular. `None` where nothing changes.
pub fn change(n: usize, subs: &[Vec<Int>]) -> Option<Vec<Vec<Int>>> {
    let mut m: Vec<Vec<Int>> = (0..n)
        .map(|i| (0..n).map(|j| Int::from((i == j) as i64)).collect())
        .collect();
    let mut changed = vec![false; n];
    for e in subs {
        let dims: Vec<usize> = (0..n).filter(|&j| !e[j].is_zero()).collect();
        if dims.len() < 2 {
            continue;
        }
        let Some(&d) = dims
            .iter()
            .rev()
            .find(|&&j| !changed[j] && e[j].abs() == Int::ONE)
        else {
            continue;
        };
        let row: Vec<Int> = if e[d] == Int::ONE {
            e.clone()
        } else {
            e.iter().map(|v| -v).collect()
        };
        let mut next = m.clone();
        next[d] = row;
        if linalg::det(&next).abs() == Int::ONE {
            m = next;
            changed[d] = true;
        }
    }
    changed.iter().any(|&c| c).then_some(m)
}

/// `S[x] -> S[M x]` on `domain`.
pub fn change_map(domain: &Set, m: &[Vec<Int>]) -> Map {
    let n = domain.n_dim();
    let np = domain.space().n_param();
    let tuple = domain.tuple().clone();
    let space = Space {
        params: domain.space().params.clone(),
        domain: Some(tuple.clone()),
        range: tuple,
    };
    let eqs: Vec<Vec<Int>> = m
        .iter()
        .enumerate()
        .map(|(k, row)| {
            let mut r = vec![Int::ZERO; 1 + np + 2 * n];
            for (j, v) in row.iter().enumerate() {
                r[1 + np + j] = v.clone();
            }
            r[1 + np + n + k] = Int::from(-1);
            r
        })
        .collect();
    Map::universe(space)
        .add_constraints(&eqs, &[])
        .intersect_domain(domain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::{parse_map, parse_set};

    #[test]
    fn an_iterator_counted_from_its_tile_is_counted_as_the_subscript_does() {
        let rel = parse_map(
            "[n] -> { S[c3, i, c9] -> A[i, 128c3 + c9] : 0 <= c9 <= 127 and 0 <= i < n }",
            &[],
        )
        .unwrap();
        let subs = subscripts([&rel]);
        let m = change(3, &subs).expect("a change");
        let want: Vec<Vec<Int>> = [[1, 0, 0], [0, 1, 0], [128, 0, 1]]
            .iter()
            .map(|r| r.iter().map(|&v| Int::from(v)).collect())
            .collect();
        assert_eq!(m, want);
        let d = parse_set(
            "[n] -> { S[c3, i, c9] : 0 <= c9 <= 127 and 0 <= i < n and 0 <= 128c3 + c9 < n }",
            &[],
        )
        .unwrap();
        let moved = d.apply(&change_map(&d, &m));
        let want = parse_set(
            "[n] -> { S[c3, i, k] : 0 <= i < n and 0 <= k < n and 128c3 <= k <= 128c3 + 127 }",
            &[],
        )
        .unwrap();
        assert!(moved.is_equal(&want), "{moved}");
    }

    #[test]
    fn nothing_changes_without_a_unit_coefficient_or_a_second_dimension() {
        let rel = parse_map("{ S[i, j] -> A[2i + 2j, j + 1, i] }", &[]).unwrap();
        assert_eq!(change(2, &subscripts([&rel])), None);
        // Two subscripts that would make a singular matrix (`i + j` and `-i - j + 3`:
        // the second would replace `i` by `i + j` again): only the first is taken.
        let rel = parse_map("{ S[i, j] -> A[i + j, -i - j + 3] }", &[]).unwrap();
        let subs = subscripts([&rel]);
        assert_eq!(subs.len(), 2);
        let m = change(2, &subs).unwrap();
        let want: Vec<Vec<Int>> = [[1, 0], [1, 1]]
            .iter()
            .map(|r| r.iter().map(|&v| Int::from(v)).collect())
            .collect();
        assert_eq!(m, want);
    }
}
