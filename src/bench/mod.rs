//! The bench loop behind `loopy bench` (and anything else that times scripts): a [`Job`] is
//! one comparison — verify the script, generate the transformed kernel, build the original
//! and the transformed program with the same toolchain, require identical outputs, time
//! them interleaved — and its [`Outcome`]. Also the jobs of a manifest and the results
//! table. Printing diagnostics and the command line belong to `cli/bench.rs`.

use crate::diag::Diagnostic;
use crate::driver::{self, load_and_run, Failure, Kernel, Run};
use crate::frontend::Options;
use crate::manifest::Entry;
use crate::model::json::Json;
use crate::native::{self, Clock, Difference, Plan, Stats, Timing, Toolchain, WorkDir};
use std::path::{Path, PathBuf};

/// One comparison to make.
pub struct Job {
    /// The kernel's name (manifest `name`, else the file stem) and the size, if any.
    pub name: String,
    pub size: Option<String>,
    pub kernel: PathBuf,
    /// `None`: the identity (`--identity`).
    pub script: Option<PathBuf>,
    pub opts: Options,
    pub toolchain: Toolchain,
    pub check_defines: Vec<String>,
    pub check_cflags: Vec<String>,
    pub plan: Plan,
    pub keep: Option<PathBuf>,
}

impl Job {
    pub fn script_name(&self) -> String {
        match &self.script {
            Some(s) => s.display().to_string(),
            None => "the identity".to_string(),
        }
    }

    pub fn label(&self) -> String {
        match &self.size {
            Some(s) => format!("{} ({s})", self.name),
            None => self.name.clone(),
        }
    }
}

/// What became of a job.
pub enum Outcome {
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
    pub fn exit_code(&self) -> u8 {
        match self {
            Outcome::Timed { .. } => 0,
            Outcome::Differ { .. } | Outcome::Illegal { .. } => 1,
            Outcome::Failed { .. } => 2,
        }
    }
}

/// Where a job reports what it is doing (a terminal ticker, or nothing).
pub type Progress<'a> = &'a dyn Fn(&str);

pub fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".into())
}

pub fn plain(msg: String) -> Failure {
    Failure {
        diagnostic: Diagnostic::new(msg),
        sources: vec![],
    }
}

/// The OpenMP flag a generated file needs, added to both programs' builds (the original is
/// then built the same way): `-fopenmp` when it has a parallel loop, `-fopenmp-simd` when it
/// has only simd loops, none when it has no marks.
pub fn openmp_flag(generated: &str) -> Option<&'static str> {
    let pragmas = || generated.lines().map(str::trim_start);
    if pragmas().any(|l| l.starts_with("#pragma omp parallel")) {
        Some("-fopenmp")
    } else if pragmas().any(|l| l.starts_with("#pragma omp simd")) {
        Some("-fopenmp-simd")
    } else {
        None
    }
}

/// Runs one job: legality, generation, builds, the check run, the timing.
pub fn bench_one(job: &Job, progress: Progress) -> Outcome {
    let failed = |failure: Failure| Outcome::Failed {
        failure,
        kept: None,
    };
    progress("verifying the script");
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
    progress("generating the transformed kernel");
    let generated = match driver::generate(&kernel, &run.interp.state) {
        Ok(g) => g,
        Err(mut f) => {
            // Marks that cannot be generated point into the script.
            f.sources = run.sources(&kernel);
            return failed(f);
        }
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
    let openmp = openmp_flag(&generated.file);
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
        toolchain
            .cflags
            .extend(openmp.iter().map(|f| f.to_string()));
        toolchain.cflags.extend(cflags.iter().cloned());
        progress(&format!("compiling the original{suffix}"));
        toolchain.compile(&job.kernel, &[], defines, &a)?;
        progress(&format!("compiling the transformed program{suffix}"));
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
    progress("check run (original)");
    let a = match native::run(&check.0) {
        Ok(o) => o,
        Err(f) => return failed(f),
    };
    progress("check run (transformed)");
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
        progress(&format!("{what} run {}/{total} ({side})", p.done + 1));
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

pub fn clock_name(c: Clock) -> &'static str {
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

pub fn outcome_json(job: &Job, o: &Outcome) -> Json {
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

/// Settings shared by every job of one command.
#[derive(Clone, Debug)]
pub struct Settings {
    pub toolchain: Toolchain,
    pub check_defines: Vec<String>,
    pub check_cflags: Vec<String>,
    pub plan: Plan,
}

/// What a `--manifest` run adds to each entry: the command line's preprocessor options, the
/// sizes to run each entry at (none: its default size), the identity instead of the
/// scripts, and where to keep the builds.
#[derive(Clone, Debug, Default)]
pub struct ManifestRun {
    pub includes: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub sizes: Vec<String>,
    pub identity: bool,
    pub keep: Option<PathBuf>,
}

pub fn describe_toolchain(t: &Toolchain) -> String {
    let name = t.version().unwrap_or_else(|| t.cc.join(" "));
    format!("{name}, {}", t.cflags.join(" "))
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

/// The jobs of a manifest: every legal entry with benching enabled, at each size asked for.
pub fn manifest_jobs(
    entries: Vec<Entry>,
    a: &ManifestRun,
    c: &Settings,
) -> Result<Vec<Job>, Failure> {
    let mut jobs = vec![];
    for e in entries {
        if !e.expect_legal || !e.bench.enabled {
            continue;
        }
        let name = e.bench.name.clone().unwrap_or_else(|| stem(&e.kernel));
        let mut opts = e.opts.clone();
        opts.includes.extend(a.includes.iter().cloned());
        opts.defines.extend(a.defines.iter().cloned());
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

/// What the second program is: the transformed kernel, or with `--identity` the
/// regenerated one.
pub fn second_label<'a>(jobs: impl IntoIterator<Item = &'a Job>) -> &'static str {
    if jobs.into_iter().any(|j| j.script.is_some()) {
        "transformed"
    } else {
        "regenerated"
    }
}

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
    fn openmp_flags_follow_the_marks() {
        let par = "void f() {\n  #pragma omp parallel for\n  for (;;) {\n  #pragma omp simd\n  for (;;) ;\n  }\n}";
        assert_eq!(openmp_flag(par), Some("-fopenmp"));
        let simd = "void f() {\n  #pragma omp simd\n  for (;;) ;\n}";
        assert_eq!(openmp_flag(simd), Some("-fopenmp-simd"));
        assert_eq!(openmp_flag("void f() { for (;;) ; }"), None);
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("fdtd-2d-large"), "fdtd-2d-large");
        assert_eq!(slug("a b/c"), "a-b-c");
    }
}
