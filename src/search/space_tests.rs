//! The Farkas space of legal one-dimensional schedules against brute force: on small
//! kernels, every integer schedule in a small coefficient box is legal (every dependent
//! pair of instances, enumerated at small parameter values, is kept in order) iff it lies in
//! the space; strong satisfaction, levels and permutability likewise.

use crate::driver::Kernel;
use crate::frontend::Options;
use crate::presburger::{Int, Set, Space, Tuple};
use crate::search::Legal;
use crate::testing;
use crate::verify::{dependences, Program};

/// Dependent pairs `(source, sink, source iterators, sink iterators, params)` of each edge at
/// every parameter value in `values`.
type Pair = (Vec<i64>, Vec<i64>, Vec<i64>);

fn pairs(legal: &Legal, values: &[Vec<i64>]) -> Vec<Vec<Pair>> {
    let l = &legal.layout;
    legal
        .edges
        .iter()
        .map(|e| {
            let (ni, nj) = (l.iters[e.source], l.iters[e.sink]);
            let mut out = vec![];
            for ps in values {
                let mut b = e.poly.clone();
                for (q, v) in ps.iter().enumerate() {
                    b.fix_col(1 + q, &Int::from(*v));
                }
                let space = Space::set(
                    &l.params.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                    Tuple::anonymous(ni + nj, "x"),
                );
                let set = Set::from_basic(space, b);
                for pt in set.points(1_000_000).expect("bounded") {
                    let pt: Vec<i64> = pt.iter().map(|v| v.to_i64().unwrap()).collect();
                    out.push((pt[..ni].to_vec(), pt[ni..].to_vec(), ps.clone()));
                }
            }
            assert!(!out.is_empty(), "no pairs for an edge");
            out
        })
        .collect()
}

fn kernel(name: &str, text: &str) -> Kernel {
    let d = testing::scratch("search-space", name);
    let f = d.join(format!("{name}.c"));
    std::fs::write(&f, text).unwrap();
    Kernel::load(&f, &Options::default()).unwrap()
}

/// Every coefficient vector with entries in `range` at the positions `free` (others 0).
fn boxed(len: usize, free: &[usize], range: std::ops::RangeInclusive<i64>) -> Vec<Vec<i64>> {
    let mut out = vec![vec![0i64; len]];
    for &f in free {
        let mut next = vec![];
        for v in &out {
            for x in range.clone() {
                let mut w = v.clone();
                w[f] = x;
                next.push(w);
            }
        }
        out = next;
    }
    out
}

fn ints(v: &[i64]) -> Vec<Int> {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// Brute force and the space agree on every schedule of the box, weakly and strongly.
fn agree(legal: &Legal, values: &[Vec<i64>], schedules: &[Vec<i64>]) -> (usize, usize) {
    let l = &legal.layout;
    let pairs = pairs(legal, values);
    let all: Vec<usize> = (0..legal.edges.len()).collect();
    let weak = legal.space(&all, &[]);
    let strong = legal.space(&[], &all);
    let (mut n_weak, mut n_strong) = (0, 0);
    for c in schedules {
        let mut min = i64::MAX;
        for (e, ps) in legal.edges.iter().zip(&pairs) {
            for (i, j, p) in ps {
                let d = l.eval(c, e.sink, j, p) - l.eval(c, e.source, i, p);
                min = min.min(d);
            }
        }
        let cc = ints(c);
        assert_eq!(weak.contains(&cc), min >= 0, "weak, schedule {c:?}");
        assert_eq!(strong.contains(&cc), min >= 1, "strong, schedule {c:?}");
        // The exact per-edge test agrees too.
        let exact = legal.edges.iter().all(|e| e.satisfied(l, &cc, 0));
        assert_eq!(exact, min >= 0, "exact test, schedule {c:?}");
        n_weak += usize::from(min >= 0);
        n_strong += usize::from(min >= 1);
    }
    (n_weak, n_strong)
}

const SEIDEL: &str = "
void seidel(int T, int N, double A[20][20]) {
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1] + A[i][j-1] + A[i][j]
                   + A[i][j+1] + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
#pragma endscop
}
";

