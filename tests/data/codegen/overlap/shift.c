/* Pointer parameters that the caller may pass overlapping: a copy with an offset. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"

static void kernel(int n, double *A, double *B)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
Copy: B[i] = A[i] + 1.0;
#pragma endscop
}

static void show(const char *what, const double *x, int n)
{
  printf("%s:", what);
  for (int i = 0; i < n; i++)
    printf(" %g", x[i]);
  printf("\n");
}

int main(void)
{
  double x[12], y[12];
  for (int i = 0; i < 12; i++) {
    x[i] = i * i;
    y[i] = -1;
  }
  kernel(10, x, y); /* distinct */
  show("distinct", y, 12);
  kernel(5, x, x + 5); /* adjacent: x[0..4] and x[5..9] */
  show("adjacent", x, 12);
  kernel(10, x, x + 1); /* B one element after A: the original runs a chain */
  show("overlapping", x, 12);
  kernel(10, x + 1, x); /* B one element before A */
  show("overlapping backwards", x, 12);
  return 0;
}
