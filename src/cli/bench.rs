//! `loopy bench`: build the original and the transformed program with the same compiler and
//! flags, require identical outputs, then time them against each other (docs/bench.md).

use super::{CcArgs, Ctx, DiagFormat, Emitter, ProgramArgs, SetArgs, Ticker, TimeArg};
use crate::bench::{
    bench_one, clock_name, describe_toolchain, manifest_jobs, outcome_json, second_label, secs,
    stem, table, threads_text, Baseline, BenchSettings, ExtraTimings, Job, ManifestRun, OtherKind,
    OtherResult, Outcome, OutcomeJson,
};
use crate::diag::output::JsonDiagnostic;
use crate::diag::{codes, Diagnostic, Report};
use crate::manifest::{self, FlopsSpec};
use crate::model::json;
use crate::native::{compile::split_words, plot, Check, Clock, Plan, Timing, Toolchain};
use clap::Args;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// A one-line progress indicator on the terminal (stderr); silent otherwise.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The C file with the tagged kernel (a complete program).
    #[arg(required_unless_present = "manifest")]
    pub kernel: Option<PathBuf>,
    /// The `.loopy` script.
    #[arg(required_unless_present_any = ["manifest", "identity"])]
    pub script: Option<PathBuf>,
    /// Regenerate the kernel without transforming it (in place of the script, or of every
    /// manifest entry's script): times loopy's generated loops against the original ones,
    /// which measures the code generator alone.
    #[arg(long, conflicts_with_all = ["script", "set"])]
    pub identity: bool,
    /// Bench every legal pair of a manifest (the `[[check]]` entries of `loopy check`) and
    /// print a table.
    #[arg(long, conflicts_with_all = ["kernel", "script", "set"])]
    pub manifest: Option<PathBuf>,
    #[command(flatten)]
    pub cc: CcArgs,
    #[command(flatten)]
    pub sets: SetArgs,
    /// The C compiler, with any leading words (`--cc "ccache gcc"`); default `$CC`, then `cc`.
    #[arg(long = "cc", value_name = "COMPILER")]
    pub compiler: Option<String>,
    /// Compiler flags for both programs (split at white space).
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-O3 -march=native",
        allow_hyphen_values = true
    )]
    pub cflags: String,
    /// Link flags, last on the command line (split at white space).
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-lm",
        allow_hyphen_values = true
    )]
    pub ldflags: String,
    /// Flags added for the check build only (split at white space). The default keeps the
    /// compiler from fusing multiplies and adds (FMA) differently in the two programs, which
    /// changes the last bits of results; pass `--check-cflags ""` to check the timed
    /// executables themselves.
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-ffp-contract=off",
        allow_hyphen_values = true
    )]
    pub check_cflags: String,
    /// Timed runs of each program.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Untimed runs of each program before timing (the check run counts as one when it
    /// used the same executables).
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// What is timed: `kernel` (default) times the modelled region alone, in both programs
    /// the same way (a monotonic clock around it, accumulated over every time it runs);
    /// `process` the whole process, spawn to exit; `stdout` takes each run's time from the
    /// last line of its stdout (seconds; PolyBench's `-DPOLYBENCH_TIME`), a line then left
    /// out of the check run's comparison.
    #[arg(long, value_enum, value_name = "CLOCK", default_value_t = TimeArg::Kernel)]
    pub time: TimeArg,
    /// The same as `--time stdout`.
    #[arg(long, conflicts_with = "time")]
    pub time_from_stdout: bool,
    /// Output format: `text` (a report or table on stdout, diagnostics on stderr); `json`
    /// (the results as JSON on stdout, each with the diagnostics about it); `sarif` (a
    /// SARIF 2.1.0 log of the diagnostics on stdout, the text report then on stderr).
    #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
    pub format: DiagFormat,
    /// Keep the transformed source and the executables in this directory (one folder per
    /// entry with `--manifest`).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// With `--manifest`: bench each entry at this size (its `sizes.NAME` macros;
    /// repeatable). Without it, each entry runs at its default size.
    #[arg(long = "size", value_name = "NAME", requires = "manifest")]
    pub sizes: Vec<String>,
    /// Also time the original built with this compiler and these flags (repeatable), e.g.
    /// `--baseline 'clang-16 -O3 -mllvm -polly'`, and report the transformed program's
    /// speedup over it. A baseline that is not installed, does not build or prints
    /// something else is reported as such; it does not change the exit code.
    #[arg(long = "baseline", value_name = "CC FLAGS", allow_hyphen_values = true)]
    pub baselines: Vec<String>,
    /// Time both programs with `OMP_NUM_THREADS` set to N (repeatable: one result per
    /// count). Programs with a parallel loop are built with `-fopenmp` either way.
    #[arg(long = "threads", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Vec<u32>,
    /// Compare the outputs' numbers within this relative tolerance instead of byte for
    /// byte (the text around them, and integers, must still be identical).
    #[arg(long, value_name = "REL", value_parser = parse_tolerance)]
    pub tolerance: Option<f64>,
    /// The number of floating-point operations of one run: an expression in the program's
    /// macros (`2*NI*NJ*NK`); the report then gives GFLOP/s. With `--manifest`, each
    /// entry's `flops` key.
    #[arg(long, value_name = "EXPR", conflicts_with = "manifest")]
    pub flops: Option<String>,
    /// With `--manifest`: bench only the entries of this name (repeatable).
    #[arg(long = "only", value_name = "NAME", requires = "manifest")]
    pub only: Vec<String>,
    /// With `--manifest`: write a bar chart of the speedups (SVG); with baselines, the speedups
    /// over each baseline too.
    #[arg(long, value_name = "FILE.svg", requires = "manifest")]
    pub plot: Option<PathBuf>,
    /// With `--manifest`: one row per kernel and size, the entry with the highest speedup over
    /// the original (several scripts of one kernel file compete; entries whose outputs differ,
    /// that are illegal or that fail are all kept). Pass `--threads 1` to keep parallel
    /// scripts on one thread.
    #[arg(long)]
    pub best: bool,
    #[command(flatten)]
    pub program: ProgramArgs,
}

