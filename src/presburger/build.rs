//! Maps built in code from affine rows, as isl builds them with `isl_multi_aff` rather than
//! from text: `{ [x0, x1] -> [x1, 5*x0 + 2, 0] }` is
//! `Map::from_affine(names(&["x0", "x1"]), &[input(2, 1), affine(2, 0, &[5, 2]), constant(2, Int::ZERO)])`.
//!
//! The result is the map the parser gives for the same text (same names, same rows in the
//! same order), so code that switched from printing and parsing a map to building it
//! behaves exactly as before.

use super::basic::Basic;
use super::int::Int;
use super::row::Row;
use super::set::{Map, Set};
use super::space::{Space, Tuple};

/// An affine function of `n` inputs as a row `[c, a_1 .. a_n]`: the constant `c`.
pub fn constant(n: usize, c: Int) -> Row {
    let mut r = vec![Int::ZERO; 1 + n];
    r[0] = c;
    r
}

/// Input `i` (from 0) of `n`, as a row.
pub fn input(n: usize, i: usize) -> Row {
    let mut r = vec![Int::ZERO; 1 + n];
    r[1 + i] = Int::ONE;
    r
}

/// `a·x_i + c` over `n` inputs, as a row (`coef_const = [a, c]`).
pub fn affine(n: usize, i: usize, coef_const: &[i64; 2]) -> Row {
    let mut r = constant(n, Int::from(coef_const[1]));
    r[1 + i] = Int::from(coef_const[0]);
    r
}

/// Owned names from string slices.
pub fn names(ns: &[&str]) -> Vec<String> {
    ns.iter().map(|s| s.to_string()).collect()
}

/// The name the parser gives output `k` when the tuple writes an expression there: `o{k}`,
/// with a `'` added while a name in `taken` (the names declared before it) has it.
pub fn output_name(k: usize, taken: &[String]) -> String {
    let mut name = format!("o{k}");
    while taken.contains(&name) {
        name.push('\'');
    }
    name
}

/// One conjunction built in code: `{ [ins] -> [outs] : rows }` without parameters, over the
/// columns `[1 | ins | outs | floors]`. Floors are added first (as the parser adds every
/// floor of a formula before its constraints), then equalities, in the order they are given.
pub struct MapBuilder {
    space: Space,
    b: Basic,
}

impl MapBuilder {
    pub fn new(ins: Vec<String>, outs: Vec<String>) -> MapBuilder {
        let b = Basic::universe(0, ins.len() + outs.len());
        let space = Space {
            params: vec![],
            domain: Some(Tuple {
                name: None,
                dims: ins,
            }),
            range: Tuple {
                name: None,
                dims: outs,
            },
        };
        MapBuilder { space, b }
    }

    /// The column of input `i`.
    pub fn input(&self, i: usize) -> usize {
        self.b.col_dim(i)
    }

    /// The column of output `k`.
    pub fn output(&self, k: usize) -> usize {
        self.b.col_dim(self.space.n_in() + k)
    }

    /// A row of zeros over the current columns.
    pub fn zero_row(&self) -> Row {
        self.b.zero_row()
    }

    /// `floor(num / den)` (`den > 0`, `num` over the current columns) as a column: a new
    /// known local (an identical one is reused), or `None` when `den` is 1 (the floor is
    /// `num` itself).
    pub fn floor(&mut self, num: Row, den: &Int) -> Option<usize> {
        (!den.is_one()).then(|| self.b.add_div(num, den.clone()))
    }

    /// Adds `r · (1, columns) = 0`; `r` spans every column added so far.
    pub fn eq(&mut self, r: Row) {
        self.b.add_eq(r);
    }

    /// Adds `r · (1, columns) >= 0`.
    pub fn ineq(&mut self, r: Row) {
        self.b.add_ineq(r);
    }

    pub fn build(self) -> Map {
        Map::from_parts(self.space, vec![self.b])
    }
}

