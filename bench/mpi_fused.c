/* mpi_fused: the unfused work of tilecomm-perf's fused-operator benchmark
 * (tools/perf/perf_fused.cpp) through MPI and OpenBLAS, so that
 * bench/compare-fused can set it beside tilecomm's fused and unfused
 * operators:
 *
 *   AllGatherAdd         MPI_Allgather into a temporary, then c = tmp + b
 *   AllGatherMatmul      MPI_Allgather into a temporary, then cblas_sgemm, + bias
 *                        (bf16: converted to fp32 and back, rounding once, as
 *                        tilecomm's ops::Matmul does)
 *   MatmulReduceScatter  cblas_sgemm, MPI_Reduce_scatter_block (MPI_SUM), + bias
 *   MatmulAllReduce      cblas_sgemm, MPI_Allreduce (MPI_SUM), + bias
 *
 * and the communication alone (the same MPI call on the same bytes). The
 * cases, their shapes and their data are tools/perf/fused_cases.h, the list
 * tilecomm-perf --only fused measures.
 *
 * MPI 2.2 C (MPI_Reduce_scatter_block) and OpenBLAS's CBLAS:
 *   mpicc.openmpi -O2 -I/usr/include/x86_64-linux-gnu/openblas-pthread -o mpi_fused bench/mpi_fused.c -lopenblas
 *   OPENBLAS_NUM_THREADS=1 mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --mca btl self,vader ./mpi_fused
 * OPENBLAS_NUM_THREADS=1: one BLAS thread per rank, as tilecomm-perf is run.
 *
 * Method (perf_fused.cpp's): per case, after a warm-up call of each, the
 * unfused work and the communication alone take turns, one repetition of
 * each (the order rotating), --reps repetitions (at least 15 unless --quick)
 * of about --rep-ms each; a repetition is a barrier, n calls back to back and
 * a closing barrier, timed on rank 0 with CLOCK_MONOTONIC; the median of
 * (repetition time / n) is reported. The result is checked against the
 * exact values (fused_expected) at a few places after the repetitions.
 *
 * Output from rank 0: a table, one line per case, or with --csv the lines
 * "NAME/unfused,BYTES,US,us" and "NAME/comm,BYTES,US,us" (tilecomm-perf's
 * metric,size,value,unit) after a header of those names. */
#define _POSIX_C_SOURCE 200809L

#include <cblas.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perf/bench_common.h"
#include "../tools/perf/fused_cases.h"

#define MAX_REPS 51
#define MIN_REPS 15 /* a few slow repetitions on a 2-CPU host would move a median of five */
#define MAX_ITERS 1000L
#define SPOT_CHECKS 32

static struct {
  int csv, quick, reps;
  double rep_seconds;
} opt;

static int me, npes;

static void usage(FILE *to) {
  fprintf(to, "usage: mpi_fused [--csv] [--quick] [--reps N] [--rep-ms MS]\n"
              "  --csv           print metric,size,value,unit lines instead of a table\n"
              "  --quick         fewer and shorter repetitions (a smoke run)\n"
              "  --reps N        timed repetitions per case, median reported (default and least 15, quick 3)\n"
              "  --rep-ms MS     target length of one repetition (default 20, quick 3)\n"
              "Run with OPENBLAS_NUM_THREADS=1.\n");
}

/* Returns 0 to run, 1 after --help, 2 after a usage error (rank 0 prints). */
static int parse_args(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (!strcmp(a, "--csv")) opt.csv = 1;
    else if (!strcmp(a, "--quick")) opt.quick = 1;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (me == 0) usage(stdout);
      return 1;
    } else if (val && !strcmp(a, "--reps")) opt.reps = atoi(val), ++i, bad = opt.reps < 1 || opt.reps > MAX_REPS;
    else if (val && !strcmp(a, "--rep-ms")) opt.rep_seconds = atof(val) / 1e3, ++i, bad = !(opt.rep_seconds > 0);
    else {
      if (me == 0) {
        fprintf(stderr, "mpi_fused: unknown or incomplete option '%s'\n", a);
        usage(stderr);
      }
      return 2;
    }
    if (bad) {
      if (me == 0) fprintf(stderr, "mpi_fused: bad value '%s' for %s\n", val, a);
      return 2;
    }
  }
  if (!opt.reps) opt.reps = opt.quick ? 3 : MIN_REPS;
  if (!opt.quick && opt.reps < MIN_REPS) opt.reps = MIN_REPS;
  if (opt.rep_seconds == 0) opt.rep_seconds = opt.quick ? 0.003 : 0.020;
  return 0;
}

/* ---- bf16, as tilecomm converts it (round to nearest even; no NaN in these data) -- */

