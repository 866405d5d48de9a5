/* Loops whose writes never reach, at one iteration of the innermost loop, the element that
   every iteration reads, so the alias-split recipe must propose nothing: S0 (LU's update)
   writes A[i][k] only at j = k, which its loop j > k never reaches; S1 reads B[i + 1][k],
   a row it never writes; S2 reads C[i][k] but writes C[i][2 * j], which the recipe does
   not solve for (a coefficient other than 1). */
#define N 40
double A[N][N], B[N][N], C[N][2 * N];

void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++)
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  for (k = 0; k < n - 1; k++)
    for (i = 0; i < n - 1; i++)
      for (j = 0; j < n; j++)
        B[i][j] = B[i][j] + B[i + 1][k];
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        C[i][2 * j] = C[i][2 * j] + C[i][k];
#pragma endscop
}

int main(void)
{
  kernel(N);
  return 0;
}
