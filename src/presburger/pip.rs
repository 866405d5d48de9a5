//! Parametric integer programming: the lexicographic minimum of a conjunction's dimensions
//! as a function of its parameters (Feautrier's PIP).
//!
//! The answer is a quast flattened into disjoint [`Leaf`]s: a context (a conjunction over
//! the parameters and integer divisions of them) and, for each dimension, its value there
//! as an affine function of the parameters and divisions.
//!
//! The method is the lexicographic dual simplex of [`super::simplex::Tableau`], with the
//! row constants affine in the parameters:
//!
//! - a row whose constant is negative on the whole context is pivoted on (or proves the
//!   context infeasible when it has no positive entry);
//! - a row whose constant takes both signs splits the context in two (`f >= 0` and
//!   `f <= -1`, exact over the integers), unless the row has no positive entry, when the
//!   context simply shrinks to `f >= 0`;
//! - once every row is non-negative, an unknown with a fractional value gets a Gomory cut;
//!   when its fractional part depends on the parameters, the cut introduces a new division
//!   `q = floor(e/d)` of the parameters into the context, and where `e` is a multiple of `d`
//!   the row is integral already and is rewritten with `q` instead of being cut.
//!
//! Signs over the context are decided exactly (integer emptiness through the Omega test),
//! with a rational LP pre-check ([`super::simplex::Lp`]) and a cache of known context points.
//! Every pivot is charged to the work budget.
//!
//! Locals that depend on the dimensions (known divisions or existentials) are unknowns
//! after the dimensions: minimising them after the dimensions does not change the minimum of
//! the dimensions. Only when such a local is unbounded in a way the big parameter cannot
//! represent does [`lexopt`] first give every local a closed form
//! ([`Basic::make_divs_known`], a union). Unions are handled by solving every part and
//! merging the answers, comparing the candidate points lexicographically on the
//! intersections of their contexts.

use super::basic::Basic;
use super::budget::{self, Budgeted, Exhausted};
use super::coalesce;
use super::int::Int;
use super::omega;
use super::row::Row;
use super::simplex::{Lp, Sign, Tableau};
use std::collections::HashMap;

/// One piece of a parametric optimum.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// Over `[1 | parameters | divisions]` (`n_dim == 0`), every division known.
    pub ctx: Basic,
    /// The value of each dimension, a row over the context's columns.
    pub vals: Vec<Row>,
}

/// Why the parametric solver gave up (the caller falls back or reports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A dimension has no lower bound (for some parameter values).
    Unbounded,
    /// The big parameter entered a fractional value, or the cut loop ran too long.
    GaveUp,
}

/// Why a branch stopped: the solver gave up, or the work budget ran out.
enum Stop {
    Fail(Failure),
    Out(Exhausted),
}

impl From<Failure> for Stop {
    fn from(f: Failure) -> Stop {
        Stop::Fail(f)
    }
}

impl From<Exhausted> for Stop {
    fn from(e: Exhausted) -> Stop {
        Stop::Out(e)
    }
}

/// The budget's refusal outside, the solver's answer inside.
fn split<T>(r: Result<T, Stop>) -> Budgeted<Result<T, Failure>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(Stop::Fail(f)) => Ok(Err(f)),
        Err(Stop::Out(e)) => Err(e),
    }
}

/// Most simplex iterations one conjunction may take before [`Failure::GaveUp`] (a guard for
/// runs outside any work budget; never reached on the problems the tests know).
const MAX_STEPS: usize = 200_000;

/// The context: parameter values under consideration, with known points of it.
#[derive(Clone, Debug)]
struct Context {
    basic: Basic,
    /// Integer points of `basic`, values of columns `1..width`.
    samples: Vec<Vec<Int>>,
    /// Signs already decided on this context.
    signs: HashMap<Row, Sign>,
    /// Whether `basic` is known to have no integer point.
    empty: Option<bool>,
}

impl Context {
    fn new(basic: Basic) -> Context {
        Context {
            basic,
            samples: vec![],
            signs: HashMap::new(),
            empty: None,
        }
    }

    fn width(&self) -> usize {
        self.basic.width()
    }

