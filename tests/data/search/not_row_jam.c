/* Nests the row-jam recipe must not apply as it stands. S0: the inner loop starts after the
   row (its first column depends on the row), skipped with that reason. S1: the chain lies three loops deep:
   nothing proposed. S2: each row reads the row before it, so running rows together
   is illegal: the recipe proposes it and the verifier rejects it. S3: no chain (the inner
   loop writes a different element each iteration): nothing proposed. */
#include <stdio.h>
#define N 24
double A[N][N], B[N][N][N], x[N], u[N], v[N], w[N][N];

void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      x[i] = x[i] + A[i][j] * x[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        u[i] = u[i] + B[i][j][k];
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      v[i] = v[i] + v[i - 1] * A[i][j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i][j] = w[i][j] + A[j][i];
#pragma endscop
}

int main(void)
{
  int i, j, k;
  for (i = 0; i < N; i++) {
    x[i] = 1.0 / (i + 1);
    v[i] = 0.5;
    for (j = 0; j < N; j++) {
      A[i][j] = (double) ((i + 2 * j) % 5) / 7.0;
      for (k = 0; k < N; k++)
        B[i][j][k] = (double) ((i + j + k) % 3);
    }
  }
  kernel(N);
  for (i = 0; i < N; i++)
    printf("%.17g %.17g %.17g %.17g\n", x[i], u[i], v[i], w[i][i]);
  return 0;
}
