/* The helper linked-helper.c gives linked.c: initialisation and output. */
#include <stdio.h>
#ifndef N
#define N 40
#endif

void fill(int n, double A[N][N])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = (double) ((i * 7 + j * 3) % 11) / 11.0;
}

void dump(int n, double A[N][N])
{
#ifdef DUMP_ALL
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      printf("%.8f\n", A[i][j]);
#else
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += A[i][j] * (i + 1);
  printf("%.10f\n", s);
#endif
}
