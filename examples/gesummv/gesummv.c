/*
 * gesummv -- PolyBench linear-algebra/blas/gesummv, written for Loopy:
 * the sum of two matrix-vector products,
 *
 *   y := alpha * A * x + beta * B * x   with tmp := A * x
 *
 * Tags:
 *   Row    the body of the i loop (all five statements: `Row` labels its
 *          first statement, tmp[i] = 0.0, and so names the block)
 *   Acc    the body of the j loop: tmp[i] += A[i][j] * x[j] and
 *          y[i] += B[i][j] * x[j] (as A[i][j] * x[j] + tmp[i], ...)
 *   Final  y[i] = alpha * tmp[i] + beta * y[i]
 *
 * Size macro (override with -D):
 *   N   default 90 (PolyBench SMALL)
 *   MEDIUM: -DN=250    LARGE: -DN=1300
 */
#include <stdio.h>

#ifndef N
#define N 90
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N][N];
static double B[N][N];
static double tmp[N];
static double x[N];
static double y[N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = (double) (i % n) / n;
    tmp[i] = -2.0; /* garbage that the kernel must overwrite */
    y[i] = -3.0;
    for (j = 0; j < n; j++) {
      A[i][j] = (double) ((i * j + 1) % n) / n;
      B[i][j] = (double) ((i * j + 2) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, double alpha, double beta)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
Row: tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++) {
Acc:  tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
Final: y[i] = alpha * tmp[i] + beta * y[i];
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
  init_arrays(N);
  kernel_gesummv(N, 1.5, 1.2);
  dump("tmp", tmp, 1, N);
  dump("y", y, 1, N);
  return 0;
}
