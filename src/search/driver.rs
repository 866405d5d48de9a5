//! The search itself (§4.4's iterative compilation): the legal outer interleavings, two
//! schedules for each (the §4.1 permutable bands and the fuse-with-shifts schedule), written
//! as scripts, checked, timed through `bench`, then improved one change at a time. Screening
//! at smaller sizes keeps the timing affordable: every candidate is first timed with the size
//! macros scaled down, and only the best few are timed again at the sizes asked for. Prints
//! nothing: the caller hears of progress through a callback (docs/search.md).
//! What is timed first is ordered by a static cost model ([`super::cost`]): one schedule per
//! loop structure, the cheapest first, and the changes most likely to pay first.

use super::cost::{self, CostModel};
use super::fusion::Outer;
use super::schedule::Built;
use super::script::{self, Names, Variant};
use super::Legal;
use crate::bench::{bench_one, Job, Outcome, Verdict};
use crate::driver::{Kernel, Run};
use crate::presburger::budget::{self, Exhausted};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The two ways of building a schedule for an interleaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// §4.1: permutable bands with the shortest dependence distances (tilable; skews where
    /// the band needs them).
    Bands,
    /// The kernel's own loop order with shifts, level by level ([`Legal::build_fused`]).
    Fused,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bands => "bands",
            Kind::Fused => "fused",
        }
    }
}

/// What the search is asked to do.
pub struct SearchSettings {
    /// Time limit of the whole search in seconds, counted from its start: no timing starts
    /// that would not end before its phase's deadline, judging by the longest one so far.
    pub time_limit: f64,
    /// Time candidates (false: build and check them only).
    pub bench: bool,
    /// InterleavingSchedule at most this many of the legal outer interleavings (all of them when there
    /// are no more; [`super::fusion::Fusion::select`]).
    pub max_interleavings: usize,
    /// Tile sizes the greedy phase tries on each permutable band, in order.
    pub tile_sizes: Vec<u32>,
    /// The tile size of the tiled variant written without timing (`--no-bench`).
    pub tile_start: u32,
    /// The integer core's work budget, for each problem separately.
    pub budget: u64,
    /// Screening: the integer `-D NAME=VALUE` sizes multiplied by this (1: no screening).
    pub screen: f64,
    /// Screening is skipped when the original runs faster than this (seconds, median) at
    /// the sizes given.
    pub screen_above: f64,
    /// How many of the best screened candidates are timed again at the sizes asked for.
    pub finalists: usize,
    /// Try a `parallel` mark on each band's outermost loop in the greedy phase.
    pub parallel: bool,
    /// The bench job every candidate is timed with (its `script` is replaced): the kernel,
    /// the toolchain with the sizes asked for, the plan.
    pub job: Job,
    /// Script lines run before every candidate's (`expand`s): the space is the program they
    /// leave, and every candidate's script starts with them.
    pub prefix: Vec<String>,
}

/// A schedule built for one interleaving.
pub struct InterleavingSchedule {
    pub interleaving: usize,
    pub kind: Kind,
    pub built: Result<Built, String>,
}

/// One candidate script and what became of it.
pub struct Candidate {
    pub interleaving: usize,
    pub kind: Kind,
    /// The changes on top of the schedule as built (band orders, tiles, marks).
    pub variant: String,
    pub script: Vec<String>,
    pub verdict: Verdict,
    /// `(original, transformed, speedup)` at the screening sizes.
    pub screen: Option<(f64, f64, f64)>,
    /// `(original, transformed, speedup)` at the sizes asked for.
    pub timing: Option<(f64, f64, f64)>,
}

impl Candidate {
    /// The kind and the variant: `fused, as built`.
    pub fn describe(&self) -> String {
        format!("{}, {}", self.kind.name(), self.variant)
    }
}

/// What the caller hears while the search runs.
pub enum Event<'a> {
    /// What is being done now (for a progress line).
    Status(&'a str),
    /// A candidate was timed (`screen`: at the screening sizes).
    Timed {
        index: usize,
        candidate: &'a Candidate,
        screen: bool,
    },
}

