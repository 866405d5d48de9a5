//! The results table of a manifest run.

use super::{clock_name, secs, threads_text, ExtraTimings, Job, Other, OtherKind, Outcome};
use crate::native::{Check, Plan, Timing};

/// What the second program is: the transformed kernel, or with `--identity` the
/// regenerated one.
pub fn second_label<'a>(jobs: impl IntoIterator<Item = &'a Job>) -> &'static str {
    if jobs.into_iter().any(|j| j.script.is_some()) {
        "transformed"
    } else {
        "regenerated"
    }
}

/// A cell of an extra column for a timed row.
type Cell<'a> = Box<dyn Fn(&Job, &Timing, &ExtraTimings) -> String + 'a>;

/// The columns after the two times: a column per thread count (or the speedup), per
/// baseline, per reference, and GFLOP/s.
struct Columns<'a> {
    cols: Vec<(String, Cell<'a>)>,
    threads: usize,
    /// Whether there is a baseline or reference column (its legend is printed).
    others: bool,
}

impl Columns<'_> {
    fn of(results: &[(Job, Outcome)]) -> Columns<'static> {
        let jobs = || results.iter().map(|(j, _)| j);
        let threads: Vec<u32> = jobs().next().map_or(vec![], |j| j.threads.clone());
        let baselines: Vec<String> = jobs().next().map_or(vec![], |j| {
            j.baselines.iter().map(|b| b.spec.clone()).collect()
        });
        let mut references: Vec<String> = vec![];
        for j in jobs() {
            if let Some(r) = &j.reference {
                if !references.contains(&r.name) {
                    references.push(r.name.clone());
                }
            }
        }
        let mut cols: Vec<(String, Cell)> = speedup_columns(&threads);
        for b in &baselines {
            cols.push(other_column(
                format!("vs {b}"),
                OtherKind::Baseline,
                b.clone(),
            ));
        }
        for r in &references {
            cols.push(other_column(
                format!("of {r}"),
                OtherKind::Reference,
                r.clone(),
            ));
        }
        if jobs().any(|j| j.flops.is_some()) {
            cols.push((
                "GFLOP/s".into(),
                Box::new(|_, t: &Timing, x: &ExtraTimings| {
                    x.flops.map_or("-".into(), |n| {
                        format!("{:.2}", n / t.b_stats().median / 1e9)
                    })
                }),
            ));
        }
        Columns {
            cols,
            threads: threads.len(),
            others: !baselines.is_empty() || !references.is_empty(),
        }
    }
}

/// The speedup, or with `--threads` the speedup at each count.
fn speedup_columns(threads: &[u32]) -> Vec<(String, Cell<'static>)> {
    if threads.is_empty() {
        return vec![(
            "speedup".into(),
            Box::new(|_, t: &Timing, _| format!("{:.2}×", t.speedup())),
        )];
    }
    threads
        .iter()
        .enumerate()
        .map(|(k, &n)| -> (String, Cell<'static>) {
            (
                threads_text(n),
                Box::new(move |_, _, x: &ExtraTimings| {
                    x.threads
                        .get(k)
                        .map_or("-".into(), |(_, t)| format!("{:.2}×", t.speedup()))
                }),
            )
        })
        .collect()
}

/// The column of a baseline or a reference named `label`.
fn other_column(header: String, kind: OtherKind, label: String) -> (String, Cell<'static>) {
    (
        header,
        Box::new(move |_, _, x: &ExtraTimings| {
            x.others
                .iter()
                .find(|o| o.kind == kind && o.label == label)
                .map_or("-".into(), Other::cell)
        }),
    )
}

