// Deprecated interfaces that OpenSHMEM 1.5 still requires (Annex F):
// start_pes, _my_pe, _num_pes, shmalloc, shfree, shrealloc, shmemalign, the
// pre-1.4 AMO names (shmem_TYPE_cswap/finc/inc/fadd/add/fetch/set/swap),
// shmem_TYPE_wait, shmem_wait, the untyped shmem_wait_until, the cache
// management routines and the _SHMEM_* constants.
//
// This program starts OpenSHMEM with start_pes(0) in its own main, and, as
// start_pes programs may, never calls shmem_finalize: the library finalizes
// at exit.
#include <cstring>

#include "pe_report.hpp"
#include "api_test.hpp"

using namespace api;

extern "C" void deprecated_c_wait_until(long* ivar, int cmp, long value);
extern "C" void deprecated_c_wait(long* ivar, long value);

namespace {
long g_flag;
}

TEST(Deprecated, StartPesInitialized) {
  EXPECT_EQ(_my_pe(), shmem_my_pe());
  EXPECT_EQ(_num_pes(), shmem_n_pes());
  EXPECT_GE(_num_pes(), 1);
  EXPECT_LT(_my_pe(), _num_pes());
  // A second start_pes is a no-op.
  start_pes(0);
  start_pes(_num_pes() + 3);  // the argument is ignored
  EXPECT_EQ(_num_pes(), shmem_n_pes());
  EXPECT_EQ(_my_pe(), shmem_my_pe());
  barrier();
}

TEST(Deprecated, Constants) {
  EXPECT_EQ(_SHMEM_MAJOR_VERSION, SHMEM_MAJOR_VERSION);
  EXPECT_EQ(_SHMEM_MINOR_VERSION, SHMEM_MINOR_VERSION);
  EXPECT_EQ(_SHMEM_MAX_NAME_LEN, SHMEM_MAX_NAME_LEN);
  EXPECT_STREQ(_SHMEM_VENDOR_STRING, SHMEM_VENDOR_STRING);
  EXPECT_EQ(_SHMEM_SYNC_VALUE, SHMEM_SYNC_VALUE);
  EXPECT_EQ(_SHMEM_BARRIER_SYNC_SIZE, SHMEM_BARRIER_SYNC_SIZE);
  EXPECT_EQ(_SHMEM_BCAST_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE);
  EXPECT_EQ(_SHMEM_REDUCE_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE);
  EXPECT_EQ(_SHMEM_COLLECT_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE);
  EXPECT_EQ(_SHMEM_ALLTOALL_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE);
  EXPECT_EQ(_SHMEM_ALLTOALLS_SYNC_SIZE, SHMEM_ALLTOALLS_SYNC_SIZE);
  EXPECT_EQ(_SHMEM_REDUCE_MIN_WRKDATA_SIZE, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
  EXPECT_EQ(_SHMEM_CMP_EQ, SHMEM_CMP_EQ);
  EXPECT_EQ(_SHMEM_CMP_NE, SHMEM_CMP_NE);
  EXPECT_EQ(_SHMEM_CMP_GT, SHMEM_CMP_GT);
  EXPECT_EQ(_SHMEM_CMP_GE, SHMEM_CMP_GE);
  EXPECT_EQ(_SHMEM_CMP_LT, SHMEM_CMP_LT);
  EXPECT_EQ(_SHMEM_CMP_LE, SHMEM_CMP_LE);
}

TEST(Deprecated, ShmallocFamily) {
  long* p = static_cast<long*>(shmalloc(100 * sizeof(long)));
  EXPECT_NE(p, nullptr);
  void* aligned = shmemalign(4096, 64);
  EXPECT_NE(aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 4096, 0u);
  if (p) {
    for (int i = 0; i < 100; ++i) p[i] = value<long>(me(), i, 1);
    long* q = static_cast<long*>(shrealloc(p, 5000 * sizeof(long)));
    EXPECT_NE(q, nullptr);
    if (q) {
      p = q;
      EXPECT_TRUE(all_equal(p, 100, [](size_t i) { return value<long>(me(), i, 1); }));
      barrier();
      std::vector<long> got(100);
      shmem_long_get(got.data(), p, 100, right());
      EXPECT_TRUE(all_equal(got.data(), 100, [](size_t i) { return value<long>(right(), i, 1); }));
      barrier();
    }
  }
  shfree(aligned);
  shfree(p);
}

namespace {

#define OLD_AMO_TRAITS(TYPE, NAME)                   \
  struct Old_##NAME {                                \
    using T = TYPE;                                  \
    static constexpr auto cswap = shmem_##NAME##_cswap; \
    static constexpr auto finc = shmem_##NAME##_finc;   \
    static constexpr auto inc = shmem_##NAME##_inc;     \
    static constexpr auto fadd = shmem_##NAME##_fadd;   \
    static constexpr auto add = shmem_##NAME##_add;     \
    static constexpr auto fetch = shmem_##NAME##_fetch; \
    static constexpr auto set = shmem_##NAME##_set;     \
    static constexpr auto swap = shmem_##NAME##_swap;   \
  };
SHMEMI_OLD_AMO_TYPES(OLD_AMO_TRAITS)
#undef OLD_AMO_TRAITS

#define OLD_EXT_TRAITS(TYPE, NAME)                   \
  struct OldExt_##NAME {                             \
    using T = TYPE;                                  \
    static constexpr auto fetch = shmem_##NAME##_fetch; \
    static constexpr auto set = shmem_##NAME##_set;     \
    static constexpr auto swap = shmem_##NAME##_swap;   \
  };
