//! `loopy equiv`: pairs of small kernels, equivalent and not, decided and then run.
//!
//! Every kernel body is put in one program (arrays `A`, `B`, `C` of 24×24 doubles, `x`
//! and `y` of 24, parameters `n` and `m`, a scalar `alpha`), compiled with the test
//! compiler and run at small sizes printing every element's bits. A pair the command
//! calls equivalent must print the same at every size tried; a pair it calls not
//! equivalent must print differently at some size — at the witness's own parameter
//! values when they are small — and its report must name the parameters and an element.

mod common;

use common::{cc, loopy};
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = r#"#include <stdio.h>
#include <stdlib.h>
#define N 24
static double A[N][N], B[N][N], C[N][N], x[N], y[N];
static void kernel(int n, int m, double alpha)
{
  int i, j, k, t;
#pragma scop
BODY
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), m = atoi(argv[2]);
  for (int i = 0; i < N; i++) {
    x[i] = 1.0 / (i + 3); y[i] = (i % 5) * 0.37 - 0.5;
    for (int j = 0; j < N; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11 + 1) / 7.0; B[i][j] = ((i + 2 * j) % 13) / 3.0 - 1.1;
      C[i][j] = 0.1 * (i - j) + 0.05;
    }
  }
  kernel(n, m, 1.1);
  for (int i = 0; i < N; i++) {
    printf("%a %a\n", x[i], y[i]);
    for (int j = 0; j < N; j++) printf("%a %a %a\n", A[i][j], B[i][j], C[i][j]);
  }
  return 0;
}
"#;

/// Sizes the programs are run at (`n`, `m`): every loop stays inside the arrays.
const SIZES: &[(i64, i64)] = &[(0, 0), (1, 1), (2, 3), (3, 2), (5, 4), (8, 7), (12, 12)];

/// A fresh directory for one test's files.
fn tempdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("equiv")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(format!("{name}.c"));
    std::fs::write(&p, PROGRAM.replace("BODY", body)).unwrap();
    p
}

/// `loopy equiv a b`: the exit code, stdout and stderr.
fn equiv(a: &Path, b: &Path) -> (i32, String, String) {
    loopy(&["equiv", a.to_str().unwrap(), b.to_str().unwrap()])
}

fn build(src: &Path) -> PathBuf {
    let exe = src.with_extension("exe");
    let st = Command::new(cc())
        .args(["-O0", "-ffp-contract=off", "-o"])
        .arg(&exe)
        .arg(src)
        .status()
        .expect("the C compiler runs");
    assert!(st.success(), "{} does not compile", src.display());
    exe
}

