/* The C11 type-generic collectives of OpenSHMEM 1.5 (_Generic macros of
 * <shmem.h>): shmem_broadcast, shmem_collect, shmem_fcollect,
 * shmem_alltoall, shmem_alltoalls for every distinct C type of the standard
 * RMA types table, and shmem_{and,or,xor,max,min,sum,prod}_reduce for every
 * distinct C type of the team reductions table, complex types included, on
 * SHMEM_TEAM_WORLD.
 *
 * Compiled as strict C11 (no extensions). Each entry point is collective,
 * returns the number of failed checks and prints every failure with the PE
 * number; test_coll_data.cpp and test_coll_reduce.cpp call them. */
#include <complex.h>
#include <shmem.h>
#include <stddef.h>
#include <stdio.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "coll_generic_c.c must be compiled as C11"
#endif

static int g_fails;

#define CHECK(cond, what)                                                                                  \
  do {                                                                                                     \
    if (!(cond)) {                                                                                         \
      ++g_fails;                                                                                           \
      fprintf(stderr, "[PE %d] %s:%d: check failed: %s (%s, %s)\n", shmem_my_pe(), __FILE__, __LINE__, #cond, \
              what, type_name);                                                                            \
    }                                                                                                      \
  } while (0)

/* The distinct C types of each table, listed independently of the header. */
#define TEST_RMA_CTYPES(X)                                                                \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)               \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)  \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                 \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
/* and/or/xor: the unsigned rows, and int8_t..int64_t (signed char, short, int, long). */
#define TEST_BIT_CTYPES(X)                                                                 \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                  \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(signed char, schar)           \
  X(short, short) X(int, int) X(long, long)

enum { kN = 5, kMaxPes = 64 };

/* Small exact values: PE pe's element i with a salt. */
#define VAL(T, pe, i, salt) ((T)(((pe) * 7 + (i) * 3 + (salt)) % 100 + 1))

/* Every call's dest is checked before a barrier, and the next call that
 * writes it comes after that barrier: a collective may write a PE's dest as
 * soon as any PE has entered it. */

/* ---- data movement ------------------------------------------------------------------ */

