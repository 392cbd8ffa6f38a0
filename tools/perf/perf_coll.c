/* perf_coll: the collective benchmarks of tilecomm-perf (the contract is in
 * perf_coll.h, the method in perf.c).
 *
 * Portable C. Against a library that declares OpenSHMEM 1.5 or later
 * (tilecomm), fcollect, broadcast, reduce and alltoall are the team forms on
 * SHMEM_TEAM_WORLD: shmem_fcollectmem, shmem_broadcastmem (root 0),
 * shmem_long_sum_reduce, shmem_alltoallmem and shmem_collectmem. Against a
 * 1.4 library (OpenMPI's OSHMEM) they are the active-set forms over all PEs:
 * shmem_fcollect64, shmem_broadcast64 (root 0; it leaves the root's
 * destination unchanged), shmem_long_sum_to_all, shmem_alltoall64 and
 * shmem_collect64. The
 * reduction is a sum of longs because that is the type both APIs have
 * (shmem_long_sum_to_all); the MPI benchmark (bench/mpi_coll.c) matches it
 * with MPI_LONG and MPI_SUM. The *64 and sum_to_all kernels measure the 1.4
 * forms on either library.
 *
 * NOTE [pSync alternation]: the 1.4 forms need a pSync array that is back in
 * its initial state on every PE before it is used again. Instead of a barrier
 * between calls, consecutive calls alternate between two pSync (and pWrk)
 * arrays, which the specification permits; every PE makes the same calls, so
 * the parity agrees. */
#include "perf_coll.h"

#include <shmem.h>

#include <stdio.h>
#include <string.h>

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define PERF_TEAMS 1
#else
#define PERF_TEAMS 0
#endif

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_LEN \
  MAX2(MAX2(SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE), MAX2(SHMEM_REDUCE_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE))

static int me, npes;
static char *src;          /* symmetric, npes * limit bytes: every long holds me + 1 */
static char *dst;          /* symmetric, npes * limit bytes */
static long *psync[2];     /* symmetric, PSYNC_LEN each */
static long *pwrk[2];      /* symmetric, for shmem_long_sum_to_all */
static unsigned long calls; /* 1.4 calls made, for the pSync parity */
static int team_error;     /* a 1.5 routine returned nonzero */

static size_t pwrk_longs(size_t limit) {
  size_t n = limit / sizeof(long) / 2 + 1;
  return n > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? n : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
}

static void free_all(void) {
  /* shmem_free is collective and accepts NULL, so every PE frees the same list. */
  shmem_free(src);
  shmem_free(dst);
  for (int i = 0; i < 2; ++i) {
    shmem_free(psync[i]);
    shmem_free(pwrk[i]);
    psync[i] = pwrk[i] = NULL;
  }
  src = dst = NULL;
}

size_t coll_setup(int my_pe, int n_pes, size_t max_size) {
  me = my_pe;
  npes = n_pes;
  size_t limit = 8;
  while (limit * 2 <= max_size) limit *= 2;
  for (; limit >= 8; limit /= 2) {
    size_t span = (size_t)npes * limit;
    src = shmem_align(4096, span);
    dst = shmem_align(4096, span);
    int ok = src && dst;
    for (int i = 0; i < 2; ++i) {
      psync[i] = shmem_malloc(PSYNC_LEN * sizeof(long));
      pwrk[i] = shmem_align(4096, pwrk_longs(limit) * sizeof(long));
      ok = ok && psync[i] && pwrk[i];
    }
    if (ok) {
      long *s = (long *)src;
      for (size_t i = 0; i < span / sizeof(long); ++i) s[i] = me + 1;
      memset(dst, 0, span); /* fault the pages in */
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < PSYNC_LEN; ++j) psync[i][j] = SHMEM_SYNC_VALUE;
      shmem_barrier_all(); /* pSync is initialised everywhere before its first use */
      return limit;
    }
    free_all();
  }
  return 0;
}

void coll_teardown(void) { free_all(); }

/* ---- the 1.4 forms -------------------------------------------------------------- */

void k_fcollect64(size_t size, long n) {
  for (long i = 0; i < n; ++i) shmem_fcollect64(dst, src, size / 8, 0, 0, npes, psync[calls++ & 1]);
}

void k_broadcast64(size_t size, long n) {
  for (long i = 0; i < n; ++i) shmem_broadcast64(dst, src, size / 8, 0, 0, 0, npes, psync[calls++ & 1]);
}

void k_sum_to_all(size_t size, long n) {
  for (long i = 0; i < n; ++i) {
    int k = (int)(calls++ & 1);
    shmem_long_sum_to_all((long *)dst, (const long *)src, (int)(size / sizeof(long)), 0, 0, npes, pwrk[k],
                          psync[k]);
  }
}

void k_alltoall64(size_t size, long n) {
  for (long i = 0; i < n; ++i) shmem_alltoall64(dst, src, size / 8, 0, 0, npes, psync[calls++ & 1]);
}

void k_collect64(size_t size, long n) {
  const size_t words = collect_share(me, size) / 8;
  for (long i = 0; i < n; ++i) shmem_collect64(dst, src, words, 0, 0, npes, psync[calls++ & 1]);
}

