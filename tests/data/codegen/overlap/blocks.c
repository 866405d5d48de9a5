/* The checked fast path of a BLIS-shaped product (packed copies, a register block of C):
   PolyBench's shape (array parameters whose extents are macros, DATA_TYPE double or, with
   -DDATA_TYPE_IS_FLOAT, float), called with disjoint and with overlapping arguments. Every
   element of the buffer is printed bit for bit after each call. */
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"

#ifdef DATA_TYPE_IS_FLOAT
#define DATA_TYPE float
#else
#define DATA_TYPE double
#endif

#define N 13

static void kernel(int n, DATA_TYPE C[N][N], DATA_TYPE A[N][N], DATA_TYPE B[N][N])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      for (k = 0; k < 1; k++)
Init:   C[i][j] = 0;
      for (k = 0; k < n; k++)
Mult:   C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
}

static DATA_TYPE buf[3 * N][N];

static void init(void)
{
  for (int i = 0; i < 3 * N; i++)
    for (int j = 0; j < N; j++)
      buf[i][j] = (DATA_TYPE)((i * 7 + j * 3) % 11) / 8 - (DATA_TYPE)0.5;
}

static void show(const char *what)
{
  printf("%s:\n", what);
  for (int i = 0; i < 3 * N; i++) {
    for (int j = 0; j < N; j++) {
      unsigned char b[sizeof(DATA_TYPE)];
      memcpy(b, &buf[i][j], sizeof b);
      for (unsigned k = 0; k < sizeof b; k++)
        printf("%02x", b[k]);
      putchar(' ');
    }
    putchar('\n');
  }
}

int main(void)
{
  init();
  kernel(N, buf, buf + N, buf + 2 * N); /* disjoint */
  show("disjoint");
  init();
  kernel(N, buf + 3, buf, buf + 2 * N); /* C three rows after A */
  show("C overlaps A");
  init();
  kernel(N - 1, buf + N, buf + 2, buf + N + 5); /* C overlaps B, A apart */
  show("C overlaps B");
  return 0;
}
