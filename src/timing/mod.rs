//! The timing loop of `loopy search` and `loopy tune`: many candidate scripts of one kernel,
//! each timed against the original by the bench loop ([`bench_one`]: verify, generate,
//! build both programs, compare their outputs, time them interleaved), under one time limit.
//!
//! What is shared lives here, once: what became of a candidate ([`Verdict`], with the reason
//! a build or a run failed), one timing ([`Measured`]), the screening at smaller sizes
//! ([`scaled_defines`]; a [`Session`] decides from the first timing whether screening pays),
//! the deadlines (no timing starts that would not end before its phase's deadline, judging by
//! the longest timing at the same sizes so far, or before the first at the sizes given, by
//! the longest screening one grown by the work's scale; screening has 60% of the limit), the
//! finalists timed again at the sizes given, the choice of the best, and the progress
//! events ([`Event`]). The commands decide *what* to time and in which order; a
//! [`Session`] times it.
//!
//! Dependencies point one way: `search` and `tune` use this module, this module uses
//! `bench` (the job and its outcome) and `native`; nothing below imports it.

use crate::bench::{bench_one, Job, Outcome, Progress};
use crate::diag::Report;
use crate::native::{Difference, Stream, Timing};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What became of a candidate script of `loopy tune` or `loopy search`.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Verified (then timed, unless the command only checks).
    Legal,
    /// The checker found a broken dependence.
    Illegal(String),
    /// The script was refused (by its parameters' values, for `tune`), generation or a
    /// build failed, a program failed, or the outputs differ: the reason, on one line.
    Error(String),
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Legal => "legal",
            Verdict::Illegal(_) => "illegal",
            Verdict::Error(_) => "error",
        }
    }

    pub fn message(&self) -> Option<&str> {
        match self {
            Verdict::Legal => None,
            Verdict::Illegal(m) | Verdict::Error(m) => Some(m),
        }
    }
}

/// One timing of a candidate against the original.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Median seconds of the original and the transformed program.
    pub original: f64,
    pub transformed: f64,
    /// The median over rounds of original / transformed.
    pub speedup: f64,
    /// The transformed program's GFLOP/s, when the flop count is known.
    pub gflops: Option<f64>,
    /// How many rounds the medians are over (more than `--runs` after a playoff).
    pub rounds: usize,
}

/// The `-D NAME=VALUE` macros of screening: every integer value multiplied by `scale` (at
/// least 2), or only those of the macros named in `only` (up to case) when it is given;
/// `None` when none of them is an integer or `scale` is not below 1.
pub fn scaled_defines(
    defines: &[String],
    scale: f64,
    only: Option<&[String]>,
) -> Option<Vec<String>> {
    if !(scale > 0.0 && scale < 1.0) {
        return None;
    }
    let named = |name: &str| only.is_none_or(|o| o.iter().any(|p| p.eq_ignore_ascii_case(name)));
    let mut any = false;
    let out = defines
        .iter()
        .map(|d| match d.split_once('=') {
            Some((name, v)) if named(name.trim()) => match v.trim().parse::<i64>() {
                Ok(x) if x > 2 => {
                    any = true;
                    let y = ((x as f64 * scale).round() as i64).max(2);
                    format!("{name}={y}")
                }
                _ => d.clone(),
            },
            _ => d.clone(),
        })
        .collect();
    any.then_some(out)
}

/// Times one verified candidate: [`bench_one`] in real use, a fake in tests.
pub trait Timer {
    fn time(&mut self, job: &Job, progress: Progress) -> Outcome;
}

/// The real timer: compile, compare outputs, time ([`bench_one`]).
pub struct Bench;

impl Timer for Bench {
    fn time(&mut self, job: &Job, progress: Progress) -> Outcome {
        bench_one(job, progress)
    }
}

