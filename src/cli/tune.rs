//! `loopy tune`: arguments and printing; the tuning itself is `crate::tune` (docs/tune.md).

use super::{CcArgs, Ctx, Format, ProgramArgs, SetArgs, TimeArg};
use crate::bench::{secs, Job};
use crate::diag::Report;
use crate::manifest::FlopsSpec;
use crate::model::json::{self, Entries};
use crate::native::{compile::split_words, Plan, Toolchain};
use crate::tune::{self, Bench, Measured, Order, Specs, TuneCandidate, TuneEvent, Tuning};
use clap::Args;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The C file with the kernel (a complete program, for timing).
    pub kernel: PathBuf,
    /// The script whose `param`s are tuned.
    pub script: PathBuf,
    /// Candidate values of a parameter as a range, both ends included: `--range
    /// MC=48..192:24` (step 24; `48..192` steps by 1). Repeatable.
    #[arg(long = "range", value_name = "NAME=LO..HI[:STEP]")]
    pub ranges: Vec<String>,
    /// Candidate values of a parameter as a list: `--values MR=4,6,8`. Repeatable.
    #[arg(long = "values", value_name = "NAME=V1,V2,...")]
    pub values: Vec<String>,
    /// Tune a parameter over the values the script gives it (`param KC = 256 in 128..512
    /// step 64`), else over values around its value: 1/2, 3/4, 1, 5/4, 3/2 and 2 times it,
    /// rounded. Repeatable. Without any of `--range`, `--values` and `--param`, the
    /// parameters with values in the script are tuned, else every parameter.
    #[arg(long = "param", value_name = "NAME")]
    pub params: Vec<String>,
    /// Time every combination of the candidate values (the last parameter varying
    /// fastest) instead of coordinate descent from the script's values.
    #[arg(long)]
    pub grid: bool,
    /// Coordinate descent: at most this many passes over the parameters (a pass that
    /// changes no value ends it sooner).
    #[arg(long, value_name = "N", default_value_t = 3, conflicts_with = "grid")]
    pub passes: usize,
    #[command(flatten)]
    pub sets: SetArgs,
    /// Write the tuned script here: the script with the chosen values in its `param`
    /// lines, everything else unchanged.
    #[arg(short = 'o', value_name = "TUNED.loopy")]
    pub output: Option<PathBuf>,
    /// Time limit of the whole run in seconds, checking and building included: no timing
    /// starts that would not end by then, judging by the timings so far.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub time_limit: f64,
    /// Screen candidates with the integer `-D` sizes multiplied by this fraction, and time
    /// only the best few again at the sizes given (1: time every candidate at those sizes).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.5)]
    pub screen: f64,
    /// Screen only when the original runs at least this long (seconds) at the sizes given:
    /// the script's own values are timed there first.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.5)]
    pub screen_above: f64,
    /// How many of the best screened candidates are timed at the sizes given, and how many
    /// of the best timed candidates play the playoff.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub finalists: usize,
    /// The playoff: the best `--finalists` candidates at the sizes given are timed this many
    /// times more, in turn, and the choice is made among them on all their rounds (0: none).
    /// One timing of a program varies from run to run by more than near candidates differ.
    #[arg(long, value_name = "TIMES", default_value_t = 2)]
    pub playoff: usize,
    /// Timed runs of each program per candidate.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// What is timed: `kernel` (default) the modelled region alone, `process` the whole
    /// process, `stdout` the time the program prints last (as `loopy bench --time`).
    #[arg(long, value_enum, value_name = "CLOCK", default_value_t = TimeArg::Kernel)]
    pub time: TimeArg,
    /// The number of floating-point operations of one run, in the program's macros
    /// (`2*NI*NJ*NK`): the report then gives GFLOP/s.
    #[arg(long, value_name = "EXPR")]
    pub flops: Option<String>,
    #[command(flatten)]
    pub cc: CcArgs,
    /// The C compiler (default `$CC`, then `cc`).
    #[arg(long = "cc", value_name = "COMPILER")]
    pub compiler: Option<String>,
    /// Compiler flags for both programs.
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-O3 -march=native",
        allow_hyphen_values = true
    )]
    pub cflags: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub program: ProgramArgs,
}

