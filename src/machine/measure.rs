//! Micro-benchmarks of the vector multiply-add and of vector loads (`loopy machine
//! --measure`), for a processor the table of known ones does not list.
//!
//! One small C program, built with the toolchain's compiler and flags (so with the vector
//! width the code generator uses), times four loops and prints nanoseconds per operation,
//! each the best of many short runs (the least disturbed by other work on the machine):
//! - a chain of dependent integer additions, one cycle each on every processor loopy meets:
//!   the length of a cycle, without reading any frequency;
//! - a chain of dependent vector multiply-adds: their latency, in those cycles;
//! - as many independent chains as the registers hold: multiply-adds per cycle;
//! - independent vector loads from a buffer in the L1 cache, each combined into one of as
//!   many accumulators: loads per cycle.
//!
//! An empty `asm` statement after each addition keeps the compiler from summing the chain in
//! closed form; the floating-point chains need none, as the compiler may not reassociate
//! them. The program is built with `-ffp-contract=fast` added so that `a * b + c` is one
//! multiply-add whatever the flags say of contraction.

use super::isa::Pipeline;
use crate::diag::{codes, Diagnostic, Report};
use crate::native::{run::run_with_env, Toolchain, WorkDir};

/// Operations in each timed loop of the program: a fraction of a millisecond, shorter than
/// the time a busy machine's scheduler gives a process, so that some runs are undisturbed.
const OPS: u64 = 1 << 16;
/// Times each loop runs; the best is kept.
const RUNS: u32 = 200;

/// What the micro-benchmarks found: nanoseconds per operation, and the numbers of the
/// register-block model derived from them.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// One dependent integer addition: one cycle.
    pub cycle_ns: f64,
    /// One multiply-add of a dependent chain.
    pub fma_chain_ns: f64,
    /// One multiply-add among `chains` independent chains.
    pub fma_independent_ns: f64,
    /// One load among `chains` independent accumulators.
    pub load_ns: f64,
    /// Independent chains (and load accumulators) used.
    pub chains: u32,
    /// The vector width timed, in bytes (8: one double, scalar code).
    pub vector_bytes: u32,
}

impl Measurement {
    /// The multiply-add's latency in cycles (unrounded).
    pub fn fma_latency(&self) -> f64 {
        self.fma_chain_ns / self.cycle_ns
    }

    /// Multiply-adds per cycle (unrounded).
    pub fn fma_per_cycle(&self) -> f64 {
        self.cycle_ns / self.fma_independent_ns
    }

    /// Loads per cycle (unrounded).
    pub fn loads_per_cycle(&self) -> f64 {
        self.cycle_ns / self.load_ns
    }

    /// The model's pipeline numbers: each rounded to the nearest whole number, at least 1.
    pub fn pipeline(&self) -> Pipeline {
        let whole = |x: f64| {
            if x.is_finite() {
                x.round().clamp(1.0, 1000.0) as u32
            } else {
                1
            }
        };
        Pipeline {
            fma_latency: whole(self.fma_latency()),
            fma_per_cycle: whole(self.fma_per_cycle()),
            loads_per_cycle: whole(self.loads_per_cycle()),
        }
    }

    /// The processor's clock while the chains ran, in GHz.
    pub fn ghz(&self) -> f64 {
        1.0 / self.cycle_ns
    }
}

/// Independent chains for a machine with `registers` vector registers (two hold the
/// multiplier and the addend): enough to cover a latency of 4 at 4 per cycle and more,
/// never more than the registers.
pub fn chains(registers: Option<u32>) -> u32 {
    registers.map_or(8, |r| r.saturating_sub(2).clamp(1, 24))
}

