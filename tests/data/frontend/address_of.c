void scale(double *x);
void kernel(int n, double A[100], double *p)
{
#pragma scop
  for (int i = 0; i < n; i++)
    p = &A[i];
#pragma endscop
}
