/* copy_written refusals: Twice reads the element it writes through other subscripts
   (B[i][j + 0] is B[i][j]); Sum accumulates into a scalar. */
#include <stdio.h>
#ifndef N
#define N 16
#endif
static double A[N][N], B[N][N], s;

static void kernel(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
Twice: B[i][j] = B[i][j + 0] * 2.0 + A[i][j];
Sum:   s = s + B[i][j];
    }
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (double) (i + j) / N;
      B[i][j] = (double) (i * j % 7) / N;
    }
  kernel(N);
  printf("%.17g\n", s + B[N - 1][N - 1]);
  return 0;
}
