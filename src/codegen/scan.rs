//! Fourier–Motzkin scanning (Ancourt & Irigoin): a loop nest that enumerates the integer
//! points of a union of conjunctions in lexicographic order of the scanned dimensions.
//!
//! Each level `k` takes the bounds of dimension `k` from the projection of every item onto
//! the outer dimensions (rational Fourier–Motzkin: a superset, so bounds are valid), fixes
//! dimensions that an equality pins to an expression instead of looping over them, and
//! leaves at the innermost level a guard with exactly the constraints the enclosing loops do
//! not already imply. The result runs every point once, in order, for every parameter value.
//! Where items have different ranges along a dimension, the range is separated into pieces
//! with their own loops when the pieces come in one order ([`Scanner::separate`]); a
//! guard is hoisted out of loops that do not need it. A dimension with gaps (a scaled or
//! skewed-and-scaled schedule) is scanned by a strided loop over its lattice
//! ([`Scanner::lattice`]), or, when it is a scaled iterator, by a loop over the iterator.

use super::ast::{Cond, Expr, Node};
use crate::presburger::row::{self, cancel, solve_unit, tighten, Problem, Row};
use crate::presburger::{budget, omega};
use crate::presburger::{coalesce, pip, Basic, Int, Reduced, Set};

/// One thing to scan: an identifier (a statement) and its points. The first `n_scan`
/// dimensions are scanned; further dimensions (a statement's iterators) must be determined
/// by equalities once the scanned ones are fixed.
#[derive(Clone, Debug)]
pub struct Item {
    pub id: usize,
    pub basic: Basic,
    /// Parts of one identifier in different groups are never merged into one conjunction
    /// (a statement's whole windows and the rest, `codegen::whole`); 0 unless split.
    pub group: u8,
}

/// Builds the loop nest scanning the first `n_scan` dimensions of every item. Items must be
/// pairwise disjoint and have only known locals (see [`disjoint_parts`]).
/// `inner_names[id]` names item `id`'s unscanned dimensions (may be empty).
pub fn scan(
    items: Vec<Item>,
    n_param: usize,
    n_scan: usize,
    inner_names: Vec<Vec<String>>,
) -> Vec<Node> {
    scan_in(
        items,
        n_param,
        n_scan,
        inner_names,
        &Basic::universe(n_param, n_scan),
    )
}

/// [`scan`] for the parameter values in `ctx` (a conjunction over the parameters and the
/// scanned dims) only: bounds and guards it implies are left out.
pub fn scan_in(
    items: Vec<Item>,
    n_param: usize,
    n_scan: usize,
    inner_names: Vec<Vec<String>>,
    ctx: &Basic,
) -> Vec<Node> {
    let items: Vec<Item> = items
        .into_iter()
        .filter_map(|mut it| (it.basic.normalize() && !it.basic.is_empty()).then_some(it))
        .collect();
    let items: Vec<Item> = items
        .into_iter()
        .flat_map(|mut it| {
            link_divs_to_dims(&mut it.basic, n_param, n_scan);
            let (id, group) = (it.id, it.group);
            determine_iterators(it.basic, n_param, n_scan)
                .into_iter()
                .map(move |basic| Item { id, basic, group })
        })
        .collect();
    let mut s = Scanner {
        n_param,
        n_scan,
        inner_names,
        active: vec![],
        strides: vec![None; n_scan],
    };
    hoist_guards(s.level(0, items, ctx), n_param)
}

/// Whether the equalities of `b` give every unscanned dimension (the columns from
/// `n_outer` on) by the elimination that [`Scanner::leaf`] does.
fn determined(b: &Basic, n_outer: usize) -> bool {
    undetermined_cols(b, n_outer).is_empty()
}

/// The columns of the unscanned dimensions of `b` that the elimination of
/// [`Scanner::leaf`] leaves without a value.
fn undetermined_cols(b: &Basic, n_outer: usize) -> Vec<usize> {
    let mut b = b.clone();
    let dependent = dependent_divs(&b, n_outer);
    let mut rows: Vec<(Row, bool, bool)> =
        b.eqs().iter().map(|r| (r.clone(), true, false)).collect();
    let unknowns: Vec<usize> = (n_outer..b.div_start())
        .chain(dependent.iter().copied())
        .collect();
    let solved = eliminate(&mut b, &mut rows, &unknowns);
    (n_outer..b.div_start())
        .filter(|&c| !solved.iter().any(|s| s.0 == c))
        .collect()
}

/// `b` as conjunctions with the same points in which equalities give the unscanned
/// dimensions (a statement's iterators) as functions of the parameters and scanned dims,
/// when the equalities of `b` do not already. A schedule made of floors and mods determines
/// its iterators through the locals' bounds only: with `t1 = floor(i/8)` and `t2 = i % 8`,
/// `i = 8*t1 + t2` holds on the set but is no equality of it. The value of each iterator is
/// its lexicographic minimum over the set for fixed outer columns (parametric integer
/// programming, [`pip::lexmin`]): a quasi-affine function of them on each of disjoint
/// pieces. Divisions of the minimum that are constant on their piece are replaced by their
/// value, and pieces with the same value are one. Each piece becomes a conjunction with the
/// divisions its value needs as known locals and `x = value` added after checking, exactly,
/// that `b` there implies it (so `x` takes no other value). Then the loops see the
/// iterators' bounds through the equalities and the statement gets their expressions. `b`
/// unchanged where the minimum cannot be computed or is not the only value (the schedule
/// is not one-to-one).
fn determine_iterators(b: Basic, n_param: usize, n_scan: usize) -> Vec<Basic> {
    let n_outer = 1 + n_param + n_scan;
    if b.n_dim() == n_scan || determined(&b, n_outer) {
        return vec![b];
    }
    if let Some(q) = solve_by_bounds(&b, n_outer) {
        return vec![q];
    }
    let mut p = b.clone();
    p.set_n_param(n_param + n_scan);
    let Ok(mut leaves) = pip::lexmin(&p) else {
        return vec![b];
    };
    for leaf in &mut leaves {
        fold_constant_leaf_divs(leaf);
    }
    // A piece's value that is affine in the outer columns and holds on the whole set
    // (pieces often differ only where their values coincide): no piece's conditions needed.
    let uses_div = |v: &Row| v[n_outer..].iter().any(|x| !x.is_zero());
    if leaves.len() > 1 {
        let known = Known::new(b.to_problem());
        let everywhere = leaves.iter().position(|l| {
            l.vals.iter().enumerate().all(|(d, v)| {
                !uses_div(v) && {
                    let mut r = b.zero_row();
                    for (x, y) in r.iter_mut().zip(&v[..n_outer]) {
                        *x = -y;
                    }
                    r[n_outer + d] = Int::ONE;
                    known.implies(&r, true)
                }
            })
        });
        if let Some(i) = everywhere {
            leaves.swap(0, i);
            leaves.truncate(1);
        }
    }
    let whole = leaves.len() == 1;
    let mut out = vec![];
    for leaf in &leaves {
        let mut q = b.clone();
        // Leaf columns `[1 | params | scanned dims | divisions]` to columns of `q`; a
        // division becomes a local of `q` only when something added uses it.
        let mut rows: Vec<(Row, bool)> = vec![];
        if !whole {
            rows.extend(leaf.ctx.eqs().iter().map(|r| (r.clone(), true)));
            rows.extend(
                (leaf.ctx.ineqs().iter())
                    .filter(|r| !leaf.ctx.is_div_constraint(r))
                    .map(|r| (r.clone(), false)),
            );
        }
        for (d, v) in leaf.vals.iter().enumerate() {
            // x_d - value = 0, with x_d at leaf column `w + d` (past the leaf's columns)
            let mut r: Row = v.iter().map(|x| -x).collect();
            r.resize(leaf.ctx.width() + d + 1, Int::ZERO);
            r[leaf.ctx.width() + d] = Int::ONE;
            rows.push((r, true));
        }
        let mut needed = vec![false; leaf.ctx.n_div()];
        for i in (0..leaf.ctx.n_div()).rev() {
            let col = leaf.ctx.col_div(i);
            let by_rows = rows.iter().any(|(r, _)| !r[col].is_zero());
            let by_divs = (i + 1..leaf.ctx.n_div()).any(|j| {
                needed[j]
                    && (leaf.ctx.divs()[j].as_ref()).is_some_and(|dv| !dv.num()[col].is_zero())
            });
            needed[i] = by_rows || by_divs;
        }
        let mut map: Vec<Option<usize>> = (0..n_outer).map(Some).collect();
        for (i, d) in leaf.ctx.divs().iter().enumerate() {
            if !needed[i] {
                map.push(None);
                continue;
            }
            let Some(d) = d else { return vec![b] };
            let mut num = q.zero_row();
            for (c, v) in d.num().iter().enumerate().filter(|(_, v)| !v.is_zero()) {
                let Some(m) = map[c] else { return vec![b] };
                num[m] += v;
            }
            map.push(Some(q.add_div(num, d.den().clone())));
        }
        // The iterators' columns in `q`.
        map.extend((0..leaf.vals.len()).map(|d| Some(n_outer + d)));
        let mut lifted = vec![];
        for (r, eq) in rows {
            let mut x = q.zero_row();
            for (c, v) in r.iter().enumerate().filter(|(_, v)| !v.is_zero()) {
                let Some(m) = map[c] else { return vec![b] };
                x[m] += v;
            }
            lifted.push((x, eq));
        }
        let n_vals = leaf.vals.len();
        let (ctx_rows, val_rows) = lifted.split_at(lifted.len() - n_vals);
        for (r, eq) in ctx_rows {
            if *eq {
                q.add_eq(r.clone());
            } else {
                q.add_ineq(r.clone());
            }
        }
        let known = Known::new(q.to_problem());
        if !val_rows.iter().all(|(r, _)| known.implies(r, true)) {
            return vec![b];
        }
        q.extend_eqs(val_rows.iter().map(|(r, _)| r.clone()));
        if q.normalize() && !q.is_empty() {
            out.push(q);
        }
    }
    out
}