/// The notes of a timed row: thread counts that ran the same programs, problems of the
/// baselines and the reference, a reference not compared.
fn row_notes(j: &Job, extra: &ExtraTimings, threads: usize, notes: &mut Vec<String>) {
    if threads > 1 && extra.openmp != Some("-fopenmp") {
        notes.push(format!(
            "{}: no parallel loop, so the thread counts run the same programs",
            j.label()
        ));
    }
    for other in &extra.others {
        if let Some(p) = other.problem() {
            notes.push(format!("{}: {}: {p}", j.label(), other.title()));
        } else if other.kind == OtherKind::Reference
            && j.reference.as_ref().is_some_and(|r| !r.compare)
        {
            notes.push(format!(
                "{}: {}: its output is not compared with the original's (`compare = false`)",
                j.label(),
                other.title()
            ));
        }
    }
}

/// The results table of a manifest run: one row per job; a column per thread count
/// (`--threads`: the speedup at that count), per baseline (the speedup over it) and for the
/// reference (the fraction of its speed), and GFLOP/s when entries have `flops`. Problems of
/// baselines and references are listed under the table.
pub fn table(results: &[(Job, Outcome)], compiler: &str, plan: &Plan) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let nw = results
        .iter()
        .map(|(j, _)| j.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(6);
    let sw = results
        .iter()
        .map(|(j, _)| j.size.as_deref().map_or(1, |x| x.chars().count()))
        .max()
        .unwrap_or(4)
        .max(4);
    let jobs = || results.iter().map(|(j, _)| j);
    let columns = Columns::of(results);
    let cols = &columns.cols;
    let widths: Vec<usize> = cols.iter().map(|(h, _)| h.chars().count().max(8)).collect();
    let _ = write!(
        s,
        "{:<nw$}  {:<sw$}  {:>11}  {:>11}",
        "kernel",
        "size",
        "original",
        second_label(jobs()),
    );
    for ((h, _), w) in cols.iter().zip(&widths) {
        let _ = write!(s, "  {h:>w$}");
    }
    s.push('\n');
    let (mut ok, mut differ, mut bad) = (0, 0, 0);
    let mut notes: Vec<String> = vec![];
    for (j, o) in results {
        let size = j.size.as_deref().unwrap_or("-");
        let _ = match o {
            Outcome::Timed { timing, extra, .. } => {
                ok += 1;
                let _ = write!(
                    s,
                    "{:<nw$}  {size:<sw$}  {:>11}  {:>11}",
                    j.name,
                    secs(timing.a_stats().median),
                    secs(timing.b_stats().median),
                );
                for ((_, cell), w) in cols.iter().zip(&widths) {
                    let _ = write!(s, "  {:>w$}", cell(j, timing, extra));
                }
                row_notes(j, extra, columns.threads, &mut notes);
                writeln!(s)
            }
            Outcome::Differ { diff, .. } => {
                differ += 1;
                writeln!(
                    s,
                    "{:<nw$}  {size:<sw$}  OUTPUTS DIFFER ({} line {})",
                    j.name,
                    diff.stream.name(),
                    diff.line
                )
            }
            Outcome::Illegal { reports } => {
                differ += 1;
                writeln!(
                    s,
                    "{:<nw$}  {size:<sw$}  ILLEGAL ({} violation(s))",
                    j.name,
                    reports.len()
                )
            }
            Outcome::Failed { failure, .. } => {
                bad += 1;
                writeln!(
                    s,
                    "{:<nw$}  {size:<sw$}  ERROR: {}",
                    j.name, failure.diagnostic.message
                )
            }
        };
    }
    let check = jobs().next().map_or(Check::Exact, |j| j.check);
    let _ = writeln!(
        s,
        "{ok} timed, {differ} differ or illegal, {bad} failed; outputs {}; medians of {} runs ({}), {compiler}",
        check.describe(),
        plan.runs,
        clock_name(plan.clock)
    );
    if columns.others {
        let _ = writeln!(
            s,
            "vs BASELINE: the transformed program's speedup over the original built with that \
             compiler and flags; of REFERENCE: the fraction of the reference's speed it reaches"
        );
    }
    for n in notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}
