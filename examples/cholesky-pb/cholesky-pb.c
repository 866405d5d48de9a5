/*
 * cholesky-pb -- PolyBench 4.2.1 linear-algebra/solvers/cholesky with
 * PolyBench's own matrix, written for loopy: in-place Cholesky
 * factorisation A = L * L^T. The loops are those of examples/cholesky; the
 * matrix is PolyBench's: the product B * B^T of the lower-triangular B with
 * B[i][j] = 1 - j/n below the diagonal and 1 on it (positive definite, and
 * its factor is B itself up to rounding). On exit the lower triangle of A
 * (diagonal included) holds L; the strict upper triangle is left as it was.
 *
 * Tags:
 *   Lower   A[i][j] -= A[i][k] * A[j][k]   for j < i, k < j
 *   Div     A[i][j] /= A[j][j]             for j < i
 *   Diag    A[i][i] -= A[i][k] * A[i][k]   for k < i
 *   Root    A[i][i] = sqrt(A[i][i])
 *
 * Size macro (override with -D):
 *   N   default 120 (PolyBench SMALL)   MEDIUM: -DN=400   LARGE: -DN=2000
 */
#include <math.h>
#include <stdio.h>

#ifndef N
#define N 120
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N][N];

/* PolyBench 4.2.1's lower-triangular B: (-j % n) / n + 1 for j < i, 1 on the
   diagonal, 0 above it. */
static double lower_b(int i, int j, int n)
{
  if (j > i)
    return 0.0;
  if (j == i)
    return 1.0;
  return (double) (-j % n) / n + 1;
}

static void init_arrays(int n)
{
  int r, s, t;
  double before = 0.0;

  /* A = B * B^T, each entry summed over t in increasing order as PolyBench does. Its
     terms with t > min(r, s) are +0.0 and change nothing, so they are left out, and
     A[s][r] is the same sum as A[r][s]. For r >= s, the terms with t < s are
     lower_b(t)^2 whatever r is (both rows are below the diagonal there): the sum of those
     (`before`, the same additions in the same order) is shared by column s, and the last
     term, lower_b(r, s) * 1, is added to it. So the entries are those of the cubic
     loops, bit for bit, in quadratic time (a timing at N=2000 no longer spends seconds
     here). */
  for (s = 0; s < n; s++) {
    for (r = s; r < n; r++) {
      double acc = before + lower_b(r, s, n) * lower_b(s, s, n);
      A[r][s] = acc;
      A[s][r] = acc;
    }
    t = s;
    before += lower_b(t + 1, t, n) * lower_b(t + 1, t, n);
  }
}

static void kernel_cholesky(int n)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
Lower:  A[i][j] -= A[i][k] * A[j][k];
      }
Div:  A[i][j] /= A[j][j];
    }
    for (k = 0; k < i; k++) {
Diag: A[i][i] -= A[i][k] * A[i][k];
    }
Root: A[i][i] = sqrt(A[i][i]);
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
  kernel_cholesky(N);
  dump("A", &A[0][0], N, N);
  return 0;
}
