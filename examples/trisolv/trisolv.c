/*
 * trisolv -- PolyBench linear-algebra/solvers/trisolv, written for Loopy:
 * forward substitution,
 *
 *   solve L * x = b   with L (N x N) lower triangular
 *
 * Tags:
 *   Row    the body of the i loop (`Row` labels its first statement,
 *          x[i] = b[i], and so names the block)
 *   Sub    x[i] -= L[i][j] * x[j]   for j < i
 *   Div    x[i] = x[i] / L[i][i]
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

static double L[N][N];
static double x[N];
static double b[N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = -999; /* garbage that the kernel must overwrite */
    b[i] = i;
    for (j = 0; j <= i; j++)
      L[i][j] = (double) (i + n - j + 1) * 2 / n;
  }
}

static void kernel_trisolv(int n)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
Row: x[i] = b[i];
    for (j = 0; j < i; j++)
Sub:  x[i] -= L[i][j] * x[j];
Div: x[i] = x[i] / L[i][i];
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
  kernel_trisolv(N);
  dump("x", x, 1, N);
  return 0;
}
