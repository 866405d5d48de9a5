/* Where the triangular jam recipe must not be taken: the first nest's columns start after
   the row (skipped, with that reason); in the second, row i reads the next column of row
   i - 1, which the jammed rows of a strip compute only later (proposed, and illegal). */
#include <stdio.h>
#ifndef N
#define N 20
#endif
static double X[N][N], Z[N][N], A[N][N];

static void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      for (k = 0; k < j; k++)
        X[i][j] = X[i][j] - A[i][k] * A[j][k];
  for (i = 1; i < n; i++)
    for (j = 0; j < i; j++)
      for (k = 0; k < n; k++)
        Z[i][j] = Z[i][j] - Z[i - 1][j + 1] * A[j][k];
#pragma endscop
}

int main(void)
{
  int i, j;
  double s = 0.0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (double) ((i * 7 + j * 3) % 11) / N;
      X[i][j] = Z[i][j] = (double) (i + j) / N;
    }
  kernel(N);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      s += X[i][j] + Z[i][j];
  printf("%.17g\n", s);
  return 0;
}
