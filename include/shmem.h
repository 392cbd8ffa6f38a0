/* tilecomm: the OpenSHMEM 1.5 C API.
 *
 * Names, signatures and constants follow the OpenSHMEM 1.5 specification.
 * The typed interfaces are declared from the specification's type tables in
 * <tilecomm/shmem_types.h>; type-generic forms are C11 _Generic macros in C
 * and overloads in C++. The collectives come in the team forms of 1.5 and
 * in the deprecated active-set forms (PE_start, logPE_stride, PE_size,
 * pSync) that the specification still lists; the complex reduction types are
 * float _Complex / double _Complex in C and std::complex in C++. */
#ifndef TILECOMM_SHMEM_H
#define TILECOMM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <tilecomm/shmem_types.h>
#include <tilecomm/version.h>

/* shmem_global_exit never returns. */
#ifndef SHMEMI_NORETURN
#if defined(__cplusplus)
#define SHMEMI_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SHMEMI_NORETURN _Noreturn
#else
#define SHMEMI_NORETURN __attribute__((noreturn))
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library constants ---------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "tilecomm " TILECOMM_VERSION_STRING
#define SHMEM_VENDOR_MAJOR_VERSION TILECOMM_VERSION_MAJOR
#define SHMEM_VENDOR_MINOR_VERSION TILECOMM_VERSION_MINOR
#define SHMEM_VENDOR_PATCH_VERSION TILECOMM_VERSION_PATCH

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE 4
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 8

/* Deprecated spellings that the specification still lists. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- handles --------------------------------------------------------------- */
typedef struct tilecomm_ctx *shmem_ctx_t;
typedef struct tilecomm_team *shmem_team_t;
typedef struct {
  int num_contexts;
} shmem_team_config_t;

extern struct tilecomm_ctx tilecomm_ctx_default;
extern struct tilecomm_team tilecomm_team_world;
extern struct tilecomm_team tilecomm_team_shared;
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)&tilecomm_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)&tilecomm_team_world)
#define SHMEM_TEAM_SHARED ((shmem_team_t)&tilecomm_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---- setup, exit and query ------------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
SHMEMI_NORETURN void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* ---- symmetric memory ------------------------------------------------------ */
void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);

/* ---- teams ------------------------------------------------------------------ */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* ---- contexts --------------------------------------------------------------- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- RMA ------------------------------------------------------------------- */
#define SHMEMI_DECL_RMA(TYPE, NAME)                                                                   \
  void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);                    \
  void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);                \
  void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);                    \
  void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);                \
  void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                                             \
  void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                        \
  TYPE shmem_##NAME##_g(const TYPE *source, int pe);                                                 \
  TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);                            \
  void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,   \
                               size_t nelems, int pe);                                                \
  void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,   \
                               size_t nelems, int pe);                                                \
  void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,   \
                                 uint64_t signal, int sig_op, int pe);                                \
  void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems,  \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);        \
  void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, \
                                     uint64_t signal, int sig_op, int pe);                            \
  void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEMI_RMA_TYPES(SHMEMI_DECL_RMA)
#undef SHMEMI_DECL_RMA

#define SHMEMI_DECL_SIZED(BITS)                                                                       \
  void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                       \
  void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);  \
  void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                 \
  void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                       \
  void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);  \
  void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                 \
  void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t nelems, int pe);                                                   \
  void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t nelems, int pe);                                                   \
  void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,   \
                                uint64_t signal, int sig_op, int pe);                                 \
  void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);         \
  void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                    uint64_t signal, int sig_op, int pe);                             \
  void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEMI_SIZES(SHMEMI_DECL_SIZED)
#undef SHMEMI_DECL_SIZED

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                         int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- signals ----------------------------------------------------------------- */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomic memory operations ------------------------------------------------ */
#define SHMEMI_DECL_AMO_EXT(TYPE, NAME)                                                               \
  TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                                      \
  TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe);                 \
  void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe);                     \
  void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, int pe); \
  void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                                    \
  void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);               \
  TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);                                   \
  TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);              \
  void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);                  \
  void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
SHMEMI_AMO_EXT_TYPES(SHMEMI_DECL_AMO_EXT)
#undef SHMEMI_DECL_AMO_EXT

