/* The tutorial's kernel with its first labels (Init tags the whole block). */
#include <stdio.h>

/* Labels nothing jumps to and loopy's pragmas: keep -Wall quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
#define N 200
#endif

static double A[N][N], B[N][N], C[N][N];

static void kernel(int n)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
Init: C[i][j] = 0.0;
      for (k = 0; k < n; k++)
Mult:   C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
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
