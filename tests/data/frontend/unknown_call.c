void log_value(double v);
void kernel(int n, double A[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    log_value(A[i]);
#pragma endscop
}
