/* The C11 type-generic interfaces (_Generic macros of <shmem.h>): shmem_put,
 * shmem_get, shmem_p, shmem_g, their _nbi, strided and put-with-signal
 * forms, shmem_atomic_*, shmem_wait_until*, shmem_test*, each with and
 * without a leading context, for every distinct C type of the tables;
 * shmem_sync with a team or an active set; the deprecated generic AMO names
 * (shmem_cswap, shmem_finc, shmem_inc, shmem_fadd, shmem_add, shmem_fetch,
 * shmem_set, shmem_swap); the team collectives shmem_broadcast, _collect,
 * _fcollect, _alltoall, _alltoalls and the seven shmem_OP_reduce, complex
 * types included.
 *
 * Compiled as strict C11 (no extensions). Each entry point is collective,
 * returns the number of failed checks and prints every failure with the PE
 * number; test_generic.cpp calls them from GoogleTest tests. */
#include <complex.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "generic_c.c must be compiled as C11"
#endif

static int g_fails;

#define CHECK(cond, what)                                                                                     \
  do {                                                                                                        \
    if (!(cond)) {                                                                                            \
      ++g_fails;                                                                                              \
      fprintf(stderr, "[PE %d] %s:%d: check failed: %s (%s, %s)\n", shmem_my_pe(), __FILE__, __LINE__, #cond, \
              what, type_name);                                                                               \
    }                                                                                                         \
  } while (0)

/* An exact value of every table type, char included: a small integer. */
#define VAL(T, pe, i, salt) ((T)((pe) * 10 + (i) + (salt)))

/* The distinct C types of each table, listed here independently of the
 * header's own lists (a macro cannot use the generic macros while it is
 * itself expanded by the list those macros are built from). */
#define TEST_RMA_CTYPES(X)                                                                \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)               \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)  \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                 \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define TEST_AMO_CTYPES(X)                                                                \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                  \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define TEST_AMO_EXT_CTYPES(X) X(float, float) X(double, double) TEST_AMO_CTYPES(X)
#define TEST_AMO_BIT_CTYPES(X)                                                            \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)          \
  X(int, int32) X(long, int64)
#define TEST_SYNC_CTYPES(X)                                                               \
  X(short, short) X(int, int) X(long, long) X(long long, longlong)                        \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                 \
  X(unsigned long long, ulonglong)

static int me_(void) { return shmem_my_pe(); }
static int right_(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static int left_(void) { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

/* ---- RMA: every distinct type of the RMA table --------------------------------------- */

#define GENERIC_RMA(T, NAME)                                                                        \
  static void generic_rma_##NAME(shmem_ctx_t ctx) {                                                 \
    enum { N = 8 };                                                                                 \
    const char *type_name = #T;                                                                     \
    const int me = me_(), r = right_(), l = left_();                                                \
    T *src = (T *)shmem_malloc(N * sizeof(T));                                                      \
    T *dst = (T *)shmem_calloc(3 * N, sizeof(T));                                                   \
    uint64_t *sig = (uint64_t *)shmem_calloc(2, sizeof(uint64_t));                                  \
    T loc[3 * N];                                                                                   \
    int i;                                                                                          \
    if (!src || !dst || !sig) {                                                                     \
      CHECK(0, "allocation");                                                                       \
      shmem_free(sig); shmem_free(dst); shmem_free(src);                                            \
      return;                                                                                       \
    }                                                                                               \
    for (i = 0; i < N; ++i) src[i] = VAL(T, me, i, 1);                                              \
    shmem_barrier_all();                                                                            \
    /* shmem_put / shmem_get, without and with ctx */                                              \
    shmem_put(dst, src, N, r);                                                                      \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 1), "shmem_put");                          \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 2);                                              \
    shmem_put(ctx, dst, loc, N, r);                                                                 \
    shmem_ctx_quiet(ctx);                                                                           \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 2), "shmem_put(ctx)");                     \
    memset(loc, 0, sizeof loc);                                                                     \
    shmem_get(loc, src, N, r);                                                                      \
    for (i = 0; i < N; ++i) CHECK(loc[i] == VAL(T, r, i, 1), "shmem_get");                          \
    memset(loc, 0, sizeof loc);                                                                     \
    shmem_get(ctx, loc, src, N, r);                                                                 \
    for (i = 0; i < N; ++i) CHECK(loc[i] == VAL(T, r, i, 1), "shmem_get(ctx)");                     \
    shmem_barrier_all();                                                                            \
    /* _nbi */                                                                                      \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 3);                                              \
    shmem_put_nbi(dst, loc, N, r);                                                                  \
    shmem_quiet();                                                                                  \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 3), "shmem_put_nbi");                      \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 4);                                              \
    shmem_put_nbi(ctx, dst, loc, N, r);                                                             \
    shmem_ctx_quiet(ctx);                                                                           \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 4), "shmem_put_nbi(ctx)");                 \
    memset(loc, 0, sizeof loc);                                                                     \
    shmem_get_nbi(loc, src, N, r);                                                                  \
    shmem_quiet();                                                                                  \
    for (i = 0; i < N; ++i) CHECK(loc[i] == VAL(T, r, i, 1), "shmem_get_nbi");                      \
    memset(loc, 0, sizeof loc);                                                                     \
    shmem_get_nbi(ctx, loc, src, N, r);                                                             \
    shmem_ctx_quiet(ctx);                                                                           \
    for (i = 0; i < N; ++i) CHECK(loc[i] == VAL(T, r, i, 1), "shmem_get_nbi(ctx)");                 \
    shmem_barrier_all();                                                                            \
    /* shmem_p / shmem_g */                                                                         \
    shmem_p(&dst[0], VAL(T, me, 0, 5), r);                                                          \
    shmem_p(ctx, &dst[1], VAL(T, me, 1, 5), r);                                                     \
    shmem_ctx_quiet(ctx);                                                                           \
    shmem_barrier_all();                                                                            \
    CHECK(dst[0] == VAL(T, l, 0, 5), "shmem_p");                                                    \
    CHECK(dst[1] == VAL(T, l, 1, 5), "shmem_p(ctx)");                                               \
    CHECK(shmem_g(&src[3], r) == VAL(T, r, 3, 1), "shmem_g");                                       \
    CHECK(shmem_g(ctx, &src[4], r) == VAL(T, r, 4, 1), "shmem_g(ctx)");                             \
    shmem_barrier_all();                                                                            \
    /* shmem_iput / shmem_iget: src stride 2 into dst stride 3 */                                   \
    memset(dst, 0, 3 * N * sizeof(T));                                                              \
    shmem_barrier_all();                                                                            \
    shmem_iput(dst, src, 3, 2, N / 2, r);                                                           \
    shmem_iput(ctx, dst + 1, src + 1, 3, 2, N / 2, r);                                              \
    shmem_ctx_quiet(ctx);                                                                           \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N / 2; ++i) {                                                                   \
      CHECK(dst[3 * i] == VAL(T, l, 2 * i, 1), "shmem_iput");                                       \
      CHECK(dst[3 * i + 1] == VAL(T, l, 2 * i + 1, 1), "shmem_iput(ctx)");                          \
      CHECK(dst[3 * i + 2] == (T)0, "shmem_iput gap");                                              \
    }                                                                                               \
    memset(loc, 0, sizeof loc);                                                                     \
    shmem_iget(loc, src, 2, 3, 2, r);                                                               \
    shmem_iget(ctx, loc + 1, src + 1, 2, 3, 2, r);                                                  \
    CHECK(loc[0] == VAL(T, r, 0, 1) && loc[2] == VAL(T, r, 3, 1), "shmem_iget");                    \
    CHECK(loc[1] == VAL(T, r, 1, 1) && loc[3] == VAL(T, r, 4, 1), "shmem_iget(ctx)");               \
    shmem_barrier_all();                                                                            \
    /* shmem_put_signal / _nbi */                                                                   \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 6);                                              \
    shmem_put_signal(dst, loc, N, &sig[0], 1, SHMEM_SIGNAL_ADD, r);                                 \
    shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 1);                                              \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 6), "shmem_put_signal");                   \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 7);                                              \
    shmem_put_signal(ctx, dst, loc, N, &sig[0], 1, SHMEM_SIGNAL_ADD, r);                            \
    shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 2);                                              \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 7), "shmem_put_signal(ctx)");              \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 8);                                              \
    shmem_put_signal_nbi(dst, loc, N, &sig[1], 5, SHMEM_SIGNAL_SET, r);                             \
    shmem_quiet();                                                                                  \
    shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, 5);                                              \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 8), "shmem_put_signal_nbi");               \
    shmem_barrier_all();                                                                            \
    for (i = 0; i < N; ++i) loc[i] = VAL(T, me, i, 9);                                              \
    shmem_put_signal_nbi(ctx, dst, loc, N, &sig[1], 6, SHMEM_SIGNAL_SET, r);                        \
    shmem_ctx_quiet(ctx);                                                                           \
    shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, 6);                                              \
    for (i = 0; i < N; ++i) CHECK(dst[i] == VAL(T, l, i, 9), "shmem_put_signal_nbi(ctx)");          \
    shmem_barrier_all();                                                                            \
    shmem_free(sig);                                                                                \
    shmem_free(dst);                                                                                \
    shmem_free(src);                                                                                \
  }
