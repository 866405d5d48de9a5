//! Scripts that must be rejected, each with its expected report (see tests/must_fail/).

mod common;
use std::path::Path;

fn check(kernel: &str, script: &str) -> (i32, String, String) {
    common::loopy(&["check", "--color", "never", kernel, script])
}

macro_rules! must_fail {
    ($name:ident, $kernel:expr, $needle:expr) => {
        #[test]
        fn $name() {
            let script = concat!("tests/must_fail/", stringify!($name), ".loopy");
            let (code, out, err) = check($kernel, script);
            assert_eq!(code, 1, "{script} must be illegal:\n{out}{err}");
            assert!(
                err.contains($needle),
                "{script}: report lacks {:?}:\n{err}",
                $needle
            );
            insta::assert_snapshot!(stringify!($name), format!("{err}{out}"));
        }
    };
}

must_fail!(div_reverse, "examples/div/div.c", "flow dependence on `A`");
must_fail!(
    seidel_interchange,
    "examples/seidel-2d/seidel-2d.c",
    "dependence on `A`"
);
must_fail!(
    fuse_backward_shift,
    "tests/must_fail/producer_consumer.c",
    "flow dependence on `B`"
);
must_fail!(
    tile_floor_no_mod,
    "examples/matmul/matmul.c",
    "not one-to-one"
);
must_fail!(
    isplit_second_first,
    "tests/must_fail/recurrence.c",
    "flow dependence on `A`"
);
must_fail!(
    hoist_lu_update_i,
    "examples/lu-kji/lu-kji.c",
    "dependence on `A` from `Update` (line 55) to `Scale` (line 51)"
);
must_fail!(
    hoist_cholesky_misaligned,
    "examples/cholesky/cholesky.c",
    "flow dependence on `A` from `Root` (line 60) to `Div` (line 55)"
);
must_fail!(
    parallel_carried_flow,
    "tests/must_fail/recurrence.c",
    "iterations 1 and 2 of the parallel loop both access `A[1]`"
);
must_fail!(
    vectorize_carried,
    "tests/must_fail/recurrence.c",
    "of the vectorized loop both access `A[1]`"
);
must_fail!(
    parallel_shared_scalar,
    "tests/must_fail/scalar_temp.c",
    "anti dependence on `t`"
);
must_fail!(
    qr_scale_before_house,
    "examples/qr/qr.c",
    "flow dependence on `s` from `House` (line 76) to `Scale` (line 90)"
);
must_fail!(
    qr_dot_interchange,
    "examples/qr/qr.c",
    "flow dependence on `w` from `Dot0` (line 93) to `Dot` (line 95)"
);
must_fail!(
    lu_pivot_swap_before_search,
    "examples/lu-pivot/lu-pivot.c",
    "flow dependence on `p` from `Search` (line 77) to `Pick` (line 84)"
);
must_fail!(
    lu_pivot_scale_before_swap,
    "examples/lu-pivot/lu-pivot.c",
    "flow dependence on `A` from `Pick` (line 84) to `Scale` (line 88)"
);
must_fail!(
    lu_pivot_put_before_pick,
    "examples/lu-pivot/lu-pivot.c",
    "anti dependence on `A` from `Pick` (line 84) to `Put` (line 85)"
);
must_fail!(
    copy_read_between,
    "tests/must_fail/copy_rows.c",
    "illegal `copy` of `B`: `Peek` (line 13) reads `B[0][0]` between the fill and the write-back"
);

/// Scripts that are bad input rather than illegal (exit 2): misuses of `unroll`, with the
/// report snapshotted like the illegal ones. `loopy check` refuses them, or, for marks that
/// only clash in the generated loops, `loopy apply`.
macro_rules! must_refuse {
    ($name:ident, $cmd:expr, $kernel:expr, $needle:expr) => {
        #[test]
        fn $name() {
            let script = concat!("tests/must_fail/", stringify!($name), ".loopy");
            let (code, out, err) = common::loopy(&[$cmd, "--color", "never", $kernel, script]);
            assert_eq!(
                code, 2,
                "{script} must be refused as bad input:\n{out}{err}"
            );
            assert!(
                err.contains($needle),
                "{script}: report lacks {:?}:\n{err}",
                $needle
            );
            insta::assert_snapshot!(stringify!($name), err);
        }
    };
}

