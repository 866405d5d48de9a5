/* doitgen's shape, but each row's product reads the row the previous one read out: the rows
   cannot be computed in blocks (nor the blocks on threads); the search must not propose it. */
#define NQ 20
#define NR 5
#define NP 12
double B[NR][NQ + 1][NP];
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
          sum[p] += B[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        B[r][q + 1][p] = sum[p];
    }
#pragma endscop
}
