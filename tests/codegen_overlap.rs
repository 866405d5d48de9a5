//! The no-overlap assumption: the transformed region runs under a run-time test that the
//! arrays it writes do not overlap the others it touches, the original code otherwise;
//! `--assume-no-overlap` removes the test. Kernels with pointer parameters are called with
//! distinct, adjacent and overlapping arguments; a build that defines `LOOPY_PATH` reports
//! which code ran.

mod common;
use common::loopy;

use std::path::{Path, PathBuf};
use std::process::Command;

const DIR: &str = "tests/data/codegen/overlap";
const PATH_DEFINE: &str = "-DLOOPY_PATH(p)=fprintf(stderr, \"%s\\n\", p)";

fn scratch(name: &str) -> PathBuf {
    common::scratch("overlap", name)
}

/// Builds `src` with warnings as errors (and `flags`) and returns its standard output and
/// error.
fn build_run(
    dir: &Path,
    name: &str,
    src: &Path,
    flags: &[&str],
    args: &[&str],
) -> (String, String) {
    let exe = dir.join(name);
    let mut all = vec!["-O2", "-Wall", "-Wextra", "-Werror"];
    all.extend_from_slice(flags);
    common::compile(src, &exe, &all, "");
    let out = Command::new(&exe).args(args).output().unwrap();
    assert!(out.status.success(), "{name} failed");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `loopy apply` into `out`; its text.
fn apply(kernel: &str, script: &str, out: &Path, extra: &[&str]) -> String {
    let mut args = vec!["apply", kernel, script, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, _, err) = loopy(&args);
    assert_eq!(code, 0, "{kernel} {script}: {err}");
    std::fs::read_to_string(out).unwrap()
}

/// `union`: the largest column of `A` is the larger of two expressions, compared in C.
const CASES: [&str; 5] = ["shift", "rows", "inline", "rows2", "union"];

#[test]
fn overlapping_arguments_take_the_original_code() {
    let dir = scratch("guarded");
    for case in CASES {
        let kernel = format!("{DIR}/{case}.c");
        let script = format!("{DIR}/{case}-reverse.loopy");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (want, _) = build_run(
            &dir,
            &format!("{case}-original"),
            &root.join(&kernel),
            &[],
            &[],
        );
        let out = dir.join(format!("{case}.c"));
        let text = apply(&kernel, &script, &out, &[]);
        assert!(text.contains("if ("), "{case}:\n{text}");
        let (got, paths) = build_run(&dir, &format!("{case}-traced"), &out, &[PATH_DEFINE], &[]);
        assert_eq!(got, want, "{case}:\n{text}");
        let expect = std::fs::read_to_string(root.join(format!("{DIR}/{case}.expect"))).unwrap();
        assert_eq!(paths, expect, "{case}: the code that ran, call by call");
        // The same without the macro.
        let (plain, quiet) = build_run(&dir, &format!("{case}-plain"), &out, &[], &[]);
        assert_eq!(plain, want, "{case}");
        assert!(quiet.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without the test, the overlapping calls run the transformed code and print something
/// else: the original code the test falls back to is what keeps the output.
#[test]
fn without_the_test_overlapping_arguments_change_the_output() {
    let dir = scratch("assumed");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for case in CASES {
        let kernel = format!("{DIR}/{case}.c");
        let script = format!("{DIR}/{case}-reverse.loopy");
        let (want, _) = build_run(
            &dir,
            &format!("{case}-original"),
            &root.join(&kernel),
            &[],
            &[],
        );
        let out = dir.join(format!("{case}.c"));
        let text = apply(&kernel, &script, &out, &["--assume-no-overlap"]);
        assert!(!text.contains("LOOPY_PATH"), "{case}:\n{text}");
        assert!(text.contains("--assume-no-overlap"), "{case}:\n{text}");
        // Outlined with restrict-qualified parameters, except where the region assigns a
        // local variable of its function.
        let outlined = text.contains("static void loopy_fast_kernel(");
        assert_eq!(outlined, case != "inline", "{case}:\n{text}");
        assert_eq!(
            text.contains("*restrict B"),
            case != "inline",
            "{case}:\n{text}"
        );
        let (got, _) = build_run(&dir, &format!("{case}-assumed"), &out, &[], &[]);
        if case == "rows2" {
            // Its arguments never overlap.
            assert_eq!(got, want, "{case}:\n{text}");
        } else {
            assert_ne!(got, want, "{case}:\n{text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Arrays that are variables (the examples' globals) cannot overlap: no test, and the
/// generated code is what it was before the test existed (the examples' snapshots in
/// `codegen_examples.rs` hold it byte for byte).
#[test]
fn variables_need_no_test() {
    let dir = scratch("globals");
    let out = dir.join("2mm.c");
    let text = apply(
        "examples/2mm/2mm.c",
        "examples/2mm/2mm-fast.loopy",
        &out,
        &[],
    );
    assert!(!text.contains("loopy_addr"), "{text}");
    assert!(!text.contains("loopy_fast"), "{text}");
    assert!(!text.contains("LOOPY_PATH"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PolyBench-style kernel (array parameters declared through PolyBench's macros): the
/// outlined function's parameters are restrict pointers whose extents come from the call,
/// so one generated file builds and runs for every dataset size.
#[test]
fn polybench_parameters() {
    let dir = scratch("polybench");
    let script = dir.join("interchange.loopy");
    std::fs::write(&script, "interchange(Update, 2, 3)\n").unwrap();
    let kernel = "tests/data/polybench/gemm/gemm.c";
    let out = dir.join("gemm.c");
    let text = apply(
        kernel,
        script.to_str().unwrap(),
        &out,
        &["-I", "tests/data/polybench/utilities"],
    );
    assert!(
        text.contains("DATA_TYPE (*restrict C)[loopy_C_1]"),
        "{text}"
    );
    // `alpha` and `beta` are parameters passed by value whose address is never taken.
    assert!(!text.contains("loopy_addr(&alpha"), "{text}");
    assert!(
        text.contains("(loopy_hi_C <= loopy_lo_A || loopy_hi_A <= loopy_lo_C)"),
        "{text}"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inc = |p: &str| format!("-I{}", root.join(p).display());
    // The stand-in `gemm.h` is SMALL unless told MINI or LARGE.
    for size in [Some("-DMINI_DATASET"), None] {
        let mut flags = vec![
            inc("tests/data/polybench/utilities"),
            inc("tests/data/polybench/gemm"),
        ];
        flags.extend(size.map(str::to_string));
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (_, want) = build_run(&dir, "original", &root.join(kernel), &flags, &["1"]);
        let mut traced = flags.clone();
        traced.push(PATH_DEFINE);
        let (_, got) = build_run(&dir, "generated", &out, &traced, &["1"]);
        assert_eq!(got, format!("transformed\n{want}"), "{size:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_region_that_cannot_be_guarded_is_refused() {
    let dir = scratch("top");
    let kernel = format!("{DIR}/top.c");
    let script = format!("{DIR}/top-reverse.loopy");
    let (code, out, err) = loopy(&["apply", &kernel, &script]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("cannot generate the run-time test that `A` and `B` do not overlap: `s` is declared at the region's top level"),
        "{err}"
    );
    assert!(err.contains("--assume-no-overlap"), "{err}");
    // The user's guarantee removes the test.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (want, _) = build_run(&dir, "original", &root.join(&kernel), &[], &[]);
    let gen = dir.join("top.c");
    apply(&kernel, &script, &gen, &["--assume-no-overlap"]);
    let (got, _) = build_run(&dir, "assumed", &gen, &[], &[]);
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn manifest_key() {
    let dir = scratch("manifest");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let entry = |value: &str| {
        format!(
            "[[check]]\nkernel = \"{}\"\nscript = \"{}\"\nassume-no-overlap = {value}\n",
            root.join(DIR).join("top.c").display(),
            root.join(DIR).join("top-reverse.loopy").display()
        )
    };
    let m = dir.join("loopy.toml");
    std::fs::write(&m, entry("true")).unwrap();
    let (code, out, err) = loopy(&["check", "--manifest", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    std::fs::write(&m, entry("\"yes\"")).unwrap();
    let (code, out, err) = loopy(&["check", "--manifest", m.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("`assume-no-overlap` must be true or false"),
        "{out}{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checked fast path in its specialised form: a BLIS-shaped product (packed copies, a
/// register block) outlined into a function kept out of the host (`noinline`, so that the
/// compiler neither vectorizes it worse beside the original code nor loses the constant
/// extents the call passes), in double and in float, built with -O3. Disjoint arguments take
/// the transformed code, overlapping ones the original; every element of every call's
/// buffer is what the original computes, bit for bit. Without the test, the overlapping
/// calls print something else.
#[test]
fn specialised_form_in_float_and_double() {
    let dir = scratch("blocks");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = format!("{DIR}/blocks.c");
    let script = format!("{DIR}/blocks.loopy");
    let checked = dir.join("checked.c");
    let text = apply(&kernel, &script, &checked, &[]);
    let head = "#ifdef __GNUC__\n__attribute__((noinline))\n#endif\nstatic void loopy_fast_kernel(";
    assert!(text.contains(head), "{text}");
    assert!(text.contains("(*restrict C)[loopy_C_1]"), "{text}");
    let assumed = dir.join("assumed.c");
    let unchecked = apply(&kernel, &script, &assumed, &["--assume-no-overlap"]);
    assert!(!unchecked.contains("noinline"), "{unchecked}");
    assert!(
        unchecked.contains("static void loopy_fast_kernel("),
        "{unchecked}"
    );
    let expect = std::fs::read_to_string(root.join(format!("{DIR}/blocks.expect"))).unwrap();
    for ty in ["-DDATA_TYPE_IS_DOUBLE", "-DDATA_TYPE_IS_FLOAT"] {
        let flags = ["-O3", "-ffp-contract=off", ty];
        let (want, _) = build_run(&dir, "original", &root.join(&kernel), &flags, &[]);
        assert_eq!(want.lines().count(), 3 * (1 + 39), "{ty}");
        let mut traced = flags.to_vec();
        traced.push(PATH_DEFINE);
        let (got, paths) = build_run(&dir, "checked", &checked, &traced, &[]);
        assert_eq!(got, want, "{ty}:\n{text}");
        assert_eq!(paths, expect, "{ty}: the code that ran, call by call");
        let (plain, _) = build_run(&dir, "plain", &checked, &flags, &[]);
        assert_eq!(plain, want, "{ty}");
        // The disjoint call agrees without the test; the overlapping ones do not.
        let (got, _) = build_run(&dir, "assumed", &assumed, &flags, &[]);
        let disjoint = |s: &str| s.split("C overlaps A").next().unwrap().to_string();
        assert_eq!(disjoint(&got), disjoint(&want), "{ty}");
        assert_ne!(got, want, "{ty}:\n{unchecked}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