fn run(exe: &Path, n: i64, m: i64) -> String {
    let out = Command::new(exe)
        .args([n.to_string(), m.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The witness's parameter values, from the `for n = …, m = …` note.
fn witness_sizes(stderr: &str) -> Option<(i64, i64)> {
    // `= note: for n = 3, …`, or `Note 1: for …` in a report with source spans.
    let line =
        (stderr.lines()).find(|l| l.to_lowercase().contains("note") && l.contains(": for "))?;
    let mut n = None;
    let mut m = None;
    for part in line.split("for ").nth(1)?.split(", ") {
        let (k, v) = part.split_once(" = ")?;
        let v: i64 = v.trim().parse().ok()?;
        match k.trim() {
            "n" => n = Some(v),
            "m" => m = Some(v),
            _ => {}
        }
    }
    Some((n.unwrap_or(0), m.unwrap_or(0)))
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    Equivalent,
    Different,
    /// Different, where the witness's own values may round alike (a product associated
    /// otherwise): some size shows it, the witness's need not.
    DifferentByRounding,
}

/// Decides a pair, checks the verdict, and runs both programs to confirm it; the two
/// files written (the original, then the other) and what `equiv` printed.
fn pair(name: &str, original: &str, other: &str, expect: Expect) -> (PathBuf, PathBuf, String) {
    let dir = tempdir(name);
    let a = write(&dir, "original", original);
    let b = write(&dir, name, other);
    let (code, out, err) = equiv(&a, &b);
    let (ea, eb) = (build(&a), build(&b));
    let differs: Vec<(i64, i64)> = SIZES
        .iter()
        .copied()
        .filter(|&(n, m)| run(&ea, n, m) != run(&eb, n, m))
        .collect();
    match expect {
        Expect::Equivalent => {
            assert_eq!(code, 0, "{name}: expected equivalent\n{out}{err}");
            assert!(out.starts_with("equivalent"), "{name}: {out}");
            assert!(
                differs.is_empty(),
                "{name}: proved equivalent, but differs at {differs:?}"
            );
        }
        Expect::Different | Expect::DifferentByRounding => {
            assert_eq!(code, 1, "{name}: expected not equivalent\n{out}{err}");
            assert!(out.starts_with("not equivalent"), "{name}: {out}");
            assert!(
                err.contains("L0801") && err.contains("what differs"),
                "{name}: {err}"
            );
            assert!(
                !differs.is_empty(),
                "{name}: called different, but no size shows it"
            );
            let small = |&(n, m): &(i64, i64)| (0..=20).contains(&n) && (0..=20).contains(&m);
            let witness = witness_sizes(&err).filter(small);
            if let Some((n, m)) = witness.filter(|_| expect == Expect::Different) {
                assert_ne!(
                    run(&ea, n, m),
                    run(&eb, n, m),
                    "{name}: the witness n = {n}, m = {m} shows no difference\n{err}"
                );
            }
        }
    }
    (a, b, out)
}

const GEMM: &str = "for (i = 0; i < n; i++)
  for (j = 0; j < m; j++) {
    C[i][j] *= 0.5;
    for (k = 0; k < n; k++)
      C[i][j] += alpha * A[i][k] * B[k][j];
  }";

#[test]
fn a_program_is_equivalent_to_itself() {
    pair("same", GEMM, GEMM, Expect::Equivalent);
}

#[test]
fn loop_orders_that_keep_each_reduction_in_order_are_equivalent() {
    let ikj = "for (i = 0; i < n; i++) {
  for (j = 0; j < m; j++)
    C[i][j] *= 0.5;
  for (k = 0; k < n; k++)
    for (j = 0; j < m; j++)
      C[i][j] += alpha * A[i][k] * B[k][j];
}";
    pair("ikj", GEMM, ikj, Expect::Equivalent);
    let jik = "for (j = 0; j < m; j++)
  for (i = 0; i < n; i++) {
    C[i][j] *= 0.5;
    for (k = 0; k < n; k++)
      C[i][j] += alpha * A[i][k] * B[k][j];
  }";
    pair("jik", GEMM, jik, Expect::Equivalent);
}

#[test]
fn an_accumulator_in_a_scalar_is_followed_as_a_copy() {
    let acc = "for (i = 0; i < n; i++)
  for (j = 0; j < m; j++) {
    double s = C[i][j] * 0.5;
    for (k = 0; k < n; k++)
      s += alpha * A[i][k] * B[k][j];
    C[i][j] = s;
  }";
    pair("scalar", GEMM, acc, Expect::Equivalent);
}

#[test]
fn mutations_of_a_reduction_are_found_with_a_witness() {
    let cases = [
        ("bound", "k < n", "k < n - 1"),
        ("first", "k = 0", "k = 1"),
        ("dropped", "C[i][j] *= 0.5;", ""),
        ("operand", "alpha * A[i][k]", "alpha * A[k][i]"),
        (
            "order",
            "alpha * A[i][k] * B[k][j]",
            "alpha * (A[i][k] * B[k][j])",
        ),
    ];
    for (name, from, to) in cases {
        let expect = match name {
            "order" => Expect::DifferentByRounding,
            _ => Expect::Different,
        };
        pair(name, GEMM, &GEMM.replace(from, to), expect);
    }
}

#[test]
fn fusion_distribution_and_shifts_are_equivalent() {
    let split = "for (i = 0; i < n; i++) x[i] = y[i] * 2.0;
for (i = 0; i < n; i++) C[0][i] = x[i] + 1.0;";
    let fused = "for (i = 0; i < n; i++) { x[i] = y[i] * 2.0; C[0][i] = x[i] + 1.0; }";
    pair("fused", split, fused, Expect::Equivalent);
    let shifted = "for (i = -1; i < n - 1; i++) x[i + 1] = y[i + 1] * 2.0;
for (i = 0; i < n; i++) C[0][i] = x[i] + 1.0;";
    pair("shifted", split, shifted, Expect::Equivalent);
    let early = "for (i = 0; i < n; i++) C[0][i] = x[i] + 1.0;
for (i = 0; i < n; i++) x[i] = y[i] * 2.0;";
    pair("reordered", split, early, Expect::Different);
}

#[test]
fn swapping_loops_is_equivalent_exactly_when_no_dependence_is_reversed() {
    let ij = "for (i = 1; i < n; i++) for (j = 0; j < m; j++) A[i][j] = A[i - 1][j] + B[i][j];";
    let ji = "for (j = 0; j < m; j++) for (i = 1; i < n; i++) A[i][j] = A[i - 1][j] + B[i][j];";
    pair("legal-swap", ij, ji, Expect::Equivalent);
    let ij = "for (i = 1; i < n; i++) for (j = 0; j < m; j++) A[i][j] = A[i - 1][j + 1] + B[i][j];";
    let ji = "for (j = 0; j < m; j++) for (i = 1; i < n; i++) A[i][j] = A[i - 1][j + 1] + B[i][j];";
    pair("dependent-swap", ij, ji, Expect::Different);
}

#[test]
fn a_skewed_sweep_is_equivalent_and_a_swapped_subtraction_is_not() {
    let sweep = "for (t = 0; t < m; t++)
  for (i = 1; i < n - 1; i++)
    x[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0;";
    let skewed = "for (t = 0; t < m; t++)
  for (k = t + 1; k < t + n - 1; k++)
    x[k - t] = (x[k - t - 1] + x[k - t] + x[k - t + 1]) / 3.0;";
    pair("skewed", sweep, skewed, Expect::Equivalent);
    let sub = "for (i = 1; i < n; i++) x[i] = x[i - 1] - y[i];";
    pair(
        "subtraction",
        sub,
        &sub.replace("x[i - 1] - y[i]", "y[i] - x[i - 1]"),
        Expect::Different,
    );
}

/// Two sweeps of a 2-D five-point stencil per time step (jacobi-2d), `m` steps.
const JACOBI: &str = "for (t = 0; t < m; t++) {
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
}";

/// The second sweep shifted by one row and fused with the first, as loopy generates
/// jacobi-2d's script: the first row of `B` and the last row of `A` in nests of their own.
const JACOBI_FUSED: &str = "for (t = 0; t <= m - 1; t++) {
  if (n >= 3)
    for (j = 1; j <= n - 2; j++)
      B[1][j] = 0.2 * (A[1][j] + A[1][j - 1] + A[1][j + 1] + A[1 + 1][j] + A[1 - 1][j]);
  for (int c3 = 2; c3 <= n - 2; c3++)
    for (j = 1; j <= n - 2; j++) {
      B[c3][j] = 0.2 * (A[c3][j] + A[c3][j - 1] + A[c3][j + 1] + A[c3 + 1][j] + A[c3 - 1][j]);
      A[(c3 - 1)][j] = 0.2 * (B[(c3 - 1)][j] + B[(c3 - 1)][j - 1] + B[(c3 - 1)][j + 1] + B[(c3 - 1) + 1][j] + B[(c3 - 1) - 1][j]);
    }
  if (n >= 3)
    for (j = 1; j <= n - 2; j++)
      A[(n - 2)][j] = 0.2 * (B[(n - 2)][j] + B[(n - 2)][j - 1] + B[(n - 2)][j + 1] + B[(n - 2) + 1][j] + B[(n - 2) - 1][j]);
}";

/// The obligations of a stencil's time steps spread by a row and a column a step, from
/// the last step's outputs back to the first: taken breadth-first, each pair of
/// statements first receives the general rows, not a corner reached by one long chain.
#[test]
fn a_fused_stencil_over_time_steps_is_equivalent_and_its_mutations_are_not() {
    pair("jacobi-fused", JACOBI, JACOBI_FUSED, Expect::Equivalent);
    let cases = [
        // The fused sweep not shifted: it reads a row of `B` the first has not written.
        ("jacobi-unshifted", "A[(c3 - 1)][j] = 0.2 * (B[(c3 - 1)][j] + B[(c3 - 1)][j - 1] + B[(c3 - 1)][j + 1] + B[(c3 - 1) + 1][j] + B[(c3 - 1) - 1][j]);",
            "A[c3][j] = 0.2 * (B[c3][j] + B[c3][j - 1] + B[c3][j + 1] + B[c3 + 1][j] + B[c3 - 1][j]);"),
        // The last row's nest reads the row above twice.
        ("jacobi-edge-row", "B[(n - 2) + 1][j] + B[(n - 2) - 1][j]);\n}", "B[(n - 2) - 1][j] + B[(n - 2) - 1][j]);\n}"),
        // The first row's nest skips its last column.
        ("jacobi-edge-column", "for (j = 1; j <= n - 2; j++)\n      B[1][j]", "for (j = 1; j <= n - 3; j++)\n      B[1][j]"),
        // The time loop one step short.
        ("jacobi-steps", "t <= m - 1;", "t <= m - 2;"),
    ];
    for (name, from, to) in cases {
        assert!(JACOBI_FUSED.contains(from), "{name}");
        pair(
            name,
            JACOBI,
            &JACOBI_FUSED.replace(from, to),
            Expect::Different,
        );
    }
}

/// `examples/lu`'s generated code with tiles of 4 (its script's 128 changed), so that
/// small sizes cross tiles, in `dir`; and the kernel.
fn lu_by_4(dir: &Path) -> (PathBuf, PathBuf) {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/lu");
    let text = std::fs::read_to_string(ex.join("lu.loopy")).unwrap();
    let from = "tile(L, [128, 128, 128])";
    assert!(text.contains(from));
    let script = dir.join("lu4.loopy");
    std::fs::write(&script, text.replace(from, "tile(L, [4, 4, 4])")).unwrap();
    let (kernel, out) = (ex.join("lu.c"), dir.join("lu4.c"));
    common::apply_to(&kernel, &script, &out);
    (kernel, out)
}

/// Tiled LU's updates are a recurrence whose obligations are widened; a difference found
/// only over the widened relation is looked for by running both programs (on symbolic
/// values) at its parameter values, and reported exactly when they differ there.
#[test]
fn differences_past_a_widened_recurrence_are_run_at_their_values() {
    let dir = tempdir("lu-by-4");
    let (kernel, tiled) = lu_by_4(&dir);
    let (code, out, err) = equiv(&kernel, &tiled);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&tiled).unwrap();
    let cases = [
        // The first row of each tile of k skipped in the tiles of whole columns.
        (
            "k-start",
            "for (k = 4 * c3; k <= 4 * c3 + 3; k++) {\n            for (j = 4 * c5",
            "for (k = 4 * c3 + 1; k <= 4 * c3 + 3; k++) {\n            for (j = 4 * c5",
            true,
        ),
        // The last point of a tile's column loop left out.
        (
            "c9-bound",
            "for (int c9 = 0; c9 <= 2; c9++)",
            "for (int c9 = 0; c9 <= 1; c9++)",
            false,
        ),
        // A guard one off.
        (
            "guard",
            "if (4 * c3 >= i - 4) {",
            "if (4 * c3 >= i - 3) {",
            false,
        ),
        // The wrong pivot.
        (
            "pivot",
            "A[i][(i - 1)] /= A[(i - 1)][(i - 1)];",
            "A[i][(i - 1)] /= A[(i - 1)][i];",
            false,
        ),
    ];
    for (name, from, to, run) in cases {
        assert!(text.contains(from), "{name}");
        let mutant = dir.join(format!("{name}.c"));
        std::fs::write(&mutant, text.replacen(from, to, 1)).unwrap();
        let (code, out, err) = equiv(&kernel, &mutant);
        assert_eq!(code, 1, "{name}: expected not equivalent\n{out}{err}");
        assert!(out.starts_with("not equivalent"), "{name}: {out}");
        assert_eq!(
            err.contains("both run at these values"),
            run,
            "{name}: found by running both programs?\n{err}"
        );
        let (n, _) = witness_sizes(&err).expect("the witness's size");
        assert_ne!(
            run_at(&kernel, &[&format!("-DN={n}")]),
            run_at(&mutant, &[&format!("-DN={n}")]),
            "{name}: the witness n = {n} shows no difference\n{err}"
        );
    }
}

#[test]
fn a_removed_guard_is_found() {
    let guarded = "for (i = 0; i < n; i++) {\n  if (i > 2)\n    x[i] = x[i] + y[i];\n}";
    pair(
        "guard",
        guarded,
        "for (i = 0; i < n; i++) x[i] = x[i] + y[i];",
        Expect::Different,
    );
    let once = "for (i = 0; i < n; i++) x[i] = x[i] + y[i];";
    let twice = "for (i = 0; i < n; i++) { x[i] = x[i] + y[i]; x[i] = x[i] + y[i]; }";
    pair("duplicated", once, twice, Expect::Different);
}

