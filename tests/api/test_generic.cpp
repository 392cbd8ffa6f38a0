// Type-generic interfaces: the C11 _Generic macros (exercised by
// generic_c.c, compiled as strict C11, and called from here) and the C++
// overloads of the same names, with and without a leading context; the team
// collectives and reductions, std::complex included.
#include <algorithm>
#include <complex>
#include <type_traits>

#include "api_test.hpp"

using namespace api;

extern "C" {
int generic_c_rma(void);
int generic_c_amo(void);
int generic_c_sync(void);
int generic_c_typedef_names(void);
int generic_c_sync_team_and_active_set(void);
int generic_c_deprecated_amo(void);
int generic_c_collectives(void);
int generic_c_reductions(void);
}

// ---- C11 _Generic ------------------------------------------------------------------

TEST(GenericC11, RmaEveryTypeWithAndWithoutCtx) { EXPECT_EQ(generic_c_rma(), 0); }
TEST(GenericC11, AmoEveryTypeWithAndWithoutCtx) { EXPECT_EQ(generic_c_amo(), 0); }
TEST(GenericC11, WaitAndTestEveryType) { EXPECT_EQ(generic_c_sync(), 0); }
TEST(GenericC11, FixedWidthTypedefs) { EXPECT_EQ(generic_c_typedef_names(), 0); }
TEST(GenericC11, SyncWithTeamOrActiveSet) { EXPECT_EQ(generic_c_sync_team_and_active_set(), 0); }
TEST(GenericC11, DeprecatedAmoNames) { EXPECT_EQ(generic_c_deprecated_amo(), 0); }
TEST(GenericC11, Collectives) { EXPECT_EQ(generic_c_collectives(), 0); }
TEST(GenericC11, ReductionsComplexIncluded) { EXPECT_EQ(generic_c_reductions(), 0); }

// ---- C++ overloads -----------------------------------------------------------------