SHMEMI_OLD_AMO_EXT_TYPES(OLD_EXT_TRAITS)
#undef OLD_EXT_TRAITS

template <class Tr>
void old_amo() {
  using T = typename Tr::T;
  const int n = npes();
  Sym<T> c(1), y(1);
  if (!c.ok() || !y.ok()) return;
  barrier();
  // finc, inc, fadd, add, all to PE 0, one phase at a time.
  T f = Tr::finc(c.get(), 0);
  EXPECT_GE(f, T{0});
  EXPECT_LT(f, static_cast<T>(n)) << "finc fetches one of 0..n-1";
  barrier();
  Tr::inc(c.get(), 0);
  barrier();
  T g = Tr::fadd(c.get(), static_cast<T>(10), 0);
  EXPECT_GE(g, static_cast<T>(2 * n));
  EXPECT_LT(g, static_cast<T>(2 * n + 10 * n));
  EXPECT_EQ((g - static_cast<T>(2 * n)) % 10, T{0}) << "fadd fetches 2n + 10k";
  barrier();
  Tr::add(c.get(), static_cast<T>(me()), 0);
  barrier();
  EXPECT_EQ(Tr::fetch(c.get(), 0), static_cast<T>(12L * n + static_cast<long>(n) * (n - 1) / 2));
  barrier();
  // set, swap, cswap, ring.
  Tr::set(y.get(), static_cast<T>(100 + me()), right());
  barrier();
  EXPECT_EQ(y[0], static_cast<T>(100 + left()));
  barrier();
  EXPECT_EQ(Tr::swap(y.get(), static_cast<T>(200 + me()), right()), static_cast<T>(100 + me()));
  barrier();
  EXPECT_EQ(y[0], static_cast<T>(200 + left()));
  barrier();
  EXPECT_EQ(Tr::cswap(y.get(), static_cast<T>(999), static_cast<T>(1), right()), static_cast<T>(200 + me()))
      << "no match: unchanged";
  EXPECT_EQ(Tr::cswap(y.get(), static_cast<T>(200 + me()), static_cast<T>(300 + me()), right()),
            static_cast<T>(200 + me()));
  barrier();
  EXPECT_EQ(y[0], static_cast<T>(300 + left()));
  barrier();
}

