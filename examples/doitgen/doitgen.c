/*
 * doitgen -- PolyBench linear-algebra/kernels/doitgen, written for Loopy
 * (multiresolution analysis kernel): for every (r, q), the row A[r][q][*]
 * is replaced by its product with the NP x NP matrix C4, using the
 * scratch vector sum.
 *
 * Tags (appendix B of the Loopy paper):
 *   Init  sum[p] = 0                         (under a dummy s loop)
 *   Mult  sum[p] += A[r][q][s] * C4[s][p]
 *   Ret   A[r][q][p] = sum[p]
 *
 * Size macros (override with -D):
 *   NQ, NR, NP   default 20, 25, 30 (PolyBench SMALL)
 *   MEDIUM: -DNQ=40 -DNR=50 -DNP=60    LARGE: -DNQ=140 -DNR=150 -DNP=160
 */
#include <stdio.h>

#ifndef NQ
#define NQ 20
#endif
#ifndef NR
#define NR 25
#endif
#ifndef NP
#define NP 30
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[NR][NQ][NP];
static double C4[NP][NP];
static double sum[NP];

static void init_arrays(int nr, int nq, int np)
{
  int r, q, p, s;

  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++)
      for (p = 0; p < np; p++)
        A[r][q][p] = (double) ((r * q + 2 * p) % 10) / 8.0;
  for (s = 0; s < np; s++)
    for (p = 0; p < np; p++)
      C4[s][p] = (double) ((s * p + 1) % 7) / 4.0;
  for (p = 0; p < np; p++)
    sum[p] = -1.0; /* garbage that Init must overwrite */
}

static void kernel_doitgen(int nr, int nq, int np)
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        for (s = 0; s < 1; s++)
Init:     sum[p] = 0.0;
        for (s = 0; s < np; s++)
Mult:     sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
Ret:    A[r][q][p] = sum[p];
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
  init_arrays(NR, NQ, NP);
  kernel_doitgen(NR, NQ, NP);
  dump("A", &A[0][0][0], (long) NR * NQ, NP);
  dump("sum", sum, 1, NP);
  return 0;
}