namespace {

template <class T>
void cxx_rma(shmem_ctx_t ctx) {
  constexpr size_t N = 9;
  const int r = right(), l = left(), self = me();
  Sym<T> src(N), dst(3 * N);
  if (!src.ok() || !dst.ok()) return;
  for (size_t i = 0; i < N; ++i) src[i] = value<T>(self, i, 1);
  barrier();
  shmem_put(dst.get(), src.get(), N, r);
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, [&](size_t i) { return value<T>(l, i, 1); })) << "shmem_put";
  barrier();
  std::vector<T> loc(3 * N, T{});
  for (size_t i = 0; i < N; ++i) loc[i] = value<T>(self, i, 2);
  shmem_put(ctx, dst.get(), loc.data(), N, r);
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, [&](size_t i) { return value<T>(l, i, 2); })) << "shmem_put(ctx)";
  std::fill(loc.begin(), loc.end(), T{});
  shmem_get(loc.data(), src.get(), N, r);
  EXPECT_TRUE(all_equal(loc.data(), N, [&](size_t i) { return value<T>(r, i, 1); })) << "shmem_get";
  std::fill(loc.begin(), loc.end(), T{});
  shmem_get(ctx, loc.data(), src.get(), N, r);
  EXPECT_TRUE(all_equal(loc.data(), N, [&](size_t i) { return value<T>(r, i, 1); })) << "shmem_get(ctx)";
  barrier();
  for (size_t i = 0; i < N; ++i) loc[i] = value<T>(self, i, 3);
  shmem_put_nbi(dst.get(), loc.data(), N, r);
  shmem_quiet();
  shmem_put_nbi(ctx, dst.get() + N, loc.data(), N, r);
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), 2 * N, [&](size_t i) { return value<T>(l, i % N, 3); })) << "shmem_put_nbi";
  std::fill(loc.begin(), loc.end(), T{});
  shmem_get_nbi(loc.data(), src.get(), N, r);
  shmem_get_nbi(ctx, loc.data() + N, src.get(), N, r);
  shmem_quiet();
  shmem_ctx_quiet(ctx);
  EXPECT_TRUE(all_equal(loc.data(), 2 * N, [&](size_t i) { return value<T>(r, i % N, 1); })) << "shmem_get_nbi";
  barrier();
  shmem_p(dst.get(), value<T>(self, 0, 4), r);
  shmem_p(ctx, dst.get() + 1, value<T>(self, 1, 4), r);
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_EQ(dst[0], value<T>(l, 0, 4)) << "shmem_p";
  EXPECT_EQ(dst[1], value<T>(l, 1, 4)) << "shmem_p(ctx)";
  EXPECT_EQ(shmem_g(src.get() + 5, r), value<T>(r, 5, 1)) << "shmem_g";
  EXPECT_EQ(shmem_g(ctx, src.get() + 6, r), value<T>(r, 6, 1)) << "shmem_g(ctx)";
  barrier();
  for (size_t i = 0; i < 3 * N; ++i) dst[i] = T{};
  barrier();
  shmem_iput(dst.get(), src.get(), 3, 2, 4, r);
  shmem_iput(ctx, dst.get() + 1, src.get() + 1, 3, 2, 4, r);
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), 12, [&](size_t j) {
    return j % 3 == 2 ? T{} : value<T>(l, 2 * (j / 3) + j % 3, 1);
  })) << "shmem_iput";
  std::fill(loc.begin(), loc.end(), T{});
  shmem_iget(loc.data(), src.get(), 2, 3, 3, r);
  shmem_iget(ctx, loc.data() + 1, src.get() + 1, 2, 3, 2, r);
  EXPECT_EQ(loc[0], value<T>(r, 0, 1));
  EXPECT_EQ(loc[2], value<T>(r, 3, 1));
  EXPECT_EQ(loc[4], value<T>(r, 6, 1));
  EXPECT_EQ(loc[1], value<T>(r, 1, 1));
  EXPECT_EQ(loc[3], value<T>(r, 4, 1));
  barrier();
  // put_signal overloads.
  Sym<uint64_t> sig(1);
  if (sig.ok()) {
    barrier();
    shmem_put_signal(dst.get(), src.get(), N, sig.get(), 1, SHMEM_SIGNAL_ADD, r);
    shmem_put_signal_nbi(ctx, dst.get() + N, src.get(), N, sig.get(), 1, SHMEM_SIGNAL_ADD, r);
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, 2);
    EXPECT_TRUE(all_equal(dst.get(), 2 * N, [&](size_t i) { return value<T>(l, i % N, 1); })) << "shmem_put_signal";
    barrier();
    shmem_put_signal(ctx, dst.get(), src.get(), 1, sig.get(), 10, SHMEM_SIGNAL_SET, r);
    shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, 10);
    barrier();
    shmem_put_signal_nbi(dst.get(), src.get(), 1, sig.get(), 20, SHMEM_SIGNAL_SET, r);
    shmem_quiet();
    shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, 20);
    barrier();
  }
}

template <class T>
void cxx_amo_ext(shmem_ctx_t ctx) {
  Sym<T> x(2);
  if (!x.ok()) return;
  const int r = right(), l = left(), self = me();
  barrier();
  shmem_atomic_set(x.get(), static_cast<T>(self + 1), r);
  shmem_atomic_set(ctx, x.get() + 1, static_cast<T>(self + 2), r);
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_EQ(x[0], static_cast<T>(l + 1));
  EXPECT_EQ(x[1], static_cast<T>(l + 2));
  EXPECT_EQ(shmem_atomic_fetch(x.get(), r), static_cast<T>(self + 1));
  EXPECT_EQ(shmem_atomic_fetch(ctx, x.get() + 1, r), static_cast<T>(self + 2));
  T f{};
  shmem_atomic_fetch_nbi(&f, x.get(), r);
  shmem_quiet();
  EXPECT_EQ(f, static_cast<T>(self + 1));
  shmem_atomic_fetch_nbi(ctx, &f, x.get() + 1, r);
  shmem_ctx_quiet(ctx);
  EXPECT_EQ(f, static_cast<T>(self + 2));
  barrier();
  EXPECT_EQ(shmem_atomic_swap(x.get(), static_cast<T>(50), r), static_cast<T>(self + 1));
  EXPECT_EQ(shmem_atomic_swap(ctx, x.get() + 1, static_cast<T>(60), r), static_cast<T>(self + 2));
  shmem_atomic_swap_nbi(&f, x.get(), static_cast<T>(70), r);
  shmem_quiet();
  EXPECT_EQ(f, static_cast<T>(50));
  shmem_atomic_swap_nbi(ctx, &f, x.get() + 1, static_cast<T>(80), r);
  shmem_ctx_quiet(ctx);
  EXPECT_EQ(f, static_cast<T>(60));
  barrier();
}

