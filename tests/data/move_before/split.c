double A[100], B[100], C[100];
void kernel(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
  for (i = 0; i < n; i++) {
    B[i] = A[i];
    C[i] = 2.0;
  }
#pragma endscop
}
