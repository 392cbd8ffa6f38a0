// The deprecated active-set collectives of OpenSHMEM 1.5 (section 9.9,
// deprecated blocks): shmem_broadcast32/64, shmem_collect32/64,
// shmem_fcollect32/64, shmem_alltoall32/64, shmem_alltoalls32/64 and
// shmem_TYPENAME_OP_to_all for every row and operation of the "Active-Set-
// Based Reductions" table, over active sets of several shapes: the whole
// job, the even PEs, the odd PEs (PE_start 1, logPE_stride 1), the last PE
// alone, all PEs but the first, every fourth PE. PEs outside a set skip the
// call. Unlike the team form, an active-set broadcast leaves the root's
// dest alone. pSync arrays start as SHMEM_SYNC_VALUE, consecutive calls of
// one kind alternate between two of them (as the specification permits for
// back-to-back calls over the same active set), and every call must leave
// its pSync at SHMEM_SYNC_VALUE again; pWrk has
// max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements.
#include <functional>

#include "coll_traits.hpp"

using namespace coll;

namespace {

constexpr int kPSyncSize = std::max({SHMEM_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE,
                                     SHMEM_ALLTOALL_SYNC_SIZE, SHMEM_ALLTOALLS_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE});

// Two alternating pSync arrays for the set under test, two more for a
// second set running at the same time, and one for shmem_sync between
// checked calls. Static data is symmetric.
long g_psync[4][kPSyncSize];
long g_sync_psync[SHMEM_BARRIER_SYNC_SIZE];

void reset_psyncs() {
  for (auto& a : g_psync) std::fill(a, a + kPSyncSize, SHMEM_SYNC_VALUE);
  std::fill(g_sync_psync, g_sync_psync + SHMEM_BARRIER_SYNC_SIZE, SHMEM_SYNC_VALUE);
  shmem_barrier_all();
}

::testing::AssertionResult restored(const long* psync) {
  return equal_to(psync, kPSyncSize, [](std::size_t) { return SHMEM_SYNC_VALUE; })
         << " (pSync is not SHMEM_SYNC_VALUE again after the call)";
}

/// An active set (PE_start, logPE_stride, PE_size) and this PE's place in it.
struct ActiveSet {
  int start, log_stride, size;
  std::string name;
  std::vector<int> world;  // the members
  int idx = -1;            // this PE's ordinal in the set; -1 outside it
  bool member() const { return idx >= 0; }
  /// shmem_sync over the set: every member checked its dest before the next call.
  void sync() const { shmem_sync(start, log_stride, size, g_sync_psync); }
};

ActiveSet make_set(int start, int log_stride, int size, std::string name) {
  ActiveSet s{start, log_stride, size, std::move(name), {}, -1};
  for (int i = 0; i < size; ++i) {
    s.world.push_back(start + (i << log_stride));
    if (s.world.back() == me()) s.idx = i;
  }
  return s;
}

std::vector<ActiveSet> active_sets() {
  const int n = npes();
  std::vector<ActiveSet> v;
  v.push_back(make_set(0, 0, n, "whole job (0, 0, n)"));
  v.push_back(make_set(0, 1, (n + 1) / 2, "even PEs (0, 1, (n+1)/2)"));
  v.push_back(make_set(n - 1, 0, 1, "last PE alone (n-1, 0, 1)"));
  if (n >= 2) v.push_back(make_set(1, 1, n / 2, "odd PEs (1, 1, n/2)"));
  if (n >= 3) v.push_back(make_set(1, 0, n - 1, "all but PE 0 (1, 0, n-1)"));
  if (n >= 5) v.push_back(make_set(0, 2, (n + 3) / 4, "every fourth PE (0, 2, (n+3)/4)"));
  return v;
}

/// Runs body(set) on the members of each active set; world barriers around each.
template <class F>
void on_each_set(const std::vector<ActiveSet>& sets, F&& body) {
  for (const ActiveSet& s : sets) {
    shmem_barrier_all();
    if (s.member()) body(s);
    shmem_barrier_all();
  }
}

/// Hands out the two pSync arrays (pair 0: g_psync[0..1], pair 1: [2..3]) in turn.
class Alternating {
 public:
  explicit Alternating(int pair = 0) : base_(2 * pair) {}
  long* next() { return g_psync[base_ + (calls_++ % 2)]; }

