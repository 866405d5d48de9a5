//! The beam search over band orders, tiles and splits: it finds what an exhaustive
//! enumeration finds when it is wide enough, keeps its width and its share per schedule,
//! answers cheapest first, and stops at its estimate count or when late.

use crate::search::beam::{self, Settings, Start};
use crate::search::cost::CostModel;
use crate::search::schedule::Built;
use crate::search::script::{self, Variant};
use crate::search::Legal;
use crate::testing::scratch;

/// A kernel's space and cost model at `n = 500`, and the schedules of its interleavings.
/// Each test loads into a directory of its own (`test`): the tests of one binary run at
/// once, in one process.
fn kernel(test: &str, name: &str, text: &str) -> (Legal, CostModel, Vec<Built>) {
    let d = scratch("search", &format!("beam-{test}"));
    let f = d.join(format!("{name}.c"));
    std::fs::write(&f, text).unwrap();
    let k = crate::driver::Kernel::load(&f, &crate::frontend::Options::default()).unwrap();
    let run = crate::driver::Run::start(&k);
    let legal = Legal::new(&run.program, &run.deps);
    let model = CostModel::new(&k.scop, &legal.layout.dirs, 10_000_000, &["N=500".into()])
        .with_dependences(&legal);
    let il = legal.interleavings(10);
    let built = (il.list.iter())
        .filter_map(|c| legal.build(c).ok())
        .collect();
    (legal, model, built)
}

const MATMUL: &str = "void k(int n, double A[n][n], double B[n][n], double C[n][n]) {\n  \
    int i, j, k;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      \
    for (k = 0; k < n; k++)\n        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n}\n";

/// Two products through a temporary, as 2mm: two nests, two bands of three loops.
const TWO: &str = "void k(int n, double A[n][n], double B[n][n], double C[n][n], \
    double T[n][n], double D[n][n]) {\n  int i, j, k;\n#pragma scop\n  \
    for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      for (k = 0; k < n; k++)\n        \
    T[i][j] += A[i][k] * B[k][j];\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      \
    for (k = 0; k < n; k++)\n        D[i][j] += T[i][k] * C[k][j];\n#pragma endscop\n}\n";

fn settings(width: usize, per_schedule: usize, sizes: &[u32]) -> Settings<'_> {
    Settings {
        width,
        per_schedule,
        tile_sizes: sizes,
        max_estimates: 1_000_000,
    }
}

/// Every composition of one schedule: each band's order, tile (none or a size) and split.
fn every(model: &CostModel, b: &Built, sizes: &[u32]) -> Vec<Variant> {
    let mut all = vec![Variant::plain(b)];
    for j in 0..b.bands.len() {
        let mut next = vec![];
        for v in &all {
            let mut tiles = vec![0];
            if b.bands[j].len >= 2 {
                tiles.extend(sizes);
            }
            let splits = if script::splittable(b, j) {
                vec![false, true]
            } else {
                vec![false]
            };
            for (o, _) in model.band_orders(b, v, j) {
                for &t in &tiles {
                    for &s in &splits {
                        let mut w = v.clone();
                        (w.order[j], w.tile[j], w.split[j]) = (o.clone(), t, s);
                        next.push(w);
                    }
                }
            }
        }
        all = next;
    }
    all
}

/// Wide enough to hold every option of a band, the beam finds the cheapest composition an
/// exhaustive enumeration finds (one band: every composition is an option of it), and its
/// answers come cheapest first.
#[test]
fn a_wide_beam_finds_the_exhaustive_minimum() {
    let (_, model, built) = kernel("wide", "matmul", MATMUL);
    let b = &built[0];
    let sizes = [16, 32, 64];
    let start = Start {
        schedule: 0,
        built: b,
        variant: model.best_orders(b),
    };
    let found = beam::search(&model, &[start], &settings(1000, 1000, &sizes), &|| false);
    let least = (every(&model, b, &sizes).iter())
        .map(|v| model.estimate(b, v))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(found.beam[0].estimate, least);
    assert_eq!(model.estimate(b, &found.beam[0].variant), least);
    assert!(found
        .beam
        .windows(2)
        .all(|w| w[0].estimate <= w[1].estimate));
    // `j` innermost and tiled: the product's contiguous order, blocked.
    let v = &found.beam[0].variant;
    assert_eq!(v.order[0].last(), Some(&1), "{v:?}");
    assert!(v.tile[0] > 0, "{v:?}");
    assert!(!found.cut);
}