/// A copy of `template` timing `script` (the fields a `Job` has no `Clone` for — baselines,
/// a reference, a kept directory — are not used by the commands that time candidates).
pub fn job_like(t: &Job, script: Option<PathBuf>) -> Job {
    Job {
        name: t.name.clone(),
        size: t.size.clone(),
        settings: t.settings.clone(),
        check_defines: t.check_defines.clone(),
        check_cflags: t.check_cflags.clone(),
        check: t.check,
        flops: t.flops.clone(),
        ..Job::new(
            t.kernel.clone(),
            script,
            t.opts.clone(),
            t.toolchain.clone(),
            t.plan,
        )
    }
}

/// What the timing loop reads and writes of a candidate.
pub trait Trial {
    /// The candidate's verdict, its timing at the screening sizes and at the sizes given.
    fn slots(&self) -> (&Verdict, &Option<Measured>, &Option<Measured>);
    fn slots_mut(&mut self) -> (&mut Verdict, &mut Option<Measured>, &mut Option<Measured>);

    fn verdict(&self) -> &Verdict {
        self.slots().0
    }
    fn set_verdict(&mut self, v: Verdict) {
        *self.slots_mut().0 = v;
    }
    /// Its timing at the screening sizes (`screen`) or at the sizes given.
    fn measured(&self, screen: bool) -> Option<&Measured> {
        let (_, s, t) = self.slots();
        if screen {
            s.as_ref()
        } else {
            t.as_ref()
        }
    }
    fn set_measured(&mut self, screen: bool, m: Measured) {
        let (_, s, t) = self.slots_mut();
        *(if screen { s } else { t }) = Some(m);
    }
}

/// What the caller hears while candidates are timed.
pub enum Event<'a, C> {
    /// What is being done now (for a progress line).
    Status(&'a str),
    /// A candidate was timed (`screen`: at the screening sizes).
    Timed {
        index: usize,
        candidate: &'a C,
        screen: bool,
    },
}

/// The limits of a run of timings.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Seconds for the whole run, counted from its start.
    pub time_limit: f64,
    /// Screening: the integer `-D NAME=VALUE` sizes multiplied by this (1: no screening).
    pub screen: f64,
    /// Screening scales only these macros, by their own factor; `None`: every integer
    /// size, by `screen`.
    pub screen_only: Option<ScreenOnly>,
    /// Screening is skipped when the original runs faster than this (seconds, median) at
    /// the sizes given.
    pub screen_above: f64,
    /// How many of the best screened candidates are timed again at the sizes given.
    pub finalists: usize,
}

/// Screening by some of the `-D` macros alone.
#[derive(Clone, Debug, PartialEq)]
pub struct ScreenOnly {
    /// Their names (up to case).
    pub names: Vec<String>,
    /// The factor they are scaled by.
    pub scale: f64,
}

/// What [`Session::time`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// Timed now.
    Timed,
    /// Built or run, and failed: the candidate's verdict says why.
    Failed,
    /// Not started: it would not have ended before the deadline.
    OutOfTime,
    /// Nothing to do: not legal, already timed, or its job could not be made.
    Skipped,
}

/// One run of timings: the job at the sizes given and at the screening sizes, the timer,
/// the deadlines and the longest timing so far at each size.
pub struct Session<'t> {
    job: Job,
    screen_job: Option<Job>,
    screen_defines: Option<Vec<String>>,
    timer: &'t mut dyn Timer,
    limits: Limits,
    start: Instant,
    end: Instant,
    /// The longest a timing has taken so far, at the sizes given (`[0]`) and at the
    /// screening sizes (`[1]`).
    longest: [Option<Duration>; 2],
    /// Every round timed at the sizes given, per candidate (timing one again adds to them).
    samples: HashMap<usize, Timing>,
    /// How many times longer a program runs at the sizes given than at the screening
    /// sizes (set by [`Session::expect_growth`]).
    growth: f64,
    /// The longest screening timing, its runs grown by `growth` (builds and checks do not
    /// grow): what the first timing at the sizes given is expected to take.
    grown: Option<Duration>,
}

