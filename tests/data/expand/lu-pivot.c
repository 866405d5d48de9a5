/*
 * lu-pivot -- LU factorisation with partial pivoting (Yi, Kennedy and Adve, Fig. 13(a)),
 * row swaps through the scalar t (expand tests).
 */
#include <math.h>
#include <stdio.h>

#ifndef N
#define N 40
#endif

#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static double a[N][N];
static int p[N];
static double t, mu;

static void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n - 1; k++) {
Search:
    mu = 0.0;
    p[k] = k;
    for (i = k; i < n; i++)
      if (fabs(a[i][k]) > mu) {
        mu = fabs(a[i][k]);
        p[k] = i;
      }
    for (j = 0; j < n; j++) {
Swap1: t = a[k][j];
Swap2: a[k][j] = a[p[k]][j];
Swap3: a[p[k]][j] = t;
    }
    for (i = k + 1; i < n; i++)
Scale: a[i][k] = a[i][k] / a[k][k];
    for (j = k + 1; j < n; j++)
      for (i = k + 1; i < n; i++)
Update: a[i][j] = a[i][j] - a[i][k] * a[k][j];
  }
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      a[i][j] = (double) ((i * 7 + j * 13) % 17) / 5.0 + (i == j ? 0.5 : 0.0);
  kernel(N);
  double s = 0;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++) {
      printf("%.17g\n", a[i][j]);
      s += a[i][j];
    }
    printf("p %d\n", p[i]);
  }
  printf("sum %.17g t %.17g\n", s, t);
  return 0;
}