/// Replaces, in the values of a parametric minimum's piece, each division the piece's
/// context pins to one constant (`floor(t/8)` where `0 <= t <= 7`) by that constant.
fn fold_constant_leaf_divs(leaf: &mut pip::Leaf) {
    let ctx = &leaf.ctx;
    if ctx.n_div() == 0 {
        return;
    }
    let Some(point) = omega::solve(&ctx.to_problem()) else {
        return;
    };
    let known = Known::new(ctx.to_problem());
    for i in 0..ctx.n_div() {
        let col = ctx.col_div(i);
        let value = point[col - 1].clone();
        let mut r = ctx.zero_row();
        r[col] = Int::ONE;
        r[0] = -&value;
        if !known.implies(&r, true) {
            continue;
        }
        for v in &mut leaf.vals {
            if col < v.len() {
                let k = std::mem::replace(&mut v[col], Int::ZERO);
                v[0] += &(&k * &value);
            }
        }
    }
}

/// `b` with equalities giving its unscanned dimensions (and the locals defined from them)
/// over the outer columns, found by elimination that treats those locals as plain integer
/// unknowns: an equality with a unit coefficient solves its unknown (`t3 = i - 8*q` gives
/// `i = t3 + 8*q`); an unknown `u` between two bounds `a*u + f >= 0` and `-a*u + g >= 0`
/// with no other unknown left and `f + g` a constant below `a` is `floor(g / a)` (after
/// the substitution, `96*t1 + 8*t2 <= t3 + 8*q <= 96*t1 + 8*t2 + 7` gives
/// `q = 12*t1 + t2 + floor((7 - t3)/8)`). A floor that is constant on the set is replaced by
/// its value (`floor((7 - t3)/8) = 0` where `0 <= t3 <= 7`); another becomes a known local.
/// Every equality is checked exactly against `b` before it is added; `None` when some
/// unscanned dimension is not found this way (or a check fails).
fn solve_by_bounds(b: &Basic, n_outer: usize) -> Option<Basic> {
    let n_inner = b.div_start() - n_outer;
    let mut w = b.clone();
    let mut unknowns: Vec<usize> = (n_outer..b.div_start()).collect();
    unknowns.extend(dependent_divs(b, n_outer));
    // The unknowns' values, over the columns of `w` (which grows by the new floors).
    let mut solved: Vec<(usize, Row)> = vec![];
    let substitute = |w: &mut Basic, solved: &mut Vec<(usize, Row)>, col: usize, value: &Row| {
        let sub = |r: &mut Row| row::substitute(r, col, value);
        w.map_rows(sub);
        for (_, v) in solved.iter_mut() {
            sub(v);
        }
    };
    let open_of = |solved: &[(usize, Row)]| -> Vec<usize> {
        (unknowns.iter().copied())
            .filter(|u| !solved.iter().any(|s| s.0 == *u))
            .collect()
    };
    loop {
        let open = open_of(&solved);
        if open.is_empty() {
            break;
        }
        // An equality with a unit coefficient on an unknown.
        let unit = w
            .eqs()
            .iter()
            .enumerate()
            .find_map(|(p, r)| open.iter().find(|&&u| r[u].abs().is_one()).map(|&u| (p, u)));
        if let Some((p, u)) = unit {
            let r = w.swap_remove_eq(p);
            let value = solve_unit(&r, u);
            substitute(&mut w, &mut solved, u, &value);
            solved.push((u, value));
            continue;
        }
        let others_free = |r: &Row, u: usize| open.iter().all(|&o| o == u || r[o].is_zero());
        let pair = open.iter().find_map(|&u| {
            w.ineqs().iter().find_map(|lo| {
                let a = lo[u].clone();
                if !a.is_positive() || !others_free(lo, u) {
                    return None;
                }
                w.ineqs().iter().find_map(|hi| {
                    let width = (hi[u] == -&a)
                        && (1..hi.len()).all(|c| c == u || hi[c] == -&lo[c])
                        && others_free(hi, u);
                    let c = &lo[0] + &hi[0];
                    (width && !c.is_negative() && c < a).then(|| (u, hi.clone(), a.clone()))
                })
            })
        });
        let Some((u, hi, a)) = pair else { break };
        // u = floor(g / a) with g = hi + a*u; g = a*h + g', the coefficients of g' in
        // (-a/2, a/2] and its constant whole.
        let mut g = hi;
        g[u] = Int::ZERO;
        let mut h = w.zero_row();
        let mut gr = g.clone();
        for ((gv, hv), rv) in g.iter().zip(h.iter_mut()).zip(gr.iter_mut()).skip(1) {
            let mut r = gv.mod_floor(&a);
            if &r + &r > a {
                r -= &a;
            }
            *hv = (gv - &r).div_exact(&a);
            *rv = r;
        }
        let known = Known::new(w.to_problem());
        let point = omega::solve(&w.to_problem())?;
        let at: Int = gr[1..]
            .iter()
            .zip(&point)
            .fold(gr[0].clone(), |acc, (v, x)| &acc + &(v * x));
        let q = at.div_floor(&a);
        // a*q <= g' <= a*q + a - 1 on the whole set: floor(g'/a) = q.
        let mut lo = gr.clone();
        lo[0] -= &(&a * &q);
        let mut up: Row = lo.iter().map(|v| -v).collect();
        up[0] += &(&a - &Int::ONE);
        let mut value = h;
        if known.implies(&lo, false) && known.implies(&up, false) {
            value[0] += &q;
        } else {
            let col = w.add_div(gr, a);
            for (_, v) in solved.iter_mut() {
                v.resize(w.width(), Int::ZERO);
            }
            value.resize(w.width(), Int::ZERO);
            value[col] += &Int::ONE;
        }
        value.resize(w.width(), Int::ZERO);
        substitute(&mut w, &mut solved, u, &value);
        solved.push((u, value));
    }
    // The new floors as locals of `b`, then the equalities, each checked.
    let mut q = b.clone();
    let mut map: Vec<usize> = (0..b.width()).collect();
    for d in &w.divs()[b.n_div()..] {
        let d = d.as_ref()?;
        let mut num = q.zero_row();
        for (c, v) in d.num().iter().enumerate().filter(|(_, v)| !v.is_zero()) {
            num[map[c]] += v;
        }
        map.push(q.add_div(num, d.den().clone()));
    }
    // Values that still mention an unknown say nothing yet; every iterator needs one.
    let open = open_of(&solved);
    solved.retain(|(_, v)| open.iter().all(|&o| v[o].is_zero()));
    if !(n_outer..n_outer + n_inner).all(|c| solved.iter().any(|s| s.0 == c)) {
        return None;
    }
    let known = Known::new(q.to_problem());
    let mut eqs = vec![];
    for (u, value) in &solved {
        let mut r = q.zero_row();
        for (c, v) in value.iter().enumerate().filter(|(_, v)| !v.is_zero()) {
            r[map[c]] -= v;
        }
        r[*u] += &Int::ONE;
        if !known.implies(&r, true) {
            return None;
        }
        eqs.push(r);
    }
    q.extend_eqs(eqs);
    q.normalize().then_some(q)
}

/// Replaces a local by the scanned dimension it always equals (`floor(i/4)` beside a tile
/// dimension `t1` with `0 <= i - 4*t1 <= 3`): the constraints on the local then bound the
/// loops, instead of staying behind as guards that rational projection cannot see through.
fn link_divs_to_dims(b: &mut Basic, n_param: usize, n_scan: usize) {
    let mut linked = false;
    let mut known: Option<Known> = None;
    for i in 0..b.n_div() {
        let q = b.col_div(i);
        let used = b.eqs().iter().chain(b.ineqs()).any(|r| !r[q].is_zero());
        if !used {
            continue;
        }
        for k in 0..n_scan {
            let t = 1 + n_param + k;
            let mut diff = b.zero_row();
            diff[q] = Int::ONE;
            diff[t] = Int::from(-1);
            let kn = known.get_or_insert_with(|| Known::new(b.to_problem()));
            if kn.implies(&diff, true) {
                kn.add(diff.clone(), true);
                b.add_eq(diff);
                linked = true;
                break;
            }
        }
    }
    if linked {
        b.eliminate_locals();
        b.normalize();
    }
}

/// Scans sets (each with an identifier): the loop nest that runs every point of every set
/// once, in lexicographic order of the first `n_scan` dimensions.
pub fn scan_sets(sets: &[(usize, Set)], n_scan: usize, inner_names: Vec<Vec<String>>) -> Vec<Node> {
    let n_param = sets.first().map_or(0, |(_, s)| s.space().n_param());
    let mut items = vec![];
    for (id, s) in sets {
        for b in disjoint_parts(s) {
            items.push(Item {
                id: *id,
                basic: b,
                group: 0,
            });
        }
    }
    scan(items, n_param, n_scan, inner_names)
}

