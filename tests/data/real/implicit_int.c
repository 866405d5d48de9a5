/* An old-style test: `main` without a return type (C89's implicit int). */
#define N 100
double a[N][N], b[N][N];

main() {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      a[i][j] = a[i][j] + b[j][i];
#pragma endscop
  return 0;
}