#[test]
fn what_is_not_modelled_is_refused_with_its_span() {
    let (out, err) = refused(
        "refused",
        "for (i = 0; i < n; i++) while (x[i] > 1.0) x[i] = x[i] / 2.0;",
    );
    assert!(out.starts_with("not decided"), "{out}");
    assert!(err.contains("L0802") && err.contains("while"), "{err}");
}

/// Decides `for (i = 0; i < n; i++) x[i] = y[i];` against `other` (in `b.c`), which must
/// be refused (exit 2) with a report that points into `b.c`; its stdout and stderr.
fn refused(name: &str, other: &str) -> (String, String) {
    let dir = tempdir(name);
    let a = write(&dir, "a", "for (i = 0; i < n; i++) x[i] = y[i];");
    let b = write(&dir, "b", other);
    let (code, out, err) = equiv(&a, &b);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("b.c:"),
        "the report points into the file: {err}"
    );
    (out, err)
}

#[test]
fn json_gives_the_verdict_and_the_witness() {
    let dir = tempdir("json");
    let a = write(&dir, "a", GEMM);
    let b = write(&dir, "b", &GEMM.replace("k < n", "k < n - 1"));
    let (code, out, _) = loopy(&[
        "equiv",
        "--format",
        "json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "not-equivalent");
    assert!(v["parameters"]["n"].is_string(), "{out}");
    assert!(v["element"].as_str().unwrap().starts_with('C'), "{out}");
}

#[test]
fn openmp_loops_without_races_are_read_as_sequential() {
    let copy = "for (i = 0; i < n; i++) x[i] = y[i];";
    pair(
        "omp-for",
        copy,
        &format!("#pragma omp parallel for\n{copy}"),
        Expect::Equivalent,
    );
    // A parallel region holding two work-sharing loops, the rows of C on the threads.
    let par = format!(
        "#pragma omp parallel\n{{\n#pragma omp for private(j)\n{}\n#pragma omp for schedule(static) private(j, k)\n{}\n}}",
        "for (i = 0; i < n; i++) for (j = 0; j < m; j++) C[i][j] *= 0.5;",
        "for (i = 0; i < n; i++) for (j = 0; j < m; j++) for (k = 0; k < n; k++) C[i][j] += alpha * A[i][k] * B[k][j];"
    );
    let seq = "for (i = 0; i < n; i++) for (j = 0; j < m; j++) C[i][j] *= 0.5;
for (i = 0; i < n; i++) for (j = 0; j < m; j++) for (k = 0; k < n; k++) C[i][j] += alpha * A[i][k] * B[k][j];";
    pair("omp-region", seq, &par, Expect::Equivalent);
    // SIMD loops, as generated code marks vectorized loops.
    pair(
        "omp-simd",
        copy,
        &format!("#pragma omp simd\n{copy}"),
        Expect::Equivalent,
    );
    pair(
        "omp-for-simd",
        copy,
        &format!("#pragma omp parallel\n{{\n#pragma omp for simd simdlen(8)\n{copy}\n}}"),
        Expect::Equivalent,
    );
    // The answer says the loops were found free of races.
    let dir = tempdir("omp-said");
    let (a, b) = (write(&dir, "a", seq), write(&dir, "b", &par));
    let (code, out, _) = equiv(&a, &b);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("(the 2 OpenMP loops are free of races)"),
        "{out}"
    );
}

#[test]
fn a_private_variable_set_in_each_iteration_before_its_reads_is_each_iterations_own() {
    let copy = "for (i = 0; i < n; i++) x[i] = alpha * y[i] + 1.0;";
    for clause in ["private", "firstprivate"] {
        let other = format!(
            "double v = 0.0;\n#pragma omp parallel for {clause}(v)\nfor (i = 0; i < n; i++) {{ v = alpha * y[i]; x[i] = v + 1.0; }}"
        );
        let (_, _, out) = pair(&format!("{clause}-v"), copy, &other, Expect::Equivalent);
        assert!(out.contains("the OpenMP loop is free of races"), "{out}");
        // The value stored one iteration late: a difference, never a race read as one.
        let late = other.replace("x[i] = v + 1.0;", "x[i] = v + 2.0;");
        pair(&format!("{clause}-v-wrong"), copy, &late, Expect::Different);
    }
}

/// A parallel region as generated code's parallel register blocks have it: the tile loop
/// runs in every thread, one thread sets what all read (`single`), the threads share the
/// loop under it, and each thread fills a buffer of its own.
const SPMD: &str = "#pragma omp parallel
{
  double buf[n];
  for (t = 0; t < 2; t++) {
    #pragma omp single
    {
      y[t] = alpha + t;
    }
    #pragma omp for
    for (i = 0; i < n; i++) {
      buf[i] = x[i] * y[t];
      C[t][i] = buf[i] + 1.0;
    }
  }
}";

const SPMD_ORIGINAL: &str = "for (t = 0; t < 2; t++) {
  y[t] = alpha + t;
  for (i = 0; i < n; i++)
    C[t][i] = x[i] * y[t] + 1.0;
}";

#[test]
fn a_parallel_region_with_single_and_each_threads_buffer_is_read_as_sequential() {
    let (_, _, out) = pair("spmd", SPMD_ORIGINAL, SPMD, Expect::Equivalent);
    assert!(out.contains("the OpenMP loop is free of races"), "{out}");
    let wrong = SPMD.replace("C[t][i] = buf[i] + 1.0;", "C[t][i] = buf[i] + 2.0;");
    pair("spmd-wrong", SPMD_ORIGINAL, &wrong, Expect::Different);
    // Each thread's buffer filled in one loop and read in the next: a thread reads
    // elements another thread's iterations wrote in its own buffer.
    let dir = tempdir("spmd-refused");
    let a = write(&dir, "a", "for (i = 0; i < n; i++) y[i] = x[i] * alpha;");
    let across = "#pragma omp parallel
{
  double buf[n];
  #pragma omp for
  for (i = 0; i < n; i++)
    buf[i] = x[i] * alpha;
  #pragma omp for
  for (i = 0; i < n; i++)
    y[i] = buf[i];
}";
    let b = write(&dir, "across", across);
    let (code, out, err) = equiv(&a, &b);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("`buf` is private in the OpenMP loop of line 15")
            && err.contains("reads it where no write of the same iteration comes before")
            && err.contains("across.c:17"),
        "{err}"
    );
    // Without the barrier at its end, `single` is not read.
    let b = write(
        &dir,
        "nowait",
        &SPMD.replace("omp single", "omp single nowait"),
    );
    let (code, out, err) = equiv(&a, &b);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`single` is read without clauses"), "{err}");
}

