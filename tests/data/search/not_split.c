/* Two statements fused in one permutable band (i, j), where splitting the innermost loop
   (each statement its own j loop) is illegal: S0 at (i, j) reads b[i][j - 1], which S1
   wrote at (i, j - 1); split, every S0 of row i would run before every S1 of it. */
#include <stdio.h>
#define N 20
double a[N][N], b[N][N];

void kernel(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++) {
      a[i][j] = a[i][j] + b[i][j - 1];
      b[i][j] = a[i][j] * 0.5 + b[i][j];
    }
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      a[i][j] = (double) ((i + 2 * j) % 7) / 3.0;
      b[i][j] = (double) ((3 * i + j) % 5) / 4.0;
    }
  kernel(N);
  for (i = 0; i < N; i++)
    printf("%.17g %.17g\n", a[i][N - 1], b[i][N - 1]);
  return 0;
}