must_refuse!(
    unroll_factor_zero,
    "check",
    "examples/matmul/matmul.c",
    "`unroll` needs a factor from 1 to 64, found 0"
);
must_refuse!(
    unroll_factor_too_large,
    "check",
    "examples/matmul/matmul.c",
    "found 1000"
);
must_refuse!(
    unroll_no_loop,
    "check",
    "examples/matmul/matmul.c",
    "the component has no loop 4"
);
must_refuse!(
    unroll_conflicting_mark,
    "check",
    "examples/matmul/matmul.c",
    "loop 3 of statement Mult is already marked `vectorize`"
);
must_refuse!(
    unroll_then_tile,
    "check",
    "examples/matmul/matmul.c",
    "this map rewrites loop 3 of statement Mult, which is marked `unroll(4)`"
);
must_refuse!(
    unroll_too_many_copies,
    "apply",
    "examples/matmul/matmul.c",
    "more than the 20000 statement copies one unrolled loop may hold"
);
must_refuse!(
    unroll_parallel_shared_loop,
    "apply",
    "examples/matmul/matmul.c",
    "one loop is marked both `unroll(4)` and `parallel`"
);
must_fail!(
    copy_written_reads_written,
    "examples/cholesky-pb/cholesky-pb.c",
    "illegal `copy_written` of `A`: `Lower` (line 76) reads `A[2][0]` between the fill and the write-back"
);
must_fail!(
    copy_write_between,
    "tests/must_fail/copy_update.c",
    "illegal `copy` of `B`: `Bump` (line 13) writes `B[0][0]` between the fill and the write-back"
);
must_fail!(
    copy_param_read_between,
    "tests/must_fail/copy_rows_n.c",
    "illegal `copy` of `B`: `Peek` (line 14) reads `B[0][0]` between the fill and the write-back"
);
must_fail!(
    copy_nested_write_between,
    "tests/must_fail/copy_update.c",
    "illegal `copy` of `B`: `Bump` (line 13) writes `B[0][0]` between the fill and the write-back"
);
must_refuse!(
    copy_overlapping_windows,
    "check",
    "tests/must_fail/copy_rows.c",
    "two copies of `B` overlap without one holding the other"
);
must_refuse!(
    copy_nested_mixed,
    "check",
    "tests/must_fail/copy_rows.c",
    "runs inside another copy of `B` and stages both statements that copy stages and statements it does not"
);
must_fail!(
    copy_shared_buffer_two_threads,
    "examples/gemm/gemm.c",
    "of the parallel loop both access `C["
);
must_fail!(
    parallel_reduction_read,
    "tests/must_fail/reductions.c",
    "this access to `r` is not part of a `+` reduction of the loop: `Use` (line 25) reads it"
);
must_fail!(
    parallel_reduction_in_place,
    "tests/must_fail/reductions_elements.c",
    "`InPlace` (line 16) reads it, and `InPlace` (line 16) updates that element with `+`"
);
must_fail!(
    parallel_reduction_flip,
    "tests/must_fail/reductions_elements.c",
    "`Flip` (line 19) writes it other than by an update"
);
must_fail!(
    parallel_reduction_mixed,
    "tests/must_fail/reductions_elements.c",
    "`Mul` (line 24) updates it with `*`, not `+`"
);
must_fail!(
    parallel_reduction_peek,
    "tests/must_fail/reductions_elements.c",
    "`Peek` (line 30) reads it, and `Acc` (line 29) updates that element with `+`"
);

#[test]
fn manifest_of_all_examples_passes() {
    let (code, text, err) = common::loopy(&[
        "check",
        "--color",
        "never",
        "--manifest",
        "examples/loopy.toml",
    ]);
    assert_eq!(code, 0, "{text}{err}");
    // Every entry of the manifest, counted from the file itself.
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/loopy.toml"))
            .unwrap();
    let entries = manifest.lines().filter(|l| l.trim() == "[[check]]").count();
    assert!(entries >= 40, "{entries} entries");
    assert!(
        text.contains(&format!("{entries} passed, 0 failed")),
        "{entries} entries: {text}"
    );
}

