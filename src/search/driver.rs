//! The search itself (§4.4's iterative compilation): the legal outer interleavings, two
//! schedules for each (the §4.1 permutable bands and the fuse-with-shifts schedule), written
//! as scripts, checked, timed by the timing loop of [`crate::timing`], then improved one
//! change at a time. Screening at smaller sizes keeps the timing affordable: every candidate
//! is first timed with the size macros scaled down, and only the best few are timed again at
//! the sizes asked for. The time limit holds for the whole search: building the space and
//! the schedules and checking the candidates stop at it too, and the search answers with
//! what it has. The kernel as it is (no script) is always a candidate. Prints nothing: the
//! caller hears of progress through a callback (docs/search.md).
//! What is timed first is ordered by a static cost model ([`super::cost`]): one schedule per
//! loop structure, the cheapest first, and the changes most likely to pay first.

use super::beam;
use super::blocks;
use super::cost::{self, CostModel};
use super::finish;
use super::fusion::Outer;
use super::hoist;
use super::jam;
use super::own;
use super::recipe::{self, BlisSizes, Contraction, Recognised};
use super::rows;
use super::schedule::Built;
use super::script::{self, Names, Variant};
use super::split;
use super::trijam;
use super::Legal;
use crate::bench::Job;
use crate::driver::{Kernel, Run};
use crate::presburger::budget::{self, Exhausted};
use crate::timing::{self, Attempt, Bench, Limits, ScreenOnly, Session, Timer, Trial};
pub use crate::timing::{Measured, Verdict};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The two ways of building a schedule for an interleaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// §4.1: permutable bands with the shortest dependence distances (tilable; skews where
    /// the band needs them).
    Bands,
    /// The kernel's own loop order with shifts, level by level ([`Legal::build_fused`]).
    Fused,
    /// A recipe applied to the kernel as it is: the BLIS blocking of its contractions
    /// ([`super::recipe`]); not built from an interleaving.
    Recipe,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bands => "bands",
            Kind::Fused => "fused",
            Kind::Recipe => "recipe",
        }
    }
}

/// What the search is asked to do.
pub struct SearchSettings {
    /// Time limit of the whole search in seconds, counted from its start: building and
    /// checking stop at it (the search answers with what it has), and no timing starts that
    /// would not end before its phase's deadline, judging by the timings so far.
    pub time_limit: f64,
    /// Time candidates (false: build and check them only).
    pub bench: bool,
    /// Schedule at most this many of the legal outer interleavings (all of them when there
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
    /// How many of the best screened candidates are timed again at the sizes asked for,
    /// and how many of the best timed candidates (with the kernel as it is) play the
    /// playoff.
    pub finalists: usize,
    /// The playoff's rounds: the best `finalists` candidates and the kernel as it is are
    /// timed this many times more, in turn, and the answer is chosen among them on all their
    /// rounds (0: none).
    pub playoff: usize,
    /// Try a `parallel` mark on each band's outermost loop in the greedy phase.
    pub parallel: bool,
    /// The bench job every candidate is timed with (its `script` is replaced): the kernel,
    /// the toolchain with the sizes asked for, the plan.
    pub job: Job,
    /// Script lines run before every candidate's (`expand`s): the space is the program they
    /// leave, and every candidate's script starts with them.
    pub prefix: Vec<String>,
    /// Propose the recipes (false with `--no-recipes`: schedules from the legal space only).
    pub recipes: bool,
    /// The block sizes of the BLIS recipe (the machine model's), or why there are none
    /// (`--no-recipes`, a model without them): then the recipe is skipped with that reason.
    pub blis: Result<BlisSizes, String>,
    /// The cache capacities of the cost model's estimates.
    pub caches: super::cost::Caches,
    /// What the parts of an estimate weigh, and where the weights come from (`measured on
    /// this machine`, or why they are the fixed ones).
    pub weights: (super::cost::Weights, String),
    /// The share of the time limit kept at the end, with timing, to tune the answer's
    /// `param` lines ([`super::finish`]); 0: none.
    pub finish: f64,
    /// The beam's width ([`super::beam`]): the compositions of band orders, tiles and splits
    /// the cost model estimates cheapest, checked and timed first; 0: none (phase 1 times
    /// the schedules in their statically cheapest orders, as built).
    pub beam: usize,
}

/// A schedule built for one interleaving.
pub struct InterleavingSchedule {
    pub interleaving: usize,
    pub kind: Kind,
    pub built: Result<Built, String>,
}

/// One candidate script and what became of it.
pub struct Candidate {
    /// The interleaving (its index among those scheduled); `None` for the kernel as it is
    /// when its own outer structure is not among them.
    pub interleaving: Option<usize>,
    /// How its schedule was built; `None` for the kernel as it is (kind `identity`).
    pub kind: Option<Kind>,
    /// The changes on top of the schedule as built (band orders, tiles, marks).
    pub variant: String,
    pub script: Vec<String>,
    pub verdict: Verdict,
    /// At the screening sizes.
    pub screen: Option<Measured>,
    /// At the sizes asked for.
    pub timing: Option<Measured>,
    /// Why a legal candidate was not timed, when the search tried to time it and could not
    /// start (the time limit); failures are in the verdict.
    pub not_timed: Option<String>,
    /// The cost model's estimate ([`CostModel::estimate`]: arithmetic and the lines each
    /// cache level misses, with its band orders and tiles), for a schedule the search built
    /// and the kernel as it is; `None` for a recipe.
    pub estimate: Option<f64>,
    /// What the estimate counts, before weighing.
    pub parts: Option<cost::Parts>,
    /// The estimate at the screening sizes, when the search may screen.
    pub screen_estimate: Option<f64>,
}

impl Candidate {
    /// The kind and the variant: `fused, as built`.
    pub fn describe(&self) -> String {
        format!("{}, {}", self.kind_name(), self.variant)
    }

    /// `bands`, `fused`, or `identity` for the kernel as it is.
    pub fn kind_name(&self) -> &'static str {
        self.kind.map_or("identity", Kind::name)
    }

    /// Why it has no timing at the sizes asked for, on one line: its verdict's message, or
    /// why it was not timed there (`None` when it was timed there). A candidate timed only
    /// at the screening sizes says so.
    pub fn reason(&self, bench: bool) -> Option<String> {
        if self.timing.is_some() {
            return None;
        }
        if let Some(s) = &self.screen {
            return Some(self.not_timed.clone().unwrap_or_else(|| {
                format!(
                    "timed only at the screening sizes ({:.2}x): not among the best screened                      candidates timed at the sizes asked for (--finalists)",
                    s.speedup
                )
            }));
        }
        if let Some(m) = self.verdict.message() {
            return Some(m.to_string());
        }
        Some(match (&self.not_timed, bench) {
            (Some(r), _) => r.clone(),
            (None, false) => "not timed: --no-bench".to_string(),
            (None, true) => "not timed: the search timed other candidates first (those the \
                             cost model ranks first, then changes to the fastest) and did \
                             not reach it"
                .to_string(),
        })
    }
}

impl Trial for Candidate {
    fn slots(&self) -> (&Verdict, &Option<Measured>, &Option<Measured>) {
        (&self.verdict, &self.screen, &self.timing)
    }
    fn slots_mut(&mut self) -> (&mut Verdict, &mut Option<Measured>, &mut Option<Measured>) {
        (&mut self.verdict, &mut self.screen, &mut self.timing)
    }
}

/// What the caller hears while the search runs.
pub type Event<'a> = timing::Event<'a, Candidate>;

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
    /// The candidate the search ranks first without timing: the statically cheapest legal
    /// schedule (the cost model's first, the first one timed), tiled with the first tile
    /// size where it has a permutable band of two loops or more; the kernel as it is when
    /// no schedule is legal. What `--no-bench -o` writes.
    pub first_by_cost: Option<usize>,
    /// The kernel as it is, as a candidate (always present; it may share its script with a
    /// schedule the search built).
    pub identity: usize,
    /// Where the time limit cut the search short, when it did: `building` (the space, the
    /// interleavings or their schedules), `checking` (some schedules built were not checked),
    /// `timing` (candidates left untimed).
    pub out_of_time: Option<&'static str>,
    /// Schedules built but not checked (the time limit).
    pub unchecked: usize,
    /// How well the cost model ranked the candidates timed at the sizes asked for.
    pub ranking: Option<Ranking>,
    /// How well it ranked the candidates timed only at the screening sizes, estimated at
    /// those sizes.
    pub screen_ranking: Option<Ranking>,
    /// The answer's parameters tuned in the time kept for them, or why they were left as
    /// they are; `None` when not tried (no timing, no parameter, no share kept).
    pub finished: Option<finish::Outcome>,
    /// The candidates of the playoff, fastest first on all their rounds (empty when there
    /// was none); the answer is the first.
    pub playoff: Vec<usize>,
    /// The beam search's compositions, cheapest estimate first; `None` without a beam.
    pub beam: Option<BeamReport>,
}