/// The C program that times the four loops, for vectors of `vector_bytes` bytes and
/// `chains` independent chains. It prints one line per loop: a name and nanoseconds per
/// operation.
pub fn source(vector_bytes: u32, chains: u32) -> String {
    let k = chains.max(1);
    let vars = |p: &str| (0..k).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let fmas: String = vars("a")
        .iter()
        .map(|a| format!("      {a} = {a} * b + c;\n"))
        .collect();
    let loads: String = vars("x")
        .iter()
        .enumerate()
        .map(|(i, x)| format!("      {x} ^= p[{i}];\n"))
        .collect();
    // Different starting values, or the compiler would merge the chains into one.
    let init_a: String = vars("a")
        .iter()
        .enumerate()
        .map(|(i, a)| format!("  vd {a} = s + {i}.0;\n"))
        .collect();
    let init_x: String = vars("x")
        .iter()
        .enumerate()
        .map(|(i, x)| format!("  vi {x} = t + {i};\n"))
        .collect();
    let sum_a = vars("a").join(" + ");
    let sum_x = vars("x").join(" ^ ");
    format!(
        r#"#include <stdio.h>
#include <time.h>
typedef double vd __attribute__((vector_size({vb})));
typedef long long vi __attribute__((vector_size({vb})));
#define OPS {ops}LL
#define K {k}
static double now(void) {{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}}
static volatile long seed = 3;
static volatile double dseed = 1.0;
static vi buf[16 * K] __attribute__((aligned(64)));
#define STEP(x) x += y; __asm__ volatile("" : "+r"(x));
__attribute__((noinline)) static long adds(long n, long x, long y) {{
  for (long i = 0; i < n; i += 8) {{
    STEP(x) STEP(x) STEP(x) STEP(x) STEP(x) STEP(x) STEP(x) STEP(x)
  }}
  return x;
}}
__attribute__((noinline)) static vd chain(long n, vd a, vd b, vd c) {{
  for (long i = 0; i < n; i += 8) {{
    a = a * b + c; a = a * b + c; a = a * b + c; a = a * b + c;
    a = a * b + c; a = a * b + c; a = a * b + c; a = a * b + c;
  }}
  return a;
}}
__attribute__((noinline)) static vd independent(long n, vd s, vd b, vd c) {{
{init_a}  for (long i = 0; i < n; i += K) {{
{fmas}  }}
  return {sum_a};
}}
__attribute__((noinline)) static vi loads(long n, vi t) {{
{init_x}  for (long i = 0; i < n; i += K) {{
    const vi *p = buf + ((i / K) & 15) * K;
{loads}  }}
  return {sum_x};
}}
static double best(int which) {{
  double least = 1e300;
  for (int r = 0; r < {runs}; r++) {{
    vd one = (vd){{}} + dseed, tiny = (vd){{}} + dseed * 1e-9;
    vi t = (vi){{}} + seed;
    double t0 = now();
    switch (which) {{
    case 0: seed = adds(OPS, seed, seed); break;
    case 1: dseed = chain(OPS, one, one, tiny)[0]; break;
    case 2: dseed = independent(OPS, one, one, tiny)[0]; break;
    default: seed = loads(OPS, t)[0]; break;
    }}
    double t1 = now();
    if (t1 - t0 < least) least = t1 - t0;
  }}
  return least / OPS;
}}
int main(void) {{
  for (int i = 0; i < 16 * K; i++) buf[i] = (vi){{}} + (seed + i);
  best(0);
  printf("add %.6f\n", best(0));
  printf("fma-chain %.6f\n", best(1));
  printf("fma-independent %.6f\n", best(2));
  printf("load %.6f\n", best(3));
  return 0;
}}
"#,
        vb = vector_bytes.max(8),
        ops = OPS,
        runs = RUNS,
    )
}

/// The positive number a micro-benchmark printed after `name` on a line of its own.
pub(super) fn number(stdout: &str, name: &str) -> Result<f64, String> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .ok_or_else(|| format!("the micro-benchmark printed no `{name}` line"))?;
    let v: f64 = (line.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("the micro-benchmark's `{name}` line has no number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!(
            "the micro-benchmark's `{name}` time is not positive"
        ))
    }
}

/// Reads the program's output.
pub fn parse(stdout: &str, chains: u32, vector_bytes: u32) -> Result<Measurement, String> {
    let get = |name: &str| number(stdout, name);
    Ok(Measurement {
        cycle_ns: get("add")?,
        fma_chain_ns: get("fma-chain")?,
        fma_independent_ns: get("fma-independent")?,
        load_ns: get("load")?,
        chains,
        vector_bytes: vector_bytes.max(8),
    })
}