 private:
  int base_;
  unsigned calls_ = 0;
};

std::string at_set(const char* routine, const ActiveSet& s, std::size_t n) {
  return std::string(routine) + " over " + s.name + ", nelems " + std::to_string(n);
}

template <class T>
void fill_data(T* p, std::size_t n, int pe, int salt) {
  for (std::size_t i = 0; i < n; ++i) p[i] = datum<T>(pe, i, salt);
}

// ---- the 32- and 64-bit data routines ------------------------------------------------------

template <int Bits>
struct Sized;
template <>
struct Sized<32> {
  using T = std::uint32_t;
  static constexpr const char* kBroadcast = "shmem_broadcast32";
  static constexpr const char* kCollect = "shmem_collect32";
  static constexpr const char* kFcollect = "shmem_fcollect32";
  static constexpr const char* kAlltoall = "shmem_alltoall32";
  static constexpr const char* kAlltoalls = "shmem_alltoalls32";
  static void broadcast(T* d, const T* s, std::size_t n, int root, const ActiveSet& a, long* ps) {
    shmem_broadcast32(d, s, n, root, a.start, a.log_stride, a.size, ps);
  }
  static void collect(T* d, const T* s, std::size_t n, const ActiveSet& a, long* ps) {
    shmem_collect32(d, s, n, a.start, a.log_stride, a.size, ps);
  }
  static void fcollect(T* d, const T* s, std::size_t n, const ActiveSet& a, long* ps) {
    shmem_fcollect32(d, s, n, a.start, a.log_stride, a.size, ps);
  }
  static void alltoall(T* d, const T* s, std::size_t n, const ActiveSet& a, long* ps) {
    shmem_alltoall32(d, s, n, a.start, a.log_stride, a.size, ps);
  }
  static void alltoalls(T* d, const T* s, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n, const ActiveSet& a,
                        long* ps) {
    shmem_alltoalls32(d, s, dst, sst, n, a.start, a.log_stride, a.size, ps);
  }
};
template <>
struct Sized<64> {
  using T = std::uint64_t;
  static constexpr const char* kBroadcast = "shmem_broadcast64";
  static constexpr const char* kCollect = "shmem_collect64";
  static constexpr const char* kFcollect = "shmem_fcollect64";
  static constexpr const char* kAlltoall = "shmem_alltoall64";
  static constexpr const char* kAlltoalls = "shmem_alltoalls64";
  static void broadcast(T* d, const T* s, std::size_t n, int root, const ActiveSet& a, long* ps) {
    shmem_broadcast64(d, s, n, root, a.start, a.log_stride, a.size, ps);
  }
  static void collect(T* d, const T* s, std::size_t n, const ActiveSet& a, long* ps) {
    shmem_collect64(d, s, n, a.start, a.log_stride, a.size, ps);
  }
  static void fcollect(T* d, const T* s, std::size_t n, const ActiveSet& a, long* ps) {
    shmem_fcollect64(d, s, n, a.start, a.log_stride, a.size, ps);
  }
  static void alltoall(T* d, const T* s, std::size_t n, const ActiveSet& a, long* ps) {
    shmem_alltoall64(d, s, n, a.start, a.log_stride, a.size, ps);
  }
  static void alltoalls(T* d, const T* s, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n, const ActiveSet& a,
                        long* ps) {
    shmem_alltoalls64(d, s, dst, sst, n, a.start, a.log_stride, a.size, ps);
  }
};

template <class Sz>
class ActiveSetData : public ::testing::Test {
 protected:
  void SetUp() override { reset_psyncs(); }
};
using SizedTypes = ::testing::Types<Sized<32>, Sized<64>>;
struct SizedName {
  template <class Sz>
  static std::string GetName(int) {
    return std::is_same_v<Sz, Sized<32>> ? "bits32" : "bits64";
  }
};
TYPED_TEST_SUITE(ActiveSetData, SizedTypes, SizedName);

// Per-member counts of a collect: 0 equal, 1 every third member none, 2 only the last.
std::vector<std::size_t> collect_counts(int pattern, int size, std::size_t n) {
  std::vector<std::size_t> c(size);
  for (int k = 0; k < size; ++k)
    c[k] = pattern == 0 ? n : pattern == 1 ? (k % 3 == 1 ? 0 : n + k) : (k == size - 1 ? n : 0);
  return c;
}

template <class T>
::testing::AssertionResult collected(const T* dst, const ActiveSet& s, const std::vector<std::size_t>& c, int salt) {
  std::size_t off = 0;
  for (int k = 0; k < s.size; ++k) {
    auto r = equal_to(dst + off, c[k], [&](std::size_t i) { return datum<T>(s.world[k], i, salt); });
    if (!r) return r << " (block of set member " << k << ")";
    off += c[k];
  }
  auto r = untouched(dst + off, kPad);
  return r ? r : r << " (past the collected elements)";
}

// The active-set alltoalls layout is the team one: member k's element e for
// this PE is source[(idx*n + e) * sst] of k, at dest[(k*n + e) * dst].
template <class T>
::testing::AssertionResult exchanged(const T* dst, const ActiveSet& s, std::size_t n, std::size_t d, std::size_t ss,
                                     int salt) {
  for (int k = 0; k < s.size; ++k) {
    auto r = equal_to(
        dst + k * n * d, n, [&](std::size_t e) { return datum<T>(s.world[k], (s.idx * n + e) * ss, salt); }, d);
    if (!r) return r << " (block from set member " << k << ")";
  }
  for (std::size_t gap = 1; gap < d; ++gap) {
    auto r = equal_to(dst + gap, s.size * n, [](std::size_t) { return sentinel<T>(); }, d);
    if (!r) return r << " (between strided elements)";
  }
  auto r = untouched(dst + s.size * n * d, kPad);
  return r ? r : r << " (past the exchanged range)";
}

}  // namespace