TEST_RMA_CTYPES(GENERIC_RMA)
#undef GENERIC_RMA

int generic_c_rma(void) {
  shmem_ctx_t ctx;
  g_fails = 0;
  if (shmem_ctx_create(0, &ctx) != 0) {
    fprintf(stderr, "[PE %d] shmem_ctx_create failed\n", shmem_my_pe());
    ctx = SHMEM_CTX_DEFAULT;
    ++g_fails;
  }
#define CALL_RMA(T, NAME) generic_rma_##NAME(ctx);
  TEST_RMA_CTYPES(CALL_RMA)
#undef CALL_RMA
  /* The default context through the generic ctx forms as well. */
  generic_rma_int(SHMEM_CTX_DEFAULT);
  generic_rma_double(SHMEM_CTX_DEFAULT);
  if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
  return g_fails;
}

/* ---- AMOs ---------------------------------------------------------------------------- */

/* fetch, set, swap (+nbi): the extended AMO types, float and double included. */
#define GENERIC_AMO_EXT(T, NAME)                                                                  \
  static void generic_amo_ext_##NAME(shmem_ctx_t ctx) {                                           \
    const char *type_name = #T;                                                                   \
    const int me = me_(), r = right_(), l = left_();                                              \
    T *x = (T *)shmem_calloc(2, sizeof(T));                                                       \
    T f;                                                                                          \
    if (!x) {                                                                                     \
      CHECK(0, "allocation");                                                                     \
      return;                                                                                     \
    }                                                                                             \
    shmem_atomic_set(&x[0], VAL(T, me, 0, 1), r);                                                 \
    shmem_atomic_set(ctx, &x[1], VAL(T, me, 1, 1), r);                                            \
    shmem_ctx_quiet(ctx);                                                                         \
    shmem_barrier_all();                                                                          \
    CHECK(x[0] == VAL(T, l, 0, 1), "shmem_atomic_set");                                           \
    CHECK(x[1] == VAL(T, l, 1, 1), "shmem_atomic_set(ctx)");                                      \
    CHECK(shmem_atomic_fetch(&x[0], r) == VAL(T, me, 0, 1), "shmem_atomic_fetch");                \
    CHECK(shmem_atomic_fetch(ctx, &x[1], r) == VAL(T, me, 1, 1), "shmem_atomic_fetch(ctx)");      \
    f = (T)0;                                                                                     \
    shmem_atomic_fetch_nbi(&f, &x[0], r);                                                         \
    shmem_quiet();                                                                                \
    CHECK(f == VAL(T, me, 0, 1), "shmem_atomic_fetch_nbi");                                       \
    f = (T)0;                                                                                     \
    shmem_atomic_fetch_nbi(ctx, &f, &x[1], r);                                                    \
    shmem_ctx_quiet(ctx);                                                                         \
    CHECK(f == VAL(T, me, 1, 1), "shmem_atomic_fetch_nbi(ctx)");                                  \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_atomic_swap(&x[0], VAL(T, me, 0, 2), r) == VAL(T, me, 0, 1), "shmem_atomic_swap"); \
    CHECK(shmem_atomic_swap(ctx, &x[1], VAL(T, me, 1, 2), r) == VAL(T, me, 1, 1),                 \
          "shmem_atomic_swap(ctx)");                                                              \
    f = (T)0;                                                                                     \
    shmem_atomic_swap_nbi(&f, &x[0], VAL(T, me, 0, 3), r);                                        \
    shmem_quiet();                                                                                \
    CHECK(f == VAL(T, me, 0, 2), "shmem_atomic_swap_nbi");                                        \
    f = (T)0;                                                                                     \
    shmem_atomic_swap_nbi(ctx, &f, &x[1], VAL(T, me, 1, 3), r);                                   \
    shmem_ctx_quiet(ctx);                                                                         \
    CHECK(f == VAL(T, me, 1, 2), "shmem_atomic_swap_nbi(ctx)");                                   \
    shmem_barrier_all();                                                                          \
    CHECK(x[0] == VAL(T, l, 0, 3) && x[1] == VAL(T, l, 1, 3), "final values");                    \
    shmem_barrier_all();                                                                          \
    shmem_free(x);                                                                                \
  }
