//! The bench loop behind `loopy bench` (and anything else that times scripts): a [`Job`] is
//! one comparison — verify the script, generate the transformed kernel, build the original
//! and the transformed program with the same toolchain, require identical outputs, time
//! them interleaved — and its [`Outcome`]. Also the jobs of a manifest and the results
//! table. Printing diagnostics and the command line belong to `cli/bench.rs`.

use crate::diag::Diagnostic;
use crate::driver::{self, load_and_run, Failure, Kernel, Run};
use crate::frontend::Options;
use crate::manifest::{flops, Entry, FlopsSpec, Reference};
use crate::model::json::Json;
use crate::native::compile::split_words;
use crate::native::{
    self, kernel_clock, Check, Clock, Difference, Plan, Program, Stats, Timing, Toolchain, WorkDir,
};
use std::path::{Path, PathBuf};

pub mod tune;

/// One comparison to make.
pub struct Job {
    /// The kernel's name (manifest `name`, else the file stem) and the size, if any.
    pub name: String,
    pub size: Option<String>,
    pub kernel: PathBuf,
    /// `None`: the identity (`--identity`).
    pub script: Option<PathBuf>,
    pub opts: Options,
    /// Values for the script's parameters (`--set`, a manifest entry's `set`).
    pub settings: crate::script::params::Settings,
    pub toolchain: Toolchain,
    pub check_defines: Vec<String>,
    pub check_cflags: Vec<String>,
    pub plan: Plan,
    pub keep: Option<PathBuf>,
    /// Other builds of the original to time beside the pair (`--baseline`).
    pub baselines: Vec<Baseline>,
    /// A reference implementation to time beside the pair (manifest `reference`).
    pub reference: Option<Reference>,
    /// `OMP_NUM_THREADS` values to time the pair at (`--threads`); empty: left as it is.
    pub threads: Vec<u32>,
    /// How the outputs are compared (`--tolerance`).
    pub check: Check,
    /// The flop count of one run (manifest `flops`, `--flops`).
    pub flops: Option<FlopsSpec>,
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
        /// The pair at the first thread count.
        timing: Timing,
        kept: Option<PathBuf>,
        extra: Box<Extra>,
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

/// The `-D NAME=VALUE` macros of screening (`search`, `tune`): every integer value
/// multiplied by `scale` (at least 2); `None` when none is an integer or `scale` is not
/// below 1.
pub fn scaled_defines(defines: &[String], scale: f64) -> Option<Vec<String>> {
    if !(scale > 0.0 && scale < 1.0) {
        return None;
    }
    let mut any = false;
    let out = defines
        .iter()
        .map(|d| match d.split_once('=') {
            Some((name, v)) => match v.trim().parse::<i64>() {
                Ok(x) if x > 2 => {
                    any = true;
                    let y = ((x as f64 * scale).round() as i64).max(2);
                    format!("{name}={y}")
                }
                _ => d.clone(),
            },
            None => d.clone(),
        })
        .collect();
    any.then_some(out)
}

/// Another build of the original timed beside the pair (`--baseline 'CC FLAGS...'`): the
/// same sources, defines and link flags, this compiler and these flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Baseline {
    /// As the user wrote it (the column's name).
    pub spec: String,
    pub cc: Vec<String>,
    /// The baseline's flags, then the manifest entry's `cflags`.
    pub cflags: Vec<String>,
}

impl Baseline {
    /// `clang-16 -O3 -mllvm -polly`: the compiler, then its flags.
    pub fn parse(spec: &str) -> Result<Baseline, String> {
        let words = split_words(spec);
        match words.first() {
            None => Err(
                "`--baseline` is empty: give a compiler and its flags, e.g. \
                 `--baseline 'clang-16 -O3 -mllvm -polly'`"
                    .to_string(),
            ),
            Some(w) if w.starts_with('-') => Err(format!(
                "`--baseline '{spec}'` starts with a flag: give the compiler first, e.g. \
                 `--baseline 'gcc {spec}'`"
            )),
            Some(w) => Ok(Baseline {
                spec: words.join(" "),
                cc: vec![w.clone()],
                cflags: words[1..].to_vec(),
            }),
        }
    }
}

