//! Schedules whose iterators come back only through floors and mods (strip-mines written
//! with `%`, nested splits as BLIS writes them, the remainder before the quotient, splits of
//! a sum of iterators): code is generated for every one, it runs every instance once in
//! schedule order, and `loopy check` and `loopy apply` agree on them.

mod common;
#[path = "common/trace.rs"]
mod trace;

use loopy::driver::{generate_with, Kernel, Run};
use loopy::frontend::Options;
use loopy::presburger::budget;
use loopy::verify::ViolationKind;
use loopy::Body;
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;
use trace::{build_trace, scheduled_instances};

/// The traced code generated for `run`'s state.
fn traced(what: &str, kernel: &Kernel, run: &Run) -> String {
    generate_with(kernel, &run.interp.state, Body::Trace)
        .unwrap_or_else(|e| panic!("{what}: {}", e.diagnostic.message))
        .region
}

/// The trace of `region` (generated for `run`'s state), for each parameter vector, against
/// the instances sorted by the schedule.
fn assert_trace_in_order(
    what: &str,
    kernel: &Kernel,
    run: &Run,
    region: &str,
    values: &[Vec<i64>],
) {
    let dir = common::scratch("floormod", &format!("{:x}", fxhash(what)));
    let exe = build_trace(kernel, region, &dir);
    for vals in values {
        let all = scheduled_instances(kernel, run, vals);
        assert!(
            all.windows(2).all(|w| w[0].0 != w[1].0),
            "{what}: two instances at one time for {vals:?}"
        );
        let want: Vec<String> = all.into_iter().map(|x| x.1).collect();
        let out = Command::new(&exe)
            .args(vals.iter().map(|v| v.to_string()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{what} {vals:?}: run failed");
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if got != want {
            let first = (got.iter().zip(&want))
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            panic!(
                "{what} with parameters {vals:?}: traces differ at line {} (got {:?}, want {:?}; {} vs {} lines)\n{}",
                first + 1,
                got.get(first),
                want.get(first),
                got.len(),
                want.len(),
                region
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A short stable hash of a case, to name its scratch directory.
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// How one affine expression of the iterators is split into schedule dimensions.
#[derive(Clone, Debug)]
enum Split {
    Whole,
    /// `[floor((e + o)/b), (e + o) % b]`: a strip-mine with an offset.
    Strip(i64, i64),
    /// `[e % b, floor(e/b)]`: the remainder outside the quotient.
    Cyclic(i64),
    /// `[floor(e/(b1*b2)), floor((e % (b1*b2))/b2), e % b2]`: nested, as BLIS blocks.
    Nested(i64, i64),
    /// `[floor(e/(b1*b2)), floor(e/b2) % b1, e % b2]`: the same written otherwise.
    NestedMod(i64, i64),
}

fn split() -> impl Strategy<Value = Split> {
    prop_oneof![
        simple_split(),
        (2..4i64, 2..4i64).prop_map(|(a, b)| Split::Nested(a, b)),
        (2..4i64, 2..4i64).prop_map(|(a, b)| Split::NestedMod(a, b)),
    ]
}

/// Splits into at most two dimensions. (Nested splits of both combinations of one
/// statement's iterators make the scan's projections large enough to exceed the work
/// budget; see docs/codegen.md, "Known limits".)
fn simple_split() -> impl Strategy<Value = Split> {
    prop_oneof![
        Just(Split::Whole),
        (2..5i64, 0..3i64).prop_map(|(b, o)| Split::Strip(b, o)),
        (2..4i64).prop_map(Split::Cyclic),
    ]
}

/// The schedule dimensions of `e` split by `s`.
fn parts(e: &str, s: &Split) -> Vec<String> {
    match *s {
        Split::Whole => vec![e.to_string()],
        Split::Strip(b, o) => vec![
            format!("floor(({e} + {o})/{b})"),
            format!("({e} + {o}) % {b}"),
        ],
        Split::Cyclic(b) => vec![format!("{e} % {b}"), format!("floor({e}/{b})")],
        Split::Nested(a, b) => vec![
            format!("floor({e}/{})", a * b),
            format!("floor(({e} % {})/{b})", a * b),
            format!("{e} % {b}"),
        ],
        Split::NestedMod(a, b) => vec![
            format!("floor({e}/{})", a * b),
            format!("floor({e}/{b}) % {a}"),
            format!("{e} % {b}"),
        ],
    }
}

/// The dimensions in the order of their keys (stable: ties keep their order).
fn permuted(mut dims: Vec<String>, keys: &[u8]) -> Vec<String> {
    let mut keyed: Vec<(u8, usize, String)> = dims
        .drain(..)
        .enumerate()
        .map(|(n, d)| (keys.get(n).copied().unwrap_or(0), n, d))
        .collect();
    keyed.sort();
    keyed.into_iter().map(|x| x.2).collect()
}

/// `affine(...)` of a statement of `two_nests.c` whose iterators (`i`, or `i, j`) are
/// recovered from floors and mods of two independent combinations of them.
fn split_op() -> impl Strategy<Value = String> {
    let pairs = prop::sample::select(vec![
        ("i", "j"),
        ("(i + j)", "j"),
        ("i", "(i + j)"),
        ("(j - i)", "i"),
    ]);
    let keys = prop::collection::vec(0..4u8, 6);
    prop_oneof![
        (split(), keys.clone()).prop_map(|(s, k)| {
            let dims = permuted(parts("i", &s), &k);
            format!("affine(L1, {{[i] -> [{}]}})", dims.join(", "))
        }),
        (
            prop::sample::select(vec!["L2", "L3"]),
            pairs,
            split(),
            simple_split(),
            keys
        )
            .prop_map(|(l, (e1, e2), s1, s2, k)| {
                let mut dims = parts(e1, &s1);
                dims.extend(parts(e2, &s2));
                let dims = permuted(dims, &k);
                format!("affine({l}, {{[i, j] -> [{}]}})", dims.join(", "))
            }),
    ]
}

fn two_nests() -> Kernel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codegen/two_nests.c");
    Kernel::load(&path, &Options::default()).unwrap()
}

/// Work-budget steps for generating one random case (about a second). Scanning some
/// floor/mod schedules costs more, where `loopy apply` would refuse with `the integer core
/// gave up` (its budget is larger, the cost the same kind): such cases are not drawn again
/// but skipped, as the property is about the code generated.
const CASE_STEPS: u64 = 3_000_000;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every drawn schedule is one-to-one: the checker says so, code is generated for it
    /// (with the statements' text too when it is legal, as `loopy apply` does), and the code
    /// runs every instance once, in schedule order.
    #[test]
    fn floor_and_mod_schedules_generate_and_trace_in_order(
        ops in prop::collection::vec(split_op(), 1..3),
        realign in prop::option::of(0..2i64),
    ) {
        let mut ops = ops;
        if let Some(n) = realign {
            ops.insert(0, format!("realign(L2, L3, {n})"));
        }
        let k = two_nests();
        let mut run = Run::new(&k, "", "empty", Path::new(".")).unwrap();
        for (n, op) in ops.iter().enumerate() {
            // A split of a statement already split has the wrong arity: it is refused and
            // changes nothing.
            let _ = run.interp.run_text(op, &format!("op{n}"), Path::new("."));
        }
        let what = ops.join(" / ");
        let violations = run.check();
        prop_assert!(
            !violations.iter().any(|v| matches!(v.kind, ViolationKind::NotOneToOne)),
            "{what}: the checker finds it not one-to-one"
        );
        let generated = budget::with_budget(CASE_STEPS, || {
            let source = violations
                .is_empty()
                .then(|| generate_with(&k, &run.interp.state, Body::Source));
            (source, generate_with(&k, &run.interp.state, Body::Trace))
        });
        let Ok((source, trace)) = generated else {
            prop_assume!(false, "{}: beyond the work budget", what);
            unreachable!()
        };
        if let Some(Err(e)) = source {
            prop_assert!(false, "{what}: legal but not generated: {}", e.diagnostic.message);
        }
        let region = match trace {
            Ok(g) => g.region,
            Err(e) => panic!("{what}: {}", e.diagnostic.message),
        };
        let vals = vec![vec![0, 0], vec![1, 1], vec![2, 3], vec![5, 4], vec![7, 9], vec![13, 11]];
        assert_trace_in_order(&what, &k, &run, &region, &vals);
    }
}

/// Hand-picked cases of each form, traced at sizes with whole and partial blocks.
#[test]
fn floor_and_mod_schedules_of_each_form_trace_in_order() {
    let cases = [
        // BLIS-style rows: i = 6*i1 + 2*i2 + i3.
        "affine(L2, {[i, j] -> [floor(i/6), floor((i % 6)/2), j, i % 2]})",
        "affine(L2, {[i, j] -> [floor(i/6), floor(i/2) % 3, i % 2, j]})",
        // The remainder outside the quotient, with and without an offset.
        "affine(L3, {[i, j] -> [i, j % 3, floor(j/3)]})",
        "affine(L2, {[i, j] -> [j % 3, i, floor((j + 2)/3)]})",
        "affine(L1, {[i] -> [i % 3, floor((i + 1)/3)]})",
        // A split of a sum: i = 3*t1 + t2 - j.
        "affine(L2, {[i, j] -> [floor((i + j)/3), (i + j) % 3, j]})",
        // Two nested splits interleaved, as a tiling written with floors and mods.
        "affine(L2, {[i, j] -> [floor(i/4), floor(j/6), floor((j % 6)/2), i % 4, j % 2]})",
        // A split of a split's first dimension: the parts of one statement that a loop's
        // pieces would merge give `i` different values (found by the random cases).
        "affine(L1, {[i] -> [floor(i/2) % 3, i % 2, floor(i/6)]})\naffine(L1, {[i] -> [floor(i/4), floor(i/2) % 2, i % 2]})",
    ];
    let k = two_nests();
    let mut vals = vec![vec![0, 0], vec![1, 1], vec![2, 3], vec![5, 4], vec![7, 9]];
    vals.push(vec![13, 11]);
    vals.push(vec![16, 12]);
    for script in cases {
        let run = Run::new(&k, script, "case", Path::new(".")).unwrap();
        assert!(run.check().is_empty(), "{script}: illegal");
        let region = traced(script, &k, &run);
        assert_trace_in_order(script, &k, &run, &region, &vals);
    }
}

/// The script on gemm: `check` says legal and one-to-one, `apply` generates loops
/// that count `i` inside the two outer block loops (no guard), and the program prints what
/// the original prints, at sizes with whole and partial blocks of 96 and 8 rows.
#[test]
fn gemm_rows_split_by_floors_and_mods_apply_and_print_the_same() {
    let kernel = "examples/gemm/gemm.c";
    let script = "tests/data/codegen/gemm_floor_mod.loopy";
    let (code, out, err) = common::loopy(&["check", kernel, script]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("is one-to-one"), "{out}");
    let (code, region, err) = common::loopy(&["apply", "--region-only", kernel, script]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("apply_gemm_floor_mod", region);
    assert!(!region.contains("if ("), "a guard is left:\n{region}");
    let dir = common::scratch("floormod", "gemm");
    let new_src = dir.join("gemm.c");
    let (code, _, err) = common::loopy(&["apply", kernel, script, "-o", new_src.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (n, size) in [
        ["203", "37", "29"],
        ["96", "5", "3"],
        ["7", "9", "4"],
        ["0", "3", "2"],
    ]
    .iter()
    .enumerate()
    {
        let defs: Vec<String> = ["NI", "NJ", "NK"]
            .iter()
            .zip(size)
            .map(|(m, v)| format!("-D{m}={v}"))
            .collect();
        let mut flags: Vec<&str> = defs.iter().map(String::as_str).collect();
        flags.extend(["-O2", "-ffp-contract=off", "-lm"]);
        let old_exe = dir.join(format!("old{n}"));
        let new_exe = dir.join(format!("new{n}"));
        common::compile(&root.join(kernel), &old_exe, &flags, "");
        flags.extend(["-Wall", "-Wextra", "-Werror"]);
        common::compile(&new_src, &new_exe, &flags, &region);
        let run = |exe: &Path| {
            let out = Command::new(exe).output().unwrap();
            assert!(out.status.success(), "{} failed", exe.display());
            out.stdout
        };
        assert!(
            run(&old_exe) == run(&new_exe),
            "sizes {size:?}: the outputs differ\n{region}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
