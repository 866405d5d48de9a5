/* rows.c with two loops over a row of different lengths: the largest column of `A` the
   region reads is max(m - 1, n - 3), the larger of two expressions. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"

#define N 8
#define M 6

static void kernel(int n, int m, double A[][M], double B[][M])
{
  int i, j;
  double f = 0.5;

#pragma scop
L:
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      B[i][j] = A[i][j] * f + B[i][j];
    for (j = 0; j < n - 2; j++)
      B[i][j] = B[i][j] - A[i][j] * 0.25;
  }
#pragma endscop
}

static double buf[N + 1][M];

static void init(void)
{
  for (int i = 0; i <= N; i++)
    for (int j = 0; j < M; j++)
      buf[i][j] = i * M + j;
}

static void show(const char *what)
{
  double sum = 0;
  printf("%s:", what);
  for (int i = 0; i <= N; i++)
    for (int j = 0; j < M; j++) {
      printf(" %g", buf[i][j]);
      sum += buf[i][j] * (i + 1) * (j + 3);
    }
  printf("\n  sum %.17g\n", sum);
}

int main(void)
{
  static double other[N][M];
  init();
  kernel(N, M, buf, other); /* distinct */
  show("distinct");
  init();
  kernel(N, M, buf + 1, buf); /* B one row before A */
  show("overlapping rows");
  init();
  kernel(4, M, buf, buf + 4); /* rows 0..3 and 4..7: adjacent */
  show("adjacent rows");
  init();
  kernel(N - 1, M - 1, buf, (double (*)[M]) ((double *) buf + 1)); /* one element on */
  show("overlapping elements");
  return 0;
}
