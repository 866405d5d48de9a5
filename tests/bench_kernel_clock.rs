//! `loopy bench`'s kernel clock end to end: both programs time their region alone, a region
//! that runs several times per process accumulates, the outputs are still compared, the
//! instrumentation builds under `-Wall -Wextra -Wpedantic -Werror`, and `--time process`
//! builds and times the programs as before. Nothing here asserts on speed.

mod common;
use common::loopy;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    common::scratch("kernel-clock", name)
}

/// A kernel called `CALLS` times (default 3) from `main`, each call adding to `A`; the
/// region is a pragma region inside the kernel function. Warning-clean C99.
const REPEATED: &str = r#"#include <stdio.h>
#ifndef N
#define N 40
#endif
#ifndef CALLS
#define CALLS 3
#endif
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
static double A[N], B[N];
static void kernel(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
S:  A[i] = A[i] + 2.0 * B[i];
#pragma endscop
}
int main(void)
{
  int i, c;
  for (i = 0; i < N; i++)
    B[i] = i / 3.0;
  for (c = 0; c < CALLS; c++)
    kernel(N);
  for (i = 0; i < N; i++)
    printf("A[%d] = %.17g\n", i, A[i]);
  return 0;
}
"#;

/// Writes the program and a script that reverses its loop; returns their paths.
fn program(dir: &Path) -> (String, String) {
    let (c, s) = (dir.join("repeated.c"), dir.join("repeated.loopy"));
    std::fs::write(&c, REPEATED).unwrap();
    std::fs::write(&s, "affine(S, {[i] -> [-i]})\n").unwrap();
    (c.display().to_string(), s.display().to_string())
}

/// The report a program's last timed run left: (seconds, times the region ran).
fn report(keep: &Path, exe: &str) -> (f64, u64) {
    let text = std::fs::read_to_string(keep.join(format!("{exe}.kernel-time")))
        .unwrap_or_else(|e| panic!("{exe}: no kernel time report: {e}"));
    let mut w = text.split_whitespace();
    let secs: f64 = w.next().unwrap().parse().unwrap();
    let entries: u64 = w.next().unwrap().parse().unwrap();
    (secs, entries)
}