fn measured_text(m: &Measured) -> String {
    let g = m
        .gflops
        .map_or(String::new(), |g| format!(", {g:.2} GFLOP/s"));
    format!(
        "{:.2}x ({} -> {}){g}",
        m.speedup,
        secs(m.original),
        secs(m.transformed)
    )
}

#[derive(Serialize)]
struct MeasuredJson {
    original_seconds: f64,
    transformed_seconds: f64,
    speedup: f64,
    gflops: Option<f64>,
    rounds: usize,
}

impl MeasuredJson {
    fn of(m: &Measured) -> Self {
        MeasuredJson {
            original_seconds: m.original,
            transformed_seconds: m.transformed,
            speedup: m.speedup,
            gflops: m.gflops,
            rounds: m.rounds,
        }
    }
}

pub fn run(a: TuneArgs, ctx: &Ctx) -> u8 {
    let began = Instant::now();
    let tuning = match tuning(&a, ctx) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let ticker = std::io::stderr().is_terminal();
    let mut on = progress_printer(&a, ticker);
    let r = tune::tune(&tuning, &mut Bench, &mut on);
    if ticker {
        eprint!("\r\x1b[2K");
        let _ = std::io::stderr().flush();
    }
    let r = match r {
        Ok(r) => r,
        Err(f) => return fail(ctx, f),
    };
    let total = began.elapsed().as_secs_f64();
    if let Err(code) = write_tuned(&a, &r, ctx) {
        return code;
    }
    let order = match tuning.order {
        Order::Grid => "grid".to_string(),
        Order::Descent { passes } => format!("coordinate descent, at most {passes} passes"),
    };
    match a.format {
        Format::Text => print_text(&a, &r, &order, total),
        Format::Json => println!("{}", json::pretty(&result_json(&a, &r, order, total))),
    }
    if r.best.is_some() {
        0
    } else {
        1
    }
}

fn fail(ctx: &Ctx, r: Report) -> u8 {
    eprint!("{}", r.render(ctx.color));
    2
}

fn invalid_option(ctx: &Ctx, message: &str) -> u8 {
    super::error(
        ctx,
        crate::diag::Diagnostic::new(crate::diag::codes::INVALID_OPTION, message),
    )
}

/// The tuning the arguments ask for (or the exit code of their mistake, reported).
fn tuning(a: &TuneArgs, ctx: &Ctx) -> Result<Tuning, u8> {
    let settings = a.sets.settings().map_err(|r| fail(ctx, r))?;
    let specs =
        Specs::from_command_line(&a.ranges, &a.values, &a.params).map_err(|r| fail(ctx, r))?;
    if !(a.screen > 0.0 && a.screen <= 1.0) {
        return Err(invalid_option(ctx, "--screen must be a fraction in (0, 1]"));
    }
    if a.passes == 0 {
        return Err(invalid_option(ctx, "--passes must be at least 1"));
    }
    let flops = a
        .flops
        .as_deref()
        .map(FlopsSpec::from_option)
        .transpose()
        .map_err(|r| fail(ctx, r))?;
    let opts = a.cc.options();
    let mut toolchain = Toolchain {
        cflags: split_words(&a.cflags),
        extra: a.program.extra.clone(),
        ..Toolchain::default()
    };
    if let Some(cc) = &a.compiler {
        let w = split_words(cc);
        if !w.is_empty() {
            toolchain.cc = w;
        }
    }
    toolchain.includes = opts.includes.clone();
    toolchain.defines = opts.defines.clone();
    let plan = Plan {
        runs: a.runs as usize,
        warmup: 1,
        clock: a.time.clock(),
    };
    let job = Job {
        settings,
        check_defines: a.program.check_define.clone(),
        check_cflags: vec!["-ffp-contract=off".to_string()],
        flops,
        ..Job::new(
            a.kernel.clone(),
            Some(a.script.clone()),
            opts,
            toolchain,
            plan,
        )
    };
    Ok(Tuning {
        specs,
        order: if a.grid {
            Order::Grid
        } else {
            Order::Descent { passes: a.passes }
        },
        time_limit: a.time_limit,
        screen: a.screen,
        screen_above: a.screen_above,
        finalists: a.finalists,
        playoff: a.playoff,
        budget: ctx.budget,
        job,
    })
}

