//! A schedule found by the search, written as a short script of the language's own
//! operations: `interchange`/`permute`, `skew`, `shift` (or `affine` when the hyperplanes
//! are not a permutation with unit skews), `realign` for the fusion structure, `tile` for the
//! permutable bands, `parallel` marks.

use super::schedule::{Band, Built};
use crate::presburger::affine::{fmt_affine, Times};
use crate::presburger::linalg;
use crate::presburger::row::Row;
use crate::presburger::Int;

/// What a script needs to know about the kernel's statements.
#[derive(Clone, Debug)]
pub struct Names {
    /// The handle of each statement in scripts (its tag, or `S0`, …).
    pub handles: Vec<String>,
    /// Iterator names of each statement.
    pub iterators: Vec<Vec<String>>,
    pub params: Vec<String>,
    /// Each statement's positions in the kernel's own schedule.
    pub positions: Vec<Vec<Int>>,
}

/// Choices made on top of a schedule: per band, an order of its loops, a tile size and a
/// `parallel` mark on its outermost (tile) loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Per band (in the order of [`Built::bands`]): the band's loops in their new order
    /// (a permutation of `0..len`).
    pub order: Vec<Vec<usize>>,
    /// Per band: tile size, 0 for none (bands of one loop are never tiled).
    pub tile: Vec<u32>,
    /// Per band: mark its outermost loop `parallel`.
    pub parallel: Vec<bool>,
    /// Per tiled band of at least two loops: run its tiles as wavefronts (its first tile
    /// loop skewed by its second, `skew(S, p, p + 1, 1)`, the second then `parallel`), as
    /// the standard library's `wavefront` does: a stencil's time tiles carry a dependence,
    /// so its outermost loop cannot run on the threads.
    pub wavefront: Vec<bool>,
    /// Per band: its statements distributed at its innermost loop, inside the tiles, so that
    /// each runs its own innermost loop (only where [`splittable`]).
    pub split: Vec<bool>,
}

impl Variant {
    /// The schedule as built: no permutation, no tiling, no marks.
    pub fn plain(b: &Built) -> Variant {
        Variant {
            order: b.bands.iter().map(|x| (0..x.len).collect()).collect(),
            tile: vec![0; b.bands.len()],
            parallel: vec![false; b.bands.len()],
            wavefront: vec![false; b.bands.len()],
            split: vec![false; b.bands.len()],
        }
    }

    /// Whether band `k` runs its tiles as wavefronts: marked so, tiled, and of two loops
    /// or more (the mark means nothing otherwise).
    pub fn wavefronts(&self, b: &Built, k: usize) -> bool {
        self.wavefront[k] && self.tile[k] > 0 && b.bands[k].len >= 2
    }

    /// Whether band `k`'s mark (`parallel` or wavefronts) is left out: a band around it is
    /// marked, and nested parallel loops are not generated, so the outermost mark is the
    /// one written (and estimated).
    pub fn shadowed(&self, b: &Built, k: usize) -> bool {
        let band = &b.bands[k];
        (b.bands.iter().enumerate()).any(|(j, o)| {
            j != k
                && (self.parallel[j] || self.wavefronts(b, j))
                && band.start >= o.start + o.len
                && band.stmts.iter().all(|s| o.stmts.contains(s))
        })
    }

    /// Whether band `k`'s outermost loop is marked `parallel` in the script.
    pub fn marked(&self, b: &Built, k: usize) -> bool {
        self.parallel[k] && !self.shadowed(b, k)
    }

    /// Whether band `k`'s tiles run as wavefronts in the script.
    pub fn waves(&self, b: &Built, k: usize) -> bool {
        self.wavefronts(b, k) && !self.parallel[k] && !self.shadowed(b, k)
    }