/// What became of a baseline or the reference.
#[derive(Debug)]
pub enum OtherResult {
    /// `ratio`: the median over rounds of (its time / the transformed program's time);
    /// `check`: the largest relative difference between its numbers and the original's.
    Timed {
        samples: Vec<f64>,
        ratio: f64,
        check: f64,
    },
    /// Not available on this machine (a compiler or library that is not installed).
    Skipped(String),
    Differ(Difference),
    Failed(Failure),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherKind {
    Baseline,
    Reference,
}

/// A baseline or the reference, as run.
#[derive(Debug)]
pub struct Other {
    pub kind: OtherKind,
    /// The baseline's spec, or the reference's name.
    pub label: String,
    pub result: OtherResult,
}

impl Other {
    /// A short cell for the table: `1.23×` over a baseline, `43%` of a reference's speed, or
    /// what went wrong.
    pub fn cell(&self) -> String {
        match &self.result {
            OtherResult::Timed { ratio, .. } => match self.kind {
                OtherKind::Baseline => format!("{ratio:.2}×"),
                OtherKind::Reference => format!("{:.0}%", ratio * 100.0),
            },
            OtherResult::Skipped(_) => "skipped".into(),
            OtherResult::Differ(_) => "differs".into(),
            OtherResult::Failed(_) => "error".into(),
        }
    }

    /// What went wrong, in one sentence (`None` when it was timed).
    pub fn problem(&self) -> Option<String> {
        match &self.result {
            OtherResult::Timed { .. } => None,
            OtherResult::Skipped(m) => Some(m.clone()),
            OtherResult::Differ(d) => Some(format!(
                "its output differs from the original's ({} line {})",
                d.stream.name(),
                d.line
            )),
            OtherResult::Failed(f) => Some(f.diagnostic.message.clone()),
        }
    }

