//! `loopy bench`: build the original and the transformed program with the same compiler and
//! flags, require identical outputs, then time them against each other (docs/bench.md).

use super::check::{load_and_run, parse_manifest, CcArgs, Entry};
use super::Ctx;
use crate::diag::Diagnostic;
use crate::driver::{self, Failure, Kernel, Run};
use crate::frontend::Options;
use crate::model::json::Json;
use crate::native::{
    self, compile::split_words, plot, Clock, Difference, Plan, Stats, Timing, Toolchain, WorkDir,
};
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

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
    #[arg(long, conflicts_with = "script")]
    pub identity: bool,
    /// Bench every legal pair of a manifest (the `[[check]]` entries of `loopy check`) and
    /// print a table.
    #[arg(long, conflicts_with_all = ["kernel", "script"])]
    pub manifest: Option<PathBuf>,
    #[command(flatten)]
    pub cc: CcArgs,
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
    /// A macro for the check build only (repeatable), e.g. `POLYBENCH_DUMP_ARRAYS`.
    #[arg(long = "check-define", value_name = "NAME[=VALUE]")]
    pub check_define: Vec<String>,
    /// Timed runs of each program.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Untimed runs of each program before timing (the check run counts as one when it
    /// used the same executables).
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Take each run's time from the last line of its stdout (seconds; PolyBench's
    /// `-DPOLYBENCH_TIME`) instead of the process's wall time. That line is then left out
    /// of the check run's comparison.
    #[arg(long)]
    pub time_from_stdout: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Keep the transformed source and the executables in this directory (one folder per
    /// entry with `--manifest`).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// With `--manifest`: bench each entry at this size (its `sizes.NAME` macros;
    /// repeatable). Without it, each entry runs at its default size.
    #[arg(long = "size", value_name = "NAME", requires = "manifest")]
    pub sizes: Vec<String>,
    /// With `--manifest`: write a bar chart of the speedups (SVG).
    #[arg(long, value_name = "FILE.svg", requires = "manifest")]
    pub plot: Option<PathBuf>,
    /// Given to the compiler after the kernel: extra sources (a PolyBench `polybench.c`),
    /// objects, libraries.
    #[arg(last = true, value_name = "EXTRA_SOURCES")]
    pub extra: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// The manifest keys `loopy bench` reads beside `loopy check`'s (docs/bench.md).
pub const MANIFEST_KEYS: &[&str] = &[
    "name",
    "bench",
    "sizes",
    "cflags",
    "ldflags",
    "sources",
    "check-define",
    "check-cflags",
    "time-from-stdout",
];

/// The bench part of a manifest entry.
#[derive(Clone, Debug, Default)]
pub struct ManifestBench {
    pub name: Option<String>,
    pub enabled: bool,
    /// Size name to its macros, in manifest order.
    pub sizes: Vec<(String, Vec<String>)>,
    pub cflags: Vec<String>,
    pub ldflags: Vec<String>,
    /// Paths relative to the manifest, resolved.
    pub sources: Vec<PathBuf>,
    pub check_defines: Vec<String>,
    pub check_cflags: Vec<String>,
    pub time_from_stdout: bool,
}

/// Reads the bench keys of entry `i` (1-based in messages).
pub fn parse_manifest_bench(
    t: &toml::Table,
    i: usize,
    dir: &Path,
    bad: &dyn Fn(String) -> Failure,
) -> Result<ManifestBench, Failure> {
    let list = |k: &str, v: &toml::Value| -> Result<Vec<String>, Failure> {
        let err = || bad(format!("check #{i}: `{k}` must be a list of strings"));
        v.as_array()
            .ok_or_else(err)?
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(err))
            .collect()
    };
    let get_list = |k: &str| t.get(k).map_or(Ok(vec![]), |v| list(k, v));
    let get_bool = |k: &str, default: bool| match t.get(k) {
        None => Ok(default),
        Some(toml::Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(bad(format!("check #{i}: `{k}` must be true or false"))),
    };
    let name = match t.get("name") {
        None => None,
        Some(toml::Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad(format!("check #{i}: `name` must be a string"))),
    };
    let sizes = match t.get("sizes") {
        None => vec![],
        Some(toml::Value::Table(s)) => s
            .iter()
            .map(|(k, v)| Ok((k.clone(), list(&format!("sizes.{k}"), v)?)))
            .collect::<Result<_, Failure>>()?,
        Some(_) => {
            return Err(bad(format!(
                "check #{i}: `sizes` must be a table of lists of macros, e.g. \
                 `sizes = {{ large = [\"N=1000\"] }}`"
            )))
        }
    };
    Ok(ManifestBench {
        name,
        enabled: get_bool("bench", true)?,
        sizes,
        cflags: get_list("cflags")?,
        ldflags: get_list("ldflags")?,
        sources: get_list("sources")?
            .into_iter()
            .map(|p| dir.join(p))
            .collect(),
        check_defines: get_list("check-define")?,
        check_cflags: get_list("check-cflags")?,
        time_from_stdout: get_bool("time-from-stdout", false)?,
    })
}

/// One comparison to make.
struct Job {
    /// The kernel's name (manifest `name`, else the file stem) and the size, if any.
    name: String,
    size: Option<String>,
    kernel: PathBuf,
    /// `None`: the identity (`--identity`).
    script: Option<PathBuf>,
    opts: Options,
    toolchain: Toolchain,
    check_defines: Vec<String>,
    check_cflags: Vec<String>,
    plan: Plan,
    keep: Option<PathBuf>,
}

impl Job {
    fn script_name(&self) -> String {
        match &self.script {
            Some(s) => s.display().to_string(),
            None => "the identity".to_string(),
        }
    }

    fn label(&self) -> String {
        match &self.size {
            Some(s) => format!("{} ({s})", self.name),
            None => self.name.clone(),
        }
    }
}

/// What became of a job.
enum Outcome {
    Timed {
        timing: Timing,
        kept: Option<PathBuf>,
    },
    Differ {
        diff: Difference,
        kept: PathBuf,
    },
    Illegal {
        reports: Vec<Failure>,
    },
    Failed {
        failure: Failure,
        kept: Option<PathBuf>,
    },
}

impl Outcome {
    fn exit_code(&self) -> u8 {
        match self {
            Outcome::Timed { .. } => 0,
            Outcome::Differ { .. } | Outcome::Illegal { .. } => 1,
            Outcome::Failed { .. } => 2,
        }
    }
}

/// A one-line progress indicator on the terminal (stderr); silent otherwise.
struct Ticker {
    on: bool,
    label: String,
}

impl Ticker {
    fn show(&self, msg: &str) {
        if self.on {
            eprint!("\r\x1b[2K{}: {msg}", self.label);
            let _ = std::io::stderr().flush();
        }
    }

    fn clear(&self) {
        if self.on {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".into())
}

fn plain(msg: String) -> Failure {
    Failure {
        diagnostic: Diagnostic::new(msg),
        sources: vec![],
    }
}

/// Runs one job: legality, generation, builds, the check run, the timing.
fn bench_one(job: &Job, ticker: &Ticker) -> Outcome {
    let failed = |failure: Failure| Outcome::Failed {
        failure,
        kept: None,
    };
    ticker.show("verifying the script");
    let loaded = match &job.script {
        Some(script) => load_and_run(&job.kernel, script, &job.opts),
        None => Kernel::load(&job.kernel, &job.opts).and_then(|k| {
            let run = Run::new(&k, "", "identity", Path::new("."))?;
            Ok((k, run))
        }),
    };
    let (kernel, run) = match loaded {
        Ok(x) => x,
        Err(f) => return failed(f),
    };
    let violations = run.check();
    if !violations.is_empty() {
        return Outcome::Illegal {
            reports: run.reports(&kernel, &violations),
        };
    }
    ticker.show("generating the transformed kernel");
    let generated = match driver::generate(&kernel, &run.interp.state) {
        Ok(g) => g,
        Err(f) => return failed(f),
    };
    let mut dir = match WorkDir::new(job.keep.as_deref()) {
        Ok(d) => d,
        Err(e) => {
            let at = job
                .keep
                .as_ref()
                .map_or("a temporary directory".to_string(), |k| {
                    format!("`{}`", k.display())
                });
            return failed(plain(format!("cannot create {at}: {e}")));
        }
    };
    let s = stem(&job.kernel);
    let transformed = dir.join(&format!("{s}.transformed.c"));
    if let Err(e) = std::fs::write(&transformed, &generated.file) {
        return failed(plain(format!(
            "cannot write `{}`: {e}",
            transformed.display()
        )));
    }
    let original_dir = match job.kernel.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Builds both programs with `cflags` and `defines` added; the executables' names end in
    // `suffix`.
    let build = |suffix: &str,
                 cflags: &[String],
                 defines: &[String]|
     -> Result<(PathBuf, PathBuf), Failure> {
        let a = dir.join(&format!("{s}.original{suffix}"));
        let b = dir.join(&format!("{s}.transformed{suffix}"));
        let mut toolchain = job.toolchain.clone();
        toolchain.cflags.extend(cflags.iter().cloned());
        ticker.show(&format!("compiling the original{suffix}"));
        toolchain.compile(&job.kernel, &[], defines, &a)?;
        ticker.show(&format!("compiling the transformed program{suffix}"));
        toolchain.compile(
            &transformed,
            std::slice::from_ref(&original_dir),
            defines,
            &b,
        )?;
        Ok((a, b))
    };
    let built = build("", &[], &[]).and_then(|timed| {
        let check = if job.check_defines.is_empty() && job.check_cflags.is_empty() {
            timed.clone()
        } else {
            build(".check", &job.check_cflags, &job.check_defines)?
        };
        Ok((timed, check))
    });
    let (timed, check) = match built {
        Ok(x) => x,
        Err(f) => {
            // The sources stay for the user to look at the compiler's complaint.
            dir.persist();
            return Outcome::Failed {
                failure: f,
                kept: Some(dir.path().to_path_buf()),
            };
        }
    };
    ticker.show("check run (original)");
    let a = match native::run(&check.0) {
        Ok(o) => o,
        Err(f) => return failed(f),
    };
    ticker.show("check run (transformed)");
    let b = match native::run(&check.1) {
        Ok(o) => o,
        Err(f) => return failed(f),
    };
    let ignore_time = job.plan.clock == Clock::Stdout;
    if let Some(diff) = native::compare(&a, &b, ignore_time) {
        dir.persist();
        for (which, o) in [("original", &a), ("transformed", &b)] {
            let _ = std::fs::write(dir.join(&format!("{s}.{which}.stdout")), &o.stdout);
            let _ = std::fs::write(dir.join(&format!("{s}.{which}.stderr")), &o.stderr);
        }
        return Outcome::Differ {
            diff,
            kept: dir.path().to_path_buf(),
        };
    }
    if !a.success() {
        return failed(
            plain(format!(
                "both programs fail the same way ({}); nothing to time",
                a.status
            ))
            .with_stderr(&a.stderr),
        );
    }
    let mut plan = job.plan;
    if check == timed {
        plan.warmup = plan.warmup.saturating_sub(1);
    }
    let total = 2 * (plan.warmup + plan.runs);
    let r = native::time_pair(&timed.0, &timed.1, &plan, &mut |p| {
        let what = if p.warmup { "warm-up" } else { "timing" };
        let side = match p.side {
            native::time::Side::A => "original",
            native::time::Side::B => "transformed",
        };
        ticker.show(&format!("{what} run {}/{total} ({side})", p.done + 1));
    });
    let kept = dir.is_kept().then(|| dir.path().to_path_buf());
    match r {
        Ok(timing) => Outcome::Timed { timing, kept },
        Err(failure) => Outcome::Failed { failure, kept },
    }
}

trait WithStderr {
    fn with_stderr(self, stderr: &[u8]) -> Self;
}

impl WithStderr for Failure {
    fn with_stderr(mut self, stderr: &[u8]) -> Failure {
        let text = String::from_utf8_lossy(stderr);
        let tail: Vec<&str> = text.lines().rev().take(10).collect();
        for l in tail.into_iter().rev() {
            self.diagnostic = self.diagnostic.with_note(format!("stderr: {l}"));
        }
        self
    }
}

/// `1.234 s`, `12.35 ms`, `123.5 µs`.
pub fn secs(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.3} s")
    } else if t >= 1e-3 {
        format!("{:.2} ms", t * 1e3)
    } else {
        format!("{:.1} µs", t * 1e6)
    }
}

fn clock_name(c: Clock) -> &'static str {
    match c {
        Clock::Process => "process wall time",
        Clock::Stdout => "time printed by the program",
    }
}

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