#[test]
fn seidel_space_is_the_legal_hyperplanes() {
    let k = kernel("seidel", SEIDEL);
    let p = Program::from_scop(&k.scop);
    let legal = Legal::new(&p, &dependences(&p));
    let l = &legal.layout;
    let free: Vec<usize> = (0..3).map(|d| l.iter(0, d)).collect();
    let schedules = boxed(l.len, &free, -2..=4);
    let values = vec![vec![2, 4], vec![2, 5]];
    let (weak, strong) = agree(&legal, &values, &schedules);
    // t, t+i, 2t+i+j, ... are legal; i alone is not (the anti dependence on A[i+1][..]).
    assert!(weak > 1 && strong >= 1, "{weak} {strong}");
    // The only strongly legal one in the box: 4t + 2i + j.
    assert!(legal
        .space(
            &(0..0).collect::<Vec<_>>(),
            &(0..legal.edges.len()).collect::<Vec<_>>()
        )
        .contains(&ints(&[4, 2, 1, 0, 0, 0])));
    let t = ints(&[1, 0, 0, 0, 0, 0]);
    let i = ints(&[0, 1, 0, 0, 0, 0]);
    let j_skewed = ints(&[2, 1, 1, 0, 0, 0]);
    assert!(legal.weak_space().contains(&t));
    assert!(!legal.weak_space().contains(&i));
    // Level by level: t carries the dependences between time steps; inside a time step i
    // is legal; (t, 2t+i+j... ) is not a permutable band with i, but (t, t+i, 2t+i+j) is.
    let rest = legal.remaining(std::slice::from_ref(&t)).unwrap();
    assert!(legal.space(&rest, &[]).contains(&i));
    assert!(legal.remaining(std::slice::from_ref(&i)).is_none());
    let ti = ints(&[1, 1, 0, 0, 0, 0]);
    assert!(legal.is_permutable(&[], &[t.clone(), ti, j_skewed]));
    assert!(!legal.is_permutable(&[], &[t, i]));
}

const TWO: &str = "
void two(int N, double A[20], double B[20]) {
  int i;
#pragma scop
  for (i = 1; i < N; i++)
    A[i] = B[i - 1] + 1.0;
  for (i = 0; i < N; i++)
    B[i] = A[N - 1 - i] * 2.0;
#pragma endscop
}
";

#[test]
fn two_statements_with_parameters() {
    let k = kernel("two", TWO);
    let p = Program::from_scop(&k.scop);
    let legal = Legal::new(&p, &dependences(&p));
    let l = &legal.layout;
    assert_eq!(l.len, 6);
    let schedules = boxed(l.len, &(0..6).collect::<Vec<_>>(), -1..=1);
    let values: Vec<Vec<i64>> = (1..=7).map(|n| vec![n]).collect();
    let (weak, strong) = agree(&legal, &values, &schedules);
    assert!(weak > 0 && strong > 0, "{weak} {strong}");
}

#[test]
fn distance_bound() {
    let k = kernel("seidel-bound", SEIDEL);
    let p = Program::from_scop(&k.scop);
    let legal = Legal::new(&p, &dependences(&p));
    let l = &legal.layout;
    let all: Vec<usize> = (0..legal.edges.len()).collect();
    // [coefficients | u_T u_N | w]: dependences are memory-based, so the hyperplane t
    // has distances up to T − 1 (a value written at t is overwritten at every later step).
    let b = legal.bound_space(&all);
    let mut pt = ints(&[1, 0, 0, 0, 0, 0]);
    pt.extend(ints(&[1, 0, -1]));
    assert!(b.contains(&pt));
    pt[l.len + 2] = Int::from(-2);
    assert!(!b.contains(&pt));
    pt[l.len] = Int::from(0);
    pt[l.len + 2] = Int::from(100);
    assert!(!b.contains(&pt));
}