impl Set {
    /// `{ [dims] : eqs and ineqs }` without parameters, each row over `(1, dims)`: `r = 0`
    /// for an equality, `r >= 0` for an inequality, kept in the order given.
    pub fn from_rows(dims: Vec<String>, eqs: Vec<Row>, ineqs: Vec<Row>) -> Set {
        let mut b = Basic::universe(0, dims.len());
        for r in eqs {
            b.add_eq(r);
        }
        for r in ineqs {
            b.add_ineq(r);
        }
        let space = Space {
            params: vec![],
            domain: None,
            range: Tuple { name: None, dims },
        };
        Set::from_parts(space, vec![b])
    }
}

impl Map {
    /// `{ [ins] -> [outs] }` without parameters: output `k` equals `outs[k] · (1, ins)`
    /// (each row `[c, a_1 .. a_n]` over the `n` inputs), named by [`output_name`].
    pub fn from_affine(ins: Vec<String>, outs: &[Row]) -> Map {
        let n = ins.len();
        let names: Vec<String> = (0..outs.len()).map(|k| output_name(k, &ins)).collect();
        let mut mb = MapBuilder::new(ins, names);
        for (k, e) in outs.iter().enumerate() {
            debug_assert_eq!(e.len(), 1 + n, "an output row has one entry per input");
            // o_k - e = 0
            let mut r = mb.zero_row();
            r[0] = -&e[0];
            for i in 0..n {
                r[mb.input(i)] = -&e[1 + i];
            }
            r[mb.output(k)] = Int::ONE;
            mb.eq(r);
        }
        mb.build()
    }

