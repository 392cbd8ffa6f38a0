/* calls_c: the per-call cost of four small operations through tilecomm's C
 * API (OpenSHMEM 1.5), the baseline that bench/python/calls.py subtracts
 * from the same loops in Python (bench/compare-python).
 *
 *   put       shmem_putmem of 8 B to PE 1, then shmem_quiet
 *   get       shmem_getmem of 8 B from PE 1
 *   fetch_add shmem_int64_atomic_fetch_add on PE 1's int64
 *   reduce    shmem_int64_sum_reduce of 1 int64 on SHMEM_TEAM_WORLD
 *
 * Method (the same in calls.py and calls_mpi.c): a round is a barrier, then
 * PE 0 times --iters calls back to back with CLOCK_MONOTONIC, then a barrier;
 * the other PEs wait in the barrier (reduce: they make the same calls). After
 * --warmup rounds, --rounds rounds are timed; PE 0 prints the median of
 * (round time / iters) in microseconds as "metric,value,unit" lines.
 *
 *   tcrun -n 2 calls_c [--iters N] [--rounds R] [--warmup W]
 * Build: <build>/tccc -O2 bench/python/calls_c.c -o calls_c */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/perf/bench_common.h"

static long iters = 2000;
static int rounds = 15, warmup = 3;

static int64_t *sym_a, *sym_b;
static int64_t local_v;

static void op_put(long n) {
  for (long i = 0; i < n; ++i) {
    shmem_putmem(sym_a, &local_v, 8, 1);
    shmem_quiet();
  }
}
static void op_get(long n) {
  for (long i = 0; i < n; ++i) shmem_getmem(&local_v, sym_a, 8, 1);
}
static void op_fadd(long n) {
  int64_t s = 0;
  for (long i = 0; i < n; ++i) s += shmem_int64_atomic_fetch_add(sym_a, 1, 1);
  local_v = s;
}
static void op_reduce(long n) {
  for (long i = 0; i < n; ++i) shmem_int64_sum_reduce(SHMEM_TEAM_WORLD, sym_b, sym_a, 1);
}

static void measure(const char *name, void (*op)(long), int collective) {
  const int me = shmem_my_pe();
  double *t = malloc(sizeof(double) * (size_t)rounds);
  for (int r = -warmup; r < rounds; ++r) {
    shmem_barrier_all();
    double t0 = now();
    if (me == 0 || collective) op(iters);
    double dt = now() - t0;
    if (r >= 0) t[r] = dt / (double)iters * 1e6;
    shmem_barrier_all();
  }
  qsort(t, (size_t)rounds, sizeof(double), cmp_double);
  if (me == 0) printf("%s,%.6g,us\n", name, t[rounds / 2]);
  fflush(stdout);
  free(t);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atol(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
    else {
      fprintf(stderr, "calls_c: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (iters < 1 || rounds < 1 || warmup < 0) return 2;
  shmem_init();
  if (shmem_n_pes() < 2) {
    if (shmem_my_pe() == 0) fprintf(stderr, "calls_c: needs at least 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  sym_a = shmem_calloc(8, sizeof(int64_t));
  sym_b = shmem_calloc(8, sizeof(int64_t));
  shmem_barrier_all();
  if (shmem_my_pe() == 0) printf("metric,value,unit\n");
  measure("put", op_put, 0);
  measure("get", op_get, 0);
  measure("fetch_add", op_fadd, 0);
  measure("reduce", op_reduce, 1);
  shmem_free(sym_b);
  shmem_free(sym_a);
  shmem_finalize();
  return 0;
}