fn parse_tolerance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!(
            "`{s}` is not a relative tolerance (a non-negative number such as 1e-9)"
        )),
    }
}

/// The diagnostics of a job that did not get timed, and the problems of its baselines and
/// reference; each with a line printed after it in the text format (where the transformed
/// source was kept).
fn job_diagnostics(job: &Job, o: &Outcome) -> Vec<(Report, Option<String>)> {
    let warning = |msg: String| (super::plain(Diagnostic::new(codes::NOT_TIMED, msg)), None);
    let mut out = vec![];
    match o {
        Outcome::Timed { extra, .. } => {
            for other in &extra.others {
                match &other.result {
                    OtherResult::Timed { .. } => {}
                    OtherResult::Failed(f) => {
                        out.push((f.clone(), None));
                        out.push(warning(format!(
                            "{}: {} was not timed (see above)",
                            job.label(),
                            other.title()
                        )));
                    }
                    OtherResult::Differ(d) => out.push(warning(format!(
                        "{}: {} was not timed: its output differs from the original's: {}",
                        job.label(),
                        other.title(),
                        d.describe("original", &other.label).trim_end()
                    ))),
                    OtherResult::Skipped(m) => out.push(warning(format!(
                        "{}: {} was not timed: {m}",
                        job.label(),
                        other.title()
                    ))),
                }
            }
        }
        Outcome::Differ { diff, kept } => out.push((
            super::plain(
                Diagnostic::new(
                    codes::OUTPUTS_DIFFER,
                    format!(
                        "{}: the transformed program's output differs from the original's: {}",
                        job.label(),
                        diff.describe("original", "transformed").trim_end()
                    ),
                )
                .with_note(format!(
                    "the transformed source and both outputs are in `{}`",
                    kept.display()
                )),
            ),
            None,
        )),
        Outcome::Illegal { reports } => {
            out.extend(reports.iter().map(|r| (r.clone(), None)));
            out.push((
                super::plain(Diagnostic::new(
                    codes::SCRIPT_ILLEGAL,
                    format!(
                        "{} is illegal for {} ({} violation(s)); nothing was benchmarked",
                        job.script_name(),
                        job.kernel.display(),
                        reports.len()
                    ),
                )),
                None,
            ));
        }
        Outcome::Failed { failure, kept } => out.push((
            failure.clone(),
            kept.as_ref()
                .map(|k| format!("the transformed source is in `{}`", k.display())),
        )),
    }
    out
}

/// The diagnostics of a job as data (its entry's `diagnostics` in `--format json`).
fn diagnostics_data(job: &Job, o: &Outcome) -> Vec<JsonDiagnostic> {
    job_diagnostics(job, o)
        .into_iter()
        .map(|(r, kept)| {
            let mut j = JsonDiagnostic::of_report(&r);
            j.notes.extend(kept);
            j
        })
        .collect()
}

