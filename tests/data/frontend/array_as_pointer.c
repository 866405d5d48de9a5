void kernel(int n, double A[100], double *B)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B = A;
#pragma endscop
}
