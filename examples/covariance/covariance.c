/*
 * covariance -- PolyBench datamining/covariance, written for Loopy:
 * the M x M covariance matrix of N observations (rows of data) of M
 * variables (columns). data is centred in place; cov is computed on and
 * above the diagonal and mirrored below it.
 *
 * Tags (appendix B of the Loopy paper):
 *   Init   cov[i][j] = 0                       (dummy k loop)
 *   Mult   cov[i][j] += data[k][i] * data[k][j]
 *   Final  first statement of the { } block (dummy k loop) that scales
 *          cov[i][j] and mirrors it into cov[j][i]; the tag names the
 *          whole two-statement block (paper, section 3.1)
 *
 * Size macros (override with -D):
 *   M, N   default 80, 100 (PolyBench SMALL)
 *   MEDIUM: -DM=240 -DN=260    LARGE: -DM=1200 -DN=1400
 */
#include <stdio.h>

#ifndef M
#define M 80
#endif
#ifndef N
#define N 100
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double data[N][M];
static double cov[M][M];
static double mean[M];

static void init_arrays(int m, int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (double) ((i * (j + 1)) % 13) / 4.0;
  for (i = 0; i < m; i++) {
    mean[i] = -2.0;         /* garbage that the mean loop overwrites */
    for (j = 0; j < m; j++)
      cov[i][j] = -3.0;     /* garbage that Init / Final overwrite */
  }
}

static void kernel_covariance(int m, int n, double float_n)
{
  int i, j, k;

#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      for (k = 0; k < 1; k++)
Init:   cov[i][j] = 0.0;
      for (k = 0; k < n; k++)
Mult:   cov[i][j] += data[k][i] * data[k][j];
      for (k = 0; k < 1; k++) {
Final:  cov[i][j] /= (float_n - 1.0);
        cov[j][i] = cov[i][j];
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
  init_arrays(M, N);
  kernel_covariance(M, N, (double) N);
  dump("mean", mean, 1, M);
  dump("data", &data[0][0], N, M);
  dump("cov", &cov[0][0], M, M);
  return 0;
}
