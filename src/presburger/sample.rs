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
//!   which is then checked against every constraint of the original problem. When no
//!   elimination is exact, a variable is eliminated by its dark shadow, which may only
//!   shrink the set: a point it leads to is still a real point (and checked), but from
//!   then on a contradiction proves nothing;
//! - **empty** only by a contradiction reached through exact steps (a constant row that is
//!   violated, an equality whose gcd does not divide its constant, two opposite bounds that
//!   cross), each of which preserves the integer points;
//! - **don't know** (`None`) on anything else: an arithmetic overflow, a contradiction
//!   after a dark shadow (only the splinters could decide), a problem that grows past a
//!   fixed size, or a witness that fails its check. The caller then runs the general Omega test, so the
//!   answer never depends on this path being taken.
//!
//! Rows are `[c, a1, ..., an]` as in [`super::row`]: `c + a·x = 0` or `c + a·x >= 0`.

use super::budget::{self, Budgeted, Exhausted};
use super::row::{Problem, Row};
use num_integer::Integer;
use std::cell::Cell;

/// Past this many inequalities (Fourier–Motzkin growing the system) the fast path gives up.
const MAX_ROWS: usize = 160;

/// Scratch buffers that grew past this many words are freed rather than kept for the next
/// call.
const KEEP_WORDS: usize = 1 << 16;

thread_local! {
    /// The buffers of the last call, reused so that a test allocates nothing once warm.
    static SCRATCH: Cell<Option<Box<Sys>>> = const { Cell::new(None) };
}

/// Is there an integer point in `p`? `Some(answer)` when the fast path can prove it, `None`
/// when the general Omega test must decide.
/// (Within a spent work budget: `None`; see [`budget`].)
pub fn feasible(p: &Problem) -> Option<bool> {
    budget::settle(|| try_feasible(p), || None)
}

/// [`feasible`], or the refusal of the work budget.
pub fn try_feasible(p: &Problem) -> Budgeted<Option<bool>> {
    try_feasible_rows(p.n, &p.eqs, &p.ineqs)
}

/// [`feasible`] on the rows of a problem over `n` variables, without building one.
pub fn feasible_rows(n: usize, eqs: &[Row], ineqs: &[Row]) -> Option<bool> {
    budget::settle(|| try_feasible_rows(n, eqs, ineqs), || None)
}

/// [`feasible_rows`], or the refusal of the work budget.
pub fn try_feasible_rows(n: usize, eqs: &[Row], ineqs: &[Row]) -> Budgeted<Option<bool>> {
    // Taken out while in use, and put back whatever the answer (the next call reloads
    // them).
    let mut sys = SCRATCH.with(Cell::take).unwrap_or_default();
    let answer = sys.run(n, eqs, ineqs);
    if sys.arena.capacity() + sys.refs.capacity() <= KEEP_WORDS {
        SCRATCH.with(|c| c.set(Some(sys)));
    }
    answer
}

/// How to recover one variable, in the order of elimination.
enum Step {
    /// `x_k = row · (1, x)` for the arena row `row`.
    Subst { k: usize, row: usize },
    /// `x_k` between the `n_l` lower and `n_u` upper bounds whose arena rows are listed in
    /// `refs[at..]` (lower bounds first).
    Bounds {
        k: usize,
        at: usize,
        n_l: usize,
        n_u: usize,
    },
}

/// A constraint system over machine words. Every row lives in one flat arena (`w` words
/// each) and the live equalities and inequalities are lists of row numbers, so that dropping
/// a row moves nothing. A row is only ever changed while live: once a step refers to it
/// (the bounds of an eliminated variable, a substitution), it stays as it was, which is
/// what reconstruction needs.
#[derive(Default)]
struct Sys {
    /// Row width: the constant and `n` coefficients.
    w: usize,
    arena: Vec<i64>,
    /// The original rows (equalities first), for the witness check.
    orig: Vec<i64>,
    n_orig_eqs: usize,
    /// Live rows.
    eqs: Vec<usize>,
    ineqs: Vec<usize>,
    /// Eliminations, in order, and the rows they refer to.
    steps: Vec<Step>,
    refs: Vec<usize>,
    /// Per column: live inequalities with a positive / negative coefficient.
    pos: Vec<usize>,
    neg: Vec<usize>,
    /// Per column: are those coefficients all `1` / all `-1`?
    unit_pos: Vec<bool>,
    unit_neg: Vec<bool>,
    /// Per live inequality: hashes of its coefficients and of their negation, and whether
    /// it was merged away ([`Sys::merge_parallel`]).
    hash: Vec<(u64, u64)>,
    gone: Vec<bool>,
    /// One row of scratch.
    tmp: Vec<i64>,
    /// The witness.
    sol: Vec<i64>,
    /// Whether a variable was eliminated by its dark shadow (from then on the system only
    /// under-approximates the problem, so a contradiction proves nothing).
    dark: bool,
}