    fn eval(f: &[Int], s: &[Int]) -> Int {
        let mut acc = f[0].clone();
        for (a, v) in f[1..].iter().zip(s) {
            if !a.is_zero() {
                acc = &acc + &(a * v);
            }
        }
        acc
    }

    /// Has the context an integer point with `f >= 0`? Caches the witness.
    fn has_point_with(&mut self, f: &Row) -> Budgeted<bool> {
        if self
            .samples
            .iter()
            .any(|s| !Context::eval(f, s).is_negative())
        {
            return Ok(true);
        }
        let mut b = self.basic.clone();
        b.ineqs.push(f.clone());
        if !b.normalize() {
            return Ok(false);
        }
        let n = b.width() - 1;
        if !Lp::new(n, &b.eqs, &b.ineqs).try_is_feasible()? {
            return Ok(false);
        }
        Ok(match omega::try_solve(&b.to_problem())? {
            Some(w) => {
                self.samples.push(w);
                true
            }
            None => false,
        })
    }

    fn is_empty(&mut self) -> Budgeted<bool> {
        if !self.samples.is_empty() {
            return Ok(false);
        }
        if let Some(e) = self.empty {
            return Ok(e);
        }
        let mut zero = vec![Int::ZERO; self.width()];
        zero[0] = Int::ZERO;
        let e = !self.has_point_with(&zero)?;
        self.empty = Some(e);
        Ok(e)
    }

    fn sign(&mut self, f: &Row) -> Budgeted<Sign> {
        if let Some(s) = self.signs.get(f) {
            return Ok(*s);
        }
        let mut below: Row = f.iter().map(|v| -v).collect();
        below[0] -= &Int::ONE;
        let s = if !self.has_point_with(&below)? {
            Sign::NonNeg
        } else if !self.has_point_with(f)? {
            Sign::Neg
        } else {
            Sign::Any
        };
        self.signs.insert(f.clone(), s);
        Ok(s)
    }

    fn add_ineq(&mut self, f: Row) {
        self.samples.retain(|s| !Context::eval(&f, s).is_negative());
        self.basic.ineqs.push(f);
        self.signs.clear();
        self.empty = None;
    }

    /// `floor(num / den)` as a context column (reusing an identical division); whether it
    /// is new.
    fn add_div(&mut self, num: Row, den: Int) -> (usize, bool) {
        let w = self.width();
        let col = self.basic.add_div(num, den);
        let new = self.width() > w;
        if new {
            let d = self.basic.divs[col - self.basic.div_start()]
                .clone()
                .expect("known division");
            for s in &mut self.samples {
                let v = Context::eval(&d.num[..w], s).div_floor(&d.den);
                s.push(v);
            }
            self.signs.clear();
        }
        (col, new)
    }
}

/// The lexicographic minimum of the dimensions of `b` (locals all known, or unknown only
/// if bounded by the dimensions) as disjoint leaves; an empty vector when `b` is empty
/// (and within a spent work budget; see [`budget`]).
pub fn lexmin(b: &Basic) -> Result<Vec<Leaf>, Failure> {
    budget::settle(|| try_lexmin(b), || Ok(vec![]))
}

/// [`lexmin`], or the refusal of the work budget.
pub fn try_lexmin(b: &Basic) -> Budgeted<Result<Vec<Leaf>, Failure>> {
    split(lexmin_in(b))
}

