/* A kernel in a program that uses OpenMP outside the modelled region: omp.h declares
   `struct __attribute__((…)) omp_depend_t`, which lang-c cannot read. */
#include <omp.h>
#include <stdio.h>

#define N 64

static double A[N][N], B[N][N];

static void kernel(int n) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = (double)(i * n + j) / n;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
S:    A[i][j] = A[i - 1][j] + B[j][i];
#pragma endscop
}

int main(void) {
  double t0 = omp_get_wtime();
  kernel(N);
  double t1 = omp_get_wtime();
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      sum += A[i][j];
  printf("%.6f\n", sum);
  fprintf(stderr, "%d threads, %g s\n", omp_get_max_threads(), t1 - t0);
  return 0;
}