/// What is printed while tuning: the status on the terminal's last line, and in text
/// format a line per candidate timed.
fn progress_printer(a: &TuneArgs, ticker: bool) -> impl FnMut(TuneEvent) {
    let text = a.format == Format::Text;
    let runs = a.runs as usize;
    move |e: TuneEvent| match e {
        TuneEvent::Status(msg) => {
            if ticker {
                eprint!("\r\x1b[2K{msg}");
                let _ = std::io::stderr().flush();
            }
        }
        TuneEvent::Timed {
            index,
            candidate: c,
            screen,
            params,
        } => {
            if ticker {
                eprint!("\r\x1b[2K");
            }
            let m = if screen { &c.screen } else { &c.timing };
            if let (true, Some(m)) = (text, m) {
                let note = if screen {
                    " [screening]".to_string()
                } else if m.rounds > runs {
                    format!(" [playoff, {} rounds]", m.rounds)
                } else {
                    String::new()
                };
                println!(
                    "  candidate {:>3}: {}: {}{note}",
                    index + 1,
                    tune::describe(params, &c.values),
                    measured_text(m),
                );
            }
        }
    }
}

/// With `-o`, the script with the best candidate's values written in.
fn write_tuned(a: &TuneArgs, r: &tune::TuneReport, ctx: &Ctx) -> Result<(), u8> {
    let (Some(out), Some(b)) = (&a.output, r.best.map(|b| &r.candidates[b])) else {
        return Ok(());
    };
    let script_text = std::fs::read_to_string(&a.script).map_err(|e| {
        super::error(
            ctx,
            crate::diag::Diagnostic::new(
                crate::diag::codes::CANNOT_READ,
                format!("cannot read `{}`: {e}", a.script.display()),
            ),
        )
    })?;
    let names = r.params.iter().map(|p| p.name.clone());
    let chosen: Vec<(String, i64)> = names.zip(b.values.clone()).collect();
    let tuned =
        tune::rewrite(&script_text, &a.script.display().to_string(), &chosen).map_err(|d| {
            fail(
                ctx,
                Report {
                    diagnostic: d,
                    sources: vec![(a.script.display().to_string(), script_text.clone())],
                },
            )
        })?;
    std::fs::write(out, tuned).map_err(|e| {
        super::error(
            ctx,
            crate::diag::Diagnostic::new(
                crate::diag::codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", out.display()),
            ),
        )
    })
}

/// A candidate's timing at the sizes asked for, else at the screening sizes.
fn at_size(c: &TuneCandidate) -> Option<(&Measured, &'static str)> {
    c.timing
        .as_ref()
        .map(|m| (m, ""))
        .or(c.screen.as_ref().map(|m| (m, " at the screening sizes")))
}

/// The text summary: candidates refused, what was tuned, the counts, the playoff, the
/// script's own values and the best.
fn print_text(a: &TuneArgs, r: &tune::TuneReport, order: &str, total: f64) {
    let names: Vec<String> = r.params.iter().map(|p| p.name.clone()).collect();
    for (k, c) in r.candidates.iter().enumerate() {
        if let Some(m) = c.verdict.message() {
            println!(
                "  candidate {:>3}: {}: {}: {m}",
                k + 1,
                pairs(&names, &c.values),
                c.verdict.name()
            );
        }
    }
    let starts: Vec<String> = r
        .params
        .iter()
        .map(|p| format!("{}={} ({})", p.name, p.start, p.origin))
        .collect();
    println!(
        "{}: tuned {} of {} by {order}, from {}",
        a.kernel.display(),
        names.join(", "),
        a.script.display(),
        starts.join(" ")
    );
    if let Some(d) = &r.screen_defines {
        println!("screened at {}", d.join(" "));
    }
    let legal = r
        .candidates
        .iter()
        .filter(|c| c.verdict == crate::tune::Verdict::Legal)
        .count();
    let timed = r
        .candidates
        .iter()
        .filter(|c| c.timing.is_some() || c.screen.is_some())
        .count();
    println!(
        "{} candidate(s), {legal} legal, {timed} timed, in {total:.1} s{}",
        r.candidates.len(),
        if r.out_of_time {
            " (the time limit ended the search)"
        } else {
            ""
        }
    );
    if !r.playoff.is_empty() {
        let who: Vec<String> = r.playoff.iter().map(|c| (c + 1).to_string()).collect();
        println!(
            "playoff: candidates {} timed {} more time(s) each, in turn; chosen on all their rounds",
            who.join(", "),
            a.playoff
        );
    }
    let start = r.start();
    if let Some((m, at)) = start.and_then(|s| at_size(&r.candidates[s])) {
        println!("the script's values: {}{at}", measured_text(m));
    }
    print_best(a, r, &names);
}

