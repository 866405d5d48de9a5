/* Reductions: a sum, a product, a maximum, a running sum that is read inside its loop, and
   row sums (an array updated with `+=`). */
#include <math.h>
#include <stdio.h>
#define N 1000
double A[N], B[N], C[N][N], D[N];

void kernel(int n)
{
  int i, j;
  double s, p, m, r;
#pragma scop
  s = 0.0;
  p = 1.0;
  m = 0.0;
  r = 0.0;
  for (i = 0; i < n; i++)
Sum: s += A[i];
  for (i = 0; i < n; i++)
Prod: p = p * (1.0 + B[i] / 1000.0);
  for (i = 0; i < n; i++)
Max: m = fmax(m, A[i] - B[i]);
  for (i = 0; i < n; i++) {
Run: r = r + A[i];
Use: B[i] = r;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
Row: D[i] += C[i][j];
#pragma endscop
  printf("%.6f %.6f %.6f %.6f\n", s, p, m, r);
  for (i = 0; i < n; i += 97)
    printf("%.6f %.6f\n", B[i], D[i]);
}

int main(void)
{
  for (int i = 0; i < N; i++) {
    A[i] = (i % 17) * 0.25 - 1.0;
    B[i] = (i % 13) * 0.5;
    for (int j = 0; j < N; j++)
      C[i][j] = ((i + 2 * j) % 7) * 0.125;
  }
  kernel(N);
  return 0;
}