impl<'t> Session<'t> {
    /// A session timing with `job` (its script replaced per candidate) whose time limit
    /// counts from `start`. Screening is planned when `limits.screen` scales some integer
    /// `-D` size; [`Session::settle_screening`] confirms it.
    pub fn new(job: &Job, limits: Limits, start: Instant, timer: &'t mut dyn Timer) -> Self {
        let defines = &job.toolchain.defines;
        let screen_defines = match &limits.screen_only {
            Some(o) => scaled_defines(defines, o.scale, Some(&o.names)),
            None => scaled_defines(defines, limits.screen, None),
        };
        let screen_job = screen_defines.as_ref().map(|d| {
            let mut j = job_like(job, job.script.clone());
            j.toolchain.defines = d.clone();
            j.opts.defines = d.clone();
            j
        });
        let end = start + Duration::from_secs_f64(limits.time_limit.max(0.0));
        Session {
            job: job_like(job, job.script.clone()),
            screen_job,
            screen_defines,
            timer,
            limits,
            start,
            end,
            longest: [None, None],
            samples: HashMap::new(),
            growth: 1.0,
            grown: None,
        }
    }

    /// Expects a program to run about `(1 / screen)^depth` times longer at the sizes given
    /// than at the screening sizes (the work of a nest `depth` loops deep whose bounds all
    /// scale with the sizes), or `1 / scale` when some macros alone are scaled (they bound
    /// one loop, whose trips scale by it): until a timing at the sizes given has been made, the first
    /// one starts only when the longest screening timing, its runs grown so, would end
    /// before the deadline.
    pub fn expect_growth(&mut self, depth: usize) {
        if self.screening() {
            self.growth = match &self.limits.screen_only {
                Some(o) => 1.0 / o.scale,
                None => (1.0 / self.limits.screen).powi(depth.clamp(1, 8) as i32),
            };
        }
    }

    /// Whether candidates are screened.
    pub fn screening(&self) -> bool {
        self.screen_job.is_some()
    }

    /// The `-D` sizes of screening, while it is planned.
    pub fn screen_defines(&self) -> Option<&Vec<String>> {
        self.screen_defines.as_ref()
    }

    /// Whether the first timing at the screening sizes settles already that screening
    /// pays: the original took at least `screen_above` there, so it takes longer at the
    /// sizes given. No timing at those sizes is then needed to decide (one there can take
    /// the whole time limit: seidel-2d at LARGE runs 28 s).
    pub fn screening_pays(&self, screened: Option<&Measured>) -> bool {
        self.screening() && screened.is_some_and(|m| m.original >= self.limits.screen_above)
    }

    /// Screening pays only when the program is slow: given the first candidate, timed at
    /// the sizes given after [`Session::screening_pays`] could not tell, screening is
    /// dropped when the original took less than `screen_above` there, and with it the
    /// candidate's timing at the screening sizes (nothing else is timed there).
    pub fn settle_screening<C: Trial>(&mut self, first: &mut C) {
        if first
            .measured(false)
            .is_some_and(|m| m.original < self.limits.screen_above)
        {
            self.screen_job = None;
            self.screen_defines = None;
            *first.slots_mut().1 = None;
        }
    }

    /// The end of the whole run.
    pub fn end(&self) -> Instant {
        self.end
    }

    /// The end of the phase that chooses (the search's greedy phase, tune's order): with
    /// screening 60% of the limit, the finalists the rest.
    pub fn phase_end(&self) -> Instant {
        if self.screening() {
            self.start + Duration::from_secs_f64(self.limits.time_limit.max(0.0) * 0.6)
        } else {
            self.end
        }
    }

