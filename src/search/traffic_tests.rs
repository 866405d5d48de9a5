//! The traffic estimate against counts done by hand on small nests.

use super::traffic::{
    lines, loops, misses, program, shared_misses, statement, Caches, Loop, Placed, Weights,
};

fn unit(n: usize, k: usize) -> Vec<i64> {
    (0..n).map(|c| i64::from(c == k)).collect()
}

/// `C[i][j]`, `A[i][k]`, `B[k][j]` over the iterators `(i, k, j)`.
fn gemm() -> Vec<Vec<Vec<i64>>> {
    vec![
        vec![unit(3, 0), unit(3, 2)],
        vec![unit(3, 0), unit(3, 1)],
        vec![unit(3, 1), unit(3, 2)],
    ]
}

/// Lines of one access: along its contiguous loop eight doubles share a line; along any
/// other loop each step is a new line; a loop it does not move in adds nothing.
#[test]
fn lines_of_an_access() {
    let l = |k: usize, trip: f64| Loop {
        dir: unit(3, k),
        trip,
    };
    let [c, a, b] = <[Vec<Vec<i64>>; 3]>::try_from(gemm()).unwrap();
    // Over the j loop of 100: C and B walk a row (13 lines), A stays (1 line).
    assert_eq!(lines(&c, &[l(2, 100.0)]), 13.0);
    assert_eq!(lines(&a, &[l(2, 100.0)]), 1.0);
    // Over k then j: B touches 50 rows of 13 lines; C stays in its row.
    assert_eq!(lines(&b, &[l(1, 50.0), l(2, 100.0)]), 650.0);
    assert_eq!(lines(&c, &[l(1, 50.0), l(2, 100.0)]), 13.0);
    // Along the first subscript only (a column): a line per element.
    assert_eq!(lines(&b, &[l(1, 50.0)]), 50.0);
    // The order does not matter: j outside k touches the same 650 lines of B.
    assert_eq!(lines(&b, &[l(2, 100.0), l(1, 50.0)]), 650.0);
}

/// Misses: a loop reuses its lines when its body's footprint fits; the outermost such
/// loop's footprint is missed once per iteration outside it.
#[test]
fn misses_where_the_body_fits() {
    let nest = loops(
        &[unit(3, 0), unit(3, 1), unit(3, 2)],
        &[64.0, 64.0, 64.0],
        &[],
    );
    // Footprints: the j loop's body 3 lines (one per access), the k loop's body (the j
    // loop) C 8, A 1, B 8 = 17; the i loop's body (k, j) C 8, A 8, B 512 = 528; the whole
    // nest C 512, A 512, B 512 = 1536.
    // With 10 lines only the j loop reuses: 64 * 64 iterations outside, 17 lines each.
    assert_eq!(misses(&gemm(), &nest, 10.0), 64.0 * 64.0 * 17.0);
    // With 100 lines the k loop reuses too (C's row survives each k): 528 lines per i.
    assert_eq!(misses(&gemm(), &nest, 100.0), 64.0 * 528.0);
    // With 600 lines the i loop's body fits: every line once.
    assert_eq!(misses(&gemm(), &nest, 600.0), 1536.0);
    assert_eq!(misses(&gemm(), &nest, 1e9), 1536.0);
}

