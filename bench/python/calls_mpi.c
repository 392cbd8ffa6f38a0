/* calls_mpi: the MPI twin of calls_c.c, the baseline that calls.py
 * --impl mpi4py subtracts from the same loops in mpi4py (bench/compare-python).
 *
 *   put       MPI_Put of 8 B (MPI_BYTE) to rank 1, then MPI_Win_flush
 *   get       MPI_Get of 8 B from rank 1, then MPI_Win_flush
 *   fetch_add MPI_Fetch_and_op (MPI_INT64_T, MPI_SUM) on rank 1, then MPI_Win_flush
 *   reduce    MPI_Allreduce of 1 MPI_INT64_T, MPI_SUM, on MPI_COMM_WORLD
 *
 * on a window of MPI_Win_allocate in passive target mode (MPI_Win_lock_all
 * once). The method is calls_c.c's, with MPI_Barrier.
 *
 *   mpirun -np 2 calls_mpi [--iters N] [--rounds R] [--warmup W]
 * Build: mpicc.openmpi -O2 bench/python/calls_mpi.c -o calls_mpi */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/perf/bench_common.h"

static long iters = 2000;
static int rounds = 15, warmup = 3;

static MPI_Win win;
static int64_t local_v, result_v, one = 1, red_in = 1, red_out;

static void op_put(long n) {
  for (long i = 0; i < n; ++i) {
    MPI_Put(&local_v, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
    MPI_Win_flush(1, win);
  }
}
static void op_get(long n) {
  for (long i = 0; i < n; ++i) {
    MPI_Get(&local_v, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
    MPI_Win_flush(1, win);
  }
}
static void op_fadd(long n) {
  for (long i = 0; i < n; ++i) {
    MPI_Fetch_and_op(&one, &result_v, MPI_INT64_T, 1, 0, MPI_SUM, win);
    MPI_Win_flush(1, win);
  }
}
static void op_reduce(long n) {
  for (long i = 0; i < n; ++i) MPI_Allreduce(&red_in, &red_out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}

static void measure(const char *name, void (*op)(long), int collective, int me) {
  double *t = malloc(sizeof(double) * (size_t)rounds);
  for (int r = -warmup; r < rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (me == 0 || collective) op(iters);
    double dt = now() - t0;
    if (r >= 0) t[r] = dt / (double)iters * 1e6;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  qsort(t, (size_t)rounds, sizeof(double), cmp_double);
  if (me == 0) printf("%s,%.6g,us\n", name, t[rounds / 2]);
  fflush(stdout);
  free(t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atol(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
    else {
      if (me == 0) fprintf(stderr, "calls_mpi: unknown argument '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (n < 2 || iters < 1 || rounds < 1 || warmup < 0) {
    if (me == 0) fprintf(stderr, "calls_mpi: needs 2 ranks and positive counts\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int64_t *base;
  MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, 64);
  MPI_Win_lock_all(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("metric,value,unit\n");
  measure("put", op_put, 0, me);
  measure("get", op_get, 0, me);
  measure("fetch_add", op_fadd, 0, me);
  measure("reduce", op_reduce, 1, me);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
