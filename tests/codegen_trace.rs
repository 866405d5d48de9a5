//! Trace validation of generated kernels: the generated loops, with every statement replaced
//! by a `printf` of its name and iterators, compiled and run, print exactly the instances of
//! the domains sorted by the schedule, for several parameter values (degenerate ones
//! included).

mod common;
#[path = "common/trace.rs"]
mod trace;
use common::examples;
use loopy::driver::{generate_with, Kernel, Run};
use loopy::frontend::Options;
use loopy::Body;
use std::path::{Path, PathBuf};
use std::process::Command;
use trace::{build_trace, scheduled_instances};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loopy-trace-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The instances of every piece, sorted by their schedule, as the trace prints them; `None`
/// when two instances share a time (a schedule that is not one-to-one).
/// Instances come from the domain's points; each one's time from the schedule by an
/// integer solve with the iterators fixed (the schedule is a function).
fn expected(kernel: &Kernel, run: &Run, values: &[i64]) -> Option<Vec<String>> {
    let all = scheduled_instances(kernel, run, values);
    if all.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    Some(all.into_iter().map(|x| x.1).collect())
}

/// Runs `script` (text) on an example and validates the trace for each parameter vector.
fn validate(name: &str, script: &str, tag: &str, values: &[Vec<i64>]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let kernel = Kernel::load(&root.join(format!("{name}.c")), &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
    let run = Run::new(&kernel, script, "script", &root)
        .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
    validate_run(name, &kernel, &run, tag, values);
}

/// Validates the trace of the code generated for the state of `run`, whose schedule must be
/// one-to-one (every operation the tests use is).
fn validate_run(name: &str, kernel: &Kernel, run: &Run, tag: &str, values: &[Vec<i64>]) {
    let mut wants = vec![];
    for vals in values {
        let vals = &vals[..kernel.scop.params.len().min(vals.len())];
        match expected(kernel, run, vals) {
            Some(w) => wants.push(w),
            None => panic!("{name} ({tag}): two instances at one time for {vals:?}"),
        }
    }
    let g = generate_with(kernel, &run.interp.state, Body::Trace)
        .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
    let dir = scratch(&format!("{name}-{tag}"));
    let exe = build_trace(kernel, &g.region, &dir);
    for (vals, want) in values.iter().zip(wants) {
        let vals = &vals[..kernel.scop.params.len().min(vals.len())];
        let out = Command::new(&exe)
            .args(vals.iter().map(|v| v.to_string()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{name} {vals:?}: run failed");
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if got != want {
            let first = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            panic!(
                "{name} ({tag}) with parameters {vals:?}: traces differ at line {} \
                 (got {:?}, want {:?}; {} vs {} lines)\n{}",
                first + 1,
                got.get(first),
                want.get(first),
                got.len(),
                want.len(),
                g.region
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Parameter vectors: all equal (0, 1, 2, 3, 5) and all different.
fn values(n_max: i64) -> Vec<Vec<i64>> {
    let mut v: Vec<Vec<i64>> = [0, 1, 2, 3, 5]
        .iter()
        .filter(|&&x| x <= n_max)
        .map(|&x| vec![x; 6])
        .collect();
    v.push((0..6).map(|k| (3 + k).min(n_max)).collect());
    v
}

/// Every example's own script.
#[test]
fn examples_trace_in_schedule_order() {
    for name in examples() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(&name);
        let script = std::fs::read_to_string(root.join(format!("{name}.loopy"))).unwrap();
        validate(&name, &script, "own", &values(5));
    }
}

/// The same scripts with tiles of 4 (or 3), so small sizes cover several full and partial
/// tiles.
#[test]
fn examples_with_small_tiles_trace_in_schedule_order() {
    for name in examples() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(&name);
        let script = std::fs::read_to_string(root.join(format!("{name}.loopy"))).unwrap();
        let mut small = script.clone();
        for t in ["128", "64", "32"] {
            small = small
                .replace(&format!("/{t}]"), "/4]")
                .replace(&format!("%{t}"), "%4");
        }
        if small == script {
            continue;
        }
        let mut v = values(9);
        v.push(vec![9; 6]);
        v.push(vec![6, 9, 7, 5, 8, 4]);
        validate(&name, &small, "tile4", &v);
    }
}

/// Unrolled loops (`unroll`): every instance still runs once, in schedule order, with
/// remainders of every size (parameters 0 to 9 against factors 2 to 5), loops with a
/// constant trip count (fully unrolled, or unrolled with a fixed tail), unrolled tiles and
/// unroll-and-jam, nested unrolls, a loop shared by two statements, a factor of 1.
#[test]
fn unrolled_loops_trace_in_schedule_order() {
    let cases: &[(&str, &str)] = &[
        ("matmul", "unroll(Init, 1, 2)\nunroll(Init, 2, 3)\nunroll(Mult, 3, 4)"),
        (
            "matmul",
            "realign(Init, Mult, 0)\ninterchange(Mult, 2, 3)\ntile(Mult, [4, 4, 4])\nunroll(Mult, 5, 3)\nunroll(Mult, 6, 4)",
        ),
        // Unroll and jam: strip-mine i by 2, move the point loop innermost, unroll it fully.
        (
            "matmul",
            "realign(Init, Mult, 0)\nstrip_mine(Mult, 1, 2)\ninterchange(Mult, 2, 4)\nunroll(Mult, 4, 2)\nunroll(Mult, 2, 5)",
        ),
        ("matmul", "realign(Init, Mult, 0)\ntile(Mult, [3, 3, 3])\nunroll(Mult, 4, 3)\nunroll(Mult, 6, 2)"),
        ("div", "unroll(Div, 1, 5)"),
        ("jacobi-2d", "unroll(LoopB, 3, 2)\nunroll(LoopA, 3, 3)\nunroll(LoopB, 2, 2)"),
        ("2mm", "realign(Init, Mult, 0)\ninterchange(Mult, 2, 3)\ntile(Mult, [3, 4, 4])\nunroll(Mult, 4, 4)\nunroll(Mult, 5, 2)\nunroll(Scale, 2, 3)"),
        ("doitgen", "realign(Init, Mult, 2)\ninterchange(Mult, 3, 4)\ntile(Mult, [3, 4], [4, 4])\nunroll(Mult, 3, 2)\nunroll(Mult, 6, 3)\nunroll(Ret, 3, 4)"),
        ("lu", "unroll(Right, 3, 3)\nunroll(Left, 2, 2)"),
        ("lu", "unroll(Norm, 3, 4)\nunroll(Right, 2, 5)"),
        ("matmul", "unroll(Mult, 2, 1)"),
        // The standard library's procedures, whole blocks split from partial ones.
        (
            "matmul",
            "realign(Init, Mult, 0)\ninterchange(Mult, 2, 3)\nregister_tile(Mult, 2, 3)\n(F, R) = isplit(Mult, [n] -> {[a, b] : 3a + 3 <= n and 2b + 2 <= n}, 0)",
        ),
        ("matmul", "realign(Init, Mult, 0)\nunroll_jam(Mult, 3)\nunroll_jam(Init, 2)"),
        ("2mm", "realign(Init, Mult, 0)\nunroll_jam2(Mult, 2)"),
    ];
    let mut v = values(9);
    v.push(vec![4; 6]);
    v.push(vec![6; 6]);
    v.push(vec![7; 6]);
    v.push(vec![9; 6]);
    v.push(vec![6, 9, 7, 5, 8, 4]);
    for (n, (name, script)) in cases.iter().enumerate() {
        validate(name, script, &format!("unroll{n}"), &v);
    }
    // The fast example scripts (BLIS blocks of 6 by 8, blocks of 4 rows by 8), at sizes with
    // whole and partial blocks (parameters in the kernels' order: ni, nj, nk, nl, nm and
    // nr, nq, np).
    let fast: [(&str, Vec<Vec<i64>>); 3] = [
        (
            "2mm",
            vec![
                vec![0; 4],
                vec![5; 4],
                vec![13, 17, 3, 18],
                vec![6, 16, 2, 33],
            ],
        ),
        (
            "3mm",
            vec![vec![0; 5], vec![13, 17, 3, 18, 2], vec![6, 16, 2, 33, 3]],
        ),
        (
            "doitgen",
            vec![vec![0; 3], vec![2, 3, 5], vec![2, 2, 35], vec![1, 2, 64]],
        ),
    ];
    for (name, vals) in fast {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let script = std::fs::read_to_string(root.join(format!("{name}-fast.loopy"))).unwrap();
        // The fast scripts' sizes come from the machine model: fixed here (doitgen: 4 rows,
        // strips of 8; the products: 6 x 8 blocks, KC 256, MC 72, NC 1104), so that the
        // trace is the same on every machine.
        let fixed: &[(&str, i64)] = if name == "doitgen" {
            &[("MR", 4), ("W", 8)]
        } else {
            &[("MR", 6), ("NR", 8), ("KC", 256), ("MC", 72), ("NC", 1104)]
        };
        let script: String = (script.lines())
            .map(|l| {
                let fixed = fixed.iter().find(|(p, _)| {
                    l.strip_prefix("param ")
                        .and_then(|r| r.strip_prefix(p))
                        .is_some_and(|r| r.starts_with(" = model"))
                });
                match fixed {
                    Some((p, v)) => format!("param {p} = {v}\n"),
                    None => format!("{l}\n"),
                }
            })
            .collect();
        validate(name, &script, "fast", &vals);
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    fn kernel() -> Kernel {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codegen/two_nests.c");
        Kernel::load(&path, &Options::default()).unwrap()
    }

    /// Skews, reversals, scalings (also mixed with skews), interchanges, tilings, splits and
    /// fusions with shifts.
    fn op() -> impl Strategy<Value = String> {
        let inner = prop::sample::select(vec!["L2", "L3"]);
        prop_oneof![
            (inner.clone(), -2..3i64)
                .prop_map(|(l, k)| format!("affine({l}, {{[i, j] -> [i, j + {k}i]}})")),
            (inner.clone(), -1..2i64)
                .prop_map(|(l, k)| format!("affine({l}, {{[i, j] -> [i + {k}j, j]}})")),
            inner
                .clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [i, -j]}})")),
            Just("affine(L1, {[i] -> [-i]})".to_string()),
            (inner.clone(), 2..4i64)
                .prop_map(|(l, k)| format!("affine({l}, {{[i, j] -> [i, {k}j]}})")),
            (2..4i64).prop_map(|k| format!("affine(L1, {{[i] -> [{k}i]}})")),
            // Not unimodular: strided loops, or loops counting an iterator.
            (inner.clone(), 2..4i64, 1..5i64)
                .prop_map(|(l, k, m)| format!("affine({l}, {{[i, j] -> [{k}i + {m}j, j]}})")),
            inner
                .clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [i + j, i - j]}})")),
            inner
                .clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [j, i]}})")),
            (inner.clone(), 2..5i64)
                .prop_map(|(l, s)| format!("affine({l}, {{[i, j] -> [i, j/{s}, j%{s}]}})")),
            (inner.clone(), 2..4i64).prop_map(|(l, s)| format!("tile({l}, [{s}, {s}])")),
            (inner.clone(), 0..4i64, 0..2i64)
                .prop_map(|(l, k, n)| format!("isplit({l}, {{[i, j] : j < {k}}}, {n})")),
            // On a point coordinate once tiled (fails, changing nothing, otherwise).
            (inner.clone(), 0..4i64, 0..3i64)
                .prop_map(|(l, k, n)| format!("isplit({l}, {{[a, b, c] : c < {k}}}, {n})")),
            (0..2i64).prop_map(|n| format!("realign(L2, L3, {n})")),
            (-1..3i64).prop_map(|k| format!(
                "affine(L3, {{[i, j] -> [i + {k}, j]}})\nrealign(L2, L3, 1)"
            )),
            // Marks that keep the order (a later step rewriting the loop is refused).
            (
                prop::sample::select(vec!["L1", "L2", "L3"]),
                1..4i64,
                1..6i64
            )
                .prop_map(|(l, k, u)| format!("unroll({l}, {k}, {u})")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

        /// Whatever the schedule (legal or not: order is all that is checked here; every
        /// operation here is one-to-one), the code runs every instance once, in schedule order.
        #[test]
        fn random_schedules_trace_in_order(
            ops in prop::collection::vec(op(), 1..4),
            unrolls in prop::collection::vec(
                (prop::sample::select(vec!["L1", "L2", "L3"]), 1..4i64, 2..6i64, 0..4usize),
                0..3,
            ),
        ) {
            // `unroll` marks at random places among the operations (a later operation that
            // rewrites a marked loop is refused and changes nothing).
            let mut ops = ops;
            for (l, k, u, at) in unrolls {
                let at = at.min(ops.len());
                ops.insert(at, format!("unroll({l}, {k}, {u})"));
            }
            let k = kernel();
            let mut run = Run::new(&k, "", "empty", Path::new(".")).unwrap();
            for (n, op) in ops.iter().enumerate() {
                // A failing operation (e.g. a realign of components that are not adjacent)
                // leaves the state unchanged.
                let _ = run.interp.run_text(op, &format!("op{n}"), Path::new("."));
            }
            // Marks moved by later operations may meet in one generated loop with different
            // factors (`unroll(2)` on L2's loop 1 and `unroll(4)` on L3's): code generation
            // refuses that with a report, which is all there is to check then.
            if let Err(e) = generate_with(&k, &run.interp.state, Body::Trace) {
                let m = &e.diagnostic.message;
                prop_assert!(m.contains("is marked both `unroll("), "{}: {m}", ops.join(" / "));
                return Ok(());
            }
            let vals = vec![vec![0, 0], vec![1, 1], vec![2, 3], vec![3, 2], vec![5, 4], vec![6, 6]];
            validate_run(&ops.join(" / "), &k, &run, "random", &vals);
        }
    }
}
