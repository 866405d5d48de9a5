/*
 * cholesky-lapack -- the reference for examples/cholesky: the same program (same matrix,
 * same output format) with the factorisation done by LAPACK's dpotrf (lower triangle),
 * called through LAPACKE (row major). `loopy bench` times it beside the original and the
 * transformed program (the `reference` of cholesky's entry in examples/loopy.toml).
 *
 * Needs LAPACKE: on Debian, apt-get install liblapacke-dev (linked with -llapacke; the
 * LAPACK behind it is the system's: OpenBLAS's where it is installed, else the reference
 * LAPACK; LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas
 * selects the reference one).
 *
 * Its output is not the original's, and `loopy bench` does not compare it (the entry's
 * `compare = false`): dpotrf computes the same L but sums in another order (blocked), so
 * its bits differ. So this program checks its own result: at 4096 pseudo-random positions
 * (i, j) with j <= i, |(L L^T)[i][j] - A[i][j]| <= 1e-9 * max |A|, else it prints the
 * first failure and exits with status 1 (bench then reports the reference as failed).
 *
 * The `#pragma scop` region marks the kernel for bench's kernel clock (docs/bench.md): it
 * times the LAPACKE call alone (LAPACKE's row-major path transposes the matrix in and out
 * of LAPACK's column-major layout inside it, O(n^2) of the O(n^3) work).
 */
#include <lapacke.h>
#include <string.h>

/* The example itself, with its main renamed: this file keeps its arrays, init_arrays and
   dump, and has a main of its own. */
#define main cholesky_example_main
#include "cholesky.c"
#undef main

static double A0[N][N];

static int check(int n)
{
  unsigned long long x = 1;
  double amax = 0.0, s;
  int i, j, k, c;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (fabs(A0[i][j]) > amax)
        amax = fabs(A0[i][j]);
  for (c = 0; c < 4096; c++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    i = (int) ((x >> 33) % (unsigned long long) n);
    j = (int) ((x >> 13) % (unsigned long long) (i + 1));
    s = 0.0;
    for (k = 0; k <= j; k++)
      s += A[i][k] * A[j][k];
    if (!(fabs(s - A0[i][j]) <= 1e-9 * amax)) {
      fprintf(stderr, "dpotrf: (L L^T - A)[%d][%d] = %g, more than 1e-9 * max|A| = %g\n", i,
              j, s - A0[i][j], 1e-9 * amax);
      return 0;
    }
  }
  return 1;
}

int main(void)
{
  int n = N;
  lapack_int info;

  init_arrays(N);
  memcpy(A0, A, sizeof A);
#pragma scop
  info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, &A[0][0], N);
#pragma endscop
  if (info != 0 || !check(n)) {
    fprintf(stderr, "dpotrf failed (info %d)\n", (int) info);
    return 1;
  }
  dump("A", &A[0][0], N, N);
  return 0;
}