TEST_AMO_EXT_CTYPES(GENERIC_AMO_EXT)
#undef GENERIC_AMO_EXT

/* compare_swap, inc, fetch_inc, add, fetch_add (+nbi): the standard AMO types. */
#define GENERIC_AMO(T, NAME)                                                                      \
  static void generic_amo_##NAME(shmem_ctx_t ctx) {                                               \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes();                                                                  \
    T *c = (T *)shmem_calloc(2, sizeof(T));                                                       \
    T f, want;                                                                                    \
    if (!c) {                                                                                     \
      CHECK(0, "allocation");                                                                     \
      return;                                                                                     \
    }                                                                                             \
    /* c[0] counts on PE 0 through the plain forms, c[1] through the ctx forms */                 \
    shmem_atomic_inc(&c[0], 0);                                                                   \
    shmem_atomic_inc(ctx, &c[1], 0);                                                              \
    f = shmem_atomic_fetch_inc(&c[0], 0);                                                         \
    CHECK(f >= (T)1, "shmem_atomic_fetch_inc: my own inc came first");                            \
    f = shmem_atomic_fetch_inc(ctx, &c[1], 0);                                                    \
    CHECK(f >= (T)1, "shmem_atomic_fetch_inc(ctx): my own inc came first");                       \
    shmem_atomic_fetch_inc_nbi(&f, &c[0], 0);                                                     \
    shmem_atomic_fetch_inc_nbi(ctx, &f, &c[1], 0);                                                \
    shmem_atomic_add(&c[0], (T)10, 0);                                                            \
    shmem_atomic_add(ctx, &c[1], (T)10, 0);                                                       \
    f = shmem_atomic_fetch_add(&c[0], (T)100, 0);                                                 \
    f = shmem_atomic_fetch_add(ctx, &c[1], (T)100, 0);                                            \
    shmem_atomic_fetch_add_nbi(&f, &c[0], (T)1000, 0);                                            \
    shmem_atomic_fetch_add_nbi(ctx, &f, &c[1], (T)1000, 0);                                       \
    shmem_quiet();                                                                                \
    shmem_ctx_quiet(ctx);                                                                         \
    shmem_barrier_all();                                                                          \
    want = (T)(n * (1 + 1 + 1 + 10 + 100 + 1000));                                                \
    CHECK(shmem_atomic_fetch(&c[0], 0) == want, "inc/fetch_inc/add/fetch_add total");             \
    CHECK(shmem_atomic_fetch(&c[1], 0) == want, "ctx inc/fetch_inc/add/fetch_add total");         \
    shmem_barrier_all();                                                                          \
    /* compare_swap: only PE 0 matches the condition on each word */                              \
    if (me_() == 0) {                                                                             \
      CHECK(shmem_atomic_compare_swap(&c[0], want, (T)7, 0) == want, "shmem_atomic_compare_swap"); \
      CHECK(shmem_atomic_compare_swap(ctx, &c[1], (T)1, (T)9, 0) == want,                         \
            "shmem_atomic_compare_swap(ctx), no match");                                          \
      f = (T)0;                                                                                   \
      shmem_atomic_compare_swap_nbi(&f, &c[0], (T)7, (T)8, 0);                                    \
      shmem_quiet();                                                                              \
      CHECK(f == (T)7, "shmem_atomic_compare_swap_nbi");                                          \
      f = (T)0;                                                                                   \
      shmem_atomic_compare_swap_nbi(ctx, &f, &c[1], want, (T)11, 0);                              \
      shmem_ctx_quiet(ctx);                                                                       \
      CHECK(f == want, "shmem_atomic_compare_swap_nbi(ctx)");                                     \
      CHECK(c[0] == (T)8 && c[1] == (T)11, "compare_swap results");                               \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    shmem_free(c);                                                                                \
  }
TEST_AMO_CTYPES(GENERIC_AMO)
#undef GENERIC_AMO

