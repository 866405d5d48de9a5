/* t written by one nest and read by the next (expand tests). */
#define N 100
#define M 200
double t[M], A[N][M], B[N];

void chain(void)
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < M; j++)
W:    t[j] = A[i][j] * 2.0;
    for (j = 1; j < M; j++)
R:    A[i][j] = t[j - 1] + t[j];
  }
  for (i = 0; i < N; i++) {
Prev: B[i] = t[i];
    for (j = 0; j < M; j++)
W2:   t[j] = B[i] + j;
  }
#pragma endscop
}
