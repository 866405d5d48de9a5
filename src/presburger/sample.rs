//! A fast exact path for integer feasibility, tried before the general Omega test.
//!
//! Most problems the verifier asks about (the dependence relations of loop nests) are small,
//! have small coefficients, and are decided by the easy half of the Omega test: equalities
//! solved by substitution and variables eliminated by exact Fourier–Motzkin (one side of
//! their bounds has unit coefficients). [`feasible`] runs exactly that half on machine words
//! in one flat buffer — no big-integer checks, no vector per row — and answers only when it
//! can prove the answer:
//!
//! - **non-empty** with a witness: the eliminations are undone to give an integer point,
//!   which is then checked against every constraint of the original problem;
//! - **empty** only by a contradiction reached through exact steps (a constant row that is
//!   violated, an equality whose gcd does not divide its constant, two opposite bounds that
//!   cross), each of which preserves the integer points;
//! - **don't know** (`None`) on anything else: an arithmetic overflow, an elimination that
//!   would need the dark shadow or splinters, a problem that grows past a fixed size, or a
//!   witness that fails its check. The caller then runs the general Omega test, so the
//!   answer never depends on this path being taken.
//!
//! Rows are `[c, a1, ..., an]` as in [`super::omega`]: `c + a·x = 0` or `c + a·x >= 0`.

use super::budget;
use super::int::Int;
use super::omega::{Problem, Row};

/// Past this many inequalities (Fourier–Motzkin growing the system) the fast path gives up.
const MAX_ROWS: usize = 160;

/// Is there an integer point in `p`? `Some(answer)` when the fast path can prove it, `None`
/// when the general Omega test must decide.
pub fn feasible(p: &Problem) -> Option<bool> {
    feasible_rows(p.n, &p.eqs, &p.ineqs)
}

/// [`feasible`] on the rows of a problem over `n` variables, without building one.
pub fn feasible_rows(n: usize, eqs: &[Row], ineqs: &[Row]) -> Option<bool> {
    Sys::load(n, eqs, ineqs)?.run(eqs, ineqs)
}

/// How to recover one variable, in the order of elimination.
enum Step {
    /// `x_k = expr · (1, x)`; `expr` is `w` entries of `store` from `at`.
    Subst { k: usize, at: usize },
    /// `x_k` between `n_l` lower and `n_u` upper bounds stored from `at` (lower bounds
    /// first), `w` entries each.
    Bounds {
        k: usize,
        at: usize,
        n_l: usize,
        n_u: usize,
    },
}

/// A constraint system in flat row-major buffers of machine words.
struct Sys {
    /// Row width: the constant and `n` coefficients.
    w: usize,
    eqs: Vec<i64>,
    ineqs: Vec<i64>,
    /// Rows saved for reconstruction, referenced by [`Step`]s.
    store: Vec<i64>,
    steps: Vec<Step>,
    /// Scratch buffer for the next system of inequalities.
    next: Vec<i64>,
    /// Scratch buffers of [`Sys::merge_parallel`], kept between passes.
    order: Vec<usize>,
    dropped: Vec<bool>,
}

/// Outcome of one pass that may prove emptiness or give up.
enum Stop {
    Empty,
    GiveUp,
}

type Pass = Result<(), Stop>;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// `gcd` of the coefficients (entries after the constant), as a non-negative `i64`; `None`
/// if it does not fit (a coefficient `i64::MIN` alone).
fn row_gcd(r: &[i64]) -> Option<i64> {
    let mut g = 0u64;
    for &v in &r[1..] {
        if v != 0 {
            g = gcd(g, v.unsigned_abs());
            if g == 1 {
                return Some(1);
            }
        }
    }
    i64::try_from(g).ok()
}

impl Sys {
    fn load(n: usize, eqs: &[Row], ineqs: &[Row]) -> Option<Sys> {
        let w = n + 1;
        let flat = |rows: &[Vec<Int>]| -> Option<Vec<i64>> {
            let mut out = Vec::with_capacity(rows.len() * w);
            for r in rows {
                debug_assert_eq!(r.len(), w);
                for v in r {
                    out.push(v.to_i64()?);
                }
            }
            Some(out)
        };
        let eqs = flat(eqs)?;
        let ineqs = flat(ineqs)?;
        Some(Sys {
            w,
            eqs,
            ineqs,
            store: Vec::new(),
            steps: Vec::new(),
            next: Vec::new(),
            order: Vec::new(),
            dropped: Vec::new(),
        })
    }

