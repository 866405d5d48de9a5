/*
 * mgs -- QR factorisation by modified Gram-Schmidt, written for loopy:
 * A (M x N, full column rank) = Q * R with Q (M x N) orthonormal columns and
 * R (N x N) upper triangular. A is overwritten by the partly orthogonalised
 * columns. The norm is accumulated in R[k][k] (no scalar temporary), so every
 * statement is a tagged array assignment.
 *
 * Tags:
 *   Norm   R[k][k] += A[i][k] * A[i][k]
 *   Root   R[k][k] = sqrt(R[k][k])
 *   Col    Q[i][k] = A[i][k] / R[k][k]
 *   Dot    R[k][j] += Q[i][k] * A[i][j]       for j > k
 *   Upd    A[i][j] -= Q[i][k] * R[k][j]       for j > k
 *
 * Size macros (override with -D):
 *   M, N   default 80, 60    MEDIUM: -DM=240 -DN=200    LARGE: -DM=1200 -DN=1000
 */
#include <math.h>
#include <stdio.h>

#ifndef M
#define M 80
#endif
#ifndef N
#define N 60
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[M][N];
static double Q[M][N];
static double R[N][N];

static void init_arrays(int m, int n)
{
  int i, j;

  /* Off-diagonal entries are at most 1 and the "diagonal" entry of each
     column is m + 1: full column rank. R starts at zero (the kernel
     accumulates into it); Q starts as garbage that the kernel overwrites. */
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (double) ((i + 2 * j) % 7 + 1) / 8.0;
      if (i == j)
        A[i][j] += (double) (m + 1);
      Q[i][j] = -1.0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0.0;
}

static void kernel_mgs(int m, int n)
{
  int i, j, k;

#pragma scop
  for (k = 0; k < n; k++) {
    for (i = 0; i < m; i++) {
Norm: R[k][k] += A[i][k] * A[i][k];
    }
Root: R[k][k] = sqrt(R[k][k]);
    for (i = 0; i < m; i++) {
Col:  Q[i][k] = A[i][k] / R[k][k];
    }
    for (j = k + 1; j < n; j++) {
      for (i = 0; i < m; i++) {
Dot:    R[k][j] += Q[i][k] * A[i][j];
      }
      for (i = 0; i < m; i++) {
Upd:    A[i][j] -= Q[i][k] * R[k][j];
      }
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
  kernel_mgs(M, N);
  dump("A", &A[0][0], M, N);
  dump("Q", &Q[0][0], M, N);
  dump("R", &R[0][0], N, N);
  return 0;
}
