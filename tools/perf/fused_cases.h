/* The cases of the fused-operator benchmark: one list, read by tilecomm-perf
 * (perf_fused.cpp) and bench/mpi_fused.c, so that both measure the same
 * shapes on the same data and bench/compare-fused can match their lines by
 * name.
 *
 * Shapes are those <tilecomm/ops.hpp> takes, per rank:
 *   AllGatherAdd         m elements of `a` on each rank (k and n unused)
 *   AllGatherMatmul      x1: m x k on each rank, x2: k x n; y: size*m x n
 *   MatmulReduceScatter  x1: m x k, x2: k x n on each rank; y: m/size x n
 *   MatmulAllReduce      x1: m x k, x2: k x n on each rank; y: m x n
 * MatmulReduceScatter's m is a multiple of 4, so 2 and 4 ranks divide it.
 *
 * The fp32 shapes were chosen to put the communication at roughly 20..80%
 * of tilecomm's unfused time at 2 and 4 PEs on a 2-CPU host with one BLAS
 * thread per process: there is something to hide behind the compute, and
 * something to hide it behind. The share follows the host's memory
 * bandwidth: on an AMD EPYC Zen 5 (memcpy 19 GB/s) most matmul shapes sit
 * at the low end (16..42%, and 10..20% for three of them), on a Zen 4
 * (10.6 GB/s) at 37..74%; AllGatherMatmul 1024x1024x8 stays inside the
 * range on both (33..73% at 2 PEs). The bf16 row's share is lower (4..9%
 * on the Zen 5, 21..39% on the Zen 4): the unfused ops::Matmul converts the
 * whole gathered matrix to fp32, a cost that grows with the gathered bytes
 * as the communication does. */
#ifndef TILECOMM_FUSED_CASES_H
#define TILECOMM_FUSED_CASES_H

#include <stddef.h>
#include <stdio.h>

enum fused_op { FUSED_ALLGATHER_ADD, FUSED_ALLGATHER_MATMUL, FUSED_MATMUL_REDUCE_SCATTER, FUSED_MATMUL_ALLREDUCE };
enum fused_type { FUSED_FP32, FUSED_BF16 };

struct fused_case {
  enum fused_op op;
  enum fused_type type;
  size_t m, k, n;
};

static const char *const fused_op_name[] = {"AllGatherAdd", "AllGatherMatmul", "MatmulReduceScatter",
                                            "MatmulAllReduce"};
static const char *const fused_type_name[] = {"fp32", "bf16"};

/* bf16 only for AllGatherMatmul: the other unfused variants add in fp32 loops. */
static const struct fused_case fused_cases[] = {
    {FUSED_ALLGATHER_ADD, FUSED_FP32, (size_t)64 << 10, 0, 0}, /* 256 KiB per rank */
    {FUSED_ALLGATHER_ADD, FUSED_FP32, (size_t)1 << 20, 0, 0},  /* 4 MiB */
    {FUSED_ALLGATHER_ADD, FUSED_FP32, (size_t)4 << 20, 0, 0},  /* 16 MiB */
    {FUSED_ALLGATHER_MATMUL, FUSED_FP32, 256, 1024, 32},
    {FUSED_ALLGATHER_MATMUL, FUSED_FP32, 512, 1024, 16},
    {FUSED_ALLGATHER_MATMUL, FUSED_FP32, 1024, 512, 32},
    {FUSED_ALLGATHER_MATMUL, FUSED_FP32, 1024, 1024, 8},
    {FUSED_ALLGATHER_MATMUL, FUSED_BF16, 256, 1024, 32},
    {FUSED_MATMUL_REDUCE_SCATTER, FUSED_FP32, 4096, 32, 256},
    {FUSED_MATMUL_REDUCE_SCATTER, FUSED_FP32, 1024, 32, 1024},
    {FUSED_MATMUL_REDUCE_SCATTER, FUSED_FP32, 2048, 16, 512},
    {FUSED_MATMUL_ALLREDUCE, FUSED_FP32, 1024, 64, 512},
    {FUSED_MATMUL_ALLREDUCE, FUSED_FP32, 2048, 32, 256},
    {FUSED_MATMUL_ALLREDUCE, FUSED_FP32, 512, 32, 1024},
};
#define FUSED_NCASES ((int)(sizeof fused_cases / sizeof fused_cases[0]))

