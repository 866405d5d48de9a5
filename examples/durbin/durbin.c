/*
 * durbin -- PolyBench 4.2.1 linear-algebra/solvers/durbin, written for
 * loopy: Levinson-Durbin recursion, which solves the Yule-Walker equations
 * (a symmetric Toeplitz system whose first row is 1, r[0], ..., r[n-2])
 * for y. Step k extends the solution of order k to order k + 1 through the
 * scalars beta, sum and alpha, in z and back into y.
 *
 * Tags:
 *   Sum     sum += r[k-i-1] * y[i]          (the dot product of step k)
 *   Alpha   alpha = -(r[k] + sum) / beta
 *   Update  z[i] = y[i] + alpha * y[k-i-1]  (reads y in both directions)
 *   Copy    y[i] = z[i]
 *   Last    y[k] = alpha
 *
 * Size macro (override with -D):
 *   N   default 120 (PolyBench SMALL)   MEDIUM: -DN=400   LARGE: -DN=2000
 */
#include <stdio.h>

#ifndef N
#define N 120
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double r[N];
static double y[N];
static double z[N];

static void init_arrays(int n)
{
  int i;

  /* PolyBench 4.2.1's values. */
  for (i = 0; i < n; i++) {
    r[i] = n + 1 - i;
    y[i] = -5.0;   /* garbage that the kernel overwrites */
    z[i] = -7.0;   /* scratch garbage */
  }
}

static void kernel_durbin(int n)
{
  int i, k;
  double alpha, beta, sum;

#pragma scop
  y[0] = -r[0];
  beta = 1.0;
  alpha = -r[0];
  for (k = 1; k < n; k++) {
    beta = (1 - alpha * alpha) * beta;
    sum = 0.0;
    for (i = 0; i < k; i++)
Sum:  sum += r[k - i - 1] * y[i];
Alpha: alpha = -(r[k] + sum) / beta;
    for (i = 0; i < k; i++)
Update: z[i] = y[i] + alpha * y[k - i - 1];
    for (i = 0; i < k; i++)
Copy: y[i] = z[i];
Last: y[k] = alpha;
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
  kernel_durbin(N);
  dump("y", y, 1, N);
  dump("z", z, 1, N);
  return 0;
}