/// On every example, the original outermost schedule dimension (each statement's top-level
/// position, a constant) is in the weak space and the exact test agrees; the space is built
/// in reasonable time (printed, not asserted).
#[test]
fn examples_original_outer_dimension_is_legal() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for name in testing::examples() {
        let k = Kernel::load(
            &root.join(&name).join(format!("{name}.c")),
            &Options::default(),
        )
        .unwrap();
        let p = Program::from_scop(&k.scop);
        let deps = dependences(&p);
        let start = std::time::Instant::now();
        let legal = Legal::new(&p, &deps);
        let built = start.elapsed();
        let l = &legal.layout;
        let mut c = vec![Int::from(0); l.len];
        for (s, st) in k.scop.statements.iter().enumerate() {
            c[l.constant(s)] = st.schedule.positions[0].clone();
        }
        assert!(legal.weak_space().contains(&c), "{name}");
        assert!(
            legal.edges.iter().all(|e| e.satisfied(l, &c, 0)),
            "{name}: exact test"
        );
        eprintln!(
            "{name}: {} edges, {} coefficients, space built in {:.1?}",
            legal.edges.len(),
            l.len,
            built
        );
    }
}

/// §4.1 on seidel-2d: the shortest legal hyperplane is `t`, with distances up to `T − 1`.
#[test]
fn shortest_hyperplane() {
    let k = kernel("seidel-shortest", SEIDEL);
    let p = Program::from_scop(&k.scop);
    let legal = Legal::new(&p, &dependences(&p));
    let all: Vec<usize> = (0..legal.edges.len()).collect();
    let (c, u, w) = legal.shortest(&all).unwrap();
    assert_eq!(c, ints(&[1, 0, 0, 0, 0, 0]));
    assert_eq!((u, w), (ints(&[1, 0]), Int::from(-1)));
    // Inside a time step (edges not strongly satisfied by t), `t` itself has distance 0:
    // independence from earlier dimensions is the caller's business.
    let rest = legal.remaining(std::slice::from_ref(&c)).unwrap();
    assert!(rest.len() < all.len());
    let (c2, u2, w2) = legal.shortest(&rest).unwrap();
    assert_eq!(c2, c);
    assert_eq!((u2, w2), (ints(&[0, 0]), Int::from(0)));
}

/// A kernel whose second nest runs its inner loop downwards (`j--`: iteration dimension
/// `−j`), reading the first nest's results.
const DOWN: &str = "
void down(int N, double A[20][20], double B[20][20]) {
  int i, j;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 1; j < N; j++)
      A[i][j] = A[i][j-1] + A[i-1][j];
  for (i = 0; i < N; i++)
    for (j = N - 2; j >= 0; j--)
      B[i][j] = B[i][j+1] + A[i][j+1];
#pragma endscop
}
";

