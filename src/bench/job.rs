//! A job (one comparison to make: the kernel, the script, the toolchain, the plan and what
//! to time beside the pair) and what became of it (`Outcome`, with the baselines and the
//! reference as run).

use super::stem;
use crate::diag::Report;
use crate::frontend::Options;
use crate::manifest::{FlopsSpec, Reference};
use crate::native::compile::split_words;
use crate::native::{Check, Difference, Plan, Timing, Toolchain};
use std::path::PathBuf;

/// One comparison to make.
#[derive(Clone)]
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
    /// The job that times `script` (`None`: the identity) on `kernel` with `opts`, built by
    /// `toolchain` and timed by `plan`: named after the kernel's file, at its default size,
    /// outputs compared exactly, with no parameter values, no check-build flags, nothing
    /// timed beside the pair and nothing kept. Callers set the other fields by struct
    /// update (`Job { threads, ..Job::new(..) }`).
    pub fn new(
        kernel: PathBuf,
        script: Option<PathBuf>,
        opts: Options,
        toolchain: Toolchain,
        plan: Plan,
    ) -> Job {
        Job {
            name: stem(&kernel),
            size: None,
            kernel,
            script,
            opts,
            settings: Default::default(),
            toolchain,
            check_defines: vec![],
            check_cflags: vec![],
            plan,
            keep: None,
            baselines: vec![],
            reference: None,
            threads: vec![],
            check: Check::Exact,
            flops: None,
        }
    }

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
        extra: Box<ExtraTimings>,
    },
    Differ {
        diff: Difference,
        kept: PathBuf,
    },
    Illegal {
        reports: Vec<Report>,
    },
    Failed {
        failure: Report,
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
    Failed(Report),
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
pub struct ExtraTimings {
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
    /// Warnings on the generated code (`driver::Generated::notes`), with their sources.
    pub warnings: Vec<Report>,
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
