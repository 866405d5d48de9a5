//! The cost model the search ranks schedules by: loop orders by the accesses of the
//! innermost loop, one key for interleavings that differ only in the order of independent
//! nests, class schedules built once, the work statements are weighed by.

use crate::search::cost;
use crate::search::script::Variant;
use crate::testing::scratch;
use std::path::Path;

/// A kernel of the cost-model tests, loaded with its dependences' space.
fn model_of(dir: &Path, name: &str, text: &str) -> (crate::search::Legal, cost::CostModel) {
    let f = dir.join(format!("{name}.c"));
    std::fs::write(&f, text).unwrap();
    let k = crate::driver::Kernel::load(&f, &crate::frontend::Options::default()).unwrap();
    let run = crate::driver::Run::start(&k);
    let legal = crate::search::Legal::new(&run.program, &run.deps);
    let model = cost::CostModel::new(&k.scop, &legal.layout.dirs, 10_000_000, &[]);
    (legal, model)
}

/// The cost model ranks loop orders by the accesses of the innermost loop: for a matrix
/// product `C[i][j] += A[i][k] * B[k][j]` built as `(i, j, k)` (innermost `k` walks `B`
/// down a column), the orders with `j` innermost come first, the kernel's own order is
/// dearer, and the greedy phase's changes start with the tiles, then the other order with
/// `j` innermost, then the dearer orders.
#[test]
fn cost_model_ranks_the_contiguous_loop_innermost_first() {
    let d = scratch("search", "cost");
    let (legal, model) = model_of(
        &d,
        "matmul",
        "void k(int n, double A[n][n], double B[n][n], double C[n][n]) {\n  int i, j, k;\n\
         #pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      \
         for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n",
    );
    assert_eq!(model.work, vec![1e9]);
    let il = legal.interleavings(10);
    assert_eq!(il.list, vec![vec![vec![0]]]);
    let b = legal.build(&il.list[0]).unwrap();
    assert_eq!(b.bands.len(), 1);
    assert_eq!(b.bands[0].len, 3);
    let plain = Variant::plain(&b);
    let orders = model.band_orders(&b, &plain, 0);
    // `(i, j, k)`: A[i][k] contiguous (1), B[k][j] strided (8), C stays put (0, 0).
    let own = orders.iter().find(|o| o.0 == vec![0, 1, 2]).unwrap().1;
    assert_eq!(own, 9e9);
    // `(i, k, j)` and `(k, i, j)`: A stays put, B and C (read and written) contiguous.
    assert_eq!(orders[0], (vec![0, 2, 1], 3e9));
    assert_eq!(orders[1], (vec![2, 0, 1], 3e9));
    assert!(orders[2..].iter().all(|o| o.1 > 3e9), "{orders:?}");
    let best = model.best_orders(&b);
    assert_eq!(best.order, vec![vec![0, 2, 1]]);
    assert_eq!(model.cost(&b, &best), 3e9);
    assert_eq!(model.cost(&b, &plain), 9e9);
    let ch = crate::search::driver::changes(&model, &b, &best, &[32, 64], false);
    let tiles: Vec<u32> = ch.iter().map(|v| v.tile[0]).collect();
    assert_eq!(&tiles[..2], &[32, 64]);
    assert!(tiles[2..].iter().all(|&t| t == 0));
    assert_eq!(ch[2].order, vec![vec![2, 0, 1]]);
    // The other four orders, none with `j` innermost, come after it, all of them.
    assert_eq!(ch.len(), 2 + 5);
    assert!(ch[3..].iter().all(|v| v.order[0][2] != 1));
    let _ = std::fs::remove_dir_all(&d);
}

