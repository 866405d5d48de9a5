/* A kernel kept the way Pluto's tests keep them: statements at file scope. */
#define N 1024

float a[N][N];

#pragma scop
for (t = 0; t < T; t++)
  for (i = 1; i < N; i++)
    for (j = 0; j < N; j++)
S:    a[i][j] = a[i - 1][j] + b[j][i] * alpha;
#pragma endscop