    /// Whether a timing (at the screening sizes or not) started now would end before
    /// `deadline`, judging by the longest one so far at the same sizes; before any at the
    /// sizes given, by the longest screening one with its runs grown to them
    /// ([`Session::expect_growth`]).
    pub fn fits(&self, screen: bool, deadline: Instant) -> bool {
        let expected = match (screen, self.longest) {
            (true, [_, s]) => s.unwrap_or_default(),
            (false, [Some(l), _]) => l,
            (false, [None, _]) => self.grown.unwrap_or_default(),
        };
        Instant::now() + expected < deadline
    }

    /// Times candidate `idx` of `cands` at the screening sizes (`screen`) or at the sizes
    /// given, unless it is not legal, is timed there already (`again`: time it once more,
    /// its rounds added to those it has — a playoff), or would not end before `deadline`.
    /// `make` turns the template job (at the right sizes) into the candidate's; `label`
    /// names it in progress lines. A failure becomes the candidate's verdict, with the
    /// reason (the compiler's first error line, the failing status, the first differing
    /// line).
    #[allow(clippy::too_many_arguments)]
    pub fn time<C: Trial>(
        &mut self,
        cands: &mut [C],
        idx: usize,
        screen: bool,
        deadline: Instant,
        again: bool,
        make: &dyn Fn(&Job) -> Option<Job>,
        label: &str,
        on: &mut dyn FnMut(Event<C>),
    ) -> Attempt {
        let c = &cands[idx];
        if *c.verdict() != Verdict::Legal || (!again && c.measured(screen).is_some()) {
            return Attempt::Skipped;
        }
        if !self.fits(screen, deadline) {
            return Attempt::OutOfTime;
        }
        let template = match (&self.screen_job, screen) {
            (Some(j), true) => j,
            _ => &self.job,
        };
        let Some(job) = make(template) else {
            return Attempt::Skipped;
        };
        let began = Instant::now();
        let left = deadline.saturating_duration_since(began).as_secs();
        let label = format!(
            "{label}{}, {left} s left",
            if screen { ", screening" } else { "" }
        );
        let outcome = {
            let cell = std::cell::RefCell::new(&mut *on);
            let progress = |msg: &str| {
                let status = format!("{label}: {msg}");
                (*cell.borrow_mut())(Event::Status(&status));
            };
            self.timer.time(&job, &progress)
        };
        let took = began.elapsed();
        let longest = &mut self.longest[screen as usize];
        *longest = Some(longest.map_or(took, |l| l.max(took)));
        match outcome {
            Outcome::Timed { timing, extra, .. } => {
                if screen {
                    // The rounds and the warm-up runs (as long as a round each).
                    let rounds = timing.a.len().max(1) as f64;
                    let warm = (rounds + job.plan.warmup as f64) / rounds;
                    let runs: f64 = timing.a.iter().chain(&timing.b).sum::<f64>() * warm;
                    let runs = Duration::from_secs_f64(runs.max(0.0)).min(took);
                    let grown = took - runs + runs.mul_f64(self.growth);
                    self.grown = Some(self.grown.map_or(grown, |g| g.max(grown)));
                }
                let timing = if screen {
                    timing
                } else {
                    let all = self.samples.entry(idx).or_insert(Timing {
                        a: vec![],
                        b: vec![],
                    });
                    all.a.extend(&timing.a);
                    all.b.extend(&timing.b);
                    all.clone()
                };
                let transformed = timing.b_stats().median;
                cands[idx].set_measured(
                    screen,
                    Measured {
                        original: timing.a_stats().median,
                        transformed,
                        speedup: timing.speedup(),
                        gflops: extra.flops.map(|f| f / transformed / 1e9),
                        rounds: timing.a.len(),
                    },
                );
                on(Event::Timed {
                    index: idx,
                    candidate: &cands[idx],
                    screen,
                });
                Attempt::Timed
            }
            other => {
                cands[idx].set_verdict(verdict_of(&other));
                Attempt::Failed
            }
        }
    }

    /// The speedup the order compares: at the screening sizes when screening.
    pub fn speedup<C: Trial>(&self, c: &C) -> Option<f64> {
        c.measured(self.screening()).map(|m| m.speedup)
    }