    /// Strip-mining of chosen inputs: `{ [ins] -> [outs] }` where each `(i, s, t, p)` of
    /// `strips` makes output `t` the tile `floor(x_i / s)` and output `p` the point
    /// `x_i - s·t`, and each `(k, i)` of `copies` makes output `k` equal input `i`. The
    /// rows are those the parser gives for `{ [ins] -> [outs] : t = floor(x_i/s) and p =
    /// x_i - s*t and ... }` with the copied outputs written as expressions (the caller names
    /// them with [`output_name`], the tiles and points with fresh names).
    pub fn strip_mined(
        ins: Vec<String>,
        outs: Vec<String>,
        strips: &[(usize, Int, usize, usize)],
        copies: &[(usize, usize)],
    ) -> Map {
        let mut mb = MapBuilder::new(ins, outs);
        let floors: Vec<Option<usize>> = strips
            .iter()
            .map(|(i, s, _, _)| {
                let mut num = mb.zero_row();
                num[mb.input(*i)] = Int::ONE;
                mb.floor(num, s)
            })
            .collect();
        for ((i, s, t, p), q) in strips.iter().zip(floors) {
            // floor(x_i/s) - t = 0 (x_i - t = 0 when s is 1)
            let mut r = mb.zero_row();
            r[q.unwrap_or_else(|| mb.input(*i))] = Int::ONE;
            r[mb.output(*t)] -= &Int::ONE;
            mb.eq(r);
            // x_i - s*t - p = 0
            let mut r = mb.zero_row();
            r[mb.input(*i)] = Int::ONE;
            r[mb.output(*t)] = -s;
            r[mb.output(*p)] = Int::from(-1);
            mb.eq(r);
        }
        for (k, i) in copies {
            // o_k - x_i = 0
            let mut r = mb.zero_row();
            r[mb.output(*k)] = Int::ONE;
            r[mb.input(*i)] = Int::from(-1);
            mb.eq(r);
        }
        mb.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::{parse_map, parse_set};

    /// The built map equals the parsed one in every part: space, rows and their order.
    fn same(built: &Map, text: &str) {
        let parsed = parse_map(text, &[]).unwrap();
        assert_eq!(built.space(), parsed.space(), "{text}");
        assert_eq!(built.parts(), parsed.parts(), "{text}");
    }

    #[test]
    fn built_maps_are_the_parsed_ones() {
        same(
            &Map::from_affine(
                names(&["x0", "x1"]),
                &[input(2, 1), affine(2, 0, &[5, 2]), constant(2, Int::ZERO)],
            ),
            "{ [x0, x1] -> [x1, 5*x0 + 2, 0] }",
        );
        // An output named like an input gets a prime, as in the parser.
        same(
            &Map::from_affine(names(&["o0", "o1"]), &[input(2, 1)]),
            "{ [o0, o1] -> [o1] }",
        );
        same(
            &Map::from_affine(names(&["o0", "o0'"]), &[input(2, 0)]),
            "{ [o0, o0'] -> [o0] }",
        );
        same(
            &Map::from_affine(vec![], &[constant(0, Int::from(-3))]),
            "{ [] -> [-3] }",
        );
        let mut r = affine(3, 2, &[-1, 4]);
        r[1] = Int::from(2);
        same(
            &Map::from_affine(names(&["a", "b", "c"]), &[r, input(3, 0)]),
            "{ [a, b, c] -> [2a - c + 4, a] }",
        );
    }

    #[test]
    fn strip_mined_maps_are_the_parsed_ones() {
        // `tile` over two loops: every output fresh.
        same(
            &Map::strip_mined(
                names(&["i0", "i1"]),
                names(&["t0", "t1", "p0", "p1"]),
                &[(0, Int::from(32), 0, 2), (1, Int::from(8), 1, 3)],
                &[],
            ),
            "{ [i0, i1] -> [t0, t1, p0, p1] : t0 = floor(i0/32) and p0 = i0 - 32*t0 and \
             t1 = floor(i1/8) and p1 = i1 - 8*t1 }",
        );
        // `strip_mine(l, 2, 4)`: an outer loop copied, then tile and point.
        same(
            &Map::strip_mined(
                names(&["x1", "x2"]),
                vec![
                    output_name(0, &names(&["x1", "x2"])),
                    "t".into(),
                    "p".into(),
                ],
                &[(1, Int::from(4), 1, 2)],
                &[(0, 0)],
            ),
            "{ [x1, x2] -> [x1, t, p] : t = floor(x2/4) and p = x2 - 4*t }",
        );
        // A size of 1 makes no floor.
        same(
            &Map::strip_mined(
                names(&["x1", "x2", "x3"]),
                vec![
                    "t1".into(),
                    "t3".into(),
                    "p1".into(),
                    output_name(3, &names(&["x1", "x2", "x3", "t1", "t3", "p1"])),
                    "p3".into(),
                ],
                &[(0, Int::ONE, 0, 2), (2, Int::from(16), 1, 4)],
                &[(3, 1)],
            ),
            "{ [x1, x2, x3] -> [t1, t3, p1, x2, p3] : t1 = floor(x1/1) and p1 = x1 - 1*t1 \
             and t3 = floor(x3/16) and p3 = x3 - 16*t3 }",
        );
    }

    #[test]
    fn built_sets_are_the_parsed_ones() {
        let parsed = parse_set("{ [v0, v1, v2] : v0 - v2 >= 3 and v1 = 0 }", &[]).unwrap();
        let built = Set::from_rows(
            names(&["v0", "v1", "v2"]),
            vec![input(3, 1).iter().map(|v| -v).collect()],
            vec![{
                let mut r = input(3, 0);
                r[0] = Int::from(-3);
                r[3] = Int::from(-1);
                r
            }],
        );
        assert_eq!(built.space(), parsed.space());
        assert_eq!(built.parts(), parsed.parts());
    }

    #[test]
    fn built_maps_compute_their_rows() {
        let m = Map::from_affine(names(&["i", "j"]), &[affine(2, 1, &[3, -1])]);
        assert_eq!(m.to_string(), "{ [i, j] -> [3j - 1] }");
    }
}
