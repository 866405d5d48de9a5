/* Updates with the shape of a product that the register-block recipe must skip: S0
   reads elements of C that it does not update (its block of C cannot stay in registers),
   and S1's domain keeps only the even (i + j) (a domain with an integer division, whose
   whole tiles are not a box). */
#define N 40
double A[N][N], B[N][N], C[N][2 * N], D[N][N];

void kernel(int n)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * C[i][j + n];
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++)
      for (j = 0; j < n; j++)
        if ((i + j) % 2 == 0)
          D[i][j] += A[j][k] * B[i][k];
#pragma endscop
}

int main(void)
{
  kernel(N);
  return 0;
}
