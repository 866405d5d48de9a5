//! [`picture`]: the instances of a tag's statements on a slice of two iterators, their old
//! and new order, the verifier's dependences among them and its verdict, in the order the
//! picture is built: what to draw (parameters, statements, axes), the grid of instances,
//! their times, the dependent pairs, the verdict, the arrows and the panels.

use super::{Arrow, Dot, DrawOptions, Panel, Picture, DEFAULT_PARAM, MAX_POINTS};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::driver::{Kernel, Run};
use crate::model::state::Piece;
use crate::model::Scop;
use crate::presburger::{build, print, Int, Map, Set};
use crate::verify::{Instance, Violation, ViolationKind};
use std::collections::{BTreeMap, BTreeSet};

/// The most integer points enumerated for one domain, schedule or dependence relation.
const ENUM_LIMIT: usize = 400_000;

fn err(code: codes::Code, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, msg)
}

fn i64_of(v: &Int) -> i64 {
    v.to_i64().unwrap_or(0)
}

/// Fixes every parameter of `s` to its value.
fn fix_set(s: &Set, params: &[(String, Int)]) -> Set {
    s.fix_params(params.iter().map(|(n, v)| (n.as_str(), v)))
}

fn fix_map(m: &Map, params: &[(String, Int)]) -> Map {
    m.fix_params(params.iter().map(|(n, v)| (n.as_str(), v)))
}

/// Pairs (input, output) of a relation.
type Pairs = Vec<(Vec<Int>, Vec<Int>)>;

/// Every point of a map at fixed parameters, split into (input, output).
fn map_points(m: &Map, params: &[(String, Int)]) -> Result<Pairs, Diagnostic> {
    let n = m.n_in();
    let pts = fix_map(m, params).wrap().points(ENUM_LIMIT).map_err(|e| {
        err(
            codes::DRAW_REFUSED,
            format!("cannot enumerate a schedule or dependence: {e}"),
        )
    })?;
    Ok(pts
        .into_iter()
        .map(|mut p| {
            let out = p.split_off(n);
            (p, out)
        })
        .collect())
}

/// `m` with some of its input (`k < n_in`) and output (`n_in + k`) dimensions fixed.
fn fix_dims(m: &Map, fixes: &[(usize, i64)]) -> Map {
    let parts = m
        .parts()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            for (d, v) in fixes {
                b.fix_col(b.col_dim(*d), &Int::from(*v));
            }
            b
        })
        .collect();
    Map::from_parts(m.space().clone(), parts)
}

/// Output dims of a piece's schedule that are tile coordinates: a floor of the iterators
/// (`floor(i/32)`), not the point inside a tile (`i - 32*floor(i/32)`).
fn tile_dims(p: &Piece) -> Vec<usize> {
    let sched = p.schedule();
    let n = sched.n_out();
    let outs: Vec<String> = (0..n).map(|k| format!("o{k}")).collect();
    (0..n)
        .filter(|&d| {
            let proj = Map::from_affine(outs.clone(), &[build::input(n, d)]);
            // The form `loopy show` prints: an output fixed by an equality in the tuple,
            // floors inline.
            print::shows_floor(&sched.apply_range(&proj).simplify(), 0)
        })
        .collect()
}

/// A statement's name in the picture: its label, else its name.
fn label(scop: &Scop, k: usize) -> String {
    let s = &scop.statements[k];
    s.label.clone().unwrap_or_else(|| s.name.clone())
}