/// Interleavings that differ only in the order of independent nests get one key: the 13
/// interleavings of three independent statements have the loop structures of the 5 set
/// partitions of three (each class one nest), and the loop extents are read from the
/// domains (a loop of one iteration counts once, a triangle by its bounding box).
#[test]
fn equivalent_interleavings_share_one_key() {
    let d = scratch("search", "keys");
    let (legal, model) = model_of(
        &d,
        "independent",
        "void k(int n, double A[n], double B[n], double C[n][n]) {\n  int i, j;\n\
         #pragma scop\n  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
         B[i] = 2.0;\n  for (i = 0; i < n; i++)\n    for (j = i; j < i + 1; j++)\n      \
         C[i][j] = 3.0;\n#pragma endscop\n}\n",
    );
    assert_eq!(model.work, vec![1000.0, 1000.0, 1000.0]);
    let il = legal.interleavings(100);
    assert_eq!(il.list.len(), 13);
    let key = |c: &[Vec<usize>]| {
        let b = legal.build(c).unwrap();
        cost::nest_key(&b, &model.best_orders(&b))
    };
    let keys: std::collections::BTreeSet<String> = il.list.iter().map(|c| key(c)).collect();
    assert_eq!(keys.len(), 5, "{keys:?}");
    assert_eq!(
        key(&[vec![0], vec![1], vec![2]]),
        key(&[vec![2], vec![0], vec![1]])
    );
    assert_eq!(key(&[vec![0, 1], vec![2]]), key(&[vec![2], vec![0, 1]]));
    assert_ne!(
        key(&[vec![0, 1], vec![2]]),
        key(&[vec![0], vec![1], vec![2]])
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Each class is scheduled once and reused: the schedules built with the shared table of
/// classes are those `Legal::build` and `Legal::build_fused` build for each interleaving
/// alone (gemver: 8 interleavings; three statements, one reading another: 8).
#[test]
fn class_schedules_are_built_once() {
    use crate::search::driver::{build, Classes, Kind};
    let d = scratch("search", "memo");
    let own = std::fs::read_to_string("examples/gemver/gemver.c").unwrap();
    let independent = "void k(int n, double A[n], double B[n], double C[n]) {\n  int i;\n\
         #pragma scop\n  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
         B[i] = A[i];\n  for (i = 0; i < n; i++)\n    C[i] = 3.0;\n#pragma endscop\n}\n";
    for (name, text) in [("gemver", own.as_str()), ("independent", independent)] {
        let (legal, _) = model_of(&d, name, text);
        let il = legal.interleavings(100);
        assert!(il.list.len() >= 5, "{name}: {}", il.list.len());
        let mut memo = Classes::default();
        for c in &il.list {
            for kind in [Kind::Bands, Kind::Fused] {
                let alone = match kind {
                    Kind::Bands => legal.build(c),
                    Kind::Fused => legal.build_fused(c),
                    Kind::Recipe => unreachable!("not built per interleaving"),
                };
                let shared = build(&legal, c, kind, &mut memo);
                assert_eq!(format!("{alone:?}"), format!("{shared:?}"), "{name} {c:?}");
            }
        }
        let classes: usize = il.list.iter().map(|c| 2 * c.len()).sum();
        assert!(memo.len() < classes, "{name}: {} of {classes}", memo.len());
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The instances the cost model weighs statements by, on covariance (parameters at 1000):
/// the product `Mult` over the triangle `j >= i` counts as its longest row (1000³), the
/// one-iteration `k` loops of `Init` and `Final` count once.
#[test]
fn cost_model_work_of_covariance() {
    let k = crate::driver::Kernel::load(
        Path::new("examples/covariance/covariance.c"),
        &crate::frontend::Options::default(),
    )
    .unwrap();
    let layout = crate::search::space::Layout::new(&crate::verify::Program::from_scop(&k.scop));
    let model = cost::CostModel::new(&k.scop, &layout.dirs, 10_000_000, &[]);
    let work = |tag: &str| model.work[k.scop.tag(tag).unwrap().statements[0]];
    assert_eq!(work("Mult"), 1e9);
    assert_eq!(work("Init"), 1e6);
    assert_eq!(work("Final"), 1e6);
    // mean[j] += data[i][j]: 1000 x 1000.
    assert_eq!(model.work[1], 1e6);
}

/// Spearman's correlation: the same order is 1, the reverse −1, ties share their average
/// rank (a computed value checked against the formula with ranks 1, 2.5, 2.5, 4), a constant
/// sample has none.
#[test]
fn spearman_rank_correlation() {
    use super::cost::spearman;
    assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 35.0]), Some(1.0));
    assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
    // x ranks 1, 2.5, 2.5, 4; y ranks 1, 2, 3, 4: covariance 4.5 over sqrt(4.5 * 5).
    let rho = spearman(&[1.0, 5.0, 5.0, 9.0], &[0.1, 0.2, 0.3, 0.4]).unwrap();
    assert!((rho - 4.5 / (4.5f64 * 5.0).sqrt()).abs() < 1e-12, "{rho}");
    assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    assert_eq!(spearman(&[1.0], &[1.0]), None);
    assert_eq!(spearman(&[1.0, 2.0], &[1.0]), None);
}

/// A loop that carries a dependence at a short distance does not vectorize in the estimate:
/// a row's sum `s[i] += A[i][j] * x[j]` with `j` innermost walks every array contiguously
/// but adds into one element (a floating-point reduction the compiler may not reassociate),
/// so knowing the dependences makes it dearer; a statement that carries none (`y = A + x`)
/// is estimated the same either way.
#[test]
fn a_loop_carrying_a_dependence_does_not_vectorize() {
    let d = scratch("search", "cost-carried");
    let estimate = |name: &str, text: &str| {
        let (legal, model) = model_of(&d, name, text);
        let b = legal.build(&legal.interleavings(10).list[0]).unwrap();
        let v = Variant::plain(&b);
        let with = model.clone().with_dependences(&legal).estimate(&b, &v);
        (model.estimate(&b, &v), with)
    };
    let head = "void k(int n, double A[n][n], double x[n], double s[n], double y[n][n]) {\n  \
                int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    \
                for (j = 0; j < n; j++)\n";
    let (free, with) = estimate(
        "rowsum",
        &format!("{head}      s[i] += A[i][j] * x[j];\n#pragma endscop\n}}\n"),
    );
    assert!(with > free, "{with} against {free}");
    let (free, with) = estimate(
        "add",
        &format!("{head}      y[i][j] = A[i][j] + x[j];\n#pragma endscop\n}}\n"),
    );
    assert_eq!(with, free);
}

/// The kernel as it is has an estimate of its own, and the model's values follow the sizes
/// the program is built with (`-D`, parameters named like the macros up to case). Two
/// sweeps of a 1-d stencil in loops of their own vectorize; fused (the time loop skewed, or
/// the second sweep shifted into the first's loop) they carry a dependence from one to the
/// other at distance 1, and are dearer.
#[test]
fn the_kernel_as_it_is_is_estimated_at_the_sizes_given() {
    let d = scratch("search", "cost-own");
    let text = "void k(int tsteps, int n, double A[n], double B[n]) {\n  int t, i;\n\
                #pragma scop\n  for (t = 0; t < tsteps; t++) {\n    \
                for (i = 1; i < n - 1; i++)\n      B[i] = A[i - 1] + A[i] + A[i + 1];\n    \
                for (i = 1; i < n - 1; i++)\n      A[i] = B[i - 1] + B[i] + B[i + 1];\n  }\n\
                #pragma endscop\n}\n";
    let f = d.join("jacobi1.c");
    std::fs::write(&f, text).unwrap();
    let k = crate::driver::Kernel::load(&f, &crate::frontend::Options::default()).unwrap();
    let run = crate::driver::Run::start(&k);
    let legal = crate::search::Legal::new(&run.program, &run.deps);
    let defines = ["TSTEPS=10".to_string(), "N=102".to_string()];
    let model = cost::CostModel::new(&k.scop, &legal.layout.dirs, 10_000_000, &defines)
        .with_dependences(&legal);
    assert_eq!(model.work, vec![1000.0, 1000.0]);
    let names = crate::search::driver::names(&k);
    let own = model.weigh(&model.own_parts(&names));
    let il = legal.interleavings(10);
    let b = legal.build(&il.list[0]).unwrap();
    let fused = model.estimate(&b, &Variant::plain(&b));
    assert!(own < fused, "{own} against {fused}");
    let nominal = cost::CostModel::new(&k.scop, &legal.layout.dirs, 10_000_000, &[]);
    assert_eq!(nominal.work, vec![998_000.0, 998_000.0]);
}

/// The parameters that only say how often loops run: jacobi-1d's `tsteps` (its `t` is in
/// no subscript), not `n`; not a time loop whose iterator a subscript reads (`f[t]`), nor
/// one that bounds a loop a subscript uses (`i <= t`).
#[test]
fn time_parameters_bound_only_loops_no_subscript_uses() {
    let d = scratch("search", "cost-time");
    let params = |name: &str, body: &str| {
        let text = format!(
            "void k(int tsteps, int n, double A[n], double B[n], double f[tsteps]) {{\n  \
             int t, i;\n#pragma scop\n  for (t = 0; t < tsteps; t++) {{\n{body}  }}\n\
             #pragma endscop\n}}\n"
        );
        let f = d.join(format!("{name}.c"));
        std::fs::write(&f, text).unwrap();
        let k = crate::driver::Kernel::load(&f, &crate::frontend::Options::default()).unwrap();
        cost::time_params(&k.scop)
    };
    let sweeps = "    for (i = 1; i < n - 1; i++)\n      B[i] = A[i - 1] + A[i + 1];\n    \
                  for (i = 1; i < n - 1; i++)\n      A[i] = B[i];\n";
    assert_eq!(params("sweeps", sweeps), vec!["tsteps".to_string()]);
    let read = "    for (i = 0; i < n; i++)\n      A[i] = f[t];\n";
    assert!(params("read", read).is_empty());
    let bounded = "    for (i = 0; i <= t; i++)\n      A[i] = A[i] + 1.0;\n";
    assert!(params("bounded", bounded).is_empty());
}
