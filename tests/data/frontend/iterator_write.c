void kernel(int n, double A[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 0.0;
    i = i + 1;
  }
#pragma endscop
}
