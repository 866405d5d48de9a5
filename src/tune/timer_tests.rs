//! The tuning loop with a fake timer: a deterministic choice, the order of the candidates,
//! screening and finalists, candidates the checker or the timer rejects never chosen.

use crate::bench::{plain, ExtraTimings, Job, Outcome, Progress};
use crate::native::{Clock, Plan, Timing, Toolchain};
use crate::testing::scratch;
use crate::tune::{self, Candidates, Order, Specs, Timer, TuneEvent, Tuning, Verdict};
use std::path::PathBuf;

const KERNEL: &str = "examples/gemm/gemm.c";
const SCRIPT: &str = "tests/data/scripts/gemm-fast-literal.loopy";
const SIZES: [&str; 3] = ["NI=40", "NJ=48", "NK=36"];

fn root(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn job() -> Job {
    let opts = crate::frontend::Options {
        defines: strings(&SIZES),
        ..Default::default()
    };
    let toolchain = Toolchain {
        defines: opts.defines.clone(),
        ..Toolchain::default()
    };
    Job::new(
        root(KERNEL),
        Some(root(SCRIPT)),
        opts,
        toolchain,
        Plan {
            runs: 1,
            warmup: 0,
            clock: Clock::Kernel,
        },
    )
}

fn tuning(ranges: &[&str], values: &[&str], order: Order, screen: f64) -> Tuning {
    Tuning {
        specs: Specs::from_command_line(&strings(ranges), &strings(values), &[]).unwrap(),
        order,
        time_limit: 600.0,
        screen,
        screen_above: 0.5,
        finalists: 2,
        playoff: 0,
        budget: 50_000_000,
        job: job(),
    }
}

/// A timer that runs nothing: the transformed program's time is a function of the
/// candidate's values (the fastest at MR=4, NR=16, KC=24), the original takes one second;
/// at the screening sizes every time is halved and KC=16 looks best. NR=12 "fails to
/// build", however fast it would be. Every call is recorded.
#[derive(Default)]
struct Fake {
    calls: Vec<(String, bool)>,
}

fn value(job: &Job, name: &str) -> i64 {
    job.settings
        .get(name)
        .map(|s| s.value.to_i64().unwrap())
        .unwrap_or(-1)
}

impl Timer for Fake {
    fn time(&mut self, job: &Job, progress: Progress) -> Outcome {
        progress("fake timing");
        let screen = job.toolchain.defines != strings(&SIZES);
        let (mr, nr, kc) = (value(job, "MR"), value(job, "NR"), value(job, "KC"));
        self.calls
            .push((format!("MR={mr} NR={nr} KC={kc}"), screen));
        if nr == 12 {
            return Outcome::Failed {
                failure: plain(
                    crate::diag::codes::COMPILE_FAILED,
                    "the compiler gave up".into(),
                ),
                kept: None,
            };
        }
        let best_kc = if screen { 16 } else { 24 };
        let t = 0.1
            + 0.05 * (mr - 4).abs() as f64
            + 0.01 * (nr - 16).abs() as f64
            + 0.001 * (kc - best_kc).abs() as f64;
        let f = if screen { 0.5 } else { 1.0 };
        Outcome::Timed {
            timing: Timing {
                a: vec![f],
                b: vec![t * f],
            },
            kept: None,
            extra: Box::new(ExtraTimings {
                flops: Some(1e9),
                ..ExtraTimings::default()
            }),
        }
    }
}

fn run(t: &Tuning) -> (tune::TuneReport, Fake, Vec<String>) {
    let mut fake = Fake::default();
    let mut statuses = vec![];
    let r = tune::tune(t, &mut fake, &mut |e| {
        if let TuneEvent::Status(s) = e {
            statuses.push(s.to_string());
        }
    })
    .unwrap_or_else(|f| panic!("{}", f.render(false)));
    (r, fake, statuses)
}

fn values(r: &tune::TuneReport, c: usize) -> String {
    tune::describe(&r.params, &r.candidates[c].values)
}

/// Coordinate descent without screening: every value of MR with the others held, then
/// NR, then KC, then a second pass that changes nothing. MR=0 is refused by the script
/// and NR=12 by the timer; neither is chosen.
#[test]
fn descent_with_a_fake_timer_is_deterministic() {
    let t = tuning(
        &["KC=8..32:8"],
        &["MR=0,4,6,8", "NR=8,12,16"],
        Order::Descent { passes: 3 },
        1.0,
    );
    let (r, fake, statuses) = run(&t);
    let names: Vec<&str> = r.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["MR", "NR", "KC"], "declaration order");
    assert_eq!(r.params[0].start, 6);
    assert_eq!(r.params[0].origin, "default");
    let timed: Vec<&str> = fake.calls.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        timed,
        [
            "MR=6 NR=8 KC=256",
            "MR=4 NR=8 KC=256",
            "MR=8 NR=8 KC=256",
            "MR=4 NR=12 KC=256",
            "MR=4 NR=16 KC=256",
            "MR=4 NR=16 KC=8",
            "MR=4 NR=16 KC=16",
            "MR=4 NR=16 KC=24",
            "MR=4 NR=16 KC=32",
            // The second pass: only the combinations not tried yet.
            "MR=6 NR=16 KC=24",
            "MR=8 NR=16 KC=24",
            "MR=4 NR=8 KC=24",
            "MR=4 NR=12 KC=24",
        ]
    );
    assert!(
        fake.calls.iter().all(|c| !c.1),
        "no screening at --screen 1"
    );
    let best = r.best.unwrap();
    assert_eq!(values(&r, best), "MR=4 NR=16 KC=24");
    let m = r.candidates[best].timing.unwrap();
    assert!((m.speedup - 10.0).abs() < 1e-9, "{m:?}");
    assert!((m.gflops.unwrap() - 10.0).abs() < 1e-9, "{m:?}");
    assert_eq!(values(&r, r.start().unwrap()), "MR=6 NR=8 KC=256");
    // MR=0 was refused before timing, by the script itself.
    let zero = r
        .candidates
        .iter()
        .find(|c| c.values[0] == 0)
        .expect("MR=0 tried");
    assert_eq!(zero.verdict.name(), "error");
    assert!(zero.timing.is_none());
    let failed = r.candidates.iter().find(|c| c.values[1] == 12).unwrap();
    assert_eq!(
        failed.verdict,
        Verdict::Error("the compiler gave up".into())
    );
    assert!(!r.out_of_time);
    assert!(
        statuses
            .iter()
            .any(|s| s.starts_with("candidate 3/12 (MR=4 NR=8 KC=256), ")
                && s.ends_with(": fake timing")),
        "{statuses:?}"
    );
    // The same run again makes the same choice in the same order.
    let (again, fake2, _) = run(&t);
    assert_eq!(fake2.calls, fake.calls);
    assert_eq!(again.best, r.best);
}

