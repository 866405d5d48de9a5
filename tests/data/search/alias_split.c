/* Each row's loop j writes, at j = n - 1 - k, the element A[i][n - 1 - k] that each of its
   iterations reads: the alias-split recipe cuts the loop there. Prints every element. */
#include <stdio.h>
#define N 37
double A[N][N];

void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        A[i][j] = A[i][j] * 0.5 + A[i][n - 1 - k];
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
  kernel(N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
  return 0;
}