/// The picture of `opts.tag`'s statements before and (when `run` ran a script) after.
pub fn picture(
    kernel: &Kernel,
    run: &Run,
    with_script: bool,
    opts: &DrawOptions,
) -> Result<Picture, Diagnostic> {
    let scop = &kernel.scop;
    let params = parameter_values(scop, opts)?;
    let stmts = drawn_statements(scop, opts)?;
    let axes = choose_axes(scop, &stmts, opts)?;
    let grid = Grid::collect(scop, &stmts, &axes, &params, opts)?;
    let times = grid.times(run, with_script)?;
    let pairs = grid.dependent_pairs(run, &times, with_script)?;
    let verdict = if with_script {
        Verdict::of(&grid, run)
    } else {
        Verdict::default()
    };
    let same_spot = |p: &Pair| grid.same_spot(p.from, p.to);
    let before_arrows = arrows(&nearest(&pairs, &times.old, false), false, None, same_spot);
    let after_arrows = arrows(
        &nearest(&pairs, &times.old, true),
        true,
        verdict.witness,
        same_spot,
    );
    let self_broken: BTreeSet<(usize, usize)> = pairs
        .iter()
        .filter(|p| p.broken && same_spot(p))
        .map(|p| (p.from, p.to))
        .collect();
    let mut notes = verdict.lines;
    if let Some(hint) = verdict.hint {
        if after_arrows.iter().any(|a| a.witness && a.broken) {
            notes.push("  (the thick red arrow)".to_string());
        } else {
            notes.push(hint);
        }
    }
    notes.extend(grid.notes.iter().cloned());
    if !self_broken.is_empty() {
        notes.push(format!(
            "{} broken dependence(s) join instances drawn at the same grid point (not drawn)",
            self_broken.len()
        ));
    }
    let broken = after_arrows.iter().filter(|a| a.broken).count() + self_broken.len();
    let fixed_text = describe_fixed(&params, &grid.fixed);
    let mut panels = vec![grid.panel("original".to_string(), &times.old, before_arrows, vec![])];
    if with_script {
        let title = format!(
            "after {}",
            opts.script.clone().unwrap_or_else(|| "the script".into())
        );
        let tiles = times.tiles();
        panels.push(grid.panel(title, &times.new, after_arrows, tiles));
    }
    let what = match &opts.tag {
        Some(t) => format!("`{t}`"),
        None => "all statements".to_string(),
    };
    Ok(Picture {
        title: format!("{} — {what} at {fixed_text}", scop.file),
        axes: axes.clone(),
        stmts: grid.stmt_index.iter().map(|&k| label(scop, k)).collect(),
        fixed: fixed_text,
        panels,
        notes,
        broken,
    })
}

/// Every parameter's value: given with `--param` (the last one given), else
/// [`DEFAULT_PARAM`]; a name that is no parameter of the kernel is refused.
fn parameter_values(scop: &Scop, opts: &DrawOptions) -> Result<Vec<(String, Int)>, Diagnostic> {
    for (n, _) in &opts.params {
        if !scop.params.contains(n) {
            let known = if scop.params.is_empty() {
                "the kernel has none".to_string()
            } else {
                format!("the kernel's are {}", scop.params.join(", "))
            };
            return Err(err(
                codes::INVALID_OPTION,
                format!("`{n}` is not a parameter of the kernel ({known})"),
            ));
        }
    }
    Ok(scop
        .params
        .iter()
        .map(|n| {
            let v = opts
                .params
                .iter()
                .rev()
                .find(|(m, _)| m == n)
                .map_or(DEFAULT_PARAM, |(_, v)| *v);
            (n.clone(), Int::from(v))
        })
        .collect())
}

/// The statements of `opts.tag` (all of them without a tag).
fn drawn_statements(scop: &Scop, opts: &DrawOptions) -> Result<Vec<usize>, Diagnostic> {
    let Some(t) = &opts.tag else {
        return Ok((0..scop.statements.len()).collect());
    };
    if let Some(tag) = scop.tags.iter().find(|x| &x.name == t) {
        return Ok(tag.statements.clone());
    }
    let names: Vec<String> = scop.tags.iter().map(|x| format!("`{}`", x.name)).collect();
    Err(
        err(codes::UNKNOWN_TAG, format!("the kernel has no tag `{t}`")).with_note(
            if names.is_empty() {
                "it has no tags: label a statement or a loop (`Mult: ...`)".to_string()
            } else {
                format!("its tags: {}", names.join(", "))
            },
        ),
    )
}

