//! `loopy search`: the legal outer interleavings of a kernel, a §4.1 schedule for each,
//! written as scripts, verified, timed; the fastest written out (docs/search.md).

use super::{CcArgs, Ctx, Format};
use crate::bench::{bench_one, secs, Job, Outcome};
use crate::driver::{Kernel, Run};
use crate::model::json::Json;
use crate::native::{compile::split_words, Clock, Plan, Toolchain};
use crate::presburger::budget;
use crate::search::schedule::Built;
use crate::search::script::{self, Names, Variant};
use crate::search::Legal;
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The C file with the kernel (a complete program, for timing).
    pub kernel: PathBuf,
    /// Write the fastest script found here.
    #[arg(short = 'o', value_name = "BEST.loopy")]
    pub output: Option<PathBuf>,
    /// Time limit of the timing phase in seconds (candidates not timed by then are listed
    /// untimed). Not `--budget`: that is the integer core's work budget, as for every
    /// command.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub time_limit: f64,
    /// Build and verify the candidates of every interleaving without timing anything.
    #[arg(long)]
    pub no_bench: bool,
    /// Enumerate at most this many legal outer interleavings.
    #[arg(long, value_name = "N", default_value_t = 5000)]
    pub max_interleavings: usize,
    /// Tile sizes to try on each permutable band (comma-separated).
    #[arg(
        long,
        value_name = "SIZES",
        default_value = "32,64",
        value_delimiter = ','
    )]
    pub tile_sizes: Vec<u32>,
    /// Timed runs of each program per candidate.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
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
}

/// One candidate script and what became of it.
struct Candidate {
    interleaving: usize,
    variant: String,
    script: Vec<String>,
    verdict: Verdict,
    timing: Option<(f64, f64, f64)>,
}

enum Verdict {
    Legal,
    Illegal(String),
    Error(String),
}

impl Verdict {
    fn name(&self) -> &'static str {
        match self {
            Verdict::Legal => "legal",
            Verdict::Illegal(_) => "illegal",
            Verdict::Error(_) => "error",
        }
    }
}

/// Everything the search keeps while it runs.
struct Search<'a> {
    kernel: &'a Kernel,
    path: &'a Path,
    run: Run,
    names: Names,
    candidates: Vec<Candidate>,
    dir: PathBuf,
    job: Job,
    deadline: Instant,
    ticker: bool,
    text: bool,
    budget: u64,
}

