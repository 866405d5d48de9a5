//! Timing two programs against each other.
//!
//! After `warmup` untimed runs of each, the programs run `runs` times each, interleaved
//! A B A B …: slow drift of the machine (frequency scaling, other jobs, a warming cache)
//! then affects both sides alike instead of all the runs of one side. The speedup is the
//! median over rounds of `a / b` (each round's two runs saw nearly the same machine).

use super::run::{run_with_env, RunOutcome};
use crate::diag::codes;
use crate::diag::{Diagnostic, Report};
use std::path::Path;

/// Where a run's time comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// The modelled region alone: both programs are built with the kernel clock's calls
    /// around their region ([`super::kernel_clock`]) and report the seconds spent in it.
    Kernel,
    /// Wall time of the whole process, spawn to exit.
    Process,
    /// The program's own measurement: the last non-empty line of its stdout, in seconds
    /// (PolyBench's `-DPOLYBENCH_TIME`).
    Stdout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub runs: usize,
    pub warmup: usize,
    pub clock: Clock,
}

/// Which program of a pair.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

/// Reported before every run.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingProgress {
    pub warmup: bool,
    /// Runs finished so far, warm-up included.
    pub done: usize,
    pub total: usize,
    pub side: Side,
}

/// Minimum, median and maximum of some samples, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

/// The median of some numbers (the mean of the two middle ones for an even count).
pub fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

impl Stats {
    pub fn of(xs: &[f64]) -> Stats {
        Stats {
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            median: median(xs),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// The samples of a timing, in seconds, in run order (`a[i]` and `b[i]` ran back to back).
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

impl Timing {
    pub fn a_stats(&self) -> Stats {
        Stats::of(&self.a)
    }

    pub fn b_stats(&self) -> Stats {
        Stats::of(&self.b)
    }

    /// How many times faster B is than A: the median over rounds of `a[i] / b[i]`.
    pub fn speedup(&self) -> f64 {
        let ratios: Vec<f64> = self.a.iter().zip(&self.b).map(|(a, b)| a / b).collect();
        median(&ratios)
    }
}

/// The time a program printed as the last non-empty line of its stdout, in seconds.
pub fn time_from_stdout(stdout: &[u8]) -> Result<f64, String> {
    let text = String::from_utf8_lossy(stdout);
    let Some(last) = text.lines().rev().find(|l| !l.trim().is_empty()) else {
        return Err("the program printed nothing on stdout".to_string());
    };
    let word = last.split_whitespace().next().unwrap_or("");
    match word.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!(
            "the last line of stdout is not a time in seconds: {:?}",
            last.trim_end()
        )),
    }
}

/// One timed run: its time in seconds under `clock`, with these variables added to the
/// program's environment.
pub fn timed_run_with_env(
    exe: &Path,
    env: &[(String, String)],
    clock: Clock,
) -> Result<(f64, RunOutcome), Report> {
    let report = super::kernel_clock::report_path(exe);
    let o = if clock == Clock::Kernel {
        // A report left by an earlier run must not pass for this one's.
        match std::fs::remove_file(&report) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Report {
                    diagnostic: Diagnostic::new(
                        codes::CANNOT_WRITE,
                        format!("cannot remove `{}`: {e}", report.display()),
                    ),
                    sources: vec![],
                })
            }
        }
        let mut env = env.to_vec();
        env.push((
            super::kernel_clock::ENV.to_string(),
            report.display().to_string(),
        ));
        run_with_env(exe, &env)?
    } else {
        run_with_env(exe, env)?
    };
    if !o.success() {
        let mut d = Diagnostic::new(
            codes::RUN_FAILED,
            format!(
                "`{}` failed while being timed ({})",
                exe.display(),
                o.status
            ),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        let tail: Vec<&str> = err.lines().rev().take(10).collect();
        for l in tail.into_iter().rev() {
            d = d.with_note(format!("stderr: {l}"));
        }
        return Err(Report {
            diagnostic: d,
            sources: vec![],
        });
    }
    let t = match clock {
        Clock::Kernel => super::kernel_clock::read_report(&report).map_err(|m| Report {
            diagnostic: Diagnostic::new(codes::TIMING_FAILED, format!("`{}`: {m}", exe.display()))
                .with_help(
                    "the kernel clock times the modelled region; `--time process` times the \
                 whole process instead",
                ),
            sources: vec![],
        })?,
        Clock::Process => o.wall.as_secs_f64(),
        Clock::Stdout => time_from_stdout(&o.stdout).map_err(|m| Report {
            diagnostic: Diagnostic::new(codes::TIMING_FAILED, format!("`{}`: {m}", exe.display()))
                .with_help(
                    "`--time-from-stdout` expects the program to print its kernel time in \
                 seconds as the last line (PolyBench: `-DPOLYBENCH_TIME`)",
                ),
            sources: vec![],
        })?,
    };
    Ok((t, o))
}

