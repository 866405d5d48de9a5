/*
 * div -- the loop of Figure 1b of the Loopy paper:
 *
 *     A[i] = A[i] / A[i-1]   for i = 1 .. N-1, in increasing order.
 *
 * Each iteration reads the value the previous iteration just wrote, so
 * reversing the loop is illegal. With A = [1,2,3,4] the loop yields
 * [1, 2, 3/2, 8/3]; the reversed loop would give [1, 2, 3/2, 4/3].
 * Tag:
 *   Div   the division statement
 *
 * Size macro (override with -D):
 *   N   default 16 (small; -DN=4 reproduces the paper's example)
 *   MEDIUM-like: -DN=100000    LARGE-like: -DN=1000000
 *   (there is no PolyBench counterpart; the loop is linear in N)
 */
#include <stdio.h>

#ifndef N
#define N 16
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N];

static void init_arrays(int n)
{
  int i;

  for (i = 0; i < n; i++)
    A[i] = (double) (i + 1);
}

static void kernel_div(int n)
{
  int i;

#pragma scop
  for (i = 1; i < n; i++)
Div: A[i] = A[i] / A[i-1];
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
  int i;

  init_arrays(N);
  kernel_div(N);
  if (N <= 64)
    for (i = 0; i < N; i++)
      printf("%.6f\n", A[i]);
  dump("A", A, 1, N);
  return 0;
}