/* and, or, xor and their fetch and nbi forms: the bitwise AMO types. */
#define GENERIC_AMO_BIT(T, NAME)                                                                  \
  static void generic_amo_bit_##NAME(shmem_ctx_t ctx) {                                           \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes(), me = me_();                                                      \
    T *w = (T *)shmem_calloc(6, sizeof(T));                                                       \
    T bit = (T)((T)1 << me), all = (T)0, f;                                                       \
    int pe;                                                                                       \
    if (!w) {                                                                                     \
      CHECK(0, "allocation");                                                                     \
      return;                                                                                     \
    }                                                                                             \
    for (pe = 0; pe < n; ++pe) all = (T)(all | ((T)1 << pe));                                     \
    w[2] = w[3] = (T)~(T)0; /* and targets */                                                      \
    shmem_barrier_all();                                                                          \
    f = shmem_atomic_fetch_or(&w[0], bit, 0);                                                     \
    CHECK((f & bit) == 0, "shmem_atomic_fetch_or");                                               \
    shmem_atomic_or(ctx, &w[1], bit, 0);                                                          \
    f = shmem_atomic_fetch_and(ctx, &w[2], (T)~bit, 0);                                           \
    CHECK((f & bit) == bit, "shmem_atomic_fetch_and(ctx)");                                       \
    shmem_atomic_and(&w[3], (T)~bit, 0);                                                          \
    f = shmem_atomic_fetch_xor(&w[4], bit, 0);                                                    \
    CHECK((f & bit) == 0, "shmem_atomic_fetch_xor");                                              \
    shmem_atomic_xor(ctx, &w[5], bit, 0);                                                         \
    shmem_ctx_quiet(ctx);                                                                         \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_atomic_fetch(&w[0], 0) == all && shmem_atomic_fetch(&w[1], 0) == all, "or");      \
    CHECK(shmem_atomic_fetch(&w[2], 0) == (T)~all && shmem_atomic_fetch(&w[3], 0) == (T)~all, "and"); \
    CHECK(shmem_atomic_fetch(&w[4], 0) == all && shmem_atomic_fetch(&w[5], 0) == all, "xor");     \
    shmem_barrier_all();                                                                          \
    /* the nbi forms undo it all: or with 0, and with ones, xor again */                          \
    shmem_atomic_fetch_xor_nbi(&f, &w[4], bit, 0);                                                \
    shmem_quiet();                                                                                \
    CHECK((f & bit) == bit, "shmem_atomic_fetch_xor_nbi");                                        \
    shmem_atomic_fetch_xor_nbi(ctx, &f, &w[5], bit, 0);                                           \
    shmem_atomic_fetch_and_nbi(&f, &w[0], (T)~bit, 0);                                            \
    shmem_atomic_fetch_and_nbi(ctx, &f, &w[1], (T)~bit, 0);                                       \
    shmem_atomic_fetch_or_nbi(&f, &w[2], bit, 0);                                                 \
    shmem_atomic_fetch_or_nbi(ctx, &f, &w[3], bit, 0);                                            \
    shmem_ctx_quiet(ctx);                                                                         \
    shmem_barrier_all();                                                                          \
    CHECK((w[0] == 0 && w[1] == 0 && w[4] == 0 && w[5] == 0) || me != 0, "fetch_and_nbi/xor_nbi"); \
    CHECK((w[2] == (T)~(T)0 && w[3] == (T)~(T)0) || me != 0, "fetch_or_nbi");                     \
    shmem_barrier_all();                                                                          \
    shmem_free(w);                                                                                \
  }
TEST_AMO_BIT_CTYPES(GENERIC_AMO_BIT)
#undef GENERIC_AMO_BIT

int generic_c_amo(void) {
  shmem_ctx_t ctx;
  g_fails = 0;
  if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
    fprintf(stderr, "[PE %d] shmem_ctx_create failed\n", shmem_my_pe());
    ctx = SHMEM_CTX_DEFAULT;
    ++g_fails;
  }
#define CALL_EXT(T, NAME) generic_amo_ext_##NAME(ctx);
  TEST_AMO_EXT_CTYPES(CALL_EXT)
#undef CALL_EXT
#define CALL_STD(T, NAME) generic_amo_##NAME(ctx);
  TEST_AMO_CTYPES(CALL_STD)
#undef CALL_STD
#define CALL_BIT(T, NAME) generic_amo_bit_##NAME(ctx);
  TEST_AMO_BIT_CTYPES(CALL_BIT)
#undef CALL_BIT
  generic_amo_long(SHMEM_CTX_DEFAULT);
  if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
  return g_fails;
}

/* ---- point-to-point synchronization ----------------------------------------------------- */

#define GENERIC_SYNC(T, NAME)                                                                     \
  static void generic_sync_##NAME(void) {                                                         \
    enum { K = 4 };                                                                               \
    const char *type_name = #T;                                                                   \
    const int r = right_();                                                                       \
    T *v = (T *)shmem_calloc(K, sizeof(T));                                                       \
    T refs[K] = {(T)1, (T)2, (T)3, (T)4};                                                         \
    int status[K] = {0, 0, 0, 0};                                                                 \
    size_t idx[K];                                                                                \
    size_t k;                                                                                     \
    if (!v) {                                                                                     \
      CHECK(0, "allocation");                                                                     \
      return;                                                                                     \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_test(&v[0], SHMEM_CMP_EQ, (T)0) == 1, "shmem_test");                              \
    CHECK(shmem_test(&v[0], SHMEM_CMP_GT, (T)0) == 0, "shmem_test");                              \
    CHECK(shmem_test_any(v, K, status, SHMEM_CMP_NE, (T)0) == SIZE_MAX, "shmem_test_any");        \
    CHECK(shmem_test_all(v, K, NULL, SHMEM_CMP_EQ, (T)0) == 1, "shmem_test_all");                 \
    CHECK(shmem_test_some(v, K, idx, NULL, SHMEM_CMP_NE, (T)0) == 0, "shmem_test_some");          \
    CHECK(shmem_test_any_vector(v, K, NULL, SHMEM_CMP_EQ, refs) == SIZE_MAX, "shmem_test_any_vector"); \
    CHECK(shmem_test_all_vector(v, K, NULL, SHMEM_CMP_LT, refs) == 1, "shmem_test_all_vector");   \
    CHECK(shmem_test_some_vector(v, K, idx, NULL, SHMEM_CMP_GE, refs) == 0, "shmem_test_some_vector"); \
    shmem_barrier_all();                                                                          \
    /* the left neighbour sets v[0] = 1: wait_until, wait_until_any */                             \
    shmem_p(&v[0], (T)1, r);                                                                      \
    shmem_wait_until(&v[0], SHMEM_CMP_EQ, (T)1);                                                  \
    CHECK(shmem_wait_until_any(v, K, NULL, SHMEM_CMP_EQ, (T)1) == 0, "shmem_wait_until_any");     \
    CHECK(shmem_wait_until_some(v, K, idx, NULL, SHMEM_CMP_NE, (T)0) == 1 && idx[0] == 0,         \
          "shmem_wait_until_some");                                                               \
    CHECK(shmem_wait_until_any_vector(v, K, NULL, SHMEM_CMP_EQ, refs) == 0, "shmem_wait_until_any_vector"); \
    shmem_barrier_all();                                                                          \
    /* then every element to its ref: the _all and _some vector forms */                           \
    for (k = 0; k < K; ++k) shmem_p(&v[k], refs[k], r);                                           \
    shmem_wait_until_all_vector(v, K, NULL, SHMEM_CMP_EQ, refs);                                  \
    shmem_wait_until_all(v, K, NULL, SHMEM_CMP_GE, (T)1);                                         \
    CHECK(shmem_wait_until_some_vector(v, K, idx, NULL, SHMEM_CMP_EQ, refs) == K,                 \
          "shmem_wait_until_some_vector");                                                        \
    CHECK(shmem_test_all(v, K, NULL, SHMEM_CMP_GT, (T)0) == 1, "shmem_test_all");                 \
    CHECK(shmem_test_some(v, K, idx, NULL, SHMEM_CMP_GE, (T)3) == 2, "shmem_test_some");          \
    CHECK(shmem_test_all_vector(v, K, NULL, SHMEM_CMP_LE, refs) == 1, "shmem_test_all_vector");   \
    CHECK(shmem_test_some_vector(v, K, idx, NULL, SHMEM_CMP_EQ, refs) == K, "shmem_test_some_vector"); \
    status[0] = status[1] = status[2] = 1;                                                        \
    CHECK(shmem_test_any(v, K, status, SHMEM_CMP_GT, (T)0) == 3, "shmem_test_any with status");   \
    CHECK(shmem_test_any_vector(v, K, status, SHMEM_CMP_EQ, refs) == 3, "shmem_test_any_vector with status"); \
    shmem_barrier_all();                                                                          \
    shmem_free(v);                                                                                \
  }