/// The first dimension after the first `n_scan` of `set` (a statement's iterator, counted
/// from 0) that [`scan`] cannot express by the scanned dims and the parameters, if any: the
/// same parts and the same recovery as scanning, without building loops.
pub fn first_undetermined(set: &Set, n_scan: usize) -> Option<usize> {
    let n_param = set.space().n_param();
    for mut b in disjoint_parts(set) {
        if !b.normalize() || b.is_empty() {
            continue;
        }
        link_divs_to_dims(&mut b, n_param, n_scan);
        let n_outer = 1 + n_param + n_scan;
        for q in determine_iterators(b, n_param, n_scan) {
            if let Some(d) = undetermined_cols(&q, n_outer).first() {
                return Some(d - n_outer);
            }
        }
    }
    None
}

/// Splits a set into pairwise disjoint conjunctions whose locals are all known floors, ready
/// to be scanned (overlapping parts would run a point twice), after coalescing it.
pub fn disjoint_parts(set: &Set) -> Vec<Basic> {
    // Fewer parts, fewer pieces to separate and shorter code.
    let set = set.coalesce();
    let set = &set;
    let mut out: Vec<Basic> = vec![];
    let mut seen = Set::empty(set.space().clone());
    for b in set.parts() {
        let one = Set::from_parts(set.space().clone(), vec![b.clone()]);
        let fresh = one.subtract(&seen);
        // Parts of one set are made disjoint by the subtraction; the pieces of exact
        // projection (dark shadow and splinters) may overlap one another, so they are too.
        for p in fresh.parts() {
            let mut local: Vec<Basic> = vec![];
            for q in p.make_divs_known() {
                let mut pieces = vec![q];
                for prev in &local {
                    pieces = pieces.iter().flat_map(|x| x.subtract(prev)).collect();
                }
                local.extend(pieces);
            }
            out.extend(local);
        }
        seen = seen.union(&one);
    }
    out
}

struct Scanner {
    n_param: usize,
    n_scan: usize,
    /// Names of each item's unscanned dimensions (its iterators), by item id; loops that
    /// count one of them take its name.
    inner_names: Vec<Vec<String>>,
    /// Names of the enclosing loops (a name is never reused inside its own loop).
    active: Vec<String>,
    /// `strides[k] = (s, g)` inside a loop over dim `k` that steps by `s` from a value
    /// congruent to `g` (over the outer columns): `c_k ≡ g (mod s)` holds there.
    strides: Vec<Option<(Int, Row)>>,
}

/// The contexts of one loop: `body` holds inside it when it runs over exactly its piece of
/// a separated level (every item with the same bounds), `outer` in any case (the enclosing
/// context and the piece's conditions on the outer dims), and `prune` is what the loop's
/// bounds may take for granted.
struct Ctxs<'a> {
    body: &'a Basic,
    outer: &'a Basic,
    prune: &'a Basic,
}

/// Most items at one level for which loop separation is attempted (it is exponential in
/// the worst case); beyond this, one loop with guards.
const MAX_SEPARATE_ITEMS: usize = 8;
/// Most pieces of one separated level.
const MAX_PIECES: usize = 16;

impl Scanner {
    fn col(&self, k: usize) -> usize {
        1 + self.n_param + k
    }

    /// Rational projection of `b` onto parameters and the first `k + 1` scanned dims.
    fn project(&self, b: &Basic, k: usize) -> Vec<Row> {
        let p = b.to_problem();
        let keep: Vec<usize> = (1..=self.n_param + k + 1).collect();
        // Within a spent work budget (see `presburger::budget`): no point, like an empty
        // projection.
        let empty = || {
            let mut r = vec![Int::ZERO; p.n() + 1];
            r[0] = Int::from(-1);
            vec![r]
        };
        budget::settle(|| row::project_rational(&p, &keep), empty)
            .into_iter()
            .map(|mut r| {
                r.truncate(1 + self.n_param + k + 1);
                r
            })
            .collect()
    }

    /// Drops bounds implied by the enclosing loops and the other bounds (over the integers),
    /// so loops read `for (j = 0; ...)` rather than `for (j = max(0, -32 * i); ...)`.
    fn prune(
        &self,
        ctx: &Basic,
        k: usize,
        lowers: Vec<Row>,
        uppers: Vec<Row>,
    ) -> (Vec<Row>, Vec<Row>) {
        let width = 1 + self.n_param + k + 1;
        let known = Known::new(Problem::new(
            width - 1,
            ctx.eqs().iter().filter_map(|r| cut(r, width)).collect(),
            ctx.ineqs().iter().filter_map(|r| cut(r, width)).collect(),
        ));
        let mut all: Vec<(Row, bool)> = lowers.into_iter().map(|r| (r, true)).collect();
        all.extend(uppers.into_iter().map(|r| (r, false)));
        all.sort();
        all.dedup();
        let mut i = 0;
        while i < all.len() {
            // Keep at least one bound on each side.
            let side = all[i].1;
            let others_on_side = all
                .iter()
                .enumerate()
                .any(|(j, (_, s))| j != i && *s == side);
            let implied = others_on_side && {
                let others: Vec<Row> = (all.iter().enumerate())
                    .filter(|&(j, _)| j != i)
                    .map(|(_, (r, _))| r.clone())
                    .collect();
                known.implies_given(&others, &all[i].0)
            };
            if implied {
                all.remove(i);
            } else {
                i += 1;
            }
        }
        let (l, u): (Vec<_>, Vec<_>) = all.into_iter().partition(|(_, s)| *s);
        (
            l.into_iter().map(|x| x.0).collect(),
            u.into_iter().map(|x| x.0).collect(),
        )
    }

    /// An exact pin of dim `k` in `b`: an equality with a unit coefficient on it and only
    /// outer columns otherwise, as the row of the value.
    fn pinned(&self, b: &Basic, k: usize) -> Option<Row> {
        let c = self.col(k);
        b.eqs().iter().find_map(|r| {
            let unit = r[c] == 1 || r[c] == -1;
            let outer_only = r.iter().skip(c + 1).all(Int::is_zero);
            (unit && outer_only).then(|| {
                let s = r[c].clone();
                let mut e: Row = r[..c].iter().map(|v| -(&s * v)).collect();
                e.push(Int::ZERO);
                e
            })
        })
    }

    fn level(&mut self, k: usize, items: Vec<Item>, ctx: &Basic) -> Vec<Node> {
        if items.is_empty() {
            return vec![];
        }
        if k == self.n_scan {
            return items.iter().map(|it| self.leaf(it, ctx)).collect();
        }
        let c = self.col(k);
        let fixed: Vec<Option<Row>> = items.iter().map(|it| self.pinned(&it.basic, k)).collect();
        // Every item pinned to a constant (a position of the 2d+1 schedule): emit in
        // increasing order, no loop.
        let constant = |e: &Row| e[1..].iter().all(|v| v.is_zero());
        if fixed.iter().all(|f| f.as_ref().is_some_and(constant)) {
            let mut groups: Vec<(Int, Vec<Item>)> = vec![];
            for (it, f) in items.into_iter().zip(fixed) {
                let v = f.expect("fixed")[0].clone();
                match groups.iter_mut().find(|(x, _)| *x == v) {
                    Some((_, g)) => g.push(it),
                    None => groups.push((v, vec![it])),
                }
            }
            groups.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = vec![];
            for (v, g) in groups {
                let mut cctx = ctx.clone();
                let mut eq = cctx.zero_row();
                eq[c] = Int::ONE;
                eq[0] = -&v;
                add_row(&mut cctx, eq, true);
                let body = self.level(k + 1, g, &cctx);
                out.push(Node::Assign {
                    var: k,
                    value: Expr::Aff(const_row(self.n_param, k, &v)),
                    body,
                });
            }
            return out;
        }
        // Every item pinned to one expression of outer dims: an assignment.
        if let Some(Some(e)) = fixed.first() {
            if fixed.iter().all(|f| f.as_ref() == Some(e)) {
                let e = e.clone();
                let mut cctx = ctx.clone();
                let mut eq: Row = e.iter().map(|v| -v).collect();
                eq.resize(cctx.width(), Int::ZERO);
                eq[c] = Int::ONE;
                add_row(&mut cctx, eq, true);
                let body = self.level(k + 1, items, &cctx);
                return vec![Node::Assign {
                    var: k,
                    value: Expr::Aff(e[..c].to_vec()),
                    body,
                }];
            }
        }
        let (items, name) = self.count_iterator(k, items);
        let stride = self.common_stride(k, &items);
        match self.separate(k, &items, ctx) {
            Some(pieces) => {
                let mut out = vec![];
                for (piece, members) in pieces {
                    let sub: Vec<Item> = members
                        .iter()
                        .map(|&m| {
                            let mut it = items[m].clone();
                            restrict(&mut it.basic, &piece);
                            it
                        })
                        .collect();
                    // Restricted to the piece, two parts of one statement may make one
                    // conjunction (the partial tiles of the last row of tiles, split by
                    // column): one loop instead of two.
                    let sub = merge_same_id(sub, 1 + self.n_param + self.n_scan);
                    // Conditions of the piece on the outer dims alone are not loop
                    // bounds: they guard the loop.
                    let conds = self.outer_conditions(k, &piece, ctx);
                    let mut cctx = ctx.clone();
                    restrict(&mut cctx, &piece);
                    // What the piece says of the outer dims alone holds inside its loop
                    // whatever the loop's bounds; its bounds on dim k only when the loop
                    // runs over exactly the piece (see `loop_over`).
                    let mut outer = ctx.clone();
                    let c = self.col(k);
                    let mut outer_piece = piece.clone();
                    outer_piece.retain_eqs(|r| r[c].is_zero());
                    outer_piece.retain_ineqs(|r| r[c].is_zero());
                    restrict(&mut outer, &outer_piece);
                    let ctxs = Ctxs {
                        body: &cctx,
                        outer: &outer,
                        prune: ctx,
                    };
                    let nodes = self.loop_over(k, sub, ctxs, name.clone(), &stride);
                    if conds.is_empty() {
                        out.extend(nodes);
                    } else {
                        out.push(Node::If { conds, body: nodes });
                    }
                }
                out
            }
            None => {
                let ctxs = Ctxs {
                    body: ctx,
                    outer: ctx,
                    prune: ctx,
                };
                self.loop_over(k, items, ctxs, name, &stride)
            }
        }
    }

