/*
 * A kernel whose program needs a second source to link: `fill` and `dump`
 * are defined in linked-helper.c (as PolyBench's programs need polybench.c).
 * `loopy search linked.c -- linked-helper.c` times it; without the helper,
 * every build fails to link and the search says so.
 */
#include <stdio.h>
#ifndef N
#define N 40
#endif

void fill(int n, double A[N][N]);
void dump(int n, double A[N][N]);

static double A[N][N];
static double B[N][N];

int main(void)
{
  int i, j;
  fill(N, A);
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      B[j][i] = 2.0 * A[i][j];
  for (i = 1; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i - 1][j] + B[i][j];
#pragma endscop
  dump(N, A);
  return 0;
}