    fn run(mut self, eqs: &[Row], ineqs: &[Row]) -> Option<bool> {
        budget::tick(1 + (self.eqs.len() + self.ineqs.len()) as u64 / self.w as u64);
        match self.eliminate() {
            Ok(()) => {}
            Err(Stop::Empty) => return Some(false),
            Err(Stop::GiveUp) => return None,
        }
        let sol = self.reconstruct()?;
        // The witness must satisfy the original problem; if it does not, this path has no
        // answer (and the general test decides).
        let ok = |r: &Vec<Int>| -> Option<i64> {
            let mut v = r[0].to_i64()? as i128;
            for (a, x) in r[1..].iter().zip(&sol) {
                v = v.checked_add(a.to_i64()? as i128 * *x as i128)?;
            }
            i64::try_from(v).ok()
        };
        for r in eqs {
            if ok(r)? != 0 {
                return None;
            }
        }
        for r in ineqs {
            if ok(r)? < 0 {
                return None;
            }
        }
        Some(true)
    }

    fn n_eqs(&self) -> usize {
        self.eqs.len() / self.w
    }

    fn n_ineqs(&self) -> usize {
        self.ineqs.len() / self.w
    }

    /// Eliminates every variable; `Ok` means the system is feasible (and `steps` rebuild a
    /// point).
    fn eliminate(&mut self) -> Pass {
        loop {
            self.normalize()?;
            if self.n_eqs() > 0 {
                self.eliminate_equality()?;
                continue;
            }
            if self.ineqs.is_empty() {
                return Ok(());
            }
            let (k, exact) = self.choose_variable();
            if !exact {
                return Err(Stop::GiveUp);
            }
            self.fourier_motzkin(k)?;
        }
    }

    /// Divides every row by the gcd of its coefficients (flooring an inequality's
    /// constant), drops trivial rows, keeps the tightest of parallel inequalities and turns
    /// opposite inequalities that pin a value into an equality.
    fn normalize(&mut self) -> Pass {
        let w = self.w;
        // Equalities.
        let mut out = 0;
        for i in 0..self.n_eqs() {
            let r = &mut self.eqs[i * w..(i + 1) * w];
            let g = row_gcd(r).ok_or(Stop::GiveUp)?;
            if g == 0 {
                if r[0] != 0 {
                    return Err(Stop::Empty);
                }
                continue;
            }
            if r[0] % g != 0 {
                return Err(Stop::Empty);
            }
            if g != 1 {
                r.iter_mut().for_each(|v| *v /= g);
            }
            self.eqs.copy_within(i * w..(i + 1) * w, out * w);
            out += 1;
        }
        self.eqs.truncate(out * w);
        // Inequalities.
        let mut out = 0;
        for i in 0..self.n_ineqs() {
            let r = &mut self.ineqs[i * w..(i + 1) * w];
            let g = row_gcd(r).ok_or(Stop::GiveUp)?;
            if g == 0 {
                if r[0] < 0 {
                    return Err(Stop::Empty);
                }
                continue;
            }
            if g != 1 {
                r[0] = r[0].div_euclid(g);
                r[1..].iter_mut().for_each(|v| *v /= g);
            }
            self.ineqs.copy_within(i * w..(i + 1) * w, out * w);
            out += 1;
        }
        self.ineqs.truncate(out * w);
        self.merge_parallel()
    }