/// Outcome of one pass that may prove emptiness or give up.
enum Stop {
    Empty,
    GiveUp,
    /// The work budget ran out.
    Out(Exhausted),
}

impl From<Exhausted> for Stop {
    fn from(e: Exhausted) -> Stop {
        Stop::Out(e)
    }
}

type Pass = Result<(), Stop>;

/// `gcd` of the coefficients (entries after the constant), as a non-negative `i64`; `None`
/// if it does not fit (a coefficient `i64::MIN` alone).
fn row_gcd(r: &[i64]) -> Option<i64> {
    let mut g = 0u64;
    for &v in &r[1..] {
        if v != 0 {
            g = g.gcd(&v.unsigned_abs());
            if g == 1 {
                return Some(1);
            }
        }
    }
    i64::try_from(g).ok()
}

/// Hashes of the coefficients of `r` and of their negation (equal rows have equal hashes;
/// rows with equal hashes are still compared entry by entry).
fn hashes(r: &[i64]) -> (u64, u64) {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let (mut h, mut hn) = (0u64, 0u64);
    for &v in &r[1..] {
        h = (h.rotate_left(7) ^ v as u64).wrapping_mul(K);
        hn = (hn.rotate_left(7) ^ v.wrapping_neg() as u64).wrapping_mul(K);
    }
    (h, hn)
}

impl Sys {
    fn load(&mut self, n: usize, eqs: &[Row], ineqs: &[Row]) -> Option<()> {
        let w = n + 1;
        self.w = w;
        self.arena.clear();
        self.steps.clear();
        self.refs.clear();
        self.eqs.clear();
        self.ineqs.clear();
        for r in eqs.iter().chain(ineqs) {
            debug_assert_eq!(r.len(), w);
            for v in r {
                self.arena.push(v.to_i64()?);
            }
        }
        self.orig.clear();
        self.orig.extend_from_slice(&self.arena);
        self.n_orig_eqs = eqs.len();
        self.eqs.extend(0..eqs.len());
        self.ineqs.extend(eqs.len()..eqs.len() + ineqs.len());
        for v in [&mut self.pos, &mut self.neg] {
            v.clear();
            v.resize(w, 0);
        }
        self.tmp.clear();
        self.tmp.resize(w, 0);
        self.dark = false;
        Some(())
    }

    fn run(&mut self, n: usize, eqs: &[Row], ineqs: &[Row]) -> Budgeted<Option<bool>> {
        budget::tick(1 + (eqs.len() + ineqs.len()) as u64)?;
        if self.load(n, eqs, ineqs).is_none() {
            return Ok(None);
        }
        match self.eliminate() {
            Ok(()) => {}
            Err(Stop::Out(e)) => return Err(e),
            Err(Stop::Empty) if !self.dark => return Ok(Some(false)),
            Err(_) => return Ok(None),
        }
        // The witness must satisfy the original problem; if it does not, this path has no
        // answer (and the general test decides).
        Ok((self.reconstruct().is_some() && self.check()).then_some(true))
    }

    fn row(&self, i: usize) -> &[i64] {
        &self.arena[i * self.w..(i + 1) * self.w]
    }

    /// Eliminates every variable; `Ok` means the system is feasible (and `steps` rebuild a
    /// point).
    fn eliminate(&mut self) -> Pass {
        loop {
            while !self.eqs.is_empty() {
                self.eliminate_equality()?;
            }
            self.normalize_ineqs()?;
            self.drop_one_sided();
            if self.ineqs.is_empty() {
                return Ok(());
            }
            if self.merge_parallel()? {
                continue;
            }
            let (k, exact) = self.choose_variable().ok_or(Stop::GiveUp)?;
            self.fourier_motzkin(k, exact)?;
        }
    }

    /// Divides every live inequality by the gcd of its coefficients (flooring its constant)
    /// and drops the trivial ones.
    fn normalize_ineqs(&mut self) -> Pass {
        let w = self.w;
        let mut out = 0;
        for j in 0..self.ineqs.len() {
            let i = self.ineqs[j];
            let r = &mut self.arena[i * w..(i + 1) * w];
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
            self.ineqs[out] = i;
            out += 1;
        }
        self.ineqs.truncate(out);
        Ok(())
    }

