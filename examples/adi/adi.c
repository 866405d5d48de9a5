/*
 * adi -- PolyBench stencils/adi, written for Loopy: alternating
 * direction implicit solver for 2-D heat conduction. Each time step does
 * a column sweep (tridiagonal solves along columns of u into v) and a row
 * sweep (along rows of v back into u), each with a forward elimination
 * (p, q) and a backward substitution.
 *
 * Tags (appendix B of the Loopy paper), all in the column sweep:
 *   PQinit  first statement of the { } block that starts a column
 *           (v[0][i], p[i][0], q[i][0]) under a dummy j loop
 *   PQ      first statement of the { } block of the forward elimination
 *   Vinit   v[N-1][i] = 1 under a dummy j loop
 *   V       the backward substitution v[j][i] = p[i][j]*v[j+1][i]+q[i][j]
 *           (j runs downwards)
 * The row sweep is untagged.
 *
 * The scalar coefficients are computed before the tagged region, so the
 * region holds only the loop nest.
 *
 * Size macros (override with -D):
 *   TSTEPS, N   default 40, 60 (PolyBench SMALL)
 *   MEDIUM: -DTSTEPS=100 -DN=200    LARGE: -DTSTEPS=500 -DN=1000
 */
#include <stdio.h>

#ifndef TSTEPS
#define TSTEPS 40
#endif
#ifndef N
#define N 60
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double u[N][N];
static double v[N][N];
static double p[N][N];
static double q[N][N];

static void init_arrays(int n)
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      u[i][j] = (double) ((3 * i + j) % n) / (double) n + 0.5;
      v[i][j] = 0.0;
      p[i][j] = 0.0;
      q[i][j] = 0.0;
    }
}

static void kernel_adi(int tsteps, int n)
{
  int t, i, j;
  double dx, dy, dt, b1, b2, mul1, mul2;
  double a, b, c, d, e, f;

  dx = 1.0 / (double) n;
  dy = 1.0 / (double) n;
  dt = 1.0 / (double) tsteps;
  b1 = 2.0;
  b2 = 1.0;
  mul1 = b1 * dt / (dx * dx);
  mul2 = b2 * dt / (dy * dy);
  a = -mul1 / 2.0;
  b = 1.0 + mul1;
  c = a;
  d = -mul2 / 2.0;
  e = 1.0 + mul2;
  f = d;

#pragma scop
  for (t = 1; t <= tsteps; t++) {
    /* column sweep */
    for (i = 1; i < n - 1; i++) {
      for (j = 0; j < 1; j++) {
PQinit: v[0][i] = 1.0;
        p[i][0] = 0.0;
        q[i][0] = v[0][i];
      }
      for (j = 1; j < n - 1; j++) {
PQ:     p[i][j] = -c / (a * p[i][j-1] + b);
        q[i][j] = (-d * u[j][i-1] + (1.0 + 2.0 * d) * u[j][i]
                   - f * u[j][i+1] - a * q[i][j-1]) / (a * p[i][j-1] + b);
      }
      for (j = 0; j < 1; j++)
Vinit:  v[n-1][i] = 1.0;
      for (j = n - 2; j >= 1; j--) {
V:      v[j][i] = p[i][j] * v[j+1][i] + q[i][j];
      }
    }
    /* row sweep */
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -f / (d * p[i][j-1] + e);
        q[i][j] = (-a * v[i-1][j] + (1.0 + 2.0 * a) * v[i][j]
                   - c * v[i+1][j] - d * q[i][j-1]) / (d * p[i][j-1] + e);
      }
      u[i][n-1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j+1] + q[i][j];
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
  kernel_adi(TSTEPS, N);
  dump("u", &u[0][0], N, N);
  dump("v", &v[0][0], N, N);
  dump("p", &p[0][0], N, N);
  dump("q", &q[0][0], N, N);
  return 0;
}
