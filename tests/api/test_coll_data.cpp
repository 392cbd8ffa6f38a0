// Team data-movement collectives (OpenSHMEM 1.5 section 9.9): broadcast,
// collect, fcollect, alltoall and alltoalls for every type of the standard
// RMA types table, the mem forms and the C++ and C11 generic forms, on every
// team of coll::TeamSet. Counts: 0, 1, odd, powers of two and their
// neighbours up to 64 Ki + 1 (a sweep for one type of each size and for the
// mem forms), and blocks of 3 MiB + 5 bytes. Broadcast from every root,
// collect with different counts per PE (zero included), alltoalls with
// strides 1..3. Every element is checked exactly, and so are the elements no
// call may write: past the data, between strided elements, and sources.
// See coll_test.hpp, NOTE [dest readiness], for when dest may be checked.
#include <functional>

#include "coll_traits.hpp"

using namespace coll;

extern "C" int coll_c_generic_data(void);

namespace {

#define DATA_TRAITS_NAME(TYPE, NAME) , Data_##NAME
#define DROP_FIRST_(x, ...) __VA_ARGS__
#define DROP_FIRST(...) DROP_FIRST_(__VA_ARGS__)
using DataTypes =
    ::testing::Types<DROP_FIRST(SHMEMI_RMA_TYPES(DATA_TRAITS_NAME)), Data_mem, Data_generic<char>, Data_generic<int>,
                     Data_generic<unsigned long long>, Data_generic<double>, Data_generic<long double>>;

struct TraitsName {
  template <class Tr>
  static std::string GetName(int) {
    return Tr::label();
  }
};

template <class Tr>
class CollData : public ::testing::Test {};
TYPED_TEST_SUITE(CollData, DataTypes, TraitsName);

// One type of each element size, and the mem forms, sweep the counts.
template <class Tr>
constexpr bool kSweeps = std::is_same_v<Tr, Data_uchar> || std::is_same_v<Tr, Data_short> ||
                         std::is_same_v<Tr, Data_float> || std::is_same_v<Tr, Data_long> ||
                         std::is_same_v<Tr, Data_longdouble> || std::is_same_v<Tr, Data_mem>;

template <class Tr>
std::vector<std::size_t> counts_for(std::size_t limit = ~std::size_t{0}) {
  std::vector<std::size_t> v;
  for (std::size_t n : kSweeps<Tr> ? sweep_counts(sizeof(typename Tr::T)) : small_counts())
    if (n <= limit) v.push_back(n);
  return v;
}

// Every root for counts up to 4097; the first, last and middle one above.
std::vector<int> roots_for(int size, std::size_t n) {
  std::vector<int> v;
  if (n <= 4097) {
    for (int r = 0; r < size; ++r) v.push_back(r);
  } else {
    for (int r : {0, size - 1, size / 2})
      if (std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
  }
  return v;
}

template <class Tr>
std::string where(const TeamCase& tc, const char* routine, std::size_t n) {
  return std::string(routine) + "<" + Tr::label() + "> on " + tc.name + ", nelems " + std::to_string(n);
}

template <class T>
void fill_data(T* p, std::size_t n, int pe, int salt) {
  for (std::size_t i = 0; i < n; ++i) p[i] = datum<T>(pe, i, salt);
}

// Per-member counts of a collect: 0 equal, 1 every third member contributes
// nothing and the others n + k, 2 only the last member contributes.
std::vector<std::size_t> collect_counts(int pattern, int size, std::size_t n) {
  std::vector<std::size_t> c(size);
  for (int k = 0; k < size; ++k) {
    if (pattern == 0) c[k] = n;
    else if (pattern == 1) c[k] = k % 3 == 1 ? 0 : n + k;
    else c[k] = k == size - 1 ? n : 0;
  }
  return c;
}

// dest after a collect of the members' blocks (counts c) with `salt`,
// followed by kPad untouched elements.
template <class T>
::testing::AssertionResult collected(const T* dst, const TeamCase& tc, const std::vector<std::size_t>& c, int salt) {
  std::size_t off = 0;
  for (int k = 0; k < tc.size(); ++k) {
    auto r = equal_to(dst + off, c[k], [&](std::size_t i) { return datum<T>(tc.world[k], i, salt); });
    if (!r) return r << " (block of team PE " << k << " at offset " << off << ")";
    off += c[k];
  }
  auto r = untouched(dst + off, kPad);
  if (!r) return r << " (past the " << off << " collected elements)";
  return r;
}

// dest after an alltoalls (or alltoall: strides 1) with `salt`: team PE k's
// block for this PE, element e, sits at dest[(k * n + e) * dst] and came
// from source[(idx * n + e) * sst] of PE k; every other element of the
// (size * n * dst)-element range and kPad past it are untouched.
template <class T>
::testing::AssertionResult exchanged(const T* dst, const TeamCase& tc, std::size_t n, std::ptrdiff_t ds,
                                     std::ptrdiff_t ss, int salt) {
  const std::size_t d = static_cast<std::size_t>(ds), s = static_cast<std::size_t>(ss);
  for (int k = 0; k < tc.size(); ++k) {
    auto r = equal_to(
        dst + k * n * d, n, [&](std::size_t e) { return datum<T>(tc.world[k], (tc.idx * n + e) * s, salt); }, d);
    if (!r) return r << " (block from team PE " << k << ")";
  }
  const std::size_t span = tc.size() * n * d;
  for (std::size_t gap = 1; gap < d; ++gap) {
    auto r = equal_to(dst + gap, tc.size() * n, [](std::size_t) { return sentinel<T>(); }, d);
    if (!r) return r << " (between strided elements, offset " << gap << ")";
  }
  auto r = untouched(dst + span, kPad);
  if (!r) return r << " (past the " << span << "-element range)";
  return r;
}

}  // namespace

// ---- broadcast -----------------------------------------------------------------------

TYPED_TEST(CollData, Broadcast) {
  // dest is written on every member, the root included; the source is left alone.
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const auto counts = counts_for<Tr>();
  const std::size_t cap = counts.back() + kPad;
  Sym<T> src(cap), dst(cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    const int case_no = tc.no;
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      const std::size_t n = counts[ni];
      if (!runs_on(tc, n)) continue;
      for (int root : roots_for(tc.size(), n)) {
        const int salt = case_no * 10000 + static_cast<int>(ni) * 100 + root;
        const std::string at = where<Tr>(tc, "broadcast", n) + ", root " + std::to_string(root);
        fill_sentinel(dst.get(), n + kPad);
        shmem_team_sync(tc.team);
        fill_data(src.get(), n, me(), salt);
        EXPECT_EQ(Tr::broadcast(tc.team, dst.get(), src.get(), n, root), 0) << at;
        EXPECT_TRUE(equal_to(dst.get(), n, [&](std::size_t i) { return datum<T>(tc.world[root], i, salt); })) << at;
        EXPECT_TRUE(untouched(dst.get() + n, kPad)) << at << ": past nelems";
        EXPECT_TRUE(equal_to(src.get(), n, [&](std::size_t i) { return datum<T>(me(), i, salt); }))
            << at << ": the source changed";
      }
    }
  });
}

