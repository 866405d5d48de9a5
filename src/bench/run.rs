//! Running one job (`bench_one`): verify the script, generate the transformed kernel, build
//! both programs with one toolchain (under the kernel clock both from copies with the
//! clock's calls around their region), require identical outputs, time them interleaved,
//! then the baselines and the reference beside them.

use super::{
    openmp_flag, plain, stem, threads_text, ExtraTimings, Job, Other, OtherKind, OtherResult,
    Outcome, Progress,
};
use crate::diag::Report;
use crate::driver::{self, load_and_run, Kernel, Run};
use crate::manifest::{flops, Reference};
use crate::native::{self, kernel_clock, Check, Clock, TimedProgram, Timing, Toolchain, WorkDir};
use std::path::{Path, PathBuf};

/// Runs one job: legality, generation, builds, the check run, the timing.
pub fn bench_one(job: &Job, progress: Progress) -> Outcome {
    match run_job(job, progress) {
        Ok(o) => o,
        Err(o) => *o,
    }
}

/// A phase of a job; `Err` is the outcome that ends it early (a failure, an illegal
/// script, differing outputs).
type Step<T> = Result<T, Box<Outcome>>;

fn failed(failure: Report) -> Box<Outcome> {
    Box::new(Outcome::Failed {
        failure,
        kept: None,
    })
}

/// The phases of [`bench_one`], in order.
fn run_job(job: &Job, progress: Progress) -> Step<Outcome> {
    let flops = flop_count(job, progress)?;
    progress("verifying the script");
    let (kernel, run) = verified(job)?;
    progress("generating the transformed kernel");
    let generated = driver::generate(&kernel, &run.interp.state).map_err(|mut f| {
        // Marks that cannot be generated point into the script.
        f.sources = run.sources(&kernel);
        failed(f)
    })?;
    // Nothing is built from work done after the integer core's budget ran out (its answers
    // were placeholders; see `presburger::budget`).
    crate::presburger::budget::check().map_err(|e| {
        failed(Report {
            diagnostic: driver::budget_diagnostic(&e),
            sources: vec![],
        })
    })?;
    let mut dir = work_dir(job)?;
    let builds = Builds::write(job, &kernel, &generated, &dir)?;
    let (timed, check) = builds.compile_all(job, &mut dir, progress)?;
    // The check runs see the first thread count, as the first timed pair does.
    let first_env = thread_env(job.threads.first().copied());
    let (original, max_rel) =
        check_outputs(job, &check, &mut dir, &builds.stem, &first_env, progress)?;
    let mut others = builds.others(job, &dir, &original, &first_env, progress);
    let mut plan = job.plan;
    if check == timed && job.threads.len() <= 1 && others.exes.is_empty() {
        plan.warmup = plan.warmup.saturating_sub(1);
    }
    let kept = || dir.is_kept().then(|| dir.path().to_path_buf());
    let (pairs, rest) = time_programs(job, &plan, &timed, &others, progress);
    let pairs = pairs.map_err(|failure| {
        Box::new(Outcome::Failed {
            failure,
            kept: kept(),
        })
    })?;
    let first = pairs[0].1.clone();
    others.take_timings(rest, &first);
    let extra = ExtraTimings {
        threads: if job.threads.is_empty() {
            vec![]
        } else {
            pairs
        },
        others: others.list,
        flops,
        max_relative_difference: matches!(job.check, Check::Relative(_)).then_some(max_rel),
        openmp: builds.openmp,
        warnings: (generated.notes.iter())
            .map(|d| Report {
                diagnostic: d.clone(),
                sources: run.sources(&kernel),
            })
            .collect(),
    };
    Ok(Outcome::Timed {
        timing: first,
        kept: kept(),
        extra: Box::new(extra),
    })
}

/// The job's flop count, evaluated against the size macros the compiler reports.
fn flop_count(job: &Job, progress: Progress) -> Step<Option<f64>> {
    let Some(spec) = &job.flops else {
        return Ok(None);
    };
    progress("evaluating the flop count");
    match job.toolchain.macro_dump(&job.kernel).and_then(|dump| {
        let m = flops::parse_macro_dump(&dump);
        flops::eval(&spec.expr, &m).map_err(|e| spec.failure(&e))
    }) {
        Ok(v) if v.is_positive() => Ok(Some(v.to_f64())),
        Ok(v) => Err(failed(spec.failure(&flops::Error {
            message: format!("the flop count must be positive, not {v}"),
            span: 0..spec.text.len(),
        }))),
        Err(f) => Err(failed(f)),
    }
}

