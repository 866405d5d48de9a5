/* Reductions judged element by element: PolyBench's lu (`A[i][j] -= A[i][k] * A[k][j]`, a
   `+` update written with `-=` whose `e` reads other elements of `A`) and trmm
   (`B[i][j] += A[k][i] * B[k][j]`, whose `e` reads rows of `B` the `k` loop never updates),
   and row maxima of an array (`P[i] = fmax(P[i], B[i][j])`). */
#include <math.h>
#include <stdio.h>
#define N 24
#define M 20
double A[N][N], T[M][M], B[M][N], P[M];

void kernel(int n, int m)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
Left:   A[i][j] -= A[i][k] * A[k][j];
Div:  A[i][j] /= A[j][j];
    }
    for (j = i; j < n; j++)
      for (k = 0; k < i; k++)
Right:  A[i][j] -= A[i][k] * A[k][j];
  }
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
Mult:   B[i][j] += T[k][i] * B[k][j];
Scale: B[i][j] = 1.5 * B[i][j];
    }
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
Peak: P[i] = fmax(P[i], B[i][j]);
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i == j) ? N + 1.0 : ((i * 7 + j * 3) % 11) * 0.1;
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < M; j++)
      T[i][j] = ((i + 2 * j) % 5) * 0.25;
    for (int j = 0; j < N; j++)
      B[i][j] = ((3 * i + j) % 7) * 0.5;
  }
  kernel(N, M);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.12e\n", A[i][j]);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      printf("%.12e\n", B[i][j]);
  for (int i = 0; i < M; i++)
    printf("%.12e\n", P[i]);
  return 0;
}