/* The case's shape as the tables show it: "m" for AllGatherAdd, "mxkxn" for the matmuls. */
static inline const char *fused_shape(const struct fused_case *c, char *buf, size_t len) {
  if (c->op == FUSED_ALLGATHER_ADD) snprintf(buf, len, "%zu", c->m);
  else snprintf(buf, len, "%zux%zux%zu", c->m, c->k, c->n);
  return buf;
}

/* The case's name in both programs' output: OP/TYPE/SHAPE. */
static inline const char *fused_name(const struct fused_case *c, char *buf, size_t len) {
  char shape[64];
  snprintf(buf, len, "%s/%s/%s", fused_op_name[c->op], fused_type_name[c->type], fused_shape(c, shape, sizeof shape));
  return buf;
}

static inline size_t fused_elem_size(const struct fused_case *c) { return c->type == FUSED_BF16 ? 2 : 4; }

/* Bytes each rank hands to the collective: the gathered shard, or its
 * (unreduced) product. */
static inline size_t fused_comm_bytes(const struct fused_case *c) {
  switch (c->op) {
  case FUSED_ALLGATHER_ADD: return c->m * fused_elem_size(c);
  case FUSED_ALLGATHER_MATMUL: return c->m * c->k * fused_elem_size(c);
  default: return c->m * c->n * fused_elem_size(c);
  }
}

/* The inputs: element i of operand `which` (0: a or x1, 1: b or x2, 2: bias)
 * on rank `rank`. Multiples of 1/4 in [-1, 1]: exact in bf16, and every
 * product and every sum of up to 2^20 products exact in fp32, so any
 * summation order gives the same bits and a fused result must equal the
 * unfused one. Only a and x1 differ between ranks. */
enum { FUSED_A, FUSED_B, FUSED_BIAS };
static inline float fused_value(int which, int rank, size_t i) {
  return (float)((long)((i * 7 + (size_t)rank * 3 + (size_t)which * 5) % 9) - 4) * 0.25f;
}

/* Element i of the result on rank `me` of `size` ranks, computed from the
 * inputs in double (exact: see fused_value). */
static inline double fused_expected(const struct fused_case *c, int me, int size, size_t i) {
  const size_t m = c->m, k = c->k, n = c->n;
  if (c->op == FUSED_ALLGATHER_ADD) return (double)fused_value(FUSED_A, (int)(i / m), i % m) + fused_value(FUSED_B, 0, i);
  const size_t row = i / n, col = i % n;
  double sum = fused_value(FUSED_BIAS, 0, col);
  if (c->op == FUSED_ALLGATHER_MATMUL) {
    for (size_t l = 0; l < k; ++l)
      sum += (double)fused_value(FUSED_A, (int)(row / m), (row % m) * k + l) * fused_value(FUSED_B, 0, l * n + col);
    return sum;
  }
  const size_t x1_row = c->op == FUSED_MATMUL_REDUCE_SCATTER ? (size_t)me * (m / (size_t)size) + row : row;
  for (int r = 0; r < size; ++r)
    for (size_t l = 0; l < k; ++l)
      sum += (double)fused_value(FUSED_A, r, x1_row * k + l) * fused_value(FUSED_B, 0, l * n + col);
  return sum;
}

/* Elements of the result on each rank of `size`. */
static inline size_t fused_result_count(const struct fused_case *c, int size) {
  switch (c->op) {
  case FUSED_ALLGATHER_ADD: return (size_t)size * c->m;
  case FUSED_ALLGATHER_MATMUL: return (size_t)size * c->m * c->n;
  case FUSED_MATMUL_REDUCE_SCATTER: return c->m / (size_t)size * c->n;
  default: return c->m * c->n;
  }
}

/* Whether a result element is right: fp32 results are exact (see
 * fused_value; the 1e-6 relative margin only matters for a case that
 * outgrows that), bf16 ones within the one rounding of the exact fp32
 * result (half a unit in the last place: at most 2^-8 relative). */
static inline int fused_close(const struct fused_case *c, double got, double want) {
  const double rel = c->type == FUSED_BF16 ? 1.0 / 256 : 1e-6;
  const double mag = want < 0 ? -want : want;
  const double diff = got > want ? got - want : want - got;
  return diff <= rel * (mag > 1 ? mag : 1);
}

#endif
