/* A 2-d kernel for tests of full and partial tiles: every element is updated once from its
   neighbours in the input (running an instance twice, or not at all, changes the output).
   Sizes: -DN=... -DM=... (rows, columns). */
#include <stdio.h>

/* The tag is a label nothing jumps to, and the scop pragmas only mark the region. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
#define N 70
#endif
#ifndef M
#define M 45
#endif

static double A[N + 1][M + 1];
static double B[N][M];

static void kernel(int n, int m)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
S:    B[i][j] = 0.5 * B[i][j] + A[i][j] + 0.25 * A[i + 1][j + 1] + i - 2 * j;
    }
#pragma endscop
}

int main(void)
{
  int i, j;
  double sum = 0.0;
  unsigned long long h = 14695981039346656037ULL;

  for (i = 0; i <= N; i++)
    for (j = 0; j <= M; j++)
      A[i][j] = (double) ((7 * i + 3 * j) % 11) / 4.0 - 1.0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      B[i][j] = (double) ((5 * i + 2 * j + 1) % 13) / 8.0;
  kernel(N, M);
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      union { double d; unsigned long long u; } v;
      v.d = B[i][j];
      h = (h ^ v.u) * 1099511628211ULL;
      sum += B[i][j];
    }
  printf("sum %.17g hash %016llx\n", sum, h);
  return 0;
}
