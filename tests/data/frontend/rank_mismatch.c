void kernel(int n)
{
#pragma scop
  for (int i = 0; i < n; i++)
    undeclared[i][i] = undeclared[i];
#pragma endscop
}
