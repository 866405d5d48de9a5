//! The JSON form of a job's outcome (`loopy bench --format json`, and each job of a
//! manifest run).

use super::{ExtraTimings, Job, Other, OtherKind, OtherResult, Outcome};
use crate::diag::output::JsonDiagnostic;
use crate::native::{Check, Difference, Stats, Timing};
use serde::Serialize;
use std::path::PathBuf;

/// A job's outcome: its name, size, kernel and script, then the fields of its status.
#[derive(Serialize)]
pub struct OutcomeJson<'a> {
    name: &'a str,
    size: Option<&'a str>,
    kernel: String,
    script: Option<String>,
    /// The toolchain, in a single bench (a manifest run names it once for all jobs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiler: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<&'static str>,
    #[serde(flatten)]
    status: StatusJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<JsonDiagnostic>>,
}

#[derive(Serialize)]
#[serde(tag = "status")]
enum StatusJson<'a> {
    #[serde(rename = "ok")]
    Timed(Box<TimedJson<'a>>),
    #[serde(rename = "differ")]
    Differ {
        check: String,
        tolerance: Option<f64>,
        difference: DifferenceJson<'a>,
        kept: Option<String>,
    },
    #[serde(rename = "illegal")]
    Illegal { violations: Vec<&'a str> },
    #[serde(rename = "error")]
    Failed {
        error: &'a str,
        kept: Option<String>,
    },
}

/// The fields of a timed job: the check, both programs' times, the speedup, the thread
/// counts, the flops, the baselines and the reference.
#[derive(Serialize)]
struct TimedJson<'a> {
    check: String,
    tolerance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_relative_difference: Option<f64>,
    original: StatsJson<'a>,
    transformed: StatsJson<'a>,
    speedup: f64,
    openmp: Option<&'static str>,
    /// Warnings on the generated code (a copy small enough for registers kept in memory).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<JsonDiagnostic>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    threads: Vec<ThreadsJson<'a>>,
    flops: Option<f64>,
    gflops: Option<GflopsJson>,
    /// Present when the job names baselines.
    #[serde(skip_serializing_if = "Option::is_none")]
    baselines: Option<Vec<OtherJson<'a>>>,
    /// Present (`null` when it was not run) when the job names a reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    reference: Option<Option<OtherJson<'a>>>,
    kept: Option<String>,
}

#[derive(Serialize)]
struct StatsJson<'a> {
    min: f64,
    median: f64,
    max: f64,
    samples: &'a [f64],
}

impl<'a> StatsJson<'a> {
    fn of(s: Stats, samples: &'a [f64]) -> Self {
        StatsJson {
            min: s.min,
            median: s.median,
            max: s.max,
            samples,
        }
    }
}

#[derive(Serialize)]
struct ThreadsJson<'a> {
    threads: u32,
    original: StatsJson<'a>,
    transformed: StatsJson<'a>,
    speedup: f64,
}

#[derive(Serialize)]
struct GflopsJson {
    original: f64,
    transformed: f64,
}

#[derive(Serialize)]
struct DifferenceJson<'a> {
    stream: &'static str,
    line: usize,
    original: Option<&'a str>,
    transformed: Option<&'a str>,
    detail: Option<&'a str>,
}

impl<'a> DifferenceJson<'a> {
    fn of(diff: &'a Difference) -> Self {
        DifferenceJson {
            stream: diff.stream.name(),
            line: diff.line,
            original: diff.a.as_deref(),
            transformed: diff.b.as_deref(),
            detail: diff.detail.as_deref(),
        }
    }
}

/// A baseline or the reference: its name and what became of it.
#[derive(Serialize)]
struct OtherJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(flatten)]
    result: OtherResultJson<'a>,
}

