//! Repairs drawn from the legal-schedule space: for an illegal script, changes computed from
//! the Farkas space of `search::space` rather than taken from a fixed list (docs/search.md,
//! "`loopy suggest`").
//!
//! The schedule a script leaves is read back from the interpreter's state as one affine row
//! per level of the 2d+1 schedule (positions and iteration dims), over the space's layout.
//! The changes computed:
//!
//! - a `tile` whose band is not permutable: for each tiled loop `j`, the skew factors
//!   `f` (by every loop before it) such that `row_j + Σ f_m·row_m` weakly satisfies every
//!   dependence among the tiled statements still active at the band's first loop (a
//!   polyhedron in `f`, from the space); the fewest non-zero factors, then the smallest sum
//!   of their magnitudes (an integer lexicographic minimum per support and sign pattern).
//!   The new rows are a unit lower-triangular transformation of the old ones (unimodular),
//!   written as `skew` lines before the tile, inner loops first;
//! - one integer of the script — a `skew` factor, a `shift` amount, or the amount of a
//!   `shift` inserted before a `realign` — moves the whole final schedule along a line
//!   `A + w·D` (read from the state at two values and checked at a third). For each
//!   dependence the values of `w` that satisfy it level by level (weakly at every level up
//!   to one that satisfies it strongly) are a union of intervals read off the space; their
//!   intersection over all dependences gives the nearest legal values on each side. A
//!   `tile` ending the script is left out of the line and its band asked to be permutable;
//!   when the schedule still has no affine rows, the script up to the changed line is used;
//! - two shifts before a `realign`: the first by ±1..3, the second along the line the first
//!   leaves, as above.
//!
//! Every integer point of the space is legal (the rational construction), so a change found
//! here is legal up to what the space does not see (marks, copies, the part of a script
//! left out when its schedule cannot be read); every change is checked again by the
//! ordinary checker before it is shown.

use super::Change;
use crate::driver::{Kernel, Run};
use crate::model::state::State;
use crate::presburger::row::Row;
use crate::presburger::{budget, Basic, Int};
use crate::script::ast::{Arg, ScriptItem, Stmt};
use crate::script::parse::parse_script;
use crate::search::space::affine_rows;
use crate::search::space::Legal;
use std::path::Path;

/// The schedule of every statement, level by level (`p0, j1, p1, …, jM, pM`), each level a
/// whole-layout coefficient vector.
pub type Levels = Vec<Vec<Int>>;

/// The schedule a state gives, level by level, when every statement is one piece with an
/// affine iteration map, in the space's coordinates (iterator coefficients over the
/// original iteration dimensions).
pub fn levels(state: &State, legal: &Legal) -> Option<Levels> {
    let l = &legal.layout;
    let n = l.iters.len();
    if state.pieces.len() != n {
        return None;
    }
    let m = state.n_it();
    let mut out = vec![vec![Int::ZERO; l.len]; 2 * m + 1];
    for p in &state.pieces {
        let s = p.stmt;
        if s >= n || p.it.n_in() != l.iters[s] || p.pos.len() != m + 1 {
            return None;
        }
        let rows = affine_rows(&p.it, &l.params)?;
        for (k, pos) in p.pos.iter().enumerate() {
            out[2 * k][l.constant(s)] = pos.clone();
        }
        for (k, r) in rows.iter().enumerate() {
            let first = l.offset[s];
            for (c, v) in r.iter().enumerate() {
                // Iterator coefficients are over the original iteration dimensions (`−j`
                // for a loop counting down): `c·j = (c·dir)·(dir·j)`.
                out[2 * k + 1][first + c] = if c < l.iters[s] {
                    v * &Int::from(l.dir(s, c))
                } else {
                    v.clone()
                };
            }
        }
    }
    Some(out)
}

/// A set of integers as sorted, disjoint, non-adjacent closed intervals (`NEG`/`POS` stand
/// for no bound).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values(pub Vec<(i128, i128)>);