/// Times `a` against `b`: `plan.warmup` untimed runs of each, then `plan.runs` timed runs
/// of each, interleaved A B A B. `progress` is called before every run.
#[cfg(test)]
pub fn time_pair(
    a: &Path,
    b: &Path,
    plan: &Plan,
    progress: &mut dyn FnMut(TimingProgress),
) -> Result<Timing, Report> {
    let programs = [TimedProgram::new(a), TimedProgram::new(b)];
    let mut samples = time_all(&programs, 2, plan, &mut |p: AllProgress| {
        progress(TimingProgress {
            warmup: p.warmup,
            done: p.done,
            total: p.total,
            side: if p.program == 0 { Side::A } else { Side::B },
        })
    })
    .into_iter();
    let a = samples.next().expect("two programs")?;
    let b = samples.next().expect("two programs")?;
    Ok(Timing { a, b })
}

/// A program to time, with variables added to its environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedProgram<'a> {
    pub exe: &'a Path,
    pub env: Vec<(String, String)>,
}

impl<'a> TimedProgram<'a> {
    #[cfg(test)]
    pub fn new(exe: &'a Path) -> TimedProgram<'a> {
        TimedProgram { exe, env: vec![] }
    }
}

/// Reported before every run of [`time_all`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllProgress {
    pub warmup: bool,
    /// Runs finished so far, warm-up included.
    pub done: usize,
    /// Runs planned (fewer happen when a program fails).
    pub total: usize,
    /// Index of the program about to run.
    pub program: usize,
}

