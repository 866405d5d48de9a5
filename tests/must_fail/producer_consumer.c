/* A producer loop and a consumer loop: the consumer reads what the producer wrote. */
#define N 100
double A[N], B[N], C[N];

void kernel(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
Prod: B[i] = 2.0 * A[i];
  for (i = 1; i < n; i++)
Cons: C[i] = B[i] + B[i-1];
#pragma endscop
}