const NEG: i128 = i128::MIN / 4;
const POS: i128 = i128::MAX / 4;

impl Values {
    pub fn all() -> Values {
        Values(vec![(NEG, POS)])
    }

    pub fn none() -> Values {
        Values(vec![])
    }

    fn interval(lo: i128, hi: i128) -> Values {
        if lo <= hi {
            Values(vec![(lo, hi)])
        } else {
            Values::none()
        }
    }

    pub fn union(&self, o: &Values) -> Values {
        let mut all: Vec<(i128, i128)> = self.0.iter().chain(&o.0).copied().collect();
        all.sort();
        let mut out: Vec<(i128, i128)> = vec![];
        for (lo, hi) in all {
            match out.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        Values(out)
    }

    pub fn intersect(&self, o: &Values) -> Values {
        let mut out = vec![];
        for &(a, b) in &self.0 {
            for &(c, d) in &o.0 {
                let (lo, hi) = (a.max(c), b.min(d));
                if lo <= hi {
                    out.push((lo, hi));
                }
            }
        }
        Values(out).union(&Values::none())
    }

    /// Whether `v` is a member. (For the tests.)
    #[cfg(test)]
    pub fn contains(&self, v: i128) -> bool {
        self.0.iter().any(|&(lo, hi)| lo <= v && v <= hi)
    }

    /// The smallest member above `v` that `ok` accepts (searching a few past a rejected one).
    pub fn next_above(&self, v: i128, ok: impl Fn(i128) -> bool) -> Option<i128> {
        for &(lo, hi) in &self.0 {
            let mut x = lo.max(v + 1);
            while x <= hi && x < POS {
                if ok(x) {
                    return Some(x);
                }
                x += 1;
            }
        }
        None
    }

    /// The largest member below `v` that `ok` accepts.
    pub fn next_below(&self, v: i128, ok: impl Fn(i128) -> bool) -> Option<i128> {
        for &(lo, hi) in self.0.iter().rev() {
            let mut x = hi.min(v - 1);
            while x >= lo && x > NEG {
                if ok(x) {
                    return Some(x);
                }
                x -= 1;
            }
        }
        None
    }
}

fn to_i128(v: &Int) -> Option<i128> {
    v.to_i64().map(i128::from)
}

/// `{w : a + b·w ≥ 0}` for every `(a, b)`.
fn solve_line(rows: &[(Int, Int)]) -> Option<Values> {
    let (mut lo, mut hi) = (NEG, POS);
    for (a, b) in rows {
        if b.is_zero() {
            if a.is_negative() {
                return Some(Values::none());
            }
            continue;
        }
        // b·w ≥ −a.
        let na = -a;
        if b.is_positive() {
            lo = lo.max(to_i128(&na.div_ceil(b))?);
        } else {
            let nb = -b;
            hi = hi.min(to_i128(&a.div_floor(&nb))?);
        }
    }
    Some(Values::interval(lo, hi))
}

/// A Farkas row over `[1 | coefficients]` along the line `a + w·d`: `(r·(1, a), r·(0, d))`.
fn along(r: &Row, a: &[Int], d: &[Int]) -> (Int, Int) {
    let mut x = r[0].clone();
    let mut y = Int::ZERO;
    for (c, v) in r[1..].iter().enumerate() {
        if !v.is_zero() {
            x += &(v * &a[c]);
            y += &(v * &d[c]);
        }
    }
    (x, y)
}

/// A tiled band: loops `first ..= last` (1-based) of the statements `stmts`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileBand {
    pub first: usize,
    pub last: usize,
    pub stmts: Vec<usize>,
}

