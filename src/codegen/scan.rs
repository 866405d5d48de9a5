//! Fourier–Motzkin scanning (Ancourt & Irigoin): a loop nest that enumerates the integer
//! points of a union of conjunctions in lexicographic order of the scanned dimensions.
//!
//! Each level `k` takes the bounds of dimension `k` from the projection of every item onto
//! the outer dimensions (rational Fourier–Motzkin: a superset, so bounds are valid), fixes
//! dimensions that an equality pins to an expression instead of looping over them, and
//! leaves at the innermost level a guard with exactly the constraints the enclosing loops do
//! not already imply. The result runs every point once, in order, for every parameter value.
//! Loop separation (no guards where splitting a loop would do) is not done yet.

use super::ast::{Cond, Expr, Node};
use crate::presburger::omega::{self, Problem, Row};
use crate::presburger::{Basic, Int, Set};

/// One thing to scan: an identifier (a statement) and its points. The first `n_scan`
/// dimensions are scanned; further dimensions (a statement's iterators) must be determined
/// by equalities once the scanned ones are fixed.
#[derive(Clone, Debug)]
pub struct Item {
    pub id: usize,
    pub basic: Basic,
}

/// Builds the loop nest scanning the first `n_scan` dimensions of every item. Items must be
/// pairwise disjoint and have only known locals (see [`disjoint_parts`]).
pub fn scan(items: Vec<Item>, n_param: usize, n_scan: usize) -> Vec<Node> {
    let items: Vec<Item> = items
        .into_iter()
        .filter_map(|mut it| (it.basic.normalize() && !it.basic.is_empty()).then_some(it))
        .collect();
    let mut s = Scanner { n_param, n_scan };
    let ctx = Basic::universe(n_param, n_scan);
    s.level(0, items, &ctx)
}

/// Scans sets (each with an identifier): the loop nest that runs every point of every set
/// once, in lexicographic order of the first `n_scan` dimensions.
pub fn scan_sets(sets: &[(usize, Set)], n_scan: usize) -> Vec<Node> {
    let n_param = sets.first().map_or(0, |(_, s)| s.space().n_param());
    let mut items = vec![];
    for (id, s) in sets {
        for b in disjoint_parts(s) {
            items.push(Item { id: *id, basic: b });
        }
    }
    scan(items, n_param, n_scan)
}

/// Splits a set into pairwise disjoint conjunctions whose locals are all known floors, ready
/// to be scanned (overlapping parts would run a point twice).
pub fn disjoint_parts(set: &Set) -> Vec<Basic> {
    let mut out: Vec<Basic> = vec![];
    let mut seen = Set::empty(set.space().clone());
    for b in set.parts() {
        let one = Set::from_parts(set.space().clone(), vec![b.clone()]);
        let fresh = one.subtract(&seen);
        for p in fresh.parts() {
            out.extend(p.make_divs_known());
        }
        seen = seen.union(&one);
    }
    out
}

struct Scanner {
    n_param: usize,
    n_scan: usize,
}

impl Scanner {
    fn col(&self, k: usize) -> usize {
        1 + self.n_param + k
    }

