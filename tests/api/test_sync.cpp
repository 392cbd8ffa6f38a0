// Point-to-point synchronization (OpenSHMEM 1.5 section 9.10): wait_until,
// wait_until_all/any/some and their _vector forms, test and
// test_all/any/some and their _vector forms, for every type of the
// point-to-point synchronization types table.
//
// Pattern: the left neighbour updates my ivars (with shmem_TYPE_p, an RMA
// the table's types all have), I wait or test. Barriers separate the steps,
// so no step depends on timing.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>

#include "api_test.hpp"

using namespace api;

namespace {

#define SYNC_TRAITS(TYPE, NAME)                                                      \
  struct Sync_##NAME {                                                               \
    using T = TYPE;                                                                  \
    static constexpr auto p = shmem_##NAME##_p;                                      \
    static constexpr auto wait_until = shmem_##NAME##_wait_until;                    \
    static constexpr auto wait_until_all = shmem_##NAME##_wait_until_all;            \
    static constexpr auto wait_until_any = shmem_##NAME##_wait_until_any;            \
    static constexpr auto wait_until_some = shmem_##NAME##_wait_until_some;          \
    static constexpr auto wait_until_all_vector = shmem_##NAME##_wait_until_all_vector; \
    static constexpr auto wait_until_any_vector = shmem_##NAME##_wait_until_any_vector; \
    static constexpr auto wait_until_some_vector = shmem_##NAME##_wait_until_some_vector; \
    static constexpr auto test = shmem_##NAME##_test;                                \
    static constexpr auto test_all = shmem_##NAME##_test_all;                        \
    static constexpr auto test_any = shmem_##NAME##_test_any;                        \
    static constexpr auto test_some = shmem_##NAME##_test_some;                      \
    static constexpr auto test_all_vector = shmem_##NAME##_test_all_vector;          \
    static constexpr auto test_any_vector = shmem_##NAME##_test_any_vector;          \
    static constexpr auto test_some_vector = shmem_##NAME##_test_some_vector;        \
  };
SHMEMI_SYNC_TYPES(SYNC_TRAITS)
#undef SYNC_TRAITS

template <class T>
T num(long k) {
  return static_cast<T>(k);
}

// wait_until and test with every comparison operator.
template <class Tr>
void single_variable() {
  using T = typename Tr::T;
  const int r = right();
  Sym<T> ivar(1);
  if (!ivar.ok()) return;
  ivar[0] = num<T>(100);
  barrier();

  // test on the current value, every operator, both outcomes.
  T* x = ivar.get();
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_EQ, num<T>(100)), 1);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_EQ, num<T>(101)), 0);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_NE, num<T>(101)), 1);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_NE, num<T>(100)), 0);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_GT, num<T>(99)), 1);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_GT, num<T>(100)), 0);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_GE, num<T>(100)), 1);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_GE, num<T>(101)), 0);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_LT, num<T>(101)), 1);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_LT, num<T>(100)), 0);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_LE, num<T>(100)), 1);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_LE, num<T>(99)), 0);
  // Satisfied conditions return at once.
  Tr::wait_until(x, SHMEM_CMP_EQ, num<T>(100));
  Tr::wait_until(x, SHMEM_CMP_LE, num<T>(100));
  barrier();

  // wait_until with each operator, the left neighbour providing the value.
  struct Step {
    long set;
    int cmp;
    long ref;
  } steps[] = {{150, SHMEM_CMP_NE, 100}, {200, SHMEM_CMP_GT, 199}, {250, SHMEM_CMP_GE, 250},
               {50, SHMEM_CMP_LT, 100},  {40, SHMEM_CMP_LE, 40},   {77, SHMEM_CMP_EQ, 77}};
  for (const Step& s : steps) {
    Tr::p(x, num<T>(s.set), r);
    Tr::wait_until(x, s.cmp, num<T>(s.ref));
    EXPECT_EQ(ivar[0], num<T>(s.set)) << "cmp " << s.cmp;
    EXPECT_EQ(Tr::test(x, s.cmp, num<T>(s.ref)), 1);
    barrier();
  }

  // Extreme values of the type.
  const T hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::min();
  Tr::p(x, hi, r);
  Tr::wait_until(x, SHMEM_CMP_EQ, hi);
  EXPECT_EQ(Tr::test(x, SHMEM_CMP_GT, static_cast<T>(hi - 1)), 1);
  barrier();
  Tr::p(x, lo, r);
  Tr::wait_until(x, SHMEM_CMP_LT, static_cast<T>(lo + 1));
  EXPECT_EQ(ivar[0], lo);
  barrier();
}

