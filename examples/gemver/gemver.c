/*
 * gemver -- PolyBench linear-algebra/blas/gemver, written for Loopy:
 *
 *   A := A + u1 * v1^T + u2 * v2^T
 *   x := x + beta * A^T * y + z
 *   w := w + alpha * A * x
 *
 * Tag (appendix B of the Loopy paper):
 *   Second  the x := x + beta * A^T * y statement (column-wise walk of A)
 *
 * Size macro (override with -D):
 *   N   default 120 (PolyBench SMALL)
 *   MEDIUM: -DN=400    LARGE: -DN=2000
 */
#include <stdio.h>

#ifndef N
#define N 120
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N][N];
static double u1[N];
static double v1[N];
static double u2[N];
static double v2[N];
static double w[N];
static double x[N];
static double y[N];
static double z[N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++) {
    u1[i] = (double) (i % 5) / 2.0;
    u2[i] = (double) ((i + 1) % 7) / 4.0;
    v1[i] = (double) ((i + 2) % 3) / 8.0;
    v2[i] = (double) ((i + 3) % 9) / 16.0;
    y[i] = (double) ((i + 1) % 11) / 8.0;
    z[i] = (double) (i % 4) / 4.0;
    x[i] = (double) (i % 3) / 2.0;
    w[i] = 0.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double) ((i * j + 3) % 13) / 8.0;
  }
}

static void kernel_gemver(int n, double alpha, double beta)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
Second: x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
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
  init_arrays(N);
  kernel_gemver(N, 1.5, 1.25);
  dump("A", &A[0][0], N, N);
  dump("x", x, 1, N);
  dump("w", w, 1, N);
  return 0;
}
