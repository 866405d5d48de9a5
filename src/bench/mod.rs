//! The bench loop behind `loopy bench` (and anything else that times scripts): a [`Job`] is
//! one comparison — verify the script, generate the transformed kernel, build the original
//! and the transformed program with the same toolchain, require identical outputs, time
//! them interleaved — and its [`Outcome`]. Also the jobs of a manifest and the results
//! table. Printing diagnostics and the command line belong to `cli/bench.rs`.
//!
//! `job`: the job and its outcome; `run`: running one job (`bench_one`); `jobs`: the jobs of
//! a manifest; `json` and `table`: the outcome as JSON and the results table. Commands that
//! time many candidates (`search`, `tune`) do it through `crate::timing`, which runs jobs
//! here.

use crate::diag::Diagnostic;
use crate::diag::Report;
use crate::native::{Clock, Toolchain};
use std::path::Path;

mod job;
mod jobs;
mod json;
mod run;
mod table;

pub use job::{Baseline, ExtraTimings, Job, Other, OtherKind, OtherResult, Outcome, Progress};
pub use jobs::{manifest_jobs, BenchSettings, ManifestRun};
pub use json::{outcome_json, OutcomeJson};
pub use run::{bench_one, refuse_fragment};
pub use table::{second_label, table};

pub fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".into())
}

pub fn plain(code: crate::diag::Code, msg: String) -> Report {
    Report {
        diagnostic: Diagnostic::new(code, msg),
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

/// `1 thread`, `2 threads`.
pub fn threads_text(t: u32) -> String {
    if t == 1 {
        "1 thread".to_string()
    } else {
        format!("{t} threads")
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

pub fn describe_toolchain(t: &Toolchain) -> String {
    let name = t.version().unwrap_or_else(|| t.cc.join(" "));
    format!("{name}, {}", t.cflags.join(" "))
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
    fn threads_texts() {
        assert_eq!(threads_text(1), "1 thread");
        assert_eq!(threads_text(4), "4 threads");
    }

    #[test]
    fn openmp_flags_follow_the_marks() {
        let par = "void f() {\n  #pragma omp parallel for\n  for (;;) {\n  #pragma omp simd\n  for (;;) ;\n  }\n}";
        assert_eq!(openmp_flag(par), Some("-fopenmp"));
        let simd = "void f() {\n  #pragma omp simd\n  for (;;) ;\n}";
        assert_eq!(openmp_flag(simd), Some("-fopenmp-simd"));
        assert_eq!(openmp_flag("void f() { for (;;) ; }"), None);
    }
}