/// What the beam search found ([`super::beam`]).
#[derive(Clone, Debug)]
pub struct BeamReport {
    pub width: usize,
    /// Compositions estimated.
    pub estimated: usize,
    /// Whether the time limit or the estimate count stopped it before every band was
    /// decided.
    pub cut: bool,
    /// Its compositions, cheapest first: the schedule (index into the report's schedules),
    /// the estimate, and the candidate it became when it was checked.
    pub kept: Vec<BeamEntry>,
}

/// One composition of the beam.
#[derive(Clone, Debug)]
pub struct BeamEntry {
    pub schedule: usize,
    pub variant: String,
    pub estimate: f64,
    pub candidate: Option<usize>,
}

/// How well the cost model's estimates rank the measured times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranking {
    /// Spearman's rank correlation of the estimates with the measured times (the
    /// transformed program's time over the original's in the same rounds): 1 when the
    /// model orders them exactly as measured.
    pub rho: f64,
    /// How many candidates it is over: those with an estimate timed at the sizes asked for.
    pub over: usize,
}

/// The model's ranking over the candidates with an estimate and a timing at the sizes asked
/// for; `None` for fewer than three, or when the estimates or the times are all equal.
fn ranking(candidates: &[Candidate]) -> Option<Ranking> {
    rank(
        candidates
            .iter()
            .filter_map(|c| Some((c.estimate?, 1.0 / c.timing?.speedup))),
    )
}

/// The same over the candidates timed only at the screening sizes, with their estimates
/// at those sizes.
fn screen_ranking(candidates: &[Candidate]) -> Option<Ranking> {
    let screened = candidates.iter().filter(|c| c.timing.is_none());
    rank(screened.filter_map(|c| Some((c.screen_estimate?, 1.0 / c.screen?.speedup))))
}

/// Spearman's rank correlation of estimates and times; `None` for fewer than three pairs,
/// or when either side is constant.
fn rank(pairs: impl Iterator<Item = (f64, f64)>) -> Option<Ranking> {
    let (est, time): (Vec<f64>, Vec<f64>) = pairs.unzip();
    if est.len() < 3 {
        return None;
    }
    let rho = super::cost::spearman(&est, &time)?;
    Some(Ranking {
        rho,
        over: est.len(),
    })
}

impl SearchReport {
    /// The speedup of the best candidate, and whether it was measured at the screening sizes.
    pub fn best_speedup(&self) -> Option<(f64, bool)> {
        let c = &self.candidates[self.best?];
        c.timing
            .map(|t| (t.speedup, false))
            .or(c.screen.map(|t| (t.speedup, true)))
    }

    /// Whether the kernel as it is wins: no candidate ran faster than the original (the
    /// fastest's speedup below 1) and none was made faster by tuning its parameters (a
    /// tuned answer that beat the original wins over it). Its own schedule is always legal,
    /// so the search never answers with a script slower than the original.
    pub fn original_wins(&self) -> bool {
        // The answer's parameters tuned, faster than the original (a candidate tuned when
        // the kernel as it is had won is kept only so).
        if let Some(Ok(f)) = &self.finished {
            if Some(f.candidate) == self.best && f.tuned.speedup > 1.0 {
                return false;
            }
        }
        let own = self.best == Some(self.identity) && !self.playoff.is_empty();
        own || self.best_speedup().is_some_and(|(x, _)| x < 1.0)
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

/// Everything the search keeps while it runs.
struct State<'a, 'b, 't> {
    kernel: &'a Kernel,
    run: Run,
    names: Names,
    settings: &'a SearchSettings,
    session: Session<'t>,
    candidates: Vec<Candidate>,
    /// Script text to the candidate that has it: a script is checked and timed once.
    seen: HashMap<String, usize>,
    dir: PathBuf,
    on: &'b mut dyn FnMut(Event),
    /// Set when the time limit has passed: the integer core stops at its next step.
    cancel: Arc<AtomicBool>,
    /// The end of the whole search.
    end: Instant,
    /// Schedules built but not checked (the time limit).
    unchecked: usize,
    /// Whether a timing was refused at a deadline of the search as a whole.
    out_of_time: bool,
    /// The cost model, when the legal space was built.
    model: Option<CostModel>,
    /// The same at the screening sizes, when the search may screen.
    screen_model: Option<CostModel>,
    /// The hoisting recipe's candidates.
    hoisted: Vec<usize>,
    /// The beam's compositions and what it cost, once it ran.
    beam: Option<(beam::Outcome, Vec<String>)>,
}

impl State<'_, '_, '_> {
    /// Whether the time limit has passed.
    fn late(&self) -> bool {
        Instant::now() >= self.end || self.cancel.load(Ordering::Relaxed)
    }

    /// Writes and checks a candidate (or finds the candidate with the same script); returns
    /// its index, or `None` when the time limit stopped its check.
    fn add(&mut self, il: usize, kind: Kind, b: &Built, v: &Variant) -> Option<usize> {
        let variant = v.describe(b, &self.names);
        let c = match script::write(b, v, &self.names) {
            Err(e) => Some(self.push(Some(il), Some(kind), variant, vec![], Verdict::Error(e))),
            Ok(lines) => self.add_lines(Some(il), Some(kind), variant, lines, true),
        }?;
        if let Some(m) = &self.model {
            if self.candidates[c].parts.is_none() {
                self.estimated(c, m.parts(b, v));
            }
        }
        if let Some(m) = &self.screen_model {
            let e = &mut self.candidates[c].screen_estimate;
            *e = e.or_else(|| Some(m.estimate(b, v)));
        }
        Some(c)
    }

    /// Gives candidate `c` the estimate of `parts`.
    fn estimated(&mut self, c: usize, parts: cost::Parts) {
        let m = self.model.as_ref().expect("a model");
        self.candidates[c].estimate = Some(m.weigh(&parts));
        self.candidates[c].parts = Some(parts);
    }

