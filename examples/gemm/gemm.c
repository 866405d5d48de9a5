/*
 * gemm -- PolyBench 4.2.1 linear-algebra/blas/gemm, written for Loopy:
 *
 *   C := alpha * A * B + beta * C     (NI x NJ, A is NI x NK, B is NK x NJ)
 *
 * The loops are PolyBench 4.2.1's: for each row i, scale the row of C by beta, then
 * accumulate in i-k-j order (the innermost loop walks rows of B and C).
 *
 * Tags:
 *   Scale  C[i][j] *= beta
 *   Mult   C[i][j] += alpha * A[i][k] * B[k][j]
 *
 * Size macros (override with -D):
 *   NI, NJ, NK   default 1000, 1100, 1200 (PolyBench LARGE)
 *   SMALL:  -DNI=60 -DNJ=70 -DNK=80
 *   MEDIUM: -DNI=200 -DNJ=220 -DNK=240
 */
#include <stdio.h>

#ifndef NI
#define NI 1000
#endif
#ifndef NJ
#define NJ 1100
#endif
#ifndef NK
#define NK 1200
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double C[NI][NJ];
static double A[NI][NK];
static double B[NK][NJ];

static void init_arrays(int ni, int nj, int nk)
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (double) ((i * j + 1) % 13) / 4.0;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double) ((i * (j + 1)) % 7) / 8.0;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double) ((i * (j + 2) + 1) % 9) / 2.0;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
Scale: C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
Mult:   C[i][j] += alpha * A[i][k] * B[k][j];
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
  init_arrays(NI, NJ, NK);
  kernel_gemm(NI, NJ, NK, 1.5, 1.25);
  dump("C", &C[0][0], NI, NJ);
  return 0;
}