fn lexmin_in(b: &Basic) -> Result<Vec<Leaf>, Stop> {
    let np = b.n_param;
    let nd = b.n_dim;
    // Which locals depend on the dimensions (directly or through other locals)?
    let ds = b.div_start();
    let mut dim_local = vec![false; b.n_div()];
    for i in 0..b.n_div() {
        dim_local[i] = match &b.divs[i] {
            None => true,
            Some(d) => d.num.iter().enumerate().any(|(c, v)| {
                !v.is_zero() && ((c > np && c < ds) || (c >= ds && dim_local[c - ds]))
            }),
        };
    }
    // Column maps: to the context (params and parameter divisions) or to an unknown.
    let mut ctx = Basic::universe(np, 0);
    let mut to_ctx: Vec<Option<usize>> = vec![None; b.width()];
    let mut to_unknown: Vec<Option<usize>> = vec![None; b.width()];
    to_ctx[0] = Some(0);
    for i in 0..np {
        to_ctx[1 + i] = Some(1 + i);
    }
    for i in 0..nd {
        to_unknown[1 + np + i] = Some(i);
    }
    let mut n_unknown = nd;
    for (i, &on_dims) in dim_local.iter().enumerate() {
        let col = ds + i;
        if on_dims {
            to_unknown[col] = Some(n_unknown);
            n_unknown += 1;
        } else {
            let d = b.divs[i].as_ref().expect("parameter division is known");
            let mut num = vec![Int::ZERO; ctx.width()];
            for (c, v) in d.num.iter().enumerate() {
                if !v.is_zero() {
                    num[to_ctx[c].expect("defined from earlier context columns")] += v;
                }
            }
            to_ctx[col] = Some(ctx.add_div(num, d.den.clone()));
        }
    }
    let split = |r: &Row, ctx_w: usize| -> (Row, Row, bool) {
        let mut tr = vec![Int::ZERO; n_unknown + 1];
        let mut cr = vec![Int::ZERO; ctx_w];
        let mut any = false;
        for (c, v) in r.iter().enumerate() {
            if v.is_zero() {
                continue;
            }
            if let Some(u) = to_unknown[c] {
                tr[1 + u] = v.clone();
                any = true;
            } else {
                cr[to_ctx[c].expect("mapped")] += v;
            }
        }
        tr[0] = cr[0].clone();
        (tr, cr, any)
    };
    let w = ctx.width();
    let mut tab = Tableau::new(n_unknown, w - 1);
    for r in &b.eqs {
        let (tr, cr, any) = split(r, w);
        if any {
            tab.add_eq(&tr, &cr[1..]);
        } else {
            ctx.eqs.push(cr);
        }
    }
    for r in &b.ineqs {
        let (tr, cr, any) = split(r, w);
        if any {
            tab.add_ineq(&tr, &cr[1..]);
        } else {
            ctx.ineqs.push(cr);
        }
    }
    if !ctx.normalize() {
        return Ok(vec![]);
    }
    let mut leaves = vec![];
    let mut work = vec![(tab, Context::new(ctx))];
    while let Some((t, c)) = work.pop() {
        solve(t, c, nd, &mut work, &mut leaves)?;
    }
    Ok(leaves)
}

