// Atomic memory operations (OpenSHMEM 1.5 section 9.7) for every type of the
// standard, extended and bitwise AMO tables: fetch, set, swap, compare_swap,
// inc, fetch_inc, add, fetch_add, and/or/xor and their fetch forms, the
// fetching _nbi forms, each without a context, with SHMEM_CTX_DEFAULT and
// with a created context.
#include <algorithm>
#include <limits>
#include <numeric>

#include "api_test.hpp"

using namespace api;

namespace {

// ---- traits: one struct per row of each AMO table ---------------------------------

#define AMO_EXT_TRAITS(TYPE, NAME)                                            \
  struct Ext_##NAME {                                                         \
    using T = TYPE;                                                           \
    static constexpr auto fetch = shmem_##NAME##_atomic_fetch;                \
    static constexpr auto fetch_nbi = shmem_##NAME##_atomic_fetch_nbi;        \
    static constexpr auto set = shmem_##NAME##_atomic_set;                    \
    static constexpr auto swap = shmem_##NAME##_atomic_swap;                  \
    static constexpr auto swap_nbi = shmem_##NAME##_atomic_swap_nbi;          \
    static constexpr auto ctx_fetch = shmem_ctx_##NAME##_atomic_fetch;        \
    static constexpr auto ctx_fetch_nbi = shmem_ctx_##NAME##_atomic_fetch_nbi; \
    static constexpr auto ctx_set = shmem_ctx_##NAME##_atomic_set;            \
    static constexpr auto ctx_swap = shmem_ctx_##NAME##_atomic_swap;          \
    static constexpr auto ctx_swap_nbi = shmem_ctx_##NAME##_atomic_swap_nbi;  \
    static constexpr auto p = shmem_##NAME##_p;                               \
  };
SHMEMI_AMO_EXT_TYPES(AMO_EXT_TRAITS)
#undef AMO_EXT_TRAITS

#define AMO_TRAITS(TYPE, NAME)                                                         \
  struct Amo_##NAME {                                                                  \
    using T = TYPE;                                                                    \
    using Ext = Ext_##NAME;                                                            \
    static constexpr auto compare_swap = shmem_##NAME##_atomic_compare_swap;           \
    static constexpr auto compare_swap_nbi = shmem_##NAME##_atomic_compare_swap_nbi;   \
    static constexpr auto fetch_inc = shmem_##NAME##_atomic_fetch_inc;                 \
    static constexpr auto fetch_inc_nbi = shmem_##NAME##_atomic_fetch_inc_nbi;         \
    static constexpr auto inc = shmem_##NAME##_atomic_inc;                             \
    static constexpr auto fetch_add = shmem_##NAME##_atomic_fetch_add;                 \
    static constexpr auto fetch_add_nbi = shmem_##NAME##_atomic_fetch_add_nbi;         \
    static constexpr auto add = shmem_##NAME##_atomic_add;                             \
    static constexpr auto ctx_compare_swap = shmem_ctx_##NAME##_atomic_compare_swap;   \
    static constexpr auto ctx_compare_swap_nbi = shmem_ctx_##NAME##_atomic_compare_swap_nbi; \
    static constexpr auto ctx_fetch_inc = shmem_ctx_##NAME##_atomic_fetch_inc;         \
    static constexpr auto ctx_fetch_inc_nbi = shmem_ctx_##NAME##_atomic_fetch_inc_nbi; \
    static constexpr auto ctx_inc = shmem_ctx_##NAME##_atomic_inc;                     \
    static constexpr auto ctx_fetch_add = shmem_ctx_##NAME##_atomic_fetch_add;         \
    static constexpr auto ctx_fetch_add_nbi = shmem_ctx_##NAME##_atomic_fetch_add_nbi; \
    static constexpr auto ctx_add = shmem_ctx_##NAME##_atomic_add;                     \
  };
SHMEMI_AMO_TYPES(AMO_TRAITS)
#undef AMO_TRAITS