/// The integers `w` for which the schedule `a + w·d` satisfies every dependence of the
/// space level by level: for each edge, weakly at every level up to one where it holds
/// strongly. For each band of `bands` (loops of the schedule `a + w·d`, tiled afterwards),
/// every edge among its statements must also be satisfied strongly before the band or
/// weakly by every loop of it (the band is permutable). `None` when a number does not fit.
pub fn legal_values(legal: &Legal, a: &Levels, d: &Levels, bands: &[TileBand]) -> Option<Values> {
    let mut all = Values::all();
    for e in &legal.edges {
        let weak = e.rows(0);
        let strong = e.rows(1);
        let w_at = |k: usize| -> Option<Values> {
            let w: Vec<(Int, Int)> = weak.iter().map(|r| along(r, &a[k], &d[k])).collect();
            solve_line(&w)
        };
        let s_at = |k: usize| -> Option<Values> {
            let s: Vec<(Int, Int)> = strong.iter().map(|r| along(r, &a[k], &d[k])).collect();
            solve_line(&s)
        };
        let mut prefix = Values::all();
        let mut ok = Values::none();
        for k in 0..a.len() {
            ok = ok.union(&prefix.intersect(&s_at(k)?));
            prefix = prefix.intersect(&w_at(k)?);
            if prefix.0.is_empty() {
                break;
            }
        }
        for b in bands {
            if !b.stmts.contains(&e.source) || !b.stmts.contains(&e.sink) {
                continue;
            }
            if 2 * b.last > a.len() || b.first == 0 {
                return None;
            }
            // Satisfied before the band (levels p0 .. p(first − 1)), or weakly by all of it.
            let mut prefix = Values::all();
            let mut before = Values::none();
            for k in 0..2 * b.first - 1 {
                before = before.union(&prefix.intersect(&s_at(k)?));
                prefix = prefix.intersect(&w_at(k)?);
            }
            for j in b.first..=b.last {
                prefix = prefix.intersect(&w_at(2 * j - 1)?);
            }
            ok = ok.intersect(&before.union(&prefix));
        }
        all = all.intersect(&ok);
        if all.0.is_empty() {
            break;
        }
    }
    Some(all)
}

/// What every repair runs scripts with: the kernel, its run (restarted for each script),
/// the legal-schedule space, and the script's name and folder (for its imports).
struct Probe<'a> {
    kernel: &'a Kernel,
    run: &'a mut Run,
    legal: &'a Legal,
    name: &'a str,
    base: &'a Path,
}

/// A script's text and its top-level statements: the spans of all of them, and the calls
/// among them with their spans.
struct Script<'a> {
    text: &'a str,
    spans: Vec<std::ops::Range<usize>>,
    calls: Vec<(&'a crate::script::ast::Call, std::ops::Range<usize>)>,
}

impl Probe<'_> {
    /// Runs a script from the kernel's own schedules; `false` when it fails.
    fn apply(&mut self, text: &str) -> bool {
        self.run.restart(self.kernel);
        self.run
            .apply(self.kernel, text, self.name, self.base)
            .is_ok()
    }

    /// Runs a script and reads the schedule it leaves.
    fn levels(&mut self, text: &str) -> Option<Levels> {
        if !self.apply(text) {
            return None;
        }
        levels(&self.run.interp.state, self.legal)
    }

    /// The line `A + w·D` a family of scripts moves the schedule along, from the scripts at
    /// three values (two to find it, the third to check it is a line).
    fn line(&mut self, at: &dyn Fn(i64) -> String, probes: [i64; 3]) -> Option<(Levels, Levels)> {
        let [w1, w2, w3] = probes;
        let l1 = self.levels(&at(w1))?;
        let l2 = self.levels(&at(w2))?;
        let l3 = self.levels(&at(w3))?;
        if l1.len() != l2.len() || l1.len() != l3.len() {
            return None;
        }
        let step = Int::from(w2 - w1);
        let mut a = l1.clone();
        let mut d = l1.clone();
        for k in 0..l1.len() {
            for c in 0..l1[k].len() {
                let diff = &l2[k][c] - &l1[k][c];
                if !diff.mod_floor(&step).is_zero() {
                    return None;
                }
                d[k][c] = diff.div_exact(&step);
                a[k][c] = &l1[k][c] - &(&Int::from(w1) * &d[k][c]);
                if l3[k][c] != &a[k][c] + &(&Int::from(w3) * &d[k][c]) {
                    return None;
                }
            }
        }
        Some((a, d))
    }
}