/// Runs one branch to a leaf (or to infeasibility), pushing the other sides of splits.
fn solve(
    mut t: Tableau,
    mut ctx: Context,
    nd: usize,
    work: &mut Vec<(Tableau, Context)>,
    leaves: &mut Vec<Leaf>,
) -> Result<(), Stop> {
    let mut steps = 0usize;
    'outer: loop {
        steps += 1;
        if steps > MAX_STEPS {
            return Err(Failure::GaveUp.into());
        }
        budget::tick(1)?;
        if ctx.is_empty()? {
            return Ok(());
        }
        let mut split: Option<usize> = None;
        for r in 0..t.n_rows() {
            let s = match t.fixed_sign(r) {
                Some(s) => s,
                None => ctx.sign(&t.row_constant(r))?,
            };
            match s {
                Sign::Neg => {
                    if !t.pivot_negative_row(r)? {
                        return Ok(());
                    }
                    continue 'outer;
                }
                Sign::Any => {
                    if split.is_none() {
                        split = Some(r);
                    }
                }
                Sign::NonNeg => {}
            }
        }
        if let Some(r) = split {
            let f = t.row_constant(r);
            if !t.has_positive_entry(r) {
                // Where f < 0 there is no solution at all.
                ctx.add_ineq(f);
                continue;
            }
            let mut other = ctx.clone();
            other.add_ineq(f.clone());
            work.push((t.clone(), other));
            let mut below: Row = f.iter().map(|v| -v).collect();
            below[0] -= &Int::ONE;
            ctx.add_ineq(below);
            continue;
        }
        // Feasible: look for an unknown with a fractional value.
        let mut frac = None;
        for i in 0..t.n_unknown() {
            let Some(r) = t.unknown_row(i) else {
                continue;
            };
            let (d, m, cst) = t.row_value(r);
            if d.is_one() {
                continue;
            }
            if !m.mod_floor(&d).is_zero() {
                return Err(Failure::GaveUp.into());
            }
            if cst.iter().any(|v| !v.mod_floor(&d).is_zero()) {
                frac = Some((r, d, cst));
                break;
            }
        }
        let Some((r, d, cst)) = frac else {
            leaves.push(leaf(&t, &ctx, nd)?);
            return Ok(());
        };
        // The value `x = c(y) + Σ t_j·v_j` (over `d`) is an integer only if the increase
        // `Σ t_j·v_j` is at least `{-c(y)}`: the cut `Σ {t_j}·v_j >= {-c(y)}` (isl's
        // choice; it pushes `x` up to the next integer, the direction the lexicographic
        // minimum moves in). With `e = Σ ((-c_i) mod d)·y_i`, `{-c(y)} = (e - d·q)/d` for
        // `q = floor(e/d)`.
        let cm: Row = cst.iter().map(|v| (-v).mod_floor(&d)).collect();
        let tcut: Vec<Int> = t.row_coeffs(r).iter().map(|v| v.mod_floor(&d)).collect();
        if cm[1..].iter().all(Int::is_zero) {
            let np = t.n_param();
            t.add_raw_row(d, -&cm[0], tcut, vec![Int::ZERO; np]);
            continue;
        }
        let (q, new) = ctx.add_div(cm.clone(), d.clone());
        if new {
            t.add_param();
        }
        let w = ctx.width();
        // g = d·q - e: zero where c(y) is an integer, negative elsewhere.
        let mut g: Row = cm.iter().map(|v| -v).collect();
        g.resize(w, Int::ZERO);
        g[q] += &d;
        // Where g = 0, c + e is a multiple of d and equals c + d·q: write the row so.
        let rewrite = |t: &mut Tableau| {
            let mut c2 = cst.clone();
            c2.resize(w, Int::ZERO);
            for (v, e) in c2.iter_mut().zip(&cm) {
                *v += e;
            }
            c2[q] -= &d;
            t.set_row_constant(r, &c2);
        };
        let cut = |t: &mut Tableau| {
            t.add_raw_row(d.clone(), g[0].clone(), tcut.clone(), g[1..].to_vec());
        };
        match ctx.sign(&g)? {
            Sign::NonNeg => rewrite(&mut t),
            Sign::Neg => cut(&mut t),
            Sign::Any => {
                let mut t2 = t.clone();
                let mut c2 = ctx.clone();
                c2.add_ineq(g.clone());
                rewrite(&mut t2);
                work.push((t2, c2));
                let mut below: Row = g.iter().map(|v| -v).collect();
                below[0] -= &Int::ONE;
                ctx.add_ineq(below);
                cut(&mut t);
            }
        }
    }
}

/// Drops context inequalities that the others imply over the rationals (an LP each, no
/// integer test), keeping the defining inequalities of divisions. Splits and cuts leave many
/// such rows behind, and every row left costs a piece when the context is negated.
fn prune(ctx: &Basic) -> Budgeted<Basic> {
    let mut b = ctx.clone();
    let n = b.width() - 1;
    let mut i = 0;
    while i < b.ineqs.len() {
        if b.is_div_constraint(&b.ineqs[i]) {
            i += 1;
            continue;
        }
        let r = b.ineqs.remove(i);
        let mut below: Row = r.iter().map(|v| -v).collect();
        below[0] -= &Int::ONE;
        let mut rows = b.ineqs.clone();
        rows.push(below);
        if Lp::new(n, &b.eqs, &rows).try_is_feasible()? {
            b.ineqs.insert(i, r);
            i += 1;
        }
    }
    Ok(b)
}

