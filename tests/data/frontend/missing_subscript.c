void kernel(int n, double A[100][100], double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = A[i];
#pragma endscop
}