    /// The BLIS recipe's candidates: one for all the contractions together and, when there
    /// are several, one for each; a statement that looks like a contraction and is not gets
    /// a candidate that says why the recipe was skipped. Returns the legal ones, in order.
    fn add_recipes(&mut self, all: &Found) -> Vec<usize> {
        let (found, blocked) = (&all.blis[..], &all.blocks[..]);
        let mut legal = vec![];
        if self.settings.recipes {
            self.add_splits(&all.splits, &mut legal);
        }
        let sizes = match &self.settings.blis {
            Ok(sizes) => sizes.clone(),
            Err(why) => {
                // Every contraction skipped, with the reason.
                let why = why.clone();
                for r in found {
                    let st = r.as_ref().map_or_else(|e| e.0, |c| c.stmt);
                    self.skip_recipe("BLIS", st, &why);
                }
                return legal;
            }
        };
        for (st, why) in found.iter().filter_map(|r| r.as_ref().err()) {
            self.skip_recipe("BLIS", *st, why);
        }
        for (st, why) in blocked.iter().filter_map(|r| r.as_ref().err()) {
            self.skip_recipe("register-block", *st, why);
        }
        for (st, why) in all.rows.iter().filter_map(|r| r.as_ref().err()) {
            self.skip_recipe("row-block", *st, why);
        }
        let ok: Vec<&Contraction> = found.iter().filter_map(|r| r.as_ref().ok()).collect();
        let mut sets: Vec<Vec<&Contraction>> = vec![ok.clone()];
        if ok.len() > 1 {
            sets.extend(ok.iter().map(|c| vec![*c]));
        }
        let pars = self.recipe_forms();
        for (set, &par) in
            (sets.iter().filter(|x| !x.is_empty())).flat_map(|x| pars.iter().map(move |p| (x, p)))
        {
            let on: Vec<&str> = set
                .iter()
                .map(|c| self.names.handles[c.stmt].as_str())
                .collect();
            let threads = if par { ", on the threads" } else { "" };
            let variant = format!("BLIS recipe on {}{threads}", on.join(", "));
            let on_threads = if par {
                u64::from(self.settings.job.threads.first().copied().unwrap_or(2))
            } else {
                1
            };
            let lines = recipe::script(set, &self.names, &sizes, on_threads);
            let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                return legal;
            };
            if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                legal.push(c);
            }
        }
        self.add_blocks(blocked, &sizes, &mut legal);
        self.add_rows(&all.rows, &sizes, &mut legal);
        if self.settings.recipes {
            for (st, why) in all.jams.iter().filter_map(|r| r.as_ref().err()) {
                self.skip_recipe("row-jam", *st, why);
            }
            self.add_jams(&all.jams, &sizes, &mut legal);
            for (st, why) in all.trijams.iter().filter_map(|r| r.as_ref().err()) {
                self.skip_recipe("triangular jam", *st, why);
            }
            self.add_trijams(&all.trijams, &sizes, &mut legal);
            self.add_hoists(&all.hoists, &mut legal);
        }
        legal
    }

    /// The hoisting recipe's candidates, one per pair of slices it proposes, blocks of the
    /// search's first tile size; the legal ones are added to `legal`.
    fn add_hoists(&mut self, found: &[hoist::Hoist], legal: &mut Vec<usize>) {
        let size = self.settings.tile_start;
        for h in found {
            let variant = format!(
                "hoisting recipe on {} (slices {} then {}, blocks of {size})",
                hoist::group(h, &self.names),
                hoist::slice_text(&h.first, &self.names),
                hoist::slice_text(&h.second, &self.names)
            );
            let lines = hoist::script(h, &self.names, size);
            let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                return;
            };
            self.hoisted.push(c);
            if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                legal.push(c);
            }
        }
    }

    /// The forms in which each recipe is proposed, `true` for the one on the threads: for
    /// several threads, on the threads first, then as it is.
    fn recipe_forms(&self) -> &'static [bool] {
        if self.settings.parallel {
            &[true, false]
        } else {
            &[false]
        }
    }

    /// The row-block recipe's candidates, one per group of statements it recognised (for
    /// several threads, each first with its blocks of rows on the threads); the
    /// legal ones are added to `legal`.
    fn add_rows(&mut self, found: &[rows::Found], sizes: &BlisSizes, legal: &mut Vec<usize>) {
        let pars = self.recipe_forms();
        for (r, &par) in (found.iter().filter_map(|r| r.as_ref().ok()))
            .flat_map(|r| pars.iter().map(move |p| (r, p)))
        {
            let variant = format!(
                "row-block recipe on {} ({} x {}){}",
                self.names.handles[r.update],
                sizes.mr,
                sizes.nr,
                if par { ", on the threads" } else { "" }
            );
            let lines = rows::script(r, &self.names, sizes, par);
            let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                return;
            };
            if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                legal.push(c);
            }
        }
    }

    /// The row-jam recipe's candidates: for each jam factor the model suggests, one for all
    /// the nests it recognised together and, when there are several, one for each; the
    /// legal ones are added to `legal`.
    fn add_jams(&mut self, found: &[jam::Found], sizes: &BlisSizes, legal: &mut Vec<usize>) {
        let ok: Vec<&jam::Jam> = found.iter().filter_map(|r| r.as_ref().ok()).collect();
        let mut sets: Vec<Vec<&jam::Jam>> = vec![ok.clone()];
        if ok.len() > 1 {
            sets.extend(ok.iter().map(|j| vec![*j]));
        }
        let mut factors: Vec<u64> = vec![];
        for u in ok
            .iter()
            .flat_map(|j| j.factors(sizes.latency, sizes.issue))
        {
            if !factors.contains(&u) {
                factors.push(u);
            }
        }
        for u in factors {
            for set in sets.iter().filter(|x| !x.is_empty()) {
                let on: Vec<&str> = (set.iter())
                    .flat_map(|j| j.chains.iter().map(|c| self.names.handles[c.0].as_str()))
                    .collect();
                let variant = format!("row-jam recipe on {} (U = {u})", on.join(", "));
                let lines = jam::script(set, &self.names, u);
                let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                    return;
                };
                if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                    legal.push(c);
                }
            }
        }
    }

    /// The triangular row-jam recipe's candidates: for each nest it recognised, one for
    /// each jam factor the model suggests (one chain a row); the legal ones are added to
    /// `legal`.
    fn add_trijams(&mut self, found: &[trijam::Found], sizes: &BlisSizes, legal: &mut Vec<usize>) {
        for t in found.iter().filter_map(|r| r.as_ref().ok()) {
            for u in jam::factors(1, sizes.latency, sizes.issue) {
                let h = &self.names.handles[t.chain];
                let variant = format!("triangular jam recipe on {h} (U = {u})");
                let lines = trijam::script(t, &self.names, u);
                let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                    return;
                };
                if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                    legal.push(c);
                }
            }
        }
    }

    /// The alias-split recipe's candidates, one per split it proposes; the legal ones are
    /// added to `legal`.
    fn add_splits(&mut self, found: &[split::Split], legal: &mut Vec<usize>) {
        for sp in found {
            let h = &self.names.handles[sp.stmt];
            let its = &self.names.iterators[sp.stmt];
            let variant = format!("alias-split recipe on {h} ({} = {})", its[sp.level], sp.at);
            let lines = split::script(sp, &self.names);
            let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                return;
            };
            if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                legal.push(c);
            }
        }
    }

    /// The register-block recipe's candidates: for each size the model suggests, one for all
    /// its statements together and, when there are several, one for each; the legal ones
    /// are added to `legal`.
    fn add_blocks(&mut self, blocked: &[blocks::Found], sizes: &BlisSizes, legal: &mut Vec<usize>) {
        let ok: Vec<&blocks::Block> = blocked.iter().filter_map(|r| r.as_ref().ok()).collect();
        let mut sets: Vec<Vec<&blocks::Block>> = vec![ok.clone()];
        if ok.len() > 1 {
            sets.extend(ok.iter().map(|c| vec![*c]));
        }
        let pars = self.recipe_forms();
        for z in blocks::sizes(sizes) {
            for (set, &par) in (sets.iter().filter(|x| !x.is_empty()))
                .flat_map(|x| pars.iter().map(move |p| (x, p)))
            {
                let on: Vec<&str> = (set.iter())
                    .map(|c| self.names.handles[c.stmt].as_str())
                    .collect();
                let threads = if par { ", on the threads" } else { "" };
                let variant = format!(
                    "register-block recipe on {} ({} x {}){threads}",
                    on.join(", "),
                    z.mr,
                    z.nr
                );
                let lines = blocks::script(set, &self.names, z, par);
                let Some(c) = self.add_lines(None, Some(Kind::Recipe), variant, lines, true) else {
                    return;
                };
                if self.candidates[c].verdict == Verdict::Legal && !legal.contains(&c) {
                    legal.push(c);
                }
            }
        }
    }

    /// A candidate that says why a recipe (`BLIS`, `register-block`) was skipped for
    /// statement `st`.
    fn skip_recipe(&mut self, recipe: &str, st: usize, why: &str) {
        let h = self.names.handles[st].clone();
        let msg = format!("skipped: the {recipe} recipe does not apply to {h}: {why}");
        let lines = vec![format!("# {msg}")];
        let variant = format!("{recipe} recipe on {h}");
        self.push(
            None,
            Some(Kind::Recipe),
            variant,
            lines,
            Verdict::Error(msg),
        );
    }

    /// Every schedule as built, checked as a candidate: the candidate of each (`None` where
    /// it was not built or not legal).
    fn add_schedules(
        &mut self,
        schedules: &[InterleavingSchedule],
        interleavings: usize,
    ) -> Vec<Option<usize>> {
        let mut base: Vec<Option<usize>> = vec![None; schedules.len()];
        for (k, sc) in schedules.iter().enumerate() {
            let Ok(b) = &sc.built else { continue };
            (self.on)(Event::Status(&format!(
                "checking the {} schedule of interleaving {}/{}",
                sc.kind.name(),
                sc.interleaving + 1,
                interleavings
            )));
            base[k] = self.add(sc.interleaving, sc.kind, b, &Variant::plain(b));
        }
        base
    }

    /// A candidate's whole script: the prefix, then `lines`. Its text tells candidates
    /// apart.
    fn whole_script(&self, lines: Vec<String>) -> Vec<String> {
        let mut all = self.settings.prefix.clone();
        all.extend(lines);
        all
    }

    /// The kernel as it is (only the prefix): always checked, past the time limit too.
    fn add_identity(&mut self, il: Option<usize>) -> usize {
        let variant = "the kernel as it is".to_string();
        self.add_lines(il, None, variant, vec![], false)
            .expect("checked without the time limit")
    }

    fn push(
        &mut self,
        interleaving: Option<usize>,
        kind: Option<Kind>,
        variant: String,
        script: Vec<String>,
        verdict: Verdict,
    ) -> usize {
        self.candidates.push(Candidate {
            interleaving,
            kind,
            variant,
            script,
            verdict,
            screen: None,
            timing: None,
            not_timed: None,
            estimate: None,
            parts: None,
            screen_estimate: None,
        });
        self.candidates.len() - 1
    }

    fn add_lines(
        &mut self,
        il: Option<usize>,
        kind: Option<Kind>,
        variant: String,
        lines: Vec<String>,
        limited: bool,
    ) -> Option<usize> {
        let lines = self.whole_script(lines);
        let text = lines.join("\n") + "\n";
        if let Some(&k) = self.seen.get(&text) {
            return Some(k);
        }
        let verdict = self.judge(&text, limited)?;
        let k = self.push(il, kind, variant, lines, verdict);
        self.seen.insert(text, k);
        Some(k)
    }

    /// The checker's verdict on a whole script's `text`; `None` when the time limit stopped
    /// its check (`limited`).
    fn judge(&mut self, text: &str, limited: bool) -> Option<Verdict> {
        if limited && self.late() {
            self.unchecked += 1;
            return None;
        }
        self.run.restart(self.kernel);
        let (run, kernel) = (&mut self.run, self.kernel);
        let mut check = || {
            budget::with_budget(self.settings.budget, || {
                run.apply(kernel, text, "candidate.loopy", Path::new("."))
                    .map(|()| run.check())
            })
        };
        let checked = if limited {
            budget::with_cancel(self.cancel.clone(), check)
        } else {
            check()
        };
        Some(match checked {
            Err(e) if e.cancelled => {
                self.unchecked += 1;
                return None;
            }
            Err(e) => Verdict::Error(e.to_string()),
            Ok(Err(f)) => Verdict::Error(f.diagnostic.message),
            Ok(Ok(bad)) => match bad.first() {
                None => Verdict::Legal,
                Some(_) => {
                    let r = self.run.reports(self.kernel, &bad);
                    Verdict::Illegal(r[0].diagnostic.message.clone())
                }
            },
        })
    }

    /// For several threads, the kernel as it is with its outermost parallel loops marked
    /// ([`own::marks`], each mark judged by the checker, then all together): timed with
    /// the recipes, not ranked without timing (nothing estimates it). `None` for one
    /// thread, or where no mark is accepted.
    fn add_own_marks(&mut self) -> Option<usize> {
        if !self.settings.parallel {
            return None;
        }
        let names = self.names.clone();
        let mut legal = |lines: &[String]| {
            let text = self.whole_script(lines.to_vec()).join("\n") + "\n";
            self.judge(&text, true) == Some(Verdict::Legal)
        };
        let lines = own::marks(&names, &mut legal);
        if lines.is_empty() {
            return None;
        }
        let variant = "the kernel as it is, its outermost parallel loops on the threads";
        let c = self.add_lines(None, Some(Kind::Recipe), variant.to_string(), lines, true)?;
        (self.candidates[c].verdict == Verdict::Legal).then_some(c)
    }

    /// Times a legal candidate not timed yet, at the screening sizes (`screen`) or at the
    /// sizes asked for, unless it would not end before `deadline` (`whole`: a deadline of
    /// the search as a whole, not the end of phase 1).
    fn time(&mut self, idx: usize, screen: bool, deadline: Instant, whole: bool) {
        self.time_again(idx, screen, deadline, whole, "", false);
    }

    /// [`Self::time`], and with `again` also a candidate timed already (a playoff: its
    /// rounds at the sizes asked for added to those it has); `phase` starts its label.
    fn time_again(
        &mut self,
        idx: usize,
        screen: bool,
        deadline: Instant,
        whole: bool,
        phase: &str,
        again: bool,
    ) {
        let c = &self.candidates[idx];
        let label = format!("{phase}candidate {} ({})", idx + 1, c.describe());
        let file = self.dir.join(format!("candidate-{idx}.loopy"));
        let text = c.script.join("\n") + "\n";
        let make = |template: &Job| {
            std::fs::write(&file, &text)
                .ok()
                .map(|()| timing::job_like(template, Some(file.clone())))
        };
        let done = self.session.time(
            &mut self.candidates,
            idx,
            screen,
            deadline,
            again,
            &make,
            &label,
            &mut *self.on,
        );
        let _ = std::fs::remove_file(&file);
        if done == Attempt::OutOfTime && whole {
            self.out_of_time = true;
            let c = &mut self.candidates[idx];
            // A candidate screened but not timed at the sizes asked for says so, with its
            // screening speedup: the answer is chosen among those timed there.
            let screened = (!screen)
                .then(|| c.screen.as_ref().map(|m| m.speedup))
                .flatten();
            if c.timing.is_none() && (c.screen.is_none() || screened.is_some()) {
                let kept = if self.settings.finish > 0.0 {
                    format!(
                        " (the search's part of it: the last {:.0}% is kept to tune the \
                         answer's parameters, --finish)",
                        self.settings.finish.min(0.9) * 100.0
                    )
                } else {
                    String::new()
                };
                c.not_timed = Some(match screened {
                    Some(x) => format!(
                        "not timed at the sizes asked for (screened at {x:.2}x): it would not \
                         have ended before the time limit{kept}, judging by the timings so far"
                    ),
                    None => format!(
                        "not timed: it would not have ended before the time limit{kept}, \
                         judging by the timings so far"
                    ),
                });
            }
        }
    }

    /// The speedup the greedy phase compares: at the screening sizes when screening.
    fn speedup(&self, idx: usize) -> Option<f64> {
        self.session.speedup(&self.candidates[idx])
    }

    fn fits(&self, screen: bool, deadline: Instant) -> bool {
        self.session.fits(screen, deadline)
    }
}