TEST_SYNC_CTYPES(GENERIC_SYNC)
#undef GENERIC_SYNC

int generic_c_sync(void) {
  g_fails = 0;
#define CALL_SYNC(T, NAME) generic_sync_##NAME();
  TEST_SYNC_CTYPES(CALL_SYNC)
#undef CALL_SYNC
  return g_fails;
}

/* The fixed-width spellings resolve to the same generic selections:
 * int32_t, int64_t, uint64_t, size_t and ptrdiff_t are C types of the
 * tables under other names. */
int generic_c_typedef_names(void) {
  const char *type_name = "typedefs";
  const int me = me_(), r = right_(), l = left_();
  int32_t *a = (int32_t *)shmem_calloc(1, sizeof(int32_t));
  int64_t *b = (int64_t *)shmem_calloc(1, sizeof(int64_t));
  uint64_t *c = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
  size_t *d = (size_t *)shmem_calloc(1, sizeof(size_t));
  ptrdiff_t *e = (ptrdiff_t *)shmem_calloc(1, sizeof(ptrdiff_t));
  g_fails = 0;
  shmem_barrier_all();
  shmem_p(a, (int32_t)(-100 - me), r);
  shmem_atomic_add(b, (int64_t)1 << 40, 0);
  shmem_atomic_or(c, (uint64_t)1 << (63 - me), 0);
  shmem_atomic_fetch_add(d, (size_t)me, 0);
  shmem_atomic_set(e, (ptrdiff_t)(-5 - me), r);
  shmem_barrier_all();
  CHECK(*a == -100 - l, "int32_t shmem_p");
  CHECK(*e == -5 - l, "ptrdiff_t shmem_atomic_set");
  if (me == 0) {
    int n = shmem_n_pes(), pe;
    uint64_t bits = 0;
    size_t sum = 0;
    for (pe = 0; pe < n; ++pe) {
      bits |= (uint64_t)1 << (63 - pe);
      sum += (size_t)pe;
    }
    CHECK(*b == ((int64_t)n << 40), "int64_t shmem_atomic_add");
    CHECK(*c == bits, "uint64_t shmem_atomic_or");
    CHECK(*d == sum, "size_t shmem_atomic_fetch_add");
    shmem_wait_until(d, SHMEM_CMP_EQ, sum);
    CHECK(shmem_test(c, SHMEM_CMP_EQ, bits) == 1, "uint64_t shmem_test");
  }
  shmem_barrier_all();
  shmem_free(e);
  shmem_free(d);
  shmem_free(c);
  shmem_free(b);
  shmem_free(a);
  return g_fails;
}

/* ---- shmem_sync: the team form and the deprecated active-set form ------------------------ */

static long g_psync[SHMEM_SYNC_SIZE]; /* SHMEM_SYNC_VALUE (0) at start, and again after each call */
static int g_sync_ring;

int generic_c_sync_team_and_active_set(void) {
  const char *type_name = "shmem_sync";
  const int n = shmem_n_pes();
  g_fails = 0;
  g_sync_ring = -1;
  shmem_barrier_all();
  shmem_p(&g_sync_ring, 100 + me_(), right_());
  shmem_quiet();
  CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(team) returns 0");
  CHECK(g_sync_ring == 100 + left_(), "a put before shmem_sync(team) is seen after it");
  CHECK(shmem_sync(SHMEM_TEAM_INVALID) != 0, "shmem_sync(SHMEM_TEAM_INVALID) fails");
  shmem_sync(SHMEM_TEAM_WORLD); /* everyone has read the ring */
  shmem_p(&g_sync_ring, 200 + me_(), right_());
  shmem_quiet();
  shmem_sync(0, 0, n, g_psync);
  CHECK(g_sync_ring == 200 + left_(), "a put before shmem_sync(active set) is seen after it");
  CHECK(g_psync[0] == SHMEM_SYNC_VALUE && g_psync[1] == SHMEM_SYNC_VALUE, "pSync restored");
  shmem_barrier_all();
  return g_fails;
}

/* ---- collectives: broadcast, collect, fcollect, alltoall(s) on SHMEM_TEAM_WORLD ---------- */

#define TEST_COLL_CTYPES(X) X(int, int) X(double, double)