// ---- collect and fcollect ------------------------------------------------------------------

TYPED_TEST(CollData, Collect) {
  // The members' blocks concatenated in team order, each member with its own
  // count: all equal, some members with none, only the last one.
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const auto counts = counts_for<Tr>();
  const int n_max = npes();
  const std::size_t src_cap = counts.back() + n_max + kPad, dst_cap = n_max * src_cap + kPad;
  Sym<T> src(src_cap), dst(dst_cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    const int case_no = tc.no;
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      if (!runs_on(tc, counts[ni])) continue;
      for (int pattern = 0; pattern < 3; ++pattern) {
        const auto c = collect_counts(pattern, tc.size(), counts[ni]);
        const int salt = case_no * 10000 + static_cast<int>(ni) * 100 + pattern;
        const std::string at = where<Tr>(tc, "collect", c[tc.idx]) + ", count pattern " + std::to_string(pattern);
        std::size_t total = 0;
        for (std::size_t x : c) total += x;
        fill_sentinel(dst.get(), total + kPad);
        shmem_team_sync(tc.team);
        fill_data(src.get(), c[tc.idx], me(), salt);
        EXPECT_EQ(Tr::collect(tc.team, dst.get(), src.get(), c[tc.idx]), 0) << at;
        EXPECT_TRUE(collected(dst.get(), tc, c, salt)) << at;
        EXPECT_TRUE(equal_to(src.get(), c[tc.idx], [&](std::size_t i) { return datum<T>(me(), i, salt); }))
            << at << ": the source changed";
      }
    }
  });
}