/// Tiles split a band into tile loops (⌈extent / size⌉) and point loops (the rest of the
/// extent: the work is the same at every size, a partial tile not counted whole), and make the
/// product's traffic fall where the untiled footprint does not fit: at 1000 with a 32 KiB
/// L1 and 1 MiB L2, untiled `i, k, j` misses all of B in L2 for each `i`; tiles of 32 keep
/// blocks of B in L2 across `i`.
#[test]
fn tiles_cut_the_traffic() {
    let dirs = [unit(3, 0), unit(3, 1), unit(3, 2)];
    let tiled = loops(&dirs, &[1000.0, 1000.0, 1000.0], &[(0..3, 32)]);
    let trips: Vec<f64> = tiled.iter().map(|l| l.trip).collect();
    assert_eq!(trips, [32.0, 32.0, 32.0, 31.25, 31.25, 31.25]);
    for size in [24, 40, 48, 64, 1000, 2000] {
        let work: f64 = loops(&dirs, &[1000.0; 3], &[(0..3, size)])
            .iter()
            .map(|l| l.trip)
            .product();
        assert!((work - 1e9).abs() < 1.0, "{size}: {work}");
    }
    assert_eq!(tiled[3].dir, unit(3, 0));
    let plain = loops(&dirs, &[1000.0, 1000.0, 1000.0], &[]);
    let caches = Caches {
        l1: 512.0,
        l2: 16384.0,
        l3: 524288.0,
        lanes: 8.0,
    };
    let w = Weights::default();
    let (t, p) = (
        statement(&gemm(), &tiled, &caches, true).weighed(&w),
        statement(&gemm(), &plain, &caches, true).weighed(&w),
    );
    assert!(t * 1.5 < p, "tiled {t}, plain {p}");
    // The order with the reduction innermost (B walked down a column) costs more than
    // i, k, j untiled.
    let ijk = loops(&[unit(3, 0), unit(3, 2), unit(3, 1)], &[1000.0; 3], &[]);
    assert!(statement(&gemm(), &ijk, &caches, true).weighed(&w) > p);
    // Its parts: the same iterations, the innermost loop started as often, more lines.
    let (a, b) = (
        statement(&gemm(), &ijk, &caches, false),
        statement(&gemm(), &plain, &caches, true),
    );
    assert_eq!(a.iterations, 1e9);
    assert_eq!(b.iterations, 1e9 / 8.0);
    assert_eq!(a.starts, b.starts);
    assert!(a.from_l2 > b.from_l2, "{a:?} {b:?}");
}

/// Loops that move an access along dependent directions: the elements are those of the
/// image of their box, not the product of their trips. `A[i + j]` over `i` and `j` of 100
/// each touches 199 elements (the volume 200, in 25 lines); a skewed tile of jacobi-2d
/// (`t` moving `A[i][j]` by `(-2, -2)`, 32 steps each way) touches about 64 rows of 96
/// elements (the volume 5120), not 32³; a tile loop and its point loop stay one loop.
#[test]
fn lines_of_dependent_directions() {
    let diag = vec![vec![1, 1]];
    let l = |dir: Vec<i64>, trip: f64| Loop { dir, trip };
    assert_eq!(
        lines(&diag, &[l(vec![1, 0], 100.0), l(vec![0, 1], 100.0)]),
        25.0
    );
    let a = vec![vec![-2, 1, 0], vec![-2, 0, 1]];
    let tile = [
        l(vec![1, 0, 0], 32.0),
        l(vec![0, 1, 0], 32.0),
        l(vec![0, 0, 1], 32.0),
    ];
    // Volume 2048 + 2048 + 1024 = 5120 elements; 96 along the last dimension in 12 lines.
    assert_eq!(lines(&a, &tile), 5120.0 / 96.0 * 12.0);
    // Tiled i of a row-major walk: tile loop and point loop together are the rows.
    let b = vec![vec![1, 0], vec![0, 1]];
    let tiled = [
        l(vec![1, 0], 4.0),
        l(vec![0, 1], 1.0),
        l(vec![1, 0], 25.0),
        l(vec![0, 1], 100.0),
    ];
    assert_eq!(lines(&b, &tiled), 100.0 * 13.0);
}