#define SHMEMI_DECL_AMO(TYPE, NAME)                                                                   \
  TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);                \
  TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond, TYPE value, int pe); \
  void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe); \
  void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE cond, \
                                                  TYPE value, int pe);                                \
  TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                                          \
  TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                     \
  void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);                         \
  void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, int pe);    \
  void shmem_##NAME##_atomic_inc(TYPE *dest, int pe);                                                \
  void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                           \
  TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);                              \
  TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);         \
  void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);             \
  void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                                    \
  void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);
SHMEMI_AMO_TYPES(SHMEMI_DECL_AMO)
#undef SHMEMI_DECL_AMO

#define SHMEMI_DECL_AMO_BIT_OP(TYPE, NAME, OP)                                                        \
  TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe);                             \
  TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);        \
  void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);          \
  void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe);                                   \
  void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);
#define SHMEMI_DECL_AMO_BIT(TYPE, NAME) \
  SHMEMI_DECL_AMO_BIT_OP(TYPE, NAME, and) SHMEMI_DECL_AMO_BIT_OP(TYPE, NAME, or) SHMEMI_DECL_AMO_BIT_OP(TYPE, NAME, xor)
SHMEMI_AMO_BIT_TYPES(SHMEMI_DECL_AMO_BIT)
#undef SHMEMI_DECL_AMO_BIT
#undef SHMEMI_DECL_AMO_BIT_OP

/* ---- point-to-point synchronization -------------------------------------------- */
#define SHMEMI_DECL_SYNC(TYPE, NAME)                                                                  \
  void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                               \
  void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                        TYPE cmp_value);                                              \
  void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,  \
                                            TYPE *cmp_values);                                        \
  size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                              TYPE *cmp_values);                                      \
  size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices, const int *status, \
                                               int cmp, TYPE *cmp_values);                            \
  int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                                      \
  int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                  TYPE cmp_value);                                                    \
  int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values); \
  size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                        TYPE *cmp_values);                                            \
  size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices, const int *status, \
                                         int cmp, TYPE *cmp_values);
SHMEMI_SYNC_TYPES(SHMEMI_DECL_SYNC)
#undef SHMEMI_DECL_SYNC

/* ---- memory ordering ----------------------------------------------------------- */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- collectives owned by the core: barrier and sync ------------------------------ */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* ---- collectives: broadcast, collect, fcollect, alltoall(s), reductions ----------- */
/* Team forms return 0, or -1 when team is SHMEM_TEAM_INVALID. nelems
 * counts elements of TYPE, bytes for the mem forms, and 32- or 64-bit words
 * for the sized active-set forms; the alltoalls strides count elements. */
#define SHMEMI_DECL_COLL(TYPE, NAME)                                                                  \
  int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, int PE_root); \
  int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);     \
  int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);    \
  int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);    \
  int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems);
SHMEMI_RMA_TYPES(SHMEMI_DECL_COLL)
#undef SHMEMI_DECL_COLL
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);

/* Deprecated active-set forms; pSync holds SHMEM_*_SYNC_SIZE longs, all
 * SHMEM_SYNC_VALUE on entry, and again on return. */
#define SHMEMI_DECL_COLL_SIZED(BITS)                                                                  \
  void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                             int logPE_stride, int PE_size, long *pSync);                             \
  void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                           int PE_size, long *pSync);                                                 \
  void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                            int PE_size, long *pSync);                                                \
  void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                            int PE_size, long *pSync);                                                \
  void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                             int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEMI_DECL_COLL_SIZED(32)
SHMEMI_DECL_COLL_SIZED(64)
#undef SHMEMI_DECL_COLL_SIZED

/* Reductions: every PE of the team (or active set) gets the nreduce results. */
#define SHMEMI_DECL_REDUCE(TYPE, NAME, OP) \
  int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce);
#define SHMEMI_DECL_REDUCE_BITWISE(TYPE, NAME) \
  SHMEMI_DECL_REDUCE(TYPE, NAME, and) SHMEMI_DECL_REDUCE(TYPE, NAME, or) SHMEMI_DECL_REDUCE(TYPE, NAME, xor)
