#pragma scop
for (i = 0; i < n; i++)
  y[i] = 2 * x[i];
#pragma endscop

#pragma scop
for (k = 0; k < m; k++)
  z[k] = 0;
#pragma endscop