fn outcome_json(job: &Job, o: &Outcome) -> Json {
    let mut f: Vec<(&str, Json)> = vec![
        ("name", Json::str(&job.name)),
        ("size", Json::opt_str(job.size.as_deref())),
        ("kernel", Json::str(job.kernel.display().to_string())),
        (
            "script",
            job.script
                .as_ref()
                .map_or(Json::Null, |s| Json::str(s.display().to_string())),
        ),
    ];
    let kept = |k: &Option<PathBuf>| {
        k.as_ref()
            .map_or(Json::Null, |p| Json::str(p.display().to_string()))
    };
    match o {
        Outcome::Timed { timing, kept: k } => {
            f.push(("status", Json::str("ok")));
            f.push(("check", Json::str("identical")));
            f.push(("original", stats_json(&timing.a_stats(), &timing.a)));
            f.push(("transformed", stats_json(&timing.b_stats(), &timing.b)));
            f.push(("speedup", Json::Num(timing.speedup())));
            f.push(("kept", kept(k)));
        }
        Outcome::Differ { diff, kept: k } => {
            f.push(("status", Json::str("differ")));
            f.push((
                "difference",
                Json::obj(vec![
                    ("stream", Json::str(diff.stream.name())),
                    ("line", Json::Int(diff.line as i128)),
                    ("original", Json::opt_str(diff.a.as_deref())),
                    ("transformed", Json::opt_str(diff.b.as_deref())),
                ]),
            ));
            f.push(("kept", kept(&Some(k.clone()))));
        }
        Outcome::Illegal { reports } => {
            f.push(("status", Json::str("illegal")));
            f.push((
                "violations",
                Json::Array(
                    reports
                        .iter()
                        .map(|r| Json::str(&r.diagnostic.message))
                        .collect(),
                ),
            ));
        }
        Outcome::Failed { failure, kept: k } => {
            f.push(("status", Json::str("error")));
            f.push(("error", Json::str(&failure.diagnostic.message)));
            f.push(("kept", kept(k)));
        }
    }
    Json::obj(f)
}

