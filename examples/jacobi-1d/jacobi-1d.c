/*
 * jacobi-1d -- PolyBench stencils/jacobi-1d, written for Loopy: 1-D
 * Jacobi relaxation, 3-point stencil, ping-ponging between A and B.
 *
 * Tags:
 *   LoopB  B[i] = 0.33333 * (A[i-1] + A[i] + A[i+1])
 *   LoopA  A[i] = 0.33333 * (B[i-1] + B[i] + B[i+1])
 *
 * Size macros (override with -D):
 *   TSTEPS, N   default 40, 120 (PolyBench SMALL)
 *   MEDIUM: -DTSTEPS=100 -DN=400    LARGE: -DTSTEPS=500 -DN=2000
 */
#include <stdio.h>

#ifndef TSTEPS
#define TSTEPS 40
#endif
#ifndef N
#define N 120
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N];
static double B[N];

static void init_arrays(int n)
{
  int i;

  for (i = 0; i < n; i++) {
    A[i] = ((double) i + 2) / n;
    B[i] = ((double) i + 3) / n;
  }
}

static void kernel_jacobi_1d(int tsteps, int n)
{
  int t, i;

#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
LoopB: B[i] = 0.33333 * (A[i-1] + A[i] + A[i+1]);
    for (i = 1; i < n - 1; i++)
LoopA: A[i] = 0.33333 * (B[i-1] + B[i] + B[i+1]);
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
  kernel_jacobi_1d(TSTEPS, N);
  dump("A", A, 1, N);
  dump("B", B, 1, N);
  return 0;
}