/// Reports the diagnostics of a job: on stderr in the text format, else kept in `em`.
fn explain(job: &Job, o: &Outcome, em: &mut Emitter) {
    if em.format != DiagFormat::Text {
        em.diagnostics.extend(diagnostics_data(job, o));
        return;
    }
    for (r, kept) in job_diagnostics(job, o) {
        em.report(&r);
        if let Some(k) = &kept {
            eprintln!("  = note: {k}");
        }
    }
}

/// What a manifest run prints with `--format json`: the settings common to all jobs, each
/// job's outcome, and the run's own diagnostics.
#[derive(Serialize)]
struct ManifestJson<'a> {
    compiler: &'a str,
    clock: &'static str,
    runs: usize,
    check: String,
    results: Vec<OutcomeJson<'a>>,
    diagnostics: Vec<JsonDiagnostic>,
}

fn common(a: &BenchArgs) -> Result<BenchSettings, String> {
    let mut toolchain = Toolchain {
        cflags: split_words(&a.cflags),
        ldflags: split_words(&a.ldflags),
        extra: a.program.extra.clone(),
        ..Toolchain::default()
    };
    if let Some(cc) = &a.compiler {
        let w = split_words(cc);
        if !w.is_empty() {
            toolchain.cc = w;
        }
    }
    let mut baselines: Vec<Baseline> = vec![];
    for b in &a.baselines {
        let b = Baseline::parse(b)?;
        // The same baseline twice would be one column.
        if !baselines.iter().any(|x| x.spec == b.spec) {
            baselines.push(b);
        }
    }
    Ok(BenchSettings {
        toolchain,
        check_defines: a.program.check_define.clone(),
        check_cflags: split_words(&a.check_cflags),
        plan: Plan {
            runs: a.runs as usize,
            warmup: a.warmup as usize,
            clock: if a.time_from_stdout {
                Clock::Stdout
            } else {
                a.time.clock()
            },
        },
        baselines,
        threads: a.threads.clone(),
        check: a.tolerance.map_or(Check::Exact, Check::Relative),
    })
}

pub fn run(a: BenchArgs, ctx: &Ctx) -> u8 {
    if let Some(m) = a.manifest.clone() {
        return manifest(&m, &a, ctx);
    }
    let fail = |r: Report| super::fail_with(ctx, a.format, "bench", &[r], 2);
    if a.best {
        return fail(super::plain(Diagnostic::new(
            codes::INVALID_OPTION,
            "`--best` chooses among a manifest's entries: give `--manifest`",
        )));
    }
    let c = match common(&a) {
        Ok(c) => c,
        Err(m) => return fail(super::plain(Diagnostic::new(codes::INVALID_OPTION, m))),
    };
    let flops = match a.flops.as_deref().map(FlopsSpec::from_option).transpose() {
        Ok(f) => f,
        Err(f) => return fail(f),
    };
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => return fail(f),
    };
    let kernel = a.kernel.clone().expect("clap requires it");
    let script = if a.identity {
        None
    } else {
        Some(a.script.clone().expect("clap requires it"))
    };
    let opts = a.cc.options();
    let mut toolchain = c.toolchain.clone();
    toolchain.includes = opts.includes.clone();
    toolchain.defines = opts.defines.clone();
    let job = Job {
        settings,
        check_defines: c.check_defines,
        check_cflags: c.check_cflags,
        keep: a.keep.clone(),
        baselines: c.baselines,
        threads: c.threads,
        check: c.check,
        flops,
        ..Job::new(kernel, script, opts, toolchain, c.plan)
    };
    let ticker = Ticker {
        on: std::io::stderr().is_terminal(),
        label: job.label(),
    };
    let o = bench_one(&job, &|m| ticker.show(m));
    ticker.clear();
    if super::spent() {
        return 2;
    }
    let mut em = Emitter::new(a.format, ctx);
    explain(&job, &o, &mut em);
    let code = o.exit_code();
    match a.format {
        DiagFormat::Json => {
            let mut j = outcome_json(&job, &o);
            j.compiler = Some(describe_toolchain(&job.toolchain));
            j.clock = Some(clock_name(job.plan.clock));
            j.diagnostics = Some(diagnostics_data(&job, &o));
            println!("{}", json::pretty(&j));
        }
        DiagFormat::Text | DiagFormat::Sarif => {
            if let Outcome::Timed {
                timing,
                kept,
                extra,
            } = &o
            {
                for w in &extra.warnings {
                    em.report(w);
                }
                // With SARIF on stdout, the report goes to stderr.
                let report = single_report(&job, timing, extra)
                    + &kept
                        .as_ref()
                        .map_or(String::new(), |k| format!("kept in {}\n", k.display()));
                if a.format == DiagFormat::Text {
                    print!("{report}");
                } else {
                    eprint!("{report}");
                }
            }
            if a.format == DiagFormat::Sarif {
                em.print_sarif(code);
            }
        }
    }
    code
}