static float bf16_to_float(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

/* ---- one case ----------------------------------------------------------------- */

/* A case's buffers on this rank. x1 is a or x1, x2 is b or x2, tmp the
 * gathered input or the unreduced product, y the result; the f32 ones hold
 * the bf16 operands converted for cblas_sgemm (NULL for fp32). */
struct bufs {
  void *x1, *x2, *bias, *tmp, *y;
  float *tmp32, *x2_32, *bias32, *y32;
};

static void *alloc_or_die(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, bytes ? bytes : 1)) {
    fprintf(stderr, "mpi_fused: rank %d: out of memory for %zu bytes\n", me, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(p, 0, bytes); /* fault the pages in */
  return p;
}

static void fill(void *dst, const struct fused_case *c, int which, int rank, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const float v = fused_value(which, rank, i);
    if (c->type == FUSED_BF16) ((uint16_t *)dst)[i] = float_to_bf16(v);
    else ((float *)dst)[i] = v;
  }
}

static double element(const struct fused_case *c, const void *p, size_t i) {
  return c->type == FUSED_BF16 ? bf16_to_float(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static void setup(const struct fused_case *c, struct bufs *b) {
  const size_t e = fused_elem_size(c), size = (size_t)npes;
  const size_t x1 = c->op == FUSED_ALLGATHER_ADD ? c->m : c->m * c->k;
  const size_t x2 = c->op == FUSED_ALLGATHER_ADD ? size * c->m : c->k * c->n;
  const size_t bias = c->op == FUSED_ALLGATHER_ADD ? 0 : c->n;
  const size_t tmp = c->op == FUSED_ALLGATHER_ADD ? size * c->m
                     : c->op == FUSED_ALLGATHER_MATMUL ? size * c->m * c->k
                                                       : c->m * c->n;
  memset(b, 0, sizeof *b);
  b->x1 = alloc_or_die(x1 * e), b->x2 = alloc_or_die(x2 * e), b->bias = alloc_or_die(bias * e);
  b->tmp = alloc_or_die(tmp * e), b->y = alloc_or_die(fused_result_count(c, npes) * e);
  fill(b->x1, c, FUSED_A, me, x1);
  fill(b->x2, c, FUSED_B, 0, x2);
  fill(b->bias, c, FUSED_BIAS, 0, bias);
  if (c->type == FUSED_BF16) {
    b->tmp32 = alloc_or_die(tmp * sizeof(float)), b->x2_32 = alloc_or_die(x2 * sizeof(float));
    b->bias32 = alloc_or_die(bias * sizeof(float)), b->y32 = alloc_or_die(fused_result_count(c, npes) * sizeof(float));
  }
}

static void teardown(struct bufs *b) {
  void *all[] = {b->x1, b->x2, b->bias, b->tmp, b->y, b->tmp32, b->x2_32, b->bias32, b->y32};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
}

static void to_f32(float *dst, const void *src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_to_float(((const uint16_t *)src)[i]);
}

/* C (rows x n) = A (rows x k) @ B (k x n) + bias (when not NULL), row-major. */
static void matmul(float *c, const float *a, const float *b, const float *bias, size_t rows, size_t k, size_t n) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)n, (int)k, 1.0f, a, (int)k, b, (int)n, 0.0f,
              c, (int)n);
  if (bias)
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < n; ++j) c[r * n + j] += bias[j];
}

static void add_bias(float *y, const float *bias, size_t rows, size_t n) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < n; ++j) y[r * n + j] += bias[j];
}