fn leaf(t: &Tableau, ctx: &Context, nd: usize) -> Result<Leaf, Stop> {
    let mut vals = Vec::with_capacity(nd);
    for i in 0..nd {
        let Some(r) = t.unknown_row(i) else {
            return Err(Failure::Unbounded.into());
        };
        let (d, m, cst) = t.row_value(r);
        if m != d {
            return Err(Failure::Unbounded.into());
        }
        vals.push(cst.iter().map(|v| v.div_exact(&d)).collect());
    }
    Ok(Leaf {
        ctx: prune(&ctx.basic)?,
        vals,
    })
}

/// The leaves as conjunctions over `[1 | parameters | dimensions | divisions]`.
pub fn leaves_to_parts(leaves: &[Leaf], nd: usize) -> Vec<Basic> {
    leaves
        .iter()
        .map(|l| {
            let np = l.ctx.n_param;
            let mut b = l.ctx.clone();
            b.insert_dims(0, nd);
            for (i, v) in l.vals.iter().enumerate() {
                let mut row: Row = v.iter().map(|x| -x).collect();
                row.splice(1 + np..1 + np, std::iter::repeat_n(Int::ZERO, nd));
                row[1 + np + i] = Int::ONE;
                b.eqs.push(row);
            }
            b
        })
        .collect()
}

/// Negates every dimension column (rows and division numerators).
pub fn negate_dims(b: &Basic) -> Basic {
    let mut b = b.clone();
    let range = 1 + b.n_param..1 + b.n_param + b.n_dim;
    let neg = |r: &mut Row| {
        for c in range.clone() {
            if c < r.len() {
                r[c] = -&r[c];
            }
        }
    };
    b.eqs.iter_mut().for_each(neg);
    b.ineqs.iter_mut().for_each(neg);
    for d in b.divs.iter_mut().flatten() {
        neg(&mut d.num);
    }
    b
}

/// The lexicographic minimum (or maximum) of a union of conjunctions over the same
/// parameters and dimensions, as disjoint conjunctions with every dimension fixed by an
/// equality. (Within a spent work budget: no part; see [`budget`].)
pub fn lexopt(parts: &[Basic], max: bool) -> Result<Vec<Basic>, Failure> {
    budget::settle(|| try_lexopt(parts, max), || Ok(vec![]))
}

/// [`lexopt`], or the refusal of the work budget.
pub fn try_lexopt(parts: &[Basic], max: bool) -> Budgeted<Result<Vec<Basic>, Failure>> {
    split(lexopt_in(parts, max))
}

fn lexopt_in(parts: &[Basic], max: bool) -> Result<Vec<Basic>, Stop> {
    let Some(first) = parts.first() else {
        return Ok(vec![]);
    };
    let nd = first.n_dim;
    let mut acc: Option<Vec<Leaf>> = None;
    for b in parts {
        let mut b = if max { negate_dims(b) } else { b.clone() };
        if !b.normalize() {
            continue;
        }
        // Unknown locals are unknowns after the dimensions; if one of them makes the
        // solver give up (unbounded, so its big parameter does not cancel), give every
        // local a closed form first.
        let found = match lexmin_in(&b) {
            Ok(leaves) => leaves,
            Err(Stop::Out(e)) => return Err(e.into()),
            Err(e) if b.divs.iter().all(Option::is_some) => return Err(e),
            Err(_) => {
                let mut all = None;
                for piece in b.try_make_divs_known()? {
                    let leaves = lexmin_in(&piece)?;
                    all = Some(match all {
                        None => leaves,
                        Some(a) => merge(a, leaves, nd)?,
                    });
                }
                all.unwrap_or_default()
            }
        };
        acc = Some(match acc {
            None => found,
            Some(a) => {
                let mut m = merge(a, found, nd)?;
                for l in &mut m {
                    l.ctx.tidy_known_locals(&mut l.vals);
                }
                m
            }
        });
    }
    let parts = leaves_to_parts(&acc.unwrap_or_default(), nd);
    Ok(if max {
        parts.iter().map(negate_dims).collect()
    } else {
        parts
    })
}

