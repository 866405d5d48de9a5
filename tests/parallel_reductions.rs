//! Reductions: `parallel(l, k, op)` generated as an OpenMP `reduction` clause, built with
//! `-fopenmp` and run on two threads; the results equal the original's up to rounding (the
//! order of a floating-point sum changes). Array reductions are refused by the code
//! generator with a report.

mod common;
use common::{compile, loopy, scratch};
use std::process::Command;

const KERNEL: &str = "tests/must_fail/reductions.c";

/// The numbers a program prints.
fn numbers(out: &str) -> Vec<f64> {
    out.split_whitespace().map(|w| w.parse().unwrap()).collect()
}

fn run(exe: &std::path::Path, threads: &str) -> String {
    let out = Command::new(exe)
        .env("OMP_NUM_THREADS", threads)
        .output()
        .expect("run");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn scalar_reductions_are_generated_and_agree() {
    let script = "tests/data/codegen/reductions.loopy";
    let (code, out, err) = loopy(&["check", KERNEL, script]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, generated, err) = loopy(&["apply", KERNEL, script]);
    assert_eq!(code, 0, "{err}");
    let region: String = generated
        .lines()
        .skip_while(|l| !l.contains("#pragma scop"))
        .take_while(|l| !l.contains("#pragma endscop"))
        .filter(|l| {
            !l.trim_start().starts_with("/*")
                && !l.contains("tagged kernel")
                && !l.contains("two files")
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("reductions_region", region);
    let dir = scratch("reductions", "scalar");
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(KERNEL, &orig).unwrap();
    std::fs::write(&new, &generated).unwrap();
    compile(&orig, &dir.join("orig"), &["-O1", "-lm"], "");
    compile(
        &new,
        &dir.join("new"),
        &["-O1", "-fopenmp", "-Werror", "-lm"],
        &generated,
    );
    let want = numbers(&run(&dir.join("orig"), "1"));
    for threads in ["1", "2", "3"] {
        let got = numbers(&run(&dir.join("new"), threads));
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "{threads} threads: {g} against {w}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn array_reductions_are_verified_but_not_generated() {
    let script = "tests/data/codegen/reductions_array.loopy";
    let (code, out, err) = loopy(&["check", KERNEL, script]);
    assert_eq!(code, 0, "the array reduction is legal: {out}{err}");
    let (code, _, err) = loopy(&["apply", "--color", "never", KERNEL, script]);
    assert_eq!(code, 2, "{err}");
    insta::assert_snapshot!("reductions_array_refused", err);
}

#[test]
fn reduction_operator_mistakes_are_reported() {
    let dir = scratch("reductions", "mistakes");
    let bad = dir.join("bad.loopy");
    std::fs::write(&bad, "parallel(Sum, 1, 2)\n").unwrap();
    let (code, _, err) = loopy(&["check", "--color", "never", KERNEL, bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("expected a reduction operator (`+`, `*`, `min` or `max`), found an integer"),
        "{err}"
    );
    // The wrong operator: `s` is updated with `+`, not `*`.
    std::fs::write(&bad, "parallel(Sum, 1, *)\n").unwrap();
    let (code, _, err) = loopy(&["check", "--color", "never", KERNEL, bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`Sum` (line 18) updates it with `+`, not `*`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