/// On two bands a narrow beam decides the band with more work first and keeps the best of
/// each step; it stays within its width and its share per schedule, and it is never dearer
/// than where it started.
#[test]
fn the_beam_keeps_its_width_and_its_share_per_schedule() {
    let (_, model, built) = kernel("width", "two", TWO);
    let sizes = [32, 64];
    let starts: Vec<Start> = (built.iter().enumerate())
        .map(|(k, b)| Start {
            schedule: k,
            built: b,
            variant: model.best_orders(b),
        })
        .collect();
    assert!(!starts.is_empty());
    let found = beam::search(&model, &starts, &settings(3, 2, &sizes), &|| false);
    assert!(found.beam.len() <= 3 && !found.beam.is_empty());
    for k in 0..starts.len() {
        assert!(found.beam.iter().filter(|c| c.schedule == k).count() <= 2);
    }
    let first = &found.beam[0];
    let b = &built[first.schedule];
    let origin = model.estimate(b, &model.best_orders(b));
    assert!(first.estimate <= origin, "{} > {origin}", first.estimate);
    // Each composition is a whole variant, and its estimate is that variant's.
    for c in &found.beam {
        let b = &built[c.schedule];
        assert_eq!(model.estimate(b, &c.variant), c.estimate);
    }
    // No two compositions are the same.
    for (x, c) in found.beam.iter().enumerate() {
        for d in &found.beam[x + 1..] {
            assert!(c.schedule != d.schedule || c.variant != d.variant);
        }
    }
}

/// The beam stops when late, and at its estimate count, answering with what it holds.
#[test]
fn the_beam_stops_when_late_or_at_its_count() {
    let (_, model, built) = kernel("stops", "two", TWO);
    let b = &built[0];
    let start = || Start {
        schedule: 0,
        built: b,
        variant: model.best_orders(b),
    };
    let late = beam::search(&model, &[start()], &settings(4, 4, &[32]), &|| true);
    assert!(late.cut);
    assert_eq!(late.beam.len(), 1);
    assert_eq!(late.beam[0].variant, model.best_orders(b));
    let mut few = settings(4, 4, &[32]);
    few.max_estimates = 1;
    let counted = beam::search(&model, &[start()], &few, &|| false);
    assert!(counted.cut);
    let all = beam::search(&model, &[start()], &settings(4, 4, &[32]), &|| false);
    assert!(!all.cut);
    assert!(all.estimated > counted.estimated);
}

/// The estimate with the dependence test's answer given is the estimate.
#[test]
fn parts_given_the_carried_answer_are_the_parts() {
    let (_, model, built) = kernel("parts", "matmul", MATMUL);
    let b = &built[0];
    for v in every(&model, b, &[32]) {
        let carried = model.carried(b, &v);
        assert_eq!(model.parts_given(b, &v, &carried), model.parts(b, &v));
    }
}

