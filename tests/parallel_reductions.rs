//! Reductions: `parallel(l, k, op)` generated as an OpenMP `reduction` clause, built with
//! `-fopenmp` and run on two threads; the results equal the original's up to rounding (the
//! order of a floating-point sum changes). Reductions of array elements are judged element
//! by element and generated as atomic updates; `min` and `max` ones are refused by the code
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

/// Checks and applies `script` to `kernel`, compiles the original and the result (OpenMP),
/// and compares what they print, the result run on 1, 2 and 3 threads, within a relative
/// 1e-9 (reassociated sums); returns the generated region for a snapshot.
fn generated_agrees(kernel: &str, script: &str, case: &str) -> String {
    let (code, out, err) = loopy(&["check", kernel, script]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, generated, err) = loopy(&["apply", kernel, script]);
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
    let dir = scratch("reductions", case);
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(kernel, &orig).unwrap();
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
                "{case}, {threads} threads: {g} against {w}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    region
}

#[test]
fn scalar_reductions_are_generated_and_agree() {
    let region = generated_agrees(KERNEL, "tests/data/codegen/reductions.loopy", "scalar");
    insta::assert_snapshot!("reductions_region", region);
}

#[test]
fn array_reductions_are_generated_as_atomic_updates() {
    let script = "tests/data/codegen/reductions_array.loopy";
    let region = generated_agrees(KERNEL, script, "array");
    assert!(
        region.contains("#pragma omp atomic\n        D[i] += C[i][j];"),
        "{region}"
    );
}

/// LU's `A[i][j] -= A[i][k] * A[k][j]` (a `+` reduction written `-=`) and trmm's
/// `B[i][j] += A[k][i] * B[k][j]` with their `k` loops in parallel: each update reads other
/// elements of the array it updates, elements the loop never updates. Legal, generated as
/// atomic updates, and the results agree with the original's on 1 to 3 threads.
#[test]
fn element_reductions_of_lu_and_trmm_are_legal_and_agree() {
    let kernel = "tests/data/reductions/elements.c";
    let region = generated_agrees(kernel, "tests/data/reductions/elements.loopy", "elements");
    insta::assert_snapshot!("reductions_elements_region", region);
}

#[test]
fn max_reductions_of_array_elements_are_verified_but_not_generated() {
    let kernel = "tests/data/reductions/elements.c";
    let script = "tests/data/reductions/peak.loopy";
    let (code, out, err) = loopy(&["check", kernel, script]);
    assert_eq!(code, 0, "the array reduction is legal: {out}{err}");
    let (code, _, err) = loopy(&["apply", "--color", "never", kernel, script]);
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

/// `apply --prove` proves a program with `+`, `*` and `max` reductions on the threads
/// equivalent up to the reassociation of each reduction, and says so: never plain
/// "equivalent".
#[test]
fn proved_up_to_the_reassociation_of_each_reduction() {
    let dir = scratch("reductions", "prove");
    let out_c = dir.join("out.c");
    let (code, out, err) = loopy(&[
        "apply",
        KERNEL,
        "tests/data/codegen/reductions.loopy",
        "-o",
        out_c.to_str().unwrap(),
        "--prove",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let said = format!("{out}{err}");
    assert!(
        said.contains("equivalent up to reassociation of the reduction of `s` at line ")
            && said.contains(" and of the reduction of `p` at line ")
            && said.contains(" and of the reduction of `m` at line "),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