#[test]
fn a_racy_or_unread_openmp_loop_is_refused_at_its_span() {
    let dir = tempdir("openmp");
    let sweep = "for (i = 1; i < n; i++) x[i] = x[i - 1] + y[i];";
    let copy = "for (i = 0; i < n; i++) x[i] = alpha * y[i];";
    let cases = [
        // Iteration i reads what iteration i - 1 wrote.
        ("race", sweep, format!("#pragma omp parallel for\n{sweep}"), "a race", 10),
        // The k loop on the threads: every iteration updates the same C[i][j].
        (
            "race-k",
            "for (i = 0; i < n; i++) for (k = 0; k < n; k++) C[i][0] += A[i][k];",
            "for (i = 0; i < n; i++)\n#pragma omp parallel for\nfor (k = 0; k < n; k++) C[i][0] += A[i][k];".to_string(),
            "a race",
            11,
        ),
        // A reduction's variable read as anything but its own update (each thread's copy
        // starts at 0).
        ("reduction", copy, format!("#pragma omp parallel for reduction(+:alpha)\n{copy}"), "`alpha` is reduced by the OpenMP loop of line 9", 10),
        ("reduction-and", copy, format!("#pragma omp parallel for reduction(&&:alpha)\n{copy}"), "reduction(&&:alpha)", 9),
        // A reduced array: each thread's copy of every element starts at 0.
        ("reduction-array", copy, format!("#pragma omp parallel for reduction(+:x)\n{copy}"), "`x` is an array reduced", 9),
        ("private", copy, format!("#pragma omp parallel for private(alpha)\n{copy}"), "`alpha` is private", 9),
        // A private copy read before its iteration writes it holds nothing the
        // sequential loop holds there; one read after the loop, the value before it.
        (
            "private-early",
            copy,
            "double v = 0.0;\n#pragma omp parallel for private(v)\nfor (i = 0; i < n; i++) { x[i] = v; v = alpha * y[i]; }".to_string(),
            "reads it where no write of the same iteration comes before",
            11,
        ),
        (
            "private-after",
            copy,
            "double v;\n#pragma omp parallel for firstprivate(v)\nfor (i = 0; i < n; i++) { v = alpha * y[i]; x[i] = v; }\ny[0] = v;".to_string(),
            "this statement after it reads it",
            12,
        ),
        (
            "replicated",
            copy,
            format!("#pragma omp parallel\n{{\ny[0] = 1.0;\n#pragma omp for\n{copy}\n}}"),
            "every thread runs it",
            11,
        ),
        // A SIMD loop runs its iterations in lanes: the sweep's chain is a race there too.
        ("simd-race", sweep, format!("#pragma omp simd\n{sweep}"), "a race in the SIMD loop", 10),
        ("aligned", copy, format!("#pragma omp simd aligned(x)\n{copy}"), "aligned(x)", 9),
        ("parallel-simd", copy, format!("#pragma omp parallel simd\n{copy}"), "omp parallel simd", 9),
    ];
    for (name, original, other, says, line) in cases {
        let a = write(&dir, &format!("{name}-a"), original);
        let b = write(&dir, name, &other);
        let (code, out, err) = equiv(&a, &b);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(err.contains(&format!("{name}.c:{line}")), "{name}: {err}");
    }
}

/// GEMM as loopy tiles it (4×4×4 tiles, the bounds of generated code), after the scaling.
const TILED: &str = "#define loopy_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define loopy_min(x, y) ((x) < (y) ? (x) : (y))
for (i = 0; i < n; i++)
  for (j = 0; j < m; j++)
    C[i][j] *= 0.5;
for (int c1 = 0; c1 <= loopy_floord(n - 1, 4); c1++)
  for (int c3 = 0; c3 <= loopy_floord(n - 1, 4); c3++)
    for (int c5 = 0; c5 <= loopy_floord(m - 1, 4); c5++)
      for (i = 4 * c1; i <= loopy_min(n - 1, 4 * c1 + 3); i++)
        for (k = 4 * c3; k <= loopy_min(n - 1, 4 * c3 + 3); k++)
          for (j = 4 * c5; j <= loopy_min(m - 1, 4 * c5 + 3); j++)
            C[i][j] += alpha * A[i][k] * B[k][j];";

#[test]
fn tiled_gemm_is_equivalent() {
    pair("tiled", GEMM, TILED, Expect::Equivalent);
    // Tiles of another size for k only, and the k tiles in the outermost loop.
    let other = TILED
        .replace(
            "c3 <= loopy_floord(n - 1, 4)",
            "c3 <= loopy_floord(n - 1, 3)",
        )
        .replace(
            "k = 4 * c3; k <= loopy_min(n - 1, 4 * c3 + 3)",
            "k = 3 * c3; k <= loopy_min(n - 1, 3 * c3 + 2)",
        );
    pair("tiled-3", GEMM, &other, Expect::Equivalent);
}

/// gemm as a user writes it BLIS-style in plain C: a packed panel of B (4 rows) and a
/// packed block of A (3 × 4) in local arrays, each C element accumulated in a scalar.
const PACKED: &str = "#define loopy_min(x, y) ((x) < (y) ? (x) : (y))
for (int pc = 0; pc < n; pc += 4) {
  double Bp[4][m];
  for (k = pc; k <= loopy_min(n - 1, pc + 3); k++)
    for (j = 0; j < m; j++)
      Bp[k - pc][j] = B[k][j];
  for (int ic = 0; ic < n; ic += 3) {
    double Ap[3][4];
    for (i = ic; i <= loopy_min(n - 1, ic + 2); i++)
      for (k = pc; k <= loopy_min(n - 1, pc + 3); k++)
        Ap[i - ic][k - pc] = A[i][k];
    for (i = ic; i <= loopy_min(n - 1, ic + 2); i++)
      for (j = 0; j < m; j++) {
        double acc = C[i][j];
        for (k = pc; k <= loopy_min(n - 1, pc + 3); k++)
          acc += Ap[i - ic][k - pc] * Bp[k - pc][j];
        C[i][j] = acc;
      }
  }
}";

/// gemm with a 3 × 4 block of C accumulated in a local array over all of k (a register
/// block written in plain C), loaded before and stored after.
const BLOCKED: &str = "#define loopy_min(x, y) ((x) < (y) ? (x) : (y))
for (int ic = 0; ic < n; ic += 3)
  for (int jc = 0; jc < m; jc += 4) {
    double c[3][4];
    for (i = ic; i <= loopy_min(n - 1, ic + 2); i++)
      for (j = jc; j <= loopy_min(m - 1, jc + 3); j++)
        c[i - ic][j - jc] = C[i][j];
    for (k = 0; k < n; k++)
      for (i = ic; i <= loopy_min(n - 1, ic + 2); i++)
        for (j = jc; j <= loopy_min(m - 1, jc + 3); j++)
          c[i - ic][j - jc] += A[i][k] * B[k][j];
    for (i = ic; i <= loopy_min(n - 1, ic + 2); i++)
      for (j = jc; j <= loopy_min(m - 1, jc + 3); j++)
        C[i][j] = c[i - ic][j - jc];
  }";

#[test]
fn hand_packed_and_blocked_gemms_are_equivalent_and_wrong_edges_are_not() {
    let gemm = "for (i = 0; i < n; i++)
  for (j = 0; j < m; j++)
    for (k = 0; k < n; k++)
      C[i][j] += A[i][k] * B[k][j];";
    pair("packed", gemm, PACKED, Expect::Equivalent);
    pair("blocked", gemm, BLOCKED, Expect::Equivalent);
    // The last row of each block left out of the update: loaded and stored unchanged.
    let from = "i <= loopy_min(n - 1, ic + 2); i++)\n        for (j = jc; j <= loopy_min(m - 1, jc + 3); j++)\n          c[i - ic][j - jc] +=";
    assert!(BLOCKED.contains(from));
    let early = BLOCKED.replace(from, &from.replace("ic + 2", "ic + 1"));
    pair("blocked-row", gemm, &early, Expect::Different);
    // The accumulation stops one row of B early in every whole panel.
    let from = "for (k = pc; k <= loopy_min(n - 1, pc + 3); k++)\n          acc";
    assert!(PACKED.contains(from));
    let wrong = PACKED.replace(
        from,
        "for (k = pc; k <= loopy_min(n - 1, pc + 2); k++)\n          acc",
    );
    pair("packed-edge", gemm, &wrong, Expect::Different);
    // The packed block of A copied one column short at the edge.
    let from = "for (k = pc; k <= loopy_min(n - 1, pc + 3); k++)\n        Ap";
    assert!(PACKED.contains(from));
    let wrong = PACKED.replace(
        from,
        "for (k = pc; k <= loopy_min(n - 1, pc + 2); k++)\n        Ap",
    );
    pair("packed-copy", gemm, &wrong, Expect::Different);
}

#[test]
fn mutations_of_tiled_gemm_are_found_with_a_witness() {
    let cases = [
        // The last point of each k tile is skipped.
        ("tile-bound", "4 * c3 + 3); k++", "4 * c3 + 2); k++"),
        // The last k tile is skipped.
        (
            "tile-count",
            "c3 <= loopy_floord(n - 1, 4)",
            "c3 <= loopy_floord(n - 2, 4)",
        ),
        // A wrong operand inside the tile.
        ("tile-operand", "B[k][j]", "B[k][i]"),
        // Each k tile starts one point late: the first point of every tile is skipped.
        ("tile-start", "k = 4 * c3;", "k = 4 * c3 + 1;"),
    ];
    for (name, from, to) in cases {
        assert!(TILED.contains(from), "{name}");
        pair(name, GEMM, &TILED.replace(from, to), Expect::Different);
    }
}

#[test]
fn a_parameter_read_as_a_value_is_its_integer_value() {
    let body = "for (i = 0; i < n; i++) x[i] = y[i] + n;";
    pair("param-value", body, body, Expect::Equivalent);
    pair(
        "param-other",
        body,
        &body.replace("+ n", "+ m"),
        Expect::Different,
    );
}