    /// A short description: `band 2 (S1): loops 3,1,2, tiled 32, parallel`.
    pub fn describe(&self, b: &Built, names: &Names) -> String {
        let mut parts = vec![];
        for (k, band) in b.bands.iter().enumerate() {
            let mut what = vec![];
            if self.order[k].iter().enumerate().any(|(i, &x)| i != x) {
                let o: Vec<String> = self.order[k].iter().map(|x| (x + 1).to_string()).collect();
                what.push(format!("order {}", o.join(",")));
            }
            if self.tile[k] > 0 {
                what.push(format!("tiled {}", self.tile[k]));
            }
            if self.split[k] {
                what.push("innermost loop split".to_string());
            }
            if self.waves(b, k) {
                what.push("wavefronts of tiles on the threads".to_string());
            }
            if self.marked(b, k) {
                what.push("parallel".to_string());
            }
            if !what.is_empty() {
                parts.push(format!("{}: {}", group(band, names), what.join(", ")));
            }
        }
        if parts.is_empty() {
            "as built".to_string()
        } else {
            parts.join("; ")
        }
    }
}

fn group(band: &Band, names: &Names) -> String {
    handles(&band.stmts, names)
}

/// Statements in a script: one handle, or a group `{A, B}`.
pub(super) fn handles(stmts: &[usize], names: &Names) -> String {
    if stmts.len() == 1 {
        names.handles[stmts[0]].clone()
    } else {
        let h: Vec<&str> = stmts.iter().map(|&s| names.handles[s].as_str()).collect();
        format!("{{{}}}", h.join(", "))
    }
}

/// Whether band `k` can be split at its innermost loop: it is the innermost loop of each of
/// its statements, and two of them that run one after the other share it.
pub fn splittable(b: &Built, k: usize) -> bool {
    !split_pairs(b, k).is_empty()
}

/// The neighbours (in [`Built::order`]) of band `k` that share its innermost loop, when that
/// loop is the innermost of every statement of the band.
fn split_pairs(b: &Built, k: usize) -> Vec<(usize, usize)> {
    let band = &b.bands[k];
    let end = band.start + band.len;
    if band.len == 0 || band.stmts.iter().any(|&s| b.rows[s].len() != end) {
        return vec![];
    }
    (b.order.windows(2))
        .map(|w| (w[0], w[1]))
        .filter(|(s, t)| band.stmts.contains(s) && band.stmts.contains(t) && b.shared[*s] >= end)
        .collect()
}

/// The rows of every statement after the variant's band orders.
pub(super) fn ordered_rows(b: &Built, v: &Variant) -> Vec<Vec<Vec<Int>>> {
    let mut rows = b.rows.clone();
    for (k, band) in b.bands.iter().enumerate() {
        for &s in &band.stmts {
            let old = b.rows[s][band.start..band.start + band.len].to_vec();
            for (i, &o) in v.order[k].iter().enumerate() {
                rows[s][band.start + i] = old[o].clone();
            }
        }
    }
    rows
}

/// The script lines of a schedule and a variant, each step after a comment saying what it is
/// for. `Err` when a statement's hyperplanes are not unimodular (the language's operations
/// would leave holes in its iteration space).
pub fn write(b: &Built, v: &Variant, names: &Names) -> Result<Vec<String>, String> {
    let mut lines = schedule_lines(b, v, names)?;
    lines.extend(fusion_lines(b, names));
    let (params, tiles, shift_after) = tile_lines(b, v, names);
    lines.extend(tiles);
    lines.extend(split_lines(b, v, names, &shift_after));
    // Parameters are declared before the lines that use them.
    let mut out = params;
    out.extend(lines);
    out.extend(mark_lines(b, v, names, &shift_after));
    Ok(out)
}