/* ---- the measured forms ------------------------------------------------------- */

#if PERF_TEAMS
void k_fcollect(size_t size, long n) {
  int rc = 0;
  for (long i = 0; i < n; ++i) rc |= shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
  team_error |= rc;
}

void k_broadcast(size_t size, long n) {
  int rc = 0;
  for (long i = 0; i < n; ++i) rc |= shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
  team_error |= rc;
}

void k_reduce(size_t size, long n) {
  int rc = 0;
  for (long i = 0; i < n; ++i)
    rc |= shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)dst, (const long *)src, size / sizeof(long));
  team_error |= rc;
}

void k_alltoall(size_t size, long n) {
  int rc = 0;
  for (long i = 0; i < n; ++i) rc |= shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
  team_error |= rc;
}

void k_collect(size_t size, long n) {
  const size_t bytes = collect_share(me, size);
  int rc = 0;
  for (long i = 0; i < n; ++i) rc |= shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, bytes);
  team_error |= rc;
}

const char *const coll_what[COLL_OPS] = {
    "", "shmem_fcollectmem, SHMEM_TEAM_WORLD", "shmem_broadcastmem, SHMEM_TEAM_WORLD, root 0",
    "shmem_long_sum_reduce, SHMEM_TEAM_WORLD", "shmem_alltoallmem, SHMEM_TEAM_WORLD",
    "shmem_collectmem, SHMEM_TEAM_WORLD"};
#else
void k_fcollect(size_t size, long n) { k_fcollect64(size, n); }
void k_broadcast(size_t size, long n) { k_broadcast64(size, n); }
void k_reduce(size_t size, long n) { k_sum_to_all(size, n); }
void k_alltoall(size_t size, long n) { k_alltoall64(size, n); }
void k_collect(size_t size, long n) { k_collect64(size, n); }

const char *const coll_what[COLL_OPS] = {
    "", "shmem_fcollect64, all PEs, pSync", "shmem_broadcast64, all PEs, root 0, pSync",
    "shmem_long_sum_to_all, all PEs, pSync", "shmem_alltoall64, all PEs, pSync",
    "shmem_collect64, all PEs, pSync"};
#endif

const char *const coll_what_deprecated[COLL_OPS] = {"", "shmem_fcollect64 (deprecated), all PEs",
                                                    "shmem_broadcast64 (deprecated), root 0",
                                                    "shmem_long_sum_to_all (deprecated), all PEs",
                                                    "shmem_alltoall64 (deprecated), all PEs",
                                                    "shmem_collect64 (deprecated), all PEs"};

/* ---- checks ------------------------------------------------------------------ */

/* The blocks of dst that this PE receives at this size, and what each holds. */
static int blocks_of(enum coll_op op, int deprecated, long *expect_first) {
  switch (op) {
  case COLL_FCOLLECT:
  case COLL_ALLTOALL:
  case COLL_COLLECT:
    *expect_first = 1; /* block j comes from PE j: j + 1 */
    return npes;
  case COLL_BROADCAST:
    *expect_first = 1; /* the root's words */
    return me == 0 && (deprecated || !PERF_TEAMS) ? 0 : 1;
  case COLL_REDUCE:
    *expect_first = (long)npes * (npes + 1) / 2;
    return 1;
  default:
    return 0;
  }
}

/* The first and one past the last word of block b of dst. */
static void block_words(enum coll_op op, size_t size, int b, size_t *first, size_t *end) {
  const size_t at = op == COLL_COLLECT ? collect_at(b, size) : (size_t)b * size;
  const size_t len = op == COLL_COLLECT ? collect_share(b, size) : size;
  *first = at / sizeof(long);
  *end = (at + len) / sizeof(long);
}

void coll_poison(enum coll_op op, size_t size) {
  long first;
  int blocks = blocks_of(op, 0, &first);
  long *d = (long *)dst;
  for (int b = 0; b < blocks; ++b) {
    size_t a, z;
    block_words(op, size, b, &a, &z);
    d[a] = d[z - 1] = -7;
  }
}

int coll_check(enum coll_op op, int deprecated, size_t size) {
  long first;
  int blocks = blocks_of(op, deprecated, &first);
  int per_block = op == COLL_FCOLLECT || op == COLL_ALLTOALL || op == COLL_COLLECT;
  const long *d = (const long *)dst;
  int bad = 0;
  for (int b = 0; b < blocks && !bad; ++b) {
    long want = per_block ? b + 1 : first;
    size_t at, end;
    block_words(op, size, b, &at, &end);
    long a = d[at], z = d[end - 1];
    if (a != want || z != want) {
      static const char *const names[COLL_OPS] = {"", "fcollect", "broadcast", "reduce", "alltoall", "collect"};
      fprintf(stderr, "perf: PE %d: %s%s of %zu bytes: block %d holds %ld..%ld, expected %ld\n", me, names[op],
              deprecated ? " (1.4 form)" : "", size, b, a, z, want);
      bad = 1;
    }
  }
  if (team_error) {
    fprintf(stderr, "perf: PE %d: a collective returned an error\n", me);
    team_error = 0;
    bad = 1;
  }
  return bad;
}
