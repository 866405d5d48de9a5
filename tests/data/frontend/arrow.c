struct point { double x, y; };
void kernel(int n, struct point *pts)
{
#pragma scop
  for (int i = 0; i < n; i++)
    pts->x = 0.0;
#pragma endscop
}