    /// Rational projection of `b` onto parameters and the first `k + 1` scanned dims.
    fn project(&self, b: &Basic, k: usize) -> Vec<Row> {
        let p = b.to_problem();
        let keep: Vec<usize> = (1..=self.n_param + k + 1).collect();
        omega::project_rational(&p, &keep)
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
        let mut base = Problem {
            n: width - 1,
            eqs: vec![],
            ineqs: vec![],
        };
        let cut = |r: &Row| -> Option<Row> {
            // Context rows about deeper dims are irrelevant here.
            if r[width..].iter().any(|v| !v.is_zero()) {
                return None;
            }
            Some(r[..width].to_vec())
        };
        base.eqs.extend(ctx.eqs.iter().filter_map(cut));
        base.ineqs.extend(ctx.ineqs.iter().filter_map(cut));
        let mut all: Vec<(Row, bool)> = lowers.into_iter().map(|r| (r, true)).collect();
        all.extend(uppers.into_iter().map(|r| (r, false)));
        let mut i = 0;
        while i < all.len() {
            let mut p = base.clone();
            for (j, (r, _)) in all.iter().enumerate() {
                if j != i {
                    p.ineqs.push(r.clone());
                }
            }
            let mut neg: Row = all[i].0.iter().map(|v| -v).collect();
            neg[0] -= &Int::ONE;
            p.ineqs.push(neg);
            // Keep at least one bound on each side.
            let side = all[i].1;
            let others_on_side = all
                .iter()
                .enumerate()
                .any(|(j, (_, s))| j != i && *s == side);
            if others_on_side && !omega::is_feasible(&p) {
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

    fn level(&mut self, k: usize, items: Vec<Item>, ctx: &Basic) -> Vec<Node> {
        if items.is_empty() {
            return vec![];
        }
        if k == self.n_scan {
            return items.iter().map(|it| self.leaf(it, ctx)).collect();
        }
        let c = self.col(k);
        // Bounds of dim k for each item, from its projection.
        struct B {
            item: Item,
            lowers: Vec<Row>,
            uppers: Vec<Row>,
            fixed: Option<Row>,
        }
        let mut bs: Vec<B> = vec![];
        for it in items {
            let proj = self.project(&it.basic, k);
            let mut lowers = vec![];
            let mut uppers = vec![];
            for r in proj {
                if r[c].is_positive() {
                    lowers.push(r);
                } else if r[c].is_negative() {
                    uppers.push(r);
                }
            }
            // An exact pin: an equality of the item with a unit coefficient on dim k and
            // only outer columns otherwise.
            let fixed = it.basic.eqs.iter().find_map(|r| {
                let unit = r[c] == 1 || r[c] == -1;
                let outer_only = r.iter().enumerate().skip(c + 1).all(|(_, v)| v.is_zero());
                (unit && outer_only).then(|| {
                    let s = r[c].clone();
                    let mut e: Row = r[..c].iter().map(|v| -(&s * v)).collect();
                    e.push(Int::ZERO);
                    e
                })
            });
            let (lowers, uppers) = self.prune(ctx, k, lowers, uppers);
            bs.push(B {
                item: it,
                lowers,
                uppers,
                fixed,
            });
        }
        // Every item pinned to a constant: emit in increasing order, no loop.
        let constant = |e: &Row| e[1..].iter().all(|v| v.is_zero());
        if bs.iter().all(|b| b.fixed.as_ref().is_some_and(constant)) {
            let mut groups: Vec<(Int, Vec<Item>)> = vec![];
            for b in bs {
                let v = b.fixed.as_ref().expect("fixed")[0].clone();
                match groups.iter_mut().find(|(x, _)| *x == v) {
                    Some((_, g)) => g.push(b.item),
                    None => groups.push((v, vec![b.item])),
                }
            }
            groups.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = vec![];
            for (v, g) in groups {
                let mut cctx = ctx.clone();
                cctx.fix_col(c, &v);
                let body = self.level(k + 1, g, &cctx);
                out.push(Node::Assign {
                    var: k,
                    value: Expr::Aff(const_row(self.n_param, k, &v)),
                    body,
                });
            }
            return out;
        }
        // A single item pinned to an expression of outer dims: an assignment.
        if bs.len() == 1 {
            if let Some(e) = bs[0].fixed.clone() {
                let b = bs.pop().expect("one");
                let mut cctx = ctx.clone();
                let mut r = e.clone();
                r.resize(cctx.width(), Int::ZERO);
                let mut eq: Row = r.iter().map(|v| -v).collect();
                eq[c] = Int::ONE;
                cctx.add_eq(eq);
                let body = self.level(k + 1, vec![b.item], &cctx);
                return vec![Node::Assign {
                    var: k,
                    value: Expr::Aff(e[..c].to_vec()),
                    body,
                }];
            }
        }
        // A loop over the hull of the items' ranges.
        let mut lo_alts: Vec<Expr> = vec![];
        let mut hi_alts: Vec<Expr> = vec![];
        for b in &bs {
            if b.lowers.is_empty() || b.uppers.is_empty() {
                // Unbounded: the set is infinite for some parameter values. Scan only what
                // the caller bounded; an unbounded loop would not terminate.
                return vec![Node::Comment(format!(
                    "dimension c{k} is unbounded here: nothing is scanned"
                ))];
            }
            lo_alts.push(Expr::max(
                b.lowers.iter().map(|r| lower_expr(r, c)).collect(),
            ));
            hi_alts.push(Expr::min(
                b.uppers.iter().map(|r| upper_expr(r, c)).collect(),
            ));
        }
        // The loop's bounds are known facts inside it when every item has the same ones.
        let same = bs.iter().all(|b| {
            let key = |v: &Vec<Row>| {
                let mut v = v.clone();
                v.sort();
                v
            };
            key(&b.lowers) == key(&bs[0].lowers) && key(&b.uppers) == key(&bs[0].uppers)
        });
        let mut cctx = ctx.clone();
        if same {
            for r in bs[0].lowers.iter().chain(&bs[0].uppers) {
                let mut r = r.clone();
                r.resize(cctx.width(), Int::ZERO);
                cctx.add_ineq(r);
            }
        }
        let body = self.level(k + 1, bs.into_iter().map(|b| b.item).collect(), &cctx);
        vec![Node::For {
            var: k,
            lower: Expr::min(lo_alts),
            upper: Expr::max(hi_alts),
            body,
        }]
    }

    /// The statement with its guard: the item's constraints the context does not imply.
    fn leaf(&self, it: &Item, ctx: &Basic) -> Node {
        let mut b = it.basic.clone();
        let n_outer = 1 + self.n_param + self.n_scan;
        let inner_dims = b.n_dim - self.n_scan;
        // Constraints to check, remembering which define known locals (never guards).
        let mut rows: Vec<(Row, bool, bool)> =
            b.eqs.iter().map(|r| (r.clone(), true, false)).collect();
        for r in &b.ineqs {
            rows.push((r.clone(), false, b.is_div_constraint(r)));
        }
        // Iterators beyond the scanned dims: solved from equalities, then substituted away
        // (scaling rows by the positive divisor keeps inequalities valid).
        let mut conds = vec![];
        let mut args = vec![];
        for d in 0..inner_dims {
            let col = n_outer + d;
            let pos = rows.iter().position(|(r, eq, _)| {
                *eq && !r[col].is_zero()
                    && (n_outer..n_outer + inner_dims).all(|k| k == col || r[k].is_zero())
            });
            let Some(pos) = pos else {
                args.push(Expr::Comment(format!("iterator {d} is not determined")));
                continue;
            };
            let (r, _, _) = rows.remove(pos);
            let a = r[col].clone();
            let sign = Int::from(a.signum() as i64);
            let den = a.abs();
            // a*x + rest = 0  ⇒  x = (-sign*rest) / |a|
            let mut num: Row = r.iter().map(|v| -(&sign * v)).collect();
            num[col] = Int::ZERO;
            let sub = |row: &mut Row| {
                let k = std::mem::replace(&mut row[col], Int::ZERO);
                if !k.is_zero() {
                    // |a|*row - k*sign*(a*x + rest)  (the x terms cancel)
                    for (v, e) in row.iter_mut().zip(&r) {
                        *v = &(&den * &*v) - &(&(&k * &sign) * e);
                    }
                    row[col] = Int::ZERO;
                }
            };
            for (row, _, _) in rows.iter_mut() {
                sub(row);
            }
            for dv in b.divs.iter_mut().flatten() {
                let k = dv.num.get(col).cloned().unwrap_or(Int::ZERO);
                if !k.is_zero() {
                    dv.num.resize(r.len(), Int::ZERO);
                    sub(&mut dv.num);
                    dv.den = &dv.den * &den;
                }
            }
            let e = Expr::from_row(&num, &b);
            if den.is_one() {
                args.push(e);
            } else {
                conds.push(Cond::Divisible(e.clone(), den.clone()));
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
        base.eqs = ctx.eqs.iter().map(lift).collect();
        base.ineqs = ctx.ineqs.iter().map(lift).collect();
        for i in 0..b.n_div() {
            if let Some(d) = b.div_constraints(b.col_div(i)) {
                base.ineqs.extend(d);
            }
        }
        let implied = |base: &Basic, r: &Row, eq: bool| -> bool {
            let refuted = |neg: Row| {
                let mut p: Problem = base.to_problem();
                p.ineqs.push(neg);
                !omega::is_feasible(&p)
            };
            let mut below: Row = r.iter().map(|v| -v).collect();
            below[0] -= &Int::ONE;
            if !refuted(below) {
                return false;
            }
            if eq {
                let mut above = r.clone();
                above[0] -= &Int::ONE;
                return refuted(above);
            }
            true
        };
        for (r, eq, is_def) in &rows {
            if *is_def || r.iter().all(Int::is_zero) {
                continue;
            }
            if !implied(&base, r, *eq) {
                let e = Expr::from_row(r, &b);
                conds.push(if *eq { Cond::Eq(e) } else { Cond::Ge(e) });
            }
            // Later guards may rely on this one.
            if *eq {
                base.eqs.push(r.clone());
            } else {
                base.ineqs.push(r.clone());
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

/// `-b*x + rest >= 0` with `b > 0`: `x <= floor(rest / b)`.
fn upper_expr(r: &Row, c: usize) -> Expr {
    let b = -&r[c];
    Expr::floor(Expr::Aff(r[..c].to_vec()), b)
}
