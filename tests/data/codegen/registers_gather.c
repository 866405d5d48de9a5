/* A product whose right operand is read down its columns (`Bt[j][k]`, as in syrk) and a
   term read with stride 2 (`E[k][2 * j]`): along the vectorized j loop their lanes are
   apart in memory, so a register block builds those operands one element per lane
   (tests/codegen_registers.rs). */
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef NI
#define NI 24
#endif
#ifndef NJ
#define NJ 32
#endif
#ifndef NK
#define NK 20
#endif
static double C[NI][NJ], A[NI][NK], Bt[NJ][NK], E[NK][2 * NJ];
int main(void)
{
  int i, j, k;
  int ni = NI, nj = NJ, nk = NK;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (double)((i * j + 1) % 13) / 4.0;
  for (i = 0; i < ni; i++)
    for (k = 0; k < nk; k++)
      A[i][k] = (double)((i * (k + 1)) % 7) / 8.0;
  for (j = 0; j < nj; j++)
    for (k = 0; k < nk; k++)
      Bt[j][k] = (double)((k * (j + 2) + 1) % 9) / 2.0;
  for (k = 0; k < nk; k++)
    for (j = 0; j < 2 * nj; j++)
      E[k][j] = (double)((k + 3 * j) % 5) / 16.0;
#pragma scop
  for (i = 0; i < ni; i++)
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
Mult:   C[i][j] += 1.5 * A[i][k] * Bt[j][k] + E[k][2 * j];
#pragma endscop
  double s = 0;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      s += C[i][j] * (i + 1) + j;
  printf("%.17g\n", s);
  return 0;
}