#[test]
fn manifest_failures_and_errors() {
    let dir = common::scratch("manifest", "check");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let div = root.join("examples/div");
    let run = |toml: &str| {
        let m = dir.join("loopy.toml");
        std::fs::write(&m, toml).unwrap();
        let (code, out, err) = common::loopy(&[
            "check",
            "--color",
            "never",
            "--manifest",
            m.to_str().unwrap(),
        ]);
        (Some(code), out, err)
    };
    let k = div.join("div.c").display().to_string();
    let bad = div.join("div_reverse.loopy").display().to_string();
    // An illegal script that should be legal: exit 1 with its report.
    let (code, out, err) = run(&format!("[[check]]\nkernel = {k:?}\nscript = {bad:?}\n"));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("ILLEGAL") && out.contains("0 passed, 1 failed"),
        "{out}"
    );
    assert!(err.contains("flow dependence"), "{err}");
    // A must-fail script that is legal: exit 1.
    let good = div.join("div.loopy").display().to_string();
    let (code, out, _) = run(&format!(
        "[[check]]\nkernel = {k:?}\nscript = {good:?}\nexpect = \"illegal\"\n"
    ));
    assert_eq!(code, Some(1), "{out}");
    // Bad inputs: exit 2.
    let (code, _, err) = run("[[check]]\nkernel = 3\n");
    assert_eq!(code, Some(2));
    assert!(err.contains("must be a string"), "{err}");
    let (code, _, err) = run("[[check]\n");
    assert_eq!(code, Some(2));
    assert!(err.contains("loopy.toml"), "{err}");
    let (code, out, _) = run(&format!(
        "[[check]]\nkernel = {k:?}\nscript = \"missing.loopy\"\n"
    ));
    assert_eq!(code, Some(2), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `prove = true`: `check --manifest` proves the generated code equivalent to the kernel
/// (text and JSON), refuses what it cannot prove as bad input, and rejects a malformed key.
#[test]
fn manifest_entries_proved() {
    let dir = common::scratch("manifest", "prove");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = |toml: &str, json: bool| {
        let m = dir.join("loopy.toml");
        std::fs::write(&m, toml).unwrap();
        let mut args = vec![
            "check",
            "--color",
            "never",
            "--manifest",
            m.to_str().unwrap(),
        ];
        if json {
            args.extend(["--format", "json"]);
        }
        let (code, out, err) = common::loopy(&args);
        (code, out, err)
    };
    let pair = |k: &str, s: &str| {
        format!(
            "[[check]]\nkernel = {:?}\nscript = {:?}\nprove = true\n",
            root.join(k).display().to_string(),
            root.join(s).display().to_string()
        )
    };
    let mvt = pair("examples/mvt/mvt.c", "examples/mvt/mvt.loopy");
    let (code, out, err) = run(&mvt, false);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("generated code proved equivalent") && out.contains("1 passed, 0 failed"),
        "{out}"
    );
    let (code, out, err) = run(&mvt, true);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["entries"][0]["proof"], "equivalent", "{out}");
    // Without the key, no proof and no `proof` field.
    let plain = mvt.replace("prove = true\n", "");
    let (code, out, _) = run(&plain, true);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["entries"][0].get("proof").is_none(), "{out}");
    // What cannot be proved (pivoting LU: the pivot's row is chosen by a comparison of
    // values): bad input, with the construct named.
    let (code, out, err) = run(
        &pair(
            "examples/lu-pivot/lu-pivot.c",
            "examples/lu-pivot/lu-pivot.loopy",
        ),
        false,
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("ERROR") && err.contains("L0802") && err.contains("not modelled exactly"),
        "{out}{err}"
    );
    let (code, _, err) = run(&mvt.replace("prove = true", "prove = \"yes\""), false);
    assert_eq!(code, 2);
    assert!(err.contains("`prove` must be true or false"), "{err}");
    // `apply --prove` proves the file it wrote.
    let out = dir.join("mvt.gen.c");
    let (code, _, err) = common::loopy(&[
        "apply",
        "--color",
        "never",
        "examples/mvt/mvt.c",
        "examples/mvt/mvt.loopy",
        "-o",
        out.to_str().unwrap(),
        "--prove",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("equivalent:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn show_script_errors_point_into_script_and_kernel() {
    let dir = common::scratch("show", "script");
    let s = dir.join("bad.loopy");
    std::fs::write(&s, "realign(Init, Mul, 0)\n").unwrap();
    let (code, _, err) = common::loopy(&[
        "show",
        "--color",
        "never",
        "examples/matmul/matmul.c",
        "--script",
        s.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("unknown tag or handle `Mul`") && err.contains("did you mean `Mult`?"),
        "{err}"
    );
    // Trace prints the schedules after every step.
    std::fs::write(
        &s,
        "realign(Init, Mult, 0)\naffine(Mult, {[i,j,k] -> [i,k,j]})\n",
    )
    .unwrap();
    let (code, text, _) = common::loopy(&[
        "show",
        "examples/matmul/matmul.c",
        "--trace",
        "--script",
        s.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("after step 1: realign(Init, Mult, 0)") && text.contains("after step 2:"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

must_fail!(
    move_before_consumer_first,
    "tests/must_fail/producer_consumer.c",
    "flow dependence on `B`"
);
