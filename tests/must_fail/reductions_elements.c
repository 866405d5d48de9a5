/* Statements that look like reductions and are not, element by element. */
#include <stdio.h>
#define N 16
double A[N][N], x[N], y[N], z[N], w[N];

void kernel(int n)
{
  int i, k;
  double s;
#pragma scop
  s = 0.0;
  /* A matrix-vector product in place: `y[k]` is `y[i]` when k == i, an element the `k`
     loop updates. */
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++)
InPlace: y[i] += A[i][k] * y[k];
  /* `s = e - s` is not `s + (-e)`. */
  for (k = 0; k < n; k++)
Flip: s = x[k] - s;
  /* `*=` and `+=` on one element in one loop. */
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++) {
Add:  z[i] += x[k];
Mul:  z[i] *= 0.5;
    }
  /* A read, by another statement of the loop, of the element the loop updates. */
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++) {
Acc:  w[i] += x[k];
Peek: A[i][k] = w[i];
    }
#pragma endscop
  printf("%f %f %f %f\n", s, y[0], z[0], w[0]);
}

int main(void)
{
  kernel(N);
  return 0;
}
