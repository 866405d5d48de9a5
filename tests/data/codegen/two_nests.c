/* A small kernel for randomized code generation tests: an outer loop L1 holding a
   rectangular nest L2 and a triangular nest L3. */
void kernel(int n, int m, double A[64][64], double B[64][64])
{
#pragma scop
L1:
  for (int i = 0; i < n; i++) {
    {
L2:
      for (int j = 0; j < m; j++)
        A[i][j] = A[i][j] + 1.0;
    }
    {
L3:
      for (int j = 0; j <= i; j++)
        B[i][j] = A[i][j] * 0.5;
    }
  }
#pragma endscop
}
