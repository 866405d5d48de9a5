void kernel(int n, double A[100])
{
  for (int i = 0; i < n; i++) {
#pragma scop
    A[i] = 0.0;
  }
#pragma endscop
}