template <class T>
void cxx_amo(shmem_ctx_t ctx) {
  Sym<T> c(1);
  if (!c.ok()) return;
  const int n = npes();
  barrier();
  shmem_atomic_inc(c.get(), 0);
  shmem_atomic_inc(ctx, c.get(), 0);
  T f = shmem_atomic_fetch_inc(c.get(), 0);
  EXPECT_GE(f, T{1});
  f = shmem_atomic_fetch_inc(ctx, c.get(), 0);
  shmem_atomic_fetch_inc_nbi(&f, c.get(), 0);
  shmem_atomic_fetch_inc_nbi(ctx, &f, c.get(), 0);
  shmem_atomic_add(c.get(), T{10}, 0);
  shmem_atomic_add(ctx, c.get(), T{10}, 0);
  f = shmem_atomic_fetch_add(c.get(), T{100}, 0);
  f = shmem_atomic_fetch_add(ctx, c.get(), T{100}, 0);
  shmem_atomic_fetch_add_nbi(&f, c.get(), T{1}, 0);
  shmem_atomic_fetch_add_nbi(ctx, &f, c.get(), T{1}, 0);
  shmem_quiet();
  shmem_ctx_quiet(ctx);
  barrier();
  const T want = static_cast<T>(n * (6 + 20 + 200 + 2));
  EXPECT_EQ(shmem_atomic_fetch(c.get(), 0), want);
  barrier();
  if (me() == 0) {
    EXPECT_EQ(shmem_atomic_compare_swap(c.get(), want, T{1}, 0), want);
    EXPECT_EQ(shmem_atomic_compare_swap(ctx, c.get(), T{1}, T{2}, 0), T{1});
    shmem_atomic_compare_swap_nbi(&f, c.get(), T{2}, T{3}, 0);
    shmem_quiet();
    EXPECT_EQ(f, T{2});
    shmem_atomic_compare_swap_nbi(ctx, &f, c.get(), T{9}, T{4}, 0);
    shmem_ctx_quiet(ctx);
    EXPECT_EQ(f, T{3}) << "no match";
    EXPECT_EQ(c[0], T{3});
  }
  barrier();
}

template <class T>
void cxx_amo_bit(shmem_ctx_t ctx) {
  Sym<T> w(3);
  if (!w.ok()) return;
  const T b = static_cast<T>(T{1} << me());
  T all{};
  for (int pe = 0; pe < npes(); ++pe) all = static_cast<T>(all | (T{1} << pe));
  w[1] = static_cast<T>(~T{});
  barrier();
  T f = shmem_atomic_fetch_or(w.get(), b, 0);
  EXPECT_EQ(static_cast<T>(f & b), T{});
  shmem_atomic_and(ctx, w.get() + 1, static_cast<T>(~b), 0);
  shmem_atomic_fetch_xor_nbi(ctx, &f, w.get() + 2, b, 0);
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_EQ(shmem_atomic_fetch(w.get(), 0), all);
  EXPECT_EQ(shmem_atomic_fetch(w.get() + 1, 0), static_cast<T>(~all));
  EXPECT_EQ(shmem_atomic_fetch(w.get() + 2, 0), all);
  barrier();
  shmem_atomic_or(w.get(), b, 0);
  f = shmem_atomic_fetch_and(w.get(), static_cast<T>(~b), 0);
  shmem_atomic_fetch_and_nbi(ctx, &f, w.get() + 2, static_cast<T>(~b), 0);
  shmem_atomic_fetch_or_nbi(&f, w.get() + 1, b, 0);
  shmem_atomic_xor(ctx, w.get() + 1, b, 0);
  f = shmem_atomic_fetch_xor(ctx, w.get() + 1, b, 0);
  shmem_quiet();
  shmem_ctx_quiet(ctx);
  barrier();
  EXPECT_EQ(shmem_atomic_fetch(w.get(), 0), T{});
  EXPECT_EQ(shmem_atomic_fetch(w.get() + 1, 0), static_cast<T>(~T{}));
  EXPECT_EQ(shmem_atomic_fetch(w.get() + 2, 0), T{});
  barrier();
}