/// Everything the search found.
pub struct SearchReport {
    /// How many legal outer interleavings there are, and those scheduled.
    pub interleavings: Outer,
    /// Seconds to build the dependences, the space, the interleavings and the schedules of
    /// those scheduled.
    pub build_seconds: f64,
    pub schedules: Vec<InterleavingSchedule>,
    pub candidates: Vec<Candidate>,
    /// The fastest candidate: by its time at the sizes asked for when any was timed there,
    /// else by its screening time.
    pub best: Option<usize>,
    /// The `-D` sizes of screening, when it was done.
    pub screen_defines: Option<Vec<String>>,
}

impl SearchReport {
    /// The speedup of the best candidate, and whether it was measured at the screening sizes.
    pub fn best_speedup(&self) -> Option<(f64, bool)> {
        let c = &self.candidates[self.best?];
        c.timing
            .map(|t| (t.2, false))
            .or(c.screen.map(|t| (t.2, true)))
    }

    /// Whether the kernel as it is wins: no candidate ran faster than the original (the
    /// fastest's speedup below 1). Its own schedule is always legal, so the search never
    /// answers with a script slower than the original.
    pub fn original_wins(&self) -> bool {
        self.best_speedup().is_some_and(|(x, _)| x < 1.0)
    }
}

/// The handles, iterators and positions scripts are written with.
pub fn names(kernel: &Kernel) -> Names {
    let scop = &kernel.scop;
    Names {
        handles: (0..scop.statements.len())
            .map(|k| kernel.handle_of(k))
            .collect(),
        iterators: scop
            .statements
            .iter()
            .map(|s| s.iterators.clone())
            .collect(),
        params: scop.params.clone(),
        positions: scop
            .statements
            .iter()
            .map(|s| s.schedule.positions.clone())
            .collect(),
    }
}

pub use crate::bench::scaled_defines;

/// Other orders of a band's loops, the most promising first: the two innermost swapped
/// (`i, k, j` from `i, j, k`: the reduction loop in the middle), then every other
/// permutation in lexicographic order for bands of up to four loops; for longer bands the
/// innermost moved outermost and the outermost moved innermost.
pub fn band_orders(len: usize) -> Vec<Vec<usize>> {
    let id: Vec<usize> = (0..len).collect();
    let mut out: Vec<Vec<usize>> = vec![];
    if len >= 2 {
        let mut s = id.clone();
        s.swap(len - 2, len - 1);
        out.push(s);
        if len <= 4 {
            let mut p = id.clone();
            while script::next_permutation(&mut p) {
                out.push(p.clone());
            }
        } else {
            let mut r = vec![len - 1];
            r.extend(0..len - 1);
            out.push(r);
            let mut l: Vec<usize> = (1..len).collect();
            l.push(0);
            out.push(l);
        }
    }
    let mut seen = vec![id];
    out.retain(|o| {
        if seen.contains(o) {
            false
        } else {
            seen.push(o.clone());
            true
        }
    });
    out
}

/// A job like `template` (kernel, options, toolchain, plan, comparison) for `script`.
fn job_like(template: &Job, script: Option<PathBuf>) -> Job {
    // The scripts the search writes declare no parameters.
    Job {
        name: template.name.clone(),
        check_cflags: template.check_cflags.clone(),
        check: template.check,
        ..Job::new(
            template.kernel.clone(),
            script,
            template.opts.clone(),
            template.toolchain.clone(),
            template.plan,
        )
    }
}

/// Everything the search keeps while it runs.
struct State<'a, 'b> {
    kernel: &'a Kernel,
    run: Run,
    names: Names,
    settings: &'a SearchSettings,
    screen_job: Option<Job>,
    candidates: Vec<Candidate>,
    /// Script text to the candidate that has it: a script is checked and timed once.
    seen: HashMap<String, usize>,
    dir: PathBuf,
    on: &'b mut dyn FnMut(Event),
    /// The longest a timing has taken so far, at the sizes asked for (`[0]`) and at the
    /// screening sizes (`[1]`): a timing that would not end before its deadline is not
    /// started.
    longest: [Option<Duration>; 2],
}