/// Prints the diagnostics of a job that did not get timed, on stderr.
fn explain(job: &Job, o: &Outcome, ctx: &Ctx) {
    match o {
        Outcome::Timed { .. } => {}
        Outcome::Differ { diff, kept } => {
            eprint!(
                "error: {}: the transformed program's output differs from the original's: {}",
                job.label(),
                diff.describe("original", "transformed")
            );
            eprintln!(
                "  = note: the transformed source and both outputs are in `{}`",
                kept.display()
            );
        }
        Outcome::Illegal { reports } => {
            for r in reports {
                eprint!("{}", r.render(ctx.color));
            }
            eprintln!(
                "error: {} is illegal for {} ({} violation(s)); nothing was benchmarked",
                job.script_name(),
                job.kernel.display(),
                reports.len()
            );
        }
        Outcome::Failed { failure, kept } => {
            eprint!("{}", failure.render(ctx.color));
            if let Some(k) = kept {
                eprintln!("  = note: the transformed source is in `{}`", k.display());
            }
        }
    }
}

/// Settings shared by every job of one command.
struct Common {
    toolchain: Toolchain,
    check_defines: Vec<String>,
    check_cflags: Vec<String>,
    plan: Plan,
}

fn common(a: &BenchArgs) -> Common {
    let mut toolchain = Toolchain {
        cflags: split_words(&a.cflags),
        ldflags: split_words(&a.ldflags),
        extra: a.extra.clone(),
        ..Toolchain::default()
    };
    if let Some(cc) = &a.compiler {
        let w = split_words(cc);
        if !w.is_empty() {
            toolchain.cc = w;
        }
    }
    Common {
        toolchain,
        check_defines: a.check_define.clone(),
        check_cflags: split_words(&a.check_cflags),
        plan: Plan {
            runs: a.runs as usize,
            warmup: a.warmup as usize,
            clock: if a.time_from_stdout {
                Clock::Stdout
            } else {
                Clock::Process
            },
        },
    }
}