#[test]
fn a_loop_that_starts_at_a_division_is_decided() {
    let plain = "for (i = 0; i < n; i++) x[i] = y[i] * 2.0;";
    let split = "#define loopy_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define loopy_ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))
for (i = 0; i <= loopy_floord(n - 1, 2); i++) x[i] = y[i] * 2.0;
for (int c = loopy_floord(n - 1, 2) + 1; c < n; c++) x[c] = y[c] * 2.0;
for (int c = loopy_ceild(-n, 3); c < 0; c++) y[c + n] = y[c + n];";
    pair("divided-start", plain, split, Expect::Equivalent);
    pair(
        "divided-start-off",
        plain,
        &split.replace("loopy_floord(n - 1, 2) + 1;", "loopy_floord(n - 1, 2) + 2;"),
        Expect::Different,
    );
}

#[test]
fn a_cast_to_void_computes_nothing() {
    let plain = "for (i = 0; i < n; i++) x[i] = y[i];";
    let void = "for (i = 0; i < n; i++) { (void)i; x[i] = y[i]; }";
    pair("void", plain, void, Expect::Equivalent);
    pair(
        "void-changed",
        plain,
        &void.replace("= y[i];", "= y[i] + 1.0;"),
        Expect::Different,
    );
}

/// Two programs whose array has a different number of subscripts in each: refused (exit 2)
/// with the array named, not a panic.
#[test]
fn arrays_of_different_ranks_are_refused() {
    let (code, _, err) = common::loopy(&[
        "equiv",
        "--color",
        "never",
        "examples/jacobi-1d/jacobi-1d.c",
        "examples/jacobi-2d/jacobi-2d.c",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("L0802") && err.contains("subscript(s) in the first program"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// An unrolled loop's remainder continues from the value the unrolled loop left in the
/// counter (`for (; i < n; i++)`): read exactly, counting up and down, after a loop that
/// may run no iteration at all; a remainder that ends early, or an unrolled loop that runs
/// past its end, is found.
#[test]
fn a_remainder_that_continues_from_the_counter_is_decided() {
    let plain = "for (i = 0; i < n; i++) x[i] = x[i] + B[i][m] * y[i];";
    let unrolled = "for (i = 0; i <= n - 4; i += 4) {
  x[i] = x[i] + B[i][m] * y[i];
  x[i + 1] = x[i + 1] + B[i + 1][m] * y[i + 1];
  x[i + 2] = x[i + 2] + B[i + 2][m] * y[i + 2];
  x[i + 3] = x[i + 3] + B[i + 3][m] * y[i + 3];
}
for (; i < n; i++) x[i] = x[i] + B[i][m] * y[i];";
    pair("remainder", plain, unrolled, Expect::Equivalent);
    pair(
        "remainder-late",
        plain,
        &unrolled.replace("for (; i < n; i++)", "for (; i < n - 1; i++)"),
        Expect::Different,
    );
    pair(
        "remainder-short",
        plain,
        &unrolled.replace("i <= n - 4; i += 4", "i <= n - 5; i += 4"),
        Expect::Equivalent,
    );
    pair(
        "remainder-over",
        plain,
        &unrolled.replace("i <= n - 4; i += 4", "i <= n - 3; i += 4"),
        Expect::Different,
    );
    // Counting down, over a row whose first element is a parameter's.
    let down = "for (i = n - 1; i >= m; i--) y[i] = y[i] * 0.5 + x[i];";
    let down_unrolled = "for (i = n - 1; i >= m + 1; i -= 2) {
  y[i] = y[i] * 0.5 + x[i];
  y[i - 1] = y[i - 1] * 0.5 + x[i - 1];
}
for (; i >= m; i--) y[i] = y[i] * 0.5 + x[i];";
    pair("remainder-down", down, down_unrolled, Expect::Equivalent);
    pair(
        "remainder-down-early",
        down,
        &down_unrolled.replace("for (; i >= m; i--)", "for (; i >= m - 1 && i >= 0; i--)"),
        Expect::Different,
    );
}

/// A loop with no first value that does not follow a loop counting with the same variable
/// is not modelled: the counter read outside its loops is refused at its span.
#[test]
fn a_remainder_after_something_else_is_refused() {
    let (_, err) = refused(
        "remainder-refused",
        "for (i = 0; i <= n - 2; i += 2) {\n  x[i] = y[i];\n  x[i + 1] = y[i + 1];\n}\ny[0] = y[0];\nfor (; i < n; i++) x[i] = y[i];",
    );
    assert!(err.contains("L0107"), "{err}");
}

/// Two rows at once, each row's chain a statement of its own (an unroll-and-jam of the row
/// loop, as the search's row-jam recipe writes it), with the remainder row by row: the
/// widening relates each copy to the original's row through the strip's parity. A copy
/// that reads the wrong row, or a chain cut short, is found.
#[test]
fn two_rows_jammed_are_equivalent_and_a_wrong_row_is_not() {
    let plain = "for (i = 0; i < m; i++) {
  x[i] = 0.0;
  for (j = 0; j < n; j++)
    x[i] = x[i] + B[i][j] * y[j];
}";
    let jammed = "for (i = 0; i <= m - 2; i += 2) {
  x[i] = 0.0;
  x[i + 1] = 0.0;
  for (j = 0; j < n; j++) {
    x[i] = x[i] + B[i][j] * y[j];
    x[i + 1] = x[i + 1] + B[i + 1][j] * y[j];
  }
}
for (; i < m; i++) {
  x[i] = 0.0;
  for (j = 0; j < n; j++)
    x[i] = x[i] + B[i][j] * y[j];
}";
    pair("jam2", plain, jammed, Expect::Equivalent);
    pair(
        "jam2-row",
        plain,
        &jammed.replace("x[i + 1] + B[i + 1][j]", "x[i + 1] + B[i][j]"),
        Expect::Different,
    );
    pair(
        "jam2-short",
        plain,
        &jammed.replacen(
            "for (j = 0; j < n; j++) {",
            "for (j = 0; j < n - 1; j++) {",
            1,
        ),
        Expect::Different,
    );
}

/// Modelling the two files is bounded by the work budget too (the loop bounds of
/// generated code can take the integer core long): with a tiny budget the command
/// refuses while modelling, exit 2, naming the operation and the budget given; with a
/// larger one the same pair is refused by the check itself; with the default it is
/// proved.
#[test]
fn modelling_the_files_is_bounded_by_the_work_budget() {
    let dir = tempdir("budget");
    let a = write(
        &dir,
        "a",
        "for (i = 0; i < n; i++)\n  for (k = 0; k < i; k++)\n    x[i] = x[i] * A[k][k] + A[i][k];",
    );
    let b = write(
        &dir,
        "b",
        "for (t = 0; t <= (n - 2) / 8; t++)\n  for (i = 8 * t + 1; i < n; i++)\n    for (k = 0; k <= 7 && 8 * t + k < i; k++)\n      x[i] = x[i] * A[8 * t + k][8 * t + k] + A[i][8 * t + k];",
    );
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let equiv = |budget: &str| {
        let (code, _, err) = loopy(&["--color", "never", "equiv", "--budget", budget, a, b]);
        (code, err)
    };
    let (code, err) = equiv("20");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("L0901") && err.contains("work budget of 20 steps"),
        "{err}"
    );
    let (code, err) = equiv("2000");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("L0802") && err.contains("work budget of 2000 steps"),
        "{err}"
    );
    let (code, err) = equiv("50000000");
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_chain_of_assignments_stores_in_each_location_its_converted_value() {
    let two = "for (i = 0; i < n; i++) { x[i] = y[i] * 2.0; C[0][i] = y[i] * 2.0; }";
    let chain = "for (i = 0; i < n; i++) x[i] = C[0][i] = y[i] * 2.0;";
    pair("chain", two, chain, Expect::Equivalent);
    pair(
        "chain-operand",
        two,
        &chain.replace("2.0", "3.0"),
        Expect::Different,
    );
    // The value of `f = y[i]` is the float that `f` holds, not `y[i]`.
    let narrowed = "for (i = 0; i < n; i++) { float f; x[i] = f = y[i] / 3.0; }";
    pair(
        "chain-float",
        "for (i = 0; i < n; i++) x[i] = (float) (y[i] / 3.0);",
        narrowed,
        Expect::Equivalent,
    );
    pair(
        "chain-narrowed",
        "for (i = 0; i < n; i++) x[i] = y[i] / 3.0;",
        narrowed,
        Expect::Different,
    );
    let (out, err) = refused(
        "chain-twice",
        "for (i = 0; i < n; i++) x[i] = x[i + 1] = y[i];",
    );
    assert!(out.starts_with("not decided"), "{out}");
    assert!(err.contains("stores twice in one array"), "{err}");
}

