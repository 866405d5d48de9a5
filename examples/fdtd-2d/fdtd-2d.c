/*
 * fdtd-2d -- PolyBench stencils/fdtd-2d, written for Loopy: 2-D
 * finite-difference time-domain simulation of the fields ex, ey
 * (electric) and hz (magnetic). fict[t] drives the boundary row of ey.
 *
 * Tags (appendix B of the Loopy paper):
 *   EY  ey[i][j] update, i = 1 .. NX-1
 *   EX  ex[i][j] update, j = 1 .. NY-1
 *   HZ  hz[i][j] update, i < NX-1, j < NY-1
 *
 * Size macros (override with -D):
 *   TMAX, NX, NY   default 40, 60, 80 (PolyBench SMALL)
 *   MEDIUM: -DTMAX=100 -DNX=200 -DNY=240
 *   LARGE:  -DTMAX=500 -DNX=1000 -DNY=1200
 */
#include <stdio.h>

#ifndef TMAX
#define TMAX 40
#endif
#ifndef NX
#define NX 60
#endif
#ifndef NY
#define NY 80
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double ex[NX][NY];
static double ey[NX][NY];
static double hz[NX][NY];
static double fict[TMAX];

static void init_arrays(int tmax, int nx, int ny)
{
  int i, j;

  for (i = 0; i < tmax; i++)
    fict[i] = (double) i / 2.0;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = (double) ((i + 2 * j) % 9) / 8.0;
      ey[i][j] = (double) ((2 * i + j) % 7) / 8.0;
      hz[i][j] = (double) ((i * j + 1) % 5) / 4.0;
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny)
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = fict[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
EY:     ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i-1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
EX:     ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j-1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
HZ:     hz[i][j] = hz[i][j] - 0.7 * (ex[i][j+1] - ex[i][j]
                                     + ey[i+1][j] - ey[i][j]);
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
  init_arrays(TMAX, NX, NY);
  kernel_fdtd_2d(TMAX, NX, NY);
  dump("ex", &ex[0][0], NX, NY);
  dump("ey", &ey[0][0], NX, NY);
  dump("hz", &hz[0][0], NX, NY);
  return 0;
}