#define AMO_BIT_OP_MEMBERS(NAME, OP)                                                     \
  static constexpr auto fetch_##OP = shmem_##NAME##_atomic_fetch_##OP;                   \
  static constexpr auto fetch_##OP##_nbi = shmem_##NAME##_atomic_fetch_##OP##_nbi;       \
  static constexpr auto OP##_op = shmem_##NAME##_atomic_##OP;                           \
  static constexpr auto ctx_fetch_##OP = shmem_ctx_##NAME##_atomic_fetch_##OP;           \
  static constexpr auto ctx_fetch_##OP##_nbi = shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi; \
  static constexpr auto ctx_##OP##_op = shmem_ctx_##NAME##_atomic_##OP;
#define AMO_BIT_TRAITS(TYPE, NAME) \
  struct Bit_##NAME {              \
    using T = TYPE;                \
    using Ext = Ext_##NAME;        \
    AMO_BIT_OP_MEMBERS(NAME, and)  \
    AMO_BIT_OP_MEMBERS(NAME, or)   \
    AMO_BIT_OP_MEMBERS(NAME, xor)  \
  };
SHMEMI_AMO_BIT_TYPES(AMO_BIT_TRAITS)
#undef AMO_BIT_TRAITS
#undef AMO_BIT_OP_MEMBERS

// A context argument: INVALID stands for "the form without a context".
struct Via {
  shmem_ctx_t ctx;
  bool plain() const { return ctx == SHMEM_CTX_INVALID; }
  void quiet() const { plain() ? shmem_quiet() : shmem_ctx_quiet(ctx); }
  std::string name() const {
    return plain() ? " [no ctx]" : ctx == SHMEM_CTX_DEFAULT ? " [SHMEM_CTX_DEFAULT]" : " [created ctx]";
  }
};

// Calls the plain or the ctx_ form of a traits member.
#define CALL(V, TR, FN, ...) ((V).plain() ? TR::FN(__VA_ARGS__) : TR::ctx_##FN((V).ctx, __VA_ARGS__))

// Runs `body(via)` without a context, with SHMEM_CTX_DEFAULT and with a
// created private context.
template <class Body>
void with_every_context(Body body) {
  body(Via{SHMEM_CTX_INVALID});
  body(Via{SHMEM_CTX_DEFAULT});
  Ctx ctx(SHMEM_CTX_PRIVATE);
  if (ctx.ok()) body(Via{ctx.get()});
}

// Small integer k as T (exact in every AMO type, floating point included).
template <class T>
T num(long k) {
  return static_cast<T>(k);
}

// ---- extended AMOs: fetch, set, swap ----------------------------------------------

template <class Tr>
void ext_sequence(Via v) {
  using T = typename Tr::T;
  const int n = npes(), self = me(), l = left(), r = right();
  const std::string where = v.name();
  Sym<T> x(1), chain(1), olds(n);
  if (!x.ok() || !chain.ok() || !olds.ok()) return;
  barrier();

  // set: ring.
  CALL(v, Tr, set, x.get(), value<T>(self, 0, 1), r);
  v.quiet();
  barrier();
  EXPECT_EQ(x[0], value<T>(l, 0, 1)) << "atomic_set" << where;

  // fetch: the right neighbour's x holds what I set there.
  EXPECT_EQ(CALL(v, Tr, fetch, x.get(), r), value<T>(self, 0, 1)) << "atomic_fetch" << where;
  EXPECT_EQ(CALL(v, Tr, fetch, x.get(), self), value<T>(l, 0, 1)) << "atomic_fetch from self" << where;

  // fetch_nbi, completed by quiet.
  T f = T{};
  CALL(v, Tr, fetch_nbi, &f, x.get(), r);
  v.quiet();
  EXPECT_EQ(f, value<T>(self, 0, 1)) << "atomic_fetch_nbi" << where;
  barrier();

  // swap: returns the old value, which I had set.
  T old = CALL(v, Tr, swap, x.get(), value<T>(self, 1, 2), r);
  EXPECT_EQ(old, value<T>(self, 0, 1)) << "atomic_swap return" << where;
  v.quiet();
  barrier();
  EXPECT_EQ(x[0], value<T>(l, 1, 2)) << "atomic_swap" << where;
  barrier();

  // swap_nbi.
  f = T{};
  CALL(v, Tr, swap_nbi, &f, x.get(), value<T>(self, 2, 3), r);
  v.quiet();
  EXPECT_EQ(f, value<T>(self, 1, 2)) << "atomic_swap_nbi fetched" << where;
  barrier();
  EXPECT_EQ(x[0], value<T>(l, 2, 3)) << "atomic_swap_nbi" << where;

  // All-to-one swap chain on PE 0: every PE swaps in its number + 1. The
  // values returned and the final value together are exactly 0..n.
  T mine_old = CALL(v, Tr, swap, chain.get(), num<T>(self + 1), 0);
  Tr::p(olds.get() + self, mine_old, 0);
  v.quiet();
  shmem_quiet();
  barrier();
  if (self == 0) {
    std::vector<long> seen;
    for (int i = 0; i < n; ++i) seen.push_back(static_cast<long>(olds[i]));
    seen.push_back(static_cast<long>(chain[0]));
    std::sort(seen.begin(), seen.end());
    std::vector<long> want(n + 1);
    std::iota(want.begin(), want.end(), 0L);
    EXPECT_EQ(seen, want) << "swap chain" << where;
  }
  barrier();
}

