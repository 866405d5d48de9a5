//! `loopy search`: arguments and printing; the search itself is `search::driver`
//! (docs/search.md).

use super::{CcArgs, Ctx, Format, TimeArg};
use crate::bench::Verdict;
use crate::bench::{secs, Job};
use crate::driver::Kernel;
use crate::model::json::Json;
use crate::native::{compile::split_words, Plan, Toolchain};
use crate::search::driver::{self, Event, SearchSettings};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The C file with the kernel (a complete program, for timing).
    pub kernel: PathBuf,
    /// Write the fastest script found here.
    #[arg(short = 'o', value_name = "BEST.loopy")]
    pub output: Option<PathBuf>,
    /// Time limit of the whole search in seconds, building and checking included: no timing
    /// starts that would not end by then, judging by the longest so far (candidates not
    /// timed are listed untimed). Not `--budget`: that is the integer core's work budget,
    /// as for every command.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub time_limit: f64,
    /// Build and verify the candidates of every interleaving scheduled without timing
    /// anything.
    #[arg(long)]
    pub no_bench: bool,
    /// Schedule at most this many of the legal outer interleavings (all are counted; when
    /// there are more, the kernel's own and evenly spaced ones in enumeration order).
    #[arg(long, value_name = "N", default_value_t = 48)]
    pub max_interleavings: usize,
    /// Tile sizes to try on each permutable band (comma-separated; the first is the one
    /// tried first and the one `--no-bench` writes). Default: the values `loopy tune` tries
    /// around the machine model's size (three square tiles of doubles in half the L1 data
    /// cache; 32 when the L1 is unknown): x 1/2, 3/4, 1, 5/4, 3/2, 2.
    #[arg(long, value_name = "SIZES", value_delimiter = ',')]
    pub tile_sizes: Vec<u32>,
    /// Screen candidates with the integer `-D` sizes multiplied by this fraction, and time
    /// only the best few again at the sizes given (1: time every candidate at those sizes).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.5)]
    pub screen: f64,
    /// Screen only when the original runs at least this long (seconds) at the sizes given:
    /// the first schedule is timed there first.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.5)]
    pub screen_above: f64,
    /// How many of the best screened candidates are timed at the sizes given.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub finalists: usize,
    /// Never add `parallel` marks: sequential scripts only (compare with sequential hand
    /// scripts, or time for one core).
    #[arg(long)]
    pub no_parallel: bool,
    /// Timed runs of each program per candidate.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// What is timed: `kernel` (default) the modelled region alone, `process` the whole
    /// process, `stdout` the time the program prints last (as `loopy bench --time`).
    #[arg(long, value_enum, value_name = "CLOCK", default_value_t = TimeArg::Kernel)]
    pub time: TimeArg,
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
    /// A script run before every candidate (`expand(...)` lines): the search explores the
    /// program it leaves, and every script it writes starts with it.
    #[arg(long, value_name = "PREFIX.loopy")]
    pub prefix: Option<PathBuf>,
}