    /// The finalists: the best `finalists` screened candidates (at least one), best first,
    /// not those at less than half the best screened speedup — at the sizes given they
    /// would take most of the time left and could not win.
    pub fn finalists<C: Trial>(&self, cands: &[C]) -> Vec<usize> {
        let mut ranked: Vec<(usize, f64)> = (0..cands.len())
            .filter_map(|c| cands[c].measured(true).map(|t| (c, t.speedup)))
            .collect();
        ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        let top = ranked.first().map_or(0.0, |r| r.1);
        ranked.retain(|r| r.1 >= top / 2.0);
        ranked
            .into_iter()
            .take(self.limits.finalists.max(1))
            .map(|r| r.0)
            .collect()
    }
}

/// Orders `among` by the speedup at the sizes given, fastest first (untimed last); the
/// first of equals first.
pub fn by_speedup<C: Trial>(cands: &[C], among: &mut [usize]) {
    among.sort_by(|&x, &y| {
        let t = |c: usize| cands[c].measured(false).map_or(0.0, |m| m.speedup);
        t(y).total_cmp(&t(x)).then(x.cmp(&y))
    });
}

/// The entrants of a playoff: the `n` fastest candidates timed at the sizes given, fastest
/// first; none when fewer than two were timed there. One timing of a candidate is a draw
/// from a wide spread (the same program varies from run to run by more than near
/// candidates differ), so the best few are timed again in turn and chosen on all their
/// rounds.
pub fn entrants<C: Trial>(cands: &[C], n: usize) -> Vec<usize> {
    let mut out: Vec<usize> = (0..cands.len())
        .filter(|&c| cands[c].measured(false).is_some())
        .collect();
    by_speedup(cands, &mut out);
    out.truncate(n);
    if out.len() < 2 {
        out.clear();
    }
    out
}

/// A playoff's standing after its rounds: the entrants still legal (a build or output
/// that failed in the playoff puts a candidate out), fastest first on all their rounds.
pub fn standing<C: Trial>(cands: &[C], mut entrants: Vec<usize>) -> Vec<usize> {
    entrants.retain(|&c| *cands[c].verdict() == Verdict::Legal);
    by_speedup(cands, &mut entrants);
    entrants
}

/// The fastest candidate: by its speedup at the sizes given when any was timed there, else
/// at the screening sizes; the first of equals.
pub fn best<C: Trial>(cands: &[C]) -> Option<usize> {
    let pick = |screen: bool| {
        (0..cands.len())
            .filter_map(|c| cands[c].measured(screen).map(|m| (c, m.speedup)))
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)))
            .map(|(c, _)| c)
    };
    pick(false).or_else(|| pick(true))
}

/// The verdict of a job that was not timed, with its reason on one line.
pub fn verdict_of(outcome: &Outcome) -> Verdict {
    match outcome {
        Outcome::Timed { .. } => Verdict::Legal,
        Outcome::Differ { diff, .. } => Verdict::Error(difference_reason(diff)),
        Outcome::Illegal { reports } => Verdict::Illegal(
            reports
                .first()
                .map_or(String::new(), |r| r.diagnostic.message.clone()),
        ),
        Outcome::Failed { failure, .. } => Verdict::Error(failure_reason(failure)),
    }
}

/// Why a run timed nothing, for its summary line: `every candidate tried failed to build:
/// <the compiler's first error>`, `every candidate is illegal (…)`, `the time limit ran out
/// …`. Candidates that failed have an error verdict; legal ones were not tried.
pub fn why_nothing_timed(verdicts: &[&Verdict], out_of_time: bool) -> String {
    let errors: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Error(m) => Some(m.as_str()),
            _ => None,
        })
        .collect();
    let illegal = verdicts.iter().find_map(|v| match v {
        Verdict::Illegal(m) => Some(m.as_str()),
        _ => None,
    });
    let legal = verdicts.iter().any(|v| **v == Verdict::Legal);
    let build = "the C compiler failed";
    match errors.first() {
        _ if verdicts.is_empty() => "there was no candidate".to_string(),
        Some(_) if errors.iter().all(|e| e.starts_with(build)) => {
            format!("every candidate tried failed to build: {}", errors[0])
        }
        Some(e) => format!("every candidate tried failed: {e}"),
        None if legal && out_of_time => {
            "the time limit ran out before a timing could start".to_string()
        }
        None if legal => "no legal candidate was timed".to_string(),
        None => format!(
            "every candidate is illegal (the first: {})",
            illegal.unwrap_or("no message")
        ),
    }
}