template <class Tr>
void run_ext() {
  with_every_context([](Via v) { ext_sequence<Tr>(v); });
}

// ---- standard AMOs -----------------------------------------------------------------

template <class Tr>
void std_sequence(Via v) {
  using T = typename Tr::T;
  using Ext = typename Tr::Ext;
  const int n = npes(), self = me(), l = left(), r = right();
  const std::string where = v.name();
  constexpr int K = 8;
  Sym<T> counter(1), olds(n * K), y(1), z(1), wins(1);
  if (!counter.ok() || !olds.ok() || !y.ok() || !z.ok() || !wins.ok()) return;
  barrier();

  // fetch_inc, all to PE 0: the n*K values fetched are exactly 0..n*K-1.
  for (int k = 0; k < K; ++k) Ext::p(olds.get() + self * K + k, CALL(v, Tr, fetch_inc, counter.get(), 0), 0);
  shmem_quiet();
  v.quiet();
  barrier();
  if (self == 0) {
    std::vector<long> seen(olds.get(), olds.get() + n * K);
    std::sort(seen.begin(), seen.end());
    std::vector<long> want(n * K);
    std::iota(want.begin(), want.end(), 0L);
    EXPECT_EQ(seen, want) << "atomic_fetch_inc values" << where;
  }
  EXPECT_EQ(Ext::fetch(counter.get(), 0), num<T>(n * K)) << "atomic_fetch_inc total" << where;
  barrier();

  // inc.
  for (int k = 0; k < K; ++k) CALL(v, Tr, inc, counter.get(), 0);
  v.quiet();
  barrier();
  const long base = 2L * n * K;
  EXPECT_EQ(Ext::fetch(counter.get(), 0), num<T>(base)) << "atomic_inc total" << where;
  barrier();

  // fetch_add of me+1: sorted by the value fetched, each PE's add leads to
  // the next fetched value; together they form one chain from `base`.
  T old = CALL(v, Tr, fetch_add, counter.get(), num<T>(self + 1), 0);
  Ext::p(olds.get() + self, old, 0);
  shmem_quiet();
  v.quiet();
  barrier();
  if (self == 0) {
    std::vector<std::pair<long, long>> steps;  // (fetched, added)
    for (int i = 0; i < n; ++i) steps.emplace_back(static_cast<long>(olds[i]), i + 1);
    std::sort(steps.begin(), steps.end());
    long expect = base;
    for (auto& [fetched, added] : steps) {
      EXPECT_EQ(fetched, expect) << "atomic_fetch_add chain" << where;
      expect = fetched + added;
    }
  }
  const long after_fadd = base + static_cast<long>(n) * (n + 1) / 2;
  EXPECT_EQ(Ext::fetch(counter.get(), 0), num<T>(after_fadd)) << "atomic_fetch_add total" << where;
  barrier();

  // add.
  CALL(v, Tr, add, counter.get(), num<T>(3), 0);
  CALL(v, Tr, add, counter.get(), num<T>(self), 0);
  v.quiet();
  barrier();
  const long after_add = after_fadd + 3L * n + static_cast<long>(n) * (n - 1) / 2;
  EXPECT_EQ(Ext::fetch(counter.get(), 0), num<T>(after_add)) << "atomic_add total" << where;
  barrier();

  // fetch_inc_nbi and fetch_add_nbi: ring on y, which starts at 100 + me.
  y[0] = num<T>(100 + self);
  barrier();
  T f = T{};
  CALL(v, Tr, fetch_inc_nbi, &f, y.get(), r);
  v.quiet();
  EXPECT_EQ(f, num<T>(100 + r)) << "atomic_fetch_inc_nbi fetched" << where;
  barrier();
  EXPECT_EQ(y[0], num<T>(101 + self)) << "atomic_fetch_inc_nbi" << where;
  barrier();
  f = T{};
  CALL(v, Tr, fetch_add_nbi, &f, y.get(), num<T>(1000), r);
  v.quiet();
  EXPECT_EQ(f, num<T>(101 + r)) << "atomic_fetch_add_nbi fetched" << where;
  barrier();
  EXPECT_EQ(y[0], num<T>(1101 + self)) << "atomic_fetch_add_nbi" << where;
  barrier();

  // compare_swap that fails: returns the current value, changes nothing.
  T cur = CALL(v, Tr, compare_swap, y.get(), num<T>(7), num<T>(9), r);
  EXPECT_EQ(cur, num<T>(1101 + r)) << "atomic_compare_swap (no match) return" << where;
  v.quiet();
  barrier();
  EXPECT_EQ(y[0], num<T>(1101 + self)) << "atomic_compare_swap (no match) changed the value" << where;
  barrier();

  // compare_swap that succeeds, ring.
  cur = CALL(v, Tr, compare_swap, y.get(), num<T>(1101 + r), num<T>(2000 + self), r);
  EXPECT_EQ(cur, num<T>(1101 + r)) << "atomic_compare_swap (match) return" << where;
  v.quiet();
  barrier();
  EXPECT_EQ(y[0], num<T>(2000 + l)) << "atomic_compare_swap (match)" << where;
  barrier();

  // compare_swap_nbi, matching and then not matching.
  f = T{};
  CALL(v, Tr, compare_swap_nbi, &f, y.get(), num<T>(2000 + self), num<T>(3000 + self), r);
  v.quiet();
  EXPECT_EQ(f, num<T>(2000 + self)) << "atomic_compare_swap_nbi fetched" << where;
  barrier();
  EXPECT_EQ(y[0], num<T>(3000 + l)) << "atomic_compare_swap_nbi" << where;
  barrier();
  f = T{};
  CALL(v, Tr, compare_swap_nbi, &f, y.get(), num<T>(1), num<T>(2), r);
  v.quiet();
  EXPECT_EQ(f, num<T>(3000 + self)) << "atomic_compare_swap_nbi (no match) fetched" << where;
  barrier();
  EXPECT_EQ(y[0], num<T>(3000 + l)) << "atomic_compare_swap_nbi (no match) changed the value" << where;
  barrier();

  // compare_swap contest on PE 0: exactly one PE wins.
  T seen_before = CALL(v, Tr, compare_swap, z.get(), num<T>(0), num<T>(self + 1), 0);
  const bool won = seen_before == num<T>(0);
  if (won) CALL(v, Tr, inc, wins.get(), 0);
  v.quiet();
  barrier();
  T final_z = Ext::fetch(z.get(), 0);
  if (won) {
    EXPECT_EQ(final_z, num<T>(self + 1)) << "compare_swap winner" << where;
  } else {
    EXPECT_EQ(seen_before, final_z) << "compare_swap loser sees the winner's value" << where;
  }
  EXPECT_EQ(Ext::fetch(wins.get(), 0), num<T>(1)) << "compare_swap winners" << where;
  barrier();
}

