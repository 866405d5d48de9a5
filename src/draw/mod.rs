//! Pictures of what a script does: the instances of a tag's statements at small parameter
//! values, on a grid of two iterators, with their dependences, the order they run in, the
//! tiles the script made and the dependences it breaks.
//!
//! Everything drawn is computed exactly at the chosen parameter values: instances are the
//! integer points of the statements' domains, dependences the pairs of the verifier's exact
//! dependence relations, orders the old and the new schedules evaluated at those points.
//! [`picture`] collects that; [`svg`] draws it.

mod svg;

pub use svg::svg;

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::driver::{Kernel, Run};
use crate::model::state::Piece;
use crate::presburger::{build, print, Int, Map, Set};
use crate::verify::ViolationKind;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Parameter value used when none is given: small enough to see every point.
pub const DEFAULT_PARAM: i64 = 8;
/// The most instances a panel shows.
pub const MAX_POINTS: usize = 1500;
/// The most integer points enumerated for one domain, schedule or dependence relation.
const ENUM_LIMIT: usize = 400_000;

/// What to draw.
#[derive(Clone, Debug, Default)]
pub struct DrawOptions {
    /// The tag whose statements are drawn (all statements of the region when `None`).
    pub tag: Option<String>,
    /// Parameter values (others get [`DEFAULT_PARAM`]).
    pub params: Vec<(String, i64)>,
    /// The iterators on the horizontal and vertical axes (one for a 1-d nest).
    pub axes: Option<Vec<String>>,
    /// Values of the other iterators (others are fixed at their smallest value).
    pub at: Vec<(String, i64)>,
    /// The script's name, for the title of the second panel.
    pub script: Option<String>,
}

impl DrawOptions {
    /// The words after the REPL's `:draw`: `FILE [--tag T] [--param n=8] [--axes i,j]
    /// [--at t=1]`, as the file to write and what to draw (the second panel titled "the
    /// steps so far"). `None` when they do not follow that form.
    pub fn from_repl_words(arg: &str) -> Option<(PathBuf, DrawOptions)> {
        let words: Vec<&str> = arg.split_whitespace().collect();
        let mut file = None;
        let mut opts = DrawOptions {
            script: Some("the steps so far".to_string()),
            ..Default::default()
        };
        let assign = |w: Option<&&str>| -> Option<(String, i64)> {
            let (n, v) = w?.split_once('=')?;
            Some((n.to_string(), v.parse().ok()?))
        };
        let mut k = 0;
        while k < words.len() {
            let w = words[k];
            let next = words.get(k + 1);
            match w {
                "--tag" => opts.tag = next.map(|t| t.to_string()),
                "--axes" => opts.axes = next.map(|a| a.split(',').map(str::to_string).collect()),
                "--param" => opts.params.push(assign(next)?),
                "--at" => opts.at.push(assign(next)?),
                _ if !w.starts_with("--") && file.is_none() => {
                    file = Some(PathBuf::from(w));
                    k += 1;
                    continue;
                }
                _ => return None,
            }
            next?;
            k += 2;
        }
        Some((file?, opts))
    }
}

/// One statement instance in a panel.
#[derive(Clone, Debug)]
pub struct Dot {
    /// Index into [`Picture::stmts`].
    pub stmt: usize,
    pub iters: Vec<Int>,
    /// Grid coordinates (the axis iterators' values).
    pub x: i64,
    pub y: i64,
    /// Position in the panel's execution order (0 = first).
    pub rank: usize,
}

/// A dependence between two drawn instances.
#[derive(Clone, Debug)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    /// `flow`, `anti`, `output` (joined when several).
    pub kinds: String,
    /// The new schedule runs the sink before (or with) the source.
    pub broken: bool,
    /// The pair `loopy check` reports as its witness.
    pub witness: bool,
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub dots: Vec<Dot>,
    pub arrows: Vec<Arrow>,
    /// Dots (indices) that share a tile of the new schedule.
    pub tiles: Vec<Vec<usize>>,
}

#[derive(Clone, Debug)]
pub struct Picture {
    pub title: String,
    /// Axis iterator names (horizontal, then vertical if any).
    pub axes: Vec<String>,
    /// Statement labels, in the order of [`Dot::stmt`].
    pub stmts: Vec<String>,
    /// "n = 8, t = 0" and the like: what is fixed.
    pub fixed: String,
    pub panels: Vec<Panel>,
    /// Lines under the panels (the verifier's verdict and witness, what is not drawn).
    pub notes: Vec<String>,
    /// Dependences the script breaks among the drawn instances.
    pub broken: usize,
}