TYPED_TEST(CollData, Fcollect) {
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const auto counts = counts_for<Tr>();
  const std::size_t dst_cap = npes() * counts.back() + kPad;
  Sym<T> src(counts.back() + 1), dst(dst_cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    const int case_no = tc.no;
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      const std::size_t n = counts[ni];
      if (!runs_on(tc, n)) continue;
      const int salt = case_no * 10000 + static_cast<int>(ni);
      const std::string at = where<Tr>(tc, "fcollect", n);
      fill_sentinel(dst.get(), tc.size() * n + kPad);
      shmem_team_sync(tc.team);
      fill_data(src.get(), n, me(), salt);
      EXPECT_EQ(Tr::fcollect(tc.team, dst.get(), src.get(), n), 0) << at;
      EXPECT_TRUE(collected(dst.get(), tc, std::vector<std::size_t>(tc.size(), n), salt)) << at;
      EXPECT_TRUE(equal_to(src.get(), n, [&](std::size_t i) { return datum<T>(me(), i, salt); }))
          << at << ": the source changed";
    }
  });
}

// ---- alltoall and alltoalls ----------------------------------------------------------------

TYPED_TEST(CollData, Alltoall) {
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const auto counts = counts_for<Tr>();
  const std::size_t src_cap = npes() * counts.back() + 1, dst_cap = npes() * counts.back() + kPad;
  Sym<T> src(src_cap), dst(dst_cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    const int case_no = tc.no;
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      const std::size_t n = counts[ni];
      if (!runs_on(tc, n)) continue;
      const int salt = case_no * 10000 + static_cast<int>(ni);
      const std::string at = where<Tr>(tc, "alltoall", n);
      fill_sentinel(dst.get(), tc.size() * n + kPad);
      shmem_team_sync(tc.team);
      fill_data(src.get(), tc.size() * n, me(), salt);
      EXPECT_EQ(Tr::alltoall(tc.team, dst.get(), src.get(), n), 0) << at;
      EXPECT_TRUE(exchanged(dst.get(), tc, n, 1, 1, salt)) << at;
      EXPECT_TRUE(equal_to(src.get(), tc.size() * n, [&](std::size_t i) { return datum<T>(me(), i, salt); }))
          << at << ": the source changed";
    }
  });
}

TYPED_TEST(CollData, Alltoalls) {
  // Strides are in elements: PE k's element e for PE j is source[(j*n + e) * sst]
  // and lands in PE j's dest[(k*n + e) * dst]; the elements in between stay.
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const auto counts = counts_for<Tr>(4097);
  std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> strides = {{1, 1}, {2, 3}, {3, 2}};
  if (kSweeps<Tr>) strides = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {3, 3}};
  const std::size_t cap = 3 * npes() * counts.back() + kPad;
  Sym<T> src(cap), dst(cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    const int case_no = tc.no;
    for (std::size_t ni = 0; ni < counts.size(); ++ni) {
      if (!runs_on(tc, counts[ni])) continue;
      for (std::size_t si = 0; si < strides.size(); ++si) {
        if (counts[ni] > 1001 && si % 3 != 0) continue;  // three stride pairs above 1001
        const std::size_t n = counts[ni];
        const auto [ds, ss] = strides[si];
        const int salt = case_no * 10000 + static_cast<int>(ni) * 100 + static_cast<int>(si);
        const std::string at =
            where<Tr>(tc, "alltoalls", n) + ", dst " + std::to_string(ds) + ", sst " + std::to_string(ss);
        fill_sentinel(dst.get(), tc.size() * n * ds + kPad);
        shmem_team_sync(tc.team);
        fill_data(src.get(), tc.size() * n * ss, me(), salt);
        EXPECT_EQ(Tr::alltoalls(tc.team, dst.get(), src.get(), ds, ss, n), 0) << at;
        EXPECT_TRUE(exchanged(dst.get(), tc, n, ds, ss, salt)) << at;
      }
    }
  });
}

