//! `loopy tune` end to end: errors with spans and exit codes, the tuned script written with
//! its values. The tuning loop with a fake timer is tested beside it (`src/tune/timer_tests.rs`).

mod common;
use common::{loopy, scratch};
use std::path::PathBuf;

const KERNEL: &str = "examples/gemm/gemm.c";
const SCRIPT: &str = "tests/data/scripts/gemm-fast-literal.loopy";

fn root(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The command: bad arguments are exit 2 with the argument underlined.
#[test]
fn command_line_errors() {
    let cases: [(&[&str], &str, &str); 5] = [
        (&["--values", "XR=4"], "declares no parameter `XR`", "XR=4"),
        (&["--range", "MC=96..48"], "is empty", "96..48"),
        (
            &["--range", "MC=48..96:0"],
            "must be positive",
            "MC=48..96:0",
        ),
        (&["--values", "MR="], "no values to try", "--values MR="),
        (&["--range", "MC=48..x"], "must be an integer", "MC=48..x"),
    ];
    for (args, message, shown) in cases {
        let mut all = vec!["tune", KERNEL, SCRIPT];
        all.extend(args);
        let (code, out, err) = loopy(&all);
        assert_eq!(code, 2, "{args:?}: {out}\n{err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(err.contains("<tuning arguments>"), "{args:?}: {err}");
        assert!(err.contains(shown), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
    let (code, _, err) = loopy(&["tune", KERNEL, SCRIPT, "--set", "MR"]);
    assert_eq!(code, 2, "{err}");
    // The whole report of a name the script does not declare, and of an empty range.
    let (_, _, err) = loopy(&[
        "tune",
        KERNEL,
        SCRIPT,
        "--range",
        "MC=48..96:24",
        "--values",
        "KR=4,8",
    ]);
    insta::assert_snapshot!("unknown_parameter", err);
    let (_, _, err) = loopy(&["tune", KERNEL, SCRIPT, "--range", "MC=96..48:24"]);
    insta::assert_snapshot!("empty_range", err);
}

/// The command end to end at a tiny size: the tuned script is the script with the chosen
/// values in its `param` lines and nothing else changed, and it checks.
#[test]
fn the_tuned_script_is_written() {
    let dir = scratch("tune", "written");
    let out = dir.join("tuned.loopy");
    let out_s = out.display().to_string();
    let (code, stdout, err) = loopy(&[
        "tune", KERNEL, SCRIPT, "-D", "NI=20", "-D", "NJ=24", "-D", "NK=12", "--values", "MR=2,4",
        "--runs", "1", "--screen", "1", "--cflags", "-O1", "-o", &out_s,
    ]);
    assert_eq!(code, 0, "{stdout}\n{err}");
    let best = stdout
        .lines()
        .find_map(|l| l.strip_prefix("best: candidate "))
        .expect(&stdout);
    let inside = &best[best.find('(').unwrap() + 1..best.find(')').unwrap()];
    let chosen: Vec<(&str, &str)> = inside
        .split(' ')
        .map(|p| p.split_once('=').unwrap())
        .collect();
    assert_eq!(chosen.len(), 1, "{best}");
    let original = std::fs::read_to_string(root(SCRIPT)).unwrap();
    let mut expected = original.clone();
    for (n, v) in &chosen {
        let from = original
            .lines()
            .find(|l| l.starts_with(&format!("param {n} =")))
            .unwrap();
        expected = expected.replace(from, &format!("param {n} = {v}"));
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
    // The script's values, then MR=2 and MR=4.
    assert!(
        stdout.contains("3 candidate(s), 3 legal, 3 timed"),
        "{stdout}"
    );
    let (code, _, err) = loopy(&["check", KERNEL, &out_s]);
    assert_eq!(code, 0, "{err}");
    // JSON: the same fields for every candidate.
    let (code, json, err) = loopy(&[
        "tune", KERNEL, SCRIPT, "-D", "NI=20", "-D", "NJ=24", "-D", "NK=12", "--values", "MR=2,0",
        "--runs", "1", "--screen", "1", "--cflags", "-O1", "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        json.contains("\"order\": \"coordinate descent, at most 3 passes\""),
        "{json}"
    );
    assert!(json.contains("\"verdict\": \"error\""), "{json}");
    assert!(json.contains("\"start\": 0"), "{json}");
    assert_eq!(json.matches("\"verdict\"").count(), 3, "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}
