double kernel(int n, double A[100])
{
  double s = 0.0;
#pragma scop
  for (int i = 0; i < n; i++)
    s += A[i];
  return s;
#pragma endscop
}
