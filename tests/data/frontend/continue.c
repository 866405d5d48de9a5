void kernel(int n, double A[100])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    if (i == 3)
      continue;
    A[i] = 1.0;
  }
#pragma endscop
}
