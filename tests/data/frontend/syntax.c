void kernel(int n, double A[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = (A[i] + ;
#pragma endscop
}
