/*
 * lu-pivot -- LU factorisation with partial pivoting, in the simple form of Golub and Van
 * Loan as the dependence-hoisting paper writes it (Yi, Kennedy and Adve, Figure 13(a)),
 * written for loopy. At each step k the pivot search finds the first row p[k] >= k whose
 * element in column k has the largest magnitude, the rows k and p[k] are swapped in columns
 * k to n-1, column k below the diagonal is divided by the pivot, and the trailing matrix is
 * updated. On exit the upper triangle of A (diagonal included) holds U, the strict lower
 * triangle the multipliers of L (each column as its step left it: later swaps do not
 * touch earlier columns, as in LINPACK's dgefa), and p[k] the row swapped with row k at
 * step k.
 *
 * The code is data-dependent: the pivot search is an `if` on computed values (`Search`,
 * which loopy models as one opaque statement), and the swap reaches row p[k] through the
 * pivot array (`Pick`, `Put`: the subscript p[k] reads memory, so loopy lets it range over
 * the whole column, an approximate access). The swap goes through the scalar t, reused by
 * every (k, j), which orders every pair of swaps unless it is expanded.
 *
 * Tags (a label on a loop tags every statement in it; a statement that starts a block gets
 * a block of its own, so that its label tags it alone):
 *   Step    the k loop: all eight statements
 *   Piv     p[k] = k
 *   Max     mu = |A[k][k]|
 *   Search  if |A[i][k]| > mu, then mu = |A[i][k]| and p[k] = i   for i > k (opaque)
 *   Swap    the j loop of the row swap (the three below)           for j >= k
 *   Save    t = A[k][j]
 *   Pick    A[k][j] = A[p[k]][j]
 *   Put     A[p[k]][j] = t
 *   Scale   A[i][k] /= A[k][k]                                     for i > k
 *   Update  A[i][j] -= A[i][k] * A[k][j]                           for j > k, i > k
 *
 * Size macro (override with -D):
 *   N   default 120    MEDIUM: -DN=400    LARGE: -DN=2000
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
static int p[N];

static void init_arrays(int n)
{
  unsigned long long x = 88172645463325252ULL;
  int i, j;

  /* Uniform pseudo-random entries in [-1, 1) (a 64-bit linear congruential generator,
     the same on every platform): no structure, so the pivots land anywhere and the
     matrix is far from singular. */
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      A[i][j] = (double) (x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
  for (i = 0; i < n; i++)
    p[i] = 0;
}

static void kernel_lu_pivot(int n)
{
  int i, j, k;
  double mu, t;

#pragma scop
Step:
  for (k = 0; k < n - 1; k++) {
    { Piv: p[k] = k; }
Max: mu = fabs(A[k][k]);
    for (i = k + 1; i < n; i++)
Search: if (mu < fabs(A[i][k])) {
          mu = fabs(A[i][k]);
          p[k] = i;
        }
Swap:
    for (j = k; j < n; j++) {
      { Save: t = A[k][j]; }
Pick: A[k][j] = A[p[k]][j];
Put:  A[p[k]][j] = t;
    }
    for (i = k + 1; i < n; i++)
Scale: A[i][k] = A[i][k] / A[k][k];
Update:
    for (j = k + 1; j < n; j++)
      for (i = k + 1; i < n; i++)
        A[i][j] = A[i][j] - A[i][k] * A[k][j];
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

/* The pivots of the n - 1 steps, all of them, and their sum. */
static void dump_pivots(const int *piv, long count)
{
  long idx, total = 0;

  printf("== p (%ld)\n", count);
  for (idx = 0; idx < count; idx++) {
    printf("%d ", piv[idx]);
    total += piv[idx];
    if (idx % 20 == 19 || idx == count - 1)
      printf("\n");
  }
  printf("p: sum %ld\n", total);
}

int main(void)
{
  /* The size reaches the kernel through a volatile variable: it is compiled for any size,
     as a library routine is, not for the one size of this program (the compiler then does
     not warn about pieces of the blocked code that are dead at that size). */
  volatile int size = N;

  init_arrays(N);
  kernel_lu_pivot(size);
  dump("A", &A[0][0], N, N);
  dump_pivots(p, N - 1);
  return 0;
}
