/* perf_coll: the collective benchmarks of tilecomm-perf (perf.c runs them).
 *
 * Contract: perf.c calls coll_setup() once, collectively, before any kernel,
 * and coll_teardown() once at the end. For each measured size it calls
 * coll_poison() on every PE, measures the kernel (every PE runs it the same
 * number of times, back to back), then coll_check() on every PE. A kernel
 * runs n iterations of one collective over all PEs; `size` is the bytes each
 * PE contributes (fcollect, broadcast, reduce) or sends to each peer
 * (alltoall), or the largest contribution (collect: collect_share()). Sizes are powers of two from 8 to coll_setup()'s result.
 *
 * Which API is measured depends on the library compiled against: see
 * perf_coll.c. */
#ifndef TILECOMM_PERF_COLL_H
#define TILECOMM_PERF_COLL_H

#include <stddef.h>

enum coll_op { COLL_NONE, COLL_FCOLLECT, COLL_BROADCAST, COLL_REDUCE, COLL_ALLTOALL, COLL_COLLECT, COLL_OPS };

/* What PE `pe` contributes to a collect of `size`: `size` bytes on odd PEs,
 * half of it (at least 8) on even ones, so that the blocks differ. */
static inline size_t collect_share(int pe, size_t size) {
  return pe % 2 ? size : (size / 2 < 8 ? 8 : size / 2);
}
/* Where PE `pe`'s block of a collect starts in the gathered array. */
static inline size_t collect_at(int pe, size_t size) {
  size_t at = 0;
  for (int j = 0; j < pe; ++j) at += collect_share(j, size);
  return at;
}

/* Collective: allocates the symmetric buffers for per-PE sizes up to
 * max_size (rounded down to a power of two), halving it while the heap is too
 * small. Returns the largest size that fits, 0 when not even 8 bytes do. */
size_t coll_setup(int my_pe, int n_pes, size_t max_size);
void coll_teardown(void);

/* The 1.5 team forms where the library has them, else the 1.4 forms. */
void k_fcollect(size_t size, long n);
void k_broadcast(size_t size, long n);
void k_reduce(size_t size, long n);
void k_alltoall(size_t size, long n);
void k_collect(size_t size, long n);
/* The deprecated active-set forms with pSync (the same calls as above on a
 * 1.4 library). */
void k_fcollect64(size_t size, long n);
void k_broadcast64(size_t size, long n);
void k_sum_to_all(size_t size, long n);
void k_alltoall64(size_t size, long n);
void k_collect64(size_t size, long n);

/* What the kernels call, for the table and --help. */
extern const char *const coll_what[COLL_OPS];  /* indexed by enum coll_op */
extern const char *const coll_what_deprecated[COLL_OPS];

/* Marks the words coll_check() reads with a value no collective writes. */
void coll_poison(enum coll_op op, size_t size);
/* Checks the first and last word of every block this PE received; prints and
 * returns nonzero on wrong data or on an error return of a 1.5 routine.
 * `deprecated`: the broadcast was the 1.4 form, which leaves the root's
 * destination unchanged. */
int coll_check(enum coll_op op, int deprecated, size_t size);

/* NOTE [bandwidth convention]: that of nccl-tests (doc/PERFORMANCE.md),
 * algbw = S / time and busbw = algbw * factor, for n PEs:
 *   fcollect (allgather)  S = n * size (the gathered array)  factor (n-1)/n
 *   broadcast             S = size                           factor 1
 *   reduce (allreduce)    S = size (the vector)              factor 2(n-1)/n
 *   alltoall              S = n * size (what one PE sends)   factor (n-1)/n
 *   collect (allgatherv)  S = the gathered array             factor (n-1)/n
 *                         (collect_share() of every PE)
 * Header-only, so that bench/mpi_coll.c reports MPI by the same rule. */
static inline void coll_bandwidth(enum coll_op op, size_t size, int n, double *bytes, double *bus_factor) {
  const double s = (double)size, pes = (double)n;
  switch (op) {
  case COLL_FCOLLECT:
  case COLL_ALLTOALL:
    *bytes = s * pes;
    *bus_factor = (pes - 1) / pes;
    break;
  case COLL_COLLECT:
    *bytes = 0;
    for (int k = 0; k < n; ++k) *bytes += (double)collect_share(k, size);
    *bus_factor = (pes - 1) / pes;
    break;
  case COLL_REDUCE:
    *bytes = s;
    *bus_factor = 2 * (pes - 1) / pes;
    break;
  default: /* broadcast: all of S leaves the root */
    *bytes = s;
    *bus_factor = 1;
    break;
  }
}

#endif