// The set forms: all, any, some and their vector forms.
template <class Tr>
void variable_sets() {
  using T = typename Tr::T;
  const int r = right();
  constexpr size_t K = 6;
  Sym<T> iv(K);
  if (!iv.ok()) return;
  T* v = iv.get();
  barrier();

  // --- empty sets -------------------------------------------------------------
  size_t idx[K];
  int all_excluded[K];
  std::fill(all_excluded, all_excluded + K, 1);
  EXPECT_EQ(Tr::test_all(v, 0, nullptr, SHMEM_CMP_EQ, num<T>(1)), 1) << "nelems 0: test_all is true";
  EXPECT_EQ(Tr::test_any(v, 0, nullptr, SHMEM_CMP_EQ, num<T>(1)), SIZE_MAX);
  EXPECT_EQ(Tr::test_some(v, 0, idx, nullptr, SHMEM_CMP_EQ, num<T>(1)), 0u);
  Tr::wait_until_all(v, 0, nullptr, SHMEM_CMP_EQ, num<T>(1));  // returns at once
  EXPECT_EQ(Tr::wait_until_any(v, 0, nullptr, SHMEM_CMP_EQ, num<T>(1)), SIZE_MAX);
  EXPECT_EQ(Tr::wait_until_some(v, 0, idx, nullptr, SHMEM_CMP_EQ, num<T>(1)), 0u);
  Tr::wait_until_all(v, K, all_excluded, SHMEM_CMP_EQ, num<T>(1));  // nothing to wait for
  EXPECT_EQ(Tr::wait_until_any(v, K, all_excluded, SHMEM_CMP_EQ, num<T>(1)), SIZE_MAX);
  EXPECT_EQ(Tr::wait_until_some(v, K, idx, all_excluded, SHMEM_CMP_EQ, num<T>(1)), 0u);
  EXPECT_EQ(Tr::test_any(v, K, all_excluded, SHMEM_CMP_EQ, num<T>(0)), SIZE_MAX);
  EXPECT_EQ(Tr::test_some(v, K, idx, all_excluded, SHMEM_CMP_EQ, num<T>(0)), 0u);
  T refs[K];
  std::fill(refs, refs + K, num<T>(1));
  Tr::wait_until_all_vector(v, 0, nullptr, SHMEM_CMP_EQ, refs);
  EXPECT_EQ(Tr::wait_until_any_vector(v, 0, nullptr, SHMEM_CMP_EQ, refs), SIZE_MAX);
  EXPECT_EQ(Tr::wait_until_some_vector(v, 0, idx, nullptr, SHMEM_CMP_EQ, refs), 0u);
  EXPECT_EQ(Tr::test_all_vector(v, 0, nullptr, SHMEM_CMP_EQ, refs), 1);
  EXPECT_EQ(Tr::test_any_vector(v, 0, nullptr, SHMEM_CMP_EQ, refs), SIZE_MAX);
  EXPECT_EQ(Tr::test_some_vector(v, 0, idx, nullptr, SHMEM_CMP_EQ, refs), 0u);

  // --- test_* on a known state: v = {0, 1, 0, 1, 0, 1} ----------------------------
  for (size_t i = 0; i < K; ++i) v[i] = num<T>(i % 2);
  EXPECT_EQ(Tr::test_all(v, K, nullptr, SHMEM_CMP_EQ, num<T>(1)), 0);
  int odd_only[K] = {1, 0, 1, 0, 1, 0};
  EXPECT_EQ(Tr::test_all(v, K, odd_only, SHMEM_CMP_EQ, num<T>(1)), 1) << "status excludes the even elements";
  EXPECT_EQ(Tr::test_any(v, K, nullptr, SHMEM_CMP_GT, num<T>(0)) % 2, 1u) << "an odd index";
  int first_odd_excluded[K] = {0, 1, 0, 0, 0, 0};
  size_t a = Tr::test_any(v, K, first_odd_excluded, SHMEM_CMP_EQ, num<T>(1));
  EXPECT_TRUE(a == 3 || a == 5) << a;
  EXPECT_EQ(Tr::test_some(v, K, idx, nullptr, SHMEM_CMP_EQ, num<T>(1)), 3u);
  EXPECT_EQ(std::set<size_t>(idx, idx + 3), (std::set<size_t>{1, 3, 5}));
  EXPECT_EQ(Tr::test_some(v, K, idx, first_odd_excluded, SHMEM_CMP_NE, num<T>(0)), 2u);
  EXPECT_EQ(std::set<size_t>(idx, idx + 2), (std::set<size_t>{3, 5}));
  T vec[K];
  for (size_t i = 0; i < K; ++i) vec[i] = num<T>(i % 2);  // each element equals its own ref
  EXPECT_EQ(Tr::test_all_vector(v, K, nullptr, SHMEM_CMP_EQ, vec), 1);
  vec[4] = num<T>(9);
  EXPECT_EQ(Tr::test_all_vector(v, K, nullptr, SHMEM_CMP_EQ, vec), 0);
  EXPECT_EQ(Tr::test_any_vector(v, K, nullptr, SHMEM_CMP_GT, vec), SIZE_MAX);  // nothing exceeds its ref
  vec[2] = num<T>(0);
  vec[0] = num<T>(5);
  a = Tr::test_any_vector(v, K, nullptr, SHMEM_CMP_LT, vec);
  EXPECT_TRUE(a == 0 || a == 4) << a << ": only v[0] < 5 and v[4] < 9";
  int skip0[K] = {1, 0, 0, 0, 0, 0};
  EXPECT_EQ(Tr::test_any_vector(v, K, skip0, SHMEM_CMP_LT, vec), 4u);
  EXPECT_EQ(Tr::test_some_vector(v, K, idx, nullptr, SHMEM_CMP_LT, vec), 2u);
  EXPECT_EQ(std::set<size_t>(idx, idx + 2), (std::set<size_t>{0, 4}));
  barrier();

  // --- wait_until_all: the left neighbour sets every element --------------------
  for (size_t i = 0; i < K; ++i) v[i] = num<T>(0);
  barrier();
  for (size_t i = 0; i < K; ++i) Tr::p(v + i, num<T>(10 + i), r);
  Tr::wait_until_all(v, K, nullptr, SHMEM_CMP_GE, num<T>(10));
  EXPECT_TRUE(all_equal(v, K, [](size_t i) { return num<T>(10 + i); })) << "wait_until_all";
  barrier();

  // wait_until_all with an element excluded that never changes.
  for (size_t i = 0; i < K; ++i) v[i] = num<T>(0);
  barrier();
  for (size_t i = 0; i < K; ++i)
    if (i != 2) Tr::p(v + i, num<T>(20), r);
  int skip2[K] = {0, 0, 1, 0, 0, 0};
  Tr::wait_until_all(v, K, skip2, SHMEM_CMP_EQ, num<T>(20));
  EXPECT_EQ(v[2], num<T>(0));
  for (size_t i = 0; i < K; ++i)
    if (i != 2) {
      EXPECT_EQ(v[i], num<T>(20)) << i;
    }
  barrier();

  // wait_until_all_vector: each element to its own value.
  T want[K];
  for (size_t i = 0; i < K; ++i) want[i] = num<T>(30 + 2 * i);
  barrier();
  for (size_t i = 0; i < K; ++i) Tr::p(v + i, want[i], r);
  Tr::wait_until_all_vector(v, K, nullptr, SHMEM_CMP_EQ, want);
  EXPECT_TRUE(all_equal(v, K, [&](size_t i) { return want[i]; })) << "wait_until_all_vector";
  barrier();

  // --- wait_until_any: only element 4 changes ----------------------------------
  for (size_t i = 0; i < K; ++i) v[i] = num<T>(0);
  barrier();
  EXPECT_EQ(Tr::test_any(v, K, nullptr, SHMEM_CMP_NE, num<T>(0)), SIZE_MAX) << "nothing changed yet";
  barrier();  // the neighbour writes only after my test
  Tr::p(v + 4, num<T>(44), r);
  EXPECT_EQ(Tr::wait_until_any(v, K, nullptr, SHMEM_CMP_NE, num<T>(0)), 4u);
  EXPECT_EQ(v[4], num<T>(44));
  barrier();
  // wait_until_any with the changed element excluded first, then another one set.
  int skip4[K] = {0, 0, 0, 0, 1, 0};
  barrier();
  Tr::p(v + 1, num<T>(11), r);
  EXPECT_EQ(Tr::wait_until_any(v, K, skip4, SHMEM_CMP_NE, num<T>(0)), 1u);
  barrier();
  // wait_until_any_vector: element 5 reaches its own reference.
  for (size_t i = 0; i < K; ++i) want[i] = num<T>(100 + i);
  barrier();
  Tr::p(v + 5, num<T>(105), r);
  EXPECT_EQ(Tr::wait_until_any_vector(v, K, nullptr, SHMEM_CMP_EQ, want), 5u);
  barrier();

  // --- wait_until_some: elements 0 and 3 change -------------------------------------
  for (size_t i = 0; i < K; ++i) v[i] = num<T>(0);
  barrier();
  Tr::p(v + 0, num<T>(7), r);
  Tr::p(v + 3, num<T>(7), r);
  std::set<size_t> found;
  int status[K] = {0, 0, 0, 0, 0, 0};
  while (found.size() < 2) {
    size_t got = Tr::wait_until_some(v, K, idx, status, SHMEM_CMP_EQ, num<T>(7));
    EXPECT_GE(got, 1u);
    if (got == 0) break;
    for (size_t k = 0; k < got; ++k) {
      EXPECT_TRUE(idx[k] == 0 || idx[k] == 3) << idx[k];
      EXPECT_TRUE(found.insert(idx[k]).second) << "index " << idx[k] << " reported twice";
      status[idx[k]] = 1;  // exclude it from the next call
    }
    if (found.size() > 2) break;
  }
  EXPECT_EQ(found, (std::set<size_t>{0, 3}));
  barrier();
  // All set by now (after the barrier): one call reports both.
  EXPECT_EQ(Tr::wait_until_some(v, K, idx, nullptr, SHMEM_CMP_EQ, num<T>(7)), 2u);
  EXPECT_EQ(std::set<size_t>(idx, idx + 2), (std::set<size_t>{0, 3}));
  // wait_until_some_vector: elements 1 and 2 reach their own references.
  for (size_t i = 0; i < K; ++i) want[i] = num<T>(60 + i);
  barrier();
  Tr::p(v + 1, num<T>(61), r);
  Tr::p(v + 2, num<T>(62), r);
  std::fill(status, status + K, 0);
  found.clear();
  while (found.size() < 2) {
    size_t got = Tr::wait_until_some_vector(v, K, idx, status, SHMEM_CMP_EQ, want);
    EXPECT_GE(got, 1u);
    if (got == 0) break;
    for (size_t k = 0; k < got; ++k) {
      EXPECT_TRUE(found.insert(idx[k]).second);
      status[idx[k]] = 1;
    }
    if (found.size() > 2) break;
  }
  EXPECT_EQ(found, (std::set<size_t>{1, 2}));
  barrier();
}

}  // namespace

