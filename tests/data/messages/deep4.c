/* A 4-deep nest with a dependence carried by the outermost loop only. */
void kernel_deep4(int n, double A[n][n][n][n])
{
  int t, i, j, k;
#pragma scop
  for (t = 1; t < n; t++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        for (k = 0; k < n; k++)
S:        A[t][i][j][k] = A[t-1][i][j][k] * 0.5;
#pragma endscop
}