/// The text with the top-level statements from index `from` on blanked out (spaces, so that
/// spans stay where they were).
fn without_from(text: &str, stmts: &[std::ops::Range<usize>], from: usize) -> String {
    let mut b = text.as_bytes().to_vec();
    for s in &stmts[from..] {
        for x in &mut b[s.clone()] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
    }
    String::from_utf8(b).unwrap_or_else(|_| text.to_string())
}

fn indent_at(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    text[line_start..at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

fn insert_before(text: &str, at: usize, lines: &[String]) -> String {
    let indent = indent_at(text, at);
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
        s.push_str(&indent);
    }
    format!("{}{s}{}", &text[..at], &text[at..])
}

fn line_no(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The changes computed from the space for a script, each with its cost as in
/// [`Change::cost`]. Empty when the script does not parse or the space cannot be read; the
/// changes of each statement are computed under a work budget `limit` of their own (none
/// for that statement past it).
pub fn space_changes(
    kernel: &Kernel,
    run: &mut Run,
    legal: &Legal,
    text: &str,
    name: &str,
    base: &Path,
    limit: u64,
) -> Vec<Change> {
    let Ok(parsed) = parse_script(text, name) else {
        return vec![];
    };
    let spans: Vec<std::ops::Range<usize>> = parsed
        .items
        .iter()
        .filter_map(|it| match it {
            ScriptItem::Stmt(s) => Some(s.span()),
            _ => None,
        })
        .collect();
    let calls: Vec<(&crate::script::ast::Call, std::ops::Range<usize>)> = parsed
        .items
        .iter()
        .filter_map(|it| match it {
            ScriptItem::Stmt(Stmt::Call { call, span, .. }) => Some((call, span.clone())),
            _ => None,
        })
        .collect();
    let script = Script { text, spans, calls };
    let mut probe = Probe {
        kernel,
        run,
        legal,
        name,
        base,
    };
    let mut out = vec![];
    for (call, span) in &script.calls {
        let Some(idx) = script.spans.iter().position(|s| s == span) else {
            continue;
        };
        // Each statement's changes under a work budget of their own; none past it.
        let found = budget::with_budget(limit, || probe.changes_at(&script, idx, call));
        out.extend(found.unwrap_or_default());
    }
    out
}

impl Probe<'_> {
    /// The changes computed from the space for top-level statement `idx` (a call).
    fn changes_at(
        &mut self,
        script: &Script,
        idx: usize,
        call: &crate::script::ast::Call,
    ) -> Vec<Change> {
        let (text, legal) = (script.text, self.legal);
        let span = script.spans[idx].clone();
        let mut out = vec![];
        let op = call.name.text.as_str();
        let stmt_text = &text[span.clone()];
        let line = line_no(text, span.start);
        match op {
            "skew" | "shift" => {
                let Some(Arg::Int(v, at)) = call.args.last() else {
                    return out;
                };
                let Some(v0) = v.to_i64() else {
                    return out;
                };
                let with = |w: i64| format!("{}{w}{}", &text[..at.start], &text[at.end..]);
                let (plain, bands) = self.untiled(script, idx);
                let plain_with = |w: i64| format!("{}{w}{}", &plain[..at.start], &plain[at.end..]);
                let skew = op == "skew";
                let probes: Vec<i64> = (1..=4)
                    .map(|k| v0 + k)
                    .filter(|&w| !(skew && w == 0))
                    .take(3)
                    .collect();
                let Some((a, d)) = self.line(&plain_with, [probes[0], probes[1], probes[2]]) else {
                    return out;
                };
                let Some(vals) = legal_values(legal, &a, &d, &bands) else {
                    return out;
                };
                let ok = |w: i128| !(skew && w == 0);
                let v = i128::from(v0);
                for w in [vals.next_above(v, ok), vals.next_below(v, ok)]
                    .into_iter()
                    .flatten()
                {
                    let Ok(w) = i64::try_from(w) else { continue };
                    let rel = at.start - span.start..at.end - span.start;
                    let new_stmt =
                        format!("{}{w}{}", &stmt_text[..rel.start], &stmt_text[rel.end..]);
                    out.push(Change {
                        cost: (1, (w - v0).abs()),
                        what: format!("replace line {line} (`{stmt_text}`) with:"),
                        lines: vec![new_stmt],
                        text: with(w),
                        space: true,
                    });
                }
            }
            "realign" | "fuse" | "distribute" => {
                let [h1, h2, Arg::Int(n, _)] = call.args.as_slice() else {
                    return out;
                };
                let Some(n) = n.to_i64() else {
                    return out;
                };
                let (plain, bands) = self.untiled(script, idx);
                for h in [h2, h1] {
                    let handle = &text[h.span()];
                    let shift = |k: i64, w: i64| format!("shift({handle}, {k}, {w})");
                    let what = format!("insert before line {line} (`{stmt_text}`):");
                    let nearest = |vals: &Values| -> Vec<i64> {
                        let mut found: Vec<i64> =
                            [vals.next_above(0, |_| true), vals.next_below(0, |_| true)]
                                .into_iter()
                                .flatten()
                                .filter_map(|w| i64::try_from(w).ok())
                                .collect();
                        found.sort_by_key(|w| (w.abs(), *w < 0));
                        found
                    };
                    // One loop shifted: the nearest legal amounts.
                    let mut lines_of: Vec<(i64, Levels, Levels)> = vec![];
                    for k in 1..=n {
                        let plain_with = |w: i64| insert_before(&plain, span.start, &[shift(k, w)]);
                        let Some((a, d)) = self.line(&plain_with, [1, 2, 3]) else {
                            continue;
                        };
                        let Some(vals) = legal_values(legal, &a, &d, &bands) else {
                            continue;
                        };
                        for w in nearest(&vals) {
                            let lines = vec![shift(k, w)];
                            out.push(Change {
                                cost: (1, w.abs()),
                                what: what.clone(),
                                text: insert_before(text, span.start, &lines),
                                lines,
                                space: true,
                            });
                        }
                        lines_of.push((k, a, d));
                    }
                    // Two loops shifted: the first by ±1..3, the second by the nearest legal
                    // amount along the line the first leaves.
                    for (i, (k1, a, d1)) in lines_of.iter().enumerate() {
                        for (k2, _, d2) in &lines_of[i + 1..] {
                            for w1 in [1i64, -1, 2, -2, 3, -3] {
                                let moved: Levels = a
                                    .iter()
                                    .zip(d1)
                                    .map(|(x, y)| {
                                        x.iter()
                                            .zip(y)
                                            .map(|(u, v)| u + &(&Int::from(w1) * v))
                                            .collect()
                                    })
                                    .collect();
                                let Some(vals) = legal_values(legal, &moved, d2, &bands) else {
                                    continue;
                                };
                                for w2 in nearest(&vals) {
                                    let lines = vec![shift(*k1, w1), shift(*k2, w2)];
                                    out.push(Change {
                                        cost: (2, w1.abs() + w2.abs()),
                                        what: what.clone(),
                                        text: insert_before(text, span.start, &lines),
                                        lines,
                                        space: true,
                                    });
                                }
                            }
                        }
                    }
                }
            }
            "tile" => {
                if let Some(c) = self.tile_repair(script, idx, call) {
                    out.push(c);
                }
            }
            _ => {}
        }
        out
    }

    /// The band a top-level `tile` statement tiles (its loops must be consecutive) and the
    /// statements it changes (those whose schedule the step touches when the script runs
    /// through it).
    fn tile_band(
        &mut self,
        script: &Script,
        idx: usize,
        call: &crate::script::ast::Call,
    ) -> Option<TileBand> {
        let loops: Vec<usize> = match call.args.as_slice() {
            [_, Arg::List(loops, _), Arg::List(..)] => loops
                .iter()
                .map(|a| match a {
                    Arg::Int(v, _) => v.to_i64().and_then(|x| usize::try_from(x).ok()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?,
            [_, Arg::List(sizes, _)] => (1..=sizes.len()).collect(),
            _ => return None,
        };
        let (first, last) = (*loops.iter().min()?, *loops.iter().max()?);
        if first == 0 || last - first + 1 != loops.len() {
            return None;
        }
        let through = without_from(script.text, &script.spans, idx + 1);
        if !self.apply(&through) {
            return None;
        }
        let step = self.run.interp.steps.len();
        let mut stmts: Vec<usize> = self
            .run
            .interp
            .state
            .pieces
            .iter()
            .filter(|p| p.touched.contains(&step))
            .map(|p| p.stmt)
            .collect();
        stmts.sort();
        stmts.dedup();
        if stmts.is_empty() {
            return None;
        }
        Some(TileBand { first, last, stmts })
    }

    /// For a change at statement `idx`: the script to read the schedule from and the bands
    /// tiled afterwards. A `tile` that ends the script is blanked out (its floor divisions have
    /// no affine rows) and returned as a band. When the schedule still cannot be read (a tiling
    /// procedure, several tiles), the script through statement `idx` only: the values found
    /// then make that prefix legal, and the checker judges the whole script.
    fn untiled(&mut self, script: &Script, idx: usize) -> (String, Vec<TileBand>) {
        let (text, spans) = (script.text, &script.spans);
        let last = spans.len().saturating_sub(1);
        let tile = script
            .calls
            .iter()
            .find(|(c, sp)| c.name.text == "tile" && spans.get(last) == Some(sp) && last > idx);
        let (plain, bands) = match tile.and_then(|(call, _)| self.tile_band(script, last, call)) {
            Some(b) => (without_from(text, spans, last), vec![b]),
            None => (text.to_string(), vec![]),
        };
        if self.levels(&plain).is_some() {
            return (plain, bands);
        }
        (without_from(text, spans, idx + 1), vec![])
    }

    /// Skews before an illegal `tile` that make its band permutable (module comment).
    fn tile_repair(
        &mut self,
        script: &Script,
        idx: usize,
        call: &crate::script::ast::Call,
    ) -> Option<Change> {
        let (text, spans) = (script.text, &script.spans);
        let span = spans[idx].clone();
        let handle = &text[call.args.first()?.span()];
        let band = self.tile_band(script, idx, call)?;
        let (first, last, group) = (band.first, band.last, band.stmts);
        // The schedule just before the tile.
        let before = without_from(text, spans, idx);
        let lv = self.levels(&before)?;
        if 2 * last >= lv.len() {
            return None;
        }
        let sub = self.legal.restrict(&group);
        // Levels before the band: p0, j1, p1, …, j(first−1), p(first−1).
        let outer: Vec<Vec<Int>> = lv[..2 * first - 1].to_vec();
        let active = sub.remaining(&outer)?;
        let weak: Vec<Row> = {
            let space = sub.space(&active, &[]);
            space.into_rows().1
        };
        let row = |j: usize| -> &Vec<Int> { &lv[2 * j - 1] };
        let mut lines = vec![];
        let mut cost = (0usize, 0i64);
        for j in (first..=last).rev() {
            let f = min_factors(&weak, row(j), &(1..j).map(row).collect::<Vec<_>>())?;
            // Nearest loops first: `skew j by i (and t)`.
            for m in (1..j).rev() {
                let v = f[m - 1];
                if v != 0 {
                    lines.push(format!("skew({handle}, {j}, {m}, {v})"));
                    cost.0 += 1;
                    cost.1 += v.abs();
                }
            }
        }
        if lines.is_empty() {
            return None;
        }
        Some(Change {
            cost,
            what: format!(
                "insert before line {} (`{}`):",
                line_no(text, span.start),
                &text[span.clone()]
            ),
            text: insert_before(text, span.start, &lines),
            lines,
            space: true,
        })
    }
}

/// Factors `f` with `target + Σ f_m·by_m` in the space `rows` (over `[1 | coefficients]`):
/// the fewest non-zero factors, then the smallest `Σ |f_m|`, then the smallest magnitudes
/// of the outer loops' factors. `None` when no support of up to three factors works.
fn min_factors(rows: &[Row], target: &[Int], by: &[&Vec<Int>]) -> Option<Vec<i64>> {
    let n = by.len();
    if n > 16 {
        return None;
    }
    // Each row as `a + Σ b_m f_m ≥ 0`.
    let lin: Vec<(Int, Vec<Int>)> = rows
        .iter()
        .map(|r| {
            let zero = vec![Int::ZERO; target.len()];
            let (a, _) = along(r, target, &zero);
            let bs = by.iter().map(|v| along(r, &zero, v).1).collect();
            (a, bs)
        })
        .collect();
    if lin.iter().all(|(a, _)| !a.is_negative()) {
        return Some(vec![0; n]);
    }
    let mut supports: Vec<Vec<usize>> = (1u32..(1 << n))
        .map(|m| (0..n).filter(|&k| m >> k & 1 == 1).collect::<Vec<_>>())
        .filter(|s: &Vec<usize>| s.len() <= 3)
        .collect();
    supports.sort_by_key(|s| s.len());
    let mut best: Option<(usize, Int, Vec<i64>)> = None;
    for s in supports {
        if best.as_ref().is_some_and(|b| b.0 < s.len()) {
            break;
        }
        for signs in 0u32..(1 << s.len()) {
            // Columns [1 | z | g_0 .. g_k], g = σ·f ≥ 1, z = Σ g.
            let k = s.len();
            let mut b = Basic::universe(0, 1 + k);
            for (a, bs) in &lin {
                let mut r = vec![Int::ZERO; 2 + k];
                r[0] = a.clone();
                for (i, &m) in s.iter().enumerate() {
                    let sg = if signs >> i & 1 == 1 { -1 } else { 1 };
                    r[2 + i] = &bs[m] * &Int::from(sg);
                }
                b.add_ineq(r);
            }
            for i in 0..k {
                let mut r = vec![Int::ZERO; 2 + k];
                r[0] = Int::from(-1);
                r[2 + i] = Int::ONE;
                b.add_ineq(r);
            }
            let mut z = vec![Int::ZERO; 2 + k];
            z[1] = Int::from(-1);
            for i in 0..k {
                z[2 + i] = Int::ONE;
            }
            b.add_eq(z);
            let Some(pt) = b.lexmin_prefix(1 + k) else {
                continue;
            };
            let mut f = vec![0i64; n];
            for (i, &m) in s.iter().enumerate() {
                let sg = if signs >> i & 1 == 1 { -1 } else { 1 };
                f[m] = sg * pt[1 + i].to_i64()?;
            }
            // Ties: the smaller magnitudes of the outer loops' factors.
            let mags = |f: &[i64]| f.iter().map(|x| x.abs()).collect::<Vec<_>>();
            let better = best
                .as_ref()
                .is_none_or(|b| (k, &pt[0], mags(&f)) < (b.0, &b.1, mags(&b.2)));
            if better {
                best = Some((k, pt[0].clone(), f));
            }
        }
    }
    best.map(|b| b.2)
}

/// The space-drawn changes under the work budget `limit` (each script run separately);
/// nothing when the budget runs out.
pub fn space_changes_within(
    kernel: &Kernel,
    run: &mut Run,
    text: &str,
    name: &str,
    base: &Path,
    limit: u64,
) -> Vec<Change> {
    // The space is only built for a script with an operation it can repair.
    let Ok(script) = parse_script(text, name) else {
        return vec![];
    };
    const OPS: [&str; 6] = ["skew", "shift", "realign", "fuse", "distribute", "tile"];
    let repairable = script.items.iter().any(|it| {
        matches!(it, ScriptItem::Stmt(Stmt::Call { call, .. })
            if OPS.contains(&call.name.text.as_str()))
    });
    if !repairable {
        return vec![];
    }
    let legal = match budget::with_budget(limit, || Legal::new(&run.program, &run.deps)) {
        Ok(l) => l,
        Err(_) => return vec![],
    };
    space_changes(kernel, run, &legal, text, name, base, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_sets() {
        let a = Values::interval(1, 3).union(&Values::interval(5, 7));
        assert_eq!(a.0, vec![(1, 3), (5, 7)]);
        assert_eq!(
            a.union(&Values::interval(4, 4)).0,
            vec![(1, 7)],
            "adjacent intervals merge"
        );
        let b = a.intersect(&Values::interval(2, 6));
        assert_eq!(b.0, vec![(2, 3), (5, 6)]);
        assert_eq!(b.next_above(3, |_| true), Some(5));
        assert_eq!(b.next_below(5, |_| true), Some(3));
        assert_eq!(b.next_above(6, |_| true), None);
        assert_eq!(Values::all().next_above(-1, |w| w != 0), Some(1));
    }

    fn ints(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    #[test]
    fn fewest_factors_first() {
        // Coefficients (c0, c1, c2) of loops (t, i, j); the space: c0 − c2 ≥ 0 and
        // c1 − c2 ≥ 0. Row j = (0, 0, 1) needs a skew by both t and i.
        let rows = vec![ints(&[0, 1, 0, -1]), ints(&[0, 0, 1, -1])];
        let (t, i, j) = (ints(&[1, 0, 0]), ints(&[0, 1, 0]), ints(&[0, 0, 1]));
        assert_eq!(min_factors(&rows, &j, &[&t, &i]), Some(vec![1, 1]));
        // c0 + c1 − c2 ≥ 0: one skew, by either; the outer loop's factor is minimised
        // first, so by i.
        let rows = vec![ints(&[0, 1, 1, -1])];
        assert_eq!(min_factors(&rows, &j, &[&t, &i]), Some(vec![0, 1]));
        // Only c1 − c2 ≥ 0: one factor, on i.
        let rows = vec![ints(&[0, 0, 1, -1])];
        assert_eq!(min_factors(&rows, &j, &[&t, &i]), Some(vec![0, 1]));
        // c1 − 2·c2 ≥ 0 with a sign choice: i + (−1)·… never helps; the factor is 2.
        let rows = vec![ints(&[0, 0, 1, -2])];
        assert_eq!(min_factors(&rows, &j, &[&t, &i]), Some(vec![0, 2]));
        // Already in the space: no factor.
        assert_eq!(min_factors(&rows, &i, &[&t]), Some(vec![0]));
        // −c2 ≥ 1 can never hold for j plus multiples of t and i.
        let rows = vec![ints(&[-1, 0, 0, -1])];
        assert_eq!(min_factors(&rows, &j, &[&t, &i]), None);
    }

    #[test]
    fn lines_solved() {
        let r = |a: i64, b: i64| (Int::from(a), Int::from(b));
        // 3 − w ≥ 0, 2w + 1 ≥ 0: w in [0, 3].
        assert_eq!(solve_line(&[r(3, -1), r(1, 2)]).unwrap().0, vec![(0, 3)]);
        assert!(solve_line(&[r(-1, 0)]).unwrap().0.is_empty());
        assert_eq!(solve_line(&[r(-7, 2)]).unwrap().0, vec![(4, POS)]);
    }
}