#define SYNC_TEST(TYPE, NAME)                                          \
  TEST(WaitTestSingle, NAME) { single_variable<Sync_##NAME>(); }      \
  TEST(WaitTestSets, NAME) { variable_sets<Sync_##NAME>(); }
SHMEMI_SYNC_TYPES(SYNC_TEST)
#undef SYNC_TEST

TEST(WaitTestPatterns, AllToOneCounterWithAtomics) {
  // Every other PE increments a counter on PE 0, which waits for all of them.
  Sym<long> counter(1);
  Sym<int> flags(npes());
  if (!counter.ok() || !flags.ok()) return;
  barrier();
  if (me() != 0) shmem_long_atomic_inc(counter.get(), 0);
  if (me() == 0) {
    shmem_long_wait_until(counter.get(), SHMEM_CMP_EQ, npes() - 1);
    EXPECT_EQ(counter[0], npes() - 1);
  }
  barrier();
  // Every PE sets its own flag on PE 0; PE 0 waits for the whole array with
  // wait_until_all, then consumes them one by one with test_any.
  shmem_int_atomic_set(flags.get() + me(), 1, 0);
  if (me() == 0) {
    shmem_int_wait_until_all(flags.get(), npes(), nullptr, SHMEM_CMP_EQ, 1);
    std::vector<int> status(npes(), 0);
    int consumed = 0;
    for (size_t i; (i = shmem_int_test_any(flags.get(), npes(), status.data(), SHMEM_CMP_EQ, 1)) != SIZE_MAX;) {
      EXPECT_EQ(status[i], 0);
      status[i] = 1;
      ++consumed;
    }
    EXPECT_EQ(consumed, npes());
  }
  barrier();
}

TEST(WaitTestPatterns, AnyReturnsEverySatisfiedIndexInTurn) {
  // The specification's shmem_test_any example: every PE sets its flag on
  // every PE, and each PE consumes the flags as they arrive, masking each one
  // it has seen through the status array.
  const int n = npes();
  Sym<int> flags(2 * n);
  if (!flags.ok()) return;
  barrier();
  for (int pe = 0; pe < n; ++pe) shmem_int_atomic_set(flags.get() + me(), 1, pe);
  std::vector<int> status(n, 0);
  for (int completed = 0; completed < n;) {
    size_t i = shmem_int_test_any(flags.get(), n, status.data(), SHMEM_CMP_EQ, 1);
    if (i == SIZE_MAX) continue;
    EXPECT_LT(i, static_cast<size_t>(n));
    if (i >= static_cast<size_t>(n)) break;
    EXPECT_EQ(status[i], 0) << "index " << i << " is masked";
    status[i] = 1;
    ++completed;
  }
  // Each PE sets a second flag on every PE, at n + its number.
  for (int pe = 0; pe < n; ++pe) shmem_int_atomic_set(flags.get() + n + me(), 1, pe);
  barrier();
  // Without a mask every flag keeps satisfying the condition, and a series of
  // calls must still return every index, not always the same one (1.5: "must
  // eventually return i"). tilecomm resumes the scan after the index it
  // returned last, so 2m calls over m flags are plenty; each form is checked.
  const int m = 2 * n;
  std::vector<int> ones(m, 1);
  auto returns_every_index = [&](const char* form, auto call) {
    std::set<size_t> seen;
    for (int k = 0; k < 2 * m; ++k) seen.insert(call());
    std::set<size_t> all;
    for (int i = 0; i < m; ++i) all.insert(static_cast<size_t>(i));
    EXPECT_EQ(seen, all) << "PE " << me() << ": " << 2 * m << " calls of " << form << " returned "
                         << seen.size() << " distinct indices";
  };
  int* f = flags.get();
  returns_every_index("shmem_int_test_any", [&] { return shmem_int_test_any(f, m, nullptr, SHMEM_CMP_EQ, 1); });
  returns_every_index("shmem_int_wait_until_any",
                      [&] { return shmem_int_wait_until_any(f, m, nullptr, SHMEM_CMP_EQ, 1); });
  returns_every_index("shmem_int_test_any_vector",
                      [&] { return shmem_int_test_any_vector(f, m, nullptr, SHMEM_CMP_EQ, ones.data()); });
  returns_every_index("shmem_int_wait_until_any_vector",
                      [&] { return shmem_int_wait_until_any_vector(f, m, nullptr, SHMEM_CMP_EQ, ones.data()); });
  returns_every_index("shmem_test_any (generic)", [&] { return shmem_test_any(f, m, nullptr, SHMEM_CMP_EQ, 1); });
  // test_some reports every satisfied index in one call.
  std::vector<size_t> idx(m);
  EXPECT_EQ(shmem_int_test_some(f, m, idx.data(), nullptr, SHMEM_CMP_EQ, 1), static_cast<size_t>(m));
  barrier();
}

TEST(WaitTestPatterns, AnyReturnsEveryIndexOfTwoArraysPolledInTurn) {
  // Two arrays of flags, all satisfied, polled in turn with no mask: each
  // series must reach every index of its array. The arrays are 64-byte
  // aligned, as collective buffers often are. Up to 64 calls per index: a
  // fair scan needs n (the round-robin cursor), and even one restarted at
  // random for every call misses an index of 16 with probability < 1e-27.
  const int m = 2 * npes();
  int* a = static_cast<int*>(shmem_align(64, m * sizeof(int)));
  int* b = static_cast<int*>(shmem_align(64, m * sizeof(int)));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  for (int i = 0; i < m; ++i) a[i] = b[i] = 1;
  std::set<size_t> seen_a, seen_b;
  for (int k = 0; k < 64 * m && (seen_a.size() < static_cast<size_t>(m) || seen_b.size() < static_cast<size_t>(m));
       ++k) {
    seen_a.insert(shmem_int_test_any(a, m, nullptr, SHMEM_CMP_EQ, 1));
    seen_b.insert(shmem_int_test_any(b, m, nullptr, SHMEM_CMP_EQ, 1));
  }
  EXPECT_EQ(seen_a.size(), static_cast<size_t>(m)) << "array a: " << seen_a.size() << " distinct indices";
  EXPECT_EQ(seen_b.size(), static_cast<size_t>(m)) << "array b: " << seen_b.size() << " distinct indices";
  EXPECT_EQ(*seen_a.rbegin(), static_cast<size_t>(m - 1));
  shmem_free(b);
  shmem_free(a);
}

TEST(WaitTestPatterns, WaitUntilOnManyRoundsOfTokenPassing) {
  // A token travels around the ring 30 times; each PE waits for the token
  // value it expects and passes on the next one. Every wait is on a value
  // that only one PE will write, once.
  Sym<long> token(1);
  if (!token.ok()) return;
  barrier();
  const int n = npes(), rounds = 30;
  for (int round = 0; round < rounds; ++round) {
    const long mine = static_cast<long>(round) * n + me() + 1;  // the value that reaches me
    if (!(round == 0 && me() == 0)) shmem_long_wait_until(token.get(), SHMEM_CMP_GE, mine - 1);
    EXPECT_EQ(token[0], round == 0 && me() == 0 ? 0 : mine - 1);
    shmem_long_atomic_set(token.get(), mine, right());
  }
  barrier();
  // The last value written went from PE n-1 to PE 0.
  if (me() == 0) {
    EXPECT_EQ(token[0], static_cast<long>(rounds) * n);
  }
  barrier();
}