    /// Drops, one after the other, every variable that has live bounds on one side only
    /// (there are no live equalities): whatever the other variables are, a value far enough
    /// on that side satisfies all of its rows, so they go with it, unchanged.
    fn drop_one_sided(&mut self) {
        let w = self.w;
        let Sys {
            arena,
            ineqs,
            steps,
            refs,
            pos,
            neg,
            ..
        } = self;
        pos.fill(0);
        neg.fill(0);
        for &i in ineqs.iter() {
            for (k, &a) in arena[i * w..(i + 1) * w].iter().enumerate().skip(1) {
                if a > 0 {
                    pos[k] += 1;
                } else if a < 0 {
                    neg[k] += 1;
                }
            }
        }
        loop {
            let mut changed = false;
            for k in 1..w {
                let lower = pos[k] > 0;
                if lower == (neg[k] > 0) {
                    continue;
                }
                let at = refs.len();
                let mut out = 0;
                for j in 0..ineqs.len() {
                    let i = ineqs[j];
                    let r = &arena[i * w..(i + 1) * w];
                    if r[k] == 0 {
                        ineqs[out] = i;
                        out += 1;
                        continue;
                    }
                    refs.push(i);
                    for (c, &a) in r.iter().enumerate().skip(1) {
                        if a > 0 {
                            pos[c] -= 1;
                        } else if a < 0 {
                            neg[c] -= 1;
                        }
                    }
                }
                ineqs.truncate(out);
                let m = refs.len() - at;
                let (n_l, n_u) = if lower { (m, 0) } else { (0, m) };
                steps.push(Step::Bounds { k, at, n_l, n_u });
                changed = true;
            }
            if !changed {
                return;
            }
        }
    }

    /// Parallel and opposite inequalities: of two rows with the same coefficients the
    /// tighter (smaller constant) is kept; an opposite pair `f + c >= 0`, `-f + c' >= 0` with
    /// `c + c' < 0` is a contradiction and with `c + c' = 0` an equality. Returns whether
    /// equalities were found.
    fn merge_parallel(&mut self) -> Result<bool, Stop> {
        let w = self.w;
        let n = self.ineqs.len();
        if n < 2 {
            return Ok(false);
        }
        let Sys {
            arena,
            ineqs,
            eqs,
            hash,
            gone,
            ..
        } = self;
        hash.clear();
        hash.extend(ineqs.iter().map(|&i| hashes(&arena[i * w..(i + 1) * w])));
        gone.clear();
        gone.resize(n, false);
        let row = |i: usize| &arena[i * w..(i + 1) * w];
        for a in 0..n {
            // Quadratic in the rows: one step per 16 pairs compared.
            budget::tick(((n - a) / 16) as u64)?;
            for b in a + 1..n {
                if gone[a] {
                    break;
                }
                if gone[b] {
                    continue;
                }
                let (ra, rb) = (row(ineqs[a]), row(ineqs[b]));
                if hash[a].0 == hash[b].0 && ra[1..] == rb[1..] {
                    if rb[0] < ra[0] {
                        gone[a] = true;
                    } else {
                        gone[b] = true;
                    }
                } else if hash[a].0 == hash[b].1
                    && ra[1..]
                        .iter()
                        .zip(&rb[1..])
                        .all(|(x, y)| x.checked_neg() == Some(*y))
                {
                    let width = ra[0].checked_add(rb[0]).ok_or(Stop::GiveUp)?;
                    if width < 0 {
                        return Err(Stop::Empty);
                    }
                    if width == 0 {
                        gone[a] = true;
                        gone[b] = true;
                        eqs.push(ineqs[a]);
                    }
                }
            }
        }
        let mut out = 0;
        for j in 0..n {
            if !gone[j] {
                ineqs[out] = ineqs[j];
                out += 1;
            }
        }
        ineqs.truncate(out);
        Ok(!eqs.is_empty())
    }

