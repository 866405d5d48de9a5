/* Updates of a one-dimensional array in three loops that the row-block recipe must skip:
   S0 accumulates into y across every i (no statement sets y before it and reads it out
   after), and S1's w is indexed by its outermost loop, not by one of its two innermost. */
#define N 40
double A[N][N], B[N][N], y[N], w[N];

void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        y[j] += A[i][k] * B[k][j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        w[i] += A[i][k] * B[k][j];
#pragma endscop
}

int main(void)
{
  kernel(N);
  return 0;
}