template <class Tr>
void run_std() {
  with_every_context([](Via v) { std_sequence<Tr>(v); });
}

// Arithmetic wraps like the C type: unsigned overflow and the full range.
template <class Tr>
void run_std_limits() {
  using T = typename Tr::T;
  using Ext = typename Tr::Ext;
  Sym<T> x(1);
  if (!x.ok()) return;
  const T top = std::numeric_limits<T>::max();
  if (me() == 0) x[0] = static_cast<T>(top - num<T>(npes()));
  barrier();
  // Each PE adds 1: the counter reaches exactly max.
  Tr::add(x.get(), num<T>(1), 0);
  barrier();
  EXPECT_EQ(Ext::fetch(x.get(), 0), top);
  barrier();
  if constexpr (std::is_unsigned_v<T>) {
    // One more increment wraps to 0.
    if (me() == 0) {
      EXPECT_EQ(Tr::fetch_inc(x.get(), 0), top);
      EXPECT_EQ(Ext::fetch(x.get(), 0), T{0});
    }
  } else {
    // The full negative range: min via compare_swap.
    if (me() == 0) {
      const T lo = std::numeric_limits<T>::min();
      EXPECT_EQ(Tr::compare_swap(x.get(), top, lo, 0), top);
      EXPECT_EQ(Tr::fetch_add(x.get(), num<T>(-1) + num<T>(1), 0), lo);
      EXPECT_EQ(Ext::fetch(x.get(), 0), lo);
    }
  }
  barrier();
}

