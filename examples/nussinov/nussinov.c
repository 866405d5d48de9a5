/*
 * nussinov -- PolyBench 4.2.1 medley/nussinov, written for loopy: Nussinov's
 * dynamic program for RNA folding. table[i][j] (i < j) is the largest
 * number of bonds between the bases i..j of seq (0..3 for A, G, C, T; a
 * pair bonds when the two add up to 3), built from shorter intervals:
 * rows from the bottom up, each row left to right.
 *
 * Tags:
 *   Cell    first statement of the body of the j loop: the tag names the
 *           whole body, that is every update of table[i][j]
 *   Split   table[i][j] = max(table[i][j], table[i][k] + table[k+1][j])
 *
 * The maxima and the bonding test depend on the data, but only as values:
 * the frontend models each statement as reading every table element and
 * seq element it names and writing table[i][j], which is exact. The `if`s
 * compare loop counters only, so they are modelled exactly (as domains).
 *
 * Size macro (override with -D):
 *   N   default 180 (PolyBench SMALL)   MEDIUM: -DN=500   LARGE: -DN=2500
 */
#include <stdio.h>

#ifndef N
#define N 180
#endif

/* The tags are C labels that nothing jumps to, and the scop pragmas are
   only markers for loopy: keep -Wall -Werror quiet about both. */
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

/* Whether bases b1 and b2 bond, and the larger of two scores (PolyBench's
   definitions). */
#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)

static char seq[N];
static int table[N][N];

static void init_arrays(int n)
{
  int i, j;

  /* PolyBench 4.2.1's sequence and table. */
  for (i = 0; i < n; i++)
    seq[i] = (char) ((i + 1) % 4);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void kernel_nussinov(int n)
{
  int i, j, k;

#pragma scop
  for (i = n - 1; i >= 0; i--) {
    for (j = i + 1; j < n; j++) {
Cell: if (j - 1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j - 1]);
      if (i + 1 < n)
        table[i][j] = max_score(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < n) {
        /* no bond between neighbours */
        if (i < j - 1)
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
      }
      for (k = i + 1; k < j; k++)
Split:  table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
    }
  }
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
  kernel_nussinov(N);
  dump("table", &table[0][0], N, N);
  return 0;
}