impl State<'_, '_> {
    /// Writes and checks a candidate (or finds the candidate with the same script); returns
    /// its index.
    fn add(&mut self, il: usize, kind: Kind, b: &Built, v: &Variant) -> usize {
        let variant = v.describe(b, &self.names);
        let (script, verdict) = match script::write(b, v, &self.names) {
            Err(e) => (vec![], Verdict::Error(e)),
            Ok(lines) => {
                let mut all = self.settings.prefix.clone();
                all.extend(lines);
                let lines = all;
                let text = lines.join("\n") + "\n";
                if let Some(&k) = self.seen.get(&text) {
                    return k;
                }
                self.seen.insert(text.clone(), self.candidates.len());
                self.run.restart(self.kernel);
                let (run, kernel) = (&mut self.run, self.kernel);
                let checked = budget::with_budget(self.settings.budget, || {
                    run.apply(kernel, &text, "candidate.loopy", Path::new("."))
                        .map(|()| run.check())
                });
                let v = match checked {
                    Err(e) => Verdict::Error(e.to_string()),
                    Ok(Err(f)) => Verdict::Error(f.diagnostic.message),
                    Ok(Ok(bad)) => match bad.first() {
                        None => Verdict::Legal,
                        Some(_) => {
                            let r = self.run.reports(self.kernel, &bad);
                            Verdict::Illegal(r[0].diagnostic.message.clone())
                        }
                    },
                };
                (lines, v)
            }
        };
        self.candidates.push(Candidate {
            interleaving: il,
            kind,
            variant,
            script,
            verdict,
            screen: None,
            timing: None,
        });
        self.candidates.len() - 1
    }

    /// Whether a timing (at the screening sizes or not) started now would end before
    /// `deadline`, judging by the longest one so far.
    fn fits(&self, screen: bool, deadline: Instant) -> bool {
        Instant::now() + self.longest[screen as usize].unwrap_or_default() < deadline
    }

    /// Times a legal candidate not timed yet, at the screening sizes (`screen`) or at the
    /// sizes asked for, unless `deadline` has passed.
    fn time(&mut self, idx: usize, screen: bool, deadline: Instant) {
        let c = &self.candidates[idx];
        let done = if screen { c.screen } else { c.timing };
        if !matches!(c.verdict, Verdict::Legal) || done.is_some() || !self.fits(screen, deadline) {
            return;
        }
        let began = Instant::now();
        let template = match (&self.screen_job, screen) {
            (Some(j), true) => j,
            _ => &self.settings.job,
        };
        let file = self.dir.join(format!("candidate-{idx}.loopy"));
        if std::fs::write(&file, c.script.join("\n") + "\n").is_err() {
            return;
        }
        let job = job_like(template, Some(file.clone()));
        let left = deadline.saturating_duration_since(Instant::now()).as_secs();
        let label = format!(
            "candidate {} ({}){}, {left} s left",
            idx + 1,
            c.describe(),
            if screen { ", screening" } else { "" }
        );
        let outcome = {
            let on = &mut *self.on;
            let cell = std::cell::RefCell::new(on);
            let progress = |msg: &str| {
                let status = format!("{label}: {msg}");
                (*cell.borrow_mut())(Event::Status(&status));
            };
            bench_one(&job, &progress)
        };
        let _ = std::fs::remove_file(&file);
        let took = began.elapsed();
        let longest = &mut self.longest[screen as usize];
        *longest = Some(longest.map_or(took, |l| l.max(took)));
        let c = &mut self.candidates[idx];
        match outcome {
            Outcome::Timed { timing, .. } => {
                let t = (
                    timing.a_stats().median,
                    timing.b_stats().median,
                    timing.speedup(),
                );
                if screen {
                    c.screen = Some(t);
                } else {
                    c.timing = Some(t);
                }
                (self.on)(Event::Timed {
                    index: idx,
                    candidate: &self.candidates[idx],
                    screen,
                });
            }
            Outcome::Differ { diff, .. } => {
                c.verdict = Verdict::Error(format!(
                    "outputs differ ({} line {})",
                    diff.stream.name(),
                    diff.line
                ))
            }
            Outcome::Illegal { reports } => {
                c.verdict = Verdict::Illegal(
                    reports
                        .first()
                        .map_or(String::new(), |r| r.diagnostic.message.clone()),
                )
            }
            Outcome::Failed { failure, .. } => {
                c.verdict = Verdict::Error(failure.diagnostic.message)
            }
        }
    }