/* An exact value, distinct for every (pe, i) with i < 100. */
#define CVAL(T, pe, i, salt) ((T)((pe) * 100 + (i) + (salt)))

#define GENERIC_COLL(T, NAME)                                                                     \
  static void generic_coll_##NAME(void) {                                                         \
    enum { N = 4, E = 2, SST = 3, DST = 2 };                                                      \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes(), me = me_(), root = n - 1;                                        \
    const size_t m = (size_t)n * (n + 1) / 2 + (size_t)n * 8 + 8;                                 \
    T *src = (T *)shmem_calloc(m, sizeof(T));                                                     \
    T *dst = (T *)shmem_calloc(m, sizeof(T));                                                     \
    size_t i, k;                                                                                  \
    int p, j, e;                                                                                  \
    if (!src || !dst) {                                                                           \
      CHECK(0, "allocation");                                                                     \
      shmem_free(dst); shmem_free(src);                                                           \
      return;                                                                                     \
    }                                                                                             \
    /* broadcast from the last PE: every dest, the root's too, gets its N elements */            \
    for (i = 0; i < N; ++i) src[i] = CVAL(T, me, i, 1);                                           \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, N, root) == 0, "shmem_broadcast returns 0"); \
    for (i = 0; i < N; ++i) CHECK(dst[i] == CVAL(T, root, i, 1), "shmem_broadcast");             \
    CHECK(dst[N] == (T)0, "shmem_broadcast writes nelems elements only");                        \
    CHECK(shmem_broadcast(SHMEM_TEAM_INVALID, dst, src, N, 0) != 0, "shmem_broadcast(SHMEM_TEAM_INVALID) fails"); \
    shmem_barrier_all();                                                                          \
    /* collect: PE p gives p + 1 elements; dest holds them in PE order */                         \
    for (i = 0; i < m; ++i) dst[i] = (T)0;                                                        \
    for (i = 0; i <= (size_t)me; ++i) src[i] = CVAL(T, me, i, 2);                                 \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)me + 1) == 0, "shmem_collect returns 0"); \
    for (p = 0, k = 0; p < n; ++p)                                                                \
      for (i = 0; i <= (size_t)p; ++i, ++k) CHECK(dst[k] == CVAL(T, p, i, 2), "shmem_collect");   \
    CHECK(dst[k] == (T)0, "shmem_collect writes the total only");                                \
    shmem_barrier_all();                                                                          \
    /* fcollect: N elements from each PE */                                                       \
    for (i = 0; i < m; ++i) dst[i] = (T)0;                                                        \
    for (i = 0; i < N; ++i) src[i] = CVAL(T, me, i, 3);                                           \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, N) == 0, "shmem_fcollect returns 0");       \
    for (p = 0; p < n; ++p)                                                                       \
      for (i = 0; i < N; ++i) CHECK(dst[p * N + i] == CVAL(T, p, i, 3), "shmem_fcollect");       \
    shmem_barrier_all();                                                                          \
    /* alltoall: block j of PE p's source lands in block p of PE j's dest */                      \
    for (i = 0; i < m; ++i) dst[i] = (T)0;                                                        \
    for (j = 0; j < n; ++j)                                                                       \
      for (e = 0; e < E; ++e) src[j * E + e] = CVAL(T, me, j * E + e, 4);                         \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, E) == 0, "shmem_alltoall returns 0");       \
    for (p = 0; p < n; ++p)                                                                       \
      for (e = 0; e < E; ++e) CHECK(dst[p * E + e] == CVAL(T, p, me * E + e, 4), "shmem_alltoall"); \
    shmem_barrier_all();                                                                          \
    /* alltoalls: the same exchange, reading every SST-th and writing every DST-th element */      \
    for (i = 0; i < m; ++i) {                                                                     \
      dst[i] = (T)0;                                                                              \
      src[i] = (T)-1;                                                                             \
    }                                                                                             \
    for (j = 0; j < n; ++j)                                                                       \
      for (e = 0; e < E; ++e) src[(j * E + e) * SST] = CVAL(T, me, j * E + e, 5);                 \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, src, DST, SST, E) == 0, "shmem_alltoalls returns 0"); \
    for (p = 0; p < n; ++p)                                                                       \
      for (e = 0; e < E; ++e) {                                                                   \
        CHECK(dst[(p * E + e) * DST] == CVAL(T, p, me * E + e, 5), "shmem_alltoalls");            \
        CHECK(dst[(p * E + e) * DST + 1] == (T)0, "shmem_alltoalls leaves the gaps alone");       \
      }                                                                                           \
    shmem_barrier_all();                                                                          \
    shmem_free(dst);                                                                              \
    shmem_free(src);                                                                              \
  }
TEST_COLL_CTYPES(GENERIC_COLL)
#undef GENERIC_COLL

int generic_c_collectives(void) {
  g_fails = 0;
#define CALL_COLL(T, NAME) generic_coll_##NAME();
  TEST_COLL_CTYPES(CALL_COLL)
#undef CALL_COLL
  return g_fails;
}

/* ---- reductions on SHMEM_TEAM_WORLD ------------------------------------------------------ */
/* Each expected value is the fold, over every PE, of what that PE contributes. */

/* and, or, xor: long selects the int64 routines */
#define TEST_REDUCE_BITWISE_CTYPES(X) X(unsigned int, uint) X(long, int64)
#define BIT_AND_VAL(T, pe, k) ((T) ~((T)1 << (((pe) + (k)) % 8 + 8 * (k))))
#define BIT_OR_VAL(T, pe, k) ((T)((T)1 << (((pe) + (k)) % 8 + 8 * (k))))
#define BIT_XOR_VAL(T, pe, k) ((T)((T)3 << ((pe) + 8 * (k))))

