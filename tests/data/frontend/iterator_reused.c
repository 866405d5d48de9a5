void kernel(int n, double A[100][100])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (i = 0; i < n; i++)
      A[i][i] = 0.0;
#pragma endscop
}