/// The axes: `--axes`, else the two innermost iterators of the deepest statement; checked
/// to be iterators of the statements drawn, as the `--at` names are to be off the axes.
fn choose_axes(
    scop: &Scop,
    stmts: &[usize],
    opts: &DrawOptions,
) -> Result<Vec<String>, Diagnostic> {
    let deepest = *stmts
        .iter()
        .max_by_key(|&&k| (scop.statements[k].iterators.len(), usize::MAX - k))
        .ok_or_else(|| err(codes::DRAW_REFUSED, "nothing to draw: no statement"))?;
    let its = &scop.statements[deepest].iterators;
    let axes: Vec<String> = match &opts.axes {
        Some(a) => a.clone(),
        None if its.len() >= 2 => its[its.len() - 2..].to_vec(),
        None if its.len() == 1 => its.clone(),
        None => {
            return Err(err(
                codes::DRAW_REFUSED,
                format!(
                    "{} is in no loop: there is no iteration space to draw",
                    label(scop, deepest)
                ),
            ))
        }
    };
    if axes.is_empty() || axes.len() > 2 || (axes.len() == 2 && axes[0] == axes[1]) {
        return Err(err(
            codes::INVALID_OPTION,
            "`--axes` takes one or two different iterators, e.g. `--axes i,j`",
        ));
    }
    let all_its: BTreeSet<&String> = stmts
        .iter()
        .flat_map(|&k| scop.statements[k].iterators.iter())
        .collect();
    if let Some(a) = axes.iter().find(|a| !all_its.contains(a)) {
        return Err(err(
            codes::INVALID_OPTION,
            format!(
                "`{a}` is not an iterator of the statements drawn (they have {})",
                all_its
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    if let Some((n, _)) = opts
        .at
        .iter()
        .find(|(n, _)| !all_its.contains(n) || axes.contains(n))
    {
        return Err(err(
            codes::INVALID_OPTION,
            format!(
                "`--at {n}=...`: `{n}` is not an iterator off the axes of the statements drawn"
            ),
        ));
    }
    Ok(axes)
}

/// The instances drawn: those of the statements with both axis iterators, on the slice
/// where every other iterator has its fixed value.
struct Grid<'a> {
    scop: &'a Scop,
    params: &'a [(String, Int)],
    axes: &'a [String],
    /// Values of the iterators off the axes: given with `--at`, else the smallest taken.
    fixed: BTreeMap<String, i64>,
    dots: Vec<Dot>,
    /// The statement of each [`Dot::stmt`].
    stmt_index: Vec<usize>,
    /// The dot of each (statement, iterators).
    index: BTreeMap<(usize, Vec<Int>), usize>,
    /// Statements not drawn, and why.
    notes: Vec<String>,
}

impl<'a> Grid<'a> {
    fn collect(
        scop: &'a Scop,
        stmts: &[usize],
        axes: &'a [String],
        params: &'a [(String, Int)],
        opts: &DrawOptions,
    ) -> Result<Grid<'a>, Diagnostic> {
        let mut domains: Vec<(usize, Vec<Vec<Int>>)> = vec![];
        for &k in stmts {
            let d = fix_set(&scop.statements[k].domain, params);
            let pts = d.points(ENUM_LIMIT).map_err(|e| {
                err(
                    codes::DRAW_REFUSED,
                    format!("cannot enumerate the instances of {}: {e}", label(scop, k)),
                )
                .with_help("give every parameter a small value with `--param NAME=VALUE`")
            })?;
            domains.push((k, pts));
        }
        let mut grid = Grid {
            scop,
            params,
            axes,
            fixed: fixed_values(scop, axes, &domains, opts),
            dots: vec![],
            stmt_index: vec![],
            index: BTreeMap::new(),
            notes: vec![],
        };
        for (k, pts) in &domains {
            grid.add_statement(*k, pts);
        }
        grid.check_size()?;
        Ok(grid)
    }

    /// The dots of statement `k`'s instances `pts` that lie on the slice.
    fn add_statement(&mut self, k: usize, pts: &[Vec<Int>]) {
        let names = &self.scop.statements[k].iterators;
        let pos: Vec<Option<usize>> = self
            .axes
            .iter()
            .map(|a| names.iter().position(|n| n == a))
            .collect();
        if pos.iter().any(Option::is_none) {
            self.notes.push(format!(
                "{} is not drawn: it has no iterator `{}`",
                label(self.scop, k),
                self.axes.join("`/`")
            ));
            return;
        }
        let si = self.stmt_index.len();
        self.stmt_index.push(k);
        for p in pts {
            let on_slice = names.iter().enumerate().all(|(c, n)| {
                pos.contains(&Some(c)) || self.fixed.get(n).is_none_or(|v| i64_of(&p[c]) == *v)
            });
            if !on_slice {
                continue;
            }
            let x = i64_of(&p[pos[0].expect("checked")]);
            let y = pos.get(1).map_or(0, |c| i64_of(&p[c.expect("checked")]));
            self.index.insert((k, p.clone()), self.dots.len());
            self.dots.push(Dot {
                stmt: si,
                iters: p.clone(),
                x,
                y,
                rank: 0,
            });
        }
    }

    /// Refuses an empty slice and one with more than [`MAX_POINTS`] instances.
    fn check_size(&self) -> Result<(), Diagnostic> {
        let at = || describe_fixed(self.params, &self.fixed);
        if self.dots.is_empty() {
            return Err(err(
                codes::DRAW_REFUSED,
                format!("no instance to draw at {}", at()),
            )
            .with_help("choose other values with `--param` and `--at`"));
        }
        if self.dots.len() > MAX_POINTS {
            return Err(err(
                codes::DRAW_REFUSED,
                format!(
                    "{} instances at {}: too many to draw (at most {MAX_POINTS})",
                    self.dots.len(),
                    at()
                ),
            )
            .with_help("give the parameters smaller values with `--param NAME=VALUE`"));
        }
        Ok(())
    }

    /// The dimensions of statement `k`'s iterators off the axes (shifted by `offset`),
    /// with their fixed values: only the slice is enumerated.
    fn slice_fixes(&self, k: usize, offset: usize) -> Vec<(usize, i64)> {
        self.scop.statements[k]
            .iterators
            .iter()
            .enumerate()
            .filter(|(_, n)| !self.axes.contains(n))
            .filter_map(|(c, n)| self.fixed.get(n).map(|v| (offset + c, *v)))
            .collect()
    }

    /// Whether two dots are drawn at the same grid point.
    fn same_spot(&self, a: usize, b: usize) -> bool {
        (self.dots[a].x, self.dots[a].y) == (self.dots[b].x, self.dots[b].y)
    }

    /// Old and new times of every drawn instance.
    fn times(&self, run: &Run, with_script: bool) -> Result<Times, Diagnostic> {
        let mut old: Vec<Vec<Int>> = vec![vec![]; self.dots.len()];
        for &k in &self.stmt_index {
            let info = &run.program.stmts[k];
            let m = fix_dims(
                &info.schedule.intersect_domain(&info.domain),
                &self.slice_fixes(k, 0),
            );
            for (it, t) in map_points(&m, self.params)? {
                if let Some(&d) = self.index.get(&(k, it)) {
                    old[d] = t;
                }
            }
        }
        let mut new: Vec<Vec<Int>> = vec![vec![]; self.dots.len()];
        let mut tile_key_len: Option<usize> = None;
        for p in &run.interp.state.pieces {
            if !self.stmt_index.contains(&p.stmt) {
                continue;
            }
            let m = fix_dims(&p.schedule(), &self.slice_fixes(p.stmt, 0));
            for (it, t) in map_points(&m, self.params)? {
                if let Some(&d) = self.index.get(&(p.stmt, it)) {
                    new[d] = t;
                }
            }
            if with_script {
                if let Some(&last) = tile_dims(p).last() {
                    tile_key_len = Some(tile_key_len.unwrap_or(0).max(last + 1));
                }
            }
        }
        Ok(Times {
            old,
            new,
            tile_key_len,
        })
    }

    /// Every pair of drawn instances that a dependence relates, and whether the new order
    /// breaks it.
    fn dependent_pairs(
        &self,
        run: &Run,
        times: &Times,
        with_script: bool,
    ) -> Result<Vec<Pair>, Diagnostic> {
        let mut pairs: Vec<Pair> = vec![];
        for (di, dep) in run.deps.iter().enumerate() {
            if !self.stmt_index.contains(&dep.source) || !self.stmt_index.contains(&dep.sink) {
                continue;
            }
            let mut fixes = self.slice_fixes(dep.source, 0);
            let n_source = self.scop.statements[dep.source].iterators.len();
            fixes.extend(self.slice_fixes(dep.sink, n_source));
            for (a, b) in map_points(&fix_dims(&dep.relation(), &fixes), self.params)? {
                let (Some(&s), Some(&t)) = (
                    self.index.get(&(dep.source, a)),
                    self.index.get(&(dep.sink, b)),
                ) else {
                    continue;
                };
                pairs.push(Pair {
                    dep: di,
                    from: s,
                    to: t,
                    kind: dep.kind.name(),
                    broken: with_script && times.new[t] <= times.new[s],
                });
            }
        }
        Ok(pairs)
    }

    /// A panel of the dots ranked by `times`.
    fn panel(
        &self,
        title: String,
        times: &[Vec<Int>],
        arrows: Vec<Arrow>,
        tiles: Vec<Vec<usize>>,
    ) -> Panel {
        let mut order: Vec<usize> = (0..self.dots.len()).collect();
        order.sort_by(|&a, &b| times[a].cmp(&times[b]).then(a.cmp(&b)));
        let mut dots = self.dots.clone();
        for (k, &d) in order.iter().enumerate() {
            dots[d].rank = k;
        }
        Panel {
            title,
            dots,
            arrows,
            tiles,
        }
    }
}

/// Values of the iterators off the axes: given, else the smallest they take.
fn fixed_values(
    scop: &Scop,
    axes: &[String],
    domains: &[(usize, Vec<Vec<Int>>)],
    opts: &DrawOptions,
) -> BTreeMap<String, i64> {
    let mut fixed: BTreeMap<String, i64> = opts.at.iter().cloned().collect();
    for (k, pts) in domains {
        for (c, name) in scop.statements[*k].iterators.iter().enumerate() {
            if axes.contains(name) || opts.at.iter().any(|(n, _)| n == name) {
                continue;
            }
            if let Some(m) = pts.iter().map(|p| i64_of(&p[c])).min() {
                let e = fixed.entry(name.clone()).or_insert(m);
                *e = (*e).min(m);
            }
        }
    }
    fixed
}

/// Old and new times of the dots, and how many leading dimensions of the new schedule
/// are tile coordinates.
struct Times {
    old: Vec<Vec<Int>>,
    new: Vec<Vec<Int>>,
    tile_key_len: Option<usize>,
}

impl Times {
    /// Dots that share a tile of the new schedule.
    fn tiles(&self) -> Vec<Vec<usize>> {
        let mut tiles: BTreeMap<Vec<Int>, Vec<usize>> = BTreeMap::new();
        if let Some(len) = self.tile_key_len {
            for (i, t) in self.new.iter().enumerate() {
                tiles
                    .entry(t[..len.min(t.len())].to_vec())
                    .or_default()
                    .push(i);
            }
        }
        tiles.into_values().collect()
    }
}

/// Two drawn instances a dependence relates.
struct Pair {
    dep: usize,
    from: usize,
    to: usize,
    kind: &'static str,
    broken: bool,
}

/// The pairs drawn: every pair is checked against the new order; of the kept ones only the
/// nearest source of each sink is drawn per dependence (the others follow by transitivity
/// and would hide the picture); broken ones are all drawn when `keep_broken`.
fn nearest<'p>(pairs: &'p [Pair], old_time: &[Vec<Int>], keep_broken: bool) -> Vec<&'p Pair> {
    let mut best: BTreeMap<(usize, usize), &Pair> = BTreeMap::new();
    let mut out = vec![];
    for p in pairs {
        if keep_broken && p.broken {
            out.push(p);
            continue;
        }
        let e = best.entry((p.dep, p.to)).or_insert(p);
        if old_time[p.from] > old_time[e.from] {
            *e = p;
        }
    }
    out.extend(best.into_values());
    out
}

