/* Per row: a producer writes B, a second loop peeks at it, a consumer reads it. */
#define M 16
double A[M][M], B[M][M], C[M][M], D[M][M];

void kernel(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < M; j++)
Prod: B[i][j] = 2.0 * A[i][j];
    for (j = 0; j < M; j++)
Peek: D[i][j] = B[i][j];
    for (j = 0; j < M; j++)
Cons: C[i][j] = B[i][j] + 1.0;
  }
#pragma endscop
}
