/* A small kernel for the reordering test of parallel loops: a Gauss-Seidel-like sweep
   (carried by both loops), an update using it, and a sum. */
#include <stdio.h>
#define N 14
double A[N][N], B[N][N];

void kernel(int n)
{
  double s = 0.0;
#pragma scop
L1:
  for (int i = 1; i < n; i++) {
    {
L2:
      for (int j = 1; j < n; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + B[i][j]) * 0.5;
    }
    {
L3:
      for (int j = 0; j < n; j++)
        B[i][j] = B[i][j] + A[i][j] * 0.25;
    }
  }
L4:
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += A[i][j] * B[j][i];
#pragma endscop
  printf("%.17g\n", s);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      printf("%.17g %.17g\n", A[i][j], B[i][j]);
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) * 0.125;
      B[i][j] = ((i + 5 * j) % 13) * 0.0625;
    }
  kernel(N);
  return 0;
}
