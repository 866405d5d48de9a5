//! Micro-benchmarks of what a loop nest's parts cost on this machine (`loopy machine
//! --measure`, and the search's cost model when it times candidates): an iteration of a
//! vectorized loop over data in L1, the start of a short innermost loop, and a cache line
//! read from each level of the hierarchy.
//!
//! One small C program, built with the toolchain's compiler and flags (so with the vector
//! width the code generator uses), prints nanoseconds, each the best of many runs:
//! - `element`: one element of `y[i] = a * x[i] + y[i]` over two arrays that together fill
//!   half of L1, in one loop (the compiler vectorizes it);
//! - `start`: what the same work costs more per innermost loop when it runs as loops of 16
//!   iterations (the trip count read from a `volatile`, so that the compiler cannot merge
//!   them);
//! - `line1` … `line4`: one line read from a buffer of half of L1, half of L2, half of L3 and
//!   four times L3, one double per line in address order with eight independent sums (what
//!   the prefetchers make of a walk through an array, not the latency of one miss).
//!
//! A line from L2 costs `line2 − line1` more than one in L1, a line from L3 `line3 − line2`
//! more than one from L2, a line from memory `line4 − line3` more than one from L3: the
//! model counts a line missed by L2 as missed by L1 too.

use super::measure::{build_and_run, number, unreadable};
use crate::diag::Report;
use crate::native::Toolchain;

/// Elements of the iteration loops: timed 64 times over per run.
const PASSES: u32 = 64;
/// Trip count of the short innermost loops.
pub const SHORT: u32 = 16;

/// What the micro-benchmarks found, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Costs {
    /// One element of a vectorized loop over data in L1.
    pub element_ns: f64,
    /// The start of an innermost loop of [`SHORT`] iterations, beyond its elements.
    pub start_ns: f64,
    /// One line read from a buffer of half of L1, L2, L3 and four times L3.
    pub line_ns: [f64; 4],
}

impl Costs {
    /// What a line from L2 costs beyond one from L1, from L3 beyond one from L2, from
    /// memory beyond one from L3 (none below 0).
    pub fn line_steps(&self) -> [f64; 3] {
        let l = &self.line_ns;
        [
            (l[1] - l[0]).max(0.0),
            (l[2] - l[1]).max(0.0),
            (l[3] - l[2]).max(0.0),
        ]
    }
}

/// The C program for caches of `bytes` (L1, L2, L3).
pub fn source(bytes: [u64; 3]) -> String {
    let [l1, l2, l3] = bytes.map(|b| b.max(4096));
    // Two arrays of doubles filling half of L1 together, a multiple of the short loop.
    let n = (l1 / 32 / u64::from(SHORT)).max(1) * u64::from(SHORT);
    format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}}
static volatile long trip;
static volatile double sink;
static double x[{n}] __attribute__((aligned(64))), y[{n}] __attribute__((aligned(64)));
__attribute__((noinline)) static void axpy(long t) {{
  for (int p = 0; p < {passes}; p++)
    for (long o = 0; o < {n}; o += t)
      for (long i = o; i < o + t; i++)
        y[i] = 1.0001 * x[i] + y[i];
}}
static double loops(long t) {{
  double least = 1e300;
  for (int r = 0; r < 400; r++) {{
    double t0 = now();
    axpy(t);
    double t1 = now();
    if (t1 - t0 < least) least = t1 - t0;
  }}
  sink = y[{n} / 2];
  return least / {passes};
}}
static double lines(long bytes, int runs) {{
  long m = bytes / 8 / 64 * 64;
  double *b = malloc(m * sizeof(double));
  if (!b) return -1;
  for (long i = 0; i < m; i++) b[i] = (double)i;
  double least = 1e300;
  for (int r = 0; r < runs; r++) {{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    double t0 = now();
    for (long i = 0; i < m; i += 64) {{
      s0 += b[i]; s1 += b[i + 8]; s2 += b[i + 16]; s3 += b[i + 24];
      s4 += b[i + 32]; s5 += b[i + 40]; s6 += b[i + 48]; s7 += b[i + 56];
    }}
    double t1 = now();
    sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    if (t1 - t0 < least) least = t1 - t0;
  }}
  free(b);
  return least / (m / 8);
}}
int main(void) {{
  for (long i = 0; i < {n}; i++) {{ x[i] = (double)i; y[i] = 1.0; }}
  trip = {n};
  long whole = trip;
  trip = {short};
  long part = trip;
  loops(whole);
  double full = loops(whole), cut = loops(part);
  printf("element %.6f\n", full / {n});
  printf("start %.6f\n", (cut - full) / ({n} / {short}) > 1e-6 ? (cut - full) / ({n} / {short}) : 1e-6);
  printf("line1 %.6f\n", lines({h1}L, 400));
  printf("line2 %.6f\n", lines({h2}L, 100));
  printf("line3 %.6f\n", lines({h3}L, 10));
  printf("line4 %.6f\n", lines({m4}L, 4));
  return 0;
}}
"#,
        passes = PASSES,
        short = SHORT,
        h1 = l1 / 2,
        h2 = l2 / 2,
        h3 = l3 / 2,
        m4 = l3 * 4,
    )
}