/// The kernel and the script run on it, legal (or the identity without a script).
fn verified(job: &Job) -> Step<(Kernel, Run)> {
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
    let (mut kernel, run) = loaded.map_err(failed)?;
    refuse_fragment(&kernel).map_err(failed)?;
    // Register blocks take the vector width the compiler targets with the timed flags.
    kernel.target.vector_bytes = crate::machine::vector_bytes(&job.toolchain).unwrap_or(0);
    let violations = run.check();
    if !violations.is_empty() {
        return Err(Box::new(Outcome::Illegal {
            reports: run.reports(&kernel, &violations),
        }));
    }
    Ok((kernel, run))
}

/// The directory the programs are written and built in (`--keep`'s, or a temporary one).
fn work_dir(job: &Job) -> Step<WorkDir> {
    WorkDir::new(job.keep.as_deref()).map_err(|e| {
        let at = job
            .keep
            .as_ref()
            .map_or("a temporary directory".to_string(), |k| {
                format!("`{}`", k.display())
            });
        failed(plain(
            crate::diag::codes::CANNOT_WRITE,
            format!("cannot create {at}: {e}"),
        ))
    })
}

/// The sources of the two programs, written, and how to build them.
struct Builds {
    /// The kernel file's stem, which names every file of the job.
    stem: String,
    /// The OpenMP flag the generated code needs, if any.
    openmp: Option<&'static str>,
    kernel_clock: bool,
    /// The source the original is built from, and its directories for `#include "..."`.
    original_src: PathBuf,
    original_quote: Vec<PathBuf>,
    transformed: PathBuf,
    /// The kernel's directory, for the transformed program's `#include "..."`.
    original_dir: PathBuf,
    /// The job's toolchain, with the kernel clock's helper when it is used.
    toolchain: Toolchain,
    /// Whether the check runs are built apart, with other flags or macros.
    separate_check: bool,
}

impl Builds {
    /// Writes the transformed program (under the kernel clock both programs get the same
    /// calls around their region: the original around its own, the transformed program
    /// around the generated code).
    fn write(
        job: &Job,
        kernel: &Kernel,
        generated: &driver::Generated,
        dir: &WorkDir,
    ) -> Step<Builds> {
        let kernel_clock = job.plan.clock == Clock::Kernel;
        let sources = if kernel_clock {
            kernel_clock_sources(kernel, &job.kernel, generated).map_err(failed)?
        } else {
            KernelSources {
                original: None,
                transformed: generated.file.clone(),
            }
        };
        let s = stem(&job.kernel);
        let transformed = dir.join(&format!("{s}.transformed.c"));
        let original_dir = parent_dir(&job.kernel);
        let mut writes: Vec<(PathBuf, &str)> = vec![(transformed.clone(), &sources.transformed)];
        let (original_src, original_quote) = match &sources.original {
            Some(text) => {
                let p = dir.join(&format!("{s}.original.c"));
                writes.push((p.clone(), text));
                (p, vec![original_dir.clone()])
            }
            None => (job.kernel.clone(), vec![]),
        };
        let mut toolchain = job.toolchain.clone();
        if kernel_clock {
            let helper = dir.join(kernel_clock::HELPER_NAME);
            writes.push((helper.clone(), kernel_clock::HELPER));
            toolchain.extra.push(helper.display().to_string());
        }
        for (path, text) in &writes {
            std::fs::write(path, text).map_err(|e| {
                failed(plain(
                    crate::diag::codes::CANNOT_WRITE,
                    format!("cannot write `{}`: {e}", path.display()),
                ))
            })?;
        }
        Ok(Builds {
            stem: s,
            openmp: openmp_flag(&generated.file),
            kernel_clock,
            original_src,
            original_quote,
            transformed,
            original_dir,
            toolchain,
            separate_check: !(job.check_defines.is_empty() && job.check_cflags.is_empty()),
        })
    }

