/* The tutorial's kernel before loopy: C = A * B. */
#include <stdio.h>

#ifndef N
#define N 200
#endif

static double A[N][N], B[N][N], C[N][N];

static void kernel(int n)
{
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = 0.0;
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}

int main(void)
{
  int i, j;
  double sum = 0.0;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (double) ((7 * i + 3 * j) % 11) / 4.0 - 1.0;
      B[i][j] = (double) ((5 * i + 2 * j + 1) % 13) / 8.0 - 0.5;
    }
  kernel(N);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += C[i][j] * (i + 2 * j + 1);
  printf("C[0][0] = %.17g, C[N-1][N-1] = %.17g, weighted sum = %.17g\n",
         C[0][0], C[N - 1][N - 1], sum);
  return 0;
}