    /// Eliminates one equality by substitution, after unimodular changes of variables that
    /// bring one of its coefficients to ±1 when none is.
    fn eliminate_equality(&mut self) -> Pass {
        let w = self.w;
        // Equalities left without variables by the substitutions are checked and dropped
        // at once: a problem may carry hundreds of equalities over a few variables (one
        // tie repeated through a composition), and looking for a unit coefficient among
        // them at every step would be quadratic in their number.
        budget::tick((self.eqs.len() * w / 256) as u64)?;
        let arena = &self.arena;
        let mut empty = false;
        self.eqs.retain(|&e| {
            let r = &arena[e * w..(e + 1) * w];
            let constant = r[1..].iter().all(|&v| v == 0);
            empty |= constant && r[0] != 0;
            !constant
        });
        if empty {
            return Err(Stop::Empty);
        }
        if self.eqs.is_empty() {
            return Ok(());
        }
        let unit = |r: &[i64]| (1..w).rev().find(|&k| r[k] == 1 || r[k] == -1);
        let pick = (0..self.eqs.len())
            .find(|&j| unit(self.row(self.eqs[j])).is_some())
            .unwrap_or(0);
        let e = self.eqs.swap_remove(pick);
        loop {
            let eq = &mut self.arena[e * w..(e + 1) * w];
            let g = row_gcd(eq).ok_or(Stop::GiveUp)?;
            if g == 0 {
                // No variable left: `c = 0`.
                return if eq[0] == 0 { Ok(()) } else { Err(Stop::Empty) };
            }
            if eq[0] % g != 0 {
                return Err(Stop::Empty);
            }
            if g != 1 {
                eq.iter_mut().for_each(|v| *v /= g);
            }
            if let Some(k) = unit(eq) {
                // a_k x_k + rest = 0 with a_k = ±1  ⇒  x_k = -a_k · rest: the row itself,
                // no longer live, becomes the expression.
                let s = eq[k];
                for (i, v) in eq.iter_mut().enumerate() {
                    *v = if i == k {
                        0
                    } else {
                        v.checked_mul(-s).ok_or(Stop::GiveUp)?
                    };
                }
                self.tmp.copy_from_slice(eq);
                self.substitute_live(k)?;
                self.steps.push(Step::Subst { k, row: e });
                return Ok(());
            }
            // x_k = t - Σ floor(a_i / a_k) x_i, with |a_k| the smallest coefficient; column
            // k now stands for t.
            let k = (1..w)
                .filter(|&k| eq[k] != 0)
                .min_by_key(|&k| eq[k].unsigned_abs())
                .expect("normalised equality has a variable");
            let ak = eq[k];
            for (i, &v) in eq.iter().enumerate() {
                self.tmp[i] = if i == k {
                    1
                } else {
                    floor_div(v, ak)
                        .and_then(i64::checked_neg)
                        .ok_or(Stop::GiveUp)?
                };
            }
            substitute(&mut self.arena[e * w..(e + 1) * w], k, &self.tmp)?;
            self.substitute_live(k)?;
            let row = self.arena.len() / w;
            self.arena.extend_from_slice(&self.tmp);
            self.steps.push(Step::Subst { k, row });
        }
    }

    /// Replaces `x_k` by `tmp · (1, x)` in every live row.
    fn substitute_live(&mut self, k: usize) -> Pass {
        let w = self.w;
        for &i in self.eqs.iter().chain(&self.ineqs) {
            substitute(&mut self.arena[i * w..(i + 1) * w], k, &self.tmp)?;
        }
        Ok(())
    }

    /// The variable whose exact elimination (one side of its bounds has unit coefficients)
    /// adds the fewest rows, with `true`; when there is none, the variable whose dark shadow
    /// adds the fewest rows, with `false`. Every variable left has bounds on both sides
    /// ([`Sys::drop_one_sided`] ran); `None` when there is none.
    fn choose_variable(&mut self) -> Option<(usize, bool)> {
        let w = self.w;
        let Sys {
            arena,
            ineqs,
            pos,
            neg,
            unit_pos,
            unit_neg,
            ..
        } = self;
        pos.fill(0);
        neg.fill(0);
        for v in [&mut *unit_pos, &mut *unit_neg] {
            v.clear();
            v.resize(w, true);
        }
        for &i in ineqs.iter() {
            for (k, &a) in arena[i * w..(i + 1) * w].iter().enumerate().skip(1) {
                if a > 0 {
                    pos[k] += 1;
                    unit_pos[k] &= a == 1;
                } else if a < 0 {
                    neg[k] += 1;
                    unit_neg[k] &= a == -1;
                }
            }
        }
        let both = |k: &usize| pos[*k] > 0 && neg[*k] > 0;
        let cost = |k: &usize| pos[*k] * neg[*k];
        (1..w)
            .filter(|k| both(k) && (unit_pos[*k] || unit_neg[*k]))
            .min_by_key(cost)
            .map(|k| (k, true))
            .or_else(|| (1..w).filter(both).min_by_key(cost).map(|k| (k, false)))
    }

