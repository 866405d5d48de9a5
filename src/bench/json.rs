//! The JSON form of a job's outcome (`loopy bench --format json`, and each job of a
//! manifest run).

use super::{ExtraTimings, Job, Other, OtherKind, OtherResult, Outcome};
use crate::model::json::Json;
use crate::native::{Check, Difference, Stats, Timing};
use std::path::PathBuf;

fn stats_json(s: &Stats, samples: &[f64]) -> Json {
    Json::obj(vec![
        ("min", Json::Num(s.min)),
        ("median", Json::Num(s.median)),
        ("max", Json::Num(s.max)),
        (
            "samples",
            Json::Array(samples.iter().map(|x| Json::Num(*x)).collect()),
        ),
    ])
}

fn tolerance_json(c: Check) -> Json {
    match c {
        Check::Exact => Json::Null,
        Check::Relative(r) => Json::Num(r),
    }
}

fn difference_json(diff: &Difference) -> Json {
    Json::obj(vec![
        ("stream", Json::str(diff.stream.name())),
        ("line", Json::Int(diff.line as i128)),
        ("original", Json::opt_str(diff.a.as_deref())),
        ("transformed", Json::opt_str(diff.b.as_deref())),
        ("detail", Json::opt_str(diff.detail.as_deref())),
    ])
}

fn path_json(k: Option<&PathBuf>) -> Json {
    k.map_or(Json::Null, |p| Json::str(p.display().to_string()))
}

/// A job's outcome: its name, size, kernel and script, then the fields of its status.
pub fn outcome_json(job: &Job, o: &Outcome) -> Json {
    let mut f: Vec<(&str, Json)> = vec![
        ("name", Json::str(&job.name)),
        ("size", Json::opt_str(job.size.as_deref())),
        ("kernel", Json::str(job.kernel.display().to_string())),
        ("script", path_json(job.script.as_ref())),
    ];
    match o {
        Outcome::Timed {
            timing,
            kept,
            extra,
        } => {
            timed_fields(job, timing, extra, &mut f);
            f.push(("kept", path_json(kept.as_ref())));
        }
        Outcome::Differ { diff, kept } => {
            f.push(("status", Json::str("differ")));
            f.push(("check", Json::str(job.check.describe())));
            f.push(("tolerance", tolerance_json(job.check)));
            f.push(("difference", difference_json(diff)));
            f.push(("kept", path_json(Some(kept))));
        }
        Outcome::Illegal { reports } => {
            f.push(("status", Json::str("illegal")));
            let messages = reports
                .iter()
                .map(|r| Json::str(&r.diagnostic.message))
                .collect();
            f.push(("violations", Json::Array(messages)));
        }
        Outcome::Failed { failure, kept } => {
            f.push(("status", Json::str("error")));
            f.push(("error", Json::str(&failure.diagnostic.message)));
            f.push(("kept", path_json(kept.as_ref())));
        }
    }
    Json::obj(f)
}

/// The fields of a timed job: the check, both programs' times, the speedup, the thread
/// counts, the flops, the baselines and the reference.
fn timed_fields(job: &Job, timing: &Timing, extra: &ExtraTimings, f: &mut Vec<(&str, Json)>) {
    f.push(("status", Json::str("ok")));
    f.push(("check", Json::str(job.check.describe())));
    f.push(("tolerance", tolerance_json(job.check)));
    if let Some(r) = extra.max_relative_difference {
        f.push(("max_relative_difference", Json::Num(r)));
    }
    f.push(("original", stats_json(&timing.a_stats(), &timing.a)));
    f.push(("transformed", stats_json(&timing.b_stats(), &timing.b)));
    f.push(("speedup", Json::Num(timing.speedup())));
    f.push(("openmp", Json::opt_str(extra.openmp)));
    if !extra.threads.is_empty() {
        let rows = extra
            .threads
            .iter()
            .map(|(t, tm)| {
                Json::obj(vec![
                    ("threads", Json::Int(*t as i128)),
                    ("original", stats_json(&tm.a_stats(), &tm.a)),
                    ("transformed", stats_json(&tm.b_stats(), &tm.b)),
                    ("speedup", Json::Num(tm.speedup())),
                ])
            })
            .collect();
        f.push(("threads", Json::Array(rows)));
    }
    let gflops = |t: f64| extra.flops.map_or(Json::Null, |n| Json::Num(n / t / 1e9));
    f.push(("flops", extra.flops.map_or(Json::Null, Json::Num)));
    f.push((
        "gflops",
        match extra.flops {
            None => Json::Null,
            Some(_) => Json::obj(vec![
                ("original", gflops(timing.a_stats().median)),
                ("transformed", gflops(timing.b_stats().median)),
            ]),
        },
    ));
    let baselines: Vec<Json> = extra
        .others
        .iter()
        .filter(|o| o.kind == OtherKind::Baseline)
        .map(|o| other_json(job, extra, o))
        .collect();
    if !job.baselines.is_empty() {
        f.push(("baselines", Json::Array(baselines)));
    }
    if job.reference.is_some() {
        let reference = extra
            .others
            .iter()
            .find(|o| o.kind == OtherKind::Reference)
            .map_or(Json::Null, |o| other_json(job, extra, o));
        f.push(("reference", reference));
    }
}

/// A baseline or the reference: its name and what became of it.
fn other_json(job: &Job, extra: &ExtraTimings, o: &Other) -> Json {
    let mut v: Vec<(&str, Json)> = vec![];
    match o.kind {
        OtherKind::Baseline => v.push(("baseline", Json::str(&o.label))),
        OtherKind::Reference => v.push(("name", Json::str(&o.label))),
    }
    match &o.result {
        OtherResult::Timed {
            samples,
            ratio,
            check,
        } => {
            v.push(("status", Json::str("ok")));
            let what = match o.kind {
                OtherKind::Baseline => "speedup",
                OtherKind::Reference => "fraction_of_speed",
            };
            let stats = Stats::of(samples);
            v.push(("times", stats_json(&stats, samples)));
            v.push((what, Json::Num(*ratio)));
            let gflops = extra
                .flops
                .map_or(Json::Null, |n| Json::Num(n / stats.median / 1e9));
            v.push(("gflops", gflops));
            let used = match (o.kind, job.reference.as_ref()) {
                (OtherKind::Reference, Some(r)) if !r.compare => None,
                (OtherKind::Reference, Some(r)) => {
                    Some(r.tolerance.map_or(job.check, Check::Relative))
                }
                _ => Some(job.check),
            };
            match used {
                None => v.push(("check", Json::str("not compared"))),
                Some(used) => {
                    v.push(("check", Json::str(used.describe())));
                    if let Check::Relative(_) = used {
                        v.push(("max_relative_difference", Json::Num(*check)));
                    }
                }
            }
        }
        OtherResult::Skipped(m) => {
            v.push(("status", Json::str("skipped")));
            v.push(("error", Json::str(m)));
        }
        OtherResult::Differ(d) => {
            v.push(("status", Json::str("differ")));
            v.push(("error", Json::str(o.problem().unwrap_or_default())));
            v.push(("difference", difference_json(d)));
        }
        OtherResult::Failed(fl) => {
            v.push(("status", Json::str("error")));
            v.push(("error", Json::str(&fl.diagnostic.message)));
        }
    }
    Json::obj(v)
}