/// Screening: every candidate at half the sizes, the best two again at the sizes given;
/// the choice is made at the sizes given.
#[test]
fn screening_then_finalists() {
    let t = tuning(
        &["KC=16..24:8"],
        &["MR=4", "NR=16"],
        Order::Descent { passes: 1 },
        0.5,
    );
    let (r, fake, _) = run(&t);
    assert_eq!(
        r.screen_defines,
        Some(strings(&["NI=20", "NJ=24", "NK=18"]))
    );
    let calls: Vec<(&str, bool)> = fake.calls.iter().map(|c| (c.0.as_str(), c.1)).collect();
    assert_eq!(
        calls,
        [
            // The script's values at the screening sizes first: the original takes
            // `screen_above` there already, so screening pays; nothing at the sizes given.
            ("MR=6 NR=8 KC=256", true),
            ("MR=4 NR=8 KC=256", true),
            ("MR=4 NR=16 KC=256", true),
            ("MR=4 NR=16 KC=16", true),
            ("MR=4 NR=16 KC=24", true),
            // The finalists: the best two screened, best first.
            ("MR=4 NR=16 KC=16", false),
            ("MR=4 NR=16 KC=24", false),
        ]
    );
    // Screening preferred KC=16; at the sizes given KC=24 is faster and chosen.
    assert_eq!(values(&r, r.best.unwrap()), "MR=4 NR=16 KC=24");
}

