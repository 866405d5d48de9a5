/*
 * qr-lapack -- the reference for examples/qr: the same program (same matrix, same output
 * format) with the factorisation done by LAPACK's dgeqrf, called through LAPACKE (row
 * major). `loopy bench` times it beside the original and the transformed program (the
 * `reference` of qr's entry in examples/loopy.toml).
 *
 * Needs LAPACKE: on Debian, apt-get install liblapacke-dev (linked with -llapacke; the
 * LAPACK behind it is the system's: OpenBLAS's where it is installed, else the reference
 * LAPACK; LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas
 * selects the reference one).
 *
 * Its output is not the original's, and `loopy bench` does not compare it (the entry's
 * `compare = false`): dgeqrf's reflections map each column onto -sign(x1) |x| e1 where
 * Golub and Van Loan's map it onto +|x| e1, so R's rows may have the other sign and the
 * Householder vectors and factors differ, and it sums in another order (blocked). So this
 * program checks its own result: for 16 pseudo-random columns j, Q R[.][j] (the reflections
 * applied to column j of R) is within 1e-9 * max |A| of column j of A, element by
 * element, else it prints the first failure and exits with status 1 (bench then reports
 * the reference as failed). It prints LAPACK's R, vectors and factors as they are.
 *
 * The `#pragma scop` region marks the kernel for bench's kernel clock (docs/bench.md): it
 * times the LAPACKE call alone (LAPACKE's row-major path transposes the matrix in and out
 * of LAPACK's column-major layout inside it, O(MN) of the O(MN^2) work).
 */
#include <lapacke.h>
#include <string.h>

/* The example itself, with its main renamed: this file keeps its arrays, init_arrays and
   dump, and has a main of its own. */
#define main qr_example_main
#include "qr.c"
#undef main

static double A0[M][N];
static double x[M];

static int check(int m, int n)
{
  unsigned long long r = 1;
  double amax = 0.0, dot;
  int i, j, k, s;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      if (fabs(A0[i][j]) > amax)
        amax = fabs(A0[i][j]);
  for (s = 0; s < 16; s++) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    j = (int) ((r >> 33) % (unsigned long long) n);
    /* x = R[.][j], then x = H_0 H_1 ... H_j x with H_k = I - tau[k] v v^T, v = [1; A[k+1..][k]]
       (the later reflections leave x alone: it is zero below row j). */
    for (i = 0; i < m; i++)
      x[i] = i <= j ? A[i][j] : 0.0;
    for (k = j < m - 1 ? j : m - 1; k >= 0; k--) {
      dot = x[k];
      for (i = k + 1; i < m; i++)
        dot += A[i][k] * x[i];
      dot *= tau[k];
      x[k] -= dot;
      for (i = k + 1; i < m; i++)
        x[i] -= dot * A[i][k];
    }
    for (i = 0; i < m; i++)
      if (!(fabs(x[i] - A0[i][j]) <= 1e-9 * amax)) {
        fprintf(stderr, "dgeqrf: (Q R - A)[%d][%d] = %g, more than 1e-9 * max|A| = %g\n", i, j,
                x[i] - A0[i][j], 1e-9 * amax);
        return 0;
      }
  }
  return 1;
}

int main(void)
{
  int m = M, n = N;
  lapack_int info;

  init_arrays(M, N);
  memcpy(A0, A, sizeof A);
#pragma scop
  info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, m, n, &A[0][0], N, tau);
#pragma endscop
  if (info < 0 || !check(m, n)) {
    fprintf(stderr, "dgeqrf failed (info %d)\n", (int) info);
    return 1;
  }
  dump("A", &A[0][0], M, N);
  dump("tau", tau, 1, N);
  return 0;
}