TYPED_TEST(ActiveSetData, BroadcastLeavesTheRootsDestAlone) {
  using Sz = TypeParam;
  using T = typename Sz::T;
  const auto sets = active_sets();
  const auto counts = small_counts();
  const std::size_t cap = counts.back() + kPad;
  Sym<T> src(cap), dst(cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_set(sets, [&](const ActiveSet& s) {
    Alternating psync;  // per set: every member starts with the same array
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      const std::size_t n = counts[ni];
      for (int root = 0; root < s.size; ++root) {
        const int salt = static_cast<int>(ni) * 100 + root;
        const std::string at = at_set(Sz::kBroadcast, s, n) + ", PE_root " + std::to_string(root);
        fill_sentinel(dst.get(), cap);
        s.sync();
        fill_data(src.get(), n, me(), salt);
        long* ps = psync.next();
        Sz::broadcast(dst.get(), src.get(), n, root, s, ps);
        EXPECT_TRUE(restored(ps)) << at;
        if (s.idx == root) {
          EXPECT_TRUE(untouched(dst.get(), cap)) << at << ": the root's dest must not be written";
        } else {
          EXPECT_TRUE(equal_to(dst.get(), n, [&](std::size_t i) { return datum<T>(s.world[root], i, salt); })) << at;
          EXPECT_TRUE(untouched(dst.get() + n, kPad)) << at << ": past nelems";
        }
      }
    }
  });
}

TYPED_TEST(ActiveSetData, CollectFcollectAlltoallAlltoalls) {
  using Sz = TypeParam;
  using T = typename Sz::T;
  const auto sets = active_sets();
  const auto counts = small_counts();
  const int n_max = npes();
  const std::size_t cap = 3 * n_max * (counts.back() + n_max) + kPad;
  Sym<T> src(cap), dst(cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_set(sets, [&](const ActiveSet& s) {
    Alternating psync;  // per set: every member starts with the same array
    auto checked_call = [&](const std::string& at, std::size_t src_n, int salt, auto&& call, auto&& check) {
      fill_sentinel(dst.get(), cap);
      s.sync();
      fill_data(src.get(), src_n, me(), salt);
      long* ps = psync.next();
      call(ps);
      EXPECT_TRUE(restored(ps)) << at;
      EXPECT_TRUE(check()) << at;
    };
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      const std::size_t n = counts[ni];
      const int salt = static_cast<int>(ni) * 100;
      for (int pattern = 0; pattern < 3; ++pattern) {
        const auto c = collect_counts(pattern, s.size, n);
        checked_call(
            at_set(Sz::kCollect, s, c[s.idx]) + ", count pattern " + std::to_string(pattern), c[s.idx], salt + pattern,
            [&](long* ps) { Sz::collect(dst.get(), src.get(), c[s.idx], s, ps); },
            [&] { return collected(dst.get(), s, c, salt + pattern); });
      }
      checked_call(
          at_set(Sz::kFcollect, s, n), n, salt + 10, [&](long* ps) { Sz::fcollect(dst.get(), src.get(), n, s, ps); },
          [&] { return collected(dst.get(), s, std::vector<std::size_t>(s.size, n), salt + 10); });
      checked_call(
          at_set(Sz::kAlltoall, s, n), s.size * n, salt + 20,
          [&](long* ps) { Sz::alltoall(dst.get(), src.get(), n, s, ps); },
          [&] { return exchanged(dst.get(), s, n, 1, 1, salt + 20); });
      for (auto [ds, ss] : {std::pair<int, int>{1, 1}, {2, 3}, {3, 1}, {1, 2}}) {
        checked_call(
            at_set(Sz::kAlltoalls, s, n) + ", dst " + std::to_string(ds) + ", sst " + std::to_string(ss),
            s.size * n * ss, salt + 30 + ds * 3 + ss,
            [&](long* ps) { Sz::alltoalls(dst.get(), src.get(), ds, ss, n, s, ps); },
            [&] { return exchanged(dst.get(), s, n, ds, ss, salt + 30 + ds * 3 + ss); });
      }
    }
  });
}