template <class T>
void cxx_sync() {
  constexpr size_t K = 3;
  Sym<T> v(K);
  if (!v.ok()) return;
  barrier();
  EXPECT_EQ(shmem_test(v.get(), SHMEM_CMP_EQ, T{}), 1);
  EXPECT_EQ(shmem_test_any(v.get(), K, nullptr, SHMEM_CMP_NE, T{}), SIZE_MAX);
  EXPECT_EQ(shmem_test_all(v.get(), K, nullptr, SHMEM_CMP_EQ, T{}), 1);
  size_t idx[K];
  EXPECT_EQ(shmem_test_some(v.get(), K, idx, nullptr, SHMEM_CMP_NE, T{}), 0u);
  T refs[K] = {T{1}, T{2}, T{3}};
  EXPECT_EQ(shmem_test_all_vector(v.get(), K, nullptr, SHMEM_CMP_LT, refs), 1);
  EXPECT_EQ(shmem_test_any_vector(v.get(), K, nullptr, SHMEM_CMP_GE, refs), SIZE_MAX);
  EXPECT_EQ(shmem_test_some_vector(v.get(), K, idx, nullptr, SHMEM_CMP_EQ, refs), 0u);
  barrier();
  for (size_t k = 0; k < K; ++k) shmem_p(v.get() + k, refs[k], right());
  shmem_wait_until(v.get() + 2, SHMEM_CMP_EQ, T{3});
  shmem_wait_until_all(v.get(), K, nullptr, SHMEM_CMP_GT, T{});
  shmem_wait_until_all_vector(v.get(), K, nullptr, SHMEM_CMP_EQ, refs);
  EXPECT_EQ(shmem_wait_until_any(v.get(), K, nullptr, SHMEM_CMP_EQ, T{2}), 1u);
  EXPECT_EQ(shmem_wait_until_any_vector(v.get(), K, nullptr, SHMEM_CMP_EQ, refs) < K, true);
  EXPECT_EQ(shmem_wait_until_some(v.get(), K, idx, nullptr, SHMEM_CMP_GE, T{2}), 2u);
  EXPECT_EQ(shmem_wait_until_some_vector(v.get(), K, idx, nullptr, SHMEM_CMP_LE, refs), K);
  barrier();
}

}  // namespace

#define CXX_RMA_TEST(TYPE, NAME)                     \
  TEST(GenericCxxRma, NAME) {                        \
    Ctx ctx;                                         \
    if (ctx.ok()) cxx_rma<TYPE>(ctx.get());          \
    cxx_rma<TYPE>(SHMEM_CTX_DEFAULT);                \
  }
SHMEMI_RMA_GENERIC(CXX_RMA_TEST)
#undef CXX_RMA_TEST

#define CXX_EXT_TEST(TYPE, NAME)                                              \
  TEST(GenericCxxAmoExtended, NAME) {                                         \
    Ctx ctx(SHMEM_CTX_PRIVATE);                                               \
    if (ctx.ok()) cxx_amo_ext<TYPE>(ctx.get());                               \
  }
SHMEMI_AMO_EXT_GENERIC(CXX_EXT_TEST)
#undef CXX_EXT_TEST

#define CXX_AMO_TEST(TYPE, NAME)                                              \
  TEST(GenericCxxAmo, NAME) {                                                 \
    Ctx ctx;                                                                  \
    if (ctx.ok()) cxx_amo<TYPE>(ctx.get());                                   \
  }