/// The best candidate against the script's own values, or why nothing was timed.
fn print_best(a: &TuneArgs, r: &tune::TuneReport, names: &[String]) {
    let (Some(b), Some((m, screened))) = (r.best, r.best_measured()) else {
        let verdicts: Vec<&tune::Verdict> = r.candidates.iter().map(|c| &c.verdict).collect();
        println!(
            "nothing was timed: {}",
            crate::timing::why_nothing_timed(&verdicts, r.out_of_time)
        );
        return;
    };
    let c = &r.candidates[b];
    let over = r
        .start()
        .and_then(|s| {
            let st = &r.candidates[s];
            if screened {
                st.screen
            } else {
                st.timing
            }
        })
        .map_or(String::new(), |s| {
            format!(", {:.2}x the script's values", m.speedup / s.speedup)
        });
    println!(
        "best: candidate {} ({}): {}{}{over}",
        b + 1,
        pairs(names, &c.values),
        measured_text(m),
        if screened {
            " at the screening sizes"
        } else {
            ""
        }
    );
    if let Some(o) = &a.output {
        println!("written to {}", o.display());
    }
}

/// What `loopy tune --format json` prints.
#[derive(Serialize)]
struct TuneJson<'a> {
    kernel: String,
    script: String,
    order: String,
    params: Vec<ParamJson<'a>>,
    screen_defines: Option<&'a [String]>,
    candidates: Vec<CandidateJson<'a>>,
    start: Option<usize>,
    best: Option<usize>,
    playoff: &'a [usize],
    out_of_time: bool,
    output: Option<String>,
    seconds: f64,
}

#[derive(Serialize)]
struct ParamJson<'a> {
    name: &'a str,
    start: i64,
    origin: &'a str,
    values: &'a [i64],
}

#[derive(Serialize)]
struct CandidateJson<'a> {
    values: Entries<&'a str, i64>,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    screen: Option<MeasuredJson>,
    timing: Option<MeasuredJson>,
}

/// The JSON of `--format json`.
fn result_json<'a>(
    a: &TuneArgs,
    r: &'a tune::TuneReport,
    order: String,
    total: f64,
) -> TuneJson<'a> {
    let candidates = r
        .candidates
        .iter()
        .map(|c| CandidateJson {
            values: Entries(
                r.params
                    .iter()
                    .zip(&c.values)
                    .map(|(p, v)| (p.name.as_str(), *v))
                    .collect(),
            ),
            verdict: c.verdict.name(),
            message: c.verdict.message(),
            screen: c.screen.as_ref().map(MeasuredJson::of),
            timing: c.timing.as_ref().map(MeasuredJson::of),
        })
        .collect();
    let params = r
        .params
        .iter()
        .map(|p| ParamJson {
            name: &p.name,
            start: p.start,
            origin: &p.origin,
            values: &p.values,
        })
        .collect();
    TuneJson {
        kernel: a.kernel.display().to_string(),
        script: a.script.display().to_string(),
        order,
        params,
        screen_defines: r.screen_defines.as_deref(),
        candidates,
        start: r.start(),
        best: r.best,
        playoff: &r.playoff,
        out_of_time: r.out_of_time,
        output: match (&a.output, r.best) {
            (Some(o), Some(_)) => Some(o.display().to_string()),
            _ => None,
        },
        seconds: total,
    }
}

/// `MR=6 NR=8`.
fn pairs(names: &[String], values: &[i64]) -> String {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}