fn describe_toolchain(t: &Toolchain) -> String {
    let name = t.version().unwrap_or_else(|| t.cc.join(" "));
    format!("{name}, {}", t.cflags.join(" "))
}

pub fn run(a: BenchArgs, ctx: &Ctx) -> u8 {
    if let Some(m) = a.manifest.clone() {
        return manifest(&m, &a, ctx);
    }
    let c = common(&a);
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
        name: stem(&kernel),
        size: None,
        kernel,
        script,
        opts,
        toolchain,
        check_defines: c.check_defines,
        check_cflags: c.check_cflags,
        plan: c.plan,
        keep: a.keep.clone(),
    };
    let ticker = Ticker {
        on: std::io::stderr().is_terminal(),
        label: job.label(),
    };
    let o = bench_one(&job, &ticker);
    ticker.clear();
    explain(&job, &o, ctx);
    match a.format {
        Format::Json => {
            let mut j = outcome_json(&job, &o);
            if let Json::Object(fields) = &mut j {
                fields.insert(
                    4,
                    (
                        "compiler".into(),
                        Json::str(describe_toolchain(&job.toolchain)),
                    ),
                );
                fields.insert(5, ("clock".into(), Json::str(clock_name(job.plan.clock))));
            }
            println!("{}", j.pretty());
        }
        Format::Text => {
            if let Outcome::Timed { timing, kept } = &o {
                print_single(&job, timing);
                if let Some(k) = kept {
                    println!("kept in {}", k.display());
                }
            }
        }
    }
    o.exit_code()
}