    /// When every item has `t_k = a*x + g(outer)` for one of its iterators `x` and the same
    /// `a > 0` and `g`, counts `u = (t_k - g) / a` instead: the same order, and `u` is the
    /// iterator itself, so it keeps its name and statement bodies their original subscripts
    /// (tiled loops count `i` from `32 * c1` rather than an offset from 0, and a schedule
    /// scaled by 2 loops over `i` rather than over every other value of `2*i`).
    fn count_iterator(&self, k: usize, mut items: Vec<Item>) -> (Vec<Item>, Option<String>) {
        let c = self.col(k);
        let n_outer = 1 + self.n_param + self.n_scan;
        let mut g: Option<(Int, Row)> = None;
        let mut names: Vec<Option<String>> = vec![];
        for it in &items {
            let b = &it.basic;
            let inner = n_outer..b.div_start();
            let found = b.eqs().iter().find_map(|r| {
                if !(r[c] == 1 || r[c] == -1) {
                    return None;
                }
                if r[c + 1..n_outer].iter().any(|v| !v.is_zero())
                    || r[b.div_start()..].iter().any(|v| !v.is_zero())
                {
                    return None;
                }
                let nz: Vec<usize> = inner.clone().filter(|&x| !r[x].is_zero()).collect();
                let [x] = nz[..] else { return None };
                // Normalised to t_k - a*x + h = 0: need a > 0.
                let s = r[c].clone();
                let a = -(&s * &r[x]);
                if !a.is_positive() {
                    return None;
                }
                let gk: Row = r[..c].iter().map(|v| -(&s * v)).collect();
                Some((x - n_outer, (a, gk)))
            });
            let Some((x, gk)) = found else {
                return (items, None);
            };
            match &g {
                None => g = Some(gk),
                Some(g0) if *g0 == gk => {}
                Some(_) => return (items, None),
            }
            names.push(self.inner_names.get(it.id).and_then(|v| v.get(x)).cloned());
        }
        let (a, g) = g.expect("non-empty");
        let name = match names.first() {
            Some(Some(n)) if names.iter().all(|m| m.as_ref() == Some(n)) => Some(n.clone()),
            _ => None,
        };
        if !a.is_one() || g.iter().any(|v| !v.is_zero()) {
            // Substitute t_k = a*u + g: one-to-one on every item, whose t_k all lie in
            // g + aZ.
            let sub = |r: &mut Row| {
                let rc = r.get(c).cloned().unwrap_or(Int::ZERO);
                if !rc.is_zero() {
                    for (v, gv) in r.iter_mut().zip(&g) {
                        *v = &*v + &(&rc * gv);
                    }
                    r[c] = &rc * &a;
                }
            };
            for it in &mut items {
                let b = &mut it.basic;
                b.map_rows(sub);
                b.map_divs(|num, _| sub(num));
                // Divides out the common factor a of the equalities that defined t_k.
                b.normalize();
            }
        }
        (items, name)
    }

    /// The lattice dim `k` lies on in `b` once the outer dims are fixed: `t_k ≡ g (mod s)`
    /// with `s > 1` and `g` over the outer columns. Later columns are eliminated from the
    /// equalities over the integers (substituting those with a unit coefficient, which is
    /// exact); a remaining row `a*t_k + h + Σ a_i y_i = 0` then gives `s = gcd(a_i)` and
    /// `t_k ≡ -a⁻¹ h (mod s)` when `a` is invertible modulo `s`. Other rows are left out,
    /// so the lattice may be coarser than the exact one, never finer.
    fn lattice(&self, b: &Basic, k: usize) -> Option<(Int, Row)> {
        let c = self.col(k);
        let mut rows = b.eqs().to_vec();
        while let Some((p, y)) = rows.iter().enumerate().find_map(|(p, r)| {
            (c + 1..r.len())
                .find(|&y| r[y].abs().is_one())
                .map(|y| (p, y))
        }) {
            let e = rows.swap_remove(p);
            for r in rows.iter_mut() {
                if !r[y].is_zero() {
                    // e[y] = ±1, so r - r[y]*e[y]*e clears column y.
                    let f = &r[y] * &e[y];
                    for (v, ev) in r.iter_mut().zip(&e) {
                        *v = &*v - &(&f * ev);
                    }
                }
            }
        }
        rows.iter()
            .filter(|r| !r[c].is_zero())
            .filter_map(|r| {
                let s = r[c + 1..].iter().fold(Int::ZERO, |acc, v| acc.gcd(v));
                // s = 0 pins t_k (handled as an assignment); s = 1 says nothing.
                if s <= Int::ONE {
                    return None;
                }
                let inv = mod_inverse(&r[c], &s)?;
                // Coefficients reduced to (-s/2, s/2]: `t - 2*c1` rather than `t + 2*c1`
                // modulo 4 reads the same, and small ones print shorter.
                let g: Row = r[..c]
                    .iter()
                    .map(|v| {
                        let x = (-&(&inv * v)).mod_floor(&s);
                        if &x + &x > s {
                            &x - &s
                        } else {
                            x
                        }
                    })
                    .collect();
                Some((s, g))
            })
            .max_by(|x, y| x.0.cmp(&y.0))
    }

    /// A stride for a loop over dim `k` that all items share: each item's lattice, joined
    /// (`gcd` of the moduli and of the constant differences of the offsets).
    fn common_stride(&self, k: usize, items: &[Item]) -> Option<(Int, Row)> {
        let mut acc: Option<(Int, Row)> = None;
        for it in items {
            let (s, g) = self.lattice(&it.basic, k)?;
            acc = Some(match acc {
                None => (s, g),
                Some((s0, g0)) => {
                    if g[1..] != g0[1..] {
                        return None;
                    }
                    (s0.gcd(&s).gcd(&(&g[0] - &g0[0])), g0)
                }
            });
        }
        let (s, mut g) = acc?;
        if s <= Int::ONE {
            return None;
        }
        g[0] = g[0].mod_floor(&s);
        Some((s, g))
    }

    /// Loop separation: splits the range of dim `k` into pieces where the same items are
    /// active, when the pieces follow one another in one order for every value of the
    /// outer dims. Each piece then gets its own loop with no guards for the items' bounds.
    /// `None` when one loop is already exact, or when the pieces interleave.
    fn separate(&self, k: usize, items: &[Item], ctx: &Basic) -> Option<Vec<(Basic, Vec<usize>)>> {
        if items.len() < 2 || items.len() > MAX_SEPARATE_ITEMS {
            return None;
        }
        let width = 1 + self.n_param + k + 1;
        let n_dim = k + 1;
        let mut base = Basic::universe(self.n_param, n_dim);
        base.extend_eqs(ctx.eqs().iter().filter_map(|r| cut(r, width)));
        base.extend_ineqs(ctx.ineqs().iter().filter_map(|r| cut(r, width)));
        let projs: Vec<Basic> = items
            .iter()
            .map(|it| {
                // Bounds on dim k only: conditions on the outer dims alone stay with the
                // item (its inner loops or guards), rather than splitting on parameters.
                let c = self.col(k);
                let mut p = base.clone();
                p.extend_ineqs(
                    self.project(&it.basic, k)
                        .into_iter()
                        .filter(|r| !r[c].is_zero()),
                );
                p
            })
            .collect();
        if projs.windows(2).all(|w| same_rows(&w[0], &w[1])) {
            return None;
        }
        // Venn regions: (piece, active items).
        let mut pieces: Vec<(Basic, Vec<usize>)> = vec![];
        for (m, p) in projs.iter().enumerate() {
            let mut next = vec![];
            let mut rest = vec![p.clone()];
            for (q, members) in pieces {
                let mut inter = q.intersect(p);
                if inter.normalize() && !inter.is_empty() {
                    let mut ms = members.clone();
                    ms.push(m);
                    next.push((inter, ms));
                }
                for d in minus(&q, p) {
                    next.push((d, members.clone()));
                }
                rest = rest.iter().flat_map(|r| minus(r, &q)).collect();
                if next.len() + rest.len() > MAX_PIECES {
                    return None;
                }
            }
            next.extend(rest.into_iter().map(|r| (r, vec![m])));
            pieces = next;
            if pieces.len() > MAX_PIECES {
                return None;
            }
        }
        if pieces.len() < 2 || pieces.iter().any(|(p, _)| p.n_div() > 0) {
            return None;
        }
        // Order: repeatedly take a piece that lies before all the others remaining.
        let mut order = vec![];
        let mut left: Vec<(Basic, Vec<usize>)> = pieces;
        while !left.is_empty() {
            let first = (0..left.len()).find(|&a| {
                (0..left.len()).all(|b| a == b || self.before(k, &left[a].0, &left[b].0))
            })?;
            order.push(left.remove(first));
        }
        Some(order)
    }

