/* Statements that look like contractions (a `+` update of C[i][j] in three loops) and are
   not: an operand that varies in every loop, and an update that reads its own array's row,
   whose dependences forbid reordering its loops. The BLIS recipe must be skipped. */
#define N 24
double A[N][N], B[N][2 * N], C[N][N], D[N][N];

void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
Skew:   C[i][j] += A[i][k] * B[k][i + j];
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++)
      for (j = 0; j < n; j++)
Self:   D[i][j] += D[i][k] * B[k][j];
#pragma endscop
}
