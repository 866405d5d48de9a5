//! `loopy machine` end to end: on fixture machines (a copy of sysfs under
//! `tests/data/machine/*-sysfs` and a stand-in compiler that prints gcc 12's predefined
//! macros for `-march=znver3` or `-march=sapphirerapids`) as snapshots, its errors, and a
//! smoke test on the machine the tests run on that checks only the report's structure.

mod common;
use common::loopy;
use std::path::{Path, PathBuf};

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/machine")
        .join(name)
        .display()
        .to_string()
}

/// A compiler that answers `--version` with one line and anything else with the macros of
/// `tests/data/machine/{macros}` (and records its arguments in `args.txt`).
#[cfg(unix)]
fn fake_cc(dir: &Path, macros: &str) -> String {
    fake_cc_of(dir, &data(macros))
}

/// [`fake_cc`] printing the file `macros`.
#[cfg(unix)]
fn fake_cc_of(dir: &Path, macros: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("fake-cc");
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --version) echo 'fakecc 12.2'; exit 0;; esac; done\n\
         echo \"$@\" > '{}'\ncat '{}'\n",
        dir.join("args.txt").display(),
        macros
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

fn scratch(name: &str) -> PathBuf {
    common::scratch("machine-test", name)
}

/// Replaces the checkout's absolute path so that snapshots hold on any machine.
fn portable(s: &str) -> String {
    s.replace(env!("CARGO_MANIFEST_DIR"), "<repo>")
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = loopy(args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.is_empty(), "{err}");
    portable(&out)
}

#[cfg(unix)]
#[test]
fn zen3_text_and_json() {
    let dir = scratch("zen3");
    let cc = fake_cc(&dir, "zen3.macros");
    let sys = data("zen3-sysfs");
    let base = [
        "machine",
        "--cc",
        &cc,
        "--sysfs",
        &sys,
        "--cflags",
        "-O2 -march=znver3",
    ];
    let text = ok(&base);
    // The flags reach the compiler, with the macro dump's options.
    let args = std::fs::read_to_string(dir.join("args.txt")).unwrap();
    assert_eq!(args.trim(), "-O2 -march=znver3 -E -dM -");
    insta::assert_snapshot!("zen3_text", text.replace(&cc, "<fake-cc>"));
    // The worked example of docs/machine.md.
    assert!(
        text.contains("model for double: MR=6 NR=8 KC=512 MC=30 NC=2048"),
        "{text}"
    );
    let mut args = base.to_vec();
    args.extend(["--format", "json"]);
    let json = ok(&args);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["model"]["double"]["MR"], 6);
    assert_eq!(v["model"]["float"]["NR"], 16);
    assert_eq!(v["cpus"]["cores"], 2);
    assert_eq!(v["cpus"]["available"], serde_json::Value::Null);
    insta::assert_snapshot!("zen3_json", json.replace(&cc, "<fake-cc>"));
}

#[cfg(unix)]
#[test]
fn xeon_text() {
    let dir = scratch("xeon");
    let cc = fake_cc(&dir, "sapphirerapids.macros");
    let sys = data("xeon-sysfs");
    let text = ok(&["machine", "--cc", &cc, "--sysfs", &sys]);
    insta::assert_snapshot!("xeon_text", text.replace(&cc, "<fake-cc>"));
    assert!(
        text.contains("model for double: MR=14 NR=16 KC=384 MC=168 NC=2720"),
        "{text}"
    );
}

/// AMD Zen 5 (EPYC, family 26: full 512-bit units, so the table's default row), its caches
/// copied from the machine: L1 48 KiB 12-way, L2 1 MiB 16-way, L3 32 MiB 16-way.
#[cfg(unix)]
#[test]
fn zen5_text() {
    let dir = scratch("zen5");
    let cc = fake_cc(&dir, "sapphirerapids.macros");
    let sys = data("zen5-sysfs");
    let text = ok(&["machine", "--cc", &cc, "--sysfs", &sys]);
    for line in [
        "model for double: MR=14 NR=16 KC=384 MC=84 NC=2720",
        "model for float: MR=14 NR=32 KC=384 MC=168 NC=2720",
    ] {
        assert!(text.contains(line), "{text}");
    }
}

