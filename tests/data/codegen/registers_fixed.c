/* A matrix product with constant bounds: every micro-tile is whole, so every window of the
   block of C is in registers (tests/codegen_registers.rs). */
#include <stdio.h>
static double C[48][64], A[48][40], B[40][64];
int main(void)
{
  int i, j, k;
  for (i = 0; i < 48; i++)
    for (j = 0; j < 64; j++)
      C[i][j] = (double)((i * j + 1) % 13) / 4.0;
  for (i = 0; i < 48; i++)
    for (k = 0; k < 40; k++)
      A[i][k] = (double)((i * (k + 1)) % 7) / 8.0;
  for (k = 0; k < 40; k++)
    for (j = 0; j < 64; j++)
      B[k][j] = (double)((k * (j + 2) + 1) % 9) / 2.0;
#pragma scop
  for (i = 0; i < 48; i++)
    for (k = 0; k < 40; k++)
      for (j = 0; j < 64; j++)
Mult:   C[i][j] += 1.5 * A[i][k] * B[k][j];
#pragma endscop
  double s = 0;
  for (i = 0; i < 48; i++)
    for (j = 0; j < 64; j++)
      s += C[i][j] * (i + 1) + j;
  printf("%.17g\n", s);
  return 0;
}
