/*
 * A small stand-in for PolyBench/C 4.2.1's utilities/polybench.h, written for loopy's
 * tests. It defines the same macro interface the benchmark kernels use (array declaration
 * macros, loop-bound macros, SCALAR_VAL, instrumentation hooks), so that a kernel written
 * in the PolyBench style preprocesses to the same C a real PolyBench build sees.
 */
#ifndef LOOPY_TEST_POLYBENCH_H
#define LOOPY_TEST_POLYBENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* Extra elements appended to every array dimension (PolyBench uses it against
   cache-set conflicts). */
#ifndef POLYBENCH_PADDING_FACTOR
# define POLYBENCH_PADDING_FACTOR 0
#endif

/* Array dimensions in prototypes: the compile-time size (default) or the run-time
   parameter (C99 variable-length prototypes). */
#ifdef POLYBENCH_USE_C99_PROTO
# define POLYBENCH_C99_SELECT(compile_time, run_time) run_time
#else
# define POLYBENCH_C99_SELECT(compile_time, run_time) compile_time
#endif

/* Loop bounds: the run-time parameter (default) or the compile-time constant. */
#ifdef POLYBENCH_USE_SCALAR_LB
# define POLYBENCH_LOOP_BOUND(compile_time, run_time) compile_time
#else
# define POLYBENCH_LOOP_BOUND(compile_time, run_time) run_time
#endif

#define POLYBENCH_1D(var, d1, dd1) \
  var[POLYBENCH_C99_SELECT(d1, dd1) + POLYBENCH_PADDING_FACTOR]
#define POLYBENCH_2D(var, d1, d2, dd1, dd2) \
  var[POLYBENCH_C99_SELECT(d1, dd1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(d2, dd2) + POLYBENCH_PADDING_FACTOR]

/* Heap arrays, used through a pointer to the whole array. */
#define POLYBENCH_ALLOC_2D(type, d1, d2) \
  ((type (*)[d1 + POLYBENCH_PADDING_FACTOR][d2 + POLYBENCH_PADDING_FACTOR]) \
     malloc(sizeof(type) * (d1 + POLYBENCH_PADDING_FACTOR) \
                         * (d2 + POLYBENCH_PADDING_FACTOR)))
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2) \
  type (*var)[d1 + POLYBENCH_PADDING_FACTOR][d2 + POLYBENCH_PADDING_FACTOR] = \
    POLYBENCH_ALLOC_2D(type, d1, d2)
#define POLYBENCH_ARRAY(var) (*var)
#define POLYBENCH_FREE_ARRAY(var) free((void *) var)

/* Scalars and functions follow the configured data type. */
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)

/* Output goes to stderr, bracketed like PolyBench's dumps. */
#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_BEGIN(s) fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
#define POLYBENCH_DUMP_END(s) fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)

/* Timing hooks: nothing in this stand-in. */
#define polybench_start_instruments
#define polybench_stop_instruments
#define polybench_print_instruments
#define polybench_prevent_dce(fn) fn

#endif