SHMEMI_AMO_GENERIC(CXX_AMO_TEST)
#undef CXX_AMO_TEST

#define CXX_BIT_TEST(TYPE, NAME)                                              \
  TEST(GenericCxxAmoBitwise, NAME) {                                          \
    Ctx ctx;                                                                  \
    if (ctx.ok()) cxx_amo_bit<TYPE>(ctx.get());                               \
  }
SHMEMI_AMO_BIT_GENERIC(CXX_BIT_TEST)
#undef CXX_BIT_TEST

#define CXX_SYNC_TEST(TYPE, NAME) \
  TEST(GenericCxxSync, NAME) { cxx_sync<TYPE>(); }
SHMEMI_SYNC_GENERIC(CXX_SYNC_TEST)
#undef CXX_SYNC_TEST

TEST(GenericCxx, OverloadsResolveFixedWidthTypedefs) {
  // int64_t, uint32_t, size_t, ptrdiff_t pick the overloads of their
  // underlying types; the results are the same as the typed calls'.
  Sym<int64_t> a(1);
  Sym<uint32_t> b(1);
  Sym<size_t> c(1);
  Sym<ptrdiff_t> d(1);
  if (!a.ok() || !b.ok() || !c.ok() || !d.ok()) return;
  barrier();
  shmem_atomic_add(a.get(), int64_t{1} << 40, 0);
  shmem_atomic_or(b.get(), uint32_t{1} << (31 - me()), 0);
  shmem_atomic_fetch_add(c.get(), size_t{3}, 0);
  shmem_p(d.get(), ptrdiff_t{-1} - me(), right());
  barrier();
  EXPECT_EQ(shmem_int64_atomic_fetch(a.get(), 0), static_cast<int64_t>(npes()) << 40);
  uint32_t bits = 0;
  for (int pe = 0; pe < npes(); ++pe) bits |= uint32_t{1} << (31 - pe);
  EXPECT_EQ(shmem_uint32_atomic_fetch(b.get(), 0), bits);
  EXPECT_EQ(shmem_size_atomic_fetch(c.get(), 0), size_t{3} * npes());
  EXPECT_EQ(d[0], ptrdiff_t{-1} - left());
  barrier();
}

// shmem_sync(team) overloads the deprecated active-set shmem_sync.
TEST(GenericCxx, SyncWithTeamOrActiveSet) {
  static int ring;
  static long psync[SHMEM_SYNC_SIZE];
  ring = -1;
  barrier();
  shmem_p(&ring, 300 + me(), right());
  shmem_quiet();
  EXPECT_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
  EXPECT_EQ(ring, 300 + left());
  EXPECT_NE(shmem_sync(SHMEM_TEAM_INVALID), 0);
  shmem_sync(SHMEM_TEAM_WORLD);
  shmem_p(&ring, 400 + me(), right());
  shmem_quiet();
  shmem_sync(0, 0, npes(), psync);
  EXPECT_EQ(ring, 400 + left());
  barrier();
}

// The deprecated generic AMO names resolve to the typed deprecated calls.
template <class T>
void cxx_deprecated_amo() {
  Sym<T> w(3);
  if (!w.ok()) return;
  const int n = npes();
  barrier();
  if constexpr (std::is_integral_v<T>) {
    shmem_add(&w[0], T(me() + 1), 0);
    EXPECT_LT(shmem_fadd(&w[1], T(2), 0), T(2 * n));
    shmem_inc(&w[2], 0);
    EXPECT_LE(shmem_finc(&w[2], 0), T(2 * n));
    barrier();
    if (me() == 0) {
      EXPECT_EQ(w[0], T(n * (n + 1) / 2));
      EXPECT_EQ(w[1], T(2 * n));
      EXPECT_EQ(w[2], T(2 * n));
    }
    barrier();
    T old = shmem_cswap(&w[1], T(2 * n), T(-1), 0);
    EXPECT_TRUE(old == T(2 * n) || old == T(-1)) << show(old);
    barrier();
    if (me() == 0) {
      EXPECT_EQ(w[1], T(-1));
    }
  }
  barrier();
  shmem_set(&w[0], T(10 + me()), right());
  barrier();
  EXPECT_EQ(shmem_fetch(&w[0], me()), T(10 + left()));
  barrier();
  EXPECT_EQ(shmem_swap(&w[0], T(20 + me()), right()), T(10 + me()));
  barrier();
  EXPECT_EQ(w[0], T(20 + left()));
  barrier();
}

