/* A row loop from 1 to n - 2 (strips of U rows cut at both ends for most U) whose inner
   loop adds into s[i] (a chain along j), with a statement before the inner loop, one after
   it, and a second inner loop that adds a scaled row into y (no chain). The row-jam recipe
   applies: its scripts must print exactly what this prints. */
#include <stdio.h>
#define N 37
#define M 29
double A[N][M], x[M], y[M], s[N], t[N];

void kernel(int n, int m)
{
  int i, j;
#pragma scop
  for (i = 1; i < n - 1; i++) {
    s[i] = 0.5 * i;
    for (j = 0; j < m; j++)
      s[i] = s[i] + A[i][j] * x[j];
    for (j = 0; j < m; j++)
      y[j] = y[j] + A[i][j] * s[i];
    t[i] = s[i] * s[i] - 1.0;
  }
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      A[i][j] = (double) ((i * 7 + j * 3) % 11) / 13.0 - 0.3;
  for (j = 0; j < M; j++) {
    x[j] = 1.0 / (j + 3);
    y[j] = 0.25 * j;
  }
  kernel(N, M);
  for (i = 0; i < N; i++)
    printf("%.17g %.17g\n", s[i], t[i]);
  for (j = 0; j < M; j++)
    printf("%.17g\n", y[j]);
  return 0;
}
