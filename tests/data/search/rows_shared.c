/* doitgen's shape, but every row's read-out adds into one row per r: the blocks of rows can
   be computed in order, not on threads (their read-outs update the same elements). */
#define NQ 20
#define NR 5
#define NP 12
double A[NR][NQ][NP];
double Y[NR][NP];
double C4[NP][NP];
double sum[NP];

void kernel(int nr, int nq, int np)
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        Y[r][p] += sum[p];
    }
#pragma endscop
}
