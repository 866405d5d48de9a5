void kernel(int n, double A[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = ({ double t = 1.0; t; });
#pragma endscop
}