    /// Builds both programs with `cflags` and `defines` added; the executables' names end
    /// in `suffix`.
    fn compile(
        &self,
        dir: &WorkDir,
        suffix: &str,
        cflags: &[String],
        defines: &[String],
        progress: Progress,
    ) -> Result<(PathBuf, PathBuf), Report> {
        let s = &self.stem;
        let a = dir.join(&format!("{s}.original{suffix}"));
        let b = dir.join(&format!("{s}.transformed{suffix}"));
        let mut toolchain = self.toolchain.clone();
        toolchain
            .cflags
            .extend(self.openmp.iter().map(|f| f.to_string()));
        toolchain.cflags.extend(cflags.iter().cloned());
        progress(&format!("compiling the original{suffix}"));
        toolchain.compile(&self.original_src, &self.original_quote, defines, &a)?;
        progress(&format!("compiling the transformed program{suffix}"));
        toolchain.compile(
            &self.transformed,
            std::slice::from_ref(&self.original_dir),
            defines,
            &b,
        )?;
        Ok((a, b))
    }

    /// The timed pair of executables and the pair the outputs are checked with (the same
    /// unless the check is built apart). A compiler's complaint keeps the sources.
    fn compile_all(&self, job: &Job, dir: &mut WorkDir, progress: Progress) -> Step<(Exes, Exes)> {
        let built = self.compile(dir, "", &[], &[], progress).and_then(|timed| {
            let check = if self.separate_check {
                self.compile(
                    dir,
                    ".check",
                    &job.check_cflags,
                    &job.check_defines,
                    progress,
                )?
            } else {
                timed.clone()
            };
            Ok((timed, check))
        });
        built.map_err(|failure| {
            dir.persist();
            Box::new(Outcome::Failed {
                failure,
                kept: Some(dir.path().to_path_buf()),
            })
        })
    }

    /// The baselines and the reference: built, checked against the original's output, and
    /// to be timed with the pair if all went well.
    fn others(
        &self,
        job: &Job,
        dir: &WorkDir,
        original: &native::RunOutcome,
        first_env: &Env,
        progress: Progress,
    ) -> Others {
        let mut others = Others::default();
        for (k, base) in job.baselines.iter().enumerate() {
            let mut toolchain = self.toolchain.clone();
            toolchain.cc = base.cc.clone();
            toolchain.cflags = base.cflags.clone();
            let name = format!("{}.baseline{}", self.stem, k + 1);
            progress(&format!("baseline `{}`", base.spec));
            let source = (self.original_src.as_path(), self.original_quote.as_slice());
            let r = prepare_other(
                job,
                dir,
                &toolchain,
                source,
                &name,
                self.separate_check,
                original,
                Some(job.check),
                first_env,
            );
            others.add(OtherKind::Baseline, base.spec.clone(), r, first_env);
        }
        if let Some(reference) = &job.reference {
            progress(&format!("reference {}", reference.name));
            let env = reference_env(job.threads.first().copied());
            let r = self.prepare_reference(job, dir, reference, original, &env);
            others.add(OtherKind::Reference, reference.name.clone(), r, &env);
        }
        others
    }

    /// The reference built with its flags (and the kernel clock around its region when
    /// the clock is used) and checked against the original's output if it is compared.
    fn prepare_reference(
        &self,
        job: &Job,
        dir: &WorkDir,
        reference: &Reference,
        original: &native::RunOutcome,
        env: &Env,
    ) -> Result<(PathBuf, f64), OtherResult> {
        let mut toolchain = self.toolchain.clone();
        toolchain.cflags.extend(reference.cflags.iter().cloned());
        let mut ldflags = reference.ldflags.clone();
        ldflags.extend(toolchain.ldflags.iter().cloned());
        toolchain.ldflags = ldflags;
        probe_reference(dir, &toolchain, reference)?;
        let (source, quote) = if self.kernel_clock {
            (
                reference_with_clock(dir, &self.stem, reference)?,
                vec![parent_dir(&reference.source)],
            )
        } else {
            (reference.source.clone(), vec![])
        };
        prepare_other(
            job,
            dir,
            &toolchain,
            (&source, &quote),
            &format!("{}.reference", self.stem),
            self.separate_check,
            original,
            reference
                .compare
                .then(|| reference.tolerance.map_or(job.check, Check::Relative)),
            env,
        )
    }
}

/// The executables of the original and the transformed program.
type Exes = (PathBuf, PathBuf);

