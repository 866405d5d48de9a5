void kernel(int n, double A[100])
{
#pragma scop
  while (A[0] < 100.0) {
Grow: A[0] = 2.0 * A[0];
  }
#pragma endscop
}
