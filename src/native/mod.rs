//! The native stage: compile C programs with the user's compiler, run them, compare their
//! outputs and time them against each other.
//!
//! Knows nothing of scripts or models: it takes paths, texts and options and returns results,
//! or [`crate::diag::Report`]s that point into the files the compiler complained about.
//!
//! - [`compile`]: the toolchain (`$CC`/`cc`, flags, includes, defines, extra sources, link
//!   flags) and compiler failures as reports on the offending line;
//! - [`run`]: one run of a program (exit status, stdout, stderr, wall time) and the first
//!   difference between two runs;
//! - [`kernel_clock`]: the calls spliced around a region to time it alone, the C helper
//!   that implements them, and the report a timed run leaves;
//! - [`time`]: interleaved timing of two programs and the statistics of the samples;
//! - [`plot`]: an SVG bar chart of speedups.

pub mod compile;
pub mod kernel_clock;
pub mod plot;
pub mod run;
pub mod time;

pub use compile::{default_cc, Toolchain};
pub use run::{compare_with, run_with_env, Check, Difference, RunOutcome, Stream};
pub use time::{time_all, Clock, Plan, Stats, TimedProgram, Timing};

use std::path::{Path, PathBuf};

/// A directory for the transformed source and the executables: the user's `--keep`
/// directory (left in place), or a fresh temporary one removed when dropped.
pub struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl WorkDir {
    /// `keep`: a directory to create (if needed) and leave behind.
    pub fn new(keep: Option<&Path>) -> std::io::Result<WorkDir> {
        if let Some(k) = keep {
            std::fs::create_dir_all(k)?;
            return Ok(WorkDir {
                path: k.to_path_buf(),
                remove: false,
            });
        }
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("loopy-bench-{}-{nanos:x}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir { path, remove: true }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the directory outlives this value (a `--keep` directory).
    pub fn is_kept(&self) -> bool {
        !self.remove
    }

    /// Leaves a temporary directory in place (to show the user what failed).
    pub fn persist(&mut self) {
        self.remove = false;
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_dirs_are_distinct_and_removed() {
        let a = WorkDir::new(None).unwrap();
        let b = WorkDir::new(None).unwrap();
        assert_ne!(a.path(), b.path());
        let p = a.path().to_path_buf();
        std::fs::write(a.join("x.c"), "int main(void){return 0;}").unwrap();
        assert!(!a.is_kept());
        drop(a);
        assert!(!p.exists());
    }

    #[test]
    fn kept_dirs_stay() {
        let tmp = WorkDir::new(None).unwrap();
        let keep = tmp.join("keep/me");
        {
            let k = WorkDir::new(Some(&keep)).unwrap();
            assert!(k.is_kept());
            std::fs::write(k.join("f"), "x").unwrap();
        }
        assert!(keep.join("f").exists());
    }
}
