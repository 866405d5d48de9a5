/*
 * symm -- PolyBench linear-algebra/blas/symm, written for Loopy: the
 * symmetric matrix product (BLAS dsymm, side left, lower triangle),
 *
 *   C := alpha * A * B + beta * C   with A (M x M) symmetric, of which
 *        only the lower triangle is stored (the rest holds -999 and is
 *        never read), B and C (M x N)
 *
 * Tags:
 *   Row    the body of the j loop (`Row` labels its first statement,
 *          temp2 = 0.0, and so names the block)
 *   Upd    the body of the k loop: C[k][j] += alpha * B[i][j] * A[i][k]
 *          and temp2 += B[k][j] * A[i][k]   (k < i)
 *   Final  C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i]
 *                    + alpha * temp2
 * As in PolyBench, temp2 is one scalar, declared outside the region: every
 * (i, j) iteration writes it, so it orders them (memory-based dependences).
 *
 * Size macros (override with -D):
 *   M, N   default 60, 80 (PolyBench SMALL)
 *   MEDIUM: -DM=200 -DN=240    LARGE: -DM=1000 -DN=1200
 */
#include <stdio.h>

#ifndef M
#define M 60
#endif
#ifndef N
#define N 80
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[M][M];
static double B[M][N];
static double C[M][N];

static void init_arrays(int m, int n)
{
  int i, j;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (double) ((i + j) % 100) / m;
      B[i][j] = (double) ((n + i - j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (double) ((i + j) % 100) / m;
    for (j = i + 1; j < m; j++)
      A[i][j] = -999; /* never read: only the lower triangle is */
  }
}

static void kernel_symm(int m, int n, double alpha, double beta)
{
  int i, j, k;
  double temp2;

#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
Row:  temp2 = 0.0;
      for (k = 0; k < i; k++) {
Upd:    C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
Final: C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
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
  kernel_symm(M, N, 1.5, 1.2);
  dump("C", &C[0][0], M, N);
  return 0;
}