// ---- back to back, zero counts -------------------------------------------------------------

TYPED_TEST(CollData, BackToBackWithZeroCounts) {
  // Runs of calls of every kind with no synchronization but the calls
  // themselves, where calls with nelems 0 are followed at once by real ones:
  // each call writes its own region of dest (NOTE [dest readiness]); after a
  // closing team sync every region must hold its call's data and the kPad
  // elements after each region (the only ones of a zero-count call) are
  // untouched.
  using Tr = TypeParam;
  using T = typename Tr::T;
  TeamSet teams;
  const std::size_t pattern[] = {0, 7, 0, 0, 1001, 1, 0, 64, 0};
  constexpr int kCalls = 20;
  const int n_max = npes();
  std::size_t cap = 0;  // generous: the largest count, per call, as strided alltoalls of 3 * n_max blocks
  for (int r = 0; r < kCalls; ++r) cap += 3 * n_max * (pattern[r % 9] + n_max) + kPad;
  Sym<T> src(3 * n_max * (1001 + n_max) + 1), dst(cap);
  if (!src.ok() || !dst.ok()) return;
  on_each_team(teams, [&](const TeamCase& tc) {
    const int case_no = tc.no;
    for (int round = 0; round < 2; ++round) {
      fill_sentinel(dst.get(), cap);
      shmem_team_sync(tc.team);
      std::vector<std::function<::testing::AssertionResult()>> checks;
      std::vector<std::string> names;
      T* region = dst.get();
      for (int r = 0; r < kCalls; ++r) {
        const std::size_t n = pattern[(r + round) % 9];
        const int salt = case_no * 10000 + round * 100 + r, size = tc.size();
        const int kind = (r + round) % 5;
        std::size_t used = 0;
        std::string at;
        switch (kind) {
          case 0: {
            const int root = (r * 7 + round) % size;
            fill_data(src.get(), n, me(), salt);
            at = where<Tr>(tc, "broadcast", n) + ", root " + std::to_string(root);
            EXPECT_EQ(Tr::broadcast(tc.team, region, src.get(), n, root), 0) << at;
            checks.push_back([=] {
              auto res = equal_to(region, n, [&](std::size_t i) { return datum<T>(tc.world[root], i, salt); });
              return res ? untouched(region + n, kPad) : res;
            });
            used = n;
            break;
          }
          case 1: {
            const auto c = collect_counts(r % 3, size, n);
            fill_data(src.get(), c[tc.idx], me(), salt);
            at = where<Tr>(tc, "collect", c[tc.idx]) + ", count pattern " + std::to_string(r % 3);
            EXPECT_EQ(Tr::collect(tc.team, region, src.get(), c[tc.idx]), 0) << at;
            checks.push_back([=] { return collected(region, tc, c, salt); });
            for (std::size_t x : c) used += x;
            break;
          }
          case 2: {
            fill_data(src.get(), n, me(), salt);
            at = where<Tr>(tc, "fcollect", n);
            EXPECT_EQ(Tr::fcollect(tc.team, region, src.get(), n), 0) << at;
            checks.push_back([=] { return collected(region, tc, std::vector<std::size_t>(size, n), salt); });
            used = size * n;
            break;
          }
          case 3: {
            fill_data(src.get(), size * n, me(), salt);
            at = where<Tr>(tc, "alltoall", n);
            EXPECT_EQ(Tr::alltoall(tc.team, region, src.get(), n), 0) << at;
            checks.push_back([=] { return exchanged(region, tc, n, 1, 1, salt); });
            used = size * n;
            break;
          }
          default: {
            const std::ptrdiff_t ds = 1 + r % 3, ss = 1 + (r + 1) % 3;
            fill_data(src.get(), size * n * ss, me(), salt);
            at = where<Tr>(tc, "alltoalls", n) + ", dst " + std::to_string(ds) + ", sst " + std::to_string(ss);
            EXPECT_EQ(Tr::alltoalls(tc.team, region, src.get(), ds, ss, n), 0) << at;
            checks.push_back([=] { return exchanged(region, tc, n, ds, ss, salt); });
            used = size * n * ds;
            break;
          }
        }
        names.push_back(at);
        region += used + kPad;
      }
      shmem_team_sync(tc.team);
      for (std::size_t r = 0; r < checks.size(); ++r)
        EXPECT_TRUE(checks[r]()) << names[r] << " (call " << r << " of a back-to-back run)";
    }
  });
}

