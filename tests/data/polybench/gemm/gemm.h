/* Problem sizes and data type for the PolyBench-style gemm test kernel. */
#ifndef LOOPY_TEST_GEMM_H
#define LOOPY_TEST_GEMM_H

#if !defined(MINI_DATASET) && !defined(LARGE_DATASET)
# define SMALL_DATASET
#endif

#ifdef MINI_DATASET
# define NI 20
# define NJ 25
# define NK 30
#endif
#ifdef SMALL_DATASET
# define NI 60
# define NJ 70
# define NK 80
#endif
#ifdef LARGE_DATASET
# define NI 1000
# define NJ 1100
# define NK 1200
#endif

#define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
#define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
#define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)

#ifndef DATA_TYPE
# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "
#endif

#endif