/// The check runs of both programs: their outputs must agree (the largest relative
/// difference when a tolerance is allowed), and a run that fails in both ends the job.
fn check_outputs(
    job: &Job,
    check: &Exes,
    dir: &mut WorkDir,
    s: &str,
    env: &Env,
    progress: Progress,
) -> Step<(native::RunOutcome, f64)> {
    progress("check run (original)");
    let a = native::run_with_env(&check.0, env).map_err(failed)?;
    progress("check run (transformed)");
    let b = native::run_with_env(&check.1, env).map_err(failed)?;
    let ignore_time = job.plan.clock == Clock::Stdout;
    let max_rel = match native::compare_with(&a, &b, ignore_time, job.check) {
        Ok(r) => r,
        Err(diff) => {
            dir.persist();
            for (which, o) in [("original", &a), ("transformed", &b)] {
                let _ = std::fs::write(dir.join(&format!("{s}.{which}.stdout")), &o.stdout);
                let _ = std::fs::write(dir.join(&format!("{s}.{which}.stderr")), &o.stderr);
            }
            return Err(Box::new(Outcome::Differ {
                diff,
                kept: dir.path().to_path_buf(),
            }));
        }
    };
    if !a.success() {
        return Err(failed(
            plain(
                crate::diag::codes::RUN_FAILED,
                format!(
                    "both programs fail the same way ({}); nothing to time",
                    a.status
                ),
            )
            .with_stderr(&a.stderr),
        ));
    }
    Ok((a, max_rel))
}

/// The baselines and the reference, and those of them to time.
#[derive(Default)]
struct Others {
    list: Vec<Other>,
    /// (index in `list`, executable, environment) of those to time.
    exes: Vec<(usize, PathBuf, Env)>,
}