/// Each statement's hyperplanes in the variant's band orders, as interchanges, skews and
/// shifts; neighbours with the same operations share one line.
fn schedule_lines(b: &Built, v: &Variant, names: &Names) -> Result<Vec<String>, String> {
    let n = b.rows.len();
    let rows = ordered_rows(b, v);
    let mut per_stmt: Vec<Vec<String>> = vec![];
    for (s, r) in rows.iter().enumerate() {
        per_stmt.push(statement_lines(s, r, names)?);
    }
    let mut lines = vec![];
    let mut s = 0;
    while s < n {
        let mut e = s + 1;
        while e < n
            && rows[e].len() == rows[s].len()
            && !per_stmt[s].is_empty()
            && per_stmt[e] == per_stmt[s]
        {
            e += 1;
        }
        let h = handles(&(s..e).collect::<Vec<_>>(), names);
        if !per_stmt[s].is_empty() {
            lines.push(format!(
                "# {h}: its loops in the schedule found (legal hyperplanes)"
            ));
        }
        for l in &per_stmt[s] {
            lines.push(l.replace("\u{0}", &h));
        }
        s = e;
    }
    Ok(lines)
}

/// The fusion structure: the statements' order when it is not the textual one, and the
/// loops neighbours share.
fn fusion_lines(b: &Built, names: &Names) -> Vec<String> {
    let n = b.rows.len();
    let reordered = b.order.len() == n && b.order.iter().enumerate().any(|(k, &s)| k != s);
    if reordered {
        let mut lines =
            vec!["# the statements' order and the loops they share (the interleaving)".into()];
        lines.extend(reorder_lines(b, names));
        return lines;
    }
    let mut lines = vec![];
    for k in 0..n.saturating_sub(1) {
        let (a, c) = (&names.positions[k], &names.positions[k + 1]);
        let depth = b.rows[k].len().min(b.rows[k + 1].len());
        let now = (a.iter().zip(c).take(depth))
            .take_while(|(x, y)| x == y)
            .count();
        if now != b.shared[k] {
            let (s, t) = (&names.handles[k], &names.handles[k + 1]);
            let shared = b.shared[k];
            lines.push(format!(
                "# {s} and {t} share their outermost {shared} loop(s) (fused there, apart inside)"
            ));
            lines.push(format!("realign({s}, {t}, {shared})"));
        }
    }
    lines
}

/// The tiles, innermost bands first so that the loop numbers of outer bands stay valid: the
/// parameters declaring their sizes, the lines, and for each band the loops the tiles of
/// bands around it added above it.
fn tile_lines(b: &Built, v: &Variant, names: &Names) -> (Vec<String>, Vec<String>, Vec<usize>) {
    let mut order: Vec<usize> = (0..b.bands.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(b.bands[k].start));
    let mut shift_after: Vec<usize> = vec![0; b.bands.len()];
    let mut params: Vec<String> = vec![];
    let mut lines = vec![];
    for &k in &order {
        let band = &b.bands[k];
        if v.tile[k] == 0 || band.len < 2 {
            continue;
        }
        let (first, last) = (band.start + 1, band.start + band.len);
        let loops: Vec<String> = (first..=last).map(|x| x.to_string()).collect();
        // The size as a script parameter, so that `loopy tune` can tune the script found.
        let mut param = format!("TILE{}", params.len() + 1);
        while names.handles.contains(&param) || names.params.contains(&param) {
            param.push('_');
        }
        if params.is_empty() {
            params.push("# tile sizes, as parameters that `loopy tune` can tune".into());
        }
        params.push(format!("param {param} = {}", v.tile[k]));
        let sizes: Vec<String> = vec![param.clone(); band.len];
        let g = group(band, names);
        lines.push(format!(
            "# tiles of {param} over loops {first} to {last} of {g} (a permutable band: no \
             dependence distance in it is negative)"
        ));
        lines.push(format!(
            "tile({g}, [{}], [{}])",
            loops.join(", "),
            sizes.join(", ")
        ));
        // Bands nested inside this one move down by its tile loops.
        for (j, other) in b.bands.iter().enumerate() {
            if other.start >= band.start + band.len
                && other.stmts.iter().all(|s| band.stmts.contains(s))
            {
                shift_after[j] += band.len;
            }
        }
    }
    (params, lines, shift_after)
}

