/*
 * matmul -- dense matrix product C = A * B.
 *
 * This is the running example of the Loopy paper (Figure 1a, sections 2
 * and 3.2). Two loop components are tagged:
 *   Init  the statement that clears C[i][j]
 *   Mult  the statement that accumulates A[i][k] * B[k][j] into C[i][j]
 * Each tagged statement sits alone in its own { } block under a k loop;
 * Init gets a one-iteration dummy k loop, the style the paper's
 * implementation uses to keep a tagged block visible (section 5).
 *
 * Size macro (override with -D):
 *   N   default 100 (small, runs in milliseconds)
 *   MEDIUM-like: -DN=200    LARGE-like: -DN=1000
 *   (square counterparts of PolyBench gemm MEDIUM/LARGE; the paper's own
 *    matmul example used N=1536)
 */
#include <stdio.h>

#ifndef N
#define N 100
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N][N];
static double B[N][N];
static double C[N][N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (double) ((7 * i + 3 * j) % 11) / 4.0 - 1.0;
      B[i][j] = (double) ((5 * i + 2 * j + 1) % 13) / 8.0 - 0.5;
      C[i][j] = -7.0; /* garbage that Init must overwrite */
    }
}

static void kernel_matmul(int n)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      for (k = 0; k < 1; k++) {
Init:   C[i][j] = 0.0;
      }
      for (k = 0; k < n; k++) {
Mult:   C[i][j] = C[i][j] + A[i][k] * B[k][j];
      }
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
  kernel_matmul(N);
  dump("C", &C[0][0], N, N);
  return 0;
}
