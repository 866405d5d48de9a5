void kernel(int n, double A[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
  A[0] = i;
#pragma endscop
}