/// One arrow per pair of dots (kinds joined), leaving out pairs at the same grid point;
/// `after` marks the broken ones and the verifier's witness.
fn arrows(
    chosen: &[&Pair],
    after: bool,
    witness: Option<(usize, usize)>,
    same_spot: impl Fn(&Pair) -> bool,
) -> Vec<Arrow> {
    let mut by: BTreeMap<(usize, usize), Arrow> = BTreeMap::new();
    for p in chosen {
        if same_spot(p) {
            continue;
        }
        let e = by.entry((p.from, p.to)).or_insert(Arrow {
            from: p.from,
            to: p.to,
            kinds: String::new(),
            broken: false,
            witness: after && p.broken && witness == Some((p.from, p.to)),
        });
        if !e.kinds.split(", ").any(|k| k == p.kind) {
            if !e.kinds.is_empty() {
                e.kinds.push_str(", ");
            }
            e.kinds.push_str(p.kind);
        }
        e.broken |= after && p.broken;
    }
    by.into_values().collect()
}

/// The verifier's verdict on the script, as the first lines of the notes, and its
/// witness: the pair of dots when both are drawn, else how to draw it.
#[derive(Default)]
struct Verdict {
    lines: Vec<String>,
    witness: Option<(usize, usize)>,
    hint: Option<String>,
}

