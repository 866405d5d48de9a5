/* The region assigns a local variable of its function (`t`), so the transformed code stays
   inline under the test; rows reached through pointers at two levels (`double **`) cannot
   be bounded, so only `--assume-no-overlap` runs the transformed code for `rows`. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"

static double kernel(int n, double *A, double *B)
{
  int i;
  double t = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (int k = 0; k < 1; k++)
Step: B[i] = A[i] + 1.0;
  }
  for (i = 0; i < n; i++)
Last: t = B[i];
#pragma endscop
  return t;
}

int main(void)
{
  double x[12];
  for (int i = 0; i < 12; i++)
    x[i] = i * i;
  printf("distinct: %g\n", kernel(5, x, x + 6));
  printf("overlapping: %g\n", kernel(10, x, x + 1));
  for (int i = 0; i < 12; i++)
    printf(" %g", x[i]);
  printf("\n");
  return 0;
}
