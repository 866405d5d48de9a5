/*
 * syr2k -- PolyBench linear-algebra/blas/syr2k, written for Loopy: the
 * symmetric rank-2k update (BLAS dsyr2k, lower triangle, no transpose),
 *
 *   C := alpha * A * B^T + alpha * B * A^T + beta * C
 *        with A, B (N x M), C (N x N); only the lower triangle j <= i
 *
 * Tags:
 *   Scale  C[i][j] *= beta                                     (j <= i)
 *   Mult   C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k]
 *                                                       (loops i, k, j)
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

static double A[N][M];
static double B[N][M];
static double C[N][N];

static void init_arrays(int n, int m)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (double) ((i * j + 1) % n) / n;
      B[i][j] = (double) ((i * j + 2) % m) / m;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (double) ((i * j + 3) % n) / m;
}

static void kernel_syr2k(int n, int m, double alpha, double beta)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
Scale: C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
Mult:   C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
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
  init_arrays(N, M);
  kernel_syr2k(N, M, 1.5, 1.2);
  dump("C", &C[0][0], N, N);
  return 0;
}