    /// Fourier–Motzkin elimination of `x_k`: its bounds are kept for reconstruction and
    /// replaced by every lower–upper combination. When not `exact`, by the dark shadow:
    /// each combination of `a·x + l >= 0` and `-b·x + u >= 0` is tightened to
    /// `b·l + a·u >= (a - 1)(b - 1)`, which guarantees an integer `x` between every pair of
    /// bounds (Pugh), so a point of the smaller system extends to one of the original (the
    /// largest lower bound of `x` is then below every upper bound); but an empty dark
    /// shadow proves nothing, which [`Sys::dark`] records.
    fn fourier_motzkin(&mut self, k: usize, exact: bool) -> Pass {
        let w = self.w;
        let at = self.refs.len();
        for &i in &self.ineqs {
            if self.arena[i * w + k] > 0 {
                self.refs.push(i);
            }
        }
        let n_l = self.refs.len() - at;
        for &i in &self.ineqs {
            if self.arena[i * w + k] < 0 {
                self.refs.push(i);
            }
        }
        let n_u = self.refs.len() - at - n_l;
        let n_rest = self.ineqs.len() - n_l - n_u;
        if n_rest + n_l * n_u > MAX_ROWS {
            return Err(Stop::GiveUp);
        }
        // One step per pair of bounds combined and per 8 words of their rows.
        budget::tick((n_l * n_u * (1 + w / 8)) as u64)?;
        let arena = &self.arena;
        self.ineqs.retain(|&i| arena[i * w + k] == 0);
        self.arena.reserve(n_l * n_u * w);
        for li in at..at + n_l {
            let l = self.refs[li] * w;
            let a = self.arena[l + k];
            for ui in at + n_l..at + n_l + n_u {
                let u = self.refs[ui] * w;
                let b = -self.arena[u + k];
                let new = self.arena.len() / w;
                for c in 0..w {
                    let v = b
                        .checked_mul(self.arena[l + c])
                        .zip(a.checked_mul(self.arena[u + c]))
                        .and_then(|(p, q)| p.checked_add(q))
                        .ok_or(Stop::GiveUp)?;
                    self.arena.push(v);
                }
                self.arena[new * w + k] = 0;
                if !exact {
                    let slack = (a - 1).checked_mul(b - 1).ok_or(Stop::GiveUp)?;
                    let c = &mut self.arena[new * w];
                    *c = c.checked_sub(slack).ok_or(Stop::GiveUp)?;
                }
                self.ineqs.push(new);
            }
        }
        self.dark |= !exact;
        self.steps.push(Step::Bounds { k, at, n_l, n_u });
        Ok(())
    }

    /// Undoes the eliminations on the all-zero point of the final (empty) system, into
    /// `sol`: an integer point of the original system. `None` on overflow.
    fn reconstruct(&mut self) -> Option<()> {
        let w = self.w;
        let Sys {
            arena,
            steps,
            refs,
            sol,
            ..
        } = self;
        sol.clear();
        sol.resize(w - 1, 0);
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
        let row = |i: usize| &arena[i * w..(i + 1) * w];
        for step in steps.iter().rev() {
            match *step {
                Step::Subst { k, row: e } => {
                    // The expression may use column k itself (the new variable of a change
                    // of variables), so evaluate with it.
                    sol[k - 1] = eval(row(e), sol, 0)?;
                }
                Step::Bounds { k, at, n_l, n_u } => {
                    let mut v: Option<i64> = None;
                    // a x + l >= 0  ⇒  x >= ceil(-l / a)
                    for &i in &refs[at..at + n_l] {
                        let r = row(i);
                        let lo = ceil_div(eval(r, sol, k)?.checked_neg()?, r[k])?;
                        v = Some(v.map_or(lo, |v| v.max(lo)));
                    }
                    if v.is_none() {
                        // -b x + u >= 0  ⇒  x <= floor(u / b)
                        for &i in &refs[at + n_l..at + n_l + n_u] {
                            let r = row(i);
                            let hi = floor_div(eval(r, sol, k)?, r[k].checked_neg()?)?;
                            v = Some(v.map_or(hi, |v| v.min(hi)));
                        }
                    }
                    sol[k - 1] = v.unwrap_or(0);
                }
            }
        }
        Some(())
    }

    /// Does `sol` satisfy every original row (exactly, in 128 bits)?
    fn check(&self) -> bool {
        let w = self.w;
        self.orig.chunks_exact(w).enumerate().all(|(i, r)| {
            let mut v = r[0] as i128;
            for (a, x) in r[1..].iter().zip(&self.sol) {
                match v.checked_add(*a as i128 * *x as i128) {
                    Some(s) => v = s,
                    None => return false,
                }
            }
            if i < self.n_orig_eqs {
                v == 0
            } else {
                v >= 0
            }
        })
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