/// GEMM with a block of four columns of `C` kept in a GCC vector, and the last columns
/// one by one.
const VECTOR_GEMM: &str = "typedef double v4 __attribute__((vector_size(4 * sizeof(double))));
typedef double v4u __attribute__((vector_size(4 * sizeof(double)), aligned(sizeof(double)), __may_alias__));
for (i = 0; i < n; i++) {
  for (j = 0; j < m; j++)
    C[i][j] *= 0.5;
  for (j = 0; j <= m - 4; j += 4) {
    v4 r;
    r = *(v4u *)&C[i][j];
    for (k = 0; k < n; k++)
      r += alpha * A[i][k] * *(v4u *)&B[k][j];
    *(v4u *)&C[i][j] = r;
  }
  for (; j < m; j++)
    for (k = 0; k < n; k++)
      C[i][j] += alpha * A[i][k] * B[k][j];
}";

#[test]
fn vector_accumulators_are_read_as_lanes() {
    pair("vector", GEMM, VECTOR_GEMM, Expect::Equivalent);
    // One block fewer: the columns one by one take it over.
    let fewer = VECTOR_GEMM.replace("j <= m - 4", "j <= m - 5");
    pair("vector-fewer", GEMM, &fewer, Expect::Equivalent);
    let cases = [
        (
            "vector-store",
            "*(v4u *)&C[i][j] = r;",
            "*(v4u *)&C[i][j + 1] = r;",
        ),
        (
            "vector-operand",
            "*(v4u *)&B[k][j];",
            "*(v4u *)&B[k][j + 1];",
        ),
        (
            "vector-order",
            "alpha * A[i][k] * *(v4u *)&B[k][j]",
            "alpha * (A[i][k] * *(v4u *)&B[k][j])",
        ),
        (
            "vector-first",
            "r = *(v4u *)&C[i][j];",
            "r = *(v4u *)&C[i][j + 1];",
        ),
    ];
    for (name, from, to) in cases {
        assert!(VECTOR_GEMM.contains(from), "{name}");
        pair(
            name,
            GEMM,
            &VECTOR_GEMM.replace(from, to),
            Expect::Different,
        );
    }
}

/// A region that is a test between two versions, the transformed code written in place
/// (as generated code has it where the region cannot become a function of its own): the
/// rows in reverse order, the original code beside it.
fn two_versions(transformed: &str) -> String {
    format!(
        "{{
  const unsigned long loopy_lo = (unsigned long)&x[0];
  if (loopy_lo != 0) {{
    {transformed}
  }} else {{
    {GEMM}
  }}
}}"
    )
}

#[test]
fn a_test_between_two_versions_is_equivalent_when_both_are() {
    let reversed = GEMM.replace("for (i = 0; i < n; i++)", "for (i = n - 1; i >= 0; i--)");
    let (_, _, out) = pair(
        "versions",
        GEMM,
        &two_versions(&reversed),
        Expect::Equivalent,
    );
    assert!(
        out.contains(
            "in each version of the region: the transformed version (where the test at line"
        ),
        "{out}"
    );
    // The transformed version runs (the test passes): its difference shows.
    let wrong = reversed.replace("C[i][j] *= 0.5;", "C[i][j] *= 0.25;");
    pair(
        "versions-wrong",
        GEMM,
        &two_versions(&wrong),
        Expect::Different,
    );
}

const TRANSPOSE: &str = "for (j = 0; j < m; j++)
  for (i = 0; i < n; i++)
    C[j][i] = alpha * A[i][j];";

/// A column of `A` gathered into a vector, as generated register blocks gather a column
/// of a block that is not contiguous: `(v4){A[i][j], A[i + 1][j], …}`.
const GATHERED: &str = "typedef double v4 __attribute__((vector_size(4 * sizeof(double))));
typedef double v4u __attribute__((vector_size(4 * sizeof(double)), aligned(sizeof(double)), __may_alias__));
for (j = 0; j < m; j++) {
  for (i = 0; i <= n - 4; i += 4)
    *(v4u *)&C[j][i] = alpha * (v4){A[i][j], A[i + 1][j], A[i + 2][j], A[i + 3][j]};
  for (; i < n; i++)
    C[j][i] = alpha * A[i][j];
}";

#[test]
fn a_vector_of_gathered_elements_is_read_as_lanes() {
    pair("gather", TRANSPOSE, GATHERED, Expect::Equivalent);
    let lanes = "A[i][j], A[i + 1][j], A[i + 2][j], A[i + 3][j]";
    assert!(GATHERED.contains(lanes));
    // Lanes that step by 2, and a gather from the next column: other elements.
    for (name, to) in [
        (
            "gather-step",
            "A[i][j], A[i + 2][j], A[i + 4][j], A[i + 6][j]",
        ),
        (
            "gather-column",
            "A[i][j + 1], A[i + 1][j + 1], A[i + 2][j + 1], A[i + 3][j + 1]",
        ),
    ] {
        pair(
            name,
            TRANSPOSE,
            &GATHERED.replace(lanes, to),
            Expect::Different,
        );
    }
    // Lanes out of step are no element moved by one step per lane: refused, never
    // read as something else.
    let dir = tempdir("gather-swapped");
    let a = write(&dir, "a", TRANSPOSE);
    let swapped = "A[i][j], A[i + 2][j], A[i + 1][j], A[i + 3][j]";
    let b = write(&dir, "b", &GATHERED.replace(lanes, swapped));
    let (code, out, err) = equiv(&a, &b);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("this vector of elements cannot be read as lanes")
            && err.contains("lane 2 is not the first lane's element"),
        "{err}"
    );
}

#[test]
fn vector_operations_outside_what_lanes_compute_are_refused() {
    // The lanes of one operation read before any writes: a shift by one lane is not the
    // loop it would be lane by lane.
    let (out, err) = refused(
        "vector-race",
        "typedef double v4 __attribute__((vector_size(32)));
for (i = 1; i <= n - 4; i += 4)
  *(v4 *)&x[i] = *(v4 *)&x[i - 1];",
    );
    assert!(out.starts_with("not decided"), "{out}");
    assert!(err.contains("a race in the lanes"), "{err}");
    // GCC converts a scalar to the element type; C's rules are not those of lanes.
    let (_, err) = refused(
        "vector-literal",
        "typedef double v4 __attribute__((vector_size(32)));
for (i = 0; i <= n - 4; i += 4)
  *(v4 *)&x[i] = 2.0 * *(v4 *)&y[i];",
    );
    assert!(err.contains("the literal `2.0`"), "{err}");
    let (_, err) = refused(
        "vector-outside",
        "typedef double v4 __attribute__((vector_size(32)));
for (i = 0; i <= n - 4; i += 4) {
  v4 r;
  r = *(v4 *)&y[i];
  x[i] = r;
}",
    );
    assert!(err.contains("used outside a vector operation"), "{err}");
    let (_, err) = refused(
        "vector-float",
        "typedef float v8 __attribute__((vector_size(32)));
for (i = 0; i <= n - 8; i += 8)
  *(v8 *)&x[i] = *(v8 *)&y[i];",
    );
    assert!(
        err.contains("a vector of `float` over elements of `double`"),
        "{err}"
    );
}

const SCALED: &str = "for (j = 0; j < n; j++) y[j] = x[j] * alpha;";

#[test]
fn a_panel_packed_with_divisions_is_equivalent_and_a_wrong_residue_is_not() {
    let packed = "double P[(n + 15) / 16][16];
for (i = 0; i < (n + 15) / 16; i++)
  for (j = 0; j < 16; j++)
    P[i][j] = 0.0;
for (j = 0; j < n; j++)
  P[j / 16][j % 16] = x[j];
for (i = 0; i <= (n - 1) / 16; i++)
  for (j = 16 * i; j < n && j < 16 * i + 16; j++)
    y[j] = P[i][j - 16 * i] * alpha;";
    pair("packed-div", SCALED, packed, Expect::Equivalent);
    pair(
        "packed-residue",
        SCALED,
        &packed.replace("P[j / 16][j % 16]", "P[(j + 1) / 16][(j + 1) % 16]"),
        Expect::Different,
    );
}