impl Others {
    /// Their timings, as ratios to the transformed program's samples of the first pair.
    fn take_timings(
        &mut self,
        results: impl Iterator<Item = Result<Vec<f64>, Report>>,
        first: &Timing,
    ) {
        for ((i, _, _), r) in self.exes.iter().zip(results) {
            let o = &mut self.list[*i];
            o.result = match (
                r,
                std::mem::replace(&mut o.result, OtherResult::Skipped(String::new())),
            ) {
                (Ok(samples), OtherResult::Timed { check, .. }) => {
                    let ratios: Vec<f64> =
                        samples.iter().zip(&first.b).map(|(x, y)| x / y).collect();
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
    }
}

/// The timings of the programs left after the pairs: the baselines and the reference.
type Samples = std::vec::IntoIter<Result<Vec<f64>, Report>>;

/// Times every program interleaved, each round the original and the transformed
/// program at each thread count, then the others: the pairs per thread count (or the
/// first failure), and the others' results.
fn time_programs(
    job: &Job,
    plan: &native::Plan,
    timed: &Exes,
    others: &Others,
    progress: Progress,
) -> (Result<Vec<(u32, Timing)>, Report>, Samples) {
    let counts: Vec<Option<u32>> = if job.threads.is_empty() {
        vec![None]
    } else {
        job.threads.iter().copied().map(Some).collect()
    };
    let mut programs: Vec<TimedProgram> = vec![];
    let mut names: Vec<String> = vec![];
    for t in &counts {
        let at = t.map_or(String::new(), |t| format!(", {}", threads_text(t)));
        for (exe, what) in [(&timed.0, "original"), (&timed.1, "transformed")] {
            programs.push(TimedProgram {
                exe,
                env: thread_env(*t),
            });
            names.push(format!("{what}{at}"));
        }
    }
    for (i, exe, env) in &others.exes {
        programs.push(TimedProgram {
            exe,
            env: env.clone(),
        });
        names.push(others.list[*i].title());
    }
    let results = native::time_all(&programs, 2 * counts.len(), plan, &mut |p| {
        let what = if p.warmup { "warm-up" } else { "timing" };
        progress(&format!(
            "{what} run {}/{} ({})",
            p.done + 1,
            p.total,
            names[p.program]
        ));
    });
    let mut results = results.into_iter();
    let mut pairs: Vec<(u32, Timing)> = vec![];
    for t in &counts {
        match (results.next(), results.next()) {
            (Some(Ok(a)), Some(Ok(b))) => pairs.push((t.unwrap_or(0), Timing { a, b })),
            (Some(Err(failure)), _) | (_, Some(Err(failure))) => return (Err(failure), results),
            // A program of an earlier count failed and ended the timing.
            _ => unreachable!("the first failure is returned above"),
        }
    }
    (Ok(pairs), results)
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
) -> Result<KernelSources, Report> {
    let scop = &kernel.scop;
    let text = kernel
        .sources
        .iter()
        .find(|(n, _)| *n == scop.file)
        .map(|(_, t)| t)
        .filter(|_| scop.region.file == scop.file)
        .ok_or_else(|| {
            plain(
                crate::diag::codes::TIMING_FAILED,
                format!(
                "the kernel clock cannot time the region of `{}`: it is not in that file's own \
                 text; use `--time process`",
                scop.file
            ),
            )
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

/// Benchmarks build and run the kernel's file as a program: a fragment (statements at file
/// scope) is not one.
pub fn refuse_fragment(kernel: &Kernel) -> Result<(), Report> {
    if !kernel.scop.fragment {
        return Ok(());
    }
    let sp = &kernel.scop.region;
    Err(Report {
        diagnostic: crate::diag::Diagnostic::new(
            crate::diag::codes::NOT_A_PROGRAM,
            format!(
                "`{}` is a fragment: its region is not in a function, and benchmarks build and \
             run the file as a program",
                kernel.scop.file
            ),
        )
        .with_label(&sp.file, sp.range.clone(), "statements at file scope")
        .with_help(
            "put the region in a function of a complete program (with a `main` that declares \
             and initialises its arrays and prints a result); `loopy check` and `loopy apply` \
             work on the fragment as it is",
        ),
        sources: kernel.sources.clone(),
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
        OtherResult::Failed(plain(
            crate::diag::codes::CANNOT_READ,
            format!("cannot read `{}`: {e}", r.source.display()),
        ))
    })?;
    let out = reference_region(&text).map_err(|m| {
        OtherResult::Skipped(format!(
            "the kernel clock cannot time `{}`: {m} (or use `--time process`)",
            r.source.display()
        ))
    })?;
    let p = dir.join(&format!("{s}.reference.c"));
    std::fs::write(&p, out).map_err(|e| {
        OtherResult::Failed(plain(
            crate::diag::codes::CANNOT_WRITE,
            format!("cannot write `{}`: {e}", p.display()),
        ))
    })?;
    Ok(p)
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
        .map_err(|e| {
            plain(
                crate::diag::codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", src.display()),
            )
        })
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

impl Others {
    /// Records a baseline or reference: to be timed (with `env`) when it was built and
    /// checked, else with the reason it was not.
    fn add(
        &mut self,
        kind: OtherKind,
        label: String,
        prepared: Result<(PathBuf, f64), OtherResult>,
        env: &Env,
    ) {
        let result = match prepared {
            Ok((exe, check)) => {
                self.exes.push((self.list.len(), exe, env.clone()));
                OtherResult::Timed {
                    samples: vec![],
                    ratio: f64::NAN,
                    check,
                }
            }
            Err(result) => result,
        };
        self.list.push(Other {
            kind,
            label,
            result,
        });
    }
}

/// Builds a baseline or the reference (timed executable, and a check executable when the
/// check build differs), runs its check build and compares it with the original's check
/// output `original`. Returns the timed executable and the largest relative difference
/// found.
#[allow(clippy::too_many_arguments)]
fn prepare_other(
    job: &Job,
    dir: &WorkDir,
    toolchain: &Toolchain,
    (source, quote): (&Path, &[PathBuf]),
    name: &str,
    separate_check: bool,
    original: &native::RunOutcome,
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
                plain(crate::diag::codes::RUN_FAILED, format!(
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

impl WithStderr for Report {
    fn with_stderr(mut self, stderr: &[u8]) -> Report {
        let text = String::from_utf8_lossy(stderr);
        let tail: Vec<&str> = text.lines().rev().take(10).collect();
        for l in tail.into_iter().rev() {
            self.diagnostic = self.diagnostic.with_note(format!("stderr: {l}"));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn environments() {
        assert_eq!(
            reference_env(None)[1],
            ("OPENBLAS_NUM_THREADS".into(), "1".into())
        );
        assert!(thread_env(None).is_empty());
    }
}
