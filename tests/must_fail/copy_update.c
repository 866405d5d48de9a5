/* Per row: read B, update B in place, read B again. */
#define M 16
double B[M][M], C[M][M], T[M][M];

void kernel(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < M; j++)
Load: T[i][j] = B[i][j];
    for (j = 0; j < M; j++)
Bump: B[i][j] = B[i][j] + 1.0;
    for (j = 0; j < M; j++)
Use:  C[i][j] = 2.0 * B[i][j];
  }
#pragma endscop
}
