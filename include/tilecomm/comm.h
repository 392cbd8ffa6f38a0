/* The communicator's C API: the C++ tilecomm::Comm (<tilecomm/comm.hpp>)
 * behind a handle, with error codes in the manner of TileXR's: creation,
 * queries and windows; the collective and fused operators of
 * <tilecomm/ops.hpp> in their one-call form; and kernel launches with the
 * orchestration helpers of <tilecomm/orchestration.hpp>.
 *
 * Every call returns TILECOMM_SUCCESS or an error code; the message of the
 * calling thread's last error (naming the values and what to change) is
 * tilecomm_comm_last_error(). A handle that was destroyed, or never
 * created, is TILECOMM_ERROR_INVALID_USAGE, never a crash. No call throws
 * or ends the process. */
#ifndef TILECOMM_COMM_H
#define TILECOMM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilecomm_comm *tilecomm_comm_t;

typedef enum {
  TILECOMM_SUCCESS = 0,
  TILECOMM_ERROR_INVALID_USAGE = 1, /* a wrong argument or call order */
  TILECOMM_ERROR_TIMEOUT = 2,       /* TILECOMM_TIMEOUT passed in a wait */
  TILECOMM_ERROR_TRANSPORT = 3,
  TILECOMM_ERROR_REMOTE = 4,        /* another rank failed */
  TILECOMM_ERROR_SYSTEM = 5         /* the operating system refused (memory, files) */
} tilecomm_result_t;

/* Window sizes per rank; 0 takes the default (200 MiB data, 4 MiB flags). */
typedef struct {
  size_t window_bytes;
  size_t flag_bytes;
} tilecomm_comm_options_t;

/* options may be NULL (defaults). Collective over the PEs concerned. */
tilecomm_result_t tilecomm_comm_init_all(const tilecomm_comm_options_t *options, tilecomm_comm_t *comm);
tilecomm_result_t tilecomm_comm_init_team(shmem_team_t team, const tilecomm_comm_options_t *options,
                                          tilecomm_comm_t *comm);
tilecomm_result_t tilecomm_comm_get_unique_id(shmemx_uniqueid_t *id);
tilecomm_result_t tilecomm_comm_init_rank(int nranks, const shmemx_uniqueid_t *id, int rank,
                                          const tilecomm_comm_options_t *options, tilecomm_comm_t *comm);
/* Collective. Refused (TILECOMM_ERROR_INVALID_USAGE, the handle stays live)
 * while an operator or launch of another thread still runs on the handle. */
tilecomm_result_t tilecomm_comm_destroy(tilecomm_comm_t comm);

tilecomm_result_t tilecomm_comm_rank(tilecomm_comm_t comm, int *rank);
tilecomm_result_t tilecomm_comm_size(tilecomm_comm_t comm, int *size);
tilecomm_result_t tilecomm_comm_local_rank(tilecomm_comm_t comm, int *local_rank);
tilecomm_result_t tilecomm_comm_local_size(tilecomm_comm_t comm, int *local_size);
/* Rank `rank`'s window as mapped here (NULL and 0 for a rank on another host).
 * Any of the four output pointers may be NULL: that value is not returned. */
tilecomm_result_t tilecomm_comm_window(tilecomm_comm_t comm, int rank, void **data, size_t *data_bytes, void **flags,
                                       size_t *flag_bytes);
/* The next magic (the same sequence on every rank). */
tilecomm_result_t tilecomm_comm_next_magic(tilecomm_comm_t comm, unsigned int *magic);

/* The message of this thread's last error, or "" after a success. */
const char *tilecomm_comm_last_error(void);

/* ---- operators ------------------------------------------------------------------
 *
 * The operators of <tilecomm/ops.hpp> in their one-call form (the C++
 * tilecomm::ops::AllReduce(comm, ...) and its siblings), with the same
 * meaning, layouts, types and checks: see that header for each one's
 * result and for the buffers that may overlap. Each is collective (every
 * rank of the communicator, in the same order of calls); inputs and
 * outputs are this rank's ordinary memory, counts are elements. A repeated
 * call of the same signature reuses the plan the communicator keeps.
 *
 * The enumerators have the values of tilecomm::ops::DataType and ReduceOp;
 * any other value is TILECOMM_ERROR_INVALID_USAGE, refused on this rank
 * before anything collective. */

