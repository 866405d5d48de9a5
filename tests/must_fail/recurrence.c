/* A first-order recurrence. */
#define N 100
double A[N];

void kernel(int n)
{
  int i;
#pragma scop
  for (i = 1; i < n; i++)
S:  A[i] = A[i-1] + 1.0;
#pragma endscop
}
