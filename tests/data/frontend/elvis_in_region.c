void kernel(int n, double A[n], double x) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = x ?: 1.0;
#pragma endscop
}
