/* Rows reached through an array of pointers: their addresses cannot be bounded. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"

static void kernel(int n, double **A, double *B)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
Row: B[i] = A[i][0] + A[i][1];
#pragma endscop
}

int main(void)
{
  double a[4][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  double *rows[4] = {a[0], a[1], a[2], a[3]};
  double b[4];
  kernel(4, rows, b);
  for (int i = 0; i < 4; i++)
    printf(" %g", b[i]);
  printf("\n");
  return 0;
}