    /// `baseline \`clang-16 -O3\`` or `reference OpenBLAS`.
    pub fn title(&self) -> String {
        match self.kind {
            OtherKind::Baseline => format!("baseline `{}`", self.label),
            OtherKind::Reference => format!("reference {}", self.label),
        }
    }
}

/// What a timed job measured besides the first pair.
#[derive(Debug, Default)]
pub struct Extra {
    /// With `--threads`: the pair's timing at each count, in the order given (the first is
    /// also the outcome's `timing`).
    pub threads: Vec<(u32, Timing)>,
    /// The baselines, then the reference.
    pub others: Vec<Other>,
    /// Floating-point operations of one run.
    pub flops: Option<f64>,
    /// The largest relative difference between the two programs' numbers (`--tolerance`).
    pub max_relative_difference: Option<f64>,
    /// `-fopenmp` or `-fopenmp-simd` when the programs were built with it.
    pub openmp: Option<&'static str>,
}

/// Runs one job: legality, generation, builds, the check run, the timing.
pub fn bench_one(job: &Job, progress: Progress) -> Outcome {
    let failed = |failure: Failure| Outcome::Failed {
        failure,
        kept: None,
    };
    let flops = match &job.flops {
        None => None,
        Some(spec) => {
            progress("evaluating the flop count");
            match job.toolchain.macro_dump(&job.kernel).and_then(|dump| {
                let m = flops::parse_macro_dump(&dump);
                flops::eval(&spec.expr, &m).map_err(|e| spec.failure(&e))
            }) {
                Ok(v) if v.is_positive() => Some(v.to_f64()),
                Ok(v) => {
                    return failed(spec.failure(&flops::Error {
                        message: format!("the flop count must be positive, not {v}"),
                        span: 0..spec.text.len(),
                    }))
                }
                Err(f) => return failed(f),
            }
        }
    };
    progress("verifying the script");
    let loaded = match &job.script {
        Some(script) => {
            // Model values for the script's parameters are of the machine as the timed
            // flags target it (an unreadable script is reported by `load_and_run`).
            let settings = match std::fs::read_to_string(script) {
                Ok(text) => crate::driver::with_model(job.settings.clone(), &text, &job.toolchain),
                Err(_) => job.settings.clone(),
            };
            load_and_run(&job.kernel, script, &job.opts, &settings)
        }
        None => Kernel::load(&job.kernel, &job.opts).and_then(|k| {
            let run = Run::new(&k, "", "identity", Path::new("."))?;
            Ok((k, run))
        }),
    };
    let (mut kernel, run) = match loaded {
        Ok(x) => x,
        Err(f) => return failed(f),
    };
    // Register blocks take the vector width the compiler targets with the timed flags.
    kernel.target.vector_bytes = crate::machine::vector_bytes(&job.toolchain).unwrap_or(0);
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
    let kernel_clock = job.plan.clock == Clock::Kernel;
    // Under the kernel clock both programs get the same calls around their region: the
    // original around its own, the transformed program around the generated code.
    let sources = if kernel_clock {
        match kernel_clock_sources(&kernel, &job.kernel, &generated) {
            Ok(x) => x,
            Err(f) => return failed(f),
        }
    } else {
        KernelSources {
            original: None,
            transformed: generated.file.clone(),
        }
    };
    let transformed = dir.join(&format!("{s}.transformed.c"));
    let original_dir = parent_dir(&job.kernel);
    let mut writes: Vec<(PathBuf, &str)> = vec![(transformed.clone(), &sources.transformed)];
    // The source the original is built from, and its directory for `#include "..."`.
    let (original_src, original_quote) = match &sources.original {
        Some(text) => {
            let p = dir.join(&format!("{s}.original.c"));
            writes.push((p.clone(), text));
            (p, vec![original_dir.clone()])
        }
        None => (job.kernel.clone(), vec![]),
    };
    let mut job_toolchain = job.toolchain.clone();
    if kernel_clock {
        let helper = dir.join(kernel_clock::HELPER_NAME);
        writes.push((helper.clone(), kernel_clock::HELPER));
        job_toolchain.extra.push(helper.display().to_string());
    }
    for (path, text) in &writes {
        if let Err(e) = std::fs::write(path, text) {
            return failed(plain(format!("cannot write `{}`: {e}", path.display())));
        }
    }
    let separate_check = !(job.check_defines.is_empty() && job.check_cflags.is_empty());
    // Builds both programs with `cflags` and `defines` added; the executables' names end in
    // `suffix`.
    let build = |suffix: &str,
                 cflags: &[String],
                 defines: &[String]|
     -> Result<(PathBuf, PathBuf), Failure> {
        let a = dir.join(&format!("{s}.original{suffix}"));
        let b = dir.join(&format!("{s}.transformed{suffix}"));
        let mut toolchain = job_toolchain.clone();
        toolchain
            .cflags
            .extend(openmp.iter().map(|f| f.to_string()));
        toolchain.cflags.extend(cflags.iter().cloned());
        progress(&format!("compiling the original{suffix}"));
        toolchain.compile(&original_src, &original_quote, defines, &a)?;
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
        let check = if separate_check {
            build(".check", &job.check_cflags, &job.check_defines)?
        } else {
            timed.clone()
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
    // The check runs see the first thread count, as the first timed pair does.
    let first_env = thread_env(job.threads.first().copied());
    progress("check run (original)");
    let a = match native::run_with_env(&check.0, &first_env) {
        Ok(o) => o,
        Err(f) => return failed(f),
    };
    progress("check run (transformed)");
    let b = match native::run_with_env(&check.1, &first_env) {
        Ok(o) => o,
        Err(f) => return failed(f),
    };
    let ignore_time = job.plan.clock == Clock::Stdout;
    let max_rel = match native::compare_with(&a, &b, ignore_time, job.check) {
        Ok(r) => r,
        Err(diff) => {
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
    };
    if !a.success() {
        return failed(
            plain(format!(
                "both programs fail the same way ({}); nothing to time",
                a.status
            ))
            .with_stderr(&a.stderr),
        );
    }
    // The baselines and the reference: built, checked against the original's output, and
    // timed with the pair if all went well.
    let mut others: Vec<Other> = vec![];
    // (index in `others`, executable, environment) of those to time.
    let mut other_exes: Vec<(usize, PathBuf, Env)> = vec![];
    let other_env = reference_env(job.threads.first().copied());
    for (k, base) in job.baselines.iter().enumerate() {
        let mut toolchain = job_toolchain.clone();
        toolchain.cc = base.cc.clone();
        toolchain.cflags = base.cflags.clone();
        let name = format!("{s}.baseline{}", k + 1);
        progress(&format!("baseline `{}`", base.spec));
        let r = prepare_other(
            job,
            &dir,
            &toolchain,
            (&original_src, &original_quote),
            &name,
            separate_check,
            &a,
            Some(job.check),
            &first_env,
        );
        add_other(
            &mut others,
            &mut other_exes,
            OtherKind::Baseline,
            base.spec.clone(),
            r,
            &first_env,
        );
    }
    if let Some(reference) = &job.reference {
        progress(&format!("reference {}", reference.name));
        let mut toolchain = job_toolchain.clone();
        toolchain.cflags.extend(reference.cflags.iter().cloned());
        let mut ldflags = reference.ldflags.clone();
        ldflags.extend(toolchain.ldflags.iter().cloned());
        toolchain.ldflags = ldflags;
        let r = probe_reference(&dir, &toolchain, reference).and_then(|()| {
            let (source, quote) = if kernel_clock {
                (
                    reference_with_clock(&dir, &s, reference)?,
                    vec![parent_dir(&reference.source)],
                )
            } else {
                (reference.source.clone(), vec![])
            };
            prepare_other(
                job,
                &dir,
                &toolchain,
                (&source, &quote),
                &format!("{s}.reference"),
                separate_check,
                &a,
                reference
                    .compare
                    .then(|| reference.tolerance.map_or(job.check, Check::Relative)),
                &other_env,
            )
        });
        add_other(
            &mut others,
            &mut other_exes,
            OtherKind::Reference,
            reference.name.clone(),
            r,
            &other_env,
        );
    }
    let mut plan = job.plan;
    if check == timed && job.threads.len() <= 1 && other_exes.is_empty() {
        plan.warmup = plan.warmup.saturating_sub(1);
    }
    // Each round: original and transformed at each thread count, then the others.
    let counts: Vec<Option<u32>> = if job.threads.is_empty() {
        vec![None]
    } else {
        job.threads.iter().copied().map(Some).collect()
    };
    let mut programs: Vec<Program> = vec![];
    let mut names: Vec<String> = vec![];
    for t in &counts {
        let at = t.map_or(String::new(), |t| format!(", {}", threads_text(t)));
        for (exe, what) in [(&timed.0, "original"), (&timed.1, "transformed")] {
            programs.push(Program {
                exe,
                env: thread_env(*t),
            });
            names.push(format!("{what}{at}"));
        }
    }
    for (i, exe, env) in &other_exes {
        programs.push(Program {
            exe,
            env: env.clone(),
        });
        names.push(others[*i].title());
    }
    let results = native::time_all(&programs, 2 * counts.len(), &plan, &mut |p| {
        let what = if p.warmup { "warm-up" } else { "timing" };
        progress(&format!(
            "{what} run {}/{} ({})",
            p.done + 1,
            p.total,
            names[p.program]
        ));
    });
    let kept = dir.is_kept().then(|| dir.path().to_path_buf());
    let mut results = results.into_iter();
    let mut pairs: Vec<(u32, Timing)> = vec![];
    for t in &counts {
        let (ra, rb) = (results.next(), results.next());
        match (ra, rb) {
            (Some(Ok(a)), Some(Ok(b))) => pairs.push((t.unwrap_or(0), Timing { a, b })),
            (Some(Err(failure)), _) | (_, Some(Err(failure))) => {
                return Outcome::Failed { failure, kept }
            }
            // A program of an earlier count failed and ended the timing.
            _ => unreachable!("the first failure is returned above"),
        }
    }
    let first = pairs[0].1.clone();
    for ((i, _, _), r) in other_exes.iter().zip(results) {
        let o = &mut others[*i];
        o.result = match (
            r,
            std::mem::replace(&mut o.result, OtherResult::Skipped(String::new())),
        ) {
            (Ok(samples), OtherResult::Timed { check, .. }) => {
                let ratios: Vec<f64> = samples.iter().zip(&first.b).map(|(x, y)| x / y).collect();
                OtherResult::Timed {
                    ratio: native::time::median(&ratios),
                    samples,
                    check,
                }
            }
            (Err(f), _) => OtherResult::Failed(f),
            (Ok(_), r) => r,
        };
    }
    let extra = Extra {
        threads: if job.threads.is_empty() {
            vec![]
        } else {
            pairs
        },
        others,
        flops,
        max_relative_difference: matches!(job.check, Check::Relative(_)).then_some(max_rel),
        openmp,
    };
    Outcome::Timed {
        timing: first,
        kept,
        extra: Box::new(extra),
    }
}

/// Variables added to a program's environment.
type Env = Vec<(String, String)>;

/// The directory of a source, for `#include "..."` when a copy of it is built elsewhere.
fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The sources of the two programs: the original's text when it is not built from the
/// user's file as it is, and the transformed program's.
struct KernelSources {
    original: Option<String>,
    transformed: String,
}

/// Both programs with the kernel clock's calls around their region (the same calls, at the
/// same place: where the original's region is, and where the generated code replaced it).
fn kernel_clock_sources(
    kernel: &Kernel,
    path: &Path,
    generated: &driver::Generated,
) -> Result<KernelSources, Failure> {
    let scop = &kernel.scop;
    let text = kernel
        .sources
        .iter()
        .find(|(n, _)| *n == scop.file)
        .map(|(_, t)| t)
        .filter(|_| scop.region.file == scop.file)
        .ok_or_else(|| {
            plain(format!(
                "the kernel clock cannot time the region of `{}`: it is not in that file's own \
                 text; use `--time process`",
                scop.file
            ))
        })?;
    let range = scop.region.range.clone();
    // The generated file may hold a function before the region (`codegen::overlap`).
    let generated_range = generated.region_start..generated.region_start + generated.region.len();
    Ok(KernelSources {
        // The copy of the original says that it is the user's file: the same `__FILE__`
        // and `__LINE__` as when built from the user's file, messages on its lines.
        original: Some(kernel_clock::instrument(
            text,
            range,
            Some(&path.display().to_string()),
        )),
        transformed: kernel_clock::instrument(&generated.file, generated_range, None),
    })
}

/// A reference's text with the kernel clock's calls just inside its one `#pragma scop` …
/// `#pragma endscop` pair (of its own text, not of what it includes); errors say why not.
fn reference_region(text: &str) -> Result<String, String> {
    let pragmas = crate::frontend::region::pragmas(text);
    match pragmas.as_slice() {
        [open, close] if !open.end && close.end => Ok(kernel_clock::instrument_between(
            text,
            open.range.end,
            close.range.start,
        )),
        [] => Err("it has no `#pragma scop` … `#pragma endscop` region around its kernel".into()),
        _ => Err(
            "it must have exactly one `#pragma scop` … `#pragma endscop` region, around its \
             kernel"
                .into(),
        ),
    }
}

/// The reference's source with the kernel clock's calls inside its `#pragma scop` region,
/// written beside the other programs; skipped when it has no such region.
fn reference_with_clock(dir: &WorkDir, s: &str, r: &Reference) -> Result<PathBuf, OtherResult> {
    let text = std::fs::read_to_string(&r.source).map_err(|e| {
        OtherResult::Failed(plain(format!("cannot read `{}`: {e}", r.source.display())))
    })?;
    let out = reference_region(&text).map_err(|m| {
        OtherResult::Skipped(format!(
            "the kernel clock cannot time `{}`: {m} (or use `--time process`)",
            r.source.display()
        ))
    })?;
    let p = dir.join(&format!("{s}.reference.c"));
    std::fs::write(&p, out)
        .map_err(|e| OtherResult::Failed(plain(format!("cannot write `{}`: {e}", p.display()))))?;
    Ok(p)
}

/// `1 thread`, `2 threads`.
pub fn threads_text(t: u32) -> String {
    if t == 1 {
        "1 thread".to_string()
    } else {
        format!("{t} threads")
    }
}

/// The environment of a run at a thread count (`None`: left as it is).
fn thread_env(t: Option<u32>) -> Vec<(String, String)> {
    t.map_or(vec![], |t| vec![("OMP_NUM_THREADS".into(), t.to_string())])
}

/// The reference runs on the first thread count, one thread without `--threads`: a
/// library's own threads (OpenBLAS reads `OPENBLAS_NUM_THREADS`) must not outnumber the
/// transformed program's.
fn reference_env(t: Option<u32>) -> Vec<(String, String)> {
    let t = t.unwrap_or(1).to_string();
    vec![
        ("OMP_NUM_THREADS".into(), t.clone()),
        ("OPENBLAS_NUM_THREADS".into(), t),
    ]
}

/// Whether the reference's headers and libraries are there: a small program that includes
/// the headers, built and linked with the reference's flags.
fn probe_reference(dir: &WorkDir, toolchain: &Toolchain, r: &Reference) -> Result<(), OtherResult> {
    if r.headers.is_empty() && r.ldflags.is_empty() {
        return Ok(());
    }
    let src = dir.join("reference-probe.c");
    let mut text: String = r
        .headers
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    text.push_str("int main(void) { return 0; }\n");
    let probe = Toolchain {
        extra: vec![],
        defines: vec![],
        ..toolchain.clone()
    };
    let r_exe = dir.join("reference-probe");
    let res = std::fs::write(&src, text)
        .map_err(|e| plain(format!("cannot write `{}`: {e}", src.display())))
        .and_then(|()| probe.compile(&src, &[], &[], &r_exe));
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&r_exe);
    res.map_err(|f| {
        let mut needs: Vec<String> = r.headers.iter().map(|h| format!("<{h}>")).collect();
        needs.extend(r.ldflags.iter().cloned());
        let cause = f
            .diagnostic
            .labels
            .first()
            .map(|l| l.label.clone())
            .or_else(|| f.diagnostic.notes.first().cloned())
            .unwrap_or_default();
        let mut m = format!(
            "{} is not available here: cannot build with {} ({})",
            r.name,
            needs.join(" "),
            cause.trim()
        );
        if let Some(i) = &r.install {
            m.push_str(&format!("; install it with `{i}`"));
        }
        OtherResult::Skipped(m)
    })
}

/// Builds a baseline or the reference (timed executable, and a check executable when the
/// check build differs), runs its check build and compares it with the original's check
/// output `original`. Returns the timed executable and the largest relative difference
/// found.
/// Records a baseline or reference: to be timed (with `env`) when it was built and checked,
/// else with the reason it was not.
fn add_other(
    others: &mut Vec<Other>,
    other_exes: &mut Vec<(usize, PathBuf, Env)>,
    kind: OtherKind,
    label: String,
    prepared: Result<(PathBuf, f64), OtherResult>,
    env: &Env,
) {
    let result = match prepared {
        Ok((exe, check)) => {
            other_exes.push((others.len(), exe, env.clone()));
            OtherResult::Timed {
                samples: vec![],
                ratio: f64::NAN,
                check,
            }
        }
        Err(result) => result,
    };
    others.push(Other {
        kind,
        label,
        result,
    });
}

#[allow(clippy::too_many_arguments)]
fn prepare_other(
    job: &Job,
    dir: &WorkDir,
    toolchain: &Toolchain,
    (source, quote): (&Path, &[PathBuf]),
    name: &str,
    separate_check: bool,
    original: &native::Outcome,
    check: Option<Check>,
    env: &[(String, String)],
) -> Result<(PathBuf, f64), OtherResult> {
    toolchain.available().map_err(OtherResult::Skipped)?;
    let exe = dir.join(name);
    toolchain
        .compile(source, quote, &[], &exe)
        .map_err(OtherResult::Failed)?;
    let check_exe = if separate_check {
        let e = dir.join(&format!("{name}.check"));
        let mut t = toolchain.clone();
        t.cflags.extend(job.check_cflags.iter().cloned());
        t.compile(source, quote, &job.check_defines, &e)
            .map_err(OtherResult::Failed)?;
        e
    } else {
        exe.clone()
    };
    let out = native::run_with_env(&check_exe, env).map_err(OtherResult::Failed)?;
    let Some(check) = check else {
        // Not compared (a reference's `compare = false`): it must run to completion, which
        // is where such a program checks its own result.
        if !out.success() {
            return Err(OtherResult::Failed(
                plain(format!(
                    "its check run failed ({}); its output is not compared with the original's, so it must check its own result and succeed",
                    out.status
                ))
                .with_stderr(&out.stderr),
            ));
        }
        return Ok((exe, 0.0));
    };
    let ignore_time = job.plan.clock == Clock::Stdout;
    match native::compare_with(original, &out, ignore_time, check) {
        Ok(r) => Ok((exe, r)),
        Err(d) => Err(OtherResult::Differ(d)),
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
        Clock::Kernel => "kernel time (the modelled region)",
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
        Outcome::Timed {
            timing,
            kept: k,
            extra,
        } => {
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
            let other_json = |o: &Other| {
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
                        let (what, r) = match o.kind {
                            OtherKind::Baseline => ("speedup", *ratio),
                            OtherKind::Reference => ("fraction_of_speed", *ratio),
                        };
                        v.push(("times", stats_json(&Stats::of(samples), samples)));
                        v.push((what, Json::Num(r)));
                        v.push(("gflops", gflops(Stats::of(samples).median)));
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
            };
            let baselines: Vec<Json> = extra
                .others
                .iter()
                .filter(|o| o.kind == OtherKind::Baseline)
                .map(other_json)
                .collect();
            if !job.baselines.is_empty() {
                f.push(("baselines", Json::Array(baselines)));
            }
            if job.reference.is_some() {
                f.push((
                    "reference",
                    extra
                        .others
                        .iter()
                        .find(|o| o.kind == OtherKind::Reference)
                        .map_or(Json::Null, other_json),
                ));
            }
            f.push(("kept", kept(k)));
        }
        Outcome::Differ { diff, kept: k } => {
            f.push(("status", Json::str("differ")));
            f.push(("check", Json::str(job.check.describe())));
            f.push(("tolerance", tolerance_json(job.check)));
            f.push(("difference", difference_json(diff)));
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
    /// `--baseline`, as given (a manifest entry's `cflags` are added per entry).
    pub baselines: Vec<Baseline>,
    pub threads: Vec<u32>,
    pub check: Check,
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
    /// Only the entries of these names (`--only`; empty: all).
    pub only: Vec<String>,
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
        if !a.only.is_empty() && !a.only.contains(&name) {
            continue;
        }
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
                settings: if a.identity {
                    Default::default()
                } else {
                    e.settings.clone()
                },
                toolchain,
                check_defines,
                check_cflags,
                plan,
                keep: None,
                baselines: c
                    .baselines
                    .iter()
                    .map(|b| Baseline {
                        cflags: b.cflags.iter().chain(&e.bench.cflags).cloned().collect(),
                        ..b.clone()
                    })
                    .collect(),
                reference: e.bench.reference.clone(),
                threads: c.threads.clone(),
                check: c.check,
                flops: e.bench.flops.clone(),
            };
            let folder = match &size {
                Some(s) => format!("{name}-{s}"),
                None => name.clone(),
            };
            let keep = a.keep.as_ref().map(|k| k.join(slug(&folder)));
            jobs.push(Job { keep, ..job });
        }
    }
    for n in &a.only {
        if !jobs.iter().any(|j| &j.name == n) {
            return Err(plain(format!(
                "`--only {n}`: the manifest has no benched entry named `{n}`"
            )));
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
    let with_flops = jobs().any(|j| j.flops.is_some());
    // Extra columns: (header, cell of a timed row).
    type Cell<'a> = Box<dyn Fn(&Job, &Timing, &Extra) -> String + 'a>;
    let mut cols: Vec<(String, Cell)> = vec![];
    if threads.is_empty() {
        cols.push((
            "speedup".into(),
            Box::new(|_, t: &Timing, _| format!("{:.2}×", t.speedup())),
        ));
    } else {
        for (k, &n) in threads.iter().enumerate() {
            cols.push((
                threads_text(n),
                Box::new(move |_, _, x: &Extra| {
                    x.threads
                        .get(k)
                        .map_or("-".into(), |(_, t)| format!("{:.2}×", t.speedup()))
                }),
            ));
        }
    }
    for b in &baselines {
        let b = b.clone();
        cols.push((
            format!("vs {b}"),
            Box::new(move |_, _, x: &Extra| {
                x.others
                    .iter()
                    .find(|o| o.kind == OtherKind::Baseline && o.label == b)
                    .map_or("-".into(), Other::cell)
            }),
        ));
    }
    for r in &references {
        let r = r.clone();
        cols.push((
            format!("of {r}"),
            Box::new(move |_, _, x: &Extra| {
                x.others
                    .iter()
                    .find(|o| o.kind == OtherKind::Reference && o.label == r)
                    .map_or("-".into(), Other::cell)
            }),
        ));
    }
    if with_flops {
        cols.push((
            "GFLOP/s".into(),
            Box::new(|_, t: &Timing, x: &Extra| {
                x.flops.map_or("-".into(), |n| {
                    format!("{:.2}", n / t.b_stats().median / 1e9)
                })
            }),
        ));
    }
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
                if threads.len() > 1 && extra.openmp != Some("-fopenmp") {
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
    if !baselines.is_empty() || !references.is_empty() {
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
    fn baselines_name_their_compiler() {
        let b = Baseline::parse("  clang-16 -O3  -mllvm -polly ").unwrap();
        assert_eq!(b.spec, "clang-16 -O3 -mllvm -polly");
        assert_eq!(b.cc, vec!["clang-16"]);
        assert_eq!(b.cflags, vec!["-O3", "-mllvm", "-polly"]);
        assert!(Baseline::parse("").unwrap_err().contains("empty"));
        assert!(Baseline::parse("-O3")
            .unwrap_err()
            .contains("compiler first"));
    }

    #[test]
    fn cells() {
        let timed = |kind, ratio| Other {
            kind,
            label: "x".into(),
            result: OtherResult::Timed {
                samples: vec![1.0],
                ratio,
                check: 0.0,
            },
        };
        assert_eq!(timed(OtherKind::Baseline, 1.234).cell(), "1.23×");
        assert_eq!(timed(OtherKind::Reference, 0.434).cell(), "43%");
        assert_eq!(timed(OtherKind::Reference, 0.434).problem(), None);
        let skipped = Other {
            kind: OtherKind::Reference,
            label: "OpenBLAS".into(),
            result: OtherResult::Skipped("not here".into()),
        };
        assert_eq!(skipped.cell(), "skipped");
        assert_eq!(skipped.problem().as_deref(), Some("not here"));
        assert_eq!(skipped.title(), "reference OpenBLAS");
        assert_eq!(threads_text(1), "1 thread");
        assert_eq!(threads_text(4), "4 threads");
        assert_eq!(
            reference_env(None)[1],
            ("OPENBLAS_NUM_THREADS".into(), "1".into())
        );
        assert!(thread_env(None).is_empty());
    }

    #[test]
    fn reference_regions() {
        let text = "int main(void)\n{\n#pragma scop\n  work();\n  #pragma endscop\n}\n";
        let out = reference_region(text).unwrap();
        assert!(
            out.contains("#pragma scop\n{ void loopy_region_enter(void); loopy_region_enter(); }\n  work();\n{ void loopy_region_leave(void); loopy_region_leave(); }\n  #pragma endscop"),
            "{out}"
        );
        assert!(reference_region("int main(void) { return 0; }")
            .unwrap_err()
            .contains("no `#pragma scop`"));
        let two = "#pragma scop\n#pragma endscop\n#pragma scop\n#pragma endscop\n";
        assert!(reference_region(two).unwrap_err().contains("exactly one"));
        assert!(reference_region("#pragma endscop\n#pragma scop\n").is_err());
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("fdtd-2d-large"), "fdtd-2d-large");
        assert_eq!(slug("a b/c"), "a-b-c");
    }
}
