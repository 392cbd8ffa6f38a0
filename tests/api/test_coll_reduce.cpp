// Team reductions (OpenSHMEM 1.5 section 9.9): shmem_TYPENAME_OP_reduce for
// every row and operation of the "Team-Based Reductions" table (and, or, xor
// for the unsigned and fixed-width integer rows; max and min for every
// non-complex row; sum and prod for every row, complexd and complexf
// included), the C++ and C11 generic forms, on every team of coll::TeamSet.
// Values exercise each operation (see coll::op_value); each result element
// is checked exactly against the reduction computed from the members' world
// PE numbers. Reductions run out of place and in place (source == dest),
// for counts 0 to 64 Ki + 1 (a sweep for one type of each size) and 3 MiB.
#include <functional>

#include "coll_traits.hpp"

using namespace coll;

extern "C" int coll_c_generic_reduce(void);

namespace {

#define RED_TRAITS_NAME(NAME) , Red_##NAME
#define DROP_FIRST_(x, ...) __VA_ARGS__
#define DROP_FIRST(...) DROP_FIRST_(__VA_ARGS__)
using RedTypes = ::testing::Types<DROP_FIRST(COLL_RED_BITWISE(RED_TRAITS_NAME) COLL_RED_ORDERED(RED_TRAITS_NAME)
                                                 COLL_RED_COMPLEX(RED_TRAITS_NAME)),
                                  Red_generic<unsigned int, kBitOps | kMinMaxOps | kArithOps>,
                                  Red_generic<long, kBitOps | kMinMaxOps | kArithOps>,
                                  Red_generic<char, kMinMaxOps | kArithOps>, Red_generic<double, kMinMaxOps | kArithOps>>;

struct TraitsName {
  template <class Tr>
  static std::string GetName(int) {
    return Tr::label();
  }
};

template <class Tr>
class CollReduce : public ::testing::Test {};
TYPED_TEST_SUITE(CollReduce, RedTypes, TraitsName);

// One type of each size and kind sweeps the counts.
template <class Tr>
constexpr bool kSweeps = std::is_same_v<Tr, Red_uchar> || std::is_same_v<Tr, Red_short> ||
                         std::is_same_v<Tr, Red_int32> || std::is_same_v<Tr, Red_float> ||
                         std::is_same_v<Tr, Red_int64> || std::is_same_v<Tr, Red_double> ||
                         std::is_same_v<Tr, Red_longdouble> || std::is_same_v<Tr, Red_complexd>;

template <class Tr>
std::string where(Op op, const TeamCase& tc, std::size_t n, bool in_place) {
  return reduce_name<Tr>(op) + (in_place ? " in place" : "") + " on " + tc.name + ", nreduce " + std::to_string(n);
}

template <class T>
void fill_op_values(T* p, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) p[i] = op_value<T>(op, me(), i);
}

// dest[0..n) holds the reduction over the team, dest[n..n+kPad) the sentinel.
template <class T>
::testing::AssertionResult reduced_ok(const T* dst, Op op, const TeamCase& tc, std::size_t n) {
  auto r = equal_to(dst, n, [&](std::size_t i) { return reduced<T>(op, tc.world, i); });
  if (!r) return r;
  r = untouched(dst + n, kPad);
  if (!r) return r << " (past nreduce)";
  return r;
}

}  // namespace

