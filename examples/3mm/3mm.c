/*
 * 3mm -- PolyBench linear-algebra/kernels/3mm, written for Loopy:
 *
 *   E := A * B     (NI x NJ, inner dimension NK)
 *   F := C * D     (NJ x NL, inner dimension NM)
 *   G := E * F     (NI x NL, inner dimension NJ)
 *
 * Tags (appendix B of the Loopy paper), one pair per product:
 *   InitE / CompE   E[i][j] = 0  /  E[i][j] += A[i][k] * B[k][j]
 *   InitF / CompF   F[i][j] = 0  /  F[i][j] += C[i][k] * D[k][j]
 *   InitG / CompG   G[i][j] = 0  /  G[i][j] += E[i][k] * F[k][j]
 * Each Init* statement sits under a one-iteration dummy k loop.
 *
 * Size macros (override with -D):
 *   NI, NJ, NK, NL, NM   default 40, 50, 60, 70, 80 (PolyBench SMALL)
 *   MEDIUM: -DNI=180 -DNJ=190 -DNK=200 -DNL=210 -DNM=220
 *   LARGE:  -DNI=800 -DNJ=900 -DNK=1000 -DNL=1100 -DNM=1200
 */
#include <stdio.h>

#ifndef NI
#define NI 40
#endif
#ifndef NJ
#define NJ 50
#endif
#ifndef NK
#define NK 60
#endif
#ifndef NL
#define NL 70
#endif
#ifndef NM
#define NM 80
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NM];
static double D[NM][NL];
static double E[NI][NJ];
static double F[NJ][NL];
static double G[NI][NL];

static void init_arrays(int ni, int nj, int nk, int nl, int nm)
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double) ((i * j + 1) % 9) / 8.0;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double) ((i * (j + 1) + 2) % 7) / 4.0 - 0.5;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nm; j++)
      C[i][j] = (double) ((i * (j + 3)) % 5) / 4.0;
  for (i = 0; i < nm; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double) ((i * (j + 2) + 1) % 11) / 8.0;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      E[i][j] = 5.0; /* garbage that InitE must overwrite */
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      F[i][j] = 6.0; /* garbage that InitF must overwrite */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      G[i][j] = 7.0; /* garbage that InitG must overwrite */
}

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm)
{
  int i, j, k;

#pragma scop
  /* E := A * B */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      for (k = 0; k < 1; ++k)
InitE:  E[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
CompE:  E[i][j] += A[i][k] * B[k][j];
    }
  /* F := C * D */
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++) {
      for (k = 0; k < 1; ++k)
InitF:  F[i][j] = 0.0;
      for (k = 0; k < nm; ++k)
CompF:  F[i][j] += C[i][k] * D[k][j];
    }
  /* G := E * F */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      for (k = 0; k < 1; ++k)
InitG:  G[i][j] = 0.0;
      for (k = 0; k < nj; ++k)
CompG:  G[i][j] += E[i][k] * F[k][j];
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
  init_arrays(NI, NJ, NK, NL, NM);
  kernel_3mm(NI, NJ, NK, NL, NM);
  dump("E", &E[0][0], NI, NJ);
  dump("F", &F[0][0], NJ, NL);
  dump("G", &G[0][0], NI, NL);
  return 0;
}
