/*
 * jacobi-2d -- PolyBench stencils/jacobi-2d, written for Loopy: 2-D
 * Jacobi relaxation, 5-point stencil, ping-ponging between A and B.
 *
 * Tags (the kernel is missing from the text version of appendix B; the
 * tags are those its script uses):
 *   LoopB  B[i][j] = 0.2 * (5-point neighbourhood of A)
 *   LoopA  A[i][j] = 0.2 * (5-point neighbourhood of B)
 *
 * Size macros (override with -D):
 *   TSTEPS, N   default 40, 90 (PolyBench SMALL)
 *   MEDIUM: -DTSTEPS=100 -DN=250    LARGE: -DTSTEPS=500 -DN=1300
 */
#include <stdio.h>

#ifndef TSTEPS
#define TSTEPS 40
#endif
#ifndef N
#define N 90
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N][N];
static double B[N][N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (double) ((i * (j + 2) + 2) % 13) / 8.0;
      B[i][j] = (double) ((i * (j + 3) + 3) % 11) / 8.0;
    }
}

static void kernel_jacobi_2d(int tsteps, int n)
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
LoopB:  B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
LoopA:  A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j]);
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
  kernel_jacobi_2d(TSTEPS, N);
  dump("A", &A[0][0], N, N);
  dump("B", &B[0][0], N, N);
  return 0;
}