TYPED_TEST(CollReduce, EveryOperationOutOfPlaceAndInPlace) {
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const auto counts = kSweeps<Tr> ? sweep_counts(sizeof(T)) : small_counts();
  const auto ops = ops_in(Tr::kOps);
  const std::size_t cap = counts.back() + kPad;
  Sym<T> src(cap), dst(cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      const std::size_t n = counts[ni];
      if (!runs_on(tc, n)) continue;
      for (Op op : ops) {
        // Above 4097 elements: sum and one more operation per count.
        if (n > 4097 && op != Op::Sum && op != ops[ni % ops.size()]) continue;
        // Out of place: dest reset and the team synced first; the source is
        // written after the sync (the call itself must wait for it).
        std::string at = where<Tr>(op, tc, n, false);
        fill_sentinel(dst.get(), cap);
        shmem_team_sync(tc.team);
        fill_op_values(src.get(), n, op);
        EXPECT_EQ(reduce_call<Tr>(op, tc.team, dst.get(), src.get(), n), 0) << at;
        EXPECT_TRUE(reduced_ok(dst.get(), op, tc, n)) << at;
        EXPECT_TRUE(equal_to(src.get(), n, [&](std::size_t i) { return op_value<T>(op, me(), i); }))
            << at << ": the source changed";
        if (n % 2 == 0) continue;
        // In place, for odd counts: source == dest. No sync is needed: the
        // result depends on this PE's contribution, so nobody writes this
        // array before this PE has entered the call.
        at = where<Tr>(op, tc, n, true);
        fill_op_values(src.get(), n, op);
        fill_sentinel(src.get() + n, kPad);
        EXPECT_EQ(reduce_call<Tr>(op, tc.team, src.get(), src.get(), n), 0) << at;
        EXPECT_TRUE(reduced_ok(src.get(), op, tc, n)) << at;
        shmem_team_sync(tc.team);  // every member checked before the next call may write
      }
    }
  });
}

TYPED_TEST(CollReduce, BackToBackWithZeroCounts) {
  // Runs of reductions with every operation of the type, in and out of
  // place, nreduce 0 among them, with no synchronization but the calls
  // themselves; each call has its own region of dest (NOTE [dest
  // readiness]), checked after a closing team sync.
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const std::size_t pattern[] = {0, 7, 0, 0, 1001, 1, 0, 64, 63};
  const auto ops = ops_in(Tr::kOps);
  constexpr int kCalls = 16;
  Sym<T> src(1001 + 1), dst(kCalls * (1001 + kPad));
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    for (int round = 0; round < 2; ++round) {
      fill_sentinel(dst.get(), dst.size());
      shmem_team_sync(tc.team);
      std::vector<std::function<::testing::AssertionResult()>> checks;
      std::vector<std::string> names;
      T* region = dst.get();
      for (int r = 0; r < kCalls; ++r) {
        const std::size_t n = pattern[(r + round) % 9];
        const Op op = ops[(r + round) % ops.size()];
        const bool in_place = (r + round) % 3 == 1;
        names.push_back(where<Tr>(op, tc, n, in_place));
        if (in_place) {
          fill_op_values(region, n, op);
          EXPECT_EQ(reduce_call<Tr>(op, tc.team, region, region, n), 0) << names.back();
        } else {
          fill_op_values(src.get(), n, op);
          EXPECT_EQ(reduce_call<Tr>(op, tc.team, region, src.get(), n), 0) << names.back();
        }
        checks.push_back([=] { return reduced_ok(region, op, tc, n); });
        region += n + kPad;
      }
      shmem_team_sync(tc.team);
      for (std::size_t r = 0; r < checks.size(); ++r)
        EXPECT_TRUE(checks[r]()) << names[r] << " (call " << r << " of a back-to-back run)";
    }
  });
}

// ---- large arrays --------------------------------------------------------------------------