fn print_single(job: &Job, t: &Timing) {
    println!(
        "{} + {}: outputs identical",
        job.kernel.display(),
        job.script_name()
    );
    let second = second_label([job]);
    println!("{:<12} {:>11} {:>11} {:>11}", "", "min", "median", "max");
    for (name, s) in [("original", t.a_stats()), (second, t.b_stats())] {
        println!(
            "{name:<12} {:>11} {:>11} {:>11}",
            secs(s.min),
            secs(s.median),
            secs(s.max)
        );
    }
    println!(
        "speedup {:.2}× (median of {} interleaved rounds; {}; {})",
        t.speedup(),
        t.a.len(),
        clock_name(job.plan.clock),
        describe_toolchain(&job.toolchain)
    );
}

/// A folder name for an entry in the keep directory.
fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

fn manifest_jobs(entries: Vec<Entry>, a: &BenchArgs, c: &Common) -> Result<Vec<Job>, Failure> {
    let mut jobs = vec![];
    for e in entries {
        if !e.expect_legal || !e.bench.enabled {
            continue;
        }
        let name = e.bench.name.clone().unwrap_or_else(|| stem(&e.kernel));
        let mut opts = e.opts.clone();
        opts.includes.extend(a.cc.include.iter().cloned());
        opts.defines.extend(a.cc.define.iter().cloned());
        let sizes: Vec<Option<String>> = if a.sizes.is_empty() {
            vec![None]
        } else {
            a.sizes.iter().cloned().map(Some).collect()
        };
        for size in sizes {
            let mut opts = opts.clone();
            if let Some(s) = &size {
                let Some((_, defs)) = e.bench.sizes.iter().find(|(n, _)| n == s) else {
                    let known: Vec<&str> = e.bench.sizes.iter().map(|(n, _)| n.as_str()).collect();
                    return Err(plain(format!(
                        "the manifest entry `{name}` has no size `{s}` (it has: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )));
                };
                opts.defines.extend(defs.iter().cloned());
            }
            let mut toolchain = c.toolchain.clone();
            toolchain.includes = opts.includes.clone();
            toolchain.defines = opts.defines.clone();
            toolchain.cflags.extend(e.bench.cflags.iter().cloned());
            toolchain.ldflags.extend(e.bench.ldflags.iter().cloned());
            let mut extra: Vec<String> = e
                .bench
                .sources
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            extra.extend(toolchain.extra.iter().cloned());
            toolchain.extra = extra;
            let mut check_defines = e.bench.check_defines.clone();
            check_defines.extend(c.check_defines.iter().cloned());
            let mut check_cflags = c.check_cflags.clone();
            check_cflags.extend(e.bench.check_cflags.iter().cloned());
            let mut plan = c.plan;
            if e.bench.time_from_stdout {
                plan.clock = Clock::Stdout;
            }
            let job = Job {
                name: name.clone(),
                size: size.clone(),
                kernel: e.kernel.clone(),
                script: (!a.identity).then(|| e.script.clone()),
                opts,
                toolchain,
                check_defines,
                check_cflags,
                plan,
                keep: None,
            };
            let folder = match &size {
                Some(s) => format!("{name}-{s}"),
                None => name.clone(),
            };
            let keep = a.keep.as_ref().map(|k| k.join(slug(&folder)));
            jobs.push(Job { keep, ..job });
        }
    }
    Ok(jobs)
}

fn manifest(path: &Path, a: &BenchArgs, ctx: &Ctx) -> u8 {
    let c = common(a);
    let jobs = match parse_manifest(path).and_then(|e| manifest_jobs(e, a, &c)) {
        Ok(j) => j,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let terminal = std::io::stderr().is_terminal();
    let mut results: Vec<(Job, Outcome)> = vec![];
    for (i, job) in jobs.into_iter().enumerate() {
        let ticker = Ticker {
            on: terminal,
            label: job.label(),
        };
        let o = bench_one(&job, &ticker);
        ticker.clear();
        explain(&job, &o, ctx);
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
    let compiler = describe_toolchain(&c.toolchain);
    match a.format {
        Format::Json => {
            let j = Json::obj(vec![
                ("compiler", Json::str(&compiler)),
                ("clock", Json::str(clock_name(c.plan.clock))),
                ("runs", Json::Int(c.plan.runs as i128)),
                (
                    "results",
                    Json::Array(results.iter().map(|(j, o)| outcome_json(j, o)).collect()),
                ),
            ]);
            println!("{}", j.pretty());
        }
        Format::Text => print!("{}", table(&results, &compiler, &c.plan)),
    }
    let mut code = results
        .iter()
        .map(|(_, o)| o.exit_code())
        .max()
        .unwrap_or(0);
    if let Some(p) = &a.plot {
        let bars: Vec<plot::Bar> = results
            .iter()
            .filter_map(|(j, o)| match o {
                Outcome::Timed { timing, .. } => Some(plot::Bar {
                    group: j.name.clone(),
                    series: j.size.clone().unwrap_or_else(|| "default size".into()),
                    value: timing.speedup(),
                }),
                _ => None,
            })
            .collect();
        let title = if a.identity {
            format!("loopy: regenerated kernels against the originals ({compiler})")
        } else {
            format!("loopy: speedups ({compiler})")
        };
        let svg = plot::speedup_chart(&title, &bars);
        if let Err(e) = std::fs::write(p, svg) {
            eprintln!("error: cannot write `{}`: {e}", p.display());
            code = 2;
        }
    }
    code
}

/// What the second program is: the transformed kernel, or with `--identity` the
/// regenerated one.
fn second_label<'a>(jobs: impl IntoIterator<Item = &'a Job>) -> &'static str {
    if jobs.into_iter().any(|j| j.script.is_some()) {
        "transformed"
    } else {
        "regenerated"
    }
}

fn table(results: &[(Job, Outcome)], compiler: &str, plan: &Plan) -> String {
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
    let _ = writeln!(
        s,
        "{:<nw$}  {:<sw$}  {:>11}  {:>11}  {:>8}",
        "kernel",
        "size",
        "original",
        second_label(results.iter().map(|(j, _)| j)),
        "speedup"
    );
    let (mut ok, mut differ, mut bad) = (0, 0, 0);
    for (j, o) in results {
        let size = j.size.as_deref().unwrap_or("-");
        let _ = match o {
            Outcome::Timed { timing, .. } => {
                ok += 1;
                writeln!(
                    s,
                    "{:<nw$}  {size:<sw$}  {:>11}  {:>11}  {:>7.2}×",
                    j.name,
                    secs(timing.a_stats().median),
                    secs(timing.b_stats().median),
                    timing.speedup()
                )
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
    let _ = writeln!(
        s,
        "{ok} timed, {differ} differ or illegal, {bad} failed; medians of {} runs ({}), {compiler}",
        plan.runs,
        clock_name(plan.clock)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(secs(1.5), "1.500 s");
        assert_eq!(secs(0.01234), "12.34 ms");
        assert_eq!(secs(0.0001234), "123.4 µs");
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("fdtd-2d-large"), "fdtd-2d-large");
        assert_eq!(slug("a b/c"), "a-b-c");
    }
}