/// The table's numbers give way to the command line's, and the model follows them.
#[cfg(unix)]
#[test]
fn overrides() {
    let dir = scratch("over");
    let cc = fake_cc(&dir, "zen3.macros");
    let sys = data("zen3-sysfs");
    let json = ok(&[
        "machine",
        "--cc",
        &cc,
        "--sysfs",
        &sys,
        "--format",
        "json",
        "--vector-registers",
        "32",
        "--fma-latency",
        "5",
        "--loads-per-cycle",
        "3",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["target"]["registers"], 32);
    assert_eq!(v["target"]["registers_origin"], "given");
    assert_eq!(v["pipeline"]["fma_latency"], 5);
    assert_eq!(
        v["pipeline"]["origin"],
        serde_json::json!(["given", "default", "given"])
    );
    // 32 registers of 4 doubles: 9×12 (27 + 3 + 1 = 31) has the best score, 108/21.
    let d = &v["model"]["double"];
    assert_eq!((d["MR"].as_u64(), d["NR"].as_u64()), (Some(9), Some(12)));
    assert_eq!(d["register_block"]["registers_used"], 31);
}

/// Without a readable sysfs tree the caches are unknown, and so are KC, MC and NC; the
/// register block is still known. An architecture loopy does not know has no register
/// count until one is given.
#[cfg(unix)]
#[test]
fn unknowns() {
    let dir = scratch("unknown");
    let cc = fake_cc(&dir, "zen3.macros");
    let empty = dir.join("sys");
    std::fs::create_dir_all(&empty).unwrap();
    let e = empty.display().to_string();
    let text = ok(&["machine", "--cc", &cc, "--sysfs", &e]);
    assert!(
        text.contains("model for double: MR=6 NR=8 KC=unknown MC=unknown NC=unknown"),
        "{text}"
    );
    assert!(
        text.contains("CPUs          online CPUs unknown, cores unknown"),
        "{text}"
    );
    assert!(text.contains("  unknown: cannot read"), "{text}");

    let rv_dir = dir.join("rv");
    std::fs::create_dir_all(&rv_dir).unwrap();
    let macros = rv_dir.join("riscv.macros");
    std::fs::write(&macros, "#define __riscv 1\n#define __riscv_xlen 64\n").unwrap();
    let rv = fake_cc_of(&rv_dir, &macros.display().to_string());
    let sys = data("zen3-sysfs");
    let text = ok(&["machine", "--cc", &rv, "--sysfs", &sys]);
    assert!(
        text.contains("target        unknown, scalar, no FMA"),
        "{text}"
    );
    assert!(text.contains("model for double: MR=unknown"), "{text}");
    assert!(text.contains("give `--vector-registers N`"), "{text}");
    let text = ok(&[
        "machine",
        "--cc",
        &rv,
        "--sysfs",
        &sys,
        "--vector-registers",
        "32",
    ]);
    // Scalar, 32 registers, no FMA (latency 8, one per cycle): the squarest block that
    // fits, 5×5 (25 + 5 + 1 = 31 registers; score 25/10).
    assert!(text.contains("model for double: MR=5 NR=5 KC="), "{text}");
}

#[test]
fn bad_input() {
    let (code, _, err) = loopy(&["machine", "--cc", "/nonexistent/loopy-cc"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot run the C compiler `/nonexistent/loopy-cc`"),
        "{err}"
    );
    let (code, _, err) = loopy(&["machine", "--sysfs", "/nonexistent/sys"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a directory"), "{err}");
    let (code, _, err) = loopy(&["machine", "--fma-latency", "0"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = loopy(&["machine", "--cflags", "-mno-such-flag-at-all"]);
    assert_eq!(code, 2);
    assert!(err.contains("failed to preprocess an empty input"), "{err}");
}

/// On the machine the tests run on: the report has every part, and the model's values are
/// positive integers or unknown with a reason, consistent with each other.
#[test]
fn this_machine() {
    let json = ok(&["machine", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for k in [
        "processor",
        "cpus",
        "compiler",
        "target",
        "pipeline",
        "caches",
        "model",
    ] {
        assert!(v.get(k).is_some(), "{k} missing:\n{json}");
    }
    assert!(v["target"]["lanes"]["double"].as_u64().unwrap() >= 1);
    for t in ["double", "float"] {
        let m = &v["model"][t];
        for n in ["MR", "NR", "KC", "MC", "NC"] {
            match m[n].as_u64() {
                Some(x) => assert!(x > 0, "{t}.{n} = 0"),
                None => assert!(
                    m["unknown"][n].is_string(),
                    "{t}.{n} has no reason:\n{json}"
                ),
            }
        }
        if let (Some(nr), Some(lanes)) = (m["NR"].as_u64(), m["NVEC"].as_u64()) {
            assert_eq!(nr % lanes, 0, "NR is whole vectors");
        }
        if let (Some(mc), Some(mr)) = (m["MC"].as_u64(), m["MR"].as_u64()) {
            assert_eq!(mc % mr, 0);
        }
    }
    let text = ok(&["machine"]);
    for line in [
        "processor ",
        "CPUs ",
        "compiler ",
        "target ",
        "vectors ",
        "caches ",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
    assert!(text.contains("model for double: MR="), "{text}");
    assert!(text.contains("model for float: MR="), "{text}");
}

/// `--measure` on the machine the tests run on: the micro-benchmark's numbers replace the
/// table's (plausible values only: they depend on the machine and its load), and a value
/// given on the command line stays.
#[test]
fn measured_pipeline() {
    let json = ok(&["machine", "--measure", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let origins: Vec<&str> = (v["pipeline"]["origin"].as_array().unwrap().iter())
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(origins, ["measured"; 3], "{json}");
    let m = &v["measured"];
    assert!(m["cycle_ns"].as_f64().unwrap() > 0.0, "{json}");
    for (rounded, raw) in [
        ("fma_latency", "fma_latency"),
        ("fma_per_cycle", "fma_per_cycle"),
        ("loads_per_cycle", "loads_per_cycle"),
    ] {
        let x = m[raw].as_f64().unwrap();
        let n = v["pipeline"][rounded].as_u64().unwrap();
        assert_eq!(n, (x.round() as u64).max(1), "{rounded}: {json}");
        assert!((1..=64).contains(&n), "{rounded}: {json}");
    }
    let text = ok(&["machine", "--measure", "--fma-latency", "7"]);
    assert!(text.contains("latency 7 cycles (given)"), "{text}");
    assert!(text.contains("per cycle (measured)"), "{text}");
    assert!(text.contains("\nmeasured "), "{text}");
}