#define SHMEMI_DECL_REDUCE_MINMAX(TYPE, NAME) SHMEMI_DECL_REDUCE(TYPE, NAME, max) SHMEMI_DECL_REDUCE(TYPE, NAME, min)
#define SHMEMI_DECL_REDUCE_ARITH(TYPE, NAME) SHMEMI_DECL_REDUCE(TYPE, NAME, sum) SHMEMI_DECL_REDUCE(TYPE, NAME, prod)
SHMEMI_REDUCE_BITWISE_TYPES(SHMEMI_DECL_REDUCE_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_DECL_REDUCE_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_DECL_REDUCE_ARITH)
#undef SHMEMI_DECL_REDUCE_BITWISE
#undef SHMEMI_DECL_REDUCE_MINMAX
#undef SHMEMI_DECL_REDUCE_ARITH
#undef SHMEMI_DECL_REDUCE

/* Deprecated active-set reductions. pWrk is accepted and never used. */
#define SHMEMI_DECL_TO_ALL(TYPE, NAME, OP)                                                            \
  void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce, int PE_start, int logPE_stride, \
                                    int PE_size, TYPE *pWrk, long *pSync);
#define SHMEMI_DECL_TO_ALL_BITWISE(TYPE, NAME) \
  SHMEMI_DECL_TO_ALL(TYPE, NAME, and) SHMEMI_DECL_TO_ALL(TYPE, NAME, or) SHMEMI_DECL_TO_ALL(TYPE, NAME, xor)
#define SHMEMI_DECL_TO_ALL_MINMAX(TYPE, NAME) SHMEMI_DECL_TO_ALL(TYPE, NAME, max) SHMEMI_DECL_TO_ALL(TYPE, NAME, min)
#define SHMEMI_DECL_TO_ALL_ARITH(TYPE, NAME) SHMEMI_DECL_TO_ALL(TYPE, NAME, sum) SHMEMI_DECL_TO_ALL(TYPE, NAME, prod)
SHMEMI_TO_ALL_BITWISE_TYPES(SHMEMI_DECL_TO_ALL_BITWISE)
SHMEMI_TO_ALL_MINMAX_TYPES(SHMEMI_DECL_TO_ALL_MINMAX)
SHMEMI_TO_ALL_ARITH_TYPES(SHMEMI_DECL_TO_ALL_ARITH)
#undef SHMEMI_DECL_TO_ALL_BITWISE
#undef SHMEMI_DECL_TO_ALL_MINMAX
#undef SHMEMI_DECL_TO_ALL_ARITH
#undef SHMEMI_DECL_TO_ALL

/* ---- distributed locking -------------------------------------------------------- */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- profiling interface (<pshmem.h> declares the pshmem_ names) ------------------ */
/* Accepts every level and does nothing: profiling tools define their own. */
void shmem_pcontrol(int level, ...);

/* ---- deprecated interfaces the specification still lists ------------------------- */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);
void shmem_wait(long *ivar, long cmp_value);
#ifndef __cplusplus /* C++ has the overload of the generic interface instead */
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
#endif
#define SHMEMI_DECL_WAIT_OLD(TYPE, NAME) void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value);
SHMEMI_SYNC_TYPES(SHMEMI_DECL_WAIT_OLD)
#undef SHMEMI_DECL_WAIT_OLD
#define SHMEMI_DECL_AMO_OLD(TYPE, NAME)                                                               \
  TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe);                              \
  TYPE shmem_##NAME##_finc(TYPE *dest, int pe);                                                      \
  void shmem_##NAME##_inc(TYPE *dest, int pe);                                                       \
  TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe);                                          \
  void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe);
#define SHMEMI_DECL_AMO_EXT_OLD(TYPE, NAME)                                                           \
  TYPE shmem_##NAME##_fetch(const TYPE *source, int pe);                                             \
  void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe);                                           \
  TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);
#define SHMEMI_OLD_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMI_OLD_AMO_EXT_TYPES(X) SHMEMI_OLD_AMO_TYPES(X) X(float, float) X(double, double)
SHMEMI_OLD_AMO_TYPES(SHMEMI_DECL_AMO_OLD)
SHMEMI_OLD_AMO_EXT_TYPES(SHMEMI_DECL_AMO_EXT_OLD)
#undef SHMEMI_DECL_AMO_OLD
#undef SHMEMI_DECL_AMO_EXT_OLD

#ifdef __cplusplus
} /* extern "C" */
#endif

#include <tilecomm/shmem_generic.h>

#endif /* TILECOMM_SHMEM_H */