/// The splits, after the tiles: each pair of neighbours of a band that share its innermost
/// loop keeps only the loops around it (its own tile loops and those of outer bands
/// included).
fn split_lines(b: &Built, v: &Variant, names: &Names, shift_after: &[usize]) -> Vec<String> {
    let mut lines = vec![];
    for (k, band) in b.bands.iter().enumerate() {
        if !v.split[k] {
            continue;
        }
        let tiled = if v.tile[k] > 0 && band.len >= 2 {
            band.len
        } else {
            0
        };
        let depth = band.start + band.len + tiled + shift_after[k];
        for (s, t) in split_pairs(b, k) {
            let (s, t) = (&names.handles[s], &names.handles[t]);
            lines.push(format!(
                "# {s} and {t} each their own innermost loop (one stream of accesses each)"
            ));
            lines.push(format!("realign({s}, {t}, {})", depth - 1));
        }
    }
    lines
}

/// The marks, last: a band's outermost loop (a tile loop when tiled) on the threads, or its
/// tiles as wavefronts.
fn mark_lines(b: &Built, v: &Variant, names: &Names, shift_after: &[usize]) -> Vec<String> {
    let mut lines = vec![];
    for (k, band) in b.bands.iter().enumerate() {
        let p = band.start + 1 + shift_after[k];
        let g = group(band, names);
        if v.marked(b, k) {
            lines.push(format!(
                "# loop {p} of {g} on the threads: it carries no dependence"
            ));
            lines.push(format!("parallel({g}, {p})"));
        }
        if v.waves(b, k) {
            let q = p + 1;
            lines.push(format!(
                "# wavefronts of tiles: tile loop {p} (it carries a dependence) becomes tile \
                 {p} + tile {q}; the tiles of one wavefront (loop {q}) run on the threads"
            ));
            lines.push(format!("skew({g}, {p}, {q}, 1)"));
            lines.push(format!("parallel({g}, {q})"));
        }
    }
    lines
}

/// How many loops two statements share in the kernel (their leading equal positions).
pub(super) fn shared(names: &Names, a: usize, b: usize) -> usize {
    let (p, q) = (&names.positions[a], &names.positions[b]);
    let depth = names.iterators[a].len().min(names.iterators[b].len());
    (0..depth.min(p.len()).min(q.len()))
        .take_while(|&d| p[d] == q[d])
        .count()
}