/// Where the original is fast at the screening sizes, the first candidate is timed at the
/// sizes given too, and that timing decides: screening stays when the original takes
/// `screen_above` there, else everything is timed at the sizes given and the first
/// candidate's screening time is dropped.
#[test]
fn screening_decided_at_the_sizes_given_when_the_screened_original_is_fast() {
    let mut t = tuning(
        &["KC=16..24:8"],
        &["MR=4", "NR=16"],
        Order::Descent { passes: 1 },
        0.5,
    );
    // The fake's original takes 0.5 s at the screening sizes and 1 s at the sizes given.
    t.screen_above = 0.8;
    let (r, fake, _) = run(&t);
    assert!(r.screen_defines.is_some());
    let calls: Vec<(&str, bool)> = fake.calls.iter().map(|c| (c.0.as_str(), c.1)).collect();
    assert_eq!(
        calls[..3],
        [
            ("MR=6 NR=8 KC=256", true),
            ("MR=6 NR=8 KC=256", false),
            ("MR=4 NR=8 KC=256", true),
        ]
    );
    t.screen_above = 2.0;
    let (r, fake, _) = run(&t);
    assert_eq!(r.screen_defines, None);
    assert_eq!(fake.calls[0], ("MR=6 NR=8 KC=256".to_string(), true));
    assert!(fake.calls[1..].iter().all(|c| !c.1), "{:?}", fake.calls);
    assert!(r.candidates.iter().all(|c| c.screen.is_none()));
}

/// A timer whose first timing of MR=6 is a lucky draw (twice as fast as its true time,
/// which is slower than MR=4's): each call gives three rounds.
#[derive(Default)]
struct Lucky {
    calls: Vec<String>,
}

impl Timer for Lucky {
    fn time(&mut self, job: &Job, _: Progress) -> Outcome {
        let mr = value(job, "MR");
        let first = !self.calls.iter().any(|c| *c == format!("MR={mr}"));
        self.calls.push(format!("MR={mr}"));
        let t = match mr {
            4 => 0.10,
            6 if first => 0.06,
            6 => 0.12,
            _ => 0.20,
        };
        crate::testing::three_rounds(t)
    }
}

/// The playoff: the best two are timed twice more, in turn, and the choice is made on all
/// their rounds; without it the lucky first draw wins.
#[test]
fn the_playoff_corrects_a_lucky_draw() {
    let mut t = tuning(&[], &["MR=4,6,8"], Order::Grid, 1.0);
    let run_lucky = |t: &Tuning| {
        let mut timer = Lucky::default();
        let r = tune::tune(t, &mut timer, &mut |_| {})
            .unwrap_or_else(|f| panic!("{}", f.render(false)));
        (r, timer.calls)
    };
    let (r, calls) = run_lucky(&t);
    assert_eq!(calls, ["MR=4", "MR=6", "MR=8"]);
    assert_eq!(values(&r, r.best.unwrap()), "MR=6");
    assert!(r.playoff.is_empty());
    t.playoff = 2;
    let (r, calls) = run_lucky(&t);
    assert_eq!(
        calls,
        ["MR=4", "MR=6", "MR=8", "MR=6", "MR=4", "MR=6", "MR=4"],
        "the best two in turn, best first, twice"
    );
    assert_eq!(values(&r, r.best.unwrap()), "MR=4");
    let four = r.candidates.iter().position(|c| c.values == [4]).unwrap();
    let six = r.candidates.iter().position(|c| c.values == [6]).unwrap();
    assert_eq!(r.playoff, [four, six]);
    let m4 = r.candidates[four].timing.unwrap();
    let m6 = r.candidates[six].timing.unwrap();
    assert_eq!((m4.rounds, m6.rounds), (9, 9));
    assert!((m4.speedup - 10.0).abs() < 1e-9, "{m4:?}");
    // Six rounds at 0.12 s and three at 0.06 s: the median is 0.12 s.
    assert!((m6.speedup - 1.0 / 0.12).abs() < 1e-9, "{m6:?}");
    // MR=8 played no playoff and keeps its three rounds.
    let eight = r.candidates.iter().position(|c| c.values == [8]).unwrap();
    assert_eq!(r.candidates[eight].timing.unwrap().rounds, 3);
}

