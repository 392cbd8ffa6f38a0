/* The clock and the median helper of the benchmarks (tilecomm-perf,
 * bench/mpi_coll.c, bench/memcpy_bw.c): one definition for all three. */
#ifndef TILECOMM_BENCH_CLOCK_H
#define TILECOMM_BENCH_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort comparison of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
