/*
 * floyd-warshall -- PolyBench 4.2.1 medley/floyd-warshall, written for
 * loopy: all-pairs shortest paths in a directed graph of N nodes. path
 * holds the edge weights on entry (999 stands for "no edge") and the
 * shortest distances on exit; step k allows paths through node k.
 *
 * Tag:
 *   Relax   path[i][j] = min(path[i][j], path[i][k] + path[k][j]),
 *           written with PolyBench's conditional expression
 *
 * The minimum depends on the data, but only as a value: the frontend
 * models the statement as reading path[i][j], path[i][k] and path[k][j]
 * and writing path[i][j] for every (k, i, j), which is exact. Step k
 * writes row k and column k too (with their own values), so the model
 * keeps the steps in order and, within a step, the update of row k after
 * the rows above it and before the rows below it (all of them read it).
 *
 * Size macro (override with -D):
 *   N   default 180 (PolyBench SMALL)   MEDIUM: -DN=500   LARGE: -DN=2800
 */
#include <stdio.h>

#ifndef N
#define N 180
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static int path[N][N];

static void init_arrays(int n)
{
  int i, j;

  /* PolyBench 4.2.1's weights. */
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      path[i][j] = i * j % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
        path[i][j] = 999;
    }
}

static void kernel_floyd_warshall(int n)
{
  int i, j, k;

#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
Relax:  path[i][j] = path[i][j] < path[i][k] + path[k][j]
                     ? path[i][j] : path[i][k] + path[k][j];
#pragma endscop
}

/* ------------------------------------------------------------------ */
/* Output helpers (outside the tagged region).                         */
/* Small blocks are printed in full ("%d"); big ones as an evenly      */
/* spaced sample of about 1000 elements. Every block ends with its sum */
/* and a hash of the raw bytes, so that a change in any element        */
/* changes the output.                                                 */
/* ------------------------------------------------------------------ */

#ifndef PRINT_LIMIT
#define PRINT_LIMIT 20000
#endif

static unsigned long long bits_hash(const int *a, long count)
{
  unsigned long long h = 14695981039346656037ULL;
  long idx;
  int byte;

  for (idx = 0; idx < count; idx++) {
    unsigned int u = (unsigned int) a[idx];
    for (byte = 0; byte < 4; byte++) {
      h ^= (u >> (8 * byte)) & 0xffU;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

static void dump(const char *name, const int *a, long rows, long cols)
{
  long count = rows * cols;
  long r, c, idx, stride;
  long long total = 0;

  printf("== %s (%ld x %ld)\n", name, rows, cols);
  if (count <= PRINT_LIMIT) {
    for (r = 0; r < rows; r++) {
      for (c = 0; c < cols; c++)
        printf("%d ", a[r * cols + c]);
      printf("\n");
    }
  } else {
    stride = count / 1000 + 1;
    for (idx = 0; idx < count; idx += stride)
      printf("%s[%ld] = %d\n", name, idx, a[idx]);
  }
  for (idx = 0; idx < count; idx++)
    total += a[idx];
  printf("%s: sum %lld hash %016llx\n", name, total, bits_hash(a, count));
}

int main(void)
{
  init_arrays(N);
  kernel_floyd_warshall(N);
  dump("path", &path[0][0], N, N);
  return 0;
}
