void kernel(int n, double A[100], double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
Init: A[i] = 0.0;
  for (int i = 0; i < n; i++)
Init: B[i] = 0.0;
#pragma endscop
}
