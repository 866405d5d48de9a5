//! Emptiness tests on dependence-shaped problems: two 3-deep nests, equal subscripts, one
//! lexicographic-order disjunct each. Prints the median time per test.
//!
//! Run with `cargo bench --bench emptiness`.

use loopy::presburger::{parse_set, Set};
use std::time::{Duration, Instant};

/// (name, set, expected emptiness)
const PROBLEMS: &[(&str, &str, bool)] = &[
    (
        "matmul flow C[i][j], carried at depth 3",
        "[N] -> { [i, j, k, i2, j2, k2] : 0 <= i, j, k, i2, j2, k2 < N and i2 = i and j2 = j and k < k2 }",
        false,
    ),
    (
        "matmul flow C[i][j], depth 1 (none)",
        "[N] -> { [i, j, k, i2, j2, k2] : 0 <= i, j, k, i2, j2, k2 < N and i2 = i and j2 = j and i < i2 }",
        true,
    ),
    (
        "interchange j,k violates? (no: C deps kept)",
        "[N] -> { [i, j, k, i2, j2, k2] : 0 <= i, j, k, i2, j2, k2 < N and i2 = i and j2 = j and k < k2 and k2 <= k }",
        true,
    ),
    (
        "seidel-like A[i-1][j] vs A[i][j+1], skewed schedule reversed",
        "[T, N] -> { [t, i, j, t2, i2, j2] : 0 <= t, t2 < T and 1 <= i, j, i2, j2 <= N - 2 and i2 = i - 1 and j2 = j + 1 and t = t2 and i + t >= i2 + t2 + 1 }",
        false,
    ),
    (
        "tiled, floor without mod: 32i1 <= i < 32i1 + 32 collisions",
        "[N] -> { [i, j, k, i2, j2, k2] : 0 <= i, j, k, i2, j2, k2 < N and exists (a, b : 32a <= i <= 32a + 31 and 32b <= i2 <= 32b + 31 and a = b and j = j2 and k = k2 and i < i2) }",
        false,
    ),
    (
        "non-unit coefficients: 2i + 3j = 2i2 + 3j2, 0 <= j, j2 <= 1, distinct",
        "{ [i, j, i2, j2] : 0 <= j, j2 <= 1 and 2i + 3j = 2i2 + 3j2 and i < i2 }",
        true,
    ),
    (
        "Pugh's dark-shadow example (empty)",
        "{ [x, y] : 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 }",
        true,
    ),
];

fn main() {
    println!("{:<66} {:>6} {:>12}", "problem", "empty", "median/test");
    let mut all = vec![];
    for (name, text, expect) in PROBLEMS {
        let set: Set = parse_set(text, &[]).expect("benchmark set parses");
        assert_eq!(set.is_empty(), *expect, "{name}");
        let parts = set.parts().to_vec();
        // Calibrate: enough iterations for ~20 ms per sample.
        let mut iters = 1u32;
        loop {
            let t = Instant::now();
            for _ in 0..iters {
                for b in &parts {
                    std::hint::black_box(b.is_empty());
                }
            }
            if t.elapsed() > Duration::from_millis(20) || iters > 1 << 20 {
                break;
            }
            iters *= 2;
        }
        let mut samples = vec![];
        for _ in 0..15 {
            let t = Instant::now();
            for _ in 0..iters {
                for b in &parts {
                    std::hint::black_box(b.is_empty());
                }
            }
            samples.push(t.elapsed() / (iters * parts.len() as u32));
        }
        samples.sort();
        let med = samples[samples.len() / 2];
        all.push(med);
        println!(
            "{:<66} {:>6} {:>9.1} µs",
            name,
            expect,
            med.as_secs_f64() * 1e6
        );
    }
    all.sort();
    println!(
        "median over problems: {:.1} µs",
        all[all.len() / 2].as_secs_f64() * 1e6
    );
}
