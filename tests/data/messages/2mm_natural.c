/* 2mm's first product, tagged the natural way: the label on the first statement of the
   `{ }` body tags the whole body, Mult included. */
void kernel_2mm(int ni, int nj, int nk, double alpha,
                double tmp[ni][nj], double A[ni][nk], double B[nk][nj])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
Init: tmp[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
Mult:   tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
