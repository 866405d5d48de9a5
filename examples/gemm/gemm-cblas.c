/*
 * gemm-cblas -- the reference for examples/gemm: the same program (same arrays, same
 * initialisation, same output) with the kernel replaced by one call of the BLAS routine
 * cblas_dgemm (C := alpha * A * B + beta * C). `loopy bench` times it beside the original
 * and the transformed program (the `reference` of gemm's entry in examples/loopy.toml).
 *
 * Needs a CBLAS: OpenBLAS on Debian (apt-get install libopenblas-dev), linked with
 * -lopenblas. OpenBLAS sums each C[i][j] in another order than the loop nest does; with
 * this example's data (small multiples of powers of two) every partial sum is exact, so
 * the outputs are identical all the same, and `loopy bench` checks that they are.
 *
 * The `#pragma scop` region marks the kernel for bench's kernel clock (docs/bench.md): it
 * times the cblas_dgemm call alone, as it times the examples' modelled regions.
 */
#include <cblas.h>

/* The example itself, with its main renamed: this file keeps its arrays, init_arrays
   and dump, and has a main of its own. */
#define main gemm_example_main
#include "gemm.c"
#undef main

int main(void)
{
  init_arrays(NI, NJ, NK);
#pragma scop
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, NI, NJ, NK, 1.5, &A[0][0], NK,
              &B[0][0], NJ, 1.25, &C[0][0], NJ);
#pragma endscop
  dump("C", &C[0][0], NI, NJ);
  return 0;
}