/// The grid: every combination, the last parameter fastest.
#[test]
fn the_grid_in_order() {
    let t = tuning(&[], &["MR=4,6", "KC=16,24"], Order::Grid, 1.0);
    let (r, fake, _) = run(&t);
    let calls: Vec<&str> = fake.calls.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        calls,
        [
            "MR=4 NR=-1 KC=16",
            "MR=4 NR=-1 KC=24",
            "MR=6 NR=-1 KC=16",
            "MR=6 NR=-1 KC=24",
        ],
        "NR is not tuned: the timer sees no setting for it"
    );
    assert_eq!(values(&r, r.best.unwrap()), "MR=4 KC=24");
    assert!(
        r.start().is_none(),
        "the script's values are not in the grid"
    );
}

/// Names the script does not declare are errors pointing at the argument; so is a
/// script without parameters.
#[test]
fn tuning_errors() {
    let t = tuning(&["MC=48..96:24"], &["XR=4"], Order::Grid, 1.0);
    let f = tune::tune(&t, &mut Fake::default(), &mut |_| {})
        .err()
        .unwrap();
    assert_eq!(
        f.diagnostic.message,
        "the script declares no parameter `XR`"
    );
    assert_eq!(f.sources[0].0, tune::TUNE_ARGS);
    let r = f.diagnostic.labels[0].range.clone();
    assert_eq!(&f.sources[0].1[r], "XR=4");
    let mut t = tuning(&[], &[], Order::Grid, 1.0);
    t.job.script = Some(root("examples/gemm/gemm.loopy"));
    let f = tune::tune(&t, &mut Fake::default(), &mut |_| {})
        .err()
        .unwrap();
    assert!(
        f.diagnostic.message.contains("no parameters"),
        "{}",
        f.diagnostic.message
    );
}

#[test]
fn default_candidates_are_around_the_scripts_value() {
    let t = tuning(&[], &[], Order::Descent { passes: 1 }, 1.0);
    let (r, _, _) = run(&t);
    let kc = r.params.iter().find(|p| p.name == "KC").unwrap();
    assert_eq!(kc.values, Candidates::Around.values(256));
    assert_eq!(kc.values, [128, 192, 256, 320, 384, 512]);
    assert_eq!(r.params.len(), 5, "every parameter");
}

/// Values to try written in the script (`param KC = 256 in 128..256 step 128`): without
/// arguments those parameters are tuned over them; `--param` takes them too, `--values`
/// overrides them.
#[test]
fn values_written_in_the_script() {
    let dir = scratch("tune", "in-script");
    let script = dir.join("gemm-in.loopy");
    let text = std::fs::read_to_string(root(SCRIPT))
        .unwrap()
        .replace("param MR = 6\n", "param MR = 6 in [4, 6]\n")
        .replace("param KC = 256\n", "param KC = 256 in 128..256 step 128\n");
    std::fs::write(&script, &text).unwrap();
    let with = |ranges: &[&str], values: &[&str], params: &[&str]| {
        let mut t = tuning(ranges, values, Order::Grid, 1.0);
        t.specs =
            Specs::from_command_line(&strings(ranges), &strings(values), &strings(params)).unwrap();
        t.job.script = Some(script.clone());
        let (r, fake, _) = run(&t);
        let params: Vec<(String, Vec<i64>)> = r
            .params
            .iter()
            .map(|p| (p.name.clone(), p.values.clone()))
            .collect();
        (params, fake.calls.len())
    };
    let (params, n) = with(&[], &[], &[]);
    assert_eq!(
        params,
        [("MR".into(), vec![4, 6]), ("KC".into(), vec![128, 256])]
    );
    assert_eq!(n, 4);
    let (params, _) = with(&[], &[], &["KC"]);
    assert_eq!(params, [("KC".into(), vec![128, 256])]);
    let (params, _) = with(&[], &["KC=64"], &["NR"]);
    assert_eq!(
        params,
        [("NR".into(), tune::around(8)), ("KC".into(), vec![64])]
    );
    // A range too long to try is an error in the script.
    std::fs::write(&script, text.replace("128..256 step 128", "1..5000")).unwrap();
    let mut t = tuning(&[], &[], Order::Grid, 1.0);
    t.job.script = Some(script.clone());
    let f = tune::tune(&t, &mut Fake::default(), &mut |_| {})
        .err()
        .unwrap();
    assert!(
        f.diagnostic.message.contains("5000 values"),
        "{}",
        f.diagnostic.message
    );
    let at = f.diagnostic.labels[0].range.clone();
    assert_eq!(&f.sources[0].1[at], "in 1..5000");
    let _ = std::fs::remove_dir_all(&dir);
}