TEST(CollReduceBig, ThreeMiBArrays) {
  // 3 MiB + 4 bytes of int summed on the world, 3 MiB + 8 bytes of double
  // reduced in place with max on the reversed world, 1 MiB + 5 bytes of
  // uint8 xor-ed on the y-teams of split_2d.
  TeamSet teams;
  const std::size_t ni = kBigBytes / 4, nd = kBigBytes / 8 + 1, nb = (std::size_t{1} << 20) + 5;
  Sym<int> isrc(ni), idst(ni + kPad);
  Sym<double> dbuf(nd + kPad);
  Sym<std::uint8_t> bsrc(nb), bdst(nb + kPad);
  if (!isrc.ok() || !idst.ok() || !dbuf.ok() || !bsrc.ok() || !bdst.ok()) return;
  fill_sentinel(idst.get(), idst.size());
  fill_sentinel(bdst.get(), bdst.size());
  shmem_barrier_all();
  const TeamCase& w = teams.world();
  fill_op_values(isrc.get(), ni, Op::Sum);
  EXPECT_EQ(shmem_int_sum_reduce(w.team, idst.get(), isrc.get(), ni), 0);
  EXPECT_TRUE(reduced_ok(idst.get(), Op::Sum, w, ni)) << "shmem_int_sum_reduce of " << ni << " elements";
  const TeamCase& rev = teams.reversed();
  fill_op_values(dbuf.get(), nd, Op::Max);
  fill_sentinel(dbuf.get() + nd, kPad);
  EXPECT_EQ(shmem_double_max_reduce(rev.team, dbuf.get(), dbuf.get(), nd), 0);
  EXPECT_TRUE(reduced_ok(dbuf.get(), Op::Max, rev, nd)) << "shmem_double_max_reduce in place of " << nd << " elements";
  const TeamCase& y = teams.all().back();
  fill_op_values(bsrc.get(), nb, Op::Xor);
  EXPECT_EQ(shmem_uint8_xor_reduce(y.team, bdst.get(), bsrc.get(), nb), 0);
  EXPECT_TRUE(reduced_ok(bdst.get(), Op::Xor, y, nb)) << "shmem_uint8_xor_reduce of " << nb << " elements on "
                                                      << y.name;
  shmem_barrier_all();
}

// ---- SHMEM_TEAM_INVALID --------------------------------------------------------------------

TEST(CollReduceInvalidTeam, EveryOperationReturnsNonZero) {
  // Each PE on its own: the call returns at once, non-zero, dest untouched.
  Sym<unsigned int> usrc(4), udst(4);
  Sym<double> dsrc(4), ddst(4);
  if (!usrc.ok() || !udst.ok() || !dsrc.ok() || !ddst.ok()) return;
  fill_sentinel(udst.get(), 4);
  fill_sentinel(ddst.get(), 4);
  const shmem_team_t bad = SHMEM_TEAM_INVALID;
  for (Op op : ops_in(kBitOps | kMinMaxOps | kArithOps))
    EXPECT_NE(reduce_call<Red_uint>(op, bad, udst.get(), usrc.get(), 1), 0) << reduce_name<Red_uint>(op);
  for (Op op : ops_in(kMinMaxOps | kArithOps))
    EXPECT_NE(reduce_call<Red_double>(op, bad, ddst.get(), dsrc.get(), 1), 0) << reduce_name<Red_double>(op);
  EXPECT_NE(shmem_sum_reduce(bad, ddst.get(), dsrc.get(), 1), 0) << "generic shmem_sum_reduce";
  EXPECT_NE(shmem_and_reduce(bad, udst.get(), usrc.get(), 1), 0) << "generic shmem_and_reduce";
  EXPECT_TRUE(untouched(udst.get(), 4));
  EXPECT_TRUE(untouched(ddst.get(), 4));
  Sym<typename Red_complexd::T> csrc(2), cdst(2);
  if (csrc.ok() && cdst.ok()) {
    EXPECT_NE(shmem_complexd_sum_reduce(bad, cdst.get(), csrc.get(), 1), 0);
    EXPECT_NE(shmem_complexd_prod_reduce(bad, cdst.get(), csrc.get(), 1), 0);
  }
  shmem_barrier_all();
}

// ---- C11 generic forms ---------------------------------------------------------------------

TEST(CollGenericC, Reductions) {
  // coll_generic_c.c: shmem_{and,or,xor,max,min,sum,prod}_reduce through
  // _Generic, every distinct C type of the table, double and float _Complex.
  EXPECT_EQ(coll_c_generic_reduce(), 0) << "see the failures printed above";
}