#define DATA_FN(T, NAME)                                                                       \
  static T NAME##_src[kMaxPes * kN * 2];                                                       \
  static T NAME##_dst[kMaxPes * kN * 2];                                                       \
  static void data_##NAME(void) {                                                              \
    const char *type_name = #T;                                                                \
    int me = shmem_my_pe(), n = shmem_n_pes(), i, k;                                           \
    /* broadcast from the last PE */                                                           \
    for (i = 0; i < kN; ++i) NAME##_src[i] = VAL(T, me, i, 1);                                 \
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, NAME##_dst, NAME##_src, kN, n - 1) == 0, "broadcast"); \
    for (i = 0; i < kN; ++i) CHECK(NAME##_dst[i] == VAL(T, n - 1, i, 1), "broadcast");        \
    shmem_barrier_all();                                                                       \
    /* collect: PE k contributes k % 3 elements */                                             \
    for (i = 0; i < me % 3; ++i) NAME##_src[i] = VAL(T, me, i, 2);                             \
    CHECK(shmem_collect(SHMEM_TEAM_WORLD, NAME##_dst, NAME##_src, (size_t)(me % 3)) == 0, "collect"); \
    {                                                                                          \
      int off = 0;                                                                             \
      for (k = 0; k < n; ++k)                                                                  \
        for (i = 0; i < k % 3; ++i) CHECK(NAME##_dst[off++] == VAL(T, k, i, 2), "collect");    \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
    /* fcollect */                                                                             \
    for (i = 0; i < kN; ++i) NAME##_src[i] = VAL(T, me, i, 3);                                 \
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, NAME##_dst, NAME##_src, kN) == 0, "fcollect");     \
    for (k = 0; k < n; ++k)                                                                    \
      for (i = 0; i < kN; ++i) CHECK(NAME##_dst[k * kN + i] == VAL(T, k, i, 3), "fcollect");   \
    shmem_barrier_all();                                                                       \
    /* alltoall: block j of PE k goes to PE j */                                               \
    for (i = 0; i < n * kN; ++i) NAME##_src[i] = VAL(T, me, i, 4);                             \
    CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, NAME##_dst, NAME##_src, kN) == 0, "alltoall");     \
    for (k = 0; k < n; ++k)                                                                    \
      for (i = 0; i < kN; ++i) CHECK(NAME##_dst[k * kN + i] == VAL(T, k, me * kN + i, 4), "alltoall"); \
    shmem_barrier_all();                                                                       \
    /* alltoalls: dst stride 2, sst stride 1 */                                                \
    for (i = 0; i < n * kN; ++i) NAME##_src[i] = VAL(T, me, i, 5);                             \
    CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, NAME##_dst, NAME##_src, 2, 1, kN) == 0, "alltoalls"); \
    for (k = 0; k < n; ++k)                                                                    \
      for (i = 0; i < kN; ++i)                                                                 \
        CHECK(NAME##_dst[(k * kN + i) * 2] == VAL(T, k, me * kN + i, 5), "alltoalls");         \
    shmem_barrier_all();                                                                       \
  }
TEST_RMA_CTYPES(DATA_FN)
#undef DATA_FN

int coll_c_generic_data(void) {
  g_fails = 0;
  if (shmem_n_pes() > kMaxPes) return 0;
#define CALL(T, NAME) data_##NAME();
  TEST_RMA_CTYPES(CALL)
#undef CALL
  return g_fails;
}

/* ---- reductions ----------------------------------------------------------------------- */

/* Values whose sums and products fit every type with up to kMaxPes PEs: */
#define RV_SUM(pe, i) (((pe) + (i)) % 2)                    /* sum <= 64 */
#define RV_PROD(pe, i) (((pe) + (i)) % 16 == 3 ? 2 : 1)     /* at most 4 factors 2 */
#define RV_ORD(pe, i) (((pe) * 5 + (i) * 3) % 11 + 1)       /* max, min */
#define RV_BIT(pe, i) (1 << (((pe) + (i)) % 7))             /* and of the complement, or, xor */

#define RED_FN(T, NAME)                                                                        \
  static T NAME##_rsrc[kN], NAME##_rdst[kN];                                                   \
  static void reduce_ordered_##NAME(void) {                                                    \
    const char *type_name = #T;                                                                \
    int me = shmem_my_pe(), n = shmem_n_pes(), i, k;                                           \
    for (i = 0; i < kN; ++i) NAME##_rsrc[i] = (T)RV_SUM(me, i);                                \
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rsrc, kN) == 0, "sum");      \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = 0;                                                                               \
      for (k = 0; k < n; ++k) e += RV_SUM(k, i);                                               \
      CHECK(NAME##_rdst[i] == (T)e, "sum");                                                    \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
    for (i = 0; i < kN; ++i) NAME##_rsrc[i] = (T)RV_PROD(me, i);                               \
    CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rsrc, kN) == 0, "prod");    \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = 1;                                                                               \
      for (k = 0; k < n; ++k) e *= RV_PROD(k, i);                                              \
      CHECK(NAME##_rdst[i] == (T)e, "prod");                                                   \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
    for (i = 0; i < kN; ++i) NAME##_rsrc[i] = (T)RV_ORD(me, i);                                \
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rsrc, kN) == 0, "max");      \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = 0;                                                                               \
      for (k = 0; k < n; ++k) e = RV_ORD(k, i) > e ? RV_ORD(k, i) : e;                         \
      CHECK(NAME##_rdst[i] == (T)e, "max");                                                    \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
    /* min in place */                                                                         \
    for (i = 0; i < kN; ++i) NAME##_rdst[i] = (T)RV_ORD(me, i);                                \
    CHECK(shmem_min_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rdst, kN) == 0, "min");      \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = 1000;                                                                            \
      for (k = 0; k < n; ++k) e = RV_ORD(k, i) < e ? RV_ORD(k, i) : e;                         \
      CHECK(NAME##_rdst[i] == (T)e, "min");                                                    \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
  }
TEST_RMA_CTYPES(RED_FN)
#undef RED_FN

#define BIT_FN(T, NAME)                                                                        \
  static void reduce_bitwise_##NAME(void) {                                                    \
    const char *type_name = #T;                                                                \
    int me = shmem_my_pe(), n = shmem_n_pes(), i, k;                                           \
    for (i = 0; i < kN; ++i) NAME##_rsrc[i] = (T)~RV_BIT(me, i);                               \
    CHECK(shmem_and_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rsrc, kN) == 0, "and");      \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = ~0;                                                                              \
      for (k = 0; k < n; ++k) e &= ~RV_BIT(k, i);                                              \
      CHECK(NAME##_rdst[i] == (T)e, "and");                                                    \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
    for (i = 0; i < kN; ++i) NAME##_rsrc[i] = (T)RV_BIT(me, i);                                \
    CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rsrc, kN) == 0, "or");        \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = 0;                                                                               \
      for (k = 0; k < n; ++k) e |= RV_BIT(k, i);                                               \
      CHECK(NAME##_rdst[i] == (T)e, "or");                                                     \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
    CHECK(shmem_xor_reduce(SHMEM_TEAM_WORLD, NAME##_rdst, NAME##_rsrc, kN) == 0, "xor");      \
    for (i = 0; i < kN; ++i) {                                                                 \
      int e = 0;                                                                               \
      for (k = 0; k < n; ++k) e ^= RV_BIT(k, i);                                               \
      CHECK(NAME##_rdst[i] == (T)e, "xor");                                                    \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
  }
TEST_BIT_CTYPES(BIT_FN)
#undef BIT_FN

/* Complex sum and product: sum of (pe, -i); product of factors I or 1. */
#define CPLX_FN(T, NAME, MAKE)                                                                 \
  static T NAME##_csrc[kN], NAME##_cdst[kN];                                                   \
  static void reduce_complex_##NAME(void) {                                                    \
    const char *type_name = #T;                                                                \
    int me = shmem_my_pe(), n = shmem_n_pes(), i, k;                                           \
    for (i = 0; i < kN; ++i) NAME##_csrc[i] = MAKE(me, -i);                                    \
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, NAME##_cdst, NAME##_csrc, kN) == 0, "sum");      \
    for (i = 0; i < kN; ++i) CHECK(NAME##_cdst[i] == MAKE(n * (n - 1) / 2, -i * n), "sum");    \
    shmem_barrier_all();                                                                       \
    for (i = 0; i < kN; ++i) NAME##_csrc[i] = (me + i) % 2 ? MAKE(0, 1) : MAKE(1, 0);          \
    CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, NAME##_cdst, NAME##_csrc, kN) == 0, "prod");    \
    for (i = 0; i < kN; ++i) {                                                                 \
      T e = MAKE(1, 0);                                                                        \
      for (k = 0; k < n; ++k) e *= (k + i) % 2 ? MAKE(0, 1) : MAKE(1, 0);                      \
      CHECK(NAME##_cdst[i] == e, "prod");                                                      \
    }                                                                                          \
    shmem_barrier_all();                                                                       \
  }
CPLX_FN(double _Complex, complexd, CMPLX)
CPLX_FN(float _Complex, complexf, CMPLXF)
#undef CPLX_FN

int coll_c_generic_reduce(void) {
  g_fails = 0;
  if (shmem_n_pes() > kMaxPes) return 0;
#define CALL_ORD(T, NAME) reduce_ordered_##NAME();
#define CALL_BIT(T, NAME) reduce_bitwise_##NAME();
  TEST_RMA_CTYPES(CALL_ORD)
  TEST_BIT_CTYPES(CALL_BIT)
#undef CALL_ORD
#undef CALL_BIT
  reduce_complex_complexd();
  reduce_complex_complexf();
  return g_fails;
}