/// The text report of a timed job.
fn single_report(job: &Job, t: &Timing, x: &ExtraTimings) -> String {
    let mut out = String::new();
    macro_rules! put {
        ($($t:tt)*) => {{
            out.push_str(&format!($($t)*));
            out.push('\n');
        }};
    }
    let largest = x.max_relative_difference.map_or(String::new(), |r| {
        format!(" (largest relative difference {r:.3e})")
    });
    put!(
        "{} + {}: outputs {}{largest}",
        job.kernel.display(),
        job.script_name(),
        job.check.describe()
    );
    let second = second_label([job]);
    put!("{:<12} {:>11} {:>11} {:>11}", "", "min", "median", "max");
    for (name, s) in [("original", t.a_stats()), (second, t.b_stats())] {
        put!(
            "{name:<12} {:>11} {:>11} {:>11}",
            secs(s.min),
            secs(s.median),
            secs(s.max)
        );
    }
    put!(
        "speedup {:.2}× (median of {} interleaved rounds; {}; {})",
        t.speedup(),
        t.a.len(),
        clock_name(job.plan.clock),
        describe_toolchain(&job.toolchain)
    );
    if !x.threads.is_empty() && x.openmp != Some("-fopenmp") {
        put!(
            "(no parallel loop: the programs were not built with -fopenmp, and the thread \
             count changes nothing in them)"
        );
    }
    for (n, tm) in &x.threads {
        put!(
            "{:<12} original {}, {second} {}: speedup {:.2}×",
            threads_text(*n),
            secs(tm.a_stats().median),
            secs(tm.b_stats().median),
            tm.speedup()
        );
    }
    if let Some(n) = x.flops {
        put!(
            "GFLOP/s (median times, {:.4e} flops): original {:.2}, {second} {:.2}",
            n,
            n / t.a_stats().median / 1e9,
            n / t.b_stats().median / 1e9
        );
    }
    for o in &x.others {
        let what = match o.kind {
            OtherKind::Baseline => format!("vs {}", o.label),
            OtherKind::Reference => format!("of {}", o.label),
        };
        match &o.result {
            OtherResult::Timed { samples, ratio, .. } => {
                let med = crate::native::Stats::of(samples).median;
                let verdict = match o.kind {
                    OtherKind::Baseline => format!("speedup {ratio:.2}×"),
                    OtherKind::Reference => format!("{:.0}% of its speed", ratio * 100.0),
                };
                let compared = match (o.kind, &job.reference) {
                    (OtherKind::Reference, Some(r)) if !r.compare => {
                        "; its output is not compared with the original's (`compare = false`)"
                    }
                    _ => "",
                };
                put!("{what}: {verdict} (its median {}){compared}", secs(med));
            }
            _ => put!("{what}: not timed: {}", o.problem().unwrap_or_default()),
        }
    }
    out
}

