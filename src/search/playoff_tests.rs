//! The search's playoff with a fake timer: a lucky first draw of a candidate does not make
//! the answer once the best few and the kernel as it is are timed again in turn.

use super::driver::{search_with, SearchReport, SearchSettings};
use crate::bench::{Job, Outcome, Progress};
use crate::driver::Kernel;
use crate::native::{Clock, Plan, Toolchain};
use crate::timing::Timer;
use std::path::PathBuf;

fn root(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// A timer that runs nothing: the kernel as it is (an empty script) runs as fast as the
/// original; every other candidate draws twice the original's speed the first time it is
/// timed and two thirds of it every time after. Each call gives three rounds; every script
/// timed is recorded.
#[derive(Default)]
struct Lucky {
    calls: Vec<String>,
}

impl Timer for Lucky {
    fn time(&mut self, job: &Job, _: Progress) -> Outcome {
        let text = (job.script.as_ref())
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default();
        let first = !self.calls.contains(&text);
        self.calls.push(text.clone());
        let t = match (text.trim().is_empty(), first) {
            (true, _) => 1.0,
            (false, true) => 0.5,
            (false, false) => 1.5,
        };
        crate::testing::three_rounds(t)
    }
}

fn search(playoff: usize) -> (SearchReport, Vec<String>) {
    let defines = vec!["N=40".to_string()];
    let opts = crate::frontend::Options {
        defines: defines.clone(),
        ..Default::default()
    };
    let kernel_path = root("examples/mvt/mvt.c");
    let kernel = Kernel::load(&kernel_path, &opts).unwrap_or_else(|r| panic!("{r:?}"));
    let toolchain = Toolchain {
        defines,
        ..Toolchain::default()
    };
    let plan = Plan {
        runs: 1,
        warmup: 0,
        clock: Clock::Kernel,
    };
    let settings = SearchSettings {
        time_limit: 600.0,
        bench: true,
        max_interleavings: 48,
        tile_sizes: vec![8],
        tile_start: 8,
        budget: 50_000_000,
        screen: 1.0,
        screen_above: 0.5,
        finalists: 2,
        playoff,
        parallel: false,
        job: Job::new(kernel_path, None, opts, toolchain, plan),
        prefix: vec![],
        recipes: false,
        blis: Err("not in this test".to_string()),
        caches: Default::default(),
        weights: (Default::default(), "fixed".into()),
        finish: 0.0,
        beam: 0,
    };
    let mut timer = Lucky::default();
    let r = search_with(&kernel, &settings, &mut timer, &mut |_| {}).expect("within budget");
    (r, timer.calls)
}

/// Without a playoff a lucky first draw is the answer; with one, the two best candidates
/// and the kernel as it is are timed twice more each, in turn, and the kernel as it is
/// wins on all their rounds: the search answers with the original.
#[test]
fn the_playoff_corrects_a_lucky_draw() {
    let (r, _) = search(0);
    let best = r.best.expect("timed");
    assert_ne!(best, r.identity);
    assert!(r.playoff.is_empty());
    assert!(!r.original_wins());
    let (r, calls) = search(2);
    assert_eq!(r.playoff.len(), 3, "{:?}", r.playoff);
    assert_eq!(r.playoff[0], r.identity);
    assert_eq!(r.best, Some(r.identity));
    assert!(r.original_wins());
    for &c in &r.playoff {
        let m = r.candidates[c].timing.expect("timed");
        assert_eq!(m.rounds, 9, "candidate {c}: three timings of three rounds");
    }
    // The last six timings are the playoff's: two rounds of the three in turn.
    let last: Vec<&String> = calls.iter().rev().take(6).collect();
    assert_eq!(last[0..3].iter().filter(|t| t.trim().is_empty()).count(), 1);
    assert_eq!(last[3..6].iter().filter(|t| t.trim().is_empty()).count(), 1);
}
