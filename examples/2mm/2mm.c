/*
 * 2mm -- PolyBench linear-algebra/kernels/2mm, written for Loopy:
 *
 *   tmp := alpha * A * B          (NI x NJ)
 *   D   := beta * D + tmp * C     (NI x NL)
 *
 * Tags (appendix B of the Loopy paper):
 *   Init   tmp[i][j] = 0            (in a { } block under a dummy k loop)
 *   Mult   tmp[i][j] += alpha * A[i][k] * B[k][j]
 *   Scale  D[i][j] *= beta          (under a dummy k loop)
 *   Sum    D[i][j] += tmp[i][k] * C[k][j]
 *
 * Size macros (override with -D):
 *   NI, NJ, NK, NL   default 40, 50, 70, 80 (PolyBench SMALL)
 *   MEDIUM: -DNI=180 -DNJ=190 -DNK=210 -DNL=220
 *   LARGE:  -DNI=800 -DNJ=900 -DNK=1100 -DNL=1200
 */
#include <stdio.h>

#ifndef NI
#define NI 40
#endif
#ifndef NJ
#define NJ 50
#endif
#ifndef NK
#define NK 70
#endif
#ifndef NL
#define NL 80
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double tmp[NI][NJ];
static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NL];
static double D[NI][NL];

static void init_arrays(int ni, int nj, int nk, int nl)
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double) ((i * j + 1) % 7) / 4.0;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double) ((i * (j + 2)) % 5) / 4.0;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      C[i][j] = (double) ((i * (j + 1) + 2) % 9) / 8.0;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double) ((i * (j + 3)) % 11) / 2.0;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      tmp[i][j] = 3.0; /* garbage that Init must overwrite */
}

static void kernel_2mm(int ni, int nj, int nk, int nl,
                       double alpha, double beta)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      for (k = 0; k < 1; ++k) {
Init:   tmp[i][j] = 0.0;
      }
      for (k = 0; k < nk; ++k)
Mult:   tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      for (k = 0; k < 1; ++k)
Scale:  D[i][j] *= beta;
      for (k = 0; k < nj; ++k)
Sum:    D[i][j] += tmp[i][k] * C[k][j];
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
  init_arrays(NI, NJ, NK, NL);
  kernel_2mm(NI, NJ, NK, NL, 1.5, 1.25);
  dump("tmp", &tmp[0][0], NI, NJ);
  dump("D", &D[0][0], NI, NL);
  return 0;
}