impl Search<'_> {
    /// Writes, checks (and, when `time`, times) a candidate; returns its index.
    fn add(&mut self, il: usize, b: &Built, v: &Variant, time: bool) -> usize {
        let describe = v.describe(b, &self.names);
        let (script, verdict) = match script::write(b, v, &self.names) {
            Err(e) => (vec![], Verdict::Error(e)),
            Ok(lines) => {
                let text = lines.join("\n") + "\n";
                self.run.restart(self.kernel);
                let (run, kernel) = (&mut self.run, self.kernel);
                let checked = budget::with_budget(self.budget, || {
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
        let idx = self.candidates.len();
        self.candidates.push(Candidate {
            interleaving: il,
            variant: describe,
            script,
            verdict,
            timing: None,
        });
        if time {
            self.time(idx);
        }
        idx
    }

    fn time(&mut self, idx: usize) {
        if !matches!(self.candidates[idx].verdict, Verdict::Legal)
            || Instant::now() >= self.deadline
        {
            return;
        }
        let file = self.dir.join(format!("candidate-{idx}.loopy"));
        let text = self.candidates[idx].script.join("\n") + "\n";
        if std::fs::write(&file, text).is_err() {
            return;
        }
        let mut job = Job {
            name: self.job.name.clone(),
            size: None,
            kernel: self.path.to_path_buf(),
            script: Some(file.clone()),
            opts: self.job.opts.clone(),
            toolchain: self.job.toolchain.clone(),
            check_defines: vec![],
            check_cflags: self.job.check_cflags.clone(),
            plan: self.job.plan,
            keep: None,
            baselines: vec![],
            reference: None,
            threads: vec![],
            check: self.job.check,
            flops: None,
        };
        job.keep = None;
        let left = self
            .deadline
            .saturating_duration_since(Instant::now())
            .as_secs();
        let label = format!(
            "candidate {} ({}), {left} s left",
            idx + 1,
            self.candidates[idx].variant
        );
        let ticker = self.ticker;
        let progress = |msg: &str| {
            if ticker {
                eprint!("\r\x1b[2K{label}: {msg}");
                let _ = std::io::stderr().flush();
            }
        };
        let outcome = bench_one(&job, &progress);
        if ticker {
            eprint!("\r\x1b[2K");
        }
        let _ = std::fs::remove_file(&file);
        let c = &mut self.candidates[idx];
        match outcome {
            Outcome::Timed { timing, .. } => {
                let (a, b) = (timing.a_stats().median, timing.b_stats().median);
                c.timing = Some((a, b, timing.speedup()));
                if self.text {
                    println!(
                        "  candidate {:>3}: {:.2}x  ({} -> {})  interleaving {}, {}",
                        idx + 1,
                        timing.speedup(),
                        secs(a),
                        secs(b),
                        c.interleaving + 1,
                        c.variant
                    );
                }
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

    fn speedup(&self, idx: usize) -> Option<f64> {
        self.candidates[idx].timing.map(|t| t.2)
    }
}

/// Other orders of a band's loops tried by the search: the two innermost swapped, the
/// innermost moved outermost, the outermost moved innermost.
fn band_orders(len: usize) -> Vec<Vec<usize>> {
    let id: Vec<usize> = (0..len).collect();
    let mut out: Vec<Vec<usize>> = vec![];
    if len >= 2 {
        let mut s = id.clone();
        s.swap(len - 2, len - 1);
        out.push(s);
        let mut r = vec![len - 1];
        r.extend(0..len - 1);
        out.push(r);
        let mut l: Vec<usize> = (1..len).collect();
        l.push(0);
        out.push(l);
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
        eprintln!("error: tile sizes must be at least 2");
        return 2;
    }
    let text = a.format == Format::Text;
    let space = budget::with_budget(ctx.budget, || {
        let run = Run::start(&kernel);
        let legal = Legal::new(&run.program, &run.deps);
        let il = legal.interleavings(a.max_interleavings);
        (run, legal, il)
    });
    let (run, legal, il) = match space {
        Ok(x) => x,
        Err(e) => {
            eprint!("{}", super::budget_diagnostic(&e).render(&[], ctx.color));
            return 2;
        }
    };
    let built: Vec<Result<Built, String>> = il
        .list
        .iter()
        .map(|c| {
            budget::with_budget(ctx.budget, || legal.build(c))
                .unwrap_or_else(|e| Err(e.to_string()))
        })
        .collect();
    let build_time = start.elapsed().as_secs_f64();
    let scop = &kernel.scop;
    let names = Names {
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
    };
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
    let expressible = built.iter().filter(|b| b.is_ok()).count();
    if text {
        println!(
            "{}: {}{} legal outer interleaving(s), built in {:.2} s; {} with a schedule the \
             search can write as a script",
            a.kernel.display(),
            if il.truncated { "at least " } else { "" },
            il.list.len(),
            build_time,
            expressible
        );
    }
    let dir = std::env::temp_dir().join(format!("loopy-search-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create `{}`: {e}", dir.display());
        return 2;
    }
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
    let job = Job {
        name: crate::bench::stem(&a.kernel),
        size: None,
        kernel: a.kernel.clone(),
        script: None,
        opts: opts.clone(),
        toolchain,
        check_defines: vec![],
        check_cflags: vec!["-ffp-contract=off".to_string()],
        plan: Plan {
            runs: a.runs as usize,
            warmup: 1,
            clock: Clock::Process,
        },
        keep: None,
        baselines: vec![],
        reference: None,
        threads: vec![],
        check: crate::native::run::Check::Exact,
        flops: None,
    };
    let mut s = Search {
        kernel: &kernel,
        path: &a.kernel,
        run,
        names: names.clone(),
        candidates: vec![],
        dir: dir.clone(),
        job,
        deadline: Instant::now() + std::time::Duration::from_secs_f64(a.time_limit.max(0.0)),
        ticker: std::io::stderr().is_terminal() && !a.no_bench,
        text,
        budget: ctx.budget,
    };
    let time = !a.no_bench;
    // Phase 1: the schedule of every interleaving as built, timed until half the time
    // limit has gone (the rest is for the changes of phase 2); later ones are verified only.
    let half = Instant::now() + std::time::Duration::from_secs_f64(a.time_limit.max(0.0) / 2.0);
    let mut base: Vec<Option<usize>> = vec![None; built.len()];
    for (k, b) in built.iter().enumerate() {
        if let Ok(b) = b {
            let timed_any = base.iter().flatten().any(|&c| s.speedup(c).is_some());
            let now = time && (!timed_any || Instant::now() < half);
            base[k] = Some(s.add(k, b, &Variant::plain(b), now));
        }
    }
    if a.no_bench {
        // Without timing: the tiled variant of each as well, verified.
        for (k, b) in built.iter().enumerate() {
            if let Ok(b) = b {
                if b.bands.iter().any(|x| x.len >= 2) {
                    let mut v = Variant::plain(b);
                    for (j, band) in b.bands.iter().enumerate() {
                        if band.len >= 2 {
                            v.tile[j] = a.tile_sizes.first().copied().unwrap_or(32);
                        }
                    }
                    s.add(k, b, &v, false);
                }
            }
        }
    } else {
        // Phase 2: from the fastest interleaving, one change at a time, kept when faster:
        // each band's tile size, then the order of its loops, then a parallel mark.
        let best_il = base
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.and_then(|c| s.speedup(c)).map(|x| (k, x)))
            .max_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((k, mut best)) = best_il {
            let b = built[k].as_ref().expect("timed, so built");
            let mut v = Variant::plain(b);
            // Bands with more loops first, then those with more work (accesses times depth
            // of their statements): the time limit may not reach the last ones.
            let weight = |j: usize| -> usize {
                b.bands[j]
                    .stmts
                    .iter()
                    .map(|&st| scop.statements[st].accesses.len() * b.rows[st].len())
                    .sum()
            };
            let mut bands: Vec<usize> = (0..b.bands.len()).collect();
            bands.sort_by_key(|&j| {
                (
                    std::cmp::Reverse(b.bands[j].len),
                    std::cmp::Reverse(weight(j)),
                    j,
                )
            });
            for &j in &bands {
                if b.bands[j].len < 2 {
                    continue;
                }
                for &size in &a.tile_sizes {
                    let mut w = v.clone();
                    w.tile[j] = size;
                    let c = s.add(k, b, &w, true);
                    if let Some(x) = s.speedup(c).filter(|&x| x > best) {
                        best = x;
                        v = w;
                    }
                }
            }
            for &j in &bands {
                for o in band_orders(b.bands[j].len) {
                    let mut w = v.clone();
                    w.order[j] = o;
                    let c = s.add(k, b, &w, true);
                    if let Some(x) = s.speedup(c).filter(|&x| x > best) {
                        best = x;
                        v = w;
                    }
                }
            }
            for &j in &bands {
                let mut w = v.clone();
                w.parallel[j] = true;
                let c = s.add(k, b, &w, true);
                if let Some(x) = s.speedup(c).filter(|&x| x > best) {
                    best = x;
                    v = w;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let best = (0..s.candidates.len())
        .filter_map(|c| s.speedup(c).map(|x| (c, x)))
        .max_by(|x, y| x.1.total_cmp(&y.1));
    let total = start.elapsed().as_secs_f64();
    let timed = s.candidates.iter().filter(|c| c.timing.is_some()).count();
    let legal_n = s
        .candidates
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Legal))
        .count();
    if let (Some(out), Some((c, x))) = (&a.output, best) {
        let cand = &s.candidates[c];
        let header = format!(
            "# {}: interleaving {} (one of {} legal outer interleavings), {}\n# {:.2}x over \
             the original in one search run (median of {} runs each)\n",
            a.kernel.display(),
            describe_il(cand.interleaving),
            il.list.len(),
            cand.variant,
            x,
            a.runs
        );
        let body = cand.script.join("\n");
        if let Err(e) = std::fs::write(out, format!("{header}{body}\n")) {
            eprintln!("error: cannot write `{}`: {e}", out.display());
            return 2;
        }
    }
    match a.format {
        Format::Text => {
            if a.no_bench {
                for (k, c) in s.candidates.iter().enumerate() {
                    println!(
                        "candidate {}: interleaving {} {}, {}: {}",
                        k + 1,
                        c.interleaving + 1,
                        describe_il(c.interleaving),
                        c.variant,
                        c.verdict.name()
                    );
                    for l in &c.script {
                        println!("    {l}");
                    }
                    if let Verdict::Illegal(m) | Verdict::Error(m) = &c.verdict {
                        println!("    ({m})");
                    }
                }
                for (k, b) in built.iter().enumerate() {
                    if let Err(e) = b {
                        println!("interleaving {} {}: no script ({e})", k + 1, describe_il(k));
                    }
                }
            }
            println!(
                "{} candidate(s), {legal_n} legal, {timed} timed, in {:.1} s",
                s.candidates.len(),
                total
            );
            match best {
                Some((c, x)) => {
                    println!(
                        "best: candidate {} ({:.2}x), interleaving {}, {}:",
                        c + 1,
                        x,
                        describe_il(s.candidates[c].interleaving),
                        s.candidates[c].variant
                    );
                    for l in &s.candidates[c].script {
                        println!("    {l}");
                    }
                    if s.candidates[c].script.is_empty() {
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
            let cands: Vec<Json> = s
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
                        ("variant", Json::str(&c.variant)),
                        ("script", Json::str(c.script.join("\n"))),
                        ("verdict", Json::str(c.verdict.name())),
                    ];
                    if let Verdict::Illegal(m) | Verdict::Error(m) = &c.verdict {
                        f.push(("message", Json::str(m)));
                    }
                    match c.timing {
                        Some((o, t, x)) => {
                            f.push(("original_seconds", Json::Num(o)));
                            f.push(("transformed_seconds", Json::Num(t)));
                            f.push(("speedup", Json::Num(x)));
                        }
                        None => {
                            f.push(("original_seconds", Json::Null));
                            f.push(("transformed_seconds", Json::Null));
                            f.push(("speedup", Json::Null));
                        }
                    }
                    Json::obj(f)
                })
                .collect();
            let unbuilt: Vec<Json> = built
                .iter()
                .enumerate()
                .filter_map(|(k, b)| b.as_ref().err().map(|e| (k, e)))
                .map(|(k, e)| {
                    Json::obj(vec![
                        ("interleaving_index", Json::Int(k as i128)),
                        ("reason", Json::str(e)),
                    ])
                })
                .collect();
            let j = Json::obj(vec![
                ("kernel", Json::str(a.kernel.display().to_string())),
                ("interleavings", Json::Int(il.list.len() as i128)),
                ("interleavings_truncated", Json::Bool(il.truncated)),
                ("build_seconds", Json::Num(build_time)),
                ("without_script", Json::Array(unbuilt)),
                ("candidates", Json::Array(cands)),
                (
                    "best",
                    best.map_or(Json::Null, |(c, _)| Json::Int(c as i128)),
                ),
                ("seconds", Json::Num(total)),
            ]);
            println!("{}", j.pretty());
        }
    }
    0
}