// ---- large blocks --------------------------------------------------------------------------

TEST(CollDataBig, ThreeMiBBlocks) {
  // The mem forms with 3 MiB + 5 bytes in all (per PE block for the
  // collects and alltoalls: the total over the PEs, odd) on the world, and
  // one typed fcollect of a similar size.
  TeamSet teams;
  using T = unsigned char;
  const int n_max = npes();
  const std::size_t block = (kBigBytes / n_max) | 1;
  Sym<T> src(kBigBytes + kPad), dst(kBigBytes + n_max * block + kPad);
  Sym<long> lsrc(block / 8 + 1), ldst(n_max * (block / 8 + 1) + kPad);
  if (!src.ok() || !dst.ok() || !lsrc.ok() || !ldst.ok()) return;
  const std::size_t dst_cap = dst.size();
  const TeamCase& tc = teams.world();
  const int size = tc.size(), root = size - 1, salt = 1;
  auto reset = [&] {
    fill_sentinel(dst.get(), dst_cap);
    shmem_team_sync(tc.team);
  };
  // broadcastmem of 3 MiB + 5 bytes from the last team PE.
  reset();
  fill_data(src.get(), kBigBytes, me(), salt);
  EXPECT_EQ(shmem_broadcastmem(tc.team, dst.get(), src.get(), kBigBytes, root), 0) << tc.name;
  EXPECT_TRUE(equal_to(dst.get(), kBigBytes, [&](std::size_t i) { return datum<T>(tc.world[root], i, salt); }))
      << "shmem_broadcastmem of " << kBigBytes << " bytes on " << tc.name;
  EXPECT_TRUE(untouched(dst.get() + kBigBytes, kPad));
  // fcollectmem and collectmem (counts block - 2k).
  reset();
  fill_data(src.get(), block, me(), salt + 1);
  EXPECT_EQ(shmem_fcollectmem(tc.team, dst.get(), src.get(), block), 0) << tc.name;
  EXPECT_TRUE(collected(dst.get(), tc, std::vector<std::size_t>(size, block), salt + 1))
      << "shmem_fcollectmem of " << block << " bytes per PE on " << tc.name;
  std::vector<std::size_t> c(size);
  for (int k = 0; k < size; ++k) c[k] = block - 2 * k;
  reset();
  fill_data(src.get(), c[tc.idx], me(), salt + 2);
  EXPECT_EQ(shmem_collectmem(tc.team, dst.get(), src.get(), c[tc.idx]), 0) << tc.name;
  EXPECT_TRUE(collected(dst.get(), tc, c, salt + 2)) << "shmem_collectmem on " << tc.name;
  // alltoallmem of one block per PE, alltoallsmem with strides 2 and 3.
  const std::size_t a2a = kBigBytes / size;
  reset();
  fill_data(src.get(), size * a2a, me(), salt + 3);
  EXPECT_EQ(shmem_alltoallmem(tc.team, dst.get(), src.get(), a2a), 0) << tc.name;
  EXPECT_TRUE(exchanged(dst.get(), tc, a2a, 1, 1, salt + 3)) << "shmem_alltoallmem on " << tc.name;
  const std::size_t a2as = kBigBytes / size / 3;
  reset();
  fill_data(src.get(), size * a2as * 3, me(), salt + 4);
  EXPECT_EQ(shmem_alltoallsmem(tc.team, dst.get(), src.get(), 2, 3, a2as), 0) << tc.name;
  EXPECT_TRUE(exchanged(dst.get(), tc, a2as, 2, 3, salt + 4)) << "shmem_alltoallsmem on " << tc.name;
  // A typed fcollect of about the same size.
  const std::size_t ln = block / 8 + 1;
  fill_sentinel(ldst.get(), ldst.size());
  shmem_team_sync(tc.team);
  fill_data(lsrc.get(), ln, me(), salt + 5);
  EXPECT_EQ(shmem_long_fcollect(tc.team, ldst.get(), lsrc.get(), ln), 0) << tc.name;
  EXPECT_TRUE(collected(ldst.get(), tc, std::vector<std::size_t>(size, ln), salt + 5))
      << "shmem_long_fcollect on " << tc.name;
  shmem_barrier_all();
}