/// Sets `flag` at `deadline` unless the returned sender is dropped first (then the thread
/// ends at once).
fn alarm(flag: Arc<AtomicBool>, deadline: Instant) -> mpsc::Sender<()> {
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let wait = deadline.saturating_duration_since(Instant::now());
        if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(wait) {
            flag.store(true, Ordering::Relaxed);
        }
    });
    tx
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
        let key = (kind, c.to_vec());
        if let Some(built) = memo.get(&key) {
            return built.clone();
        }
        let mut b = Built::empty(n, c.to_vec());
        let built = match kind {
            Kind::Bands => legal.build_group(c, &all, &mut b),
            Kind::Fused => legal.fuse_group(c, &all, &mut b),
            Kind::Recipe => return Err("a recipe is not built per class".to_string()),
        }
        .map(|()| b);
        // A class built after the work budget ran out holds placeholder answers (see
        // `presburger::budget`): the scope reports the refusal, and it is not kept.
        if !budget::spent() {
            memo.insert(key, built.clone());
        }
        built
    })
}

/// The changes the greedy phase tries on a schedule whose phase-1 variant is `v0`, each as a
/// variant differing from `v0` in one band: the tile sizes of each band (the bands with the
/// most work first), then the other loop orders that the cost model finds no worse than
/// `v0`'s, then `parallel` marks and tiles run as wavefronts, then the orders it finds worse
/// (cheapest first).
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
        // A band whose statements share its innermost loop is tried with that loop split
        // as well (each statement its own innermost loop), with each tile size and alone:
        // a stencil's fused sweeps are faster apart inside their tiles, but neither change
        // alone needs to be faster than the schedule it is tried on.
        let split = script::splittable(b, j) && !v0.split[j];
        if b.bands[j].len >= 2 {
            for &size in tile_sizes {
                let mut w = v0.clone();
                w.tile[j] = size;
                if split {
                    let mut both = w.clone();
                    both.split[j] = true;
                    tiles.push(both);
                }
                tiles.push(w);
            }
        }
        if split {
            let mut w = v0.clone();
            w.split[j] = true;
            tiles.push(w);
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
            w.wavefront[j] = false;
            marks.push(w);
            // Where the outermost loop carries a dependence (a stencil's time tiles), the
            // tiles as wavefronts: the verifier decides which of the two is legal.
            if b.bands[j].len >= 2 && !v0.wavefront[j] {
                let mut w = v0.clone();
                w.parallel[j] = false;
                w.wavefront[j] = true;
                if w.tile[j] == 0 {
                    w.tile[j] = tile_sizes.first().copied().unwrap_or(32);
                }
                marks.push(w);
            }
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

/// The `-D` macros screening scales alone, and by how much: those of the parameters that
/// only say how often loops run (`cost::time_params`), where they set some, so that the
/// caches see the same footprints at both sizes. They are scaled as much as scaling every
/// size would cut the work (`screen` to the power of the deepest nest's loops), but keep
/// at least the largest tile size tried (a time tile's worth of steps). `None`: every
/// integer size, by `screen`.
fn screen_only(kernel: &Kernel, settings: &SearchSettings) -> Option<ScreenOnly> {
    let names = cost::time_params(&kernel.scop);
    let defines = &settings.job.toolchain.defines;
    let least = (names.iter())
        .filter_map(|p| cost::macro_value(p, defines))
        .filter(|&v| v > 2)
        .min()?;
    let depth = kernel.scop.statements.iter().map(|st| st.iterators.len());
    let depth = depth.max().unwrap_or(1).clamp(1, 8) as i32;
    let tile = settings.tile_sizes.iter().copied().max().unwrap_or(32);
    let scale = (settings.screen.powi(depth))
        .max(f64::from(tile) / least as f64)
        .min(settings.screen);
    Some(ScreenOnly { names, scale })
}

/// The cost model at the sizes asked for and, when the search may screen, at the screening
/// sizes (scaling `only`, as the timing does).
fn models(
    kernel: &Kernel,
    legal: &Legal,
    settings: &SearchSettings,
    cancel: &Arc<AtomicBool>,
    only: Option<&ScreenOnly>,
) -> (Option<CostModel>, Option<CostModel>) {
    let defines = &settings.job.opts.defines;
    let at = |defines: &[String]| {
        budget::with_cancel(cancel.clone(), || {
            CostModel::new(&kernel.scop, &legal.layout.dirs, settings.budget, defines)
                .with_caches(settings.caches)
                .with_weights(settings.weights.0)
                .with_dependences(legal)
                .with_threads(match settings.parallel {
                    true => settings.job.threads.first().copied().unwrap_or(1),
                    false => 1,
                })
        })
    };
    let screened = (settings.bench)
        .then(|| match only {
            Some(o) => crate::timing::scaled_defines(defines, o.scale, Some(&o.names)),
            None => crate::timing::scaled_defines(defines, settings.screen, None),
        })
        .flatten();
    (Some(at(defines)), screened.map(|d| at(&d)))
}

/// The search: interleavings, schedules, candidates; timed when `settings.bench`.
/// `Err` when the integer core runs out of budget computing the dependences or building the
/// space (the time limit running out is not an error: the report says so).
pub fn search(
    kernel: &Kernel,
    settings: &SearchSettings,
    on: &mut dyn FnMut(Event),
) -> Result<SearchReport, Exhausted> {
    search_with(kernel, settings, &mut Bench, on)
}

/// [`search`] with the timer given (a fake one in tests).
pub fn search_with(
    kernel: &Kernel,
    settings: &SearchSettings,
    timer: &mut dyn Timer,
    on: &mut dyn FnMut(Event),
) -> Result<SearchReport, Exhausted> {
    let start = Instant::now();
    // The time limit counts from the start: building and checking the schedules are part of
    // it. At the limit the integer core stops at its next step (`budget::with_cancel`). With
    // timing, the last `finish` share of it is kept to tune the answer's sizes.
    let limit = settings.time_limit.max(0.0);
    let share = if settings.bench {
        settings.finish.clamp(0.0, 0.9)
    } else {
        0.0
    };
    let search_limit = limit * (1.0 - share);
    let full_end = start + Duration::from_secs_f64(limit);
    let end = start + Duration::from_secs_f64(search_limit);
    let cancel = Arc::new(AtomicBool::new(false));
    let _alarm = alarm(cancel.clone(), end);
    let limited = |f: &mut dyn FnMut()| {
        budget::with_cancel(cancel.clone(), || budget::with_budget(settings.budget, f))
    };
    let run = budget::with_budget(settings.budget, || {
        let mut run = Run::start(kernel);
        if !settings.prefix.is_empty() {
            // Checked by the caller; a refusal here leaves the kernel's own program.
            let text = settings.prefix.join("\n") + "\n";
            let _ = run.apply(kernel, &text, "prefix.loopy", Path::new("."));
        }
        run
    })?;
    let names = names(kernel);
    on(Event::Status("building the legal-schedule space"));
    let (legal, il, mut out_of_time) = build_space(&run, &names, settings, &limited)?;
    let schedules = match &legal {
        Some(legal) => build_schedules(legal, &il, settings, &cancel, end, on, &mut out_of_time),
        None => vec![],
    };
    let found = recognise_recipes(kernel, &run, &names, &limited);
    let build_seconds = start.elapsed().as_secs_f64();
    let screen_only = screen_only(kernel, settings);
    // The timing's phases share the search's time, not the part kept for finishing.
    let limits = Limits {
        time_limit: search_limit,
        screen: settings.screen,
        screen_only: screen_only.clone(),
        screen_above: settings.screen_above,
        finalists: settings.finalists,
    };
    // One folder per search, also where a process runs several at once (tests do).
    static SEARCHES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEARCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("loopy-search-{}-{n}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let mut s = State {
        kernel,
        run,
        names,
        settings,
        session: Session::new(&settings.job, limits, start, timer),
        candidates: vec![],
        seen: HashMap::new(),
        dir: dir.clone(),
        on,
        cancel: cancel.clone(),
        end,
        unchecked: 0,
        out_of_time: false,
        model: None,
        screen_model: None,
        hoisted: vec![],
        beam: None,
    };
    (s.model, s.screen_model) = match &legal {
        Some(legal) => models(kernel, legal, settings, &cancel, screen_only.as_ref()),
        None => (None, None),
    };
    let depth = kernel.scop.statements.iter().map(|st| st.iterators.len());
    s.session.expect_growth(depth.max().unwrap_or(1));
    let Phases {
        identity,
        screen_defines,
        first_by_cost,
        playoff,
    } = s.phases(&found, &schedules, il.list.len(), il.own);
    let best = playoff
        .first()
        .copied()
        .or_else(|| timing::best(&s.candidates));
    if out_of_time.is_none() && s.unchecked > 0 {
        out_of_time = Some("checking");
    }
    if out_of_time.is_none() && s.out_of_time {
        out_of_time = Some("timing");
    }
    let ranking = ranking(&s.candidates);
    let screen_ranking = screen_ranking(&s.candidates);
    let beam = s.beam_report(&schedules);
    let (candidates, unchecked) = (std::mem::take(&mut s.candidates), s.unchecked);
    drop(s);
    // The answer's sizes, tuned in the time kept for them (the session's timer is free
    // again).
    let finished = (share > 0.0).then(|| {
        on(Event::Status("tuning the answer's parameters"));
        let seconds = full_end
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        finish_answer(
            settings,
            &candidates,
            (best, identity),
            &dir,
            seconds,
            timer,
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    // A candidate tuned when the kernel as it is had won is the answer only now, its tuned
    // values faster than the original (`finish_answer`).
    let best = match &finished {
        Some(Ok(f)) => Some(f.candidate),
        _ => best,
    };
    Ok(SearchReport {
        interleavings: il,
        build_seconds,
        schedules,
        ranking,
        screen_ranking,
        finished,
        candidates,
        best,
        screen_defines,
        first_by_cost,
        identity,
        out_of_time,
        unchecked,
        playoff,
        beam,
    })
}

/// What the search's phases leave: the kernel as it is (its candidate), the screening
/// sizes, the candidate ranked first without timing (`--no-bench`), the playoff.
struct Phases {
    identity: usize,
    screen_defines: Option<Vec<String>>,
    first_by_cost: Option<usize>,
    playoff: Vec<usize>,
}

/// The share of the time left when timing starts that is kept for the playoff.
const PLAYOFF_SHARE: f64 = 0.15;

/// The contractions, for the BLIS recipe, and the updates the register-block recipe takes
/// among the others, recognised on the kernel as it is under the time limit (none when it
/// ran out: what was found then would be placeholders).
fn recognise_recipes(kernel: &Kernel, run: &Run, names: &Names, limited: Limited) -> Found {
    let mut found = Found::default();
    let (scop, program, deps) = (&kernel.scop, &run.program, &run.deps);
    let recognise = &mut || {
        let c = recipe::contractions(scop, program, deps);
        let b = blocks::blocks(scop, program, deps, names, &c);
        let expanded: Vec<String> = (run.interp.state.expansions.iter())
            .map(|e| e.array.clone())
            .collect();
        let r = rows::rows(scop, names, &expanded);
        found = Found {
            blis: c,
            blocks: b,
            rows: r,
            splits: split::splits(scop),
            jams: jam::jams(scop, names),
            trijams: trijam::trijams(scop, names),
            hoists: hoist::hoists(&run.interp.state, program, deps),
        };
    };
    if limited(recognise).is_err() {
        return Found::default();
    }
    found
}

/// What each recipe recognised on the kernel.
#[derive(Default)]
struct Found {
    blis: Vec<Recognised>,
    blocks: Vec<blocks::Found>,
    rows: Vec<rows::Found>,
    splits: Vec<split::Split>,
    jams: Vec<jam::Found>,
    trijams: Vec<trijam::Found>,
    hoists: Vec<hoist::Hoist>,
}

/// The answer's `param` lines tuned in `seconds` ([`finish::finish`]), or why not: nothing
/// was timed, or no candidate with parameters was.
///
/// When no candidate ran faster than the original (the kernel as it is won), the fastest
/// other one that declares a parameter is tuned instead ([`to_rescue`]), and its tuned values
/// are the answer only when they ran faster than the original: a recipe's blocks can lose at
/// the search's values and win at others (cholesky-pb at `N=2000`, `loopy bench`, 3 rounds:
/// its hoisting recipe's blocks of 32 at 0.97x to 1.12x, of 128 at 1.46x).
fn finish_answer(
    settings: &SearchSettings,
    candidates: &[Candidate],
    (best, identity): (Option<usize>, usize),
    dir: &Path,
    seconds: f64,
    timer: &mut dyn Timer,
) -> finish::Outcome {
    let b = best.ok_or("nothing was timed")?;
    let cand = &candidates[b];
    let won = b != identity
        && cand
            .timing
            .or(cand.screen)
            .is_some_and(|t| t.speedup >= 1.0);
    if won {
        cand.timing
            .ok_or("the answer was timed only at the screening sizes")?;
        let script = &cand.script;
        return finish::finish(
            &settings.job,
            (b, script),
            dir,
            seconds,
            settings.budget,
            timer,
        );
    }
    let Some(r) = to_rescue(candidates, identity) else {
        return Err(
            "the kernel as it is is the answer, and no other candidate timed has a parameter"
                .to_string(),
        );
    };
    let script = &candidates[r].script;
    let mut f = finish::finish(
        &settings.job,
        (r, script),
        dir,
        seconds,
        settings.budget,
        timer,
    )
    .map_err(|why| {
        format!(
            "the kernel as it is is the answer; candidate {}'s parameters tuned: {why}",
            r + 1
        )
    })?;
    if f.tuned.speedup <= 1.0 {
        return Err(format!(
            "the kernel as it is is the answer; candidate {}'s parameters tuned ran at {:.2}x",
            r + 1,
            f.tuned.speedup
        ));
    }
    f.rescued = true;
    Ok(f)
}

/// The candidate to tune when no candidate beat the original: the fastest legal one other
/// than the kernel as it is that declares a `param`, by its speedup at the sizes asked for
/// where it was timed there, else at the screening sizes; the first of equals.
fn to_rescue(candidates: &[Candidate], identity: usize) -> Option<usize> {
    let speedup = |c: &Candidate| c.timing.or(c.screen).map(|t| t.speedup);
    let tunable = |c: &Candidate| {
        c.verdict == Verdict::Legal
            && c.script
                .iter()
                .any(|l| l.trim_start().starts_with("param "))
    };
    (0..candidates.len())
        .filter(|&k| k != identity && tunable(&candidates[k]))
        .filter_map(|k| speedup(&candidates[k]).map(|x| (k, x)))
        .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)))
        .map(|(k, _)| k)
}

/// Both schedules (bands, fused) of every interleaving the space lists, each built under the
/// time limit; one not built says why. `out_of_time` is set when the limit stopped one.
fn build_schedules(
    legal: &Legal,
    il: &Outer,
    settings: &SearchSettings,
    cancel: &Arc<AtomicBool>,
    end: Instant,
    on: &mut dyn FnMut(Event),
    out_of_time: &mut Option<&'static str>,
) -> Vec<InterleavingSchedule> {
    let limited = |f: &mut dyn FnMut()| {
        budget::with_cancel(cancel.clone(), || budget::with_budget(settings.budget, f))
    };
    let mut schedules = vec![];
    let mut memo = Classes::default();
    for (k, c) in il.list.iter().enumerate() {
        for kind in [Kind::Bands, Kind::Fused] {
            let late = || Instant::now() >= end || cancel.load(Ordering::Relaxed);
            let built = if late() {
                *out_of_time = Some("building");
                Err("not built: the time limit ran out first".to_string())
            } else {
                on(Event::Status(&format!(
                    "building the {} schedule of interleaving {}/{}",
                    kind.name(),
                    k + 1,
                    il.list.len()
                )));
                let mut b = None;
                match limited(&mut || b = Some(build(legal, c, kind, &mut memo))) {
                    Ok(()) => b.expect("built"),
                    Err(e) if e.cancelled => {
                        *out_of_time = Some("building");
                        Err("not built: the time limit ran out while building it".to_string())
                    }
                    Err(e) => Err(e.to_string()),
                }
            };
            schedules.push(InterleavingSchedule {
                interleaving: k,
                kind,
                built,
            });
        }
    }
    schedules
}

/// A schedule (index into the schedules), a variant of it, and the cost that ordered it
/// (the innermost strides of [`CostModel::cost`], or the beam's estimate).
type Representative = (usize, Variant, f64);

impl State<'_, '_, '_> {
    /// The beam's compositions ([`beam::search`] from the representatives), then the
    /// representatives that are none of them; and how many come from the beam.
    fn beam_first(
        &mut self,
        model: &CostModel,
        schedules: &[InterleavingSchedule],
        reps: Vec<Representative>,
    ) -> (Vec<Representative>, usize) {
        (self.on)(Event::Status(
            "composing band orders, tiles and splits (beam search)",
        ));
        let starts: Vec<beam::Start> = (reps.iter())
            .filter_map(|(k, v, _)| {
                let b = schedules[*k].built.as_ref().ok()?;
                Some(beam::Start {
                    schedule: *k,
                    built: b,
                    variant: v.clone(),
                })
            })
            .collect();
        let settings = beam::Settings {
            width: self.settings.beam,
            per_schedule: 2,
            tile_sizes: &self.settings.tile_sizes,
            max_estimates: BEAM_ESTIMATES,
        };
        let (end, cancel) = (self.end, self.cancel.clone());
        let late = move || Instant::now() >= end || cancel.load(Ordering::Relaxed);
        let found = beam::search(model, &starts, &settings, &late);
        let mut out: Vec<Representative> = (found.beam.iter())
            .map(|c| (c.schedule, c.variant.clone(), c.estimate))
            .collect();
        let beamed = out.len();
        let descriptions = (found.beam.iter())
            .map(|c| {
                let b = schedules[c.schedule].built.as_ref().expect("built");
                c.variant.describe(b, &self.names)
            })
            .collect();
        for r in reps {
            if !out[..beamed].iter().any(|x| x.0 == r.0 && x.1 == r.1) {
                out.push(r);
            }
        }
        self.beam = Some((found, descriptions));
        (out, beamed)
    }

    /// The first of `reps` whose candidate is legal (each checked in turn); `None` when
    /// none is, or the time limit stopped a check.
    fn first_legal(
        &mut self,
        schedules: &[InterleavingSchedule],
        reps: &[Representative],
    ) -> Option<usize> {
        for (k, v, _) in reps {
            let sc = &schedules[*k];
            let Ok(b) = sc.built.as_ref() else { continue };
            let c = self.add(sc.interleaving, sc.kind, b, v)?;
            if self.candidates[c].verdict == Verdict::Legal {
                return Some(c);
            }
        }
        None
    }

    /// The beam's compositions with the candidates they became (by their scripts).
    fn beam_report(&self, schedules: &[InterleavingSchedule]) -> Option<BeamReport> {
        let (found, descriptions) = self.beam.as_ref()?;
        let kept = (found.beam.iter().zip(descriptions))
            .map(|(c, d)| {
                let b = schedules[c.schedule].built.as_ref().expect("built");
                let candidate = (script::write(b, &c.variant, &self.names).ok())
                    .map(|lines| self.whole_script(lines).join("\n") + "\n")
                    .and_then(|t| self.seen.get(&t).copied());
                BeamEntry {
                    schedule: c.schedule,
                    variant: d.clone(),
                    estimate: c.estimate,
                    candidate,
                }
            })
            .collect();
        Some(BeamReport {
            width: self.settings.beam,
            estimated: found.estimated,
            cut: found.cut,
            kept,
        })
    }
}