/// The minimum of two quasts: where only one is defined, its value; where both are, the
/// lexicographically smaller.
fn merge(a: Vec<Leaf>, b: Vec<Leaf>, nd: usize) -> Budgeted<Vec<Leaf>> {
    if a.is_empty() {
        return Ok(b);
    }
    if b.is_empty() {
        return Ok(a);
    }
    let mut out = vec![];
    // Which contexts meet: only those need comparing, or subtracting (subtracting a
    // disjoint context would only cut a piece into fragments).
    let mut meet: Vec<Vec<Option<Basic>>> = vec![];
    for la in &a {
        let mut row = vec![];
        for lb in &b {
            budget::tick(1)?;
            let mut c = la.ctx.intersect(&lb.ctx);
            let meets = c.normalize() && !c.try_is_empty()?;
            row.push(meets.then_some(c));
        }
        meet.push(row);
    }
    let only = |x: &[Leaf],
                y: &[Leaf],
                meets: &dyn Fn(usize, usize) -> bool,
                out: &mut Vec<Leaf>|
     -> Budgeted<()> {
        for (ix, lx) in x.iter().enumerate() {
            let mut rest = vec![lx.ctx.clone()];
            // The contexts to take away, as few parts as their union allows: taking away
            // many parts one at a time, each with its divisions (the rows of a register
            // block, one residue each), splinters what is left by residue.
            let meeting: Vec<Basic> = (y.iter().enumerate())
                .filter(|&(iy, _)| meets(ix, iy))
                .map(|(_, ly)| ly.ctx.clone())
                .collect();
            let away = match meeting.len() {
                0 | 1 => meeting,
                _ => coalesce::coalesce(coalesce::merge_shifted(meeting))?,
            };
            for a in &away {
                let mut next = vec![];
                for c in &rest {
                    next.extend(c.try_subtract(a)?);
                }
                rest = next;
                if rest.is_empty() {
                    break;
                }
            }
            for c in rest {
                let w = c.width();
                let vals = lx
                    .vals
                    .iter()
                    .map(|v| {
                        let mut v = v.clone();
                        v.resize(w, Int::ZERO);
                        v
                    })
                    .collect();
                out.push(Leaf { ctx: c, vals });
            }
        }
        Ok(())
    };
    only(&a, &b, &|i, j| meet[i][j].is_some(), &mut out)?;
    only(&b, &a, &|j, i| meet[i][j].is_some(), &mut out)?;
    for (ia, la) in a.iter().enumerate() {
        for (ib, lb) in b.iter().enumerate() {
            let Some(c) = meet[ia][ib].take() else {
                continue;
            };
            let w = c.width();
            let ds = la.ctx.div_start();
            let shift = la.ctx.n_div();
            let fa: Vec<Row> = la
                .vals
                .iter()
                .map(|v| {
                    let mut v = v.clone();
                    v.resize(w, Int::ZERO);
                    v
                })
                .collect();
            let gb: Vec<Row> = lb
                .vals
                .iter()
                .map(|v| {
                    let mut v = v.clone();
                    v.splice(ds..ds, std::iter::repeat_n(Int::ZERO, shift));
                    v.resize(w, Int::ZERO);
                    v
                })
                .collect();
            let mut base = c;
            for k in 0..nd {
                let diff: Row = gb[k].iter().zip(&fa[k]).map(|(x, y)| x - y).collect();
                for (sign, vals) in [(1i64, &fa), (-1, &gb)] {
                    // sign·diff >= 1
                    let mut r: Row = diff.iter().map(|v| v * &Int::from(sign)).collect();
                    r[0] -= &Int::ONE;
                    let mut p = base.clone();
                    p.ineqs.push(r);
                    if p.normalize() && !p.try_is_empty()? {
                        out.push(Leaf {
                            ctx: p,
                            vals: vals.clone(),
                        });
                    }
                }
                base.eqs.push(diff);
                if !base.normalize() || base.try_is_empty()? {
                    break;
                }
                if k + 1 == nd {
                    out.push(Leaf {
                        ctx: base.clone(),
                        vals: fa.clone(),
                    });
                }
            }
            if nd == 0 {
                out.push(Leaf {
                    ctx: base,
                    vals: fa,
                });
            }
        }
    }
    Ok(out)
}
