/*
 * trmm -- PolyBench linear-algebra/blas/trmm, written for Loopy:
 *
 *   B := alpha * A^T * B   with A (M x M) unit lower triangular,
 *                          B (M x N), computed in place.
 *
 * Tags (appendix B of the Loopy paper):
 *   Mult   B[i][j] += A[k][i] * B[k][j]   for k = i+1 .. M-1
 *   Alpha  B[i][j] = alpha * B[i][j]       (under a one-iteration k loop)
 *
 * Size macros (override with -D):
 *   M, N   default 60, 80 (PolyBench SMALL)
 *   MEDIUM: -DM=200 -DN=240    LARGE: -DM=1000 -DN=1200
 */
#include <stdio.h>

#ifndef M
#define M 60
#endif
#ifndef N
#define N 80
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[M][M];
static double B[M][N];

static void init_arrays(int m, int n)
{
  int i, j;

  for (i = 0; i < m; i++) {
    for (j = 0; j < m; j++)
      A[i][j] = (double) ((i + 2 * j) % 9) / 8.0;
    for (j = 0; j < n; j++)
      B[i][j] = (double) ((3 * i + j) % 7) / 4.0 - 0.75;
  }
}

static void kernel_trmm(int m, int n, double alpha)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
Mult:   B[i][j] += A[k][i] * B[k][j];
      for (k = 0; k < 1; k++)
Alpha:  B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

/* ------------------------------------------------------------------ */
/* Output helpers (outside the tagged region).                         */
/* Small blocks are printed in full ("%.10g"); big ones as an evenly   */
/* spaced sample of about 1000 elements. Every block ends with its sum */
/* ("%.17g") and a hash of the raw bit patterns, so that a change in   */
/* any bit of any element changes the output.                          */
/* ------------------------------------------------------------------ */

#ifndef PRINT_LIMIT
#define PRINT_LIMIT 20000
#endif

static unsigned long long bits_hash(const double *a, long count)
{
  unsigned long long h = 14695981039346656037ULL;
  long idx;
  int byte;

  for (idx = 0; idx < count; idx++) {
    union { double d; unsigned long long u; } v;
    v.d = a[idx];
    for (byte = 0; byte < 8; byte++) {
      h ^= (v.u >> (8 * byte)) & 0xffULL;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

static void dump(const char *name, const double *a, long rows, long cols)
{
  long count = rows * cols;
  long r, c, idx, stride;
  double total = 0.0;

  printf("== %s (%ld x %ld)\n", name, rows, cols);
  if (count <= PRINT_LIMIT) {
    for (r = 0; r < rows; r++) {
      for (c = 0; c < cols; c++)
        printf("%.10g ", a[r * cols + c]);
      printf("\n");
    }
  } else {
    stride = count / 1000 + 1;
    for (idx = 0; idx < count; idx += stride)
      printf("%s[%ld] = %.10g\n", name, idx, a[idx]);
  }
  for (idx = 0; idx < count; idx++)
    total += a[idx];
  printf("%s: sum %.17g hash %016llx\n", name, total, bits_hash(a, count));
}

int main(void)
{
  init_arrays(M, N);
  kernel_trmm(M, N, 1.5);
  dump("B", &B[0][0], M, N);
  return 0;
}