#define GENERIC_REDUCE_BITWISE(T, NAME)                                                           \
  static void generic_reduce_bitwise_##NAME(void) {                                               \
    enum { K = 3 };                                                                               \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes(), me = me_();                                                      \
    T *src = (T *)shmem_calloc(3 * K, sizeof(T));                                                 \
    T *dst = (T *)shmem_calloc(3 * K, sizeof(T));                                                 \
    T a, o, x;                                                                                    \
    int p, k;                                                                                     \
    if (!src || !dst) {                                                                           \
      CHECK(0, "allocation");                                                                     \
      shmem_free(dst); shmem_free(src);                                                           \
      return;                                                                                     \
    }                                                                                             \
    for (k = 0; k < K; ++k) {                                                                     \
      src[k] = BIT_AND_VAL(T, me, k);                                                             \
      src[K + k] = BIT_OR_VAL(T, me, k);                                                          \
      src[2 * K + k] = BIT_XOR_VAL(T, me, k);                                                     \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_and_reduce(SHMEM_TEAM_WORLD, dst, src, K) == 0, "shmem_and_reduce returns 0");   \
    CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, dst + K, src + K, K) == 0, "shmem_or_reduce returns 0"); \
    CHECK(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst + 2 * K, src + 2 * K, K) == 0, "shmem_xor_reduce returns 0"); \
    for (k = 0; k < K; ++k) {                                                                     \
      a = (T) ~(T)0;                                                                              \
      o = x = (T)0;                                                                               \
      for (p = 0; p < n; ++p) {                                                                   \
        a = (T)(a & BIT_AND_VAL(T, p, k));                                                        \
        o = (T)(o | BIT_OR_VAL(T, p, k));                                                         \
        x = (T)(x ^ BIT_XOR_VAL(T, p, k));                                                        \
      }                                                                                           \
      CHECK(dst[k] == a, "shmem_and_reduce");                                                     \
      CHECK(dst[K + k] == o, "shmem_or_reduce");                                                  \
      CHECK(dst[2 * K + k] == x, "shmem_xor_reduce");                                             \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    shmem_free(dst);                                                                              \
    shmem_free(src);                                                                              \
  }
TEST_REDUCE_BITWISE_CTYPES(GENERIC_REDUCE_BITWISE)
#undef GENERIC_REDUCE_BITWISE

/* max, min: negative values too */
#define TEST_REDUCE_MINMAX_CTYPES(X) X(int, int) X(double, double)
#define MINMAX_VAL(T, pe, k) ((T)(((pe) * 37 + (k) * 11) % 17 - 8))

#define GENERIC_REDUCE_MINMAX(T, NAME)                                                            \
  static void generic_reduce_minmax_##NAME(void) {                                                \
    enum { K = 5 };                                                                               \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes(), me = me_();                                                      \
    T *src = (T *)shmem_calloc(K, sizeof(T));                                                     \
    T *dst = (T *)shmem_calloc(2 * K, sizeof(T));                                                 \
    T hi, lo;                                                                                     \
    int p, k;                                                                                     \
    if (!src || !dst) {                                                                           \
      CHECK(0, "allocation");                                                                     \
      shmem_free(dst); shmem_free(src);                                                           \
      return;                                                                                     \
    }                                                                                             \
    for (k = 0; k < K; ++k) src[k] = MINMAX_VAL(T, me, k);                                        \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, K) == 0, "shmem_max_reduce returns 0");   \
    CHECK(shmem_min_reduce(SHMEM_TEAM_WORLD, dst + K, src, K) == 0, "shmem_min_reduce returns 0"); \
    for (k = 0; k < K; ++k) {                                                                     \
      hi = lo = MINMAX_VAL(T, 0, k);                                                              \
      for (p = 1; p < n; ++p) {                                                                   \
        if (MINMAX_VAL(T, p, k) > hi) hi = MINMAX_VAL(T, p, k);                                   \
        if (MINMAX_VAL(T, p, k) < lo) lo = MINMAX_VAL(T, p, k);                                   \
      }                                                                                           \
      CHECK(dst[k] == hi, "shmem_max_reduce");                                                    \
      CHECK(dst[K + k] == lo, "shmem_min_reduce");                                                \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    shmem_free(dst);                                                                              \
    shmem_free(src);                                                                              \
  }
TEST_REDUCE_MINMAX_CTYPES(GENERIC_REDUCE_MINMAX)
#undef GENERIC_REDUCE_MINMAX

/* sum, prod: X(T, NAME, IM, STEP), IM being the imaginary unit for the
 * complex types and 0 for the real ones; the product's factors are 1 and
 * 1 + STEP. Every partial result is a small integer (Gaussian integer for
 * the complex types), so each fold is exact in any order. */
#define TEST_REDUCE_ARITH_CTYPES(X)                                                       \
  X(long, long, 0, 1) X(double, double, 0, 1) X(double _Complex, complexd, I, I)          \
  X(float _Complex, complexf, I, I)
#define SUM_VAL(T, IM, pe, k) ((T)((pe) + 1 + (k)) + (T)((k) - (pe)) * (IM))
#define PROD_VAL(T, STEP, pe, k) ((T)1 + (T)(((pe) + (k)) % 2) * (STEP))

#define GENERIC_REDUCE_ARITH(T, NAME, IM, STEP)                                                   \
  static void generic_reduce_arith_##NAME(void) {                                                 \
    enum { K = 4 };                                                                               \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes(), me = me_();                                                      \
    T *src = (T *)shmem_calloc(2 * K, sizeof(T));                                                 \
    T *dst = (T *)shmem_calloc(2 * K, sizeof(T));                                                 \
    T s, q;                                                                                       \
    int p, k;                                                                                     \
    if (!src || !dst) {                                                                           \
      CHECK(0, "allocation");                                                                     \
      shmem_free(dst); shmem_free(src);                                                           \
      return;                                                                                     \
    }                                                                                             \
    for (k = 0; k < K; ++k) {                                                                     \
      src[k] = SUM_VAL(T, IM, me, k);                                                             \
      src[K + k] = PROD_VAL(T, STEP, me, k);                                                      \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, K) == 0, "shmem_sum_reduce returns 0");   \
    CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst + K, src + K, K) == 0, "shmem_prod_reduce returns 0"); \
    for (k = 0; k < K; ++k) {                                                                     \
      s = (T)0;                                                                                   \
      q = (T)1;                                                                                   \
      for (p = 0; p < n; ++p) {                                                                   \
        s += SUM_VAL(T, IM, p, k);                                                                \
        q *= PROD_VAL(T, STEP, p, k);                                                             \
      }                                                                                           \
      CHECK(dst[k] == s, "shmem_sum_reduce");                                                     \
      CHECK(dst[K + k] == q, "shmem_prod_reduce");                                                \
    }                                                                                             \
    CHECK(shmem_sum_reduce(SHMEM_TEAM_INVALID, dst, src, K) != 0, "shmem_sum_reduce(SHMEM_TEAM_INVALID) fails"); \
    shmem_barrier_all();                                                                          \
    shmem_free(dst);                                                                              \
    shmem_free(src);                                                                              \
  }