    /// The constraints of `piece` that do not involve dim `k` and that `ctx` does not imply.
    fn outer_conditions(&self, k: usize, piece: &Basic, ctx: &Basic) -> Vec<Cond> {
        let c = self.col(k);
        let width = c + 1;
        let mut known = Known::new(Problem::new(
            width - 1,
            ctx.eqs().iter().filter_map(|r| cut(r, width)).collect(),
            ctx.ineqs().iter().filter_map(|r| cut(r, width)).collect(),
        ));
        let mut conds = vec![];
        let rows = piece
            .eqs()
            .iter()
            .map(|r| (r, true))
            .chain(piece.ineqs().iter().map(|r| (r, false)));
        for (r, eq) in rows {
            if !r[c].is_zero() {
                continue;
            }
            if known.implies(r, eq) {
                continue;
            }
            let e = Expr::Aff(r[..c].to_vec());
            conds.push(if eq { Cond::Eq(e) } else { Cond::Ge(e) });
            known.add(r.clone(), eq);
        }
        conds
    }

    /// Whether every point of `a` comes before every point of `b` with the same outer dims
    /// (true when they never share outer values).
    fn before(&self, k: usize, a: &Basic, b: &Basic) -> bool {
        // Columns: [1, params, dims < k, a_k, b_k].
        let w = 1 + self.n_param + k;
        let mut p = Problem::new(w + 1, vec![], vec![]);
        let lift = |r: &Row, second: bool| -> Row {
            let mut x = r[..w].to_vec();
            if second {
                x.push(Int::ZERO);
                x.push(r[w].clone());
            } else {
                x.push(r[w].clone());
                x.push(Int::ZERO);
            }
            x
        };
        p.extend_eqs(a.eqs().iter().map(|r| lift(r, false)));
        p.extend_ineqs(a.ineqs().iter().map(|r| lift(r, false)));
        p.extend_eqs(b.eqs().iter().map(|r| lift(r, true)));
        p.extend_ineqs(b.ineqs().iter().map(|r| lift(r, true)));
        // a_k >= b_k
        let mut r = vec![Int::ZERO; w + 2];
        r[w] = Int::ONE;
        r[w + 1] = Int::from(-1);
        p.add_ineq(r);
        !omega::is_feasible(&p)
    }

    /// Each item with its pruned lower and upper bounds on dim `k`; items the piece leaves
    /// empty are left out.
    fn item_bounds(&mut self, k: usize, items: Vec<Item>, prune_ctx: &Basic) -> Vec<Bounded> {
        let c = self.col(k);
        let mut bs: Vec<Bounded> = vec![];
        for it in items {
            let proj = self.project(&it.basic, k);
            // An item the piece leaves empty (its projection has a row `-c >= 0`, c > 0)
            // has no bounds at all: it is not scanned, rather than taken as unbounded.
            if proj
                .iter()
                .any(|r| r[0].is_negative() && r[1..].iter().all(Int::is_zero))
            {
                continue;
            }
            let mut lowers = vec![];
            let mut uppers = vec![];
            for r in proj {
                if r[c].is_positive() {
                    lowers.push(r);
                } else if r[c].is_negative() {
                    uppers.push(r);
                }
            }
            let (lowers, uppers) = self.prune(prune_ctx, k, lowers, uppers);
            bs.push(Bounded {
                item: it,
                lowers,
                uppers,
            });
        }
        bs
    }

    /// One loop over dim `k` for `items` (or an assignment when its bounds coincide).
    /// `ctxs.body` holds what is known inside the loop beyond its bounds (see [`Ctxs`]); `ctxs.prune` what
    /// the bounds may take for granted.
    fn loop_over(
        &mut self,
        k: usize,
        items: Vec<Item>,
        ctxs: Ctxs,
        name: Option<String>,
        stride: &Option<(Int, Row)>,
    ) -> Vec<Node> {
        let c = self.col(k);
        let bs = self.item_bounds(k, items, ctxs.prune);
        if bs.is_empty() {
            return vec![];
        }
        let Some((lo_alts, hi_alts)) = bound_alternatives(&bs, c, stride) else {
            // Unbounded: the set is infinite for some parameter values. Scan only what
            // the caller bounded; an unbounded loop would not terminate.
            return vec![Node::Comment(format!(
                "dimension c{k} is unbounded here: nothing is scanned"
            ))];
        };
        // The loop's bounds are known facts inside it when every item has the same ones.
        let key = |v: &Vec<Row>| {
            let mut v = v.clone();
            v.sort();
            v
        };
        let same = bs
            .iter()
            .all(|b| key(&b.lowers) == key(&bs[0].lowers) && key(&b.uppers) == key(&bs[0].uppers));
        // With the same bounds for every item, the loop runs over exactly their range,
        // inside the piece: the piece's bounds on dim k are facts in the body. Otherwise
        // the loop runs over the hull of the items' ranges, which an item whose range is
        // empty for some outer values can widen beyond the piece (its upper bound still
        // counts): each item must then check its own bounds, so only the piece's
        // conditions on the outer dims are facts.
        let body_ctx = if same { ctxs.body } else { ctxs.outer };
        let mut cctx = body_ctx.clone();
        if same {
            for r in bs[0].lowers.iter().chain(&bs[0].uppers) {
                let mut r = r.clone();
                r.resize(cctx.width(), Int::ZERO);
                add_row(&mut cctx, r, false);
            }
        }
        let lower = Expr::min(lo_alts);
        let upper = Expr::max(hi_alts);
        // A loop of at most one iteration: a lower bound `c >= L` (unit coefficient) and an
        // upper bound that the context keeps below `L + 1`, the same for every item. It is
        // the assignment `c = L`, guarded by the other bounds at `c = L` where the context
        // does not imply them. (Items with different bounds keep their loop: as leaf guards
        // their bounds would cost the separation of the loops inside.)
        let mut known = Known::new(Problem::new(
            c - 1,
            body_ctx.eqs().iter().filter_map(|r| cut(r, c)).collect(),
            body_ctx.ineqs().iter().filter_map(|r| cut(r, c)).collect(),
        ));
        let at = |r: &Row, value: &Row| -> Row {
            let mut x: Row = r[..c].to_vec();
            for (v, w) in x.iter_mut().zip(value) {
                *v = &*v + &(&r[c] * w);
            }
            x
        };
        // The first value of the loop, when affine: `L`, or on a stride the least lattice
        // point from `L` when that simplifies to an affine expression.
        let single = |b: &Bounded| -> Option<Row> {
            b.lowers.iter().find_map(|l| {
                let (value, step) = match stride {
                    None if l[c].is_one() => (l[..c].iter().map(|v| -v).collect::<Row>(), Int::ONE),
                    Some((s, g)) => match strided_lower_expr(l, c, s, g) {
                        Expr::Aff(mut v) => {
                            v.resize(c, Int::ZERO);
                            (v, s.clone())
                        }
                        _ => return None,
                    },
                    None => return None,
                };
                let mut next = value.clone();
                next[0] += &step;
                // Some upper bound fails at the next value.
                b.uppers
                    .iter()
                    .any(|u| {
                        let mut x: Row = at(u, &next).iter().map(|v| -v).collect();
                        x[0] -= &Int::ONE;
                        known.implies(&x, false)
                    })
                    .then_some(value)
            })
        };
        let one = if same { single(&bs[0]) } else { None };
        if let Some(value) = one {
            let mut rows: Vec<Row> = vec![];
            for r in bs[0].lowers.iter().chain(&bs[0].uppers) {
                let x = tighten(at(r, &value));
                if !known.implies(&x, false) {
                    known.add(x.clone(), false);
                    rows.push(x);
                }
            }
            // Guards no integer point satisfies (`128*c3 >= 128*c5 + 127` and
            // `128*c5 >= 128*c3 - 127`): the code would never run.
            if !rows.is_empty() && !known.is_feasible() {
                return vec![];
            }
            // c - value = 0
            let mut eq: Row = value.iter().map(|v| -v).collect();
            eq.resize(cctx.width(), Int::ZERO);
            eq[c] = Int::ONE;
            add_row(&mut cctx, eq, true);
            let body = self.level(k + 1, bs.into_iter().map(|b| b.item).collect(), &cctx);
            let node = Node::Assign {
                var: k,
                value: Expr::Aff(value),
                body,
            };
            return if rows.is_empty() {
                vec![node]
            } else {
                vec![Node::If {
                    conds: pair_equalities(rows),
                    body: vec![node],
                }]
            };
        }
        let name = name.filter(|n| !self.active.contains(n));
        self.active.extend(name.clone());
        self.strides[k] = stride.clone();
        let body = self.level(k + 1, bs.into_iter().map(|b| b.item).collect(), &cctx);
        self.strides[k] = None;
        if name.is_some() {
            self.active.pop();
        }
        vec![Node::For {
            var: k,
            name,
            lower,
            step: stride.as_ref().map_or(Int::ONE, |(s, _)| s.clone()),
            upper,
            body,
        }]
    }