    /// The speedup the greedy phase compares: at the screening sizes when screening.
    fn speedup(&self, idx: usize) -> Option<f64> {
        let c = &self.candidates[idx];
        if self.screen_job.is_some() {
            c.screen.map(|t| t.2)
        } else {
            c.timing.map(|t| t.2)
        }
    }
}

/// The schedule of each class, by kind and (sorted) statements, once built.
pub type Classes = HashMap<(Kind, Vec<usize>), Result<Built, String>>;

/// The schedule of an interleaving, as [`Legal::build`] (`Kind::Bands`) or
/// [`Legal::build_fused`] (`Kind::Fused`) builds it: every class is scheduled on its own
/// (its statements start without rows and only the dependences among them count), so each
/// class is built once and reused by every interleaving that has it (`memo`).
pub fn build(
    legal: &Legal,
    classes: &[Vec<usize>],
    kind: Kind,
    memo: &mut Classes,
) -> Result<Built, String> {
    let all: Vec<usize> = (0..legal.edges.len()).collect();
    let n = legal.layout.iters.len();
    legal.build_classes(classes, |c| {
        memo.entry((kind, c.to_vec()))
            .or_insert_with(|| {
                let mut b = Built::empty(n, c.to_vec());
                match kind {
                    Kind::Bands => legal.build_group(c, &all, &mut b),
                    Kind::Fused => legal.fuse_group(c, &all, &mut b),
                }
                .map(|()| b)
            })
            .clone()
    })
}

/// The changes the greedy phase tries on a schedule whose phase-1 variant is `v0`, each as a
/// variant differing from `v0` in one band: the tile sizes of each band (the bands with the
/// most work first), then the other loop orders that the cost model finds no worse than
/// `v0`'s, then `parallel` marks, then the orders it finds worse (cheapest first).
pub fn changes(
    model: &CostModel,
    b: &Built,
    v0: &Variant,
    tile_sizes: &[u32],
    parallel: bool,
) -> Vec<Variant> {
    let mut bands: Vec<usize> = (0..b.bands.len()).collect();
    bands.sort_by(|&x, &y| {
        model
            .band_work(b, y)
            .total_cmp(&model.band_work(b, x))
            .then(b.bands[y].len.cmp(&b.bands[x].len))
            .then(x.cmp(&y))
    });
    let mut tiles = vec![];
    let mut good = vec![];
    let mut marks = vec![];
    let mut worse: Vec<(f64, Variant)> = vec![];
    for &j in &bands {
        if b.bands[j].len >= 2 {
            for &size in tile_sizes {
                let mut w = v0.clone();
                w.tile[j] = size;
                tiles.push(w);
            }
        }
        let orders = model.band_orders(b, v0, j);
        let own = orders
            .iter()
            .find(|(o, _)| *o == v0.order[j])
            .map_or(f64::INFINITY, |x| x.1);
        for (o, c) in orders {
            if o == v0.order[j] {
                continue;
            }
            let mut w = v0.clone();
            w.order[j] = o;
            if c <= own {
                good.push(w);
            } else {
                worse.push((c - own, w));
            }
        }
        if parallel {
            let mut w = v0.clone();
            w.parallel[j] = true;
            marks.push(w);
        }
    }
    worse.sort_by(|x, y| x.0.total_cmp(&y.0));
    tiles
        .into_iter()
        .chain(good)
        .chain(marks)
        .chain(worse.into_iter().map(|x| x.1))
        .collect()
}