TEST(GenericCxx, DeprecatedAmoNames) {
  cxx_deprecated_amo<int>();
  cxx_deprecated_amo<long>();
  cxx_deprecated_amo<long long>();
  cxx_deprecated_amo<float>();
  cxx_deprecated_amo<double>();
}

// ---- collectives: the team forms of broadcast, collect, fcollect, alltoall(s) ---------

namespace {

template <class T>
void cxx_collectives() {
  constexpr size_t N = 5, E = 3;
  constexpr size_t kDst = 3, kSst = 2;  // element strides of alltoalls
  const int n = npes(), self = me(), root = n / 2;
  const size_t un = static_cast<size_t>(n);
  const size_t m = un * (un + 1) / 2 + un * E * 3 + N;
  Sym<T> src(m), dst(m);
  if (!src.ok() || !dst.ok()) return;
  auto clear = [&] {
    for (size_t i = 0; i < m; ++i) dst[i] = T{};
  };
  // broadcast from the middle PE; the root's dest is written too
  for (size_t i = 0; i < N; ++i) src[i] = value<T>(self, i, 1);
  barrier();
  EXPECT_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, dst.get(), src.get(), N, root), 0);
  EXPECT_TRUE(all_equal(dst.get(), N, [&](size_t i) { return value<T>(root, i, 1); })) << "shmem_broadcast";
  EXPECT_EQ(dst[N], T{}) << "shmem_broadcast writes nelems elements only";
  barrier();
  // collect: PE p gives 1 + p elements, in PE order
  clear();
  for (size_t i = 0; i <= static_cast<size_t>(self); ++i) src[i] = value<T>(self, i, 2);
  barrier();
  EXPECT_EQ(shmem_collect(SHMEM_TEAM_WORLD, dst.get(), src.get(), static_cast<size_t>(self) + 1), 0);
  for (int p = 0; p < n; ++p) {
    const size_t at = static_cast<size_t>(p) * (p + 1) / 2;
    EXPECT_TRUE(all_equal(dst.get() + at, static_cast<size_t>(p) + 1, [&](size_t i) { return value<T>(p, i, 2); }))
        << "shmem_collect, the part of PE " << p;
  }
  EXPECT_EQ(dst[un * (un + 1) / 2], T{}) << "shmem_collect writes the total only";
  barrier();
  // fcollect: N from each PE
  clear();
  for (size_t i = 0; i < N; ++i) src[i] = value<T>(self, i, 3);
  barrier();
  EXPECT_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, dst.get(), src.get(), N), 0);
  EXPECT_TRUE(all_equal(dst.get(), un * N, [&](size_t i) { return value<T>(static_cast<int>(i / N), i % N, 3); }))
      << "shmem_fcollect";
  barrier();
  // alltoall: block j of PE p's source lands in block p of PE j's dest
  clear();
  for (size_t i = 0; i < un * E; ++i) src[i] = value<T>(self, i, 4);
  barrier();
  EXPECT_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, dst.get(), src.get(), E), 0);
  EXPECT_TRUE(all_equal(dst.get(), un * E, [&](size_t i) {
    return value<T>(static_cast<int>(i / E), static_cast<size_t>(self) * E + i % E, 4);
  })) << "shmem_alltoall";
  barrier();
  // alltoalls: the same exchange through every kSst-th source and kDst-th dest element
  clear();
  for (size_t i = 0; i < m; ++i) src[i] = value<T>(self, i, 6);
  for (size_t i = 0; i < un * E; ++i) src[i * kSst] = value<T>(self, i, 5);
  barrier();
  EXPECT_EQ(shmem_alltoalls(SHMEM_TEAM_WORLD, dst.get(), src.get(), kDst, kSst, E), 0);
  EXPECT_TRUE(all_equal(dst.get(), un * E * kDst, [&](size_t i) {
    if (i % kDst != 0) return T{};
    const size_t j = i / kDst;  // element j of the dest's dense view
    return value<T>(static_cast<int>(j / E), static_cast<size_t>(self) * E + j % E, 5);
  })) << "shmem_alltoalls";
  EXPECT_NE(shmem_fcollect(SHMEM_TEAM_INVALID, dst.get(), src.get(), N), 0);
  barrier();
}