/// The beam estimates at most this many compositions (each well under a millisecond).
const BEAM_ESTIMATES: usize = 200_000;

impl State<'_, '_, '_> {
    /// One legal schedule per loop structure (each band in its statically cheapest order),
    /// cheapest first, ties in enumeration order: what phase 1 times.
    fn representatives(
        &self,
        model: &CostModel,
        schedules: &[InterleavingSchedule],
        base: &[Option<usize>],
    ) -> Vec<Representative> {
        let mut reps: Vec<Representative> = vec![];
        let mut keys = std::collections::HashSet::new();
        for (k, sc) in schedules.iter().enumerate() {
            let (Ok(b), Some(c)) = (&sc.built, base[k]) else {
                continue;
            };
            if !matches!(self.candidates[c].verdict, Verdict::Legal) {
                continue;
            }
            let v = model.best_orders(b);
            if keys.insert(cost::nest_key(b, &v)) {
                let cost = model.cost(b, &v);
                reps.push((k, v, cost));
            }
        }
        reps.sort_by(|x, y| x.2.total_cmp(&y.2).then(x.0.cmp(&y.0)));
        reps
    }

    /// The candidates and their timing: the recipes (checked before the schedules, a few
    /// candidates the time limit must not leave out; the legal ones timed first), every
    /// schedule as built, the kernel as it is (always a candidate); then with timing phase 1
    /// (one schedule per loop structure, cheapest first), the greedy changes and the
    /// finalists, without it the ranking. Returns the kernel as it is, the screening sizes and
    /// the first by cost.
    fn phases(
        &mut self,
        found: &Found,
        schedules: &[InterleavingSchedule],
        interleavings: usize,
        own: Option<usize>,
    ) -> Phases {
        let bench = self.settings.bench;
        let recipes = self.add_recipes(found);
        let own_marks = self.add_own_marks();
        let base = self.add_schedules(schedules, interleavings);
        let identity = self.add_identity(own);
        if let Some(m) = &self.model {
            if self.candidates[identity].parts.is_none() {
                let parts = m.own_parts(&self.names);
                self.estimated(identity, parts);
            }
        }
        if let Some(m) = &self.screen_model {
            let e = &mut self.candidates[identity].screen_estimate;
            *e = e.or_else(|| Some(m.weigh(&m.own_parts(&self.names))));
        }
        let model = self.model.clone();
        let reps = match &model {
            Some(model) => self.representatives(model, schedules, &base),
            None => vec![],
        };
        let (reps, beamed) = match &model {
            Some(model) if self.settings.beam > 0 => self.beam_first(model, schedules, reps),
            _ => (reps, 0),
        };
        if !bench {
            let first = self.rank_without_timing(
                schedules,
                (&reps, beamed),
                &recipes,
                &base,
                (identity, own),
            );
            return Phases {
                identity,
                screen_defines: None,
                first_by_cost: Some(first),
                playoff: vec![],
            };
        }
        if self.session.screening() {
            self.settle_screening(schedules, &reps, identity);
        }
        let screen_defines = self.session.screen_defines().cloned();
        let screening = self.session.screening();
        // The playoff's share of the time left is kept for it; of the rest, with screening,
        // the screening phase has 60% and the finalists the remainder.
        let now = Instant::now();
        let kept = match self.settings.playoff {
            0 => Duration::ZERO,
            _ => self
                .end
                .saturating_duration_since(now)
                .mul_f64(PLAYOFF_SHARE),
        };
        let main_end = self.end - kept;
        let greedy_end = self.session.phase_end().min(main_end);
        // Phase 1 until a third of the greedy time left has gone (at least one is timed).
        let now = Instant::now();
        let phase1_end = now + greedy_end.saturating_duration_since(now) / 3;
        let timed_first: Vec<usize> = recipes.iter().copied().chain(own_marks).collect();
        let timed = self.time_representatives(
            schedules,
            &reps,
            &timed_first,
            identity,
            screening,
            (phase1_end, greedy_end),
        );
        if let Some(model) = &model {
            self.improve(model, schedules, &timed, screening, greedy_end);
        }
        // Phase 3 (screening only): the best few screened candidates at the sizes asked for.
        if screening {
            for c in self.session.finalists(&self.candidates) {
                self.time(c, false, main_end, true);
            }
        }
        let playoff = self.playoff(identity);
        Phases {
            identity,
            screen_defines,
            first_by_cost: None,
            playoff,
        }
    }

    /// Phase 4, the playoff ([`timing::entrants`]): the best `finalists` candidates timed
    /// at the sizes asked for and the kernel as it is (the original against its own
    /// regenerated loops: what the spread alone gives) timed `playoff` times more each, in
    /// turn, until the time limit. Returns them, fastest first on all their rounds (none
    /// when there was no playoff).
    fn playoff(&mut self, identity: usize) -> Vec<usize> {
        let rounds = self.settings.playoff;
        let mut entrants = match rounds {
            0 => vec![],
            _ => timing::entrants(&self.candidates, self.settings.finalists),
        };
        if entrants.is_empty() {
            return vec![];
        }
        if !entrants.contains(&identity) {
            self.time(identity, false, self.end, true);
            if self.candidates[identity].timing.is_some() {
                entrants.push(identity);
            }
        }
        for round in 0..rounds {
            for &c in &entrants {
                let phase = format!("playoff {}/{rounds}, ", round + 1);
                // A round that does not fit leaves no candidate untimed: not `whole`.
                self.time_again(c, false, self.end, false, &phase, true);
            }
        }
        timing::standing(&self.candidates, entrants)
    }

    /// Phase 1: the recipes at the sizes asked for, then the representatives (the beam's
    /// compositions first, [`Self::beam_first`]), best first,
    /// until a third of the greedy time left has gone (`phase1_end`; at least one is
    /// timed, by `greedy_end`); the kernel as it is when nothing else was. The schedules
    /// timed, with their variants and candidates.
    fn time_representatives(
        &mut self,
        schedules: &[InterleavingSchedule],
        reps: &[Representative],
        recipes: &[usize],
        identity: usize,
        screening: bool,
        (phase1_end, greedy_end): (Instant, Instant),
    ) -> Vec<(usize, Variant, usize)> {
        let mut timed: Vec<(usize, Variant, usize)> = vec![];
        // At the sizes asked for, even when screening: the answer is chosen among the
        // candidates timed there, and a screened recipe could lose to any of them. When
        // screening and one would not end in time there (cholesky-pb at LARGE: its
        // program's own set-up takes longer than the kernel), it is screened instead and
        // competes for the finalists' places like the schedules.
        for &c in recipes {
            let full = !screening || self.fits(false, greedy_end);
            self.time(c, !full, greedy_end, true);
        }
        for (k, v, _) in reps {
            let sc = &schedules[*k];
            let b = sc.built.as_ref().expect("built");
            let Some(c) = self.add(sc.interleaving, sc.kind, b, v) else {
                break;
            };
            let (deadline, whole) = if timed.is_empty() {
                (greedy_end, true)
            } else {
                (phase1_end, false)
            };
            self.time(c, screening, deadline, whole);
            if self.speedup(c).is_some() {
                timed.push((*k, v.clone(), c));
            }
            if !self.fits(screening, phase1_end) && !timed.is_empty() {
                break;
            }
        }
        // Nothing to time, or nothing timed: the kernel as it is (the original against
        // its own regenerated loops).
        if timed.is_empty() {
            self.time(identity, screening, greedy_end, true);
        }
        timed
    }

    /// Without timing: the tiled variant of each schedule as well (and split), checked;
    /// and the search's own ranking: the first legal recipe other than hoisting, else the
    /// beam's first legal composition (without a beam, or none legal:
    /// [`Self::schedule_without_timing`]) unless the model finds it no cheaper than the
    /// kernel's own loops and a hoisting recipe is legal, or the kernel as it is no dearer
    /// (which wins ties); else the kernel as it is.
    fn rank_without_timing(
        &mut self,
        schedules: &[InterleavingSchedule],
        (reps, beamed): (&[Representative], usize),
        recipes: &[usize],
        base: &[Option<usize>],
        (identity, own): (usize, Option<usize>),
    ) -> usize {
        let tile_start = self.settings.tile_start;
        let tiled = |b: &Built, v: &mut Variant| {
            for (j, band) in b.bands.iter().enumerate() {
                if band.len >= 2 {
                    v.tile[j] = tile_start;
                }
            }
        };
        for sc in schedules {
            let Ok(b) = &sc.built else { continue };
            if b.bands.iter().any(|x| x.len >= 2) {
                let mut v = Variant::plain(b);
                tiled(b, &mut v);
                self.add(sc.interleaving, sc.kind, b, &v);
                // And the same with the innermost loop of every band that can be split.
                let split: Vec<bool> = (0..b.bands.len())
                    .map(|j| script::splittable(b, j))
                    .collect();
                if split.contains(&true) {
                    v.split = split;
                    self.add(sc.interleaving, sc.kind, b, &v);
                }
            }
        }
        // The hoisting recipe blocks what tiling cannot reach: it is the answer only where
        // the model finds the schedule no cheaper than the kernel's own loops.
        let (hoists, others): (Vec<usize>, Vec<usize>) =
            recipes.iter().partition(|c| self.hoisted.contains(c));
        if let Some(&c) = others.first() {
            return c;
        }
        let chosen = match self.first_legal(schedules, &reps[..beamed]) {
            Some(c) => Some(c),
            None => self.schedule_without_timing(schedules, &reps[beamed..], base, tiled),
        };
        match (hoists.first(), chosen) {
            (Some(&h), Some(c)) if !self.cheaper_than_own(c, schedules, base, (identity, own)) => h,
            (Some(&h), None) => h,
            (_, Some(c)) if self.estimated_at_most(identity, c) => identity,
            (_, c) => c.unwrap_or(identity),
        }
    }

    /// Whether candidate `a` has an estimate no higher than candidate `b`'s (both
    /// estimated): the kernel as it is wins ties.
    fn estimated_at_most(&self, a: usize, b: usize) -> bool {
        match (self.candidates[a].estimate, self.candidates[b].estimate) {
            (Some(x), Some(y)) => x <= y,
            _ => false,
        }
    }

    /// Whether candidate `c` is estimated at most 0.9 of the kernel's own loops (the
    /// schedule as built whose script is the kernel as it is, else the fused kind on the
    /// kernel's own interleaving `own`); `false` when either has no estimate.
    fn cheaper_than_own(
        &self,
        c: usize,
        schedules: &[InterleavingSchedule],
        base: &[Option<usize>],
        (identity, own): (usize, Option<usize>),
    ) -> bool {
        // The schedule that is the kernel as it is, else the kernel's own loop order
        // (the fused kind) on its own interleaving.
        let fused_own = |k: &usize| {
            own.is_some_and(|o| {
                schedules[*k].interleaving == o && schedules[*k].kind == Kind::Fused
            })
        };
        let own = (base.iter().position(|&x| x == Some(identity)))
            .or_else(|| (0..schedules.len()).find(fused_own))
            .and_then(|k| schedules[k].built.as_ref().ok())
            .zip(self.model.as_ref())
            .map(|(b, m)| m.estimate(b, &Variant::plain(b)));
        match (self.candidates[c].estimate, own) {
            (Some(e), Some(o)) => e <= 0.9 * o,
            _ => false,
        }
    }

    /// The schedule `--no-bench` answers with: the model's first, tiled and split where
    /// the model finds the tiles cheaper (`tiled` sets a variant's tiles); `None` without
    /// one that is legal.
    fn schedule_without_timing(
        &mut self,
        schedules: &[InterleavingSchedule],
        reps: &[Representative],
        base: &[Option<usize>],
        tiled: impl Fn(&Built, &mut Variant),
    ) -> Option<usize> {
        match reps.first() {
            Some((k, v, _)) => {
                let sc = &schedules[*k];
                let b = sc.built.as_ref().expect("built");
                let plain = v.clone();
                let mut v = v.clone();
                tiled(b, &mut v);
                // The tile size the model finds cheapest (the first size on ties), and its
                // estimate.
                let tiled_cost = self.model.as_ref().map(|m| {
                    let mut best = m.estimate(b, &v);
                    for &size in &self.settings.tile_sizes {
                        let mut w = v.clone();
                        for t in w.tile.iter_mut().filter(|t| **t > 0) {
                            *t = size;
                        }
                        let e = m.estimate(b, &w);
                        if e < best {
                            (best, v) = (e, w);
                        }
                    }
                    best
                });
                // Its innermost loops split where they can be and that is legal (a
                // stencil's fused sweeps: docs/search.md), else as it is; tiled only where
                // the model finds the tiles cheaper (a stencil whose data fits in the
                // caches gains nothing from them).
                let mut split = v.clone();
                for (j, s) in split.split.iter_mut().enumerate() {
                    *s = v.tile[j] > 0 && script::splittable(b, j);
                }
                let cheaper = (self.model.as_ref().zip(tiled_cost))
                    .is_none_or(|(m, cost)| cost < m.estimate(b, &plain));
                let tries = match cheaper {
                    true => vec![split, v],
                    false => vec![plain],
                };
                let mut first = None;
                for w in &tries {
                    if first.is_none() {
                        first = (self.add(sc.interleaving, sc.kind, b, w))
                            .filter(|&c| self.candidates[c].verdict == Verdict::Legal);
                    }
                }
                first.or(base[*k])
            }
            None => None,
        }
    }

    /// Phase 2: from the fastest schedule, one change at a time, kept when faster; when
    /// time is left, the same from the next fastest schedule, and so on.
    fn improve(
        &mut self,
        model: &CostModel,
        schedules: &[InterleavingSchedule],
        timed: &[(usize, Variant, usize)],
        screening: bool,
        greedy_end: Instant,
    ) {
        // Phase 2: from the fastest schedule, one change at a time, kept when faster.
        // When time is left, the same from the next fastest schedule, and so on.
        let mut bases: Vec<(usize, Variant, f64)> = timed
            .iter()
            .filter_map(|(k, v, c)| self.speedup(*c).map(|x| (*k, v.clone(), x)))
            .collect();
        bases.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)));
        'bases: for (k, v0, mut best) in bases {
            if !self.fits(screening, greedy_end) {
                self.out_of_time = true;
                break;
            }
            let sc = &schedules[k];
            let b = sc.built.as_ref().expect("timed, so built");
            let mut v = v0.clone();
            for ch in changes(
                model,
                b,
                &v0,
                &self.settings.tile_sizes,
                self.settings.parallel,
            ) {
                if !self.fits(screening, greedy_end) {
                    self.out_of_time = true;
                    break 'bases;
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
                    if (ch.parallel[j], ch.wavefront[j]) != (v0.parallel[j], v0.wavefront[j]) {
                        w.parallel[j] = ch.parallel[j];
                        w.wavefront[j] = ch.wavefront[j];
                    }
                    if ch.split[j] != v0.split[j] {
                        w.split[j] = ch.split[j];
                    }
                }
                if w == v {
                    continue;
                }
                let Some(c) = self.add(sc.interleaving, sc.kind, b, &w) else {
                    break 'bases;
                };
                self.time(c, screening, greedy_end, true);
                if let Some(x) = self.speedup(c).filter(|&x| x > best) {
                    best = x;
                    v = w;
                }
            }
        }
    }
}