    /// The statement with its guard: the item's constraints the context does not imply.
    fn leaf(&self, it: &Item, ctx: &Basic) -> Node {
        let mut b = it.basic.clone();
        let n_outer = 1 + self.n_param + self.n_scan;
        let inner_dims = b.n_dim() - self.n_scan;
        // Locals defined from the iterators (floor(j/3) after tiling j) are unknowns like
        // the iterators: they are solved too (from t = 2*floor(j/3), say), and their
        // defining constraints become ordinary guards.
        let dependent = dependent_divs(&b, n_outer);
        // Constraints to check, remembering which define known locals (never guards).
        let mut rows: Vec<(Row, bool, bool)> =
            b.eqs().iter().map(|r| (r.clone(), true, false)).collect();
        for r in b.ineqs() {
            let def = b.is_div_constraint(r) && dependent.iter().all(|&c| r[c].is_zero());
            rows.push((r.clone(), false, def));
        }
        let mut conds = vec![];
        let unknowns: Vec<usize> = (n_outer..n_outer + inner_dims)
            .chain(dependent.iter().copied())
            .collect();
        let solved = eliminate(&mut b, &mut rows, &unknowns);
        // A local solved away must still be an integer; its (now stale) definition is no
        // longer used.
        let mut divisible: Vec<(Row, Int)> = vec![];
        for (col, num, den) in &solved {
            if *col >= n_outer + inner_dims && *den > Int::ONE {
                divisible.push((num.clone(), den.clone()));
            }
        }
        let mut by_dim: Vec<Option<(Row, Int)>> = vec![None; inner_dims];
        for (col, num, den) in solved {
            if col < n_outer + inner_dims {
                by_dim[col - n_outer] = Some((num, den));
            }
        }
        // Expressions only now, when every local's definition is free of iterators.
        let mut args = vec![];
        for (d, s) in by_dim.into_iter().enumerate() {
            let Some((num, den)) = s else {
                args.push(Expr::Comment(format!("iterator {d} is not determined")));
                continue;
            };
            let e = Expr::from_row(&num, &b);
            if den.is_one() {
                args.push(e);
            } else {
                divisible.push((num, den.clone()));
                args.push(Expr::ExactDiv(Box::new(e), den));
            }
        }
        // The context over the item's columns, with the known locals' definitions.
        let w = b.width();
        let lift = |r: &Row| -> Row {
            let mut x = r[..r.len().min(n_outer)].to_vec();
            x.resize(w, Int::ZERO);
            x
        };
        let mut base = b.clone();
        base.set_rows(
            ctx.eqs().iter().map(lift).collect(),
            ctx.ineqs().iter().map(lift).collect(),
        );
        for i in 0..b.n_div() {
            if let Some(d) = b.div_constraints(b.col_div(i)) {
                base.extend_ineqs(d);
            }
        }
        // What the strided loops around guarantee: c_k = g + s*q for some integer q.
        for (k, st) in self.strides.iter().enumerate() {
            if let Some((s, g)) = st {
                let q = base.add_local();
                let mut r = base.zero_row();
                for (v, gv) in r.iter_mut().zip(g) {
                    *v = -gv;
                }
                r[self.col(k)] = Int::ONE;
                r[q] = -s;
                base.add_eq(r);
            }
        }
        let fit = |r: &Row, base: &Basic| {
            let mut x = r.clone();
            x.resize(base.width(), Int::ZERO);
            x
        };
        // An integer division the context makes exact needs no test: the remainder
        // `num - den*q` cannot lie in [1, den - 1].
        for (num, den) in divisible {
            let mut p = base.clone();
            let q = p.add_local();
            let mut lo = fit(&num, &p);
            lo[q] = -&den;
            let mut hi: Row = lo.iter().map(|v| -v).collect();
            lo[0] -= &Int::ONE;
            hi[0] += &(&den - &Int::ONE);
            p.add_ineq(lo);
            p.add_ineq(hi);
            if !p.is_empty() {
                conds.push(Cond::Divisible(Expr::from_row(&num, &b), den));
            }
        }
        let mut known = Known::new(base.to_problem());
        for (r, eq, is_def) in &rows {
            if *is_def || r.iter().all(Int::is_zero) {
                continue;
            }
            let r = fit(r, &base);
            if !known.implies(&r, *eq) {
                let e = Expr::from_row(&r, &b);
                conds.push(if *eq { Cond::Eq(e) } else { Cond::Ge(e) });
                // Later guards may rely on this one.
                known.add(r, *eq);
            }
        }
        let stmt = Node::Stmt { id: it.id, args };
        if conds.is_empty() {
            stmt
        } else {
            Node::If {
                conds,
                body: vec![stmt],
            }
        }
    }
}

/// An item with its bounds on the dimension being scanned.
struct Bounded {
    item: Item,
    lowers: Vec<Row>,
    uppers: Vec<Row>,
}

/// Per item, its lower bound (the `max` of its lower bounds, on the lattice of `stride`)
/// and its upper bound (the `min`); `None` when an item is unbounded.
fn bound_alternatives(
    bs: &[Bounded],
    c: usize,
    stride: &Option<(Int, Row)>,
) -> Option<(Vec<Expr>, Vec<Expr>)> {
    let mut lo_alts: Vec<Expr> = vec![];
    let mut hi_alts: Vec<Expr> = vec![];
    for b in bs {
        if b.lowers.is_empty() || b.uppers.is_empty() {
            return None;
        }
        lo_alts.push(Expr::max(
            b.lowers
                .iter()
                .map(|r| match stride {
                    Some((s, g)) => strided_lower_expr(r, c, s, g),
                    None => lower_expr(r, c),
                })
                .collect(),
        ));
        hi_alts.push(Expr::min(
            b.uppers.iter().map(|r| upper_expr(r, c)).collect(),
        ));
    }
    Some((lo_alts, hi_alts))
}

/// The columns of `b`'s locals defined from its unscanned dims (the columns from `n_outer`
/// on), directly or through other locals.
fn dependent_divs(b: &Basic, n_outer: usize) -> Vec<usize> {
    (0..b.n_div())
        .filter(|&i| (n_outer..b.div_start()).any(|c| div_depends_on(b, i, c)))
        .map(|i| b.col_div(i))
        .collect()
}

/// Gaussian elimination of `unknowns` (columns of `b`) from the equalities among `rows`
/// (`(row, is equality, tag)`): solve an equality for one unknown, substitute it everywhere
/// (earlier solutions and the definitions of `b`'s locals included), repeat: (2i + j, i + j)
/// gives i and j. Scaling rows by the positive divisor keeps inequalities valid. Returns
/// each solved unknown's column with its value `num / den` (`den > 0`); the equalities used
/// leave `rows`.
fn eliminate(
    b: &mut Basic,
    rows: &mut Vec<(Row, bool, bool)>,
    unknowns: &[usize],
) -> Vec<(usize, Row, Int)> {
    let mut solved: Vec<(usize, Row, Int)> = vec![];
    while let Some((pos, col)) = rows.iter().enumerate().find_map(|(p, (r, eq, _))| {
        if !*eq {
            return None;
        }
        // The unknown with the smallest coefficient (a unit one keeps divisions out).
        let col = unknowns
            .iter()
            .copied()
            .filter(|&k| !r[k].is_zero())
            .min_by(|&x, &y| r[x].abs().cmp(&r[y].abs()))?;
        // Not through a local defined by the iterator itself: substituting would make
        // the definition circular.
        let circular =
            (0..b.n_div()).any(|i| !r[b.col_div(i)].is_zero() && div_depends_on(b, i, col));
        (!circular).then_some((p, col))
    }) {
        let (r, _, _) = rows.remove(pos);
        let a = r[col].clone();
        let sign = Int::from(a.signum() as i64);
        let den = a.abs();
        // a*x + rest = 0  ⇒  x = (-sign*rest) / |a|
        let mut num: Row = r.iter().map(|v| -(&sign * v)).collect();
        num[col] = Int::ZERO;
        // Each row becomes |a|*row - k*sign*(a*x + rest): the x terms cancel.
        for (row, _, _) in rows.iter_mut() {
            cancel(row, &r, col);
        }
        // Earlier solutions may mention this unknown (elimination, then back-substitution).
        for (_, num_a, den_a) in solved.iter_mut() {
            if cancel(num_a, &r, col) {
                *den_a = &*den_a * &den;
            }
        }
        b.map_divs(|dv_num, dv_den| {
            if dv_num.get(col).is_some_and(|k| !k.is_zero()) {
                dv_num.resize(r.len(), Int::ZERO);
                cancel(dv_num, &r, col);
                *dv_den = &*dv_den * &den;
            }
        });
        solved.push((col, num, den));
    }
    solved
}

fn const_row(n_param: usize, k: usize, v: &Int) -> Row {
    let mut r = vec![Int::ZERO; 1 + n_param + k];
    r[0] = v.clone();
    r
}

/// `a*x + rest >= 0` with `a > 0`: `x >= ceil(-rest / a)`.
fn lower_expr(r: &Row, c: usize) -> Expr {
    let a = r[c].clone();
    let rest: Row = r[..c].iter().map(|v| -v).collect();
    Expr::ceil(Expr::Aff(rest), a)
}

/// Facts for many implication tests: a conjunction reduced once (its unit equalities solved,
/// see [`Reduced`]), and the rows added since. The Omega test would otherwise solve the same
/// equalities again, normalising every row after each, on every test.
struct Known {
    reduced: Reduced,
    base: Problem,
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
}