template <class T>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<std::complex<T>> : std::true_type {};

// Small integers (Gaussian integers for the complex types): every fold is exact in any order.
template <class T>
T sum_value(int pe, size_t k) {
  const int kk = static_cast<int>(k);
  if constexpr (IsComplex<T>::value) return T(pe + 1 + kk, kk - pe);
  else return static_cast<T>(pe + 1 + kk);
}
template <class T>
T prod_value(int pe, size_t k) {
  const bool step = (pe + static_cast<int>(k)) % 2 == 1;
  if constexpr (IsComplex<T>::value) return step ? T(1, 1) : T(1, 0);
  else return static_cast<T>(step ? 2 : 1);
}
template <class T>
T minmax_value(int pe, size_t k) {
  return static_cast<T>((pe * 29 + static_cast<int>(k) * 13) % 19 - 9);
}
template <class T>
T bit_value(int pe, size_t k, int salt) {
  // one bit per PE, or two neighbouring ones for xor; fits any 8-bit type
  const int bit = (pe + static_cast<int>(k)) % 7;
  if (salt == 0) return static_cast<T>(~(T{1} << bit));
  if (salt == 1) return static_cast<T>(T{1} << bit);
  return static_cast<T>(T{3} << bit);
}

/// The fold over every PE of f(pe, k), for k < K.
template <class T, class F, class Op>
std::vector<T> fold(size_t K, T init, F f, Op op) {
  std::vector<T> r(K, init);
  for (size_t k = 0; k < K; ++k)
    for (int p = 0; p < npes(); ++p) r[k] = op(r[k], f(p, k));
  return r;
}

template <class T>
void cxx_reduce_bitwise() {
  constexpr size_t K = 6;
  Sym<T> src(3 * K), dst(3 * K);
  if (!src.ok() || !dst.ok()) return;
  for (size_t k = 0; k < K; ++k)
    for (int s = 0; s < 3; ++s) src[s * K + k] = bit_value<T>(me(), k, s);
  barrier();
  EXPECT_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, dst.get(), src.get(), K), 0);
  EXPECT_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, dst.get() + K, src.get() + K, K), 0);
  EXPECT_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst.get() + 2 * K, src.get() + 2 * K, K), 0);
  auto all_and = fold<T>(K, static_cast<T>(~T{}), [](int p, size_t k) { return bit_value<T>(p, k, 0); },
                         [](T a, T b) { return static_cast<T>(a & b); });
  auto all_or = fold<T>(K, T{}, [](int p, size_t k) { return bit_value<T>(p, k, 1); },
                        [](T a, T b) { return static_cast<T>(a | b); });
  auto all_xor = fold<T>(K, T{}, [](int p, size_t k) { return bit_value<T>(p, k, 2); },
                         [](T a, T b) { return static_cast<T>(a ^ b); });
  EXPECT_TRUE(all_equal(dst.get(), K, [&](size_t k) { return all_and[k]; })) << "shmem_and_reduce";
  EXPECT_TRUE(all_equal(dst.get() + K, K, [&](size_t k) { return all_or[k]; })) << "shmem_or_reduce";
  EXPECT_TRUE(all_equal(dst.get() + 2 * K, K, [&](size_t k) { return all_xor[k]; })) << "shmem_xor_reduce";
  barrier();
}