/// Number of loops statements `a` and `c` share in the kernel (common leading positions,
/// at most the depth of the shallower).
fn shared_now(names: &Names, b: &Built, a: usize, c: usize) -> usize {
    let (p, q) = (&names.positions[a], &names.positions[c]);
    let depth = b.rows[a].len().min(b.rows[c].len());
    p.iter()
        .zip(q)
        .take(depth)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The fusion structure of a schedule whose statements run in another order than the
/// textual one (`b.order`): textual neighbours that share loops in the kernel but not in
/// the new order are distributed (`realign(a, b, 0)`), the outermost loops that result are
/// put in the new order with `move_before`, and the statements that are neighbours in the
/// new order are given their common loops with `realign`.
fn reorder_lines(b: &Built, names: &Names) -> Vec<String> {
    let n = b.order.len();
    let mut lines = vec![];
    let mut place = vec![0; n];
    for (k, &s) in b.order.iter().enumerate() {
        place[s] = k;
    }
    // Textual neighbours kept together: next in the new order too, sharing a loop there.
    let together = |k: usize| {
        place[k + 1] == place[k] + 1 && b.shared[k] > 0 && shared_now(names, b, k, k + 1) > 0
    };
    let mut units: Vec<Vec<usize>> = vec![vec![0]];
    for k in 0..n.saturating_sub(1) {
        if together(k) {
            units.last_mut().expect("non-empty").push(k + 1);
        } else {
            if shared_now(names, b, k, k + 1) > 0 {
                lines.push(format!(
                    "realign({}, {}, 0)",
                    names.handles[k],
                    names.handles[k + 1]
                ));
            }
            units.push(vec![k + 1]);
        }
    }
    // Outermost loops into the new order: at the first place that differs, the loops that
    // belong there (as many as already follow one another) move with one `move_before`.
    let mut current: Vec<usize> = (0..units.len()).collect();
    let mut target = current.clone();
    target.sort_by_key(|&u| place[units[u][0]]);
    for i in 0..target.len() {
        if current[i] == target[i] {
            continue;
        }
        let j = current
            .iter()
            .position(|&u| u == target[i])
            .expect("a permutation");
        let mut len = 1;
        while i + len < target.len()
            && j + len < current.len()
            && current[j + len] == target[i + len]
        {
            len += 1;
        }
        let moved: Vec<usize> = current[j..j + len]
            .iter()
            .flat_map(|&u| units[u].iter().copied())
            .collect();
        lines.push(format!(
            "move_before({}, {})",
            handles(&moved, names),
            names.handles[units[current[i]][0]]
        ));
        let block: Vec<usize> = current.drain(j..j + len).collect();
        current.splice(i..i, block);
    }
    // Common loops of neighbours in the new order.
    for w in b.order.windows(2) {
        let (a, c) = (w[0], w[1]);
        let now = if c == a + 1 && together(a) {
            shared_now(names, b, a, c)
        } else {
            0
        };
        if now != b.shared[a] {
            lines.push(format!(
                "realign({}, {}, {})",
                names.handles[a], names.handles[c], b.shared[a]
            ));
        }
    }
    lines
}

/// The operations that give statement `s` the hyperplanes `rows` (the handle written as
/// NUL, replaced by the caller).
fn statement_lines(s: usize, rows: &[Vec<Int>], names: &Names) -> Result<Vec<String>, String> {
    let d = rows.len();
    let np = names.params.len();
    let square: Vec<Row> = rows.iter().map(|r| r[..d].to_vec()).collect();
    let det = linalg::det(&square);
    let it = |r: &Vec<Int>| -> Vec<i64> {
        r[..d]
            .iter()
            .map(|x| x.to_i64().unwrap_or(i64::MAX))
            .collect()
    };
    let m: Vec<Vec<i64>> = rows.iter().map(it).collect();
    if !det.abs().is_one() {
        return Err(format!(
            "the hyperplanes of {} are not unimodular (determinant {det})",
            names.handles[s]
        ));
    }
    let h = "\u{0}";
    let params_free = rows
        .iter()
        .all(|r| r[d..d + np].iter().all(|x| x.is_zero()));
    let mut lines = vec![];
    if params_free {
        if let Some(sigma) = unit_triangular_order(&m) {
            if sigma.iter().enumerate().any(|(i, &x)| i != x) {
                let moved: Vec<usize> = (0..d).filter(|&i| sigma[i] != i).collect();
                if moved.len() == 2 {
                    lines.push(format!(
                        "interchange({h}, {}, {})",
                        moved[0] + 1,
                        moved[1] + 1
                    ));
                } else {
                    let p: Vec<String> = sigma.iter().map(|x| (x + 1).to_string()).collect();
                    lines.push(format!("permute({h}, [{}])", p.join(", ")));
                }
            }
            for k in (1..d).rev() {
                for mm in 0..k {
                    let f = m[k][sigma[mm]];
                    if f != 0 {
                        lines.push(format!("skew({h}, {}, {}, {f})", k + 1, mm + 1));
                    }
                }
            }
            for (k, r) in rows.iter().enumerate() {
                let c = &r[d + np];
                if !c.is_zero() {
                    lines.push(format!("shift({h}, {}, {c})", k + 1));
                }
            }
            return Ok(lines);
        }
        // Skews of the kernel's loops first, then a permutation: the rows of M are those
        // of a unit lower-triangular L in another order.
        if let Some(pi) = row_order(&m) {
            for k in (1..d).rev() {
                for (mm, &f) in m[pi[k]][..k].iter().enumerate() {
                    if f != 0 {
                        lines.push(format!("skew({h}, {}, {}, {f})", k + 1, mm + 1));
                    }
                }
            }
            // New loop j is skewed loop σ(j), with pi[σ(j)] = j.
            let mut sigma = vec![0; d];
            for (k, &j) in pi.iter().enumerate() {
                sigma[j] = k;
            }
            let moved: Vec<usize> = (0..d).filter(|&i| sigma[i] != i).collect();
            if moved.len() == 2 {
                lines.push(format!(
                    "interchange({h}, {}, {})",
                    moved[0] + 1,
                    moved[1] + 1
                ));
            } else if !moved.is_empty() {
                let p: Vec<String> = sigma.iter().map(|x| (x + 1).to_string()).collect();
                lines.push(format!("permute({h}, [{}])", p.join(", ")));
            }
            for (k, r) in rows.iter().enumerate() {
                let c = &r[d + np];
                if !c.is_zero() {
                    lines.push(format!("shift({h}, {}, {c})", k + 1));
                }
            }
            return Ok(lines);
        }
    }
    // The general case: one affine map.
    let xs = &names.iterators[s];
    let exprs: Vec<String> = rows
        .iter()
        .map(|r| {
            let terms = (r[..d].iter().zip(xs)).chain(r[d..d + np].iter().zip(&names.params));
            fmt_affine(terms, &r[d + np], Times::Star)
        })
        .collect();
    if exprs.iter().zip(xs).all(|(e, x)| e == x) {
        return Ok(vec![]);
    }
    lines.push(format!(
        "affine({h}, {{[{}] -> [{}]}})",
        xs[..d].join(", "),
        exprs.join(", ")
    ));
    Ok(lines)
}

/// A permutation `σ` (identity first, then in lexicographic order) such that
/// `L[k][j] = M[k][σ(j)]` is lower triangular with a unit diagonal.
fn unit_triangular_order(m: &[Vec<i64>]) -> Option<Vec<usize>> {
    let d = m.len();
    let mut sigma: Vec<usize> = (0..d).collect();
    loop {
        let ok = (0..d).all(|k| m[k][sigma[k]] == 1 && (k + 1..d).all(|j| m[k][sigma[j]] == 0));
        if ok {
            return Some(sigma);
        }
        if !next_permutation(&mut sigma) {
            return None;
        }
    }
}

/// For each kernel loop `k`, the row `pi[k]` of `M` that is `x_k` plus a combination of the
/// outer loops, every row used once: then `M` is a unit lower-triangular matrix with its
/// rows reordered.
fn row_order(m: &[Vec<i64>]) -> Option<Vec<usize>> {
    let d = m.len();
    let mut pi = vec![usize::MAX; d];
    for k in 0..d {
        let r = (0..d)
            .find(|&r| !pi.contains(&r) && m[r][k] == 1 && (k + 1..d).all(|j| m[r][j] == 0))?;
        pi[k] = r;
    }
    Some(pi)
}

/// Advances to the next permutation in lexicographic order; false after the last.
pub fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangular_orders() {
        // (j, i + j): σ = [1, 0], skew of the new loop 2 by loop 1.
        assert_eq!(
            unit_triangular_order(&[vec![0, 1], vec![1, 1]]),
            Some(vec![1, 0])
        );
        assert_eq!(
            unit_triangular_order(&[vec![1, 0], vec![1, 1]]),
            Some(vec![0, 1])
        );
        assert_eq!(unit_triangular_order(&[vec![1, 1], vec![1, 0]]), None);
        assert_eq!(unit_triangular_order(&[vec![2, 1], vec![1, 1]]), None);
        // (i + j, i): skew loop 2 by loop 1, then interchange.
        assert_eq!(row_order(&[vec![1, 1], vec![1, 0]]), Some(vec![1, 0]));
        assert_eq!(row_order(&[vec![2, 1], vec![1, 1]]), None);
    }

    /// `A; B` in one loop, `C` in a second; the new order `(B C) (A)`: distribute A from B,
    /// move B's and C's loops (already one after the other) together, fuse B and C.
    #[test]
    fn reordering_lines() {
        let b = Built {
            rows: vec![vec![vec![Int::ONE, Int::ZERO, Int::ZERO]]; 3],
            shared: vec![0, 1, 0],
            bands: vec![],
            order: vec![1, 2, 0],
        };
        let p = |a: i64, c: i64| vec![Int::from(a), Int::from(c)];
        let names = Names {
            handles: vec!["A".into(), "B".into(), "C".into()],
            iterators: vec![vec!["i".into()]; 3],
            params: vec!["n".into()],
            positions: vec![p(0, 0), p(0, 1), p(1, 0)],
        };
        assert_eq!(
            reorder_lines(&b, &names),
            vec![
                "realign(A, B, 0)",
                "move_before({B, C}, A)",
                "realign(B, C, 1)"
            ]
        );
        // The textual order with the same fusion needs no move.
        let b = Built {
            order: vec![0, 1, 2],
            shared: vec![1, 0, 0],
            ..b
        };
        let lines = write(&b, &Variant::plain(&b), &names).unwrap();
        assert!(lines.is_empty(), "{lines:?}");
    }

    /// Two statements in a band of two loops `(t, i)`, each with a band of its own inside
    /// (`j`): a band's tiles as wavefronts are written as the skew of its first tile loop
    /// by its second and the mark of the second, after a comment; the inner bands' marks
    /// are left out under a marked band (nested parallel loops are not generated), and
    /// written where it is not marked.
    #[test]
    fn wavefronts_and_marks_under_them() {
        let row = |k: usize| {
            (0..6)
                .map(|c| Int::from(i64::from(c == k)))
                .collect::<Row>()
        };
        let b = Built {
            rows: vec![vec![row(0), row(1), row(2)]; 2],
            shared: vec![2, 0],
            bands: vec![
                Band {
                    stmts: vec![0, 1],
                    start: 0,
                    len: 2,
                },
                Band {
                    stmts: vec![0],
                    start: 2,
                    len: 1,
                },
                Band {
                    stmts: vec![1],
                    start: 2,
                    len: 1,
                },
            ],
            order: vec![0, 1],
        };
        let p = |a: i64, c: i64| vec![Int::from(a), Int::from(c), Int::ZERO];
        let names = Names {
            handles: vec!["A".into(), "B".into()],
            iterators: vec![vec!["t".into(), "i".into(), "j".into()]; 2],
            params: vec!["n".into()],
            positions: vec![p(0, 0), p(0, 1)],
        };
        let mut v = Variant::plain(&b);
        v.tile[0] = 16;
        v.parallel = vec![false, true, true];
        v.wavefront[0] = true;
        assert!(v.waves(&b, 0) && v.shadowed(&b, 1) && v.shadowed(&b, 2));
        let lines = write(&b, &v, &names).unwrap();
        let n = lines.len();
        assert_eq!(
            lines[n - 2..],
            ["skew({A, B}, 1, 2, 1)", "parallel({A, B}, 2)"]
        );
        assert!(
            lines[n - 3].starts_with("# wavefronts of tiles: "),
            "{lines:?}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("parallel(")).count(),
            1
        );
        assert!(
            !v.describe(&b, &names).contains("parallel"),
            "{}",
            v.describe(&b, &names)
        );
        // Untiled, the mark means nothing and the inner bands' marks are written.
        v.tile[0] = 0;
        assert!(!v.waves(&b, 0) && !v.shadowed(&b, 1));
        let lines = write(&b, &v, &names).unwrap();
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("parallel(")).count(),
            2
        );
        assert!(!lines.iter().any(|l| l.starts_with("skew(")), "{lines:?}");
    }
}