#[derive(Serialize)]
#[serde(tag = "status")]
enum OtherResultJson<'a> {
    #[serde(rename = "ok")]
    Timed(OtherTimedJson<'a>),
    #[serde(rename = "skipped")]
    Skipped { error: &'a str },
    #[serde(rename = "differ")]
    Differ {
        error: String,
        difference: DifferenceJson<'a>,
    },
    #[serde(rename = "error")]
    Failed { error: &'a str },
}

#[derive(Serialize)]
struct OtherTimedJson<'a> {
    times: StatsJson<'a>,
    /// A baseline's.
    #[serde(skip_serializing_if = "Option::is_none")]
    speedup: Option<f64>,
    /// The reference's.
    #[serde(skip_serializing_if = "Option::is_none")]
    fraction_of_speed: Option<f64>,
    gflops: Option<f64>,
    check: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_relative_difference: Option<f64>,
}

fn tolerance(c: Check) -> Option<f64> {
    match c {
        Check::Exact => None,
        Check::Relative(r) => Some(r),
    }
}

fn path(k: Option<&PathBuf>) -> Option<String> {
    k.map(|p| p.display().to_string())
}

/// A job's outcome: its name, size, kernel and script, then the fields of its status
/// (no compiler, clock or diagnostics: the caller adds those it prints).
pub fn outcome_json<'a>(job: &'a Job, o: &'a Outcome) -> OutcomeJson<'a> {
    let status = match o {
        Outcome::Timed {
            timing,
            kept,
            extra,
        } => StatusJson::Timed(Box::new(timed(job, timing, extra, path(kept.as_ref())))),
        Outcome::Differ { diff, kept } => StatusJson::Differ {
            check: job.check.describe(),
            tolerance: tolerance(job.check),
            difference: DifferenceJson::of(diff),
            kept: path(Some(kept)),
        },
        Outcome::Illegal { reports } => StatusJson::Illegal {
            violations: reports
                .iter()
                .map(|r| r.diagnostic.message.as_str())
                .collect(),
        },
        Outcome::Failed { failure, kept } => StatusJson::Failed {
            error: &failure.diagnostic.message,
            kept: path(kept.as_ref()),
        },
    };
    OutcomeJson {
        name: &job.name,
        size: job.size.as_deref(),
        kernel: job.kernel.display().to_string(),
        script: path(job.script.as_ref()),
        compiler: None,
        clock: None,
        status,
        diagnostics: None,
    }
}

fn timed<'a>(
    job: &'a Job,
    timing: &'a Timing,
    extra: &'a ExtraTimings,
    kept: Option<String>,
) -> TimedJson<'a> {
    let threads = extra
        .threads
        .iter()
        .map(|(t, tm)| ThreadsJson {
            threads: *t,
            original: StatsJson::of(tm.a_stats(), &tm.a),
            transformed: StatsJson::of(tm.b_stats(), &tm.b),
            speedup: tm.speedup(),
        })
        .collect();
    let gflops = extra.flops.map(|n| GflopsJson {
        original: n / timing.a_stats().median / 1e9,
        transformed: n / timing.b_stats().median / 1e9,
    });
    let others = |kind| extra.others.iter().filter(move |o| o.kind == kind);
    let baselines = others(OtherKind::Baseline)
        .map(|o| other(job, extra, o))
        .collect();
    let reference = others(OtherKind::Reference)
        .next()
        .map(|o| other(job, extra, o));
    TimedJson {
        check: job.check.describe(),
        tolerance: tolerance(job.check),
        max_relative_difference: extra.max_relative_difference,
        original: StatsJson::of(timing.a_stats(), &timing.a),
        transformed: StatsJson::of(timing.b_stats(), &timing.b),
        speedup: timing.speedup(),
        openmp: extra.openmp,
        warnings: (extra.warnings.iter())
            .map(|r| JsonDiagnostic::new(&r.diagnostic, &r.sources))
            .collect(),
        threads,
        flops: extra.flops,
        gflops,
        baselines: (!job.baselines.is_empty()).then_some(baselines),
        reference: job.reference.is_some().then_some(reference),
        kept,
    }
}

/// A baseline or the reference: its name and what became of it.
fn other<'a>(job: &Job, extra: &ExtraTimings, o: &'a Other) -> OtherJson<'a> {
    let result = match &o.result {
        OtherResult::Timed {
            samples,
            ratio,
            check,
        } => OtherResultJson::Timed(other_timed(job, extra, o.kind, samples, *ratio, *check)),
        OtherResult::Skipped(m) => OtherResultJson::Skipped { error: m },
        OtherResult::Differ(d) => OtherResultJson::Differ {
            error: o.problem().unwrap_or_default(),
            difference: DifferenceJson::of(d),
        },
        OtherResult::Failed(fl) => OtherResultJson::Failed {
            error: &fl.diagnostic.message,
        },
    };
    let label = Some(o.label.as_str());
    OtherJson {
        baseline: label.filter(|_| o.kind == OtherKind::Baseline),
        name: label.filter(|_| o.kind == OtherKind::Reference),
        result,
    }
}

/// A timed baseline or reference: its times, its ratio to the original, its rate and the
/// check its output passed.
fn other_timed<'a>(
    job: &Job,
    extra: &ExtraTimings,
    kind: OtherKind,
    samples: &'a [f64],
    ratio: f64,
    difference: f64,
) -> OtherTimedJson<'a> {
    let stats = Stats::of(samples);
    let used = match (kind, job.reference.as_ref()) {
        (OtherKind::Reference, Some(r)) if !r.compare => None,
        (OtherKind::Reference, Some(r)) => Some(r.tolerance.map_or(job.check, Check::Relative)),
        _ => Some(job.check),
    };
    let gflops = extra.flops.map(|n| n / stats.median / 1e9);
    OtherTimedJson {
        times: StatsJson::of(stats, samples),
        speedup: Some(ratio).filter(|_| kind == OtherKind::Baseline),
        fraction_of_speed: Some(ratio).filter(|_| kind == OtherKind::Reference),
        gflops,
        check: used.map_or("not compared".to_string(), |c| c.describe()),
        max_relative_difference: match used {
            Some(Check::Relative(_)) => Some(difference),
            _ => None,
        },
    }
}
