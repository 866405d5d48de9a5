/*
 * atax -- PolyBench linear-algebra/kernels/atax, written for Loopy:
 *
 *   y := A^T * (A * x)   with A (M x N), through tmp := A * x
 *
 * Tags:
 *   InitY  y[i] = 0.0
 *   Ax     tmp[i] = tmp[i] + A[i][j] * x[j]   (row i of A times x)
 *   ATy    y[j] = y[j] + A[i][j] * tmp[i]     (row i of A, scaled, into y)
 * The zeroing of tmp[i] is the untagged statement S1.
 *
 * Size macros (override with -D):
 *   M, N   default 116, 124 (PolyBench SMALL)
 *   MEDIUM: -DM=390 -DN=410    LARGE: -DM=1900 -DN=2100
 */
#include <stdio.h>

#ifndef M
#define M 116
#endif
#ifndef N
#define N 124
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[M][N];
static double x[N];
static double y[N];
static double tmp[M];

static void init_arrays(int m, int n)
{
  int i, j;
  double fn = (double) n;

  for (i = 0; i < n; i++) {
    x[i] = 1 + (i / fn);
    y[i] = -4.0; /* garbage that InitY must overwrite */
  }
  for (i = 0; i < m; i++) {
    tmp[i] = -5.0; /* garbage that the kernel must overwrite */
    for (j = 0; j < n; j++)
      A[i][j] = (double) ((i + j) % n) / (5 * m);
  }
}

static void kernel_atax(int m, int n)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
InitY: y[i] = 0.0;
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
Ax:   tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < n; j++)
ATy:  y[j] = y[j] + A[i][j] * tmp[i];
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
  kernel_atax(M, N);
  dump("y", y, 1, N);
  dump("tmp", tmp, 1, M);
  return 0;
}
