/* A symmetric rank-2k update as PolyBench's syr2k writes it (the lower triangle of C,
   loops i, k, j with j <= i; both products read A and B by rows), at sizes that are not
   multiples of a register block: the register-block recipe's candidate. */
#include <stdio.h>
#define N 45
#define M 23
double A[N][M], B[N][M], C[N][N];

void kernel(int n, int m, double alpha, double beta)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int k = 0; k < M; k++) {
      A[i][k] = ((i * 3 + k) % 7) * 0.25 - 0.5;
      B[i][k] = ((i + 5 * k) % 11) * 0.125;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      C[i][j] = ((i + j) % 5) * 0.5;
  kernel(N, M, 1.5, 1.2);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);
  return 0;
}
