/* Per row of m elements: a producer writes B, a second loop peeks at it, a consumer reads
   it. A row's length is a parameter, so a buffer of a row has a run-time size. */
#define M 16
double A[M][M], B[M][M], C[M][M], D[M][M];

void kernel(int n, int m)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
Prod: B[i][j] = 2.0 * A[i][j];
    for (j = 0; j < m; j++)
Peek: D[i][j] = B[i][j];
    for (j = 0; j < m; j++)
Cons: C[i][j] = B[i][j] + 1.0;
  }
#pragma endscop
}
