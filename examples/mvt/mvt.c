/*
 * mvt -- PolyBench linear-algebra/kernels/mvt, written for Loopy:
 *
 *   x1 := x1 + A * y_1
 *   x2 := x2 + A^T * y_2
 *
 * Tags (appendix B of the Loopy paper):
 *   First   x1[i] = x1[i] + A[i][j] * y_1[j]   (row-wise walk of A)
 *   Second  x2[i] = x2[i] + A[j][i] * y_2[j]   (column-wise walk of A)
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
static double x1[N];
static double x2[N];
static double y_1[N];
static double y_2[N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++) {
    x1[i] = (double) (i % 3) / 2.0;
    x2[i] = (double) ((i + 1) % 4) / 2.0;
    y_1[i] = (double) ((i + 3) % 5) / 4.0;
    y_2[i] = (double) ((i + 4) % 6) / 4.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double) ((i + 3 * j) % 10) / 8.0;
  }
}

static void kernel_mvt(int n)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
First: x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
Second: x2[i] = x2[i] + A[j][i] * y_2[j];
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
  kernel_mvt(N);
  dump("x1", x1, 1, N);
  dump("x2", x2, 1, N);
  return 0;
}