impl Verdict {
    fn of(grid: &Grid, run: &Run) -> Verdict {
        let violations = run.check();
        let Some(v) = violations.first() else {
            return Verdict {
                lines: vec![
                    "loopy check: legal — every dependence is kept and the schedule is one-to-one"
                        .to_string(),
                ],
                ..Verdict::default()
            };
        };
        let d = crate::verify::report(&run.program, &run.deps, v, &run.interp.steps);
        let at: Vec<String> = v.params.iter().map(|(n, x)| format!("{n} = {x}")).collect();
        let inst = |i: &Instance| {
            let iters: Vec<String> = i.iters.iter().map(Int::to_string).collect();
            format!("{}[{}]", label(grid.scop, i.stmt), iters.join(", "))
        };
        let with = if at.is_empty() {
            String::new()
        } else {
            format!(" (with {})", at.join(", "))
        };
        let lines = vec![
            format!(
                "loopy check: illegal, {} violation(s); the first:",
                violations.len()
            ),
            format!("  {}", d.message),
            format!(
                "  witness{with}: {} then {}",
                inst(&v.first),
                inst(&v.second)
            ),
        ];
        let mut verdict = Verdict {
            lines,
            ..Verdict::default()
        };
        if matches!(v.kind, ViolationKind::Dependence(_)) {
            verdict.locate_witness(grid, v);
        }
        verdict
    }

