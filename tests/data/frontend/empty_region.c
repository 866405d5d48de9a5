void kernel(int n, double A[100])
{
#pragma scop
#pragma endscop
}