/// Even one wide, the beam's answer is never dearer than the cheapest single decision on
/// any start's largest band: every start's first band is decided before the first cut, and
/// a decision may keep a band as it is, so no later step raises the best estimate.
#[test]
fn a_narrow_beam_is_never_dearer_than_one_decision_on_any_start() {
    let (_, model, built) = kernel("narrow", "two", TWO);
    let sizes = [16, 64];
    let mut starts: Vec<Start> = vec![];
    for (k, b) in built.iter().enumerate() {
        // Each schedule from its best orders and from its own (dearer) orders.
        starts.push(Start {
            schedule: k,
            built: b,
            variant: model.best_orders(b),
        });
        starts.push(Start {
            schedule: k,
            built: b,
            variant: Variant::plain(b),
        });
    }
    let found = beam::search(&model, &starts, &settings(1, 1, &sizes), &|| false);
    assert_eq!(found.beam.len(), 1);
    let mut least = f64::INFINITY;
    for s in &starts {
        let b = s.built;
        let Some(j) = (0..b.bands.len()).max_by(|&x, &y| {
            (model.band_work(b, x).total_cmp(&model.band_work(b, y)))
                .then(b.bands[x].len.cmp(&b.bands[y].len))
                .then(y.cmp(&x))
        }) else {
            continue;
        };
        for (o, _) in model.band_orders(b, &s.variant, j) {
            for t in [0, 16, 64] {
                let mut v = s.variant.clone();
                (v.order[j], v.tile[j]) = (o.clone(), t);
                if t == 0 || b.bands[j].len >= 2 {
                    least = least.min(model.estimate(b, &v));
                }
            }
        }
    }
    assert!(
        found.beam[0].estimate <= least,
        "{} > {least}",
        found.beam[0].estimate
    );
}

/// A sweep down the rows: `A[i][j]` reads the row above, so `i` carries a dependence and
/// `j` does not.
const ROWS: &str = "void k(int n, double A[n][n]) {\n  int i, j;\n#pragma scop\n  \
    for (i = 1; i < n; i++)\n    for (j = 0; j < n; j++)\n      \
    A[i][j] = A[i - 1][j] * 0.5;\n#pragma endscop\n}\n";

/// The model proposes a band's outermost loop for the threads only where it carries no
/// dependence: the rows' sweep in its own order (`i` outermost) is not parallel, with `j`
/// outermost it is; the product's `i` is.
#[test]
fn the_outermost_loop_is_parallel_only_where_it_carries_nothing() {
    let (_, model, built) = kernel("rows", "rows", ROWS);
    let b = &built[0];
    let j = (0..b.bands.len())
        .find(|&j| b.bands[j].len == 2)
        .expect("a band of two loops");
    let mut v = Variant::plain(b);
    let mut parallel = 0;
    for order in [vec![0, 1], vec![1, 0]] {
        // The outermost loop's hyperplane, and whether it moves `i`.
        let outer = &b.rows[0][b.bands[j].start + order[0]];
        let moves_i = !outer[0].is_zero();
        v.order[j] = order;
        assert_eq!(model.parallel_band(b, &v, j), !moves_i, "{outer:?}");
        parallel += usize::from(!moves_i);
    }
    assert_eq!(parallel, 1);
    let (_, model, built) = kernel("rows-product", "matmul", MATMUL);
    assert!(model.parallel_band(&built[0], &Variant::plain(&built[0]), 0));
}

/// For several threads the beam composes `parallel` marks: the product's cheapest
/// composition runs its outermost loop on the threads, estimated below the same without
/// the mark, and every marked band's loop is one the model finds parallel. On one thread
/// no composition has a mark.
#[test]
fn on_threads_the_beam_marks_parallel_loops() {
    let (_, model, built) = kernel("threads", "rows", ROWS);
    let b = &built[0];
    let sizes = [32];
    let start = |m: &CostModel| Start {
        schedule: 0,
        built: b,
        variant: m.best_orders(b),
    };
    let one = beam::search(&model, &[start(&model)], &settings(8, 8, &sizes), &|| false);
    assert!(one.beam.iter().all(|c| !c.variant.parallel.contains(&true)));
    let four = model.clone().with_threads(4);
    let found = beam::search(&four, &[start(&four)], &settings(8, 8, &sizes), &|| false);
    let first = &found.beam[0];
    assert!(
        first.variant.parallel.contains(&true),
        "{:?}",
        first.variant
    );
    for c in &found.beam {
        for (j, &p) in c.variant.parallel.iter().enumerate() {
            assert!(
                !p || four.parallel_band(b, &c.variant, j),
                "{:?}",
                c.variant
            );
        }
    }
    let mut plain = first.variant.clone();
    plain.parallel = vec![false; plain.parallel.len()];
    assert!(first.estimate < four.estimate(b, &plain));
}
