/*
 * A 3-d heat stencil with imperfectly nested statements: a per-plane
 * coefficient computed between the loops, two sweeps ping-ponging between
 * A and B, and a boundary update after them. The search's schedule building
 * (Farkas multipliers per dependence, hyperplanes level by level for every
 * interleaving) is slow on it; tests/search_cli.rs uses it to check that
 * `loopy search --time-limit` bounds the building too.
 */
#include <stdio.h>
#ifndef T
#define T 4
#endif
#ifndef N
#define N 12
#endif

static double A[N][N][N];
static double B[N][N][N];
static double c[N];

int main(void)
{
  int t, i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++) {
        A[i][j][k] = (double) ((i + 2 * j + 3 * k) % 7) / 7.0;
        B[i][j][k] = 0.0;
      }
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++) {
      c[i] = 0.125 + 0.001 * A[i][1][1];
      for (j = 1; j < N - 1; j++)
        for (k = 1; k < N - 1; k++)
          B[i][j][k] = c[i] * (A[i+1][j][k] - 2.0 * A[i][j][k] + A[i-1][j][k])
                     + c[i] * (A[i][j+1][k] - 2.0 * A[i][j][k] + A[i][j-1][k])
                     + c[i] * (A[i][j][k+1] - 2.0 * A[i][j][k] + A[i][j][k-1])
                     + A[i][j][k];
    }
    for (i = 1; i < N - 1; i++) {
      for (j = 1; j < N - 1; j++) {
        for (k = 1; k < N - 1; k++)
          A[i][j][k] = 0.125 * (B[i+1][j][k] - 2.0 * B[i][j][k] + B[i-1][j][k])
                     + 0.125 * (B[i][j+1][k] - 2.0 * B[i][j][k] + B[i][j-1][k])
                     + 0.125 * (B[i][j][k+1] - 2.0 * B[i][j][k] + B[i][j][k-1])
                     + B[i][j][k];
        A[i][j][0] = A[i][j][1];
      }
      A[i][0][0] = A[i][1][1];
    }
  }
#pragma endscop
  double s = 0.0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        s += A[i][j][k];
  printf("%.10f\n", s);
  return 0;
}