/* The communication of the case: the collective on the same bytes. */
static void comm(const struct fused_case *c, struct bufs *b) {
  const int e = (int)fused_elem_size(c);
  switch (c->op) {
  case FUSED_ALLGATHER_ADD:
    MPI_Allgather(b->x1, (int)c->m, MPI_FLOAT, b->tmp, (int)c->m, MPI_FLOAT, MPI_COMM_WORLD);
    break;
  case FUSED_ALLGATHER_MATMUL: /* bf16 travels as bytes */
    MPI_Allgather(b->x1, (int)(c->m * c->k) * e, MPI_BYTE, b->tmp, (int)(c->m * c->k) * e, MPI_BYTE, MPI_COMM_WORLD);
    break;
  case FUSED_MATMUL_REDUCE_SCATTER:
    MPI_Reduce_scatter_block(b->tmp, b->y, (int)(c->m / (size_t)npes * c->n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    break;
  case FUSED_MATMUL_ALLREDUCE:
    MPI_Allreduce(b->tmp, b->y, (int)(c->m * c->n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    break;
  }
}

/* The whole unfused work of the case. */
static void unfused(const struct fused_case *c, struct bufs *b) {
  const size_t rows = (size_t)npes * c->m;
  switch (c->op) {
  case FUSED_ALLGATHER_ADD: {
    comm(c, b);
    float *y = b->y;
    const float *t = b->tmp, *x2 = b->x2;
    for (size_t i = 0; i < rows; ++i) y[i] = t[i] + x2[i];
    break;
  }
  case FUSED_ALLGATHER_MATMUL:
    comm(c, b);
    if (c->type == FUSED_BF16) {
      to_f32(b->tmp32, b->tmp, rows * c->k);
      to_f32(b->x2_32, b->x2, c->k * c->n);
      to_f32(b->bias32, b->bias, c->n);
      matmul(b->y32, b->tmp32, b->x2_32, b->bias32, rows, c->k, c->n);
      for (size_t i = 0; i < rows * c->n; ++i) ((uint16_t *)b->y)[i] = float_to_bf16(b->y32[i]);
    } else {
      matmul(b->y, b->tmp, b->x2, b->bias, rows, c->k, c->n);
    }
    break;
  case FUSED_MATMUL_REDUCE_SCATTER:
  case FUSED_MATMUL_ALLREDUCE:
    matmul(b->tmp, b->x1, b->x2, NULL, c->m, c->k, c->n);
    comm(c, b);
    add_bias(b->y, b->bias, c->op == FUSED_MATMUL_ALLREDUCE ? c->m : c->m / (size_t)npes, c->n);
    break;
  }
}

/* Runs the unfused work once more and compares the result with the exact
 * values at SPOT_CHECKS places; returns 1 (after a message) when one differs. */
static int check(const struct fused_case *c, struct bufs *b, const char *name) {
  unfused(c, b);
  const size_t n = fused_result_count(c, npes);
  for (int s = 0; s < SPOT_CHECKS; ++s) {
    const size_t i = (n - 1) * (size_t)s / (SPOT_CHECKS - 1);
    const double got = element(c, b->y, i), want = fused_expected(c, me, npes, i);
    if (!fused_close(c, got, want)) {
      fprintf(stderr, "mpi_fused: rank %d: %s: element %zu is %.9g, exact %.9g\n", me, name, i, got, want);
      return 1;
    }
  }
  return 0;
}

/* ---- measurement --------------------------------------------------------------- */

static double median(double *v, int n) { /* sorts v */
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Rank 0's seconds for n calls of the unfused work (variant 0) or the
 * communication alone (1), barrier to barrier. */
static double round_of(const struct fused_case *c, struct bufs *b, int variant, long n) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  for (long i = 0; i < n; ++i) variant ? comm(c, b) : unfused(c, b);
  MPI_Barrier(MPI_COMM_WORLD);
  return me == 0 ? now() - t0 : 0;
}

/* Medians in us of the unfused work and the communication alone. */
static void measure(const struct fused_case *c, struct bufs *b, double *unfused_us, double *comm_us) {
  unfused(c, b); /* warm-up: caches, page faults, connections */
  comm(c, b);
  double one = round_of(c, b, 0, 1);
  long iters = 0;
  if (me == 0) {
    double nn = one > 0 ? opt.rep_seconds / one : (double)MAX_ITERS;
    iters = nn > (double)MAX_ITERS ? MAX_ITERS : nn < 1 ? 1 : (long)nn;
  }
  MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  double v[2][MAX_REPS];
  for (int r = 0; r < opt.reps; ++r)
    for (int j = 0; j < 2; ++j) {
      const int variant = (r + j) % 2;
      v[variant][r] = round_of(c, b, variant, iters) / (double)iters * 1e6;
    }
  *unfused_us = median(v[0], opt.reps);
  *comm_us = median(v[1], opt.reps);
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &npes);
  int rc = parse_args(argc, argv);
  if (rc) {
    MPI_Finalize();
    return rc == 1 ? 0 : rc;
  }
  if (me == 0) {
    if (opt.csv) {
      printf("metric,size,value,unit\n");
    } else {
      char version[MPI_MAX_LIBRARY_VERSION_STRING];
      int len = 0;
      MPI_Get_library_version(version, &len);
      char *nl = strchr(version, '\n');
      if (nl) *nl = 0;
      const char *threads = getenv("OPENBLAS_NUM_THREADS");
      printf("# the fused operators' work unfused through MPI: %s, %d ranks, OPENBLAS_NUM_THREADS=%s\n", version, npes,
             threads ? threads : "(unset)");
      printf("# time per call, median of %d interleaved repetitions of ~%.0f ms; comm share = comm / unfused\n",
             opt.reps, opt.rep_seconds * 1e3);
      printf("%-19s %-5s %-14s %11s %11s %6s\n", "operator", "type", "shape", "unfused us", "comm us", "share");
    }
    fflush(stdout);
  }
  int bad = 0;
  for (int i = 0; i < FUSED_NCASES; ++i) {
    const struct fused_case *c = &fused_cases[i];
    struct bufs b;
    char name[96], shape[64];
    fused_name(c, name, sizeof name);
    setup(c, &b);
    double unfused_us = 0, comm_us = 0;
    measure(c, &b, &unfused_us, &comm_us);
    bad |= check(c, &b, name);
    teardown(&b);
    if (me != 0) continue;
    if (opt.csv)
      printf("%s/unfused,%zu,%.3f,us\n%s/comm,%zu,%.3f,us\n", name, fused_comm_bytes(c), unfused_us, name,
             fused_comm_bytes(c), comm_us);
    else
      printf("%-19s %-5s %-14s %11.1f %11.1f %5.0f%%\n", fused_op_name[c->op], fused_type_name[c->type],
             fused_shape(c, shape, sizeof shape), unfused_us, comm_us, 100.0 * comm_us / unfused_us);
    fflush(stdout);
  }
  int any_bad = 0;
  MPI_Reduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0 && any_bad) fprintf(stderr, "mpi_fused: data checks failed; the numbers above are not valid\n");
  MPI_Finalize();
  return me == 0 && any_bad ? 1 : 0;
}