// ---- dests are written only once their owner entered the call ----------------------------

// More than the specification asks (NOTE [dest readiness]): no algorithm
// writes a member's dest before that member entered the call, so a member
// may still read the result of the last call while the others run ahead
// into the next one on the same dest. PE 0 dawdles after the first of two
// calls and checks that its dest still holds the first result; the others
// go on at once. (The pause only gives a wrong algorithm the time to show
// itself: a right one passes however the PEs are scheduled.)
TEST(CollDataDest, NotWrittenBeforeItsOwnerEnters) {
  using T = long;
  const TeamCase world{"SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, strided_members(0, 1, npes()), me()};
  const int size = world.size();
  for (std::size_t n : {std::size_t{1}, std::size_t{3000}, std::size_t{70001}}) {
    Sym<T> src(n * size), dst(n * size + kPad);
    if (!src.ok() || !dst.ok()) return;
    auto twice = [&](const char* what, auto call, auto check) {
      fill_sentinel(dst.get(), dst.size());
      shmem_barrier_all();
      for (int salt : {1, 2}) {
        fill_data(src.get(), n * size, me(), salt);
        ASSERT_EQ(call(), 0) << what << " of " << n;
        if (salt == 1 && me() == 0) usleep(20000);
        EXPECT_TRUE(check(salt)) << what << " of " << n << " elements, call " << salt
                                 << (salt == 1 ? ": a peer wrote this dest before this PE entered the next call" : "");
      }
    };
    twice("shmem_long_broadcast", [&] { return shmem_long_broadcast(SHMEM_TEAM_WORLD, dst.get(), src.get(), n, size - 1); },
          [&](int salt) { return equal_to(dst.get(), n, [&](std::size_t i) { return datum<T>(size - 1, i, salt); }); });
    twice("shmem_long_fcollect", [&] { return shmem_long_fcollect(SHMEM_TEAM_WORLD, dst.get(), src.get(), n); },
          [&](int salt) { return collected(dst.get(), world, std::vector<std::size_t>(size, n), salt); });
    twice("shmem_long_alltoall", [&] { return shmem_long_alltoall(SHMEM_TEAM_WORLD, dst.get(), src.get(), n); },
          [&](int salt) { return exchanged(dst.get(), world, n, 1, 1, salt); });
    shmem_barrier_all();
  }
}

// ---- a broadcast root runs ahead -----------------------------------------------------------

// A broadcast root waits for nobody until it would reuse a tagged record or
// a scratch slot that a reader has not left (NOTE [scratch slots], NOTE
// [tagged lines]). Here the root runs through three phases while its
// readers dawdle, for 20 ms at the start of each and then at random: 1600
// calls of 1 long (16-byte records: three times the ring), 400 calls of
// 2-7 longs (64-byte records) and 400 of 1-16 longs, which take every
// ring and, every sixteenth, a scratch slot. Each call writes its own
// region of dest, checked after a closing sync: a root that reused a
// record or a slot too early leaves a reader with a later call's data.
TEST(CollDataAhead, ABroadcastRootRunsAheadOfSlowReaders) {
  using T = long;
  constexpr int kCalls = 2400, kPhase2 = 1600, kPhase3 = 2000;
  constexpr std::size_t kMax = 16, kRegion = kMax + kPad;
  auto count = [](int r) -> std::size_t { return r < kPhase2 ? 1 : r < kPhase3 ? 2 + r % 6 : 1 + r % 16; };
  const int size = npes();
  Sym<T> src(kMax), dst(kCalls * kRegion);
  if (!src.ok() || !dst.ok()) return;
  for (int root : {0, size - 1}) {
    fill_sentinel(dst.get(), dst.size());
    shmem_barrier_all();
    Jitter jitter(77 + me());
    for (int r = 0; r < kCalls; ++r) {
      const std::size_t n = count(r);
      if (me() == root) fill_data(src.get(), n, me(), r);
      else if (r == 0 || r == kPhase2 || r == kPhase3) usleep(20000);
      else jitter();
      ASSERT_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst.get() + r * kRegion, src.get(), n, root), 0) << "call " << r;
    }
    shmem_barrier_all();
    for (int r = 0; r < kCalls; ++r) {
      const std::size_t n = count(r);
      const T* region = dst.get() + r * kRegion;
      EXPECT_TRUE(equal_to(region, n, [&](std::size_t i) { return datum<T>(root, i, r); }))
          << "broadcast " << r << " of " << kCalls << " from root " << root << ", " << n << " elements";
      EXPECT_TRUE(untouched(region + n, kRegion - n)) << "broadcast " << r << " wrote past its " << n << " elements";
    }
  }
}