/// Characters of a line quoted in a reason.
const QUOTE: usize = 100;

fn quote(line: &Option<String>) -> String {
    match line {
        None => "(end of output)".to_string(),
        Some(l) if l.chars().count() > QUOTE => {
            format!("{:?}…", l.chars().take(QUOTE).collect::<String>())
        }
        Some(l) => format!("{l:?}"),
    }
}

/// `outputs differ (stdout line 3): original "1.5", transformed "1.25"`, or for the exit
/// statuses `outputs differ (exit status): original exit status 0, transformed signal 11`.
pub fn difference_reason(diff: &Difference) -> String {
    if diff.stream == Stream::Status {
        let show = |s: &Option<String>| s.clone().unwrap_or_else(|| "(none)".to_string());
        return format!(
            "outputs differ (exit status): original {}, transformed {}",
            show(&diff.a),
            show(&diff.b)
        );
    }
    format!(
        "outputs differ ({} line {}): original {}, transformed {}",
        diff.stream.name(),
        diff.line,
        quote(&diff.a),
        quote(&diff.b)
    )
}

/// A failed build or run on one line: the report's message and the first line that says
/// what went wrong — the compiler's first error (the label it put on the offending line,
/// else the first of its messages that says `error` or `undefined reference`, else its
/// first), or the first line the failing program wrote to stderr.
pub fn failure_reason(r: &Report) -> String {
    let d = &r.diagnostic;
    let msg = d.message.trim_end().to_string();
    let notes: Vec<&str> = d
        .notes
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty() && !n.starts_with("command: "))
        .collect();
    let first = d
        .labels
        .first()
        .map(|l| format!("{}: {}", short_path(&l.source), l.label))
        .or_else(|| {
            notes
                .iter()
                .find(|n| {
                    let l = n.to_ascii_lowercase();
                    l.contains("error") || l.contains("undefined reference")
                })
                .or(notes.first())
                .map(|n| n.to_string())
        });
    match first {
        Some(f) if !msg.contains(&f) => format!("{msg}: {f}"),
        _ => msg,
    }
}

