/* A variable declared at the region's top level, used after the region. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"

static double kernel(int n, double *A, double *B)
{
  int i;
#pragma scop
  double s = 0.0;
  for (i = 0; i < n; i++)
Copy: B[i] = A[i] + s;
#pragma endscop
  return s;
}

int main(void)
{
  double x[4] = {1, 2, 3, 4}, y[4];
  printf("%g\n", kernel(4, x, y));
  printf("%g %g %g %g\n", y[0], y[1], y[2], y[3]);
  return 0;
}