template <class T>
void cxx_reduce_minmax() {
  constexpr size_t K = 7;
  Sym<T> src(K), dst(2 * K);
  if (!src.ok() || !dst.ok()) return;
  for (size_t k = 0; k < K; ++k) src[k] = minmax_value<T>(me(), k);
  barrier();
  EXPECT_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dst.get(), src.get(), K), 0);
  EXPECT_EQ(shmem_min_reduce(SHMEM_TEAM_WORLD, dst.get() + K, src.get(), K), 0);
  // every value lies in -9..9
  auto hi = fold<T>(K, static_cast<T>(-100), minmax_value<T>, [](T a, T b) { return std::max(a, b); });
  auto lo = fold<T>(K, static_cast<T>(100), minmax_value<T>, [](T a, T b) { return std::min(a, b); });
  EXPECT_TRUE(all_equal(dst.get(), K, [&](size_t k) { return hi[k]; })) << "shmem_max_reduce";
  EXPECT_TRUE(all_equal(dst.get() + K, K, [&](size_t k) { return lo[k]; })) << "shmem_min_reduce";
  barrier();
}

template <class T>
void cxx_reduce_arith() {
  constexpr size_t K = 5;
  Sym<T> src(2 * K), dst(2 * K), inplace(K);
  if (!src.ok() || !dst.ok() || !inplace.ok()) return;
  for (size_t k = 0; k < K; ++k) {
    src[k] = sum_value<T>(me(), k);
    src[K + k] = prod_value<T>(me(), k);
    inplace[k] = sum_value<T>(me(), k);
  }
  barrier();
  EXPECT_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst.get(), src.get(), K), 0);
  EXPECT_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst.get() + K, src.get() + K, K), 0);
  EXPECT_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, inplace.get(), inplace.get(), K), 0) << "in place";
  auto sum = fold<T>(K, T{}, sum_value<T>, [](T a, T b) { return a + b; });
  auto prod = fold<T>(K, T{1}, prod_value<T>, [](T a, T b) { return a * b; });
  for (size_t k = 0; k < K; ++k) {
    EXPECT_TRUE(dst[k] == sum[k]) << "shmem_sum_reduce [" << k << "] on PE " << me();
    EXPECT_TRUE(dst[K + k] == prod[k]) << "shmem_prod_reduce [" << k << "] on PE " << me();
    EXPECT_TRUE(inplace[k] == sum[k]) << "shmem_sum_reduce in place [" << k << "] on PE " << me();
  }
  barrier();
}

}  // namespace

TEST(GenericCxxCollectives, UnsignedChar) { cxx_collectives<unsigned char>(); }
TEST(GenericCxxCollectives, Long) { cxx_collectives<long>(); }
TEST(GenericCxxCollectives, Float) { cxx_collectives<float>(); }

// signed char and int are the int8 and int32 rows of the bitwise reductions
TEST(GenericCxxReduce, BitwiseUnsignedChar) { cxx_reduce_bitwise<unsigned char>(); }
TEST(GenericCxxReduce, BitwiseSignedChar) { cxx_reduce_bitwise<signed char>(); }
TEST(GenericCxxReduce, BitwiseInt) { cxx_reduce_bitwise<int>(); }
TEST(GenericCxxReduce, BitwiseUnsignedLongLong) { cxx_reduce_bitwise<unsigned long long>(); }
TEST(GenericCxxReduce, MinMaxShort) { cxx_reduce_minmax<short>(); }
TEST(GenericCxxReduce, MinMaxChar) { cxx_reduce_minmax<char>(); }
TEST(GenericCxxReduce, MinMaxLongDouble) { cxx_reduce_minmax<long double>(); }
TEST(GenericCxxReduce, SumProdUnsignedLong) { cxx_reduce_arith<unsigned long>(); }
TEST(GenericCxxReduce, SumProdFloat) { cxx_reduce_arith<float>(); }
TEST(GenericCxxReduce, SumProdComplexDouble) { cxx_reduce_arith<std::complex<double>>(); }
TEST(GenericCxxReduce, SumProdComplexFloat) { cxx_reduce_arith<std::complex<float>>(); }

// shmem_global_exit is [[noreturn]]: no return statement needed here (the
// program is compiled with -Werror=return-type). Never called.
[[maybe_unused]] static int cxx_exit_without_return(int status) { shmem_global_exit(status); }
