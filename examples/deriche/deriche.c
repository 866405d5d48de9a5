/*
 * deriche -- PolyBench 4.2.1 medley/deriche, written for loopy: Deriche's
 * recursive edge-detection filter on a W x H single-precision image. Four
 * first-order recursive sweeps (left to right and right to left along each
 * row i, then top to bottom and bottom to top along each column j), each
 * pair summed into imgOut. The recursions carry their state in scalars
 * (xm1, ym1, ym2, ...), reset at the start of every row or column.
 *
 * Tags:
 *   RowFwd  first statement of the body of the first i loop: the tag names
 *           the whole body (the left-to-right sweep of row i into Y1)
 *   RowBwd  the same for the right-to-left sweep into Y2
 *   RowSum  imgOut[i][j] = c1 * (Y1[i][j] + Y2[i][j])
 *   ColFwd  the body of the first j loop (top-to-bottom sweep of column j)
 *   ColBwd  the body of the second j loop (bottom-to-top sweep)
 *   ColSum  imgOut[i][j] = c2 * (Y1[i][j] + Y2[i][j])
 *
 * Size macros (override with -D):
 *   W, H   default 192, 128 (PolyBench SMALL)
 *   MEDIUM: -DW=720 -DH=480    LARGE: -DW=4096 -DH=2160
 */
#include <math.h>
#include <stdio.h>

#ifndef W
#define W 192
#endif
#ifndef H
#define H 128
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static float imgIn[W][H];
static float imgOut[W][H];
/* PolyBench's y1 and y2, in capitals: math.h declares a function y1. */
static float Y1[W][H];
static float Y2[W][H];

static void init_arrays(int w, int h)
{
  int i, j;

  /* PolyBench 4.2.1's grey levels, between 0 and 1. */
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++) {
      imgIn[i][j] = (float) ((313 * i + 991 * j) % 65536) / 65535.0f;
      imgOut[i][j] = -1.0f;   /* garbage that the kernel overwrites */
      Y1[i][j] = -2.0f;       /* scratch garbage */
      Y2[i][j] = -3.0f;
    }
}

static void kernel_deriche(int w, int h, float alpha)
{
  int i, j;
  float xm1, tm1, ym1, ym2;
  float xp1, xp2;
  float tp1, tp2;
  float yp1, yp2;
  float k;
  float a1, a2, a3, a4, a5, a6, a7, a8;
  float b1, b2, c1, c2;

#pragma scop
  k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha))
      / (1.0f + 2.0f * alpha * expf(-alpha) - expf(2.0f * alpha));
  a1 = a5 = k;
  a2 = a6 = k * expf(-alpha) * (alpha - 1.0f);
  a3 = a7 = k * expf(-alpha) * (alpha + 1.0f);
  a4 = a8 = -k * expf(-2.0f * alpha);
  b1 = powf(2.0f, -alpha);
  b2 = -expf(-2.0f * alpha);
  c1 = c2 = 1;
  for (i = 0; i < w; i++) {
RowFwd: ym1 = 0.0f;
    ym2 = 0.0f;
    xm1 = 0.0f;
    for (j = 0; j < h; j++) {
      Y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = Y1[i][j];
    }
  }
  for (i = 0; i < w; i++) {
RowBwd: yp1 = 0.0f;
    yp2 = 0.0f;
    xp1 = 0.0f;
    xp2 = 0.0f;
    for (j = h - 1; j >= 0; j--) {
      Y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = Y2[i][j];
    }
  }
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
RowSum: imgOut[i][j] = c1 * (Y1[i][j] + Y2[i][j]);
  for (j = 0; j < h; j++) {
ColFwd: tm1 = 0.0f;
    ym1 = 0.0f;
    ym2 = 0.0f;
    for (i = 0; i < w; i++) {
      Y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = Y1[i][j];
    }
  }
  for (j = 0; j < h; j++) {
ColBwd: tp1 = 0.0f;
    tp2 = 0.0f;
    yp1 = 0.0f;
    yp2 = 0.0f;
    for (i = w - 1; i >= 0; i--) {
      Y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = Y2[i][j];
    }
  }
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
ColSum: imgOut[i][j] = c2 * (Y1[i][j] + Y2[i][j]);
#pragma endscop
}

/* ------------------------------------------------------------------ */
/* Output helpers (outside the tagged region).                         */
/* Small blocks are printed in full ("%.10g"); big ones as an evenly   */
/* spaced sample of about 1000 elements. Every block ends with its sum */
/* ("%.17g", summed in double) and a hash of the raw bit patterns, so  */
/* that a change in any bit of any element changes the output.         */
/* ------------------------------------------------------------------ */

#ifndef PRINT_LIMIT
#define PRINT_LIMIT 20000
#endif

static unsigned long long bits_hash(const float *a, long count)
{
  unsigned long long h = 14695981039346656037ULL;
  long idx;
  int byte;

  for (idx = 0; idx < count; idx++) {
    union { float f; unsigned int u; } v;
    v.f = a[idx];
    for (byte = 0; byte < 4; byte++) {
      h ^= (v.u >> (8 * byte)) & 0xffU;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

static void dump(const char *name, const float *a, long rows, long cols)
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
  init_arrays(W, H);
  /* PolyBench's filter parameter. */
  kernel_deriche(W, H, 0.25f);
  dump("imgOut", &imgOut[0][0], W, H);
  dump("Y1", &Y1[0][0], W, H);
  dump("Y2", &Y2[0][0], W, H);
  return 0;
}
