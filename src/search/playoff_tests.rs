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

fn kernel() -> Kernel {
    let kernel_path = root("examples/mvt/mvt.c");
    Kernel::load(&kernel_path, &options()).unwrap_or_else(|r| panic!("{r:?}"))
}

fn options() -> crate::frontend::Options {
    crate::frontend::Options {
        defines: vec!["N=40".to_string()],
        ..Default::default()
    }
}

/// The search's settings for mvt at `N=40`, tiles of 8, nothing kept for finishing.
fn settings(playoff: usize) -> SearchSettings {
    let opts = options();
    let toolchain = Toolchain {
        defines: opts.defines.clone(),
        ..Toolchain::default()
    };
    let plan = Plan {
        runs: 1,
        warmup: 0,
        clock: Clock::Kernel,
    };
    SearchSettings {
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
        job: Job::new(root("examples/mvt/mvt.c"), None, opts, toolchain, plan),
        prefix: vec![],
        recipes: false,
        blis: Err("not in this test".to_string()),
        caches: Default::default(),
        weights: (Default::default(), "fixed".into()),
        finish: 0.0,
        beam: 0,
    }
}

fn search(playoff: usize) -> (SearchReport, Vec<String>) {
    let mut timer = Lucky::default();
    let r =
        search_with(&kernel(), &settings(playoff), &mut timer, &mut |_| {}).expect("within budget");
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

/// A timer that runs nothing: the kernel as it is runs as fast as the original; a script
/// runs at 0.7 of the original's time where its first parameter is 16 (the value set by
/// tune, else the one the script declares) and at 1.1 otherwise. Every script timed is
/// recorded with that value.
#[derive(Default)]
struct Blocks {
    calls: Vec<Option<i64>>,
}

impl Timer for Blocks {
    fn time(&mut self, job: &Job, _: Progress) -> Outcome {
        let text = (job.script.as_ref())
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default();
        let declared = (text.lines())
            .find_map(|l| l.trim().strip_prefix("param "))
            .and_then(|l| l.split('=').nth(1))
            .and_then(|v| v.trim().parse::<i64>().ok());
        let set = (job.settings.items.first()).and_then(|s| s.value.to_i64());
        let value = set.or(declared);
        self.calls.push(value);
        let t = match value {
            None if text.trim().is_empty() => 1.0,
            Some(16) => 0.7,
            _ => 1.1,
        };
        crate::testing::three_rounds(t)
    }
}

/// When no candidate beats the original at the search's values, the fastest one with a
/// parameter is tuned in the time kept for finishing, and its tuned values are the answer
/// when they beat the original: here the tile size 16 tune tries around the search's 8.
/// Where no value beats it, the kernel as it is stays the answer and the reason says why.
#[test]
fn a_candidate_losing_at_its_values_is_tuned_and_wins() {
    let run = |fast: bool| {
        let mut s = settings(0);
        s.finish = 0.5;
        let mut timer = Blocks::default();
        if !fast {
            // Tune's values around 6 stop at 12: none is faster.
            s.tile_sizes = vec![6];
            s.tile_start = 6;
        }
        let r = search_with(&kernel(), &s, &mut timer, &mut |_| {}).expect("within budget");
        (r, timer.calls)
    };
    let (r, calls) = run(true);
    let f = match &r.finished {
        Some(Ok(f)) => f.clone(),
        other => panic!("not tuned: {other:?}; timed {calls:?}"),
    };
    assert_eq!(r.best, Some(f.candidate));
    assert!(f.rescued);
    assert_ne!(f.candidate, r.identity);
    assert!(r.candidates[f.candidate].timing.expect("timed").speedup < 1.0);
    assert!(
        f.changed
            .iter()
            .any(|(_, from, to)| (*from, *to) == (8, 16)),
        "{f:?}"
    );
    assert!(f.tuned.speedup > 1.0 && !r.original_wins());
    assert!(calls.contains(&Some(16)));
    let (r, calls) = run(false);
    assert!(!calls.contains(&Some(16)), "{calls:?}");
    // The kernel as it is, timed when no candidate beat it, stays the answer.
    assert!(
        r.best == Some(r.identity) || r.original_wins(),
        "{:?}",
        r.best
    );
    match &r.finished {
        Some(Err(why)) => assert!(
            why.starts_with("the kernel as it is is the answer; candidate"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
}