/// A panel addressed through an offset set before the nest that fills it, as generated
/// code does (`loopy_B_o0 = 384 * c3;`).
const OFFSETS: &str = "double P[16];
int o = 0;
for (i = 0; 16 * i < n; i++) {
  o = 16 * i;
  for (j = 16 * i; j < n && j < 16 * i + 16; j++)
    P[j - o] = x[j];
  for (j = 16 * i; j < n && j < 16 * i + 16; j++)
    y[j] = P[j - o] * alpha;
}";

#[test]
fn an_offset_set_before_its_nests_is_its_value() {
    pair("offsets", SCALED, OFFSETS, Expect::Equivalent);
    // An offset one short puts the last element of a tile past the buffer's end.
    let (_, err) = refused(
        "offsets-shifted",
        &OFFSETS.replace("  o = 16 * i;", "  o = 16 * i - 1;"),
    );
    assert!(
        err.contains("`P` is accessed outside its declared extent 16 in subscript 1 of 1"),
        "{err}"
    );
    // Set after the nest that reads it: the value reaching the read is the previous
    // iteration's, which is not known.
    let late = OFFSETS.replace("  o = 16 * i;\n", "").replace(
        "    y[j] = P[j - o] * alpha;\n}",
        "    y[j] = P[j - o] * alpha;\n  o = 16 * i + 16;\n}",
    );
    assert_ne!(late, OFFSETS);
    let (_, err) = refused("offsets-late", &late);
    assert!(err.contains("`o` is computed inside the region"), "{err}");
    // Set under a condition the reads do not imply.
    let (_, err) = refused(
        "offsets-if",
        &OFFSETS.replace("  o = 16 * i;", "  if (i > 0)\n    o = 16 * i;"),
    );
    assert!(err.contains("`o` is computed inside the region"), "{err}");
}

#[test]
fn a_statement_that_never_runs_computes_nothing() {
    // Generated code keeps edge nests that no size reaches; what they are written with
    // does not matter.
    let dead = format!("{SCALED}\nfor (i = 0; i < n && i > n; i++) y[i] = x[i * i];");
    pair("dead", SCALED, &dead, Expect::Equivalent);
}

/// Builds `src` at `-D` sizes (into this file's scratch folder) and returns what it prints.
fn run_at(src: &Path, sizes: &[&str]) -> String {
    // One executable per build: tests that build one example run side by side.
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("equiv")
        .join("built");
    std::fs::create_dir_all(&dir).unwrap();
    let mut flags = vec!["-O0", "-ffp-contract=off"];
    flags.extend_from_slice(sizes);
    common::output_of(src, &dir, &k.to_string(), &flags)
}

/// Applies `script` to `kernel` with `settings` (`NAME=VALUE`), proves the output and
/// returns its path and text.
fn apply_and_prove(dir: &Path, kernel: &str, script: &str, settings: &[&str]) -> (PathBuf, String) {
    let out = dir.join("generated.c");
    let mut args = vec!["apply", kernel, script];
    for s in settings {
        args.extend(["--set", s]);
    }
    args.extend(["-o", out.to_str().unwrap()]);
    let (code, o, e) = loopy(&args);
    assert_eq!(code, 0, "{o}{e}");
    let (code, o, e) = loopy(&["equiv", kernel, out.to_str().unwrap()]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(o.contains("vector operations are free of races"), "{o}");
    let text = std::fs::read_to_string(&out).unwrap();
    (out, text)
}

/// `text` with its first `from` made `to`, written to `name` in `dir`, is "not equivalent"
/// to `kernel` with a witness; returns its path.
fn mutant_is_not_equivalent(
    dir: &Path,
    name: &str,
    kernel: &str,
    text: &str,
    from: &str,
    to: &str,
) -> PathBuf {
    assert!(
        text.contains(from),
        "the generated code has moved on: no `{from}`"
    );
    let wrong = dir.join(name);
    std::fs::write(&wrong, text.replacen(from, to, 1)).unwrap();
    let (code, o, e) = loopy(&["equiv", kernel, wrong.to_str().unwrap()]);
    assert_eq!(code, 1, "{o}{e}");
    assert!(e.contains("L0801") && e.contains("what differs"), "{e}");
    wrong
}

#[test]
fn loopys_blis_shaped_gemm_is_proved_and_a_wrong_register_row_is_not() {
    // Small blocks, the same on every machine: packed panels of A and B, a register block
    // of 4 rows of one 8-lane vector, offsets, divisions and edge nests.
    let dir = tempdir("gemm-fast");
    let kernel = "examples/gemm/gemm.c";
    let blocks = ["MR=4", "NR=8", "KC=64", "MC=16", "NC=32"];
    let (out, text) = apply_and_prove(&dir, kernel, "examples/gemm/gemm-fast.loopy", &blocks);
    // Row 1 of the register block stored into row 2.
    let store = "*(loopy_C_vu *)&C[loopy_C_o0 + 1][loopy_C_o1 + 0] = loopy_C_r1_0;";
    let shifted = store.replace("loopy_C_o0 + 1", "loopy_C_o0 + 2");
    let wrong = mutant_is_not_equivalent(&dir, "wrong.c", kernel, &text, store, &shifted);
    // A pack's offset one too far is the same shift on both sides of the buffer, but its
    // first element lands before the panel, in the previous panel's last row: refused.
    let offset = "loopy_B_o0 = 64 * c3;";
    assert!(text.contains(offset), "the generated pack has moved on");
    let shifted_pack = dir.join("gemm-fast-offset.c");
    std::fs::write(
        &shifted_pack,
        text.replacen(offset, "loopy_B_o0 = 64 * c3 + 1;", 1),
    )
    .unwrap();
    let (code, o, e) = loopy(&["equiv", kernel, shifted_pack.to_str().unwrap()]);
    assert_eq!(code, 2, "{o}{e}");
    assert!(
        e.contains("`loopy_B` is accessed outside its declared extent 64"),
        "{e}"
    );
    // And running them says the same.
    let sizes = ["-DNI=9", "-DNJ=19", "-DNK=70"];
    let original = run_at(&Path::new(env!("CARGO_MANIFEST_DIR")).join(kernel), &sizes);
    assert_eq!(run_at(&out, &sizes), original);
    assert_ne!(run_at(&wrong, &sizes), original);
}

#[test]
fn loopys_doitgen_register_block_is_proved_and_a_wrong_row_operand_is_not() {
    // doitgen-fast at a small register block, the same on every machine: `sum` expanded
    // to a heap buffer, 4 rows of one 8-lane vector, the last strip and rows in memory.
    let dir = tempdir("doitgen-fast");
    let kernel = "examples/doitgen/doitgen.c";
    let script = "examples/doitgen/doitgen-fast.loopy";
    let (out, text) = apply_and_prove(&dir, kernel, script, &["MR=4", "W=8"]);
    // Row 2 of the register block multiplies row 1's element of A.
    let update = "loopy_loopy_sum_x_r2_0 += A[r][(4 * c3 + 2)][s]";
    let shifted = update.replace("4 * c3 + 2", "4 * c3 + 1");
    let wrong = mutant_is_not_equivalent(&dir, "wrong.c", kernel, &text, update, &shifted);
    let sizes = ["-DNR=3", "-DNQ=9", "-DNP=19"];
    let original = run_at(&Path::new(env!("CARGO_MANIFEST_DIR")).join(kernel), &sizes);
    assert_eq!(run_at(&out, &sizes), original);
    assert_ne!(run_at(&wrong, &sizes), original);
}

/// A buffer on the heap, sized and checked as generated code does it.
const HEAP: &str = "unsigned long bytes = sizeof(x[0]);
long m0 = n;
if (m0 < 1)
  m0 = 1;
if (__builtin_mul_overflow(bytes, (unsigned long)m0, &bytes))
  __builtin_abort();
double *buf = __builtin_malloc(bytes);
if (!buf)
  __builtin_abort();
for (j = 0; j < n; j++)
  buf[j] = x[j] * alpha;
for (j = 0; j < n; j++)
  y[j] = buf[j];
__builtin_free(buf);";

#[test]
fn a_buffer_on_the_heap_is_a_local_array_where_its_checks_pass() {
    let dir = tempdir("heap-verdict");
    let a = write(&dir, "a", SCALED);
    let b = write(&dir, "b", HEAP);
    let (code, out, err) = equiv(&a, &b);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "where the 2 checks that stop the program (overflow and allocation checks) pass"
        ),
        "{out}"
    );
    pair("heap", SCALED, HEAP, Expect::Equivalent);
    pair(
        "heap-reversed",
        SCALED,
        &HEAP.replace("y[j] = buf[j];", "y[j] = buf[n - 1 - j];"),
        Expect::Different,
    );
    // The size computed by the overflow check is a value nothing compares; read as one,
    // it is refused.
    let (_, err) = refused(
        "heap-bytes",
        &HEAP.replace(
            "__builtin_free(buf);",
            "__builtin_free(buf);\nx[0] = bytes;",
        ),
    );
    assert!(
        err.contains("`bytes") && err.contains("is not compared"),
        "{err}"
    );
}

