/* A matrix product as PolyBench's gemm writes it (C = beta*C + alpha*A*B, loops i, k, j),
   at sizes that are not multiples of the register block: the BLIS recipe's candidate. */
#include <stdio.h>
#define NI 37
#define NJ 41
#define NK 29
double A[NI][NK], B[NK][NJ], C[NI][NJ];

void kernel(int ni, int nj, int nk, double alpha, double beta)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = ((i * 3 + k) % 7) * 0.25 - 0.5;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = ((k + 5 * j) % 11) * 0.125;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = ((i + j) % 5) * 0.5;
  kernel(NI, NJ, NK, 1.5, 1.2);
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      printf("%.15e\n", C[i][j]);
  return 0;
}