TEST_REDUCE_ARITH_CTYPES(GENERIC_REDUCE_ARITH)
#undef GENERIC_REDUCE_ARITH

int generic_c_reductions(void) {
  g_fails = 0;
#define CALL_BITWISE(T, NAME) generic_reduce_bitwise_##NAME();
  TEST_REDUCE_BITWISE_CTYPES(CALL_BITWISE)
#undef CALL_BITWISE
#define CALL_MINMAX(T, NAME) generic_reduce_minmax_##NAME();
  TEST_REDUCE_MINMAX_CTYPES(CALL_MINMAX)
#undef CALL_MINMAX
#define CALL_ARITH(T, NAME, IM, STEP) generic_reduce_arith_##NAME();
  TEST_REDUCE_ARITH_CTYPES(CALL_ARITH)
#undef CALL_ARITH
  return g_fails;
}

/* ---- deprecated generic AMO names ------------------------------------------------------ */

#define TEST_OLD_AMO_CTYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define TEST_OLD_AMO_EXT_CTYPES(X) TEST_OLD_AMO_CTYPES(X) X(float, float) X(double, double)

/* The start of each test below: `count` zeroed T named w on every PE, and
 * `old`; a failed allocation is a failed check and ends the test. */
#define OLD_AMO_PREAMBLE(T, count)            \
  T *w = (T *)shmem_calloc(count, sizeof(T)); \
  T old;                                      \
  if (!w) {                                   \
    CHECK(0, "allocation");                   \
    return;                                   \
  }                                           \
  shmem_barrier_all();

/* Every PE adds to counters on PE 0 with the old names; PE 0 checks. */
#define GENERIC_OLD_AMO(T, NAME)                                                                  \
  static void generic_old_amo_##NAME(void) {                                                      \
    const char *type_name = #T;                                                                   \
    const int n = shmem_n_pes(), me = me_();                                                      \
    OLD_AMO_PREAMBLE(T, 4)                                                                        \
    shmem_add(&w[0], (T)(me + 1), 0);                                                             \
    old = shmem_fadd(&w[1], (T)2, 0);                                                             \
    CHECK(old % 2 == 0 && old < (T)(2 * n), "shmem_fadd");                                        \
    shmem_inc(&w[2], 0);                                                                          \
    old = shmem_finc(&w[3], 0);                                                                   \
    CHECK(old >= 0 && old < (T)n, "shmem_finc");                                                  \
    shmem_barrier_all();                                                                          \
    if (me == 0) {                                                                                \
      CHECK(w[0] == (T)(n * (n + 1) / 2), "shmem_add");                                           \
      CHECK(w[1] == (T)(2 * n) && w[2] == (T)n && w[3] == (T)n, "shmem_fadd/inc/finc totals");    \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    /* cswap of w[2] (now n): exactly one PE finds n and swaps in its mark */                     \
    old = shmem_cswap(&w[2], (T)n, (T)(-1 - me), 0);                                              \
    CHECK(old == (T)n || (old < 0 && old >= (T)(-n)), "shmem_cswap returns n or the winner's mark"); \
    if (old == (T)n) shmem_inc(&w[1], 0);                                                         \
    shmem_barrier_all();                                                                          \
    if (me == 0) {                                                                                \
      CHECK(w[2] < 0 && w[2] >= (T)(-n), "shmem_cswap: the winner's mark");                       \
      CHECK(w[1] == (T)(2 * n + 1), "shmem_cswap: exactly one winner");                           \
    }                                                                                             \
    shmem_barrier_all();                                                                          \
    shmem_free(w);                                                                                \
  }
TEST_OLD_AMO_CTYPES(GENERIC_OLD_AMO)
#undef GENERIC_OLD_AMO

/* set, fetch and swap, for the floating types too: a ring. */
#define GENERIC_OLD_AMO_EXT(T, NAME)                                                              \
  static void generic_old_amo_ext_##NAME(void) {                                                  \
    const char *type_name = #T;                                                                   \
    OLD_AMO_PREAMBLE(T, 1)                                                                        \
    shmem_set(w, (T)(10 + me_()), right_());                                                      \
    shmem_barrier_all();                                                                          \
    CHECK(shmem_fetch(w, me_()) == (T)(10 + left_()), "shmem_set/shmem_fetch");                   \
    shmem_barrier_all();                                                                          \
    old = shmem_swap(w, (T)(20 + me_()), right_());                                               \
    CHECK(old == (T)(10 + me_()), "shmem_swap returns the old value");                            \
    shmem_barrier_all();                                                                          \
    CHECK(*w == (T)(20 + left_()), "shmem_swap");                                                 \
    shmem_barrier_all();                                                                          \
    shmem_free(w);                                                                                \
  }
TEST_OLD_AMO_EXT_CTYPES(GENERIC_OLD_AMO_EXT)
#undef GENERIC_OLD_AMO_EXT

int generic_c_deprecated_amo(void) {
  g_fails = 0;
#define CALL_OLD(T, NAME) generic_old_amo_##NAME();
  TEST_OLD_AMO_CTYPES(CALL_OLD)
#undef CALL_OLD
#define CALL_OLD_EXT(T, NAME) generic_old_amo_ext_##NAME();
  TEST_OLD_AMO_EXT_CTYPES(CALL_OLD_EXT)
#undef CALL_OLD_EXT
  return g_fails;
}

/* shmem_global_exit is _Noreturn: this function needs no return statement
 * (the file is compiled with -Werror=return-type). Never called. */
int generic_c_exit_without_return(int status) { shmem_global_exit(status); }
