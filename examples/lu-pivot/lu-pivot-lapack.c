/*
 * lu-pivot-lapack -- the reference for examples/lu-pivot: the same program (same matrix,
 * same output format) with the factorisation done by LAPACK's dgetrf, called through
 * LAPACKE (row major). `loopy bench` times it beside the original and the transformed
 * program (the `reference` of lu-pivot's entry in examples/loopy.toml).
 *
 * Needs LAPACKE: on Debian, apt-get install liblapacke-dev (linked with -llapacke; the
 * LAPACK behind it is the system's: OpenBLAS's where it is installed, else the reference
 * LAPACK; LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas
 * selects the reference one).
 *
 * Its output is not the original's, and `loopy bench` does not compare it (the entry's
 * `compare = false`): dgetrf chooses its pivots by the same rule (the first element of
 * largest magnitude) but sums in another order (blocked), so its bits differ, and it swaps
 * whole rows, L included. So this program checks its own result: at 4096 pseudo-random
 * positions (i, j), |(P A)[i][j] - (L U)[i][j]| <= 1e-9 * max |A|, else it prints the
 * first failure and exits with status 1 (bench then reports the reference as failed).
 * After the check it puts L back in the example's form (each column as its own step left
 * it) and the pivots as 0-based rows, so that its dump reads like the original's.
 *
 * The `#pragma scop` region marks the kernel for bench's kernel clock (docs/bench.md): it
 * times the LAPACKE call alone (LAPACKE's row-major path transposes the matrix in and out
 * of LAPACK's column-major layout inside it, O(n^2) of the O(n^3) work).
 */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

/* The example itself, with its main renamed: this file keeps its arrays, init_arrays and
   dump, and has a main of its own. */
#define main lu_pivot_example_main
#include "lu-pivot.c"
#undef main

static double A0[N][N];
static lapack_int ipiv[N];
static int perm[N];

/* (L U)[i][j] from the factors dgetrf leaves in A (L unit lower, U upper). */
static double lu_entry(int i, int j)
{
  int k, m = i < j ? i : j;
  double s = 0.0;

  for (k = 0; k < m; k++)
    s += A[i][k] * A[k][j];
  return i <= j ? s + A[i][j] : s + A[i][j] * A[j][j];
}

static int check(int n)
{
  unsigned long long x = 1;
  double amax = 0.0;
  int i, j, k, s, r;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (fabs(A0[i][j]) > amax)
        amax = fabs(A0[i][j]);
  /* Row i of P A is row perm[i] of A: the interchanges applied in order. */
  for (i = 0; i < n; i++)
    perm[i] = i;
  for (k = 0; k < n; k++) {
    r = perm[k];
    perm[k] = perm[ipiv[k] - 1];
    perm[ipiv[k] - 1] = r;
  }
  for (s = 0; s < 4096; s++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    i = (int) ((x >> 33) % (unsigned long long) n);
    j = (int) ((x >> 13) % (unsigned long long) n);
    if (!(fabs(A0[perm[i]][j] - lu_entry(i, j)) <= 1e-9 * amax)) {
      fprintf(stderr, "dgetrf: (P A - L U)[%d][%d] = %g, more than 1e-9 * max|A| = %g\n", i,
              j, A0[perm[i]][j] - lu_entry(i, j), 1e-9 * amax);
      return 0;
    }
  }
  return 1;
}

int main(void)
{
  int n = N, k, j, s;
  lapack_int info;
  double t;

  init_arrays(N);
  memcpy(A0, A, sizeof A);
#pragma scop
  info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, &A[0][0], N, ipiv);
#pragma endscop
  if (info < 0 || !check(n)) {
    fprintf(stderr, "dgetrf failed (info %d)\n", (int) info);
    return 1;
  }
  /* The example's form: undo the later steps' swaps in each column of L, last first. */
  for (s = n - 2; s >= 1; s--)
    for (j = 0; j < s; j++) {
      t = A[s][j];
      A[s][j] = A[ipiv[s] - 1][j];
      A[ipiv[s] - 1][j] = t;
    }
  for (k = 0; k < n - 1; k++)
    p[k] = (int) ipiv[k] - 1;
  dump("A", &A[0][0], N, N);
  dump_pivots(p, N - 1);
  return 0;
}