    /// Parallel and opposite inequalities: sorted by coefficients, parallel rows are
    /// adjacent (the tightest, smallest constant, first); an opposite pair `f + c >= 0`,
    /// `-f + c' >= 0` with `c + c' < 0` is a contradiction and with `c + c' = 0` an
    /// equality.
    fn merge_parallel(&mut self) -> Pass {
        let w = self.w;
        let n = self.n_ineqs();
        if n < 2 {
            return Ok(());
        }
        let rows = &self.ineqs;
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..n);
        order.sort_unstable_by(|&a, &b| {
            let (ra, rb) = (&rows[a * w..(a + 1) * w], &rows[b * w..(b + 1) * w]);
            ra[1..].cmp(&rb[1..]).then(ra[0].cmp(&rb[0]))
        });
        order.dedup_by(|later, earlier| {
            rows[*later * w + 1..(*later + 1) * w] == rows[*earlier * w + 1..(*earlier + 1) * w]
        });
        // Opposite pairs, found by binary search for the negated coefficients.
        let mut drop = std::mem::take(&mut self.dropped);
        drop.clear();
        drop.resize(order.len(), false);
        let mut pinned = vec![];
        for (pos, &i) in order.iter().enumerate() {
            if drop[pos] {
                continue;
            }
            let me = &rows[i * w + 1..(i + 1) * w];
            let negative_first = me.iter().find(|v| **v != 0).is_some_and(|v| *v < 0);
            if !negative_first {
                continue;
            }
            let found = order.binary_search_by(|&j| {
                let other = &rows[j * w + 1..(j + 1) * w];
                for (x, y) in other.iter().zip(me) {
                    // `y == i64::MIN` cannot be negated: give up rather than misorder.
                    let o = x.cmp(&y.checked_neg().unwrap_or(i64::MAX));
                    if o.is_ne() {
                        return o;
                    }
                }
                std::cmp::Ordering::Equal
            });
            if me.contains(&i64::MIN) {
                return Err(Stop::GiveUp);
            }
            if let Ok(jpos) = found {
                let j = order[jpos];
                let width = rows[i * w].checked_add(rows[j * w]).ok_or(Stop::GiveUp)?;
                if width < 0 {
                    return Err(Stop::Empty);
                }
                if width == 0 {
                    drop[pos] = true;
                    drop[jpos] = true;
                    pinned.push(i);
                }
            }
        }
        self.next.clear();
        for (pos, &i) in order.iter().enumerate() {
            if !drop[pos] {
                self.next.extend_from_slice(&self.ineqs[i * w..(i + 1) * w]);
            }
        }
        for i in pinned {
            self.eqs.extend_from_slice(&self.ineqs[i * w..(i + 1) * w]);
        }
        std::mem::swap(&mut self.ineqs, &mut self.next);
        self.order = order;
        self.dropped = drop;
        Ok(())
    }

    /// Eliminates one equality by substitution, after unimodular changes of variables that
    /// bring one of its coefficients to ±1 when none is.
    fn eliminate_equality(&mut self) -> Pass {
        let w = self.w;
        let unit = |r: &[i64]| (1..w).rev().find(|&k| r[k] == 1 || r[k] == -1);
        let e = (0..self.n_eqs())
            .find(|&i| unit(&self.eqs[i * w..(i + 1) * w]).is_some())
            .unwrap_or(0);
        let mut eq: Vec<i64> = self.eqs[e * w..(e + 1) * w].to_vec();
        self.eqs.drain(e * w..(e + 1) * w);
        loop {
            let g = row_gcd(&eq).ok_or(Stop::GiveUp)?;
            if eq[0] % g != 0 {
                return Err(Stop::Empty);
            }
            if g != 1 {
                eq.iter_mut().for_each(|v| *v /= g);
            }
            if unit(&eq).is_some() {
                break;
            }
            // x_k = t - Σ floor(a_i / a_k) x_i, with |a_k| the smallest coefficient.
            let k = (1..w)
                .filter(|&k| eq[k] != 0)
                .min_by_key(|&k| eq[k].unsigned_abs())
                .expect("normalised equality has a variable");
            let ak = eq[k];
            let at = self.store.len();
            for (i, &v) in eq.iter().enumerate() {
                let e = if i == k {
                    1
                } else {
                    floor_div(v, ak)
                        .and_then(i64::checked_neg)
                        .ok_or(Stop::GiveUp)?
                };
                self.store.push(e);
            }
            let (store, eqs, ineqs) = (&self.store, &mut self.eqs, &mut self.ineqs);
            let expr = &store[at..at + w];
            substitute(&mut eq, k, expr)?;
            for r in eqs.chunks_exact_mut(w).chain(ineqs.chunks_exact_mut(w)) {
                substitute(r, k, expr)?;
            }
            self.steps.push(Step::Subst { k, at });
        }
        let k = unit(&eq).expect("unit coefficient");
        // a_k x_k + rest = 0 with a_k = ±1  ⇒  x_k = -a_k · rest
        let s = eq[k];
        let at = self.store.len();
        for (i, &v) in eq.iter().enumerate() {
            self.store.push(if i == k {
                0
            } else {
                v.checked_mul(-s).ok_or(Stop::GiveUp)?
            });
        }
        let (store, eqs, ineqs) = (&self.store, &mut self.eqs, &mut self.ineqs);
        let expr = &store[at..at + w];
        for r in eqs.chunks_exact_mut(w).chain(ineqs.chunks_exact_mut(w)) {
            substitute(r, k, expr)?;
        }
        self.steps.push(Step::Subst { k, at });
        Ok(())
    }

    /// The variable to eliminate next: one bounded on one side only if any, else the exact
    /// elimination adding the fewest rows; `exact` is false when every elimination would be
    /// inexact.
    fn choose_variable(&self) -> (usize, bool) {
        let w = self.w;
        let mut best: Option<(usize, usize)> = None;
        let mut any = 0;
        for k in 1..w {
            let (mut nl, mut nu) = (0usize, 0usize);
            let (mut unit_l, mut unit_u) = (true, true);
            for r in self.ineqs.chunks_exact(w) {
                let a = r[k];
                if a > 0 {
                    nl += 1;
                    unit_l &= a == 1;
                } else if a < 0 {
                    nu += 1;
                    unit_u &= a == -1;
                }
            }
            if nl + nu == 0 {
                continue;
            }
            any = k;
            if nl == 0 || nu == 0 {
                return (k, true);
            }
            if unit_l || unit_u {
                let cost = nl * nu;
                if best.is_none_or(|(_, c)| cost < c) {
                    best = Some((k, cost));
                }
            }
        }
        match best {
            Some((k, _)) => (k, true),
            None => (any, false),
        }
    }

    /// Exact Fourier–Motzkin elimination of `x_k`: its bounds are saved for
    /// reconstruction and replaced by every lower–upper combination.
    fn fourier_motzkin(&mut self, k: usize) -> Pass {
        let w = self.w;
        let at = self.store.len();
        let (mut n_l, mut n_u) = (0, 0);
        for r in self.ineqs.chunks_exact(w) {
            if r[k] > 0 {
                self.store.extend_from_slice(r);
                n_l += 1;
            }
        }
        for r in self.ineqs.chunks_exact(w) {
            if r[k] < 0 {
                self.store.extend_from_slice(r);
                n_u += 1;
            }
        }
        let n_rest = self.n_ineqs() - n_l - n_u;
        if n_rest + n_l * n_u > MAX_ROWS {
            return Err(Stop::GiveUp);
        }
        budget::tick((n_l * n_u) as u64);
        self.next.clear();
        for r in self.ineqs.chunks_exact(w) {
            if r[k] == 0 {
                self.next.extend_from_slice(r);
            }
        }
        let lowers = &self.store[at..at + n_l * w];
        let uppers = &self.store[at + n_l * w..at + (n_l + n_u) * w];
        for l in lowers.chunks_exact(w) {
            let a = l[k];
            for u in uppers.chunks_exact(w) {
                let b = -u[k];
                for (x, y) in l.iter().zip(u) {
                    let v = b
                        .checked_mul(*x)
                        .zip(a.checked_mul(*y))
                        .and_then(|(p, q)| p.checked_add(q))
                        .ok_or(Stop::GiveUp)?;
                    self.next.push(v);
                }
                let len = self.next.len();
                self.next[len - w + k] = 0;
            }
        }
        std::mem::swap(&mut self.ineqs, &mut self.next);
        self.steps.push(Step::Bounds { k, at, n_l, n_u });
        Ok(())
    }

    /// Undoes the eliminations on the all-zero point of the final (empty) system: an
    /// integer point of the original system. `None` on overflow.
    fn reconstruct(&self) -> Option<Vec<i64>> {
        let w = self.w;
        let mut sol = vec![0i64; w - 1];
        // `r · (1, sol)` without column `skip`.
        let eval = |r: &[i64], sol: &[i64], skip: usize| -> Option<i64> {
            let mut v = r[0] as i128;
            for (j, (a, x)) in r[1..].iter().zip(sol).enumerate() {
                if j + 1 != skip && *a != 0 {
                    v = v.checked_add(*a as i128 * *x as i128)?;
                }
            }
            i64::try_from(v).ok()
        };
        for step in self.steps.iter().rev() {
            match *step {
                Step::Subst { k, at } => {
                    let expr = &self.store[at..at + w];
                    // `expr` may use column k itself (the new variable of a change of
                    // variables), so evaluate with it.
                    let v = eval(expr, &sol, 0)?;
                    sol[k - 1] = v;
                }
                Step::Bounds { k, at, n_l, n_u } => {
                    let rows = &self.store[at..at + (n_l + n_u) * w];
                    let mut v: Option<i64> = None;
                    // a x + l >= 0  ⇒  x >= ceil(-l / a)
                    for r in rows[..n_l * w].chunks_exact(w) {
                        let lo = ceil_div(eval(r, &sol, k)?.checked_neg()?, r[k])?;
                        v = Some(v.map_or(lo, |v| v.max(lo)));
                    }
                    if v.is_none() {
                        // -b x + u >= 0  ⇒  x <= floor(u / b)
                        for r in rows[n_l * w..].chunks_exact(w) {
                            let hi = floor_div(eval(r, &sol, k)?, r[k].checked_neg()?)?;
                            v = Some(v.map_or(hi, |v| v.min(hi)));
                        }
                    }
                    sol[k - 1] = v.unwrap_or(0);
                }
            }
        }
        Some(sol)
    }
}

/// `row := row` with `x_k` replaced by `expr · (1, x)`.
fn substitute(row: &mut [i64], k: usize, expr: &[i64]) -> Pass {
    let c = std::mem::replace(&mut row[k], 0);
    if c == 0 {
        return Ok(());
    }
    for (v, e) in row.iter_mut().zip(expr) {
        if *e != 0 {
            *v = c
                .checked_mul(*e)
                .and_then(|t| v.checked_add(t))
                .ok_or(Stop::GiveUp)?;
        }
    }
    Ok(())
}

/// `floor(a / b)`, `None` on overflow (`b != 0`).
fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// `ceil(a / b)`, `None` on overflow (`b != 0`).
fn ceil_div(a: i64, b: i64) -> Option<i64> {
    floor_div(a.checked_neg()?, b)?.checked_neg()
}
