/* Per row: a producer writes m elements of B, a consumer reads p of them. A buffer of a row
   holds max(m, p) elements: a run-time extent that changes form with the parameters. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define M 64
double A[M][M], B[M][M], C[M][M];

static void kernel(int n, int m, int p)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
First: B[i][j] = A[i][j] + 1.0;
    for (j = 0; j < p; j++)
Second: C[i][j] = B[i][j] * 2.0;
  }
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = i * 0.5 + j;
      B[i][j] = i - j * 0.25;
      C[i][j] = 0.0;
    }
  kernel(9, 20, 30);
  kernel(7, 40, 11);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      printf("%g %g\n", B[i][j], C[i][j]);
  return 0;
}