template <class Tr>
void old_ext() {
  using T = typename Tr::T;
  Sym<T> y(1);
  if (!y.ok()) return;
  barrier();
  const T v = static_cast<T>(me()) + static_cast<T>(0.5);
  Tr::set(y.get(), v, right());
  barrier();
  EXPECT_EQ(y[0], static_cast<T>(left()) + static_cast<T>(0.5));
  EXPECT_EQ(Tr::fetch(y.get(), right()), v);
  barrier();
  EXPECT_EQ(Tr::swap(y.get(), static_cast<T>(-1), right()), v);
  barrier();
  EXPECT_EQ(y[0], static_cast<T>(-1));
  barrier();
}

}  // namespace

#define OLD_AMO_TEST(TYPE, NAME) \
  TEST(DeprecatedAmo, NAME) { old_amo<Old_##NAME>(); }
SHMEMI_OLD_AMO_TYPES(OLD_AMO_TEST)
#undef OLD_AMO_TEST

#define OLD_EXT_TEST(TYPE, NAME) \
  TEST(DeprecatedAmoExtended, NAME) { old_ext<OldExt_##NAME>(); }
SHMEMI_OLD_AMO_EXT_TYPES(OLD_EXT_TEST)
#undef OLD_EXT_TEST

// ---- shmem_TYPE_wait: waits while *ivar == cmp_value --------------------------------------

namespace {

#define WAIT_TRAITS(TYPE, NAME)                    \
  struct Wait_##NAME {                             \
    using T = TYPE;                                \
    static constexpr auto wait = shmem_##NAME##_wait; \
    static constexpr auto p = shmem_##NAME##_p;       \
  };
SHMEMI_SYNC_TYPES(WAIT_TRAITS)
#undef WAIT_TRAITS

template <class Tr>
void old_wait() {
  using T = typename Tr::T;
  Sym<T> ivar(1);
  if (!ivar.ok()) return;
  ivar[0] = static_cast<T>(5);
  barrier();
  Tr::wait(ivar.get(), static_cast<T>(4));  // already different: returns at once
  barrier();
  Tr::p(ivar.get(), static_cast<T>(6), right());
  Tr::wait(ivar.get(), static_cast<T>(5));
  EXPECT_EQ(ivar[0], static_cast<T>(6));
  barrier();
}

}  // namespace

#define OLD_WAIT_TEST(TYPE, NAME) \
  TEST(DeprecatedWait, NAME) { old_wait<Wait_##NAME>(); }
SHMEMI_SYNC_TYPES(OLD_WAIT_TEST)
#undef OLD_WAIT_TEST

TEST(DeprecatedWait, UntypedWaitAndWaitUntil) {
  g_flag = 0;
  barrier();
  shmem_long_p(&g_flag, 1, right());
  deprecated_c_wait(&g_flag, 0);
  EXPECT_EQ(g_flag, 1);
  barrier();
  shmem_long_p(&g_flag, 20, right());
  deprecated_c_wait_until(&g_flag, SHMEM_CMP_GE, 20);
  EXPECT_EQ(g_flag, 20);
  barrier();
  shmem_long_p(&g_flag, 3, right());
  shmem_wait(&g_flag, 20);
  EXPECT_EQ(g_flag, 3);
  barrier();
}

TEST(Deprecated, CacheManagementRoutinesAreCallable) {
  static long line;
  shmem_set_cache_inv();
  shmem_set_cache_line_inv(&line);
  shmem_clear_cache_inv();
  shmem_clear_cache_line_inv(&line);
  shmem_udcflush();
  shmem_udcflush_line(&line);
  // Memory stays coherent: a put is visible without any cache call.
  line = 0;
  barrier();
  shmem_long_p(&line, 77 + me(), right());
  barrier();
  EXPECT_EQ(line, 77 + left());
  barrier();
}

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  start_pes(0);
  return run_all_tests_as_pe();
  // No shmem_finalize: a start_pes program is finalized at exit.
}