fn err(code: codes::Code, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, msg)
}

fn i64_of(v: &Int) -> i64 {
    v.to_i64().unwrap_or(0)
}

/// Fixes every parameter of `s` to its value.
fn fix_set(s: &Set, params: &[(String, Int)]) -> Set {
    params
        .iter()
        .fold(s.clone(), |s, (n, v)| s.fix_param(n, v).unwrap_or(s))
}

fn fix_map(m: &Map, params: &[(String, Int)]) -> Map {
    params
        .iter()
        .fold(m.clone(), |m, (n, v)| m.fix_param(n, v).unwrap_or(m))
}

/// Every point of a map at fixed parameters, split into (input, output).
/// Pairs (input, output) of a relation.
type Pairs = Vec<(Vec<Int>, Vec<Int>)>;

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

/// The picture of `opts.tag`'s statements before and (when `run` ran a script) after.
pub fn picture(
    kernel: &Kernel,
    run: &Run,
    with_script: bool,
    opts: &DrawOptions,
) -> Result<Picture, Diagnostic> {
    let scop = &kernel.scop;
    // Parameters.
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
    let params: Vec<(String, Int)> = scop
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
        .collect();
    // Statements.
    let stmts: Vec<usize> = match &opts.tag {
        None => (0..scop.statements.len()).collect(),
        Some(t) => match scop.tags.iter().find(|x| &x.name == t) {
            Some(tag) => tag.statements.clone(),
            None => {
                let names: Vec<String> =
                    scop.tags.iter().map(|x| format!("`{}`", x.name)).collect();
                return Err(
                    err(codes::UNKNOWN_TAG, format!("the kernel has no tag `{t}`")).with_note(
                        if names.is_empty() {
                            "it has no tags: label a statement or a loop (`Mult: ...`)".to_string()
                        } else {
                            format!("its tags: {}", names.join(", "))
                        },
                    ),
                );
            }
        },
    };
    let label = |k: usize| {
        let s = &scop.statements[k];
        s.label.clone().unwrap_or_else(|| s.name.clone())
    };
    // Axes.
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
                    label(deepest)
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
    for a in &axes {
        if !all_its.contains(a) {
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
    }
    for (n, _) in &opts.at {
        if !all_its.contains(n) || axes.contains(n) {
            return Err(err(
                codes::INVALID_OPTION,
                format!(
                    "`--at {n}=...`: `{n}` is not an iterator off the axes of the statements drawn"
                ),
            ));
        }
    }
    // Instances.
    let mut domains: Vec<(usize, Vec<Vec<Int>>)> = vec![];
    for &k in &stmts {
        let d = fix_set(&scop.statements[k].domain, &params);
        let pts = d.points(ENUM_LIMIT).map_err(|e| {
            err(
                codes::DRAW_REFUSED,
                format!("cannot enumerate the instances of {}: {e}", label(k)),
            )
            .with_help("give every parameter a small value with `--param NAME=VALUE`")
        })?;
        domains.push((k, pts));
    }
    // Fixed values of the other iterators: given, else the smallest they take.
    let mut fixed: BTreeMap<String, i64> = opts.at.iter().cloned().collect();
    for (k, pts) in &domains {
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
    let mut notes = vec![];
    let mut dots: Vec<Dot> = vec![];
    let mut stmt_index: Vec<usize> = vec![];
    let mut index: BTreeMap<(usize, Vec<Int>), usize> = BTreeMap::new();
    for (k, pts) in &domains {
        let names = &scop.statements[*k].iterators;
        let pos: Vec<Option<usize>> = axes
            .iter()
            .map(|a| names.iter().position(|n| n == a))
            .collect();
        if pos.iter().any(Option::is_none) {
            notes.push(format!(
                "{} is not drawn: it has no iterator `{}`",
                label(*k),
                axes.join("`/`")
            ));
            continue;
        }
        let si = stmt_index.len();
        stmt_index.push(*k);
        for p in pts {
            let on_slice = names.iter().enumerate().all(|(c, n)| {
                pos.contains(&Some(c)) || fixed.get(n).is_none_or(|v| i64_of(&p[c]) == *v)
            });
            if !on_slice {
                continue;
            }
            let x = i64_of(&p[pos[0].expect("checked")]);
            let y = pos.get(1).map_or(0, |c| i64_of(&p[c.expect("checked")]));
            index.insert((*k, p.clone()), dots.len());
            dots.push(Dot {
                stmt: si,
                iters: p.clone(),
                x,
                y,
                rank: 0,
            });
        }
    }
    if dots.is_empty() {
        return Err(err(
            codes::DRAW_REFUSED,
            format!("no instance to draw at {}", describe_fixed(&params, &fixed)),
        )
        .with_help("choose other values with `--param` and `--at`"));
    }
    if dots.len() > MAX_POINTS {
        return Err(err(
            codes::DRAW_REFUSED,
            format!(
                "{} instances at {}: too many to draw (at most {MAX_POINTS})",
                dots.len(),
                describe_fixed(&params, &fixed)
            ),
        )
        .with_help("give the parameters smaller values with `--param NAME=VALUE`"));
    }
    // Old and new times of every drawn instance.
    // Only the slice is enumerated: the statement's iterators off the axes are fixed.
    let slice_fixes = |k: usize, offset: usize| -> Vec<(usize, i64)> {
        scop.statements[k]
            .iterators
            .iter()
            .enumerate()
            .filter(|(_, n)| !axes.contains(n))
            .filter_map(|(c, n)| fixed.get(n).map(|v| (offset + c, *v)))
            .collect()
    };
    let mut old_time: Vec<Vec<Int>> = vec![vec![]; dots.len()];
    for &k in &stmt_index {
        let info = &run.program.stmts[k];
        let m = fix_dims(
            &info.schedule.intersect_domain(&info.domain),
            &slice_fixes(k, 0),
        );
        for (it, t) in map_points(&m, &params)? {
            if let Some(&d) = index.get(&(k, it)) {
                old_time[d] = t;
            }
        }
    }
    let mut new_time: Vec<Vec<Int>> = vec![vec![]; dots.len()];
    let mut tile_key_len: Option<usize> = None;
    for p in &run.interp.state.pieces {
        if !stmt_index.contains(&p.stmt) {
            continue;
        }
        for (it, t) in map_points(&fix_dims(&p.schedule(), &slice_fixes(p.stmt, 0)), &params)? {
            if let Some(&d) = index.get(&(p.stmt, it)) {
                new_time[d] = t;
            }
        }
        if with_script {
            if let Some(&last) = tile_dims(p).last() {
                tile_key_len = Some(tile_key_len.unwrap_or(0).max(last + 1));
            }
        }
    }
    // Dependences among the drawn instances. Every pair is checked against the new order;
    // of the kept ones only the nearest source of each sink is drawn per dependence (the
    // others follow by transitivity and would hide the picture); broken ones are all drawn.
    struct Pair {
        dep: usize,
        from: usize,
        to: usize,
        kind: &'static str,
        broken: bool,
    }
    let mut pairs: Vec<Pair> = vec![];
    for (di, dep) in run.deps.iter().enumerate() {
        if !stmt_index.contains(&dep.source) || !stmt_index.contains(&dep.sink) {
            continue;
        }
        let mut fixes = slice_fixes(dep.source, 0);
        fixes.extend(slice_fixes(
            dep.sink,
            scop.statements[dep.source].iterators.len(),
        ));
        for (a, b) in map_points(&fix_dims(&dep.relation(), &fixes), &params)? {
            let (Some(&s), Some(&t)) = (index.get(&(dep.source, a)), index.get(&(dep.sink, b)))
            else {
                continue;
            };
            pairs.push(Pair {
                dep: di,
                from: s,
                to: t,
                kind: dep.kind.name(),
                broken: with_script && new_time[t] <= new_time[s],
            });
        }
    }
    let nearest = |keep_broken: bool| -> Vec<&Pair> {
        let mut best: BTreeMap<(usize, usize), &Pair> = BTreeMap::new();
        let mut out = vec![];
        for p in &pairs {
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
    };
    // The verifier's verdict and witness.
    let mut witness: Option<(usize, usize)> = None;
    let mut witness_hint: Option<String> = None;
    if with_script {
        let violations = run.check();
        if violations.is_empty() {
            notes.insert(
                0,
                "loopy check: legal — every dependence is kept and the schedule is one-to-one"
                    .to_string(),
            );
        } else {
            notes.insert(
                0,
                format!(
                    "loopy check: illegal, {} violation(s); the first:",
                    violations.len()
                ),
            );
            let v = &violations[0];
            let d = crate::verify::report(&run.program, &run.deps, v, &run.interp.steps);
            notes.insert(1, format!("  {}", d.message));
            let at: Vec<String> = v.params.iter().map(|(n, x)| format!("{n} = {x}")).collect();
            let inst = |i: &crate::verify::Instance| {
                format!(
                    "{}[{}]",
                    label(i.stmt),
                    i.iters
                        .iter()
                        .map(Int::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            notes.insert(
                2,
                format!(
                    "  witness{}: {} then {}",
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!(" (with {})", at.join(", "))
                    },
                    inst(&v.first),
                    inst(&v.second)
                ),
            );
            // The witness pair, when both instances are drawn (at these parameter values the
            // pair may or may not be a broken dependence; it is marked only if it is one).
            if matches!(v.kind, ViolationKind::Dependence(_)) {
                if let (Some(&a), Some(&b)) = (
                    index.get(&(v.first.stmt, v.first.iters.clone())),
                    index.get(&(v.second.stmt, v.second.iters.clone())),
                ) {
                    witness = Some((a, b));
                }
                // How to draw it, should it not be among the drawn arrows.
                let mut how: Vec<String> = v
                    .params
                    .iter()
                    .map(|(n, x)| format!("--param {n}={x}"))
                    .collect();
                let names = &scop.statements[v.first.stmt].iterators;
                for (n, x) in names.iter().zip(&v.first.iters) {
                    if !axes.contains(n) {
                        how.push(format!("--at {n}={x}"));
                    }
                }
                witness_hint = Some(format!(
                    "  (not among the drawn dependences; to see it: {})",
                    how.join(" ")
                ));
            }
        }
    }
    let same_spot = |p: &Pair| (dots[p.from].x, dots[p.from].y) == (dots[p.to].x, dots[p.to].y);
    let arrows_of = |chosen: Vec<&Pair>, after: bool| -> Vec<Arrow> {
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
    };
    let before_arrows = arrows_of(nearest(false), false);
    let after_arrows = arrows_of(nearest(true), true);
    if let Some(hint) = witness_hint {
        if after_arrows.iter().any(|a| a.witness && a.broken) {
            notes.insert(3, "  (the thick red arrow)".to_string());
        } else {
            notes.insert(3, hint);
        }
    }
    let self_broken: BTreeSet<(usize, usize)> = pairs
        .iter()
        .filter(|p| p.broken && same_spot(p))
        .map(|p| (p.from, p.to))
        .collect();
    let broken_total = after_arrows.iter().filter(|a| a.broken).count() + self_broken.len();
    if !self_broken.is_empty() {
        notes.push(format!(
            "{} broken dependence(s) join instances drawn at the same grid point (not drawn)",
            self_broken.len()
        ));
    }
    let rank = |times: &[Vec<Int>]| -> Vec<usize> {
        let mut order: Vec<usize> = (0..dots.len()).collect();
        order.sort_by(|&a, &b| times[a].cmp(&times[b]).then(a.cmp(&b)));
        let mut r = vec![0; dots.len()];
        for (k, &d) in order.iter().enumerate() {
            r[d] = k;
        }
        r
    };
    let fixed_text = describe_fixed(&params, &fixed);
    let mut panels = vec![];
    let old_rank = rank(&old_time);
    let mut before = dots.clone();
    for (d, r) in before.iter_mut().zip(&old_rank) {
        d.rank = *r;
    }
    panels.push(Panel {
        title: "original".to_string(),
        dots: before,
        arrows: before_arrows,
        tiles: vec![],
    });
    if with_script {
        let new_rank = rank(&new_time);
        let mut after = dots.clone();
        for (d, r) in after.iter_mut().zip(&new_rank) {
            d.rank = *r;
        }
        let mut tiles: BTreeMap<Vec<Int>, Vec<usize>> = BTreeMap::new();
        if let Some(len) = tile_key_len {
            for (i, t) in new_time.iter().enumerate() {
                tiles
                    .entry(t[..len.min(t.len())].to_vec())
                    .or_default()
                    .push(i);
            }
        }
        panels.push(Panel {
            title: format!(
                "after {}",
                opts.script.clone().unwrap_or_else(|| "the script".into())
            ),
            dots: after,
            arrows: after_arrows,
            tiles: tiles.into_values().collect(),
        });
    }
    let what = match &opts.tag {
        Some(t) => format!("`{t}`"),
        None => "all statements".to_string(),
    };
    Ok(Picture {
        title: format!("{} — {what} at {fixed_text}", scop.file),
        axes,
        stmts: stmt_index.iter().map(|&k| label(k)).collect(),
        fixed: fixed_text,
        panels,
        notes,
        broken: broken_total,
    })
}

fn describe_fixed(params: &[(String, Int)], fixed: &BTreeMap<String, i64>) -> String {
    let mut parts: Vec<String> = params.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    parts.extend(fixed.iter().map(|(n, v)| format!("{n} = {v}")));
    parts.join(", ")
}
