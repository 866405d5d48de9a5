/* Variables declared inside the region: a scalar at depth 1 that carries a row sum through
   an inner loop, and one at depth 2 that only lives inside one inner iteration. */
#include <stdio.h>

/* The tags are labels nothing jumps to, and the scop pragmas are markers for loopy. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#define N 37

static double A[N][N], B[N];

static void kernel(int n)
{
#pragma scop
L:
  for (int i = 0; i < n; i++) {
    double s = 0.0;
M:  for (int j = 0; j < n; j++) {
      double t = A[i][j] * 0.5;
      s = s + t * t;
    }
U:  B[i] = s;
  }
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11) - 5.0;
  kernel(N);
  for (int i = 0; i < N; i++)
    printf("%.17g\n", B[i]);
  return 0;
}
