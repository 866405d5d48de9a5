/* A temporary declared outside the loop: one variable shared by every iteration. */
#define N 100
double A[N], B[N];

void kernel(int n)
{
  int i;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
T:  t = A[i] * 2.0;
U:  B[i] = t + 1.0;
  }
#pragma endscop
}
