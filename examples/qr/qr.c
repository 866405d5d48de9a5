/*
 * qr -- Householder QR factorisation, in the simple form of Golub and Van Loan
 * (Matrix Computations, Algorithm 5.2.1), as the dependence-hoisting paper's QR
 * (Yi, Kennedy and Adve, section 7) is written, written for loopy. For each
 * column j of the M x N matrix A (M >= N), the Householder reflection
 * H = I - tau[j] v v^T with v = [1; v(2:)] maps A[j..M-1][j] onto a multiple of
 * the first unit vector; it is applied to the columns right of j. On exit the
 * upper triangle of A (diagonal included) holds R, the strict lower triangle
 * holds v(2:) of every column (as LAPACK's dgeqrf leaves them), and tau holds
 * the reflections' factors.
 *
 * The code is data-dependent: whether a column needs a reflection at all and
 * the sign of its first element decide how v and tau are computed (`House`, an
 * `if` on data, which loopy models as one opaque statement), and the scalars
 * sigma, s and w are reused by every column (and w by every column k of the
 * update), which orders every pair of columns unless they are expanded.
 *
 * Tags (a label on a loop tags every statement in it; a statement that starts a
 * block gets a block of its own, so that its label tags it alone):
 *   Column  the j loop: all eight statements
 *   Sig0    sigma = 0
 *   Sig     sigma += A[i][j]^2                         for i > j
 *   House   tau[j], A[j][j] = |x| and s = 1/v1 from sigma and A[j][j]
 *   Scale   A[i][j] *= s                               for i > j: v(2:)
 *   Update  the k loop: the update of every column k > j (the four below)
 *   Dot0    w = A[j][k]
 *   Dot     w += A[i][j] * A[i][k]                     for i > j: w = v^T A[.][k]
 *   Top     A[j][k] -= tau[j] * w
 *   Upd     A[i][k] -= tau[j] * A[i][j] * w            for i > j
 *
 * Size macros (override with -D):
 *   M, N   default 120 x 100   MEDIUM: -DM=400 -DN=400   LARGE: -DM=2000 -DN=2000
 */
#include <math.h>
#include <stdio.h>

#ifndef M
#define M 120
#endif
#ifndef N
#define N 100
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double A[M][N];
static double tau[N];

static void init_arrays(int m, int n)
{
  int i, j;

  /* PolyBench's gramschmidt matrix plus a diagonal: full rank. */
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (((double) ((i * j) % m) / m) * 100) + 10 + (i == j ? 50 : 0);
  for (j = 0; j < n; j++)
    tau[j] = 0.0;
}

static void kernel_qr(int m, int n)
{
  int i, j, k;
  double sigma, mu, v1, s, w;

#pragma scop
Column:
  for (j = 0; j < n; j++) {
    { Sig0: sigma = 0.0; }
    for (i = j + 1; i < m; i++)
Sig:  sigma += A[i][j] * A[i][j];
House:
    if (sigma == 0.0) {
      tau[j] = 0.0;
      s = 1.0;
    } else {
      mu = sqrt(A[j][j] * A[j][j] + sigma);
      if (A[j][j] <= 0.0)
        v1 = A[j][j] - mu;
      else
        v1 = -sigma / (A[j][j] + mu);
      tau[j] = 2.0 * v1 * v1 / (sigma + v1 * v1);
      A[j][j] = mu;
      s = 1.0 / v1;
    }
    for (i = j + 1; i < m; i++)
Scale: A[i][j] *= s;
Update:
    for (k = j + 1; k < n; k++) {
      { Dot0: w = A[j][k]; }
      for (i = j + 1; i < m; i++)
Dot:    w += A[i][j] * A[i][k];
Top:  A[j][k] -= tau[j] * w;
      for (i = j + 1; i < m; i++)
Upd:    A[i][k] -= tau[j] * A[i][j] * w;
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
  /* The sizes reach the kernel through volatile variables: it is compiled for any size, as
     a library routine is, not for the one size of this program (the compiler then does not
     warn about pieces of the blocked code that are dead at that size). */
  volatile int sizes[2] = {M, N};

  init_arrays(M, N);
  kernel_qr(sizes[0], sizes[1]);
  dump("A", &A[0][0], M, N);
  dump("tau", tau, 1, N);
  return 0;
}