// ---- bitwise AMOs ------------------------------------------------------------------

template <class T>
T bit(int pe) {
  T b = static_cast<T>(T{1} << (pe % 31));
  if constexpr (sizeof(T) == 8) b = static_cast<T>(b | (T{1} << (pe % 20 + 40)));
  return b;
}

template <class Tr>
void bit_sequence(Via v) {
  using T = typename Tr::T;
  using Ext = typename Tr::Ext;
  const int n = npes(), self = me();
  const std::string where = v.name();
  T all = T{0};
  for (int pe = 0; pe < n; ++pe) all = static_cast<T>(all | bit<T>(pe));
  const T ones = static_cast<T>(~T{0});
  const T pattern = static_cast<T>(sizeof(T) == 8 ? static_cast<T>(0x5a5a5a5a5a5a5a5aull) : static_cast<T>(0x5a5a5a5au));
  // Nine targets on PE 0: for each of and/or/xor, the fetch, plain and fetch_nbi forms.
  Sym<T> z(9);
  if (!z.ok()) return;
  for (int k = 0; k < 3; ++k) z[k] = ones;          // and
  for (int k = 3; k < 6; ++k) z[k] = T{0};          // or
  for (int k = 6; k < 9; ++k) z[k] = pattern;       // xor
  barrier();
  const T b = bit<T>(self);
  const T nb = static_cast<T>(~b);

  T old = CALL(v, Tr, fetch_and, z.get() + 0, nb, 0);
  EXPECT_EQ(static_cast<T>(old & b), b) << "atomic_fetch_and: my bit was still set" << where;
  CALL(v, Tr, and_op, z.get() + 1, nb, 0);
  T f = T{};
  CALL(v, Tr, fetch_and_nbi, &f, z.get() + 2, nb, 0);
  v.quiet();
  EXPECT_EQ(static_cast<T>(f & b), b) << "atomic_fetch_and_nbi" << where;

  old = CALL(v, Tr, fetch_or, z.get() + 3, b, 0);
  EXPECT_EQ(static_cast<T>(old & b), T{0}) << "atomic_fetch_or: my bit was clear" << where;
  EXPECT_EQ(static_cast<T>(old & ~all), T{0}) << "atomic_fetch_or: no foreign bits" << where;
  CALL(v, Tr, or_op, z.get() + 4, b, 0);
  f = ones;
  CALL(v, Tr, fetch_or_nbi, &f, z.get() + 5, b, 0);
  v.quiet();
  EXPECT_EQ(static_cast<T>(f & b), T{0}) << "atomic_fetch_or_nbi" << where;

  old = CALL(v, Tr, fetch_xor, z.get() + 6, b, 0);
  EXPECT_EQ(static_cast<T>(old & b), static_cast<T>(pattern & b)) << "atomic_fetch_xor: my bit untouched" << where;
  CALL(v, Tr, xor_op, z.get() + 7, b, 0);
  f = T{};
  CALL(v, Tr, fetch_xor_nbi, &f, z.get() + 8, b, 0);
  v.quiet();
  EXPECT_EQ(static_cast<T>(f & b), static_cast<T>(pattern & b)) << "atomic_fetch_xor_nbi" << where;

  barrier();
  const char* names[9] = {"fetch_and", "and", "fetch_and_nbi", "fetch_or", "or", "fetch_or_nbi",
                          "fetch_xor", "xor", "fetch_xor_nbi"};
  for (int k = 0; k < 9; ++k) {
    T want = k < 3 ? static_cast<T>(ones & ~all) : k < 6 ? all : static_cast<T>(pattern ^ all);
    EXPECT_EQ(Ext::fetch(z.get() + k, 0), want) << names[k] << " result on PE 0" << where;
  }
  barrier();
}