/// The kernel's own outer structure as an interleaving: the statements that share an
/// outermost loop (the same first position, at least one loop each) in one class, the
/// classes in textual order.
pub fn own_interleaving(names: &Names, iters: &[usize]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![];
    for s in 0..iters.len() {
        let shares = out.last().is_some_and(|c: &Vec<usize>| {
            let t = c[0];
            iters[s] > 0 && iters[t] > 0 && names.positions[s][0] == names.positions[t][0]
        });
        match out.last_mut() {
            Some(c) if shares => c.push(s),
            _ => out.push(vec![s]),
        }
    }
    out
}

/// The search: interleavings, schedules, candidates; timed when `settings.bench`.
/// `Err` when the integer core runs out of budget building the space.
pub fn search(
    kernel: &Kernel,
    settings: &SearchSettings,
    on: &mut dyn FnMut(Event),
) -> Result<SearchReport, Exhausted> {
    let start = Instant::now();
    let (run, legal, il) = budget::with_budget(settings.budget, || {
        let mut run = Run::start(kernel);
        if !settings.prefix.is_empty() {
            // Checked by the caller; a refusal here leaves the kernel's own program.
            let text = settings.prefix.join("\n") + "\n";
            let _ = run.apply(kernel, &text, "prefix.loopy", Path::new("."));
        }
        let legal = Legal::new(&run.program, &run.deps);
        let own = own_interleaving(&names(kernel), &legal.layout.iters);
        let il = Outer::new(&legal, settings.max_interleavings, &own);
        (run, legal, il)
    })?;
    let mut schedules = vec![];
    let mut memo = Classes::default();
    for (k, c) in il.list.iter().enumerate() {
        for kind in [Kind::Bands, Kind::Fused] {
            let built = budget::with_budget(settings.budget, || build(&legal, c, kind, &mut memo))
                .unwrap_or_else(|e| Err(e.to_string()));
            schedules.push(InterleavingSchedule {
                interleaving: k,
                kind,
                built,
            });
        }
    }
    let build_seconds = start.elapsed().as_secs_f64();
    let screen_defines = if settings.bench {
        scaled_defines(&settings.job.toolchain.defines, settings.screen)
    } else {
        None
    };
    let screen_job = screen_defines.as_ref().map(|d| {
        let mut j = job_like(&settings.job, None);
        j.toolchain.defines = d.clone();
        j.opts.defines = d.clone();
        j
    });
    let dir = std::env::temp_dir().join(format!("loopy-search-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let mut s = State {
        kernel,
        run,
        names: names(kernel),
        settings,
        screen_job,
        candidates: vec![],
        seen: HashMap::new(),
        dir: dir.clone(),
        on,
        longest: [None, None],
    };
    // The time limit counts from the start: building and checking the schedules are part of
    // it.
    let t0 = start;
    let limit = settings.time_limit.max(0.0);
    let end = t0 + Duration::from_secs_f64(limit);
    let model = CostModel::new(&kernel.scop, &legal.layout.dirs, settings.budget);
    // Every schedule as built is a candidate, checked.
    let mut base: Vec<Option<usize>> = vec![None; schedules.len()];
    for (k, sc) in schedules.iter().enumerate() {
        let Ok(b) = &sc.built else { continue };
        base[k] = Some(s.add(sc.interleaving, sc.kind, b, &Variant::plain(b)));
    }
    // What phase 1 times: one schedule per loop structure (the nests of the schedule with
    // each band in its statically cheapest order, regardless of the order of the outermost
    // nests), cheapest first, ties in enumeration order.
    let mut reps: Vec<(usize, Variant, f64)> = vec![];
    let mut keys = std::collections::HashSet::new();
    for (k, sc) in schedules.iter().enumerate() {
        let (Ok(b), Some(c)) = (&sc.built, base[k]) else {
            continue;
        };
        if !matches!(s.candidates[c].verdict, Verdict::Legal) {
            continue;
        }
        let v = model.best_orders(b);
        if keys.insert(cost::nest_key(b, &v)) {
            let cost = model.cost(b, &v);
            reps.push((k, v, cost));
        }
    }
    reps.sort_by(|x, y| x.2.total_cmp(&y.2).then(x.0.cmp(&y.0)));
    // Screening only pays when the original is slow at the sizes given: the first schedule
    // to time is timed there first, and when the original takes less than `screen_above`
    // seconds, everything is timed at those sizes (small sizes would only measure noise).
    let mut screen_defines = screen_defines;
    if s.screen_job.is_some() {
        if let Some((k, v, _)) = reps.first() {
            let sc = &schedules[*k];
            let b = sc.built.as_ref().expect("built");
            let c = s.add(sc.interleaving, sc.kind, b, v);
            s.time(c, false, end);
            if s.candidates[c]
                .timing
                .is_some_and(|t| t.0 < settings.screen_above)
            {
                s.screen_job = None;
                screen_defines = None;
            }
        }
    }
    let screening = s.screen_job.is_some();
    // With screening, the screening phase has 60% of the time and the finalists the rest.
    let greedy_end = if screening {
        t0 + Duration::from_secs_f64(limit * 0.6)
    } else {
        end
    };
    // Phase 1: the representatives, best first, timed until a third of the greedy time
    // left has gone (at least one is timed).
    let now = Instant::now();
    let phase1_end = now + greedy_end.saturating_duration_since(now) / 3;
    let mut timed: Vec<(usize, Variant, usize)> = vec![];
    if settings.bench {
        for (k, v, _) in &reps {
            let sc = &schedules[*k];
            let b = sc.built.as_ref().expect("built");
            let c = s.add(sc.interleaving, sc.kind, b, v);
            let deadline = if timed.is_empty() {
                greedy_end
            } else {
                phase1_end
            };
            s.time(c, screening, deadline);
            if s.speedup(c).is_some() {
                timed.push((*k, v.clone(), c));
            }
            if !s.fits(screening, phase1_end) && !timed.is_empty() {
                break;
            }
        }
    }
    if !settings.bench {
        // Without timing: the tiled variant of each as well, checked.
        for (k, sc) in schedules.iter().enumerate() {
            let Ok(b) = &sc.built else { continue };
            if b.bands.iter().any(|x| x.len >= 2) {
                let mut v = Variant::plain(b);
                for (j, band) in b.bands.iter().enumerate() {
                    if band.len >= 2 {
                        v.tile[j] = settings.tile_start;
                    }
                }
                s.add(schedules[k].interleaving, sc.kind, b, &v);
            }
        }
    } else {
        // Phase 2: from the fastest schedule, one change at a time, kept when faster.
        // When time is left, the same from the next fastest schedule, and so on.
        let mut bases: Vec<(usize, Variant, f64)> = timed
            .iter()
            .filter_map(|(k, v, c)| s.speedup(*c).map(|x| (*k, v.clone(), x)))
            .collect();
        bases.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)));
        for (k, v0, mut best) in bases {
            if !s.fits(screening, greedy_end) {
                break;
            }
            let sc = &schedules[k];
            let b = sc.built.as_ref().expect("timed, so built");
            let mut v = v0.clone();
            for ch in changes(&model, b, &v0, &settings.tile_sizes, settings.parallel) {
                if !s.fits(screening, greedy_end) {
                    break;
                }
                // Apply the one change `ch` makes to the variant kept so far.
                let mut w = v.clone();
                for j in 0..b.bands.len() {
                    if ch.order[j] != v0.order[j] {
                        w.order[j] = ch.order[j].clone();
                    }
                    if ch.tile[j] != v0.tile[j] {
                        w.tile[j] = ch.tile[j];
                    }
                    if ch.parallel[j] != v0.parallel[j] {
                        w.parallel[j] = ch.parallel[j];
                    }
                }
                if w == v {
                    continue;
                }
                let c = s.add(sc.interleaving, sc.kind, b, &w);
                s.time(c, screening, greedy_end);
                if let Some(x) = s.speedup(c).filter(|&x| x > best) {
                    best = x;
                    v = w;
                }
            }
        }
        // Phase 3 (screening only): the best few screened candidates at the sizes asked for.
        if screening {
            let mut ranked: Vec<(usize, f64)> = (0..s.candidates.len())
                .filter_map(|c| s.candidates[c].screen.map(|t| (c, t.2)))
                .collect();
            ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            // Not those at less than half the best screened speedup: at the sizes asked
            // for they would take most of the time left and could not win.
            let top = ranked.first().map_or(0.0, |r| r.1);
            ranked.retain(|r| r.1 >= top / 2.0);
            for &(c, _) in ranked.iter().take(settings.finalists.max(1)) {
                s.time(c, false, end);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let pick = |f: &dyn Fn(&Candidate) -> Option<f64>| {
        (0..s.candidates.len())
            .filter_map(|c| f(&s.candidates[c]).map(|x| (c, x)))
            .max_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(c, _)| c)
    };
    let best = pick(&|c| c.timing.map(|t| t.2)).or_else(|| pick(&|c| c.screen.map(|t| t.2)));
    Ok(SearchReport {
        interleavings: il,
        build_seconds,
        schedules,
        candidates: s.candidates,
        best,
        screen_defines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screening_sizes() {
        let d = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            scaled_defines(&d(&["NI=800", "FAST", "NK=1100", "X=abc", "T=2"]), 0.25),
            Some(d(&["NI=200", "FAST", "NK=275", "X=abc", "T=2"]))
        );
        assert_eq!(scaled_defines(&d(&["N=10"]), 0.01), Some(d(&["N=2"])));
        assert_eq!(scaled_defines(&d(&["N=1000"]), 1.0), None);
        assert_eq!(scaled_defines(&d(&["FAST"]), 0.5), None);
        assert_eq!(scaled_defines(&[], 0.5), None);
    }

    /// The fastest candidate is the answer only when it beats the original.
    #[test]
    fn the_original_wins_when_every_candidate_is_slower() {
        let cand = |timing: Option<f64>, screen: Option<f64>| Candidate {
            interleaving: 0,
            kind: Kind::Bands,
            variant: String::new(),
            script: vec![],
            verdict: Verdict::Legal,
            screen: screen.map(|x| (1.0, 1.0 / x, x)),
            timing: timing.map(|x| (1.0, 1.0 / x, x)),
        };
        let report = |candidates: Vec<Candidate>, best: Option<usize>| SearchReport {
            interleavings: Outer {
                count: 1,
                exact: true,
                list: vec![],
                ranks: vec![],
                own: None,
                tests: 0,
                states: 0,
            },
            build_seconds: 0.0,
            schedules: vec![],
            candidates,
            best,
            screen_defines: None,
        };
        // jacobi-1d at MEDIUM: every tiling slower than the original.
        let slow = report(
            vec![cand(Some(0.22), None), cand(Some(0.18), None)],
            Some(0),
        );
        assert!(slow.original_wins());
        let fast = report(vec![cand(Some(0.9), None), cand(Some(1.3), None)], Some(1));
        assert!(!fast.original_wins());
        // Screened only: the screening speedup decides.
        assert!(report(vec![cand(None, Some(0.7))], Some(0)).original_wins());
        assert!(!report(vec![cand(None, Some(1.1))], Some(0)).original_wins());
        // Nothing timed: nothing to compare.
        assert!(!report(vec![cand(None, None)], None).original_wins());
    }

    #[test]
    fn loop_orders_of_a_band() {
        // The reduction loop in the middle first, then every other order.
        assert_eq!(
            band_orders(3),
            vec![
                vec![0, 2, 1],
                vec![1, 0, 2],
                vec![1, 2, 0],
                vec![2, 0, 1],
                vec![2, 1, 0]
            ]
        );
        assert_eq!(band_orders(2), vec![vec![1, 0]]);
        assert_eq!(band_orders(4).len(), 23);
        assert_eq!(band_orders(5).len(), 3);
        assert!(band_orders(1).is_empty());
    }
}