impl Known {
    fn new(base: Problem) -> Known {
        let mut b = Basic::universe(0, base.n());
        b.set_rows(base.eqs().to_vec(), base.ineqs().to_vec());
        Known {
            reduced: b.reduced(),
            base,
            eqs: vec![],
            ineqs: vec![],
        }
    }

    /// Whether the facts imply `r >= 0` (with `eq`, `r == 0`), over the integers.
    fn implies(&self, r: &Row, eq: bool) -> bool {
        self.implies_given(&[], r)
            && (!eq || self.implies_given(&[], &r.iter().map(|v| -v).collect()))
    }

    /// Whether the facts and `extra >= 0` imply `r >= 0`, over the integers.
    fn implies_given(&self, extra: &[Row], r: &Row) -> bool {
        let mut neg: Row = r.iter().map(|v| -v).collect();
        neg[0] -= &Int::ONE;
        let mut ineqs = self.ineqs.clone();
        ineqs.extend(extra.iter().cloned());
        ineqs.push(neg);
        self.reduced.is_empty_with(&self.eqs, &ineqs)
    }

    /// Whether the facts have an integer point.
    fn is_feasible(&self) -> bool {
        !self.reduced.is_empty_with(&self.eqs, &self.ineqs)
    }

    /// Adds `r >= 0` (with `eq`, `r == 0`) to the facts.
    fn add(&mut self, r: Row, eq: bool) {
        if eq {
            self.eqs.push(r);
        } else {
            self.ineqs.push(r);
        }
        // New equalities are worth solving once for all later tests.
        if eq || self.ineqs.len() > 16 {
            self.base.extend_eqs(std::mem::take(&mut self.eqs));
            self.base.extend_ineqs(std::mem::take(&mut self.ineqs));
            *self = Known::new(std::mem::take(&mut self.base));
        }
    }
}

/// Guards `r >= 0`, with each pair `r >= 0`, `-r >= 0` as one equality `r == 0`.
fn pair_equalities(mut rows: Vec<Row>) -> Vec<Cond> {
    let mut conds = vec![];
    while let Some(r) = rows.first().cloned() {
        rows.remove(0);
        let neg: Row = r.iter().map(|v| -v).collect();
        match rows.iter().position(|x| *x == neg) {
            Some(p) => {
                rows.remove(p);
                conds.push(Cond::Eq(Expr::Aff(r)));
            }
            None => conds.push(Cond::Ge(Expr::Aff(r))),
        }
    }
    conds
}

/// `x` with `a*x ≡ 1 (mod m)`, if `a` is invertible modulo `m > 1` (extended Euclid).
fn mod_inverse(a: &Int, m: &Int) -> Option<Int> {
    let (mut r0, mut r1) = (a.mod_floor(m), m.clone());
    let (mut x0, mut x1) = (Int::ONE, Int::ZERO);
    while !r1.is_zero() {
        let q = r0.div_floor(&r1);
        (r0, r1) = (r1.clone(), &r0 - &(&q * &r1));
        (x0, x1) = (x1.clone(), &x0 - &(&q * &x1));
    }
    r0.is_one().then(|| x0.mod_floor(m))
}

/// `a*x + rest >= 0` with `a > 0` and `x ≡ g (mod s)`: the least such `x`,
/// `g + s*ceil((ceil(-rest / a) - g) / s) = g + s*ceil((-rest - a*g) / (a*s))`.
fn strided_lower_expr(r: &Row, c: usize, s: &Int, g: &Row) -> Expr {
    let a = &r[c];
    let num: Row = r[..c]
        .iter()
        .zip(g)
        .map(|(v, gv)| -&(v + &(a * gv)))
        .collect();
    Expr::add_scaled(g.clone(), s.clone(), Expr::ceil(Expr::Aff(num), a * s))
}

/// `-b*x + rest >= 0` with `b > 0`: `x <= floor(rest / b)`.
fn upper_expr(r: &Row, c: usize) -> Expr {
    let b = -&r[c];
    Expr::floor(Expr::Aff(r[..c].to_vec()), b)
}

/// Whether local `i`'s definition mentions column `col`, directly or through other locals.
fn div_depends_on(b: &Basic, i: usize, col: usize) -> bool {
    let Some(d) = &b.divs()[i] else { return true };
    if d.num().get(col).is_some_and(|v| !v.is_zero()) {
        return true;
    }
    (0..i).any(|j| {
        d.num().get(b.col_div(j)).is_some_and(|v| !v.is_zero()) && div_depends_on(b, j, col)
    })
}

/// The part of a row over the first `width` columns, if it mentions no later column.
fn cut(r: &Row, width: usize) -> Option<Row> {
    if r[width..].iter().any(|v| !v.is_zero()) {
        return None;
    }
    Some(r[..width].to_vec())
}

/// Whether two conjunctions have the same constraints (as written).
fn same_rows(a: &Basic, b: &Basic) -> bool {
    let key = |b: &Basic| {
        let mut e = b.eqs().to_vec();
        let mut i = b.ineqs().to_vec();
        e.sort();
        e.dedup();
        i.sort();
        i.dedup();
        (e, i)
    };
    key(a) == key(b)
}

/// Adds `r >= 0` (with `eq`, `r == 0`) to `b` unless a row already there says as much: the
/// same equality, or an inequality with the same coefficients and a constant no larger.
/// Restrictions to pieces and the bounds of enclosing loops repeat rows, and every emptiness
/// test pays for each copy. The rows kept stay in order (which decides the order of guards).
fn add_row(b: &mut Basic, r: Row, eq: bool) {
    if eq {
        let neg = |x: &Row| x.iter().zip(&r).all(|(a, c)| *a == -c);
        if !b.eqs().iter().any(|x| *x == r || neg(x)) {
            b.add_eq(r);
        }
    } else if !b.ineqs().iter().any(|x| x[1..] == r[1..] && x[0] <= r[0]) {
        b.add_ineq(r);
    }
}

/// `b` with rows that say no more than an earlier one dropped (see [`add_row`]).
fn without_repeats(b: Basic) -> Basic {
    let mut out = b.clone();
    out.set_rows(vec![], vec![]);
    let (eqs, ineqs) = b.into_rows();
    for r in eqs {
        add_row(&mut out, r, true);
    }
    for r in ineqs {
        add_row(&mut out, r, false);
    }
    out
}

/// `a \ b` as disjoint pieces ([`Basic::subtract`]), without negating the rows `a` already
/// has (`a ∧ ¬r` is empty for those): the projections separated here share the context's
/// rows, and each negation costs an emptiness test.
fn minus(a: &Basic, b: &Basic) -> Vec<Basic> {
    let mut b = b.clone();
    b.retain_eqs(|r| !a.eqs().contains(r));
    b.retain_ineqs(|r| !a.ineqs().contains(r));
    a.subtract(&b).into_iter().map(without_repeats).collect()
}

/// Most items of one piece for which parts of the same statement are merged (the search
/// is quadratic in their number).
const MAX_MERGE_ITEMS: usize = 8;

/// `items` with pairs of parts of one statement replaced by one conjunction with exactly
/// their points where there is one ([`coalesce::merge`]). Items are pairwise disjoint, so
/// the merged ones stay disjoint from the others; a merged item takes the place of the first
/// of its two parts. A merge is kept only when the equalities of the merged conjunction
/// still give the statement's iterators (columns from `n_outer` on), as those of both parts
/// do: two parts with different values of an iterator (`i = 4*e + 1` and `i = 4*e + 3`) can
/// make one conjunction whose equalities leave `i` open, and its statement would have no
/// subscripts.
fn merge_same_id(mut items: Vec<Item>, n_outer: usize) -> Vec<Item> {
    if items.len() < 2 || items.len() > MAX_MERGE_ITEMS {
        return items;
    }
    'outer: loop {
        for i in 0..items.len() {
            for j in i + 1..items.len() {
                if items[i].id != items[j].id || items[i].group != items[j].group {
                    continue;
                }
                let merged = coalesce::merge(&items[i].basic, &items[j].basic).filter(|h| {
                    determined(h, n_outer)
                        || !determined(&items[i].basic, n_outer)
                        || !determined(&items[j].basic, n_outer)
                });
                if let Some(h) = merged {
                    // A merge takes its parts to have points: two empty ones may come back
                    // as the universe. An empty part is dropped instead.
                    match (items[i].basic.is_empty(), items[j].basic.is_empty()) {
                        (false, false) => items[i].basic = h,
                        (true, _) => items[i].basic = items[j].basic.clone(),
                        (false, true) => {}
                    }
                    items.remove(j);
                    continue 'outer;
                }
            }
        }
        return items;
    }
}

/// Adds the constraints of `piece` (over the leading columns) to `b`.
fn restrict(b: &mut Basic, piece: &Basic) {
    let w = b.width();
    let lift = |r: &Row| {
        let mut x = r.clone();
        x.resize(w, Int::ZERO);
        x
    };
    for r in piece.eqs() {
        add_row(b, lift(r), true);
    }
    for r in piece.ineqs() {
        add_row(b, lift(r), false);
    }
}