template <class Tr>
void run_bit() {
  with_every_context([](Via v) { bit_sequence<Tr>(v); });
}

}  // namespace

#define EXT_TEST(TYPE, NAME) \
  TEST(AmoExtended, NAME) { run_ext<Ext_##NAME>(); }
SHMEMI_AMO_EXT_TYPES(EXT_TEST)
#undef EXT_TEST

#define STD_TEST(TYPE, NAME)                        \
  TEST(AmoStandard, NAME) { run_std<Amo_##NAME>(); } \
  TEST(AmoStandardLimits, NAME) { run_std_limits<Amo_##NAME>(); }
SHMEMI_AMO_TYPES(STD_TEST)
#undef STD_TEST

#define BIT_TEST(TYPE, NAME) \
  TEST(AmoBitwise, NAME) { run_bit<Bit_##NAME>(); }
SHMEMI_AMO_BIT_TYPES(BIT_TEST)
#undef BIT_TEST

TEST(AmoMixed, AtomicityUnderContention) {
  // Every PE hammers the same word on PE 0 with fetch_add, inc and add; the
  // total is exact only if every update is atomic.
  Sym<long> c(1);
  Sym<unsigned long long> u(1);
  if (!c.ok() || !u.ok()) return;
  barrier();
  const int rounds = 2000;
  for (int i = 0; i < rounds; ++i) {
    shmem_long_atomic_fetch_add(c.get(), 2, 0);
    shmem_long_atomic_inc(c.get(), 0);
    shmem_ulonglong_atomic_add(u.get(), 1ull << 33, 0);
  }
  barrier();
  EXPECT_EQ(shmem_long_atomic_fetch(c.get(), 0), 3L * rounds * npes());
  EXPECT_EQ(shmem_ulonglong_atomic_fetch(u.get(), 0), (1ull << 33) * rounds * npes());
  barrier();
}

TEST(AmoMixed, AmoOnEveryPeOfAnArray) {
  // PE k adds (k+1) to element k of every PE: element i everywhere is i+1.
  Sym<int> a(npes());
  if (!a.ok()) return;
  barrier();
  for (int pe = 0; pe < npes(); ++pe) shmem_int_atomic_add(a.get() + me(), me() + 1, pe);
  barrier();
  EXPECT_TRUE(all_equal(a.get(), npes(), [](size_t i) { return static_cast<int>(i) + 1; }));
  barrier();
}

TEST(AmoMixed, FloatingPointExtendedValues) {
  // Values a truncating implementation would get wrong.
  Sym<float> f(1);
  Sym<double> d(1);
  if (!f.ok() || !d.ok()) return;
  barrier();
  shmem_float_atomic_set(f.get(), -0.375f * (me() + 1), right());
  shmem_double_atomic_set(d.get(), 1e300 / (me() + 1), right());
  barrier();
  EXPECT_EQ(f[0], -0.375f * (left() + 1));
  EXPECT_EQ(d[0], 1e300 / (left() + 1));
  barrier();
  EXPECT_EQ(shmem_double_atomic_swap(d.get(), 2.5e-300, right()), 1e300 / (me() + 1));
  EXPECT_EQ(shmem_float_atomic_fetch(f.get(), right()), -0.375f * (me() + 1));
  barrier();
  EXPECT_EQ(d[0], 2.5e-300);
  barrier();
}