    /// The witness pair, when both instances are drawn (at these parameter values the pair
    /// may or may not be a broken dependence; it is marked only if it is one), and how to
    /// draw it, should it not be among the drawn arrows.
    fn locate_witness(&mut self, grid: &Grid, v: &Violation) {
        if let (Some(&a), Some(&b)) = (
            grid.index.get(&(v.first.stmt, v.first.iters.clone())),
            grid.index.get(&(v.second.stmt, v.second.iters.clone())),
        ) {
            self.witness = Some((a, b));
        }
        let mut how: Vec<String> = v
            .params
            .iter()
            .map(|(n, x)| format!("--param {n}={x}"))
            .collect();
        let names = &grid.scop.statements[v.first.stmt].iterators;
        for (n, x) in names.iter().zip(&v.first.iters) {
            if !grid.axes.contains(n) {
                how.push(format!("--at {n}={x}"));
            }
        }
        self.hint = Some(format!(
            "  (not among the drawn dependences; to see it: {})",
            how.join(" ")
        ));
    }
}

fn describe_fixed(params: &[(String, Int)], fixed: &BTreeMap<String, i64>) -> String {
    let mut parts: Vec<String> = params.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    parts.extend(fixed.iter().map(|(n, v)| format!("{n} = {v}")));
    parts.join(", ")
}
