//! The answer's sizes finished by `loopy tune`'s descent: the best candidate's `param` lines
//! (its tile sizes, a recipe's `MR`, `NR`, `KC`) tried around their values one at a time,
//! in the time the search kept for it, every script checked and timed as `tune` does.

use crate::bench::Job;
use crate::timing::{Measured, Timer};
use crate::tune::{self, Order, Specs, Tuning};
use std::path::Path;

/// What finishing changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// The candidate whose script was tuned.
    pub candidate: usize,
    /// It was tuned because no candidate beat the original at the search's values (the
    /// search's `finish_answer`); it is the answer only with its tuned values.
    pub rescued: bool,
    /// Each parameter whose value changed: its name, the search's value and the tuned one.
    pub changed: Vec<(String, i64, i64)>,
    /// The script with the tuned values.
    pub script: Vec<String>,
    /// The tuned script and the search's, timed in tune's own rounds.
    pub tuned: Measured,
    pub before: Measured,
    /// Candidates tune timed.
    pub timed: usize,
}

/// Why the sizes were left as they are, or what tuning them changed.
pub type Outcome = Result<Finished, String>;

/// Tunes the `param` lines of `script` (candidate `candidate`'s, written to `dir`) with one
/// pass of `tune`'s descent in `seconds`, each value around the script's; the tuned values
/// are kept only when they ran at least 2% faster than the script's own in the same rounds.
pub fn finish(
    job: &Job,
    (candidate, script): (usize, &[String]),
    dir: &Path,
    seconds: f64,
    budget: u64,
    timer: &mut dyn Timer,
) -> Outcome {
    let path = dir.join("answer.loopy");
    let text = script.join("\n") + "\n";
    std::fs::write(&path, &text).map_err(|e| format!("cannot write its script: {e}"))?;
    // No parameter named: tune takes every one the script declares, around its value, and
    // says so when there is none.
    let tuning = Tuning {
        specs: Specs::default(),
        order: Order::Descent { passes: 1 },
        time_limit: seconds,
        screen: 1.0,
        screen_above: f64::INFINITY,
        finalists: 1,
        playoff: 0,
        budget,
        job: Job {
            script: Some(path),
            ..job.clone()
        },
    };
    let r = tune::tune(&tuning, timer, &mut |_| {}).map_err(|f| f.diagnostic.message)?;
    let timed = r.candidates.iter().filter(|c| c.timing.is_some()).count();
    let start = r.start().ok_or("the script's own values were not timed")?;
    let before = r.candidates[start]
        .timing
        .ok_or("the script's own values were not timed")?;
    let best = r.best.ok_or("nothing was timed")?;
    let tuned = r.candidates[best]
        .timing
        .ok_or("nothing was timed at full size")?;
    if best == start || tuned.speedup < before.speedup * 1.02 {
        return Err(format!(
            "no other value ran faster than the search's in {timed} timing(s)"
        ));
    }
    let values: Vec<(String, i64)> = (r.params.iter())
        .zip(&r.candidates[best].values)
        .map(|(p, &v)| (p.name.clone(), v))
        .collect();
    let changed = (r.params.iter())
        .zip(&r.candidates[best].values)
        .filter(|(p, &v)| p.start != v)
        .map(|(p, &v)| (p.name.clone(), p.start, v))
        .collect();
    let text = tune::rewrite(&text, "answer.loopy", &values).map_err(|d| d.message)?;
    Ok(Finished {
        candidate,
        rescued: false,
        changed,
        script: text.lines().map(str::to_string).collect(),
        tuned,
        before,
        timed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{ExtraTimings, Outcome, Progress};
    use crate::native::{Clock, Plan, Timing, Toolchain};
    use std::path::PathBuf;

    fn root(p: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
    }

    /// gemm at a small size, timed by a fake timer.
    fn job() -> Job {
        let opts = crate::frontend::Options {
            defines: vec!["NI=40".into(), "NJ=48".into(), "NK=36".into()],
            ..Default::default()
        };
        let toolchain = Toolchain {
            defines: opts.defines.clone(),
            ..Toolchain::default()
        };
        let plan = Plan {
            runs: 1,
            warmup: 0,
            clock: Clock::Kernel,
        };
        Job::new(root("examples/gemm/gemm.c"), None, opts, toolchain, plan)
    }

    /// A timer that runs nothing: the transformed program is fastest at MR = `best` (the
    /// other parameters make no difference), the original takes one second.
    struct Fake {
        best: i64,
        calls: usize,
    }

    impl Timer for Fake {
        fn time(&mut self, job: &Job, _: Progress) -> Outcome {
            self.calls += 1;
            let mr = (job.settings.get("MR"))
                .and_then(|s| s.value.to_i64())
                .unwrap_or(-1);
            Outcome::Timed {
                timing: Timing {
                    a: vec![1.0],
                    b: vec![0.2 + 0.01 * (mr - self.best).abs() as f64],
                },
                kept: None,
                extra: Box::new(ExtraTimings::default()),
            }
        }
    }

    fn script() -> Vec<String> {
        let text =
            std::fs::read_to_string(root("tests/data/scripts/gemm-fast-literal.loopy")).unwrap();
        text.lines().map(str::to_string).collect()
    }

    /// The parameters of the answer tuned: MR moves to the fake timer's fastest value among
    /// those around the script's 6, the others stay; the written script has the new value
    /// and nothing else changed. When the script's own values are the fastest, nothing is
    /// changed and the reason says so.
    #[test]
    fn the_answers_parameters_are_tuned() {
        let dir = crate::testing::scratch("search-finish", "tuned");
        let mut fake = Fake { best: 3, calls: 0 };
        let f = finish(&job(), (0, &script()), &dir, 600.0, 50_000_000, &mut fake).unwrap();
        assert_eq!(f.changed, [("MR".to_string(), 6, 3)]);
        assert!(
            f.script.contains(&"param MR = 3".to_string()),
            "{:?}",
            f.script
        );
        let kept: Vec<String> = (script().into_iter())
            .filter(|l| !l.starts_with("param MR"))
            .collect();
        let now: Vec<String> = (f.script.iter())
            .filter(|l| !l.starts_with("param MR"))
            .cloned()
            .collect();
        assert_eq!(now, kept);
        assert!(f.tuned.speedup > f.before.speedup * 1.02);
        assert!(fake.calls >= f.timed && f.timed > 1);
        let mut same = Fake { best: 6, calls: 0 };
        let why = finish(&job(), (0, &script()), &dir, 600.0, 50_000_000, &mut same).unwrap_err();
        assert!(why.starts_with("no other value ran faster"), "{why}");
        // A script without parameters: tune's own reason.
        let plain = vec!["realign(S0, S1, 0)".to_string()];
        let why = finish(&job(), (0, &plain), &dir, 600.0, 50_000_000, &mut same).unwrap_err();
        assert!(why.contains("nothing to tune"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