/// Statements that share a loop share the cache inside it: the second reads the row of `p`
/// the first wrote while it is still there. `p[i][j]` written over `i, j` of 64 each and read
/// by a second statement: fused at `i`, a cache of 20 lines holds each row (8 lines) from
/// one statement to the next, and `p` is missed once (512 lines); distributed, each nest
/// misses all of it. Where everything fits, both miss it once. Another array, or the same
/// array walked another way along the loop they share (`p[j][i]`), is not the same data.
#[test]
fn fused_statements_share_their_footprints() {
    let nest = loops(&[unit(2, 0), unit(2, 1)], &[64.0, 64.0], &[]);
    let at = |array: usize, sub: Vec<Vec<i64>>| Placed {
        accesses: vec![(array, sub)],
        loops: nest.clone(),
        parallel: None,
    };
    let row = vec![unit(2, 0), unit(2, 1)];
    let column = vec![unit(2, 1), unit(2, 0)];
    let pair = [at(0, row.clone()), at(0, row.clone())];
    assert_eq!(shared_misses(&pair, &[1, 0], 20.0), 512.0);
    assert_eq!(shared_misses(&pair, &[0, 0], 20.0), 1024.0);
    assert_eq!(shared_misses(&pair, &[2, 0], 20.0), 512.0);
    assert_eq!(shared_misses(&pair, &[0, 0], 600.0), 512.0);
    // One statement alone is what the single-statement estimate counts.
    assert_eq!(
        shared_misses(&pair[..1], &[0], 20.0),
        misses(std::slice::from_ref(&row), &nest, 20.0)
    );
    let other = [at(0, row.clone()), at(1, row.clone())];
    assert_eq!(shared_misses(&other, &[1, 0], 20.0), 1024.0);
    let across = [at(0, row.clone()), at(0, column)];
    assert!(shared_misses(&across, &[1, 0], 20.0) > 1024.0);
}

/// Two recurrences sharing their innermost loop (adi's `p` and `q`) overlap their chains:
/// their iterations count as one's. Split, each waits on its own chain. Statements that
/// vectorize count their vectors' worth each, shared loop or not.
#[test]
fn chains_in_one_loop_overlap() {
    let nest = loops(&[unit(2, 0), unit(2, 1)], &[64.0, 64.0], &[]);
    let at = |array: usize| Placed {
        accesses: vec![(array, vec![unit(2, 0), unit(2, 1)])],
        loops: nest.clone(),
        parallel: None,
    };
    let caches = Caches::default();
    let pair = [at(0), at(1)];
    let fused = program(&pair, &[2, 0], &caches, &[false, false]);
    let split = program(&pair, &[1, 0], &caches, &[false, false]);
    assert_eq!(fused.iterations, 4096.0);
    assert_eq!(split.iterations, 8192.0);
    assert_eq!(fused.starts, split.starts);
    let vectors = program(&pair, &[2, 0], &caches, &[true, true]);
    assert_eq!(vectors.iterations, 2.0 * 4096.0 / caches.lanes);
    let one_chain = program(&pair, &[2, 0], &caches, &[false, true]);
    assert_eq!(one_chain.iterations, 4096.0 + 4096.0 / caches.lanes);
}

/// A loop on the threads: each of 4 threads runs a quarter of its iterations and misses a
/// quarter of its lines in its own caches, but memory serves all of them; entering it
/// inside a sequential loop of 64 makes 64 meetings of the threads, outermost one.
#[test]
fn a_loop_on_the_threads_shares_its_work() {
    let nest = loops(&[unit(2, 0), unit(2, 1)], &[64.0, 64.0], &[]);
    let at = |parallel: Option<(usize, f64)>| Placed {
        accesses: vec![(0, vec![unit(2, 0), unit(2, 1)])],
        loops: nest.clone(),
        parallel,
    };
    let caches = Caches {
        l1: 4.0,
        l2: 16.0,
        l3: 1e6,
        lanes: 1.0,
    };
    let one = program(&[at(None)], &[0], &caches, &[true]);
    let outer = program(&[at(Some((0, 4.0)))], &[0], &caches, &[true]);
    assert_eq!(outer.iterations, one.iterations / 4.0);
    assert_eq!(outer.from_l2, one.from_l2 / 4.0);
    assert_eq!(outer.from_l3, one.from_l3 / 4.0);
    assert_eq!(outer.from_memory, one.from_memory);
    assert_eq!((one.syncs, outer.syncs), (0.0, 1.0));
    let inner = program(&[at(Some((1, 4.0)))], &[0], &caches, &[true]);
    assert_eq!(inner.syncs, 64.0);
    // Two statements sharing the loop meet once per entry.
    let both = program(
        &[at(Some((1, 4.0))), at(Some((1, 4.0)))],
        &[2, 0],
        &caches,
        &[true, true],
    );
    assert_eq!(both.syncs, 64.0);
}