#[test]
fn a_variable_of_the_region_read_before_it_is_written_is_no_input() {
    // Both programs read a local buffer nothing wrote: its elements are not inputs that
    // the two share, whatever their names.
    let body = "double t[n];\nfor (i = 0; i < n; i++) y[i] = t[i] * alpha;";
    let dir = tempdir("uninitialised");
    let a = write(&dir, "a", body);
    let b = write(&dir, "b", body);
    let (code, out, err) = equiv(&a, &b);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("`t`, a variable of the region, read before the region writes it"),
        "{err}"
    );
}

/// A sum on the threads with OpenMP's `reduction` clause: the threads' partial sums are
/// combined in an unspecified order, so the answer is "equivalent up to reassociation of
/// the reduction of `alpha` at line 10", never plain "equivalent" (JSON
/// `equivalent-up-to-reassociation`, exit 0). `alpha -= e` is a `+` reduction. An update
/// that is not `alpha = alpha + e` is refused at its statement; a sum of other elements
/// is not equivalent, with a witness.
#[test]
fn a_reduction_on_the_threads_is_equivalent_up_to_reassociation() {
    let sum = "alpha = 0.0;\nfor (i = 0; i < n; i++) alpha += x[i];\ny[0] = alpha;";
    let par = |update: &str| {
        format!(
            "alpha = 0.0;\n#pragma omp parallel for reduction(+:alpha)\nfor (i = 0; i < n; i++) {update}\ny[0] = alpha;"
        )
    };
    let (a, b, out) = pair(
        "reduce-sum",
        sum,
        &par("alpha += x[i];"),
        Expect::Equivalent,
    );
    assert!(
        out.contains("equivalent up to reassociation of the reduction of `alpha` at line 10:"),
        "{out}"
    );
    let (code, out, _) = loopy(&[
        "equiv",
        "--format",
        "json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "equivalent-up-to-reassociation", "{out}");
    // A subtraction is an addition of the negated value.
    let minus = "alpha = 0.0;\nfor (i = 0; i < n; i++) alpha -= x[i];\ny[0] = alpha;";
    let (_, _, out) = pair(
        "reduce-minus",
        minus,
        &par("alpha -= x[i];"),
        Expect::Equivalent,
    );
    assert!(out.contains("up to reassociation"), "{out}");
    let dir = tempdir("reduce-said");
    // Not an update by the clause's operator: refused at the statement.
    for (name, update) in [
        ("reduce-scaled", "alpha = alpha * 0.5 + x[i];"),
        ("reduce-reversed", "alpha = x[i] - alpha;"),
        ("reduce-read", "{ alpha += x[i]; y[i] = alpha; }"),
    ] {
        let e = write(&dir, name, &par(update));
        let (code, out, err) = equiv(&a, &e);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(
            err.contains("otherwise than as an update `alpha = alpha + e`"),
            "{name}: {err}"
        );
        assert!(err.contains(&format!("{name}.c:11")), "{name}: {err}");
    }
    // Another sum: not equivalent, whatever the association.
    pair(
        "reduce-other",
        sum,
        &par("alpha += y[i];"),
        Expect::Different,
    );
    // A maximum, `fmax` either way round; an `fmax` update under a `+` clause is refused.
    let max = "alpha = 0.0;\nfor (i = 0; i < n; i++) alpha = fmax(alpha, x[i]);\ny[0] = alpha;";
    let f = write(&dir, "f", max);
    let on_max = |update: &str| par(update).replace("reduction(+:alpha)", "reduction(max:alpha)");
    for (name, update) in [
        ("max-a", "alpha = fmax(alpha, x[i]);"),
        ("max-b", "alpha = fmax(x[i], alpha);"),
    ] {
        // Each against the sequential loop with the same update (the order of `fmax`'s
        // arguments is part of the operation).
        // (Decided only: the test programs do not link `fmax`.)
        let f = write(
            &dir,
            &format!("{name}-seq"),
            &max.replace("alpha = fmax(alpha, x[i]);", update),
        );
        let g = write(&dir, name, &on_max(update));
        let (code, out, err) = equiv(&f, &g);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(
            out.contains("up to reassociation of the reduction of `alpha`"),
            "{out}"
        );
    }
    let g = write(&dir, "max-sum", &par("alpha = fmax(alpha, x[i]);"));
    let (code, _, err) = equiv(&f, &g);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("otherwise than as an update `alpha = alpha + e`"),
        "{err}"
    );
}

/// Atomic updates of an array in a parallel loop (what loopy generates for a reduction of
/// array elements): the rows of `A` summed into `x[i]` with the columns on the threads are
/// "equivalent up to reassociation of the atomic updates at line 12". An atomic update whose
/// operand reads the array is refused at it; a plain read of an element that other
/// iterations update atomically is a race; a sum of other elements is not equivalent.
#[test]
fn atomic_updates_on_the_threads_are_equivalent_up_to_reassociation() {
    let seq = "for (i = 0; i < n; i++)\nfor (j = 0; j < m; j++)\nx[i] += A[i][j];";
    let par = |update: &str| {
        format!(
            "for (i = 0; i < n; i++)\n#pragma omp parallel for\nfor (j = 0; j < m; j++) {{\n#pragma omp atomic\n{update}\n}}"
        )
    };
    let (a, _, out) = pair(
        "atomic-sum",
        seq,
        &par("x[i] += A[i][j];"),
        Expect::Equivalent,
    );
    assert!(
        out.contains("equivalent up to reassociation of the atomic updates at line 12:"),
        "{out}"
    );
    let dir = tempdir("atomic-said");
    for (name, update, says, line) in [
        (
            "atomic-reads",
            "x[i] += x[j];",
            "the atomic update of line 12 is not",
            13,
        ),
        (
            "atomic-race",
            "x[i] += A[i][j];\ny[j] = x[i];",
            "a race in the parallel loop",
            13,
        ),
    ] {
        let c = write(&dir, name, &par(update));
        let (code, out, err) = equiv(&a, &c);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(err.contains(&format!("{name}.c:{line}")), "{name}: {err}");
    }
    pair(
        "atomic-other",
        seq,
        &par("x[i] += A[j][i];"),
        Expect::Different,
    );
}

/// A register block unrolled by hand: four rows of `C` in four scalar accumulators, each
/// row's load, update and store written out once per row, the rows past the last whole
/// block apart. Proved within the budget as it is (the folded second attempt past the
/// budget has its own tests in `src/equiv/mod.rs`); one row's copy reading another row
/// of `A`, or storing another row's accumulator, is not equivalent, and running shows it.
#[test]
fn an_unrolled_register_block_is_proved_and_its_wrong_rows_are_not() {
    let block = "for (i = 0; i + 3 < n; i += 4)
  for (j = 0; j < m; j++) {
    double r0, r1, r2, r3;
    r0 = C[i + 0][j] * 0.5;
    r1 = C[i + 1][j] * 0.5;
    r2 = C[i + 2][j] * 0.5;
    r3 = C[i + 3][j] * 0.5;
    for (k = 0; k < n; k++) {
      r0 += alpha * A[i + 0][k] * B[k][j];
      r1 += alpha * A[i + 1][k] * B[k][j];
      r2 += alpha * A[i + 2][k] * B[k][j];
      r3 += alpha * A[i + 3][k] * B[k][j];
    }
    C[i + 0][j] = r0;
    C[i + 1][j] = r1;
    C[i + 2][j] = r2;
    C[i + 3][j] = r3;
  }
for (i = n - n % 4; i < n; i++)
  for (j = 0; j < m; j++) {
    C[i][j] *= 0.5;
    for (k = 0; k < n; k++)
      C[i][j] += alpha * A[i][k] * B[k][j];
  }";
    pair("block", GEMM, block, Expect::Equivalent);
    pair(
        "block-row",
        GEMM,
        &block.replace("r2 += alpha * A[i + 2][k]", "r2 += alpha * A[i + 1][k]"),
        Expect::Different,
    );
    pair(
        "block-store",
        GEMM,
        &block.replace("C[i + 3][j] = r3;", "C[i + 3][j] = r2;"),
        Expect::Different,
    );
}
