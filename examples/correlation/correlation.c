/*
 * correlation -- PolyBench 4.2.1 datamining/correlation, written for
 * loopy: the M x M correlation matrix of N observations (rows of data) of
 * M variables (columns). The column means and standard deviations are
 * computed first, data is centred and scaled in place, and corr is
 * computed above the diagonal and mirrored below it (with ones on the
 * diagonal).
 *
 * Tags:
 *   MeanInit  mean[j] = 0                          (own { } block)
 *   MeanSum   mean[j] += data[i][j]                (column sums)
 *   MeanDiv   mean[j] /= float_n
 *   StdInit   stddev[j] = 0                        (own { } block)
 *   StdSum    stddev[j] += (data[i][j] - mean[j])^2
 *   StdFinal  first statement of the { } block that divides, takes the
 *             root and replaces a near-zero deviation by 1 (three
 *             statements; the tag names the whole block)
 *   Init      corr[i][j] = 0                       (dummy k loop)
 *   Mult      corr[i][j] += data[k][i] * data[k][j]
 *   Mirror    corr[j][i] = corr[i][j]              (dummy k loop)
 *
 * Size macros (override with -D):
 *   M, N   default 80, 100 (PolyBench SMALL)
 *   MEDIUM: -DM=240 -DN=260    LARGE: -DM=1200 -DN=1400
 */
#include <math.h>
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
static double corr[M][M];
static double mean[M];
static double stddev[M];

static void init_arrays(int m, int n)
{
  int i, j;

  /* PolyBench 4.2.1's values. */
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (double) (i * j) / m + i;
  /* Garbage that the kernel overwrites. */
  for (j = 0; j < m; j++) {
    mean[j] = -2.0;
    stddev[j] = -4.0;
    for (i = 0; i < m; i++)
      corr[j][i] = -3.0;
  }
}

static void kernel_correlation(int m, int n, double float_n)
{
  int i, j, k;
  double eps = 0.1;

#pragma scop
  for (j = 0; j < m; j++) {
    { MeanInit: mean[j] = 0.0; }
    for (i = 0; i < n; i++)
MeanSum: mean[j] += data[i][j];
MeanDiv: mean[j] /= float_n;
  }
  for (j = 0; j < m; j++) {
    { StdInit: stddev[j] = 0.0; }
    for (i = 0; i < n; i++)
StdSum: stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    {
StdFinal: stddev[j] /= float_n;
      stddev[j] = sqrt(stddev[j]);
      /* PolyBench's guard against a zero divide below. */
      stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
    }
  }
  /* Centre and scale the columns. */
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(float_n) * stddev[j];
    }
  /* The m x m correlation matrix. */
  for (i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      for (k = 0; k < 1; k++)
Init:   corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
Mult:   corr[i][j] += data[k][i] * data[k][j];
      for (k = 0; k < 1; k++)
Mirror: corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
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
  kernel_correlation(M, N, (double) N);
  dump("mean", mean, 1, M);
  dump("stddev", stddev, 1, M);
  dump("data", &data[0][0], N, M);
  dump("corr", &corr[0][0], M, M);
  return 0;
}