/// Runs its argument under the work budget and the time limit.
type Limited<'a> = &'a dyn Fn(&mut dyn FnMut()) -> Result<(), Exhausted>;

/// The legal-schedule space and its outer interleavings, under the time limit
/// (`limited`): none when the limit stopped building them, with "building" as what it cut
/// short. `Err` when the integer core ran out of budget.
fn build_space(
    run: &Run,
    names: &Names,
    settings: &SearchSettings,
    limited: Limited,
) -> Result<(Option<Legal>, Outer, Option<&'static str>), Exhausted> {
    let mut space = None;
    let built = limited(&mut || {
        let legal = Legal::new(&run.program, &run.deps);
        let own = own_interleaving(names, &legal.layout.iters);
        let il = Outer::new(&legal, settings.max_interleavings, &own);
        space = Some((legal, il));
    });
    let mut out_of_time: Option<&'static str> = None;
    match built {
        Ok(()) => {}
        Err(e) if e.cancelled => out_of_time = Some("building"),
        Err(e) => return Err(e),
    }
    Ok(match space {
        Some((legal, il)) => (Some(legal), il, out_of_time),
        None => (
            None,
            Outer {
                count: 0,
                exact: false,
                list: vec![],
                ranks: vec![],
                own: None,
                tests: 0,
            },
            out_of_time,
        ),
    })
}