/// Moves a guard out of a loop (or an assignment) when it is the whole body and does not
/// depend on the loop's variable: tested once instead of on every iteration. A guard whose
/// whole body is another guard takes its conditions (one `if` with `&&`). Loops and guards
/// left with nothing inside go.
fn hoist_guards(nodes: Vec<Node>, n_param: usize) -> Vec<Node> {
    let empty = |n: &Node| match n {
        Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
            body.is_empty()
        }
        Node::Unrolled { body, .. } | Node::Block(body) => body.is_empty(),
        // Scanning makes no other nodes.
        _ => false,
    };
    nodes
        .into_iter()
        .filter(|n| !empty(n))
        .map(|mut n| {
            let body = match &mut n {
                Node::For { body, .. } | Node::Assign { body, .. } => body,
                Node::If { conds, body } => {
                    *body = hoist_guards(std::mem::take(body), n_param);
                    if let [Node::If { .. }] = &body[..] {
                        let Some(Node::If {
                            conds: inner,
                            body: inner_body,
                        }) = body.pop()
                        else {
                            unreachable!("checked above")
                        };
                        conds.extend(inner);
                        *body = inner_body;
                    }
                    return n;
                }
                _ => return n,
            };
            *body = hoist_guards(std::mem::take(body), n_param);
            fold_floor_bounds(&mut n, n_param);
            let (var, body) = match &mut n {
                Node::For { var, body, .. } | Node::Assign { var, body, .. } => (*var, body),
                _ => unreachable!("a loop or an assignment"),
            };
            let free = match &body[..] {
                [Node::If { conds, .. }] => conds.iter().all(|c| !c.uses_col(1 + n_param + var)),
                _ => false,
            };
            if !free {
                return n;
            }
            let Some(Node::If { conds, body: inner }) = body.pop() else {
                unreachable!("checked above")
            };
            *body = inner;
            Node::If {
                conds,
                body: vec![n],
            }
        })
        .filter(|n| !empty(n))
        .collect()
}

/// A loop whose whole body is a guard with conditions `a*v + e >= 0` on its own variable
/// `v` (step 1, `a` nonzero, `e` free of `v`) in which `e` has floors of outer values (the
/// whole-block split `j < 16*floor(nj/16)` of a BLIS-style script): such a condition is a
/// bound of `v` that the rational projection behind the loop bounds cannot state, so it
/// becomes one, `v >= ceil(-e/a)` or `v <= floor(e/-a)`, folded into the loop's bounds with
/// `max`/`min`. The loop then runs exactly the iterations the guard let through, and its
/// body has no test (the compiler can vectorize it).
fn fold_floor_bounds(n: &mut Node, n_param: usize) {
    let Node::For {
        var,
        lower,
        step,
        upper,
        body,
        ..
    } = n
    else {
        return;
    };
    if !step.is_one() {
        return;
    }
    let [Node::If { conds, .. }] = &mut body[..] else {
        return;
    };
    let col = 1 + n_param + *var;
    let mut kept = vec![];
    for c in std::mem::take(conds) {
        let Cond::Ge(Expr::Sum(row, terms)) = &c else {
            kept.push(c);
            continue;
        };
        let a = row.get(col).cloned().unwrap_or(Int::ZERO);
        if a.is_zero() || terms.iter().any(|(_, e)| e.uses_col(col)) {
            kept.push(c);
            continue;
        }
        // e = the condition without its v term.
        let mut rest = row.clone();
        rest[col] = Int::ZERO;
        if a.is_positive() {
            let neg: Row = rest.iter().map(|v| -v).collect();
            let e = Expr::Sum(neg, terms.iter().map(|(k, t)| (-k, t.clone())).collect());
            let bound = Expr::ceil(e, a);
            *lower = Expr::max(vec![std::mem::replace(lower, Expr::Aff(vec![])), bound]);
        } else {
            let e = Expr::Sum(rest, terms.clone());
            let bound = Expr::floor(e, -a);
            *upper = Expr::min(vec![std::mem::replace(upper, Expr::Aff(vec![])), bound]);
        }
    }
    let Some(Node::If { conds, .. }) = body.first_mut() else {
        unreachable!("matched above")
    };
    *conds = kept;
    if conds.is_empty() {
        let Some(Node::If { body: inner, .. }) = body.pop() else {
            unreachable!("matched above")
        };
        *body = inner;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::parse_set;

    fn part(text: &str) -> Basic {
        let s = parse_set(text, &[]).unwrap();
        assert_eq!(s.parts().len(), 1, "{text}");
        s.parts()[0].clone()
    }

    /// The only part of `text` with its floors linked to the first `n_scan` dims where they
    /// equal one, and the parts `determine_iterators` makes of it, checked to have exactly
    /// its points.
    fn determine(text: &str, n_scan: usize) -> (Basic, Vec<Basic>) {
        let s = parse_set(text, &[]).unwrap();
        let mut b = part(text);
        let n_param = b.n_param();
        link_divs_to_dims(&mut b, n_param, n_scan);
        let out = determine_iterators(b.clone(), n_param, n_scan);
        let back = Set::from_parts(s.space().clone(), out.clone());
        assert!(back.subtract(&s).is_empty() && s.subtract(&back).is_empty());
        (b, out)
    }

    fn determined_all(parts: &[Basic], n_scan: usize) -> bool {
        parts
            .iter()
            .all(|b| determined(b, 1 + b.n_param() + n_scan))
    }

    #[test]
    fn an_iterator_split_by_floors_and_mods_gets_its_equality() {
        // i = 96*t1 + 8*t2 + t3, no equality of the set as written.
        let text = "[n] -> { [t1, t2, t3, i] : 0 <= i < n and t1 = floor(i/96) and t2 = floor((i % 96)/8) and t3 = i % 8 }";
        let (linked, out) = determine(text, 3);
        assert!(!determined(&linked, 5));
        assert_eq!(out.len(), 1);
        assert!(determined_all(&out, 3));
        // The equality is affine: no floor was needed.
        assert_eq!(out[0].n_div(), linked.n_div());
        let mut want = out[0].zero_row();
        want[2] = Int::from(-96);
        want[3] = Int::from(-8);
        want[4] = Int::from(-1);
        want[5] = Int::ONE;
        assert!(Known::new(out[0].to_problem()).implies(&want, true));
        // The modulus first: i = 3*t1 + t0 - 3*[t0 >= 2], with a floor of t0.
        let (_, out) = determine(
            "[n] -> { [t0, t1, i] : 0 <= i < n and t0 = i % 3 and t1 = floor((i + 1)/3) }",
            2,
        );
        assert_eq!(out.len(), 1);
        assert!(determined_all(&out, 2));
    }

    #[test]
    fn iterators_found_only_by_parametric_minimum_are_determined() {
        // Chinese remainders: i from i % 2 and i % 3 on 0..5, beyond one pair of bounds.
        let text = "{ [t0, t1, i] : 0 <= i < 6 and t0 = i % 2 and t1 = i % 3 }";
        let b = part(text);
        assert!(solve_by_bounds(&b, 3).is_none());
        let (_, out) = determine(text, 2);
        assert!(!out.is_empty() && determined_all(&out, 2));
    }

    #[test]
    fn several_values_leave_the_part_as_it_is() {
        let text = "[n] -> { [t, i] : 0 <= i < n and t = floor(i/2) }";
        let (linked, out) = determine(text, 1);
        assert_eq!(out, vec![linked]);
        assert!(!determined_all(&out, 1));
    }

    #[test]
    fn the_first_undetermined_iterator_is_named() {
        let set = |t: &str| parse_set(t, &[]).unwrap();
        let split = "[n] -> { [t1, t2, t3, i, j] : 0 <= i < n and 0 <= j < n and t1 = floor(i/96) and t2 = floor((i % 96)/8) and t3 = i % 8 and j = t1 + t2 }";
        assert_eq!(first_undetermined(&set(split), 3), None);
        // j is given, i is not: two values of i share each t.
        let halves = "[n] -> { [t, j, i] : 0 <= i < n and t = floor(i/2) and j = t }";
        assert_eq!(first_undetermined(&set(halves), 1), Some(1));
    }

    #[test]
    fn merging_two_empty_parts_gives_no_points() {
        let a = part("[p0, p1] -> { [0, x1, 0, x3, 1, x5, 0, x5, x5] : 3*floor((-x1 + x5)/3) = -x1 + x5 and 3*floor((x1 + 2x5)/3) = x1 + 2x5 and p0 <= x1 <= 1 and x1 >= 0 and 3x3 <= x5 < p0 and 0 <= x5 <= 3x3 + 1 and x5 - 2 <= 3*floor((-x1 + x5)/3) <= x5 and -p0 + x1 + 3x5 + 1 <= 3*floor((x1 + 2x5)/3) < x1 + 2x5 and 3*floor((x1 + 2x5)/3) >= x1 - 3x3 + 3x5 - 1 }");
        let b = part("[p0, p1] -> { [0, x1, 0, x3, 1, x5, 0, 3x3 - 1, x5] : floor((-x1 + 3x3 - 1)/3) = x3 - 1 and 3*floor((-x1 + 3x3 - 1)/3) = -x1 + 3x3 - 1 and 3*floor((x1 + 1)/3) = x1 + 1 and p0 <= x1 <= 1 and x1 >= 0 and 3x3 <= p0 and 0 <= x5 < 3x3 }");
        assert!(a.is_empty() && b.is_empty());
        // Restricted to one piece of a loop, the parts of one statement can both be empty.
        let items = merge_same_id(
            vec![
                Item {
                    id: 0,
                    basic: a,
                    group: 0,
                },
                Item {
                    id: 0,
                    basic: b,
                    group: 0,
                },
            ],
            1,
        );
        assert!(items.iter().all(|it| it.basic.is_empty()));
    }
}