TYPED_TEST(ActiveSetData, BackToBackAlternatingPSync) {
  // For each kind, 24 calls in a row with nothing between them, alternating
  // two pSync arrays; each call has its own dest region (checked after a
  // closing shmem_sync) and its pSync must be SHMEM_SYNC_VALUE on return.
  using Sz = TypeParam;
  using T = typename Sz::T;
  const auto sets = active_sets();
  const std::size_t pattern[] = {0, 7, 1, 0, 64, 0, 0, 33};
  constexpr int kCalls = 24;
  const int n_max = npes();
  const std::size_t region_cap = 2 * n_max * (64 + n_max) + kPad;
  Sym<T> src(region_cap), dst(kCalls * region_cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_set(sets, [&](const ActiveSet& s) {
    for (int kind = 0; kind < 5; ++kind) {
      Alternating psync;
      fill_sentinel(dst.get(), dst.size());
      s.sync();
      std::vector<std::function<::testing::AssertionResult()>> checks;
      std::vector<std::string> names;
      for (int r = 0; r < kCalls; ++r) {
        const std::size_t n = pattern[r % 8];
        T* region = dst.get() + r * region_cap;
        const int salt = kind * 1000 + r;
        long* ps = psync.next();
        switch (kind) {
          case 0: {
            const int root = r % s.size;
            names.push_back(at_set(Sz::kBroadcast, s, n) + ", PE_root " + std::to_string(root));
            fill_data(src.get(), n, me(), salt);
            Sz::broadcast(region, src.get(), n, root, s, ps);
            const bool is_root = s.idx == root;
            checks.push_back([=, &s] {
              return is_root ? untouched(region, region_cap)
                             : equal_to(region, n, [&](std::size_t i) { return datum<T>(s.world[root], i, salt); });
            });
            break;
          }
          case 1: {
            const auto c = collect_counts(r % 3, s.size, n);
            names.push_back(at_set(Sz::kCollect, s, c[s.idx]));
            fill_data(src.get(), c[s.idx], me(), salt);
            Sz::collect(region, src.get(), c[s.idx], s, ps);
            checks.push_back([=, &s] { return collected(region, s, c, salt); });
            break;
          }
          case 2:
            names.push_back(at_set(Sz::kFcollect, s, n));
            fill_data(src.get(), n, me(), salt);
            Sz::fcollect(region, src.get(), n, s, ps);
            checks.push_back([=, &s] { return collected(region, s, std::vector<std::size_t>(s.size, n), salt); });
            break;
          case 3:
            names.push_back(at_set(Sz::kAlltoall, s, n));
            fill_data(src.get(), s.size * n, me(), salt);
            Sz::alltoall(region, src.get(), n, s, ps);
            checks.push_back([=, &s] { return exchanged(region, s, n, 1, 1, salt); });
            break;
          default:
            names.push_back(at_set(Sz::kAlltoalls, s, n) + ", dst 2, sst 1");
            fill_data(src.get(), s.size * n, me(), salt);
            Sz::alltoalls(region, src.get(), 2, 1, n, s, ps);
            checks.push_back([=, &s] { return exchanged(region, s, n, 2, 1, salt); });
            break;
        }
        EXPECT_TRUE(restored(ps)) << names.back() << " (call " << r << ")";
      }
      s.sync();
      for (std::size_t r = 0; r < checks.size(); ++r)
        EXPECT_TRUE(checks[r]()) << names[r] << " (call " << r << " of a back-to-back run)";
    }
  });
}

// ---- reductions: shmem_TYPENAME_OP_to_all ----------------------------------------------------

namespace {

#define AS_ARITH_FNS(NAME)                                                                            \
  using T = typename elem_of<decltype(&shmem_##NAME##_sum_to_all)>::type;                             \
  static std::string label() { return #NAME; }                                                        \
  static void sum(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                      \
    shmem_##NAME##_sum_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                         \
  }                                                                                                   \
  static void prod(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                     \
    shmem_##NAME##_prod_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                        \
  }
#define AS_MINMAX_FNS(NAME)                                                                           \
  static void max(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                      \
    shmem_##NAME##_max_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                         \
  }                                                                                                   \
  static void min(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                      \
    shmem_##NAME##_min_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                         \
  }
#define AS_BIT_FNS(NAME)                                                                              \
  static void band(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                     \
    shmem_##NAME##_and_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                         \
  }                                                                                                   \
  static void bor(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                      \
    shmem_##NAME##_or_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                          \
  }                                                                                                   \
  static void bxor(T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {                     \
    shmem_##NAME##_xor_to_all(d, s, n, a.start, a.log_stride, a.size, w, ps);                         \
  }
#define AS_INT(NAME) \
  struct ToAll_##NAME { AS_ARITH_FNS(NAME) AS_MINMAX_FNS(NAME) AS_BIT_FNS(NAME) static constexpr unsigned kOps = kBitOps | kMinMaxOps | kArithOps; };
#define AS_REAL(NAME) \
  struct ToAll_##NAME { AS_ARITH_FNS(NAME) AS_MINMAX_FNS(NAME) static constexpr unsigned kOps = kMinMaxOps | kArithOps; };
#define AS_COMPLEX(NAME) \
  struct ToAll_##NAME { AS_ARITH_FNS(NAME) static constexpr unsigned kOps = kArithOps; };
AS_INT(short) AS_INT(int) AS_INT(long) AS_INT(longlong)
AS_REAL(float) AS_REAL(double) AS_REAL(longdouble)
AS_COMPLEX(complexd) AS_COMPLEX(complexf)
#undef AS_INT
#undef AS_REAL
#undef AS_COMPLEX

template <class Tr, class T = typename Tr::T>
void to_all(Op op, T* d, const T* s, int n, const ActiveSet& a, T* w, long* ps) {
  switch (op) {
    case Op::And:
      if constexpr ((Tr::kOps & kBitOps) != 0) return Tr::band(d, s, n, a, w, ps);
      break;
    case Op::Or:
      if constexpr ((Tr::kOps & kBitOps) != 0) return Tr::bor(d, s, n, a, w, ps);
      break;
    case Op::Xor:
      if constexpr ((Tr::kOps & kBitOps) != 0) return Tr::bxor(d, s, n, a, w, ps);
      break;
    case Op::Max:
      if constexpr ((Tr::kOps & kMinMaxOps) != 0) return Tr::max(d, s, n, a, w, ps);
      break;
    case Op::Min:
      if constexpr ((Tr::kOps & kMinMaxOps) != 0) return Tr::min(d, s, n, a, w, ps);
      break;
    case Op::Sum: return Tr::sum(d, s, n, a, w, ps);
    case Op::Prod: return Tr::prod(d, s, n, a, w, ps);
  }
  ADD_FAILURE() << Tr::label() << " has no " << op_name(op) << "_to_all";
}

template <class Tr>
class ActiveSetReduce : public ::testing::Test {
 protected:
  void SetUp() override { reset_psyncs(); }
};
using ToAllTypes = ::testing::Types<ToAll_short, ToAll_int, ToAll_long, ToAll_longlong, ToAll_float, ToAll_double,
                                    ToAll_longdouble, ToAll_complexd, ToAll_complexf>;
struct ToAllName {
  template <class Tr>
  static std::string GetName(int) {
    return Tr::label();
  }
};
TYPED_TEST_SUITE(ActiveSetReduce, ToAllTypes, ToAllName);

/// pWrk elements for nreduce: max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE).
std::size_t pwrk_size(std::size_t nreduce) {
  return std::max<std::size_t>(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
}

template <class Tr>
std::string to_all_name(Op op, const ActiveSet& s, std::size_t n, bool in_place) {
  return "shmem_" + Tr::label() + "_" + op_name(op) + "_to_all" + (in_place ? " in place" : "") + " over " + s.name +
         ", nreduce " + std::to_string(n);
}

template <class T>
::testing::AssertionResult reduced_ok(const T* dst, Op op, const ActiveSet& s, std::size_t n) {
  auto r = equal_to(dst, n, [&](std::size_t i) { return reduced<T>(op, s.world, i); });
  if (!r) return r;
  r = untouched(dst + n, kPad);
  return r ? r : r << " (past nreduce)";
}

}  // namespace

TYPED_TEST(ActiveSetReduce, EveryOperationOverSeveralSets) {
  using Tr = TypeParam;
  using T = typename Tr::T;
  const int np = npes();
  std::vector<ActiveSet> sets = {make_set(0, 0, np, "whole job (0, 0, n)"), make_set(np - 1, 0, 1, "last PE alone")};
  if (np >= 2) sets.push_back(make_set(1, 1, np / 2, "odd PEs (1, 1, n/2)"));
  const std::size_t counts[] = {0, 1, 7, 64, 1001};
  const std::size_t cap = 1001 + kPad;
  Sym<T> src(cap), dst(cap), wrk0(pwrk_size(1001)), wrk1(pwrk_size(1001));
  if (!src.ok() || !dst.ok() || !wrk0.ok() || !wrk1.ok()) return;
  on_each_set(sets, [&](const ActiveSet& s) {
    Alternating psync;  // per set: every member starts with the same arrays
    unsigned calls = 0;
    for (std::size_t n : counts) {
      for (Op op : ops_in(Tr::kOps)) {
        std::string at = to_all_name<Tr>(op, s, n, false);
        fill_sentinel(dst.get(), cap);
        s.sync();
        for (std::size_t i = 0; i < n; ++i) src[i] = op_value<T>(op, me(), i);
        long* ps = psync.next();
        T* wrk = calls++ % 2 ? wrk1.get() : wrk0.get();
        to_all<Tr>(op, dst.get(), src.get(), static_cast<int>(n), s, wrk, ps);
        EXPECT_TRUE(restored(ps)) << at;
        EXPECT_TRUE(reduced_ok(dst.get(), op, s, n)) << at;
        if (n % 2 == 0) continue;
        at = to_all_name<Tr>(op, s, n, true);
        for (std::size_t i = 0; i < n; ++i) src[i] = op_value<T>(op, me(), i);
        fill_sentinel(src.get() + n, kPad);
        ps = psync.next();
        wrk = calls++ % 2 ? wrk1.get() : wrk0.get();
        to_all<Tr>(op, src.get(), src.get(), static_cast<int>(n), s, wrk, ps);
        EXPECT_TRUE(restored(ps)) << at;
        EXPECT_TRUE(reduced_ok(src.get(), op, s, n)) << at;
        s.sync();
      }
    }
  });
}

TYPED_TEST(ActiveSetReduce, BackToBackAlternatingPSyncAndPWrk) {
  // 32 reductions in a row per set, cycling through the type's operations,
  // alternating two pSync and two pWrk arrays; each result in its own region.
  using Tr = TypeParam;
  using T = typename Tr::T;
  const auto sets = active_sets();
  const auto ops = ops_in(Tr::kOps);
  const std::size_t pattern[] = {0, 7, 1, 0, 64, 0, 33, 2, 63};
  constexpr int kCalls = 32;
  const std::size_t region = 64 + kPad;
  Sym<T> src(64), dst(kCalls * region), wrk0(pwrk_size(64)), wrk1(pwrk_size(64));
  if (!src.ok() || !dst.ok() || !wrk0.ok() || !wrk1.ok()) return;
  on_each_set(sets, [&](const ActiveSet& s) {
    Alternating psync;
    fill_sentinel(dst.get(), dst.size());
    s.sync();
    std::vector<std::string> names;
    for (int r = 0; r < kCalls; ++r) {
      const std::size_t n = pattern[r % 9];
      const Op op = ops[r % ops.size()];
      names.push_back(to_all_name<Tr>(op, s, n, false));
      for (std::size_t i = 0; i < n; ++i) src[i] = op_value<T>(op, me(), i);
      long* ps = psync.next();
      to_all<Tr>(op, dst.get() + r * region, src.get(), static_cast<int>(n), s, r % 2 ? wrk1.get() : wrk0.get(), ps);
      EXPECT_TRUE(restored(ps)) << names.back() << " (call " << r << ")";
    }
    s.sync();
    for (int r = 0; r < kCalls; ++r)
      EXPECT_TRUE(reduced_ok(dst.get() + r * region, ops[r % ops.size()], s, pattern[r % 9]))
          << names[r] << " (call " << r << " of a back-to-back run)";
  });
}

TEST(ActiveSetConcurrent, DisjointSetsWithTheirOwnPSyncs) {
  // The even and the odd PEs run back-to-back fcollect64 and long sum_to_all
  // at the same time, each set with its own pair of pSync arrays.
  reset_psyncs();
  const int n = npes();
  const ActiveSet evens = make_set(0, 1, (n + 1) / 2, "even PEs"), odds = make_set(1, 1, n / 2, "odd PEs");
  const ActiveSet& s = evens.member() ? evens : odds;
  constexpr int kRounds = 40;
  constexpr std::size_t kN = 13;
  Sym<std::uint64_t> src(kN), dst(kRounds * (n * kN + kPad));
  Sym<long> lsrc(kN), ldst(kRounds * (kN + kPad)), wrk0(pwrk_size(kN)), wrk1(pwrk_size(kN));
  if (!src.ok() || !dst.ok() || !lsrc.ok() || !ldst.ok() || !wrk0.ok() || !wrk1.ok()) return;
  fill_sentinel(dst.get(), dst.size());
  fill_sentinel(ldst.get(), ldst.size());
  shmem_barrier_all();
  if (s.member() && s.size > 0) {
    Alternating psync(evens.member() ? 0 : 1);
    for (int r = 0; r < kRounds; ++r) {
      fill_data(src.get(), kN, me(), r);
      long* ps = psync.next();
      shmem_fcollect64(dst.get() + r * (n * kN + kPad), src.get(), kN, s.start, s.log_stride, s.size, ps);
      EXPECT_TRUE(restored(ps)) << "shmem_fcollect64 over the " << s.name << ", round " << r;
      for (std::size_t i = 0; i < kN; ++i) lsrc[i] = op_value<long>(Op::Sum, me(), i + r);
      ps = psync.next();
      shmem_long_sum_to_all(ldst.get() + r * (kN + kPad), lsrc.get(), kN, s.start, s.log_stride, s.size,
                            r % 2 ? wrk1.get() : wrk0.get(), ps);
      EXPECT_TRUE(restored(ps)) << "shmem_long_sum_to_all over the " << s.name << ", round " << r;
    }
    s.sync();
    for (int r = 0; r < kRounds; ++r) {
      EXPECT_TRUE(collected(dst.get() + r * (n * kN + kPad), s, std::vector<std::size_t>(s.size, kN), r))
          << "shmem_fcollect64 over the " << s.name << ", round " << r;
      EXPECT_TRUE(equal_to(ldst.get() + r * (kN + kPad), kN, [&](std::size_t i) {
        return reduced<long>(Op::Sum, s.world, i + r);
      })) << "shmem_long_sum_to_all over the " << s.name << ", round " << r;
    }
  }
  shmem_barrier_all();
}

TEST(ActiveSetPSync, BarrierRightAfterACollectiveOnTheSamePSync) {
  // A common idiom: a collective, then shmem_barrier on the same pSync at
  // once. The collective's words must not share longs with the barrier's.
  static long ps[SHMEM_BCAST_SYNC_SIZE];
  for (long& v : ps) v = SHMEM_SYNC_VALUE;
  const int n = npes();
  Sym<long> src(4), dst(4);
  if (!src.ok() || !dst.ok()) return;
  shmem_barrier_all();
  for (int it = 0; it < 3000; ++it) {
    const int root = it % n;
    for (int i = 0; i < 4; ++i) src[i] = me() * 1000 + it * 4 + i, dst[i] = -1;
    shmem_broadcast64(dst.get(), src.get(), 4, root, 0, 0, n, ps);
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(dst[i], me() == root ? -1 : root * 1000 + it * 4 + i) << "call " << it << ", element " << i;
    shmem_barrier(0, 0, n, ps);
  }
  EXPECT_TRUE(std::all_of(std::begin(ps), std::end(ps), [](long v) { return v == SHMEM_SYNC_VALUE; }));
}