/// The file name of a path (reasons name the file, not the temporary directory it is in).
fn short_path(p: &str) -> &str {
    std::path::Path::new(p)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{codes, Diagnostic};

    #[test]
    fn screening_sizes() {
        let d = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            scaled_defines(
                &d(&["NI=800", "FAST", "NK=1100", "X=abc", "T=2"]),
                0.25,
                None
            ),
            Some(d(&["NI=200", "FAST", "NK=275", "X=abc", "T=2"]))
        );
        assert_eq!(scaled_defines(&d(&["N=10"]), 0.01, None), Some(d(&["N=2"])));
        assert_eq!(scaled_defines(&d(&["N=1000"]), 1.0, None), None);
        assert_eq!(scaled_defines(&d(&["FAST"]), 0.5, None), None);
        assert_eq!(scaled_defines(&[], 0.5, None), None);
        // Only the macros named (up to case) are scaled; none of them an integer: none.
        let only = d(&["tsteps"]);
        assert_eq!(
            scaled_defines(&d(&["TSTEPS=500", "N=1300"]), 0.5, Some(&only)),
            Some(d(&["TSTEPS=250", "N=1300"]))
        );
        assert_eq!(scaled_defines(&d(&["N=1300"]), 0.5, Some(&only)), None);
    }

    /// A timer that takes 30 ms and answers one round of 10 ms for each program.
    struct Slow;

    impl Timer for Slow {
        fn time(&mut self, _: &Job, _: Progress) -> Outcome {
            std::thread::sleep(Duration::from_millis(30));
            Outcome::Timed {
                timing: Timing {
                    a: vec![0.01],
                    b: vec![0.01],
                },
                kept: None,
                extra: Box::new(crate::bench::ExtraTimings::default()),
            }
        }
    }

    /// Before the first timing at the sizes given, one starts only when the longest
    /// screening timing, its runs grown by the work's scale (builds not), would end before
    /// the deadline: with sizes halved in a nest 3 deep, 20 ms of runs become 160 ms.
    #[test]
    fn the_first_timing_at_the_sizes_given_is_expected_from_screening() {
        let defines = vec!["N=100".to_string()];
        let mut job = Job::new(
            "k.c".into(),
            None,
            crate::frontend::Options::default(),
            crate::native::Toolchain {
                defines,
                ..Default::default()
            },
            crate::native::Plan {
                runs: 1,
                warmup: 0,
                clock: crate::native::Clock::Kernel,
            },
        );
        job.opts.defines = job.toolchain.defines.clone();
        let limits = Limits {
            time_limit: 60.0,
            screen: 0.5,
            screen_only: None,
            screen_above: 0.5,
            finalists: 1,
        };
        let mut timer = Slow;
        let mut session = Session::new(&job, limits, Instant::now(), &mut timer);
        session.expect_growth(3);
        let mut cands = vec![T(Verdict::Legal, None, None)];
        let make = |j: &Job| Some(job_like(j, None));
        let end = session.end();
        let mut time = |session: &mut Session, screen: bool| {
            session.time(&mut cands, 0, screen, end, false, &make, "", &mut |_| {})
        };
        assert_eq!(time(&mut session, true), Attempt::Timed);
        let soon = |ms| Instant::now() + Duration::from_millis(ms);
        assert!(session.fits(true, soon(200)));
        assert!(!session.fits(false, soon(100)));
        assert!(session.fits(false, soon(5_000)));
        // A timing at the sizes given replaces the estimate.
        assert_eq!(time(&mut session, false), Attempt::Timed);
        assert!(session.fits(false, soon(100)));
    }

    fn report(d: Diagnostic) -> Report {
        Report {
            diagnostic: d,
            sources: vec![],
        }
    }

    /// A link failure names the missing symbol, not the linker's summary or the command.
    #[test]
    fn reasons_name_the_first_error() {
        let link = report(
            Diagnostic::new(
                codes::COMPILE_FAILED,
                "the C compiler failed on `/tmp/x/gemm.c` (exit status 1)",
            )
            .with_note("/usr/bin/ld: /tmp/ccA.o: in function `main':")
            .with_note("gemm.c:(.text+0x2a): undefined reference to `polybench_alloc_data'")
            .with_note("collect2: error: ld returned 1 exit status")
            .with_note("command: cc -O3 gemm.c"),
        );
        assert_eq!(
            failure_reason(&link),
            "the C compiler failed on `/tmp/x/gemm.c` (exit status 1): gemm.c:(.text+0x2a): \
             undefined reference to `polybench_alloc_data'"
        );
        let located = report(
            Diagnostic::new(
                codes::COMPILE_FAILED,
                "the C compiler failed on `/tmp/x/k.c` (exit status 1)",
            )
            .with_label("/tmp/x/k.c", 3..4, "expected ';' before '}' token")
            .with_note("command: cc k.c"),
        );
        assert_eq!(
            failure_reason(&located),
            "the C compiler failed on `/tmp/x/k.c` (exit status 1): k.c: expected ';' before \
             '}' token"
        );
        let crash = report(
            Diagnostic::new(
                codes::RUN_FAILED,
                "both programs fail the same way (signal 11); nothing to time",
            )
            .with_note("stderr: Segmentation fault"),
        );
        assert_eq!(
            failure_reason(&crash),
            "both programs fail the same way (signal 11); nothing to time: stderr: \
             Segmentation fault"
        );
        assert_eq!(
            failure_reason(&report(Diagnostic::new(
                codes::COMPILE_FAILED,
                "the compiler gave up"
            ))),
            "the compiler gave up"
        );
    }

    #[test]
    fn why_nothing_was_timed() {
        let link = Verdict::Error(
            "the C compiler failed on `k.c` (exit status 1): k.c:(.text): \
                                   undefined reference to `f'"
                .into(),
        );
        let bad = Verdict::Illegal("flow dependence on A broken".into());
        assert_eq!(
            why_nothing_timed(&[&link, &Verdict::Legal], false),
            "every candidate tried failed to build: the C compiler failed on `k.c` (exit status 1): \
             k.c:(.text): undefined reference to `f'"
        );
        assert_eq!(
            why_nothing_timed(&[&bad], false),
            "every candidate is illegal (the first: flow dependence on A broken)"
        );
        assert_eq!(
            why_nothing_timed(&[&bad, &Verdict::Legal], true),
            "the time limit ran out before a timing could start"
        );
        assert_eq!(why_nothing_timed(&[], false), "there was no candidate");
    }

    #[test]
    fn reasons_quote_the_first_differing_line() {
        let d = Difference {
            stream: Stream::Stdout,
            line: 3,
            a: Some("1.50".into()),
            b: Some("1.25".into()),
            detail: None,
        };
        assert_eq!(
            difference_reason(&d),
            "outputs differ (stdout line 3): original \"1.50\", transformed \"1.25\""
        );
        let ended = Difference { b: None, ..d };
        assert!(difference_reason(&ended).ends_with("transformed (end of output)"));
    }

    /// A candidate of the tests: its verdict and timings.
    struct T(Verdict, Option<Measured>, Option<Measured>);

    impl Trial for T {
        fn slots(&self) -> (&Verdict, &Option<Measured>, &Option<Measured>) {
            (&self.0, &self.1, &self.2)
        }
        fn slots_mut(&mut self) -> (&mut Verdict, &mut Option<Measured>, &mut Option<Measured>) {
            (&mut self.0, &mut self.1, &mut self.2)
        }
    }

    fn m(speedup: f64) -> Option<Measured> {
        Some(Measured {
            original: 1.0,
            transformed: 1.0 / speedup,
            speedup,
            gflops: None,
            rounds: 1,
        })
    }

    /// At the sizes given first, else screened; the first of equals.
    #[test]
    fn the_best_and_the_finalists() {
        let l = || Verdict::Legal;
        let cands = vec![
            T(l(), m(2.0), None),
            T(l(), m(3.0), m(1.5)),
            T(l(), m(1.2), None),
            T(l(), m(3.0), m(1.5)),
        ];
        assert_eq!(best(&cands), Some(1));
        let screened = vec![T(l(), m(2.0), None), T(l(), m(0.9), None)];
        assert_eq!(best(&screened), Some(0));
        assert_eq!(best::<T>(&[]), None);
        let mut timer = Bench;
        let job = Job::new(
            "k.c".into(),
            None,
            Default::default(),
            Default::default(),
            crate::native::Plan {
                runs: 1,
                warmup: 0,
                clock: crate::native::Clock::Kernel,
            },
        );
        let limits = Limits {
            time_limit: 10.0,
            screen: 0.5,
            screen_only: None,
            screen_above: 0.5,
            finalists: 2,
        };
        let s = Session::new(&job, limits, Instant::now(), &mut timer);
        // No integer size: nothing to screen at.
        assert!(!s.screening());
        // Best first, at most two, none under half the best (1.2 < 3.0 / 2).
        assert_eq!(s.finalists(&cands), vec![1, 3]);
    }
}