// ---- SHMEM_TEAM_INVALID --------------------------------------------------------------------

TEST(CollDataInvalidTeam, EveryFormReturnsNonZero) {
  // Each PE on its own: the call must return (not wait for anybody), non-zero,
  // and leave dest alone.
  Sym<int> src(4 * npes()), dst(4 * npes());
  Sym<unsigned char> bsrc(4 * npes()), bdst(4 * npes());
  if (!src.ok() || !dst.ok() || !bsrc.ok() || !bdst.ok()) return;
  fill_sentinel(dst.get(), dst.size());
  fill_sentinel(bdst.get(), bdst.size());
  const shmem_team_t bad = SHMEM_TEAM_INVALID;
  EXPECT_NE(shmem_int_broadcast(bad, dst.get(), src.get(), 1, 0), 0);
  EXPECT_NE(shmem_int_collect(bad, dst.get(), src.get(), 1), 0);
  EXPECT_NE(shmem_int_fcollect(bad, dst.get(), src.get(), 1), 0);
  EXPECT_NE(shmem_int_alltoall(bad, dst.get(), src.get(), 1), 0);
  EXPECT_NE(shmem_int_alltoalls(bad, dst.get(), src.get(), 1, 1, 1), 0);
  EXPECT_NE(shmem_broadcastmem(bad, bdst.get(), bsrc.get(), 1, 0), 0);
  EXPECT_NE(shmem_collectmem(bad, bdst.get(), bsrc.get(), 1), 0);
  EXPECT_NE(shmem_fcollectmem(bad, bdst.get(), bsrc.get(), 1), 0);
  EXPECT_NE(shmem_alltoallmem(bad, bdst.get(), bsrc.get(), 1), 0);
  EXPECT_NE(shmem_alltoallsmem(bad, bdst.get(), bsrc.get(), 1, 1, 1), 0);
  EXPECT_NE(shmem_broadcast(bad, dst.get(), src.get(), 1, 0), 0);
  EXPECT_NE(shmem_fcollect(bad, dst.get(), src.get(), 1), 0);
  EXPECT_TRUE(untouched(dst.get(), dst.size()));
  EXPECT_TRUE(untouched(bdst.get(), bdst.size()));
  shmem_barrier_all();
}

// ---- C11 generic forms ---------------------------------------------------------------------

TEST(CollGenericC, DataMovement) {
  // coll_generic_c.c: shmem_broadcast, shmem_collect, shmem_fcollect,
  // shmem_alltoall and shmem_alltoalls through _Generic, every distinct C type.
  EXPECT_EQ(coll_c_generic_data(), 0) << "see the failures printed above";
}
