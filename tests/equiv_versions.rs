//! `loopy equiv` on generated code whose region is a test between two versions: the
//! no-overlap test of a kernel whose arrays are parameters (PolyBench's), with the
//! transformed code in a function of its own and the original code beside it. Both
//! versions are proved; a difference in either is found with the version named, and the
//! mutated programs are run (with the test forced to fail for the original version) to
//! see that they print something else. A call or test the check cannot follow is refused.

mod common;

use common::loopy;
use std::path::{Path, PathBuf};
use std::process::Command;

const PB: &str = "benches/polybench";

/// The real PolyBench `kernel`'s directory, and its file.
fn kernel(group: &str, k: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(PB)
        .join("linear-algebra")
        .join(group)
        .join(k);
    let src = dir.join(format!("{k}.c"));
    (dir, src)
}

fn utilities() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(PB)
        .join("utilities")
}

/// `loopy apply` of the kernel's fast script into `out`, with `more` options.
fn apply_with(src: &Path, k: &str, out: &Path, more: &[&str]) -> (i32, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(PB)
        .join("scripts")
        .join(format!("{k}.loopy"));
    let u = utilities();
    let mut args = vec![
        "apply",
        src.to_str().unwrap(),
        script.to_str().unwrap(),
        "-I",
        u.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    loopy(&args)
}

/// `loopy apply` of the kernel's fast script into `out`.
fn apply(src: &Path, k: &str, out: &Path) {
    let (code, o, e) = apply_with(src, k, out, &[]);
    assert_eq!(code, 0, "{o}{e}");
}

/// `loopy equiv` of the kernel against `other`.
fn equiv(dir: &Path, src: &Path, other: &Path) -> (i32, String, String) {
    let u = utilities();
    loopy(&[
        "--color",
        "never",
        "equiv",
        "-I",
        u.to_str().unwrap(),
        "-I",
        dir.to_str().unwrap(),
        src.to_str().unwrap(),
        other.to_str().unwrap(),
    ])
}

/// The array dump of `src` built at MINI with PolyBench's support file.
fn dump(dir: &Path, src: &Path, exe: &Path) -> String {
    let u = utilities();
    let (iu, id) = (format!("-I{}", u.display()), format!("-I{}", dir.display()));
    let support = u.join("polybench.c");
    common::compile(
        src,
        exe,
        &[
            "-O0",
            "-ffp-contract=off",
            "-DMINI_DATASET",
            "-DPOLYBENCH_DUMP_ARRAYS",
            &iu,
            &id,
            support.to_str().unwrap(),
            "-lm",
        ],
        "",
    );
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `text` with its first (or last) `from` replaced by `to`; `from` must be there.
fn replace(text: &str, from: &str, to: &str, last: bool) -> String {
    let at = match last {
        false => text.find(from),
        true => text.rfind(from),
    };
    let at = at.unwrap_or_else(|| panic!("`{from}` is not in the generated code"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

#[test]
fn both_versions_of_polybench_products_are_proved() {
    let scratch = common::scratch("equiv-versions", "proved");
    for (group, k, script) in [
        ("blas", "trmm", "trmm"),
        ("blas", "syrk", "syrk"),
        ("blas", "syr2k", "syr2k"),
        ("blas", "symm", "symm"),
        ("kernels", "doitgen", "doitgen-par"),
        // Each thread's packed panel of A (`aligned_alloc` in the parallel region), the
        // tile loops in every thread, the B panel's offsets set in `single`.
        ("blas", "gemm", "gemm-par"),
    ] {
        let (dir, src) = kernel(group, k);
        let out = scratch.join(format!("{script}.c"));
        apply(&src, script, &out);
        let (code, o, e) = equiv(&dir, &src, &out);
        assert_eq!(code, 0, "{script}: {o}{e}");
        // doitgen's transformed code has a heap buffer, symm's writes the host's scalar
        // `temp2`: they stay in the host function, in place.
        let transformed = match k {
            "doitgen" | "symm" => "the transformed version (where the test at line".to_string(),
            _ => format!(
                "the transformed version (`loopy_fast_kernel_{k}`, called where the test at line"
            ),
        };
        assert!(
            o.contains(&format!("in each version of the region: {transformed}"))
                && o.contains("the original version (the test at line"),
            "{script}: {o}"
        );
    }
    // doitgen-par's loop on the threads has private register-block offsets, set in each
    // iteration before they are read.
    let o = std::fs::read_to_string(scratch.join("doitgen-par.c")).unwrap();
    assert!(
        o.contains("firstprivate("),
        "doitgen-par's parallel loop has moved on"
    );
}

#[test]
fn a_difference_in_either_version_is_found_and_shows_when_run() {
    let scratch = common::scratch("equiv-versions", "mutated");
    let (dir, src) = kernel("blas", "trmm");
    let out = scratch.join("trmm.c");
    apply(&src, "trmm", &out);
    let text = std::fs::read_to_string(&out).unwrap();
    let want = dump(&dir, &src, &scratch.join("original"));
    assert_eq!(dump(&dir, &out, &scratch.join("generated")), want);
    // The update, once in the outlined function (first) and once in the original code.
    let update = "B[i][j] += A[k][i] * B[k][j];";
    let wrong = "B[i][j] += A[k][i] * B[k][j] * alpha;";
    // The test made to fail, so that the original version runs.
    let test = "&& (loopy_hi_A <= loopy_lo_B";
    for (name, last, version) in [
        (
            "transformed",
            false,
            "in the transformed version (`loopy_fast_kernel_trmm`",
        ),
        (
            "original",
            true,
            "in the original version (the test at line",
        ),
    ] {
        let mutant = scratch.join(format!("trmm-{name}.c"));
        let mutated = replace(&text, update, wrong, last);
        std::fs::write(&mutant, &mutated).unwrap();
        let (code, o, e) = equiv(&dir, &src, &mutant);
        assert_eq!(code, 1, "{name}: {o}{e}");
        assert!(
            o.starts_with("not equivalent") && o.contains(version),
            "{name}: {o}"
        );
        assert!(e.contains("L0801") && e.contains(version), "{name}: {e}");
        let ran = match last {
            false => mutated,
            true => replace(&mutated, test, &format!("&& 0 {test}"), false),
        };
        let run = scratch.join(format!("trmm-{name}-run.c"));
        std::fs::write(&run, ran).unwrap();
        assert_ne!(dump(&dir, &run, &scratch.join(name)), want, "{name}");
    }
}

#[test]
fn a_call_or_test_that_cannot_be_followed_is_refused() {
    let scratch = common::scratch("equiv-versions", "refused");
    let (dir, src) = kernel("blas", "trmm");
    let out = scratch.join("trmm.c");
    apply(&src, "trmm", &out);
    let text = std::fs::read_to_string(&out).unwrap();
    let extents = "loopy_fast_kernel_trmm((long)(sizeof(A[0]) / sizeof(A[0][0])), ";
    let cases = [
        (
            "arrays-swapped",
            "alpha, A, B);",
            "alpha, B, A);",
            false,
            "the parameter `A` of `loopy_fast_kernel_trmm` is passed something other than the caller's `A`",
        ),
        (
            "extent",
            extents,
            "loopy_fast_kernel_trmm((long)(sizeof(B[0]) / sizeof(B[0][0])), ",
            false,
            "`loopy_A_1` is an extent of `A` in `loopy_fast_kernel_trmm`",
        ),
        (
            "effect",
            "loopy_lo_B = loopy_addr(B, 0)",
            "loopy_lo_B = loopy_addr(B, n++)",
            false,
            "the test between two versions of the region has an effect",
        ),
        (
            "local",
            "B[i][j] = alpha * B[i][j];",
            "B[i][j] = alpha * B[i][j] + loopy_lo_A;",
            true,
            "a version of the region reads `loopy_lo_A`, declared before the test",
        ),
    ];
    for (name, from, to, last, why) in cases {
        let mutant = scratch.join(format!("trmm-{name}.c"));
        std::fs::write(&mutant, replace(&text, from, to, last)).unwrap();
        let (code, o, e) = equiv(&dir, &src, &mutant);
        assert_eq!(code, 2, "{name}: {o}{e}");
        assert!(e.contains(why), "{name}: {e}");
        assert!(
            e.contains(&format!("trmm-{name}.c:")),
            "{name}: the report points into the file: {e}"
        );
    }
}

#[test]
fn apply_proves_what_it_writes_away_from_the_kernels_folder() {
    // The written file keeps PolyBench's `#include "trmm.h"`, found beside the kernel.
    let scratch = common::scratch("equiv-versions", "apply-prove");
    let (_, src) = kernel("blas", "trmm");
    let out = scratch.join("trmm.c");
    let (code, o, e) = apply_with(&src, "trmm", &out, &["--prove"]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(
        e.contains("equivalent: `B` hold the same values")
            && e.contains("in each version of the region"),
        "{e}"
    );
}