/// Reads the program's output.
pub fn parse(stdout: &str) -> Result<Costs, String> {
    let get = |name: &str| number(stdout, name);
    Ok(Costs {
        element_ns: get("element")?,
        start_ns: get("start")?,
        line_ns: [get("line1")?, get("line2")?, get("line3")?, get("line4")?],
    })
}

/// Builds and runs the micro-benchmarks with `toolchain`'s compiler and flags (not its
/// macros, include directories, extra sources or link flags, which are a kernel's) for
/// caches of `bytes` (L1, L2, L3). Takes well under a second beyond the build.
pub fn measure(toolchain: &Toolchain, bytes: [u64; 3]) -> Result<Costs, Report> {
    let tc = Toolchain {
        cc: toolchain.cc.clone(),
        cflags: toolchain.cflags.clone(),
        ..Toolchain::default()
    };
    let stdout = build_and_run(&tc, "costs", &source(bytes))?;
    parse(&stdout).map_err(unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_from_the_output() {
        let out = "element 0.05\nstart 0.4\nline1 0.13\nline2 0.38\nline3 0.66\nline4 1.8\n";
        let c = parse(out).unwrap();
        assert_eq!(c.element_ns, 0.05);
        assert_eq!(c.line_ns, [0.13, 0.38, 0.66, 1.8]);
        let [a, b, m] = c.line_steps();
        assert!((a - 0.25).abs() < 1e-12 && (b - 0.28).abs() < 1e-12 && (m - 1.14).abs() < 1e-12);
        assert!(parse("element 0.05\nstart 0.4\n").is_err());
        assert!(parse("element -1\nstart 0.4\nline1 1\nline2 1\nline3 1\nline4 1\n").is_err());
    }

    /// The program builds and runs with the machine's compiler and prints every number. Their
    /// sizes depend on the machine and its load (a loaded machine can make a line from L2
    /// look as cheap as one from L1), so only that they are positive and finite is checked.
    #[test]
    fn the_micro_benchmark_runs() {
        let tc = Toolchain {
            cflags: vec!["-O2".into()],
            ..Toolchain::default()
        };
        let c = measure(&tc, [32 << 10, 256 << 10, 2 << 20]).unwrap();
        assert!(c.element_ns > 0.0 && c.start_ns > 0.0);
        assert!(c.line_ns.iter().all(|&l| l > 0.0 && l.is_finite()), "{c:?}");
        // A kernel's macros and extra sources are not the micro-benchmark's: a macro that
        // would break its program and a source that does not exist are left out.
        let kernel = Toolchain {
            defines: vec!["x=1".into()],
            extra: vec!["no-such-source.c".into()],
            ..tc
        };
        assert!(measure(&kernel, [32 << 10, 256 << 10, 2 << 20]).is_ok());
    }
}
