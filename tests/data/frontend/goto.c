void kernel(int n, double A[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i > 10)
      goto done;
    A[i] = 0.0;
  }
#pragma endscop
done:
  return;
}