typedef enum {
  TILECOMM_INT8 = 0,
  TILECOMM_INT16 = 1,
  TILECOMM_INT32 = 2,
  TILECOMM_INT64 = 3,
  TILECOMM_FP16 = 4, /* IEEE binary16, as uint16_t bits */
  TILECOMM_BF16 = 5, /* bfloat16, as uint16_t bits */
  TILECOMM_FP32 = 6,
  TILECOMM_FP64 = 7,
  TILECOMM_UINT8 = 8,
  TILECOMM_UINT16 = 9,
  TILECOMM_UINT32 = 10,
  TILECOMM_UINT64 = 11
} tilecomm_datatype_t;

/* AVG: the sum divided by the size (integers: rounded toward zero, after a
 * sum that wraps). Integer sums and products wrap. */
typedef enum {
  TILECOMM_SUM = 0,
  TILECOMM_PROD = 1,
  TILECOMM_MAX = 2,
  TILECOMM_MIN = 3,
  TILECOMM_AVG = 4
} tilecomm_reduce_op_t;

/* Row-major shapes of a fused matmul operator: x1 is m x k, x2 is k x n. */
typedef struct {
  uint64_t m, k, n;
} tilecomm_matmul_shape_t;

/* output[r * count + i] = input of rank r [i] */
tilecomm_result_t tilecomm_allgather(tilecomm_comm_t comm, const void *input, void *output, uint64_t count,
                                     tilecomm_datatype_t dtype);
/* input: size * count elements; output[i] = op over the ranks r of input_r[rank * count + i] */
tilecomm_result_t tilecomm_reduce_scatter(tilecomm_comm_t comm, const void *input, void *output, uint64_t count,
                                          tilecomm_datatype_t dtype, tilecomm_reduce_op_t op);
/* output[i] = op over the ranks r of input_r[i] */
tilecomm_result_t tilecomm_allreduce(tilecomm_comm_t comm, const void *input, void *output, uint64_t count,
                                     tilecomm_datatype_t dtype, tilecomm_reduce_op_t op);
/* The same, written on rank `root` only (output may be NULL elsewhere). */
tilecomm_result_t tilecomm_reduce(tilecomm_comm_t comm, const void *input, void *output, uint64_t count,
                                  tilecomm_datatype_t dtype, tilecomm_reduce_op_t op, int root);
/* output[i] = input of rank `root` [i], on every rank (input matters on the root only). */
tilecomm_result_t tilecomm_broadcast(tilecomm_comm_t comm, const void *input, void *output, uint64_t count,
                                     tilecomm_datatype_t dtype, int root);
/* count elements per peer: output[r * count + i] = input of rank r [rank * count + i] */
tilecomm_result_t tilecomm_alltoall(tilecomm_comm_t comm, const void *input, void *output, uint64_t count,
                                    tilecomm_datatype_t dtype);
/* counts: size x size, row-major, the same on every rank: counts[s * size + d]
 * elements go from rank s to rank d; input holds this rank's blocks by
 * destination, packed; output receives the blocks by source, packed. */
tilecomm_result_t tilecomm_alltoallv(tilecomm_comm_t comm, const void *input, void *output, const uint64_t *counts,
                                     tilecomm_datatype_t dtype);
/* c = AllGather(a) + b: a has count elements, b and c size * count. */
tilecomm_result_t tilecomm_allgather_add(tilecomm_comm_t comm, const void *a, const void *b, void *c, uint64_t count,
                                         tilecomm_datatype_t dtype);
/* The matmul operators take FP16, BF16, FP32 and FP64; bias (n elements) may
 * be NULL; tiles and form are chosen automatically (MatmulOptions{}).
 * y = AllGather(x1) @ x2 + bias, y: size * m x n; gather_out (may be NULL):
 * AllGather(x1), size * m x k. */
tilecomm_result_t tilecomm_allgather_matmul(tilecomm_comm_t comm, const void *x1, const void *x2, const void *bias,
                                            void *y, void *gather_out, tilecomm_matmul_shape_t shape,
                                            tilecomm_datatype_t dtype);
/* y = rows rank * m / size .. of the sum over ranks of x1 @ x2, + bias;
 * y: m / size x n (m a multiple of the size). */
tilecomm_result_t tilecomm_matmul_reduce_scatter(tilecomm_comm_t comm, const void *x1, const void *x2,
                                                 const void *bias, void *y, tilecomm_matmul_shape_t shape,
                                                 tilecomm_datatype_t dtype);
/* y = the sum over ranks of x1 @ x2, + bias; y: m x n. */
tilecomm_result_t tilecomm_matmul_allreduce(tilecomm_comm_t comm, const void *x1, const void *x2, const void *bias,
                                            void *y, tilecomm_matmul_shape_t shape, tilecomm_datatype_t dtype);