fn samples(side: &serde_json::Value) -> Vec<f64> {
    side["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The default clock times the region in both programs, accumulated over the three calls
/// of the kernel; the outputs are compared all the same.
#[test]
fn both_programs_report_their_region_time() {
    let dir = scratch("both");
    let (c, s) = program(&dir);
    let keep = dir.join("keep");
    let keep_s = keep.display().to_string();
    let (code, out, err) = loopy(&[
        "bench", &c, &s, "--cflags", "-O1", "--runs", "2", "--warmup", "0", "--keep", &keep_s,
        "--format", "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["clock"], "kernel time (the modelled region)", "{out}");
    assert_eq!(j["check"], "identical", "{out}");
    for side in ["original", "transformed"] {
        let v = samples(&j[side]);
        assert_eq!(v.len(), 2, "{out}");
        assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0), "{out}");
    }
    // Each program's region ran three times in its last run, and the report says so.
    for exe in ["repeated.original", "repeated.transformed"] {
        let (secs, entries) = report(&keep, exe);
        assert_eq!(entries, 3, "{exe}");
        assert!(secs.is_finite() && secs >= 0.0, "{exe}");
    }
    // The same calls around the region in both sources: the original's around its own
    // region; the original's copy says it is the user's file, with its line numbers.
    let original = std::fs::read_to_string(keep.join("repeated.original.c")).unwrap();
    let transformed = std::fs::read_to_string(keep.join("repeated.transformed.c")).unwrap();
    for text in [&original, &transformed] {
        assert_eq!(text.matches("loopy_region_enter();").count(), 1, "{text}");
        assert_eq!(text.matches("loopy_region_leave();").count(), 1, "{text}");
        let enter = text.find("loopy_region_enter").unwrap();
        let leave = text.find("loopy_region_leave").unwrap();
        let (scop, endscop) = (
            text.find("#pragma scop").unwrap(),
            text.find("#pragma endscop").unwrap(),
        );
        assert!(scop < enter && enter < leave && leave < endscop, "{text}");
    }
    assert!(
        original.starts_with(&format!("#line 1 \"{c}\"\n")),
        "{original}"
    );
    assert!(original.contains(
        "\n  { void loopy_region_enter(void); loopy_region_enter(); } for (i = 0; i < n; i++)\n\
         S:  A[i] = A[i] + 2.0 * B[i];\n  { void loopy_region_leave(void); loopy_region_leave(); }\n\
         #line 16\n\n#pragma endscop\n"
    ));
    assert!(keep.join("loopy_kernel_clock.c").exists());

    // Text: the clock is named.
    let (code, out, err) = loopy(&["bench", &c, &s, "--cflags", "-O1", "--runs", "1"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("kernel time (the modelled region)"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A region that never runs has no time: a clear error, not a zero.
#[test]
fn a_region_that_never_runs_is_an_error() {
    let dir = scratch("never");
    let (c, s) = program(&dir);
    let (code, out, err) = loopy(&[
        "bench", &c, &s, "-D", "CALLS=0", "--cflags", "-O1", "--runs", "1",
    ]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("reported no kernel time: the modelled region never ran"),
        "{err}"
    );
    assert!(err.contains("--time process"), "{err}");
    // The whole process can still be timed.
    let (code, out, err) = loopy(&[
        "bench", &c, &s, "-D", "CALLS=0", "--cflags", "-O1", "--runs", "1", "--time", "process",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Outputs are still compared under the kernel clock: a transformed program that prints
/// something else is reported, not timed.
#[cfg(unix)]
#[test]
fn outputs_are_compared_under_the_kernel_clock() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("differ");
    let (c, s) = program(&dir);
    // `cc`, except that the transformed program runs its kernel once more.
    let cc = dir.join("fake-cc");
    std::fs::write(
        &cc,
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.transformed.c) exec cc -DCALLS=4 \"$@\";; esac; done\nexec cc \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cc = cc.display().to_string();
    let (code, out, err) = loopy(&["bench", &c, &s, "--cc", &cc, "--cflags", "-O1"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("stdout differs first at line 2"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The instrumented programs and the helper build warning-free as strict C99 under the
/// test compiler and, where it is installed, clang.
#[test]
fn instrumentation_builds_with_all_warnings_as_errors() {
    let dir = scratch("werror");
    let (c, s) = program(&dir);
    let flags = "-O1 -std=c99 -Wall -Wextra -Wpedantic -Werror";
    let mut compilers = vec![common::cc()];
    let clang = std::process::Command::new("clang-16")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if clang {
        compilers.push("clang-16".into());
    }
    for cc in &compilers {
        let keep = dir.join(format!(
            "keep-{}",
            compilers.iter().position(|x| x == cc).unwrap()
        ));
        let keep_s = keep.display().to_string();
        let (code, out, err) = loopy(&[
            "bench",
            &c,
            &s,
            "--cc",
            cc,
            "--cflags",
            flags,
            "--check-cflags",
            "",
            "--runs",
            "1",
            "--keep",
            &keep_s,
        ]);
        assert_eq!(code, 0, "{cc}: {out}\n{err}");
        assert_eq!(report(&keep, "repeated.transformed").1, 3, "{cc}");
        // The gemm example's fast script, whose generated code starts with preprocessor
        // lines, too.
        let keep = dir.join("gemm");
        let keep_s = keep.display().to_string();
        let (code, out, err) = loopy(&[
            "bench",
            "examples/gemm/gemm.c",
            "examples/gemm/gemm-fast.loopy",
            "-D",
            "NI=20",
            "-D",
            "NJ=36",
            "-D",
            "NK=12",
            "--cc",
            cc,
            "--cflags",
            "-O1 -Wall -Wextra -Werror",
            "--check-cflags",
            "",
            "--runs",
            "1",
            "--keep",
            &keep_s,
        ]);
        assert_eq!(code, 0, "{cc}: {out}\n{err}");
        assert_eq!(report(&keep, "gemm.original").1, 1, "{cc}");
        assert_eq!(report(&keep, "gemm.transformed").1, 1, "{cc}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--time process` builds the original from the user's file as it is, with no helper, and
/// times whole processes; `--time stdout` is `--time-from-stdout`, and the two cannot be
/// given together.
#[test]
fn process_and_stdout_clocks_are_unchanged() {
    let dir = scratch("process");
    let (c, s) = program(&dir);
    let keep = dir.join("keep");
    let keep_s = keep.display().to_string();
    let (code, out, err) = loopy(&[
        "bench", &c, &s, "--cflags", "-O1", "--runs", "2", "--time", "process", "--keep", &keep_s,
        "--format", "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["clock"], "process wall time", "{out}");
    for side in ["original", "transformed"] {
        assert!(samples(&j[side]).iter().all(|x| *x > 0.0), "{out}");
    }
    assert!(!keep.join("loopy_kernel_clock.c").exists());
    assert!(!keep.join("repeated.original.c").exists());
    assert!(!keep.join("repeated.original.kernel-time").exists());
    let t = std::fs::read_to_string(keep.join("repeated.transformed.c")).unwrap();
    assert!(!t.contains("loopy_region"), "{t}");

    // A program that prints its own time last.
    let timed = dir.join("timed.c");
    std::fs::write(
        &timed,
        REPEATED.replace("  return 0;\n}", "  printf(\"0.125\\n\");\n  return 0;\n}"),
    )
    .unwrap();
    let timed = timed.display().to_string();
    for flag in [&["--time", "stdout"][..], &["--time-from-stdout"][..]] {
        let mut args = vec!["bench", &timed, &s, "--cflags", "-O1", "--runs", "1"];
        args.extend(flag);
        args.extend(["--format", "json"]);
        let (code, out, err) = loopy(&args);
        assert_eq!(code, 0, "{flag:?}: {out}\n{err}");
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(j["clock"], "time printed by the program", "{out}");
        assert_eq!(samples(&j["transformed"]), vec![0.125], "{out}");
    }
    let (code, _, err) = loopy(&[
        "bench",
        &timed,
        &s,
        "--time",
        "process",
        "--time-from-stdout",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--threads` times the kernel at each count: a parallel loop inside the region, each
/// count's pair reports its region's time (the region is entered by one thread; its
/// parallel loop runs inside the timed part).
#[test]
fn thread_counts_time_the_kernel() {
    let dir = scratch("threads");
    let (c, _) = program(&dir);
    let s = dir.join("par.loopy");
    std::fs::write(&s, "parallel(S, 1)\n").unwrap();
    let s = s.display().to_string();
    let keep = dir.join("keep");
    let keep_s = keep.display().to_string();
    let (code, out, err) = loopy(&[
        "bench",
        &c,
        &s,
        "--cflags",
        "-O1",
        "--runs",
        "2",
        "--threads",
        "1",
        "--threads",
        "2",
        "--keep",
        &keep_s,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["clock"], "kernel time (the modelled region)", "{out}");
    assert_eq!(j["openmp"], "-fopenmp", "{out}");
    let rows = j["threads"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{out}");
    for row in rows {
        for side in ["original", "transformed"] {
            let v = samples(&row[side]);
            assert_eq!(v.len(), 2, "{out}");
            assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0), "{out}");
        }
    }
    let t = std::fs::read_to_string(keep.join("repeated.transformed.c")).unwrap();
    let enter = t.find("loopy_region_enter();").unwrap();
    let pragma = t.find("#pragma omp parallel").unwrap();
    let leave = t.find("loopy_region_leave();").unwrap();
    assert!(enter < pragma && pragma < leave, "{t}");
    assert_eq!(report(&keep, "repeated.transformed").1, 3);
    let _ = std::fs::remove_dir_all(&dir);
}
