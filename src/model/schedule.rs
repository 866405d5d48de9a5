//! The 2d+1 schedule of the Loopy paper (§3.2): θ(s, i) = (p0, j1, p1, …, jM, pM).
//!
//! Positions and iteration dimensions are kept apart because the operators rewrite them
//! separately: `realign` and `isplit` move positions, `affine` replaces the iteration
//! dimensions (and shifts positions). The whole vector is only assembled, by
//! [`Schedule::to_map`], when someone needs θ itself (dependence checks, code generation).

use super::aff::{self, LinExpr};
use crate::presburger::{Basic, Int, Map, Space, Tuple};

/// One statement's schedule.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// `p0 … pM`: the path from the root of the loop tree to the statement, one more entry
    /// than there are iteration dimensions.
    pub positions: Vec<Int>,
    /// `S[iterators] -> [j1, …, jM]`: the iteration dimensions as a (single-valued) map of
    /// the statement's iterators and the parameters. Initially `j = i` for a loop counting up
    /// and `j = -i` for one counting down; after `affine` they may contain floor divisions.
    pub dims: Map,
}

impl Schedule {
    /// A schedule whose iteration dimensions are affine expressions of the iterators.
    pub fn affine(stmt: &Tuple, positions: Vec<Int>, dims: &[LinExpr]) -> Schedule {
        assert_eq!(positions.len(), dims.len() + 1);
        let out = Tuple::anonymous(dims.len(), "j");
        let dims = aff::map_from(stmt, &out, dims);
        Schedule { positions, dims }
    }

    /// Number of iteration dimensions M (θ has 2M + 1 entries).
    pub fn depth(&self) -> usize {
        self.dims.n_out()
    }

    /// Pads with zeros (positions and iteration dimensions) to `depth` iteration
    /// dimensions, so that all statements' vectors have one common length (§3.2).
    pub fn pad_to(&mut self, depth: usize) {
        let m = self.depth();
        assert!(depth >= m, "pad_to: schedule already deeper");
        if depth == m {
            return;
        }
        self.positions.resize(depth + 1, Int::ZERO);
        let space = self.dims.space().clone();
        let n_in = space.n_in();
        let mut out = space.range.clone();
        out.dims = Tuple::anonymous(depth, "j").dims;
        let new_space = Space {
            params: space.params.clone(),
            domain: space.domain.clone(),
            range: out,
        };
        let parts = self
            .dims
            .parts()
            .iter()
            .map(|b| {
                let mut b = b.clone();
                b.insert_dims(n_in + m, depth - m);
                for k in m..depth {
                    let mut r = b.zero_row();
                    r[b.col_dim(n_in + k)] = Int::ONE;
                    b.add_eq(r);
                }
                b
            })
            .collect();
        self.dims = Map::from_parts(new_space, parts);
    }

    /// θ as one map `S[iterators] -> [p0, j1, p1, …, jM, pM]`.
    pub fn to_map(&self) -> Map {
        let m = self.depth();
        let space = self.dims.space().clone();
        let n_in = space.n_in();
        let mut out = Tuple::anonymous(2 * m + 1, "t");
        out.name = None;
        let new_space = Space {
            params: space.params.clone(),
            domain: space.domain.clone(),
            range: out,
        };
        let parts: Vec<Basic> = self
            .dims
            .parts()
            .iter()
            .map(|b| {
                let mut b = b.clone();
                // Interleave: before iteration dim k (0-based) goes position k.
                for k in 0..=m {
                    b.insert_dims(n_in + 2 * k, 1);
                    let mut r = b.zero_row();
                    r[b.col_dim(n_in + 2 * k)] = Int::ONE;
                    r[0] = -&self.positions[k];
                    b.add_eq(r);
                }
                b
            })
            .collect();
        Map::from_parts(new_space, parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_schedules_from_the_paper() {
        // §3.2: Init (0,i,0,j,0,0,0) and Mult (0,i,0,j,1,k,0).
        let init = Schedule::affine(
            &Tuple::new(Some("S0"), &["i", "j"]),
            vec![Int::ZERO; 3],
            &[LinExpr::var("i"), LinExpr::var("j")],
        );
        let mut init = init;
        init.pad_to(3);
        assert_eq!(
            init.to_map().to_string(),
            "{ S0[i, j] -> [0, i, 0, j, 0, 0, 0] }"
        );
        let mult = Schedule::affine(
            &Tuple::new(Some("S1"), &["i", "j", "k"]),
            vec![Int::ZERO, Int::ZERO, Int::ONE, Int::ZERO],
            &[LinExpr::var("i"), LinExpr::var("j"), LinExpr::var("k")],
        );
        assert_eq!(
            mult.to_map().to_string(),
            "{ S1[i, j, k] -> [0, i, 0, j, 1, k, 0] }"
        );
    }

    #[test]
    fn reversed_loops_count_down() {
        let s = Schedule::affine(
            &Tuple::new(Some("S"), &["j"]),
            vec![Int::from(2), Int::ZERO],
            &[LinExpr::var("j").neg()],
        );
        assert_eq!(s.to_map().to_string(), "{ S[j] -> [2, -j, 0] }");
    }
}