impl State<'_, '_, '_> {
    /// Screening only pays when the program is slow. The first schedule to time (the first
    /// legal of the beam's compositions and the representatives, else the kernel as it is)
    /// is timed at the screening sizes;
    /// when the original took `screen_above` seconds or more there, screening stays.
    /// Otherwise it is timed at the sizes given too, and when the original takes less than
    /// `screen_above` seconds there, everything is timed at those sizes (small sizes would
    /// only measure noise) and its screening time is dropped.
    fn settle_screening(
        &mut self,
        schedules: &[InterleavingSchedule],
        reps: &[Representative],
        identity: usize,
    ) {
        // The first legal one (a composition of the beam may be refused by the checker),
        // else the kernel as it is.
        let c = self.first_legal(schedules, reps).unwrap_or(identity);
        self.time(c, true, self.end, true);
        if self
            .session
            .screening_pays(self.candidates[c].screen.as_ref())
        {
            return;
        }
        self.time(c, false, self.end, true);
        self.session.settle_screening(&mut self.candidates[c]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A measurement at `x` times the original's speed.
    fn measured(x: f64) -> Measured {
        Measured {
            original: 1.0,
            transformed: 1.0 / x,
            speedup: x,
            gflops: None,
            rounds: 1,
        }
    }

    /// A legal schedule candidate with an estimate and speedups at full and screening size.
    fn candidate(estimate: Option<f64>, timing: Option<f64>, screen: Option<f64>) -> Candidate {
        Candidate {
            interleaving: Some(0),
            kind: Some(Kind::Bands),
            variant: String::new(),
            script: vec![],
            verdict: Verdict::Legal,
            screen: screen.map(measured),
            timing: timing.map(measured),
            not_timed: None,
            estimate,
            parts: None,
            screen_estimate: None,
        }
    }

    /// The fastest candidate is the answer only when it beats the original.
    #[test]
    fn the_original_wins_when_every_candidate_is_slower() {
        let cand = |timing: Option<f64>, screen: Option<f64>| candidate(None, timing, screen);
        let report = |candidates: Vec<Candidate>, best: Option<usize>| SearchReport {
            interleavings: Outer {
                count: 1,
                exact: true,
                list: vec![],
                ranks: vec![],
                own: None,
                tests: 0,
            },
            build_seconds: 0.0,
            schedules: vec![],
            candidates,
            best,
            screen_defines: None,
            first_by_cost: None,
            identity: 0,
            out_of_time: None,
            unchecked: 0,
            ranking: None,
            screen_ranking: None,
            finished: None,
            playoff: vec![],
            beam: None,
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

    /// The model's ranking is over the candidates with an estimate timed at the sizes asked
    /// for: the recipe (no estimate) and the screened-only candidate are left out; an order
    /// the model gets exactly right is 1, fewer than three candidates give none.
    #[test]
    fn the_ranking_is_over_estimated_candidates_timed_at_full_size() {
        let cand = candidate;
        // Lower estimates ran faster: a perfect ranking.
        let cs = vec![
            cand(Some(1.0), Some(4.0), None),
            cand(Some(2.0), Some(2.0), None),
            cand(None, Some(9.0), None),
            cand(Some(3.0), Some(1.5), None),
            cand(Some(0.5), None, Some(0.1)),
        ];
        assert_eq!(ranking(&cs), Some(Ranking { rho: 1.0, over: 3 }));
        // The reverse order.
        let cs = vec![
            cand(Some(3.0), Some(4.0), None),
            cand(Some(2.0), Some(2.0), None),
            cand(Some(1.0), Some(1.5), None),
        ];
        assert_eq!(ranking(&cs), Some(Ranking { rho: -1.0, over: 3 }));
        assert_eq!(ranking(&cs[..2]), None);
    }

    /// The screened ranking is over the candidates timed only at the screening sizes, with
    /// their estimates at those sizes: a finalist (timed at full size too) is left out.
    #[test]
    fn the_screened_ranking_is_over_candidates_timed_only_when_screening() {
        let screened = |estimate: f64, speedup: f64, finalist: bool| Candidate {
            screen_estimate: Some(estimate),
            ..candidate(Some(1.0), finalist.then_some(2.0), Some(speedup))
        };
        let cs = vec![
            screened(1.0, 3.0, false),
            screened(2.0, 2.0, false),
            screened(9.0, 9.0, true),
            screened(3.0, 1.0, false),
        ];
        assert_eq!(screen_ranking(&cs), Some(Ranking { rho: 1.0, over: 3 }));
        assert_eq!(ranking(&cs), None);
        assert_eq!(screen_ranking(&cs[..2]), None);
    }

    #[test]
    fn loop_orders_of_a_band() {
        // The reduction loop in the middle first, then every other order.
        assert_eq!(
            cost::band_orders(3),
            vec![
                vec![0, 2, 1],
                vec![1, 0, 2],
                vec![1, 2, 0],
                vec![2, 0, 1],
                vec![2, 1, 0]
            ]
        );
        assert_eq!(cost::band_orders(2), vec![vec![1, 0]]);
        assert_eq!(cost::band_orders(4).len(), 23);
        assert_eq!(cost::band_orders(5).len(), 3);
        assert!(cost::band_orders(1).is_empty());
    }
}