/// Builds and runs the micro-benchmarks with `toolchain` (its compiler and flags, plus
/// `-ffp-contract=fast`) for vectors of `vector_bytes` bytes (`None`: scalar code) and a
/// machine with `registers` vector registers.
pub fn measure(
    toolchain: &Toolchain,
    vector_bytes: Option<u32>,
    registers: Option<u32>,
) -> Result<Measurement, Report> {
    let (vb, k) = (vector_bytes.unwrap_or(8), chains(registers));
    let stdout = build_and_run(toolchain, "measure", &source(vb, k))?;
    parse(&stdout, k, vb).map_err(unreadable)
}

/// The report of a micro-benchmark whose output cannot be read.
pub(super) fn unreadable(e: String) -> Report {
    report(Diagnostic::new(
        codes::TIMING_FAILED,
        format!("cannot read the micro-benchmark's output: {e}"),
    ))
}

fn report(d: Diagnostic) -> Report {
    Report {
        diagnostic: d,
        sources: vec![],
    }
}

/// Builds the C program `text` (as `NAME.c`, in a directory of its own) with `toolchain`'s
/// compiler and flags plus `-ffp-contract=fast`, runs it, and returns what it printed.
pub(super) fn build_and_run(
    toolchain: &Toolchain,
    name: &str,
    text: &str,
) -> Result<String, Report> {
    let dir = WorkDir::new(None).map_err(|e| {
        report(Diagnostic::new(
            codes::CANNOT_WRITE,
            format!("cannot create a directory for the micro-benchmark: {e}"),
        ))
    })?;
    let src = dir.join(&format!("{name}.c"));
    std::fs::write(&src, text).map_err(|e| {
        report(Diagnostic::new(
            codes::CANNOT_WRITE,
            format!("cannot write `{}`: {e}", src.display()),
        ))
    })?;
    let mut tc = toolchain.clone();
    tc.cflags.push("-ffp-contract=fast".into());
    let exe = dir.join(name);
    tc.compile(&src, &[], &[], &exe)?;
    let out = run_with_env(&exe, &[])?;
    if !out.success() {
        return Err(report(Diagnostic::new(
            codes::RUN_FAILED,
            format!("the micro-benchmark failed ({})", out.status),
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_from_the_output() {
        let m = parse(
            "add 0.250000\nfma-chain 1.010000\nfma-independent 0.252000\nload 0.126000\n",
            24,
            64,
        )
        .unwrap();
        assert_eq!(
            m.pipeline(),
            Pipeline {
                fma_latency: 4,
                fma_per_cycle: 1,
                loads_per_cycle: 2
            }
        );
        assert!((m.ghz() - 4.0).abs() < 1e-9);
        assert!(parse("add 0.25\nfma-chain 1\n", 24, 64)
            .unwrap_err()
            .contains("`fma-independent`"));
        assert!(
            parse("add 0\nfma-chain 1\nfma-independent 1\nload 1\n", 8, 8)
                .unwrap_err()
                .contains("not positive")
        );
    }

    #[test]
    fn chains_fit_the_registers() {
        assert_eq!(chains(Some(32)), 24);
        assert_eq!(chains(Some(16)), 14);
        assert_eq!(chains(Some(2)), 1);
        assert_eq!(chains(None), 8);
        let s = source(32, 14);
        assert!(s.contains("vector_size(32)") && s.contains("a13 = a13 * b + c;"));
        assert!(!s.contains("a14"));
    }

    #[test]
    fn the_micro_benchmark_runs() {
        // The numbers depend on the machine and its load; only their plausibility is
        // checked: a multiply-add takes at least a cycle and at most a few dozen.
        let tc = Toolchain {
            cflags: vec!["-O2".into()],
            ..Toolchain::default()
        };
        let m = measure(&tc, None, Some(16)).unwrap();
        let p = m.pipeline();
        assert!((1..=64).contains(&p.fma_latency), "{m:?}");
        assert!((1..=16).contains(&p.fma_per_cycle), "{m:?}");
        assert!((1..=16).contains(&p.loads_per_cycle), "{m:?}");
    }
}