/// Coefficients are over the original schedule's iteration dimensions: for the downward
/// loop, coefficient `h` multiplies `−j`. Every schedule of a box in these coordinates is
/// legal (each dependent pair, enumerated at small `N`, stays in order — evaluated here with
/// `−j` written out, not through the layout) iff it lies in the space, weakly and strongly;
/// the exact per-edge test agrees; and the kernel's own order, all coefficients
/// non-negative, is legal level by level.
#[test]
fn downward_loop_in_original_coordinates() {
    let k = kernel("down", DOWN);
    let p = Program::from_scop(&k.scop);
    let legal = Legal::new(&p, &dependences(&p));
    let l = &legal.layout;
    assert_eq!(l.dirs, vec![vec![1, 1], vec![1, -1]]);
    // [S0: i j N 1 | S1: i y N 1] with y = −j.
    let free: Vec<usize> = (0..2)
        .flat_map(|s| [l.iter(s, 0), l.iter(s, 1), l.constant(s)])
        .collect();
    let schedules = boxed(l.len, &free, -1..=1);
    let values: Vec<Vec<i64>> = (1..=7).map(|n| vec![n]).collect();
    let pairs = pairs(&legal, &values);
    let theta = |c: &[i64], s: usize, x: &[i64], n: i64| -> i64 {
        let o = l.offset[s];
        let y1 = if s == 1 { -x[1] } else { x[1] };
        c[o] * x[0] + c[o + 1] * y1 + c[o + 2] * n + c[o + 3]
    };
    let all: Vec<usize> = (0..legal.edges.len()).collect();
    let weak = legal.space(&all, &[]);
    let strong = legal.space(&[], &all);
    let (mut n_weak, mut n_strong, mut n_nonneg) = (0, 0, 0);
    for c in &schedules {
        let mut min = i64::MAX;
        for (e, ps) in legal.edges.iter().zip(&pairs) {
            for (i, j, n) in ps {
                min = min.min(theta(c, e.sink, j, n[0]) - theta(c, e.source, i, n[0]));
            }
        }
        let cc = ints(c);
        assert_eq!(weak.contains(&cc), min >= 0, "weak, schedule {c:?}");
        assert_eq!(strong.contains(&cc), min >= 1, "strong, schedule {c:?}");
        let exact = legal.edges.iter().all(|e| e.satisfied(l, &cc, 0));
        assert_eq!(exact, min >= 0, "exact test, schedule {c:?}");
        n_weak += usize::from(min >= 0);
        n_strong += usize::from(min >= 1);
        n_nonneg += usize::from(min >= 0 && c.iter().all(|&x| x >= 0));
    }
    // No schedule of the box satisfies every edge strongly (S0 -> S1 needs distances
    // growing with j), but some do weakly, non-negative ones among them.
    assert!(n_weak > 0 && n_nonneg > 0, "{n_weak} {n_nonneg}");
    assert_eq!(n_strong, 0);
    // With non-negative coefficients over the iterators themselves, S1 could not follow its
    // own dependence B[j+1] -> B[j] at the inner level; over (i, −j) the original order is
    // (p0, i, 0, y, 0): legal level by level, and nothing is left to the textual order.
    let dims = original_dims(&k, &legal);
    let rest = legal
        .remaining(&dims)
        .expect("the original schedule is legal");
    assert!(rest.is_empty(), "{rest:?}");
}

/// The kernel's own schedule `(p0, j1, p1, …)` as one coefficient vector per dimension, in
/// the coordinates of the space (iteration dimension `k` has coefficient 1).
fn original_dims(k: &Kernel, legal: &Legal) -> Vec<Vec<Int>> {
    let l = &legal.layout;
    let m = k
        .scop
        .statements
        .iter()
        .map(|s| s.schedule.positions.len())
        .max()
        .unwrap_or(1);
    let mut dims = vec![];
    for level in 0..m {
        let mut p = vec![Int::from(0); l.len];
        for (s, st) in k.scop.statements.iter().enumerate() {
            if let Some(v) = st.schedule.positions.get(level) {
                p[l.constant(s)] = v.clone();
            }
        }
        dims.push(p);
        if level + 1 < m {
            let mut j = vec![Int::from(0); l.len];
            for s in 0..k.scop.statements.len() {
                if level < l.iters[s] {
                    j[l.iter(s, level)] = Int::from(1);
                }
            }
            dims.push(j);
        }
    }
    dims
}

/// adi (the only example with loops counting down): its own schedule, written with
/// non-negative coefficients over the original iteration dimensions, is legal level by level.
#[test]
fn adi_original_schedule_is_non_negative_and_legal() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/adi/adi.c");
    let k = Kernel::load(&root, &Options::default()).unwrap();
    let p = Program::from_scop(&k.scop);
    let legal = Legal::new(&p, &dependences(&p));
    assert!(legal.layout.dirs.iter().flatten().any(|&d| d == -1));
    let dims = original_dims(&k, &legal);
    assert!(dims.iter().flatten().all(|x| !x.is_negative()));
    let rest = legal
        .remaining(&dims)
        .expect("the original schedule is legal");
    assert!(rest.is_empty(), "{rest:?}");
}
