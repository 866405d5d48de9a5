/*
 * lu-kji -- LU decomposition without pivoting in the KJI form (Figure 1(a)
 * of Yi, Kennedy and Adve, "Transforming loops to recursion for multi-level
 * memory hierarchies"; Dongarra, Gustavson and Karp): for each column k,
 * scale the column below the diagonal, then update the trailing matrix
 * column by column. On exit the strictly lower part of A holds L (unit
 * diagonal implied) and the upper part holds U.
 *
 * Tags:
 *   Scale    A[i][k] /= A[k][k]                for i > k
 *   Update   A[i][j] -= A[i][k] * A[k][j]      for j > k, i > k
 *
 * Size macro (override with -D):
 *   N   default 400 (MEDIUM)    LARGE: -DN=2000
 */
#include <stdio.h>

#ifndef N
#define N 400
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[N][N];

static void init_arrays(int n)
{
  int i, j;

  /* Strictly diagonally dominant (off-diagonal entries <= 1, diagonal
     n + 1), so no pivot is ever zero. */
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if (i == j)
        A[i][j] = (double) (n + 1);
      else
        A[i][j] = (double) ((i + 3 * j) % 7 + 1) / 8.0;
    }
}

static void kernel_lu_kji(int n)
{
  int i, j, k;

#pragma scop
  for (k = 0; k < n; k++) {
    for (i = k + 1; i < n; i++) {
Scale:  A[i][k] /= A[k][k];
    }
    for (j = k + 1; j < n; j++) {
      for (i = k + 1; i < n; i++) {
Update: A[i][j] -= A[i][k] * A[k][j];
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
  init_arrays(N);
  kernel_lu_kji(N);
  dump("A", &A[0][0], N, N);
  return 0;
}