pub fn run(a: SearchArgs, ctx: &Ctx) -> u8 {
    let start = Instant::now();
    let opts = a.cc.options();
    let kernel = match Kernel::load(&a.kernel, &opts) {
        Ok(k) => k,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    if a.tile_sizes.iter().any(|&s| s < 2) {
        return super::error(
            ctx,
            crate::diag::Diagnostic::new(
                crate::diag::codes::INVALID_OPTION,
                "tile sizes must be at least 2",
            ),
        );
    }
    if !(a.screen > 0.0 && a.screen <= 1.0) {
        return super::error(
            ctx,
            crate::diag::Diagnostic::new(
                crate::diag::codes::INVALID_OPTION,
                "--screen must be a fraction in (0, 1]",
            ),
        );
    }
    // The prefix must run on the kernel by itself.
    let prefix: Vec<String> = match &a.prefix {
        None => vec![],
        Some(p) => match crate::driver::run_prefix(&kernel, p) {
            Ok((body, _)) => body.lines().map(str::to_string).collect(),
            Err(f) => {
                eprint!("{}", f.render(ctx.color));
                return 2;
            }
        },
    };
    let text = a.format == Format::Text;
    let mut toolchain = Toolchain {
        cflags: split_words(&a.cflags),
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
        check_cflags: vec!["-ffp-contract=off".to_string()],
        ..Job::new(a.kernel.clone(), None, opts.clone(), toolchain, plan)
    };
    let (tile_sizes, tile_start, tile_origin) = tile_sizes(&a.tile_sizes, &job.toolchain);
    let settings = SearchSettings {
        time_limit: a.time_limit,
        bench: !a.no_bench,
        max_interleavings: a.max_interleavings,
        tile_sizes: tile_sizes.clone(),
        tile_start,
        budget: ctx.budget,
        screen: a.screen,
        screen_above: a.screen_above,
        finalists: a.finalists,
        parallel: !a.no_parallel,
        job,
        prefix,
    };
    let ticker = std::io::stderr().is_terminal() && !a.no_bench;
    let mut on = |e: Event| match e {
        Event::Status(msg) => {
            if ticker {
                eprint!("\r\x1b[2K{msg}");
                let _ = std::io::stderr().flush();
            }
        }
        Event::Timed {
            index,
            candidate: c,
            screen,
        } => {
            if ticker {
                eprint!("\r\x1b[2K");
            }
            let t = if screen { c.screen } else { c.timing };
            if let (true, Some((o, tr, x))) = (text, t) {
                println!(
                    "  candidate {:>3}: {:.2}x  ({} -> {})  interleaving {}, {}{}",
                    index + 1,
                    x,
                    secs(o),
                    secs(tr),
                    c.interleaving + 1,
                    c.describe(),
                    if screen { " [screening]" } else { "" }
                );
            }
        }
    };
    let r = match driver::search(&kernel, &settings, &mut on) {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", super::budget_diagnostic(&e).render(&[], ctx.color));
            return 2;
        }
    };
    let il = &r.interleavings;
    let names = driver::names(&kernel);
    let describe_il = |k: usize| -> String {
        il.list[k]
            .iter()
            .map(|c| {
                let h: Vec<&str> = c.iter().map(|&s| names.handles[s].as_str()).collect();
                format!("({})", h.join(" "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let total = start.elapsed().as_secs_f64();
    let timed = r
        .candidates
        .iter()
        .filter(|c| c.timing.is_some() || c.screen.is_some())
        .count();
    let legal_n = r
        .candidates
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Legal))
        .count();
    let best = r.best.zip(r.best_speedup());
    // No candidate faster than the original: the kernel as it is is the answer (its own
    // schedule is always legal), the fastest candidate only reported.
    let original_wins = r.original_wins();
    if let (Some(out), Some((c, (x, _))), true) = (&a.output, best, original_wins) {
        let header = format!(
            "# {}: no candidate was faster than the original in one search run (the fastest, \
             candidate {}, ran at {x:.2}x): the kernel as it is\n",
            a.kernel.display(),
            c + 1
        );
        if let Err(e) = std::fs::write(out, header) {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(
                    crate::diag::codes::CANNOT_WRITE,
                    format!("cannot write `{}`: {e}", out.display()),
                ),
            );
        }
    } else if let (Some(out), Some((c, (x, screened)))) = (&a.output, best) {
        let cand = &r.candidates[c];
        let at = match (&r.screen_defines, screened) {
            (Some(d), true) => format!(" at the screening sizes ({})", d.join(" ")),
            _ => String::new(),
        };
        let header = format!(
            "# {}: interleaving {} (one of {} legal outer interleavings), {}\n# {:.2}x over \
             the original{at} in one search run (median of {} runs each)\n",
            a.kernel.display(),
            describe_il(cand.interleaving),
            il.count,
            cand.describe(),
            x,
            a.runs
        );
        let body = cand.script.join("\n");
        if let Err(e) = std::fs::write(out, format!("{header}{body}\n")) {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(
                    crate::diag::codes::CANNOT_WRITE,
                    format!("cannot write `{}`: {e}", out.display()),
                ),
            );
        }
    }
    let unbuilt: Vec<(usize, &str, &String)> = r
        .schedules
        .iter()
        .filter_map(|sc| {
            sc.built
                .as_ref()
                .err()
                .map(|e| (sc.interleaving, sc.kind.name(), e))
        })
        .collect();
    match a.format {
        Format::Text => {
            if a.no_bench {
                for (k, c) in r.candidates.iter().enumerate() {
                    println!(
                        "candidate {}: interleaving {} {}, {}: {}",
                        k + 1,
                        c.interleaving + 1,
                        describe_il(c.interleaving),
                        c.describe(),
                        c.verdict.name()
                    );
                    for l in &c.script {
                        println!("    {l}");
                    }
                    if let Verdict::Illegal(m) | Verdict::Error(m) = &c.verdict {
                        println!("    ({m})");
                    }
                }
                for (k, kind, e) in &unbuilt {
                    println!(
                        "interleaving {} {}: no {kind} script ({e})",
                        k + 1,
                        describe_il(*k)
                    );
                }
            }
            println!(
                "{}: {}{} legal outer interleaving(s), {} scheduled{}, built in {:.2} s; {} \
                 with a schedule the search can write as a script",
                a.kernel.display(),
                if il.exact { "" } else { "at least " },
                il.count,
                il.list.len(),
                if (il.list.len() as u128) < il.count {
                    format!(" (--max-interleavings {})", a.max_interleavings)
                } else {
                    String::new()
                },
                r.build_seconds,
                (0..il.list.len())
                    .filter(|&k| r
                        .schedules
                        .iter()
                        .any(|sc| sc.interleaving == k && sc.built.is_ok()))
                    .count()
            );
            if let Some(d) = &r.screen_defines {
                println!("screened at {}", d.join(" "));
            }
            println!(
                "tile sizes: {} ({tile_origin})",
                tile_sizes
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            println!(
                "{} candidate(s), {legal_n} legal, {timed} timed, in {:.1} s",
                r.candidates.len(),
                total
            );
            match best {
                Some((c, (x, screened))) if original_wins => {
                    println!(
                        "best: the kernel as it is (no candidate beat the original; the fastest, candidate {}, ran at {x:.2}x{})",
                        c + 1,
                        if screened {
                            " at the screening sizes"
                        } else {
                            ""
                        },
                    );
                    if let Some(o) = &a.output {
                        println!("written to {}", o.display());
                    }
                }
                Some((c, (x, screened))) => {
                    println!(
                        "best: candidate {} ({:.2}x{}), interleaving {}, {}:",
                        c + 1,
                        x,
                        if screened {
                            " at the screening sizes"
                        } else {
                            ""
                        },
                        describe_il(r.candidates[c].interleaving),
                        r.candidates[c].describe()
                    );
                    for l in &r.candidates[c].script {
                        println!("    {l}");
                    }
                    if r.candidates[c].script.is_empty() {
                        println!("    (the kernel as it is)");
                    }
                    if let Some(o) = &a.output {
                        println!("written to {}", o.display());
                    }
                }
                None if !a.no_bench => println!("nothing was timed"),
                None => {}
            }
        }
        Format::Json => {
            let triple = |t: Option<(f64, f64, f64)>,
                          f: &mut Vec<(&str, Json)>,
                          names: [&'static str; 3]| {
                match t {
                    Some((o, tr, x)) => {
                        f.push((names[0], Json::Num(o)));
                        f.push((names[1], Json::Num(tr)));
                        f.push((names[2], Json::Num(x)));
                    }
                    None => {
                        for n in names {
                            f.push((n, Json::Null));
                        }
                    }
                }
            };
            let cands: Vec<Json> = r
                .candidates
                .iter()
                .map(|c| {
                    let mut f = vec![
                        (
                            "interleaving",
                            Json::Array(
                                il.list[c.interleaving]
                                    .iter()
                                    .map(|cl| {
                                        Json::Array(
                                            cl.iter()
                                                .map(|&st| Json::str(&names.handles[st]))
                                                .collect(),
                                        )
                                    })
                                    .collect(),
                            ),
                        ),
                        ("interleaving_index", Json::Int(c.interleaving as i128)),
                        (
                            "interleaving_rank",
                            Json::Int(
                                i128::try_from(il.ranks[c.interleaving]).unwrap_or(i128::MAX),
                            ),
                        ),
                        ("kind", Json::str(c.kind.name())),
                        ("variant", Json::str(c.describe())),
                        ("script", Json::str(c.script.join("\n"))),
                        ("verdict", Json::str(c.verdict.name())),
                    ];
                    if let Verdict::Illegal(m) | Verdict::Error(m) = &c.verdict {
                        f.push(("message", Json::str(m)));
                    }
                    triple(
                        c.timing,
                        &mut f,
                        ["original_seconds", "transformed_seconds", "speedup"],
                    );
                    triple(
                        c.screen,
                        &mut f,
                        [
                            "screen_original_seconds",
                            "screen_transformed_seconds",
                            "screen_speedup",
                        ],
                    );
                    Json::obj(f)
                })
                .collect();
            let unbuilt: Vec<Json> = unbuilt
                .iter()
                .map(|(k, kind, e)| {
                    Json::obj(vec![
                        ("interleaving_index", Json::Int(*k as i128)),
                        ("kind", Json::str(*kind)),
                        ("reason", Json::str(*e)),
                    ])
                })
                .collect();
            let j = Json::obj(vec![
                ("kernel", Json::str(a.kernel.display().to_string())),
                (
                    "interleavings",
                    Json::Int(i128::try_from(il.count).unwrap_or(i128::MAX)),
                ),
                ("interleavings_exact", Json::Bool(il.exact)),
                ("interleavings_scheduled", Json::Int(il.list.len() as i128)),
                (
                    "own_interleaving",
                    il.own.map_or(Json::Null, |k| Json::Int(k as i128)),
                ),
                ("fusability_tests", Json::Int(il.tests as i128)),
                ("build_seconds", Json::Num(r.build_seconds)),
                ("without_script", Json::Array(unbuilt)),
                (
                    "screen_defines",
                    r.screen_defines.as_ref().map_or(Json::Null, |d| {
                        Json::Array(d.iter().map(Json::str).collect())
                    }),
                ),
                (
                    "tile_sizes",
                    Json::Array(tile_sizes.iter().map(|&t| Json::Int(t.into())).collect()),
                ),
                ("tile_sizes_from", Json::str(&tile_origin)),
                ("candidates", Json::Array(cands)),
                ("best", r.best.map_or(Json::Null, |c| Json::Int(c as i128))),
                ("original_wins", Json::Bool(original_wins)),
                ("seconds", Json::Num(total)),
            ]);
            println!("{}", j.pretty());
        }
    }
    0
}

/// The tile sizes the search tries, the first one, and where they come from: the sizes
/// given, else `loopy tune`'s values around the machine model's square tile, nearest first
/// ([`crate::machine::model::square_tile`], for doubles) or around 32 when the L1 data cache
/// cannot be read.
fn tile_sizes(given: &[u32], toolchain: &Toolchain) -> (Vec<u32>, u32, String) {
    if let Some(&first) = given.first() {
        return (given.to_vec(), first, "given".to_string());
    }
    let l1 = crate::machine::probe(toolchain, None, &Default::default())
        .map_err(|_| "the compiler could not be asked".to_string())
        .and_then(|m| m.level(1));
    let (start, origin) = match l1 {
        Ok(l) => {
            let t = crate::machine::model::square_tile(&l, 8);
            (
                t,
                format!(
                    "around {t}: three {t} x {t} tiles of doubles fill half the {} KiB L1 data cache",
                    l.size / 1024
                ),
            )
        }
        Err(e) => (
            32,
            format!("around 32: the machine model has no L1 size ({e})"),
        ),
    };
    // The model's size first, then the others from the nearest: the greedy phase tries them
    // in this order while time is left.
    let mut sizes: Vec<u32> = crate::bench::tune::around(i64::from(start))
        .into_iter()
        .filter_map(|v| u32::try_from(v).ok().filter(|&v| v >= 2))
        .collect();
    sizes.sort_by_key(|&v| (v.abs_diff(start), v));
    (sizes, start, origin)
}