/* ---- kernels --------------------------------------------------------------------
 *
 *   void kernel(const tilecomm_kernel_args_t *args, void *user) {
 *     ... write args->data[args->rank], tilecomm_record_1vn(args->magic), ...
 *   }
 *   tilecomm_comm_launch(comm, blocks, kernel, user);
 *
 * tilecomm_comm_launch is tilecomm::Comm::launch: it draws a fresh magic
 * and runs kernel(args, user) on `blocks` blocks (threads) of this rank,
 * block 0 on the calling thread, and returns when every block returned.
 * Collective: every rank launches the same kernels in the same order. args
 * describes this launch and this block; it and its arrays are valid until
 * the kernel returns. data[r] / flags[r] are this launch's partitions of
 * rank r's windows (partition magic % 2, as CommArgs::data(r) / flags(r)):
 * a rank one launch ahead writes the other partition. Kernels that read
 * peers' windows end with a post-sync (each reader records back to the
 * writer, who waits), so that no rank is ever two launches ahead. The
 * helpers' flags fill the first 32 KiB of each flag partition.
 *
 * NOTE [C kernel errors] A helper never throws through C: it returns the
 * code and keeps the message for tilecomm_comm_last_error() (of the
 * block's thread). Its failure also ends the launch: the block remembers
 * it, every later helper of the block returns the same code at once
 * without acting, and when the kernel returns the launch fails as a C++
 * kernel's does: the other blocks' waits stop (TILECOMM_ERROR_REMOTE), a
 * block not yet started does not start, and
 * tilecomm_comm_launch returns the code of the first block that failed,
 * its message naming the block and the helper. So a kernel checks each
 * helper's result and returns on an error (it cannot turn a failed wait
 * into success). A helper called outside a kernel of tilecomm_comm_launch
 * is TILECOMM_ERROR_INVALID_USAGE. */

typedef struct {
  int rank;               /* in the communicator */
  int size;               /* ranks of the communicator */
  int local_rank;         /* among the ranks of this host */
  int local_size;
  int block;              /* this block, 0 .. blocks - 1 */
  int blocks;
  uint32_t magic;         /* this launch's tag, for the helpers */
  uint64_t data_bytes;    /* bytes of data[r] (half of a data region) */
  uint64_t flag_bytes;    /* bytes of flags[r] (half of a flag region) */
  void *const *data;      /* size entries: this launch's partition of rank r's data region, NULL if not mapped here */
  uint64_t *const *flags; /* size entries: the same of rank r's flag region, as 64-bit words */
} tilecomm_kernel_args_t;

typedef void (*tilecomm_kernel_fn_t)(const tilecomm_kernel_args_t *args, void *user);

/* blocks: 1 to 256; kernel is not NULL. Returns the first failed block's code (NOTE [C kernel errors]). */
tilecomm_result_t tilecomm_comm_launch(tilecomm_comm_t comm, int blocks, tilecomm_kernel_fn_t kernel, void *user);

/* Orchestration helpers, inside a kernel of tilecomm_comm_launch; tag is
 * args->magic; 1:1 the helpers of <tilecomm/orchestration.hpp>:
 *   tilecomm_record(peer, tag)      Record: I reached this point, tell `peer`.
 *   tilecomm_wait(peer, tag)        Wait until `peer` recorded for me as often as I waited.
 *   tilecomm_record_1vn(tag)        Record1vN: one writer, all readers: raise my one-to-all flag.
 *   tilecomm_wait_nv1(peer, tag)    WaitNv1: wait for `peer`'s one-to-all flag.
 *   tilecomm_record_nv1(peer, tag)  RecordNv1: fan-in, tell `peer`.
 *   tilecomm_wait_1vn(tag)          Wait1vN: wait until every other rank recorded a fan-in to me.
 * A record adds one to the flag for this launch; the n-th wait of a block
 * on a flag passes once it holds n records. A wait fails (and so ends the
 * launch) when the job fails, TILECOMM_TIMEOUT passes, a sibling block
 * failed, or the writer is two launches ahead. */
tilecomm_result_t tilecomm_record(int peer, uint32_t tag);
tilecomm_result_t tilecomm_wait(int peer, uint32_t tag);
tilecomm_result_t tilecomm_record_1vn(uint32_t tag);
tilecomm_result_t tilecomm_wait_nv1(int peer, uint32_t tag);
tilecomm_result_t tilecomm_record_nv1(int peer, uint32_t tag);
tilecomm_result_t tilecomm_wait_1vn(uint32_t tag);

#ifdef __cplusplus
}
#endif

#endif /* TILECOMM_COMM_H */