fn manifest(path: &Path, a: &BenchArgs, ctx: &Ctx) -> u8 {
    let fail = |r: Report| super::fail_with(ctx, a.format, "bench", &[r], 2);
    let c = match common(a) {
        Ok(c) => c,
        Err(m) => return fail(super::plain(Diagnostic::new(codes::INVALID_OPTION, m))),
    };
    let run = ManifestRun {
        includes: a.cc.include.clone(),
        defines: a.cc.define.clone(),
        sizes: a.sizes.clone(),
        identity: a.identity,
        keep: a.keep.clone(),
        only: a.only.clone(),
    };
    let jobs = match manifest::parse(path).and_then(|e| manifest_jobs(e, &run, &c)) {
        Ok(j) => j,
        Err(f) => return fail(f),
    };
    let mut em = Emitter::new(a.format, ctx);
    let terminal = std::io::stderr().is_terminal();
    let mut results: Vec<(Job, Outcome)> = vec![];
    for (i, job) in jobs.into_iter().enumerate() {
        let ticker = Ticker {
            on: terminal,
            label: job.label(),
        };
        let o = bench_one(&job, &|m| ticker.show(m));
        ticker.clear();
        explain(&job, &o, &mut em);
        let short = match &o {
            Outcome::Timed { timing, .. } => format!("{:.2}×", timing.speedup()),
            Outcome::Differ { diff, .. } => {
                format!("outputs differ ({} line {})", diff.stream.name(), diff.line)
            }
            Outcome::Illegal { .. } => "illegal".into(),
            Outcome::Failed { .. } => "error".into(),
        };
        eprintln!("[{}] {}: {short}", i + 1, job.label());
        results.push((job, o));
    }
    if a.best {
        results = best_per_kernel(results);
    }
    let compiler = describe_toolchain(&c.toolchain);
    let mut plot_failure = None;
    if let Some(p) = &a.plot {
        let mut bars: Vec<plot::Bar> = vec![];
        for (j, o) in &results {
            let Outcome::Timed { timing, extra, .. } = o else {
                continue;
            };
            let size = j.size.clone().unwrap_or_else(|| "default size".into());
            bars.push(plot::Bar {
                group: j.name.clone(),
                series: size.clone(),
                value: timing.speedup(),
            });
            for other in &extra.others {
                if let (OtherKind::Baseline, OtherResult::Timed { ratio, .. }) =
                    (other.kind, &other.result)
                {
                    bars.push(plot::Bar {
                        group: j.name.clone(),
                        series: format!("{size}, over `{}`", other.label),
                        value: *ratio,
                    });
                }
            }
        }
        let title = if a.identity {
            format!("loopy: regenerated kernels against the originals ({compiler})")
        } else {
            format!("loopy: speedups ({compiler})")
        };
        let svg = plot::speedup_chart(&title, &bars);
        if let Err(e) = std::fs::write(p, svg) {
            plot_failure = Some(super::plain(Diagnostic::new(
                codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", p.display()),
            )));
        }
    }
    let mut code = results
        .iter()
        .map(|(_, o)| o.exit_code())
        .max()
        .unwrap_or(0);
    // The run's own diagnostics (a plot not written), after the jobs'.
    let mut own = vec![];
    if let Some(f) = plot_failure {
        code = 2;
        em.report(&f);
        own.push(JsonDiagnostic::of_report(&f));
    }
    match a.format {
        DiagFormat::Json => {
            let results = results
                .iter()
                .map(|(j, o)| {
                    let mut r = outcome_json(j, o);
                    r.diagnostics = Some(diagnostics_data(j, o));
                    r
                })
                .collect();
            let j = ManifestJson {
                compiler: &compiler,
                clock: clock_name(c.plan.clock),
                runs: c.plan.runs,
                check: c.check.describe(),
                results,
                diagnostics: own,
            };
            println!("{}", json::pretty(&j));
        }
        DiagFormat::Text => print!("{}", table(&results, &compiler, &c.plan)),
        DiagFormat::Sarif => {
            eprint!("{}", table(&results, &compiler, &c.plan));
            em.print_sarif(code);
        }
    }
    code
}

/// The results with, for each kernel file and size, only the timed entry of the highest
/// speedup over the original (in the order of the first entry of each); entries that were
/// not timed are all kept.
fn best_per_kernel(results: Vec<(Job, Outcome)>) -> Vec<(Job, Outcome)> {
    let key = |j: &Job| (j.kernel.clone(), j.size.clone());
    let speedup = |o: &Outcome| match o {
        Outcome::Timed { timing, .. } => Some(timing.speedup()),
        _ => None,
    };
    let mut kept: Vec<(Job, Outcome)> = vec![];
    for (j, o) in results {
        let Some(s) = speedup(&o) else {
            kept.push((j, o));
            continue;
        };
        match kept
            .iter()
            .position(|(k, ko)| key(k) == key(&j) && speedup(ko).is_some())
        {
            Some(i) if speedup(&kept[i].1).is_some_and(|b| b >= s) => {}
            Some(i) => kept[i] = (j, o),
            None => kept.push((j, o)),
        }
    }
    // Say which script won where the entry's name does not.
    for (j, o) in kept.iter_mut() {
        if let (Outcome::Timed { .. }, Some(script)) = (&*o, &j.script) {
            let script = stem(script);
            if script != j.name {
                j.name = format!("{}: {script}", j.name);
            }
        }
    }
    kept
}