/// Times several programs against each other: `plan.warmup` untimed rounds, then
/// `plan.runs` timed rounds; each round runs every program once, in the order given. A
/// program that fails (or whose time cannot be read) is left out of the later rounds and
/// its entry is that failure; the others go on, unless it is one of the first `essential`
/// programs: then nothing more runs. Entry `i` holds program `i`'s samples.
pub fn time_all(
    programs: &[TimedProgram],
    essential: usize,
    plan: &Plan,
    progress: &mut dyn FnMut(AllProgress),
) -> Vec<Result<Vec<f64>, Report>> {
    let total = programs.len() * (plan.warmup + plan.runs);
    let mut done = 0;
    let mut out: Vec<Result<Vec<f64>, Report>> = programs.iter().map(|_| Ok(vec![])).collect();
    for round in 0..plan.warmup + plan.runs {
        let warmup = round < plan.warmup;
        for (i, p) in programs.iter().enumerate() {
            if out[i].is_err() {
                continue;
            }
            progress(AllProgress {
                warmup,
                done,
                total,
                program: i,
            });
            done += 1;
            match timed_run_with_env(p.exe, &p.env, plan.clock) {
                Ok((secs, _)) => {
                    if !warmup {
                        if let Ok(v) = &mut out[i] {
                            v.push(secs);
                        }
                    }
                }
                Err(e) => {
                    out[i] = Err(e);
                    if i < essential {
                        return out;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::{Toolchain, WorkDir};

    #[test]
    fn statistics() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        let s = Stats::of(&[0.3, 0.1, 0.2, 0.5, 0.4]);
        assert_eq!((s.min, s.median, s.max), (0.1, 0.3, 0.5));
        let t = Timing {
            a: vec![2.0, 4.0, 3.0],
            b: vec![1.0, 1.0, 2.0],
        };
        // Ratios per round 2, 4, 1.5: the median is 2 (not 3 / 1 from the medians).
        assert_eq!(t.speedup(), 2.0);
    }

    #[test]
    fn times_on_stdout() {
        assert_eq!(time_from_stdout(b"== C\n1 2\n0.001234\n"), Ok(0.001234));
        assert_eq!(time_from_stdout(b"0.5\n\n"), Ok(0.5));
        assert_eq!(time_from_stdout(b"1.5e-3 s\n"), Ok(0.0015));
        assert!(time_from_stdout(b"").is_err());
        assert!(time_from_stdout(b"result 7\n")
            .unwrap_err()
            .contains("result 7"));
        assert!(time_from_stdout(b"-1\n").is_err());
    }

    fn build(dir: &WorkDir, name: &str, body: &str) -> std::path::PathBuf {
        let src = dir.join(&format!("{name}.c"));
        std::fs::write(
            &src,
            format!("#include <stdio.h>\n#include <stdlib.h>\nint main(void) {{ {body} }}\n"),
        )
        .unwrap();
        let exe = dir.join(name);
        Toolchain {
            cflags: vec!["-O0".into()],
            ..Toolchain::default()
        }
        .compile(&src, &[], &[], &exe)
        .unwrap();
        exe
    }

    #[test]
    fn interleaved_runs_with_progress() {
        let dir = WorkDir::new(None).unwrap();
        let a = build(&dir, "a", r#"printf("x\n0.5\n"); return 0;"#);
        let b = build(&dir, "b", r#"printf("x\n0.25\n"); return 0;"#);
        let plan = Plan {
            runs: 3,
            warmup: 1,
            clock: Clock::Stdout,
        };
        let mut seen = vec![];
        let t = time_pair(&a, &b, &plan, &mut |p| seen.push(p)).unwrap();
        assert_eq!(t.a, vec![0.5; 3]);
        assert_eq!(t.b, vec![0.25; 3]);
        assert_eq!(t.speedup(), 2.0);
        let order: Vec<(bool, Side)> = seen.iter().map(|p| (p.warmup, p.side)).collect();
        assert_eq!(
            order,
            vec![
                (true, Side::A),
                (true, Side::B),
                (false, Side::A),
                (false, Side::B),
                (false, Side::A),
                (false, Side::B),
                (false, Side::A),
                (false, Side::B)
            ]
        );
        assert!(seen
            .iter()
            .enumerate()
            .all(|(i, p)| p.done == i && p.total == 8));

        let plan = Plan {
            clock: Clock::Process,
            ..plan
        };
        let t = time_pair(&a, &b, &plan, &mut |_| {}).unwrap();
        assert!(t.a.iter().chain(&t.b).all(|&s| s > 0.0 && s < 10.0));
    }

    #[test]
    fn failures_while_timing() {
        let dir = WorkDir::new(None).unwrap();
        let ok = build(&dir, "ok", r#"printf("1\n"); return 0;"#);
        let fails = build(&dir, "fails", r#"fprintf(stderr, "boom\n"); return 3;"#);
        let words = build(&dir, "words", r#"printf("done\n"); return 0;"#);
        let plan = Plan {
            runs: 1,
            warmup: 0,
            clock: Clock::Process,
        };
        let e = time_pair(&ok, &fails, &plan, &mut |_| {}).unwrap_err();
        assert!(e.diagnostic.message.contains("exit status 3"));
        assert!(e.diagnostic.notes.iter().any(|n| n.contains("boom")));
        let plan = Plan {
            clock: Clock::Stdout,
            ..plan
        };
        let e = time_pair(&ok, &words, &plan, &mut |_| {}).unwrap_err();
        assert!(e.diagnostic.message.contains("\"done\""), "{e}");
    }

    #[test]
    fn several_programs_with_their_environments() {
        let dir = WorkDir::new(None).unwrap();
        let env = build(
            &dir,
            "env",
            r#"const char *t = getenv("LOOPY_T"); printf("%s\n", t ? t : "0.5"); return 0;"#,
        );
        let fails = build(&dir, "fails", r#"return 4;"#);
        let plan = Plan {
            runs: 2,
            warmup: 1,
            clock: Clock::Stdout,
        };
        let programs = [
            TimedProgram::new(&env),
            TimedProgram {
                exe: &env,
                env: vec![("LOOPY_T".into(), "0.25".into())],
            },
            TimedProgram::new(&fails),
        ];
        let mut seen = vec![];
        let r = time_all(&programs, 0, &plan, &mut |p| seen.push(p.program));
        assert_eq!(r[0].as_ref().unwrap(), &vec![0.5, 0.5]);
        assert_eq!(r[1].as_ref().unwrap(), &vec![0.25, 0.25]);
        assert!(r[2]
            .as_ref()
            .unwrap_err()
            .diagnostic
            .message
            .contains("exit status 4"));
        // The failing program ran once (in the warm-up round) and not again.
        assert_eq!(seen, vec![0, 1, 2, 0, 1, 0, 1]);
        // When it is essential, nothing runs after it.
        let programs = [TimedProgram::new(&fails), TimedProgram::new(&env)];
        let mut seen = vec![];
        let r = time_all(&programs, 1, &plan, &mut |p| seen.push(p.program));
        assert!(r[0].is_err());
        assert_eq!(seen, vec![0]);
    }
}
