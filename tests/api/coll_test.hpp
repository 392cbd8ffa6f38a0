// Shared helpers of the collective tests (test_coll_*.cpp, OpenSHMEM 1.5
// section 9.9): the teams every collective runs on, element counts, exact
// values for the data and for each reduction operation, checks that report
// the first wrong element, and the per-PE jitter of the stress test.
//
// NOTE [dest readiness] A collective may write a member's dest as soon as
// any member has entered it: the specification asks the program to have
// every dest "ready to accept the result" before any PE calls. So a test
// never resets or checks a dest that a later call may already be filling.
// Either it resets dest, syncs the team, and only then makes the call (one
// checked call per sync), or a run of back-to-back calls writes distinct
// dest regions that are checked after a closing sync. Sources need no such
// care: a source is reusable as soon as the call returns on its own PE, and
// the program need not synchronize before a call to make sources ready.
//
// Expected values are computed here from the members' world PE numbers,
// never read back from the library. The value ranges assume teams of at
// most 8 PEs (TILECOMM_TEST_PES): sums and products then cannot overflow.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "api_test.hpp"

namespace coll {

using api::me;
using api::npes;
using api::Sym;

// ---- teams -------------------------------------------------------------------------

/// One team the collectives run on, as this PE sees it.
struct TeamCase {
  std::string name;
  shmem_team_t team = SHMEM_TEAM_INVALID;  // SHMEM_TEAM_INVALID on PEs outside it
  std::vector<int> world;                   // world PE of each member of this PE's team, in team order
  int idx = -1;                             // this PE's number in the team; -1 outside it
  bool sweep = false;                       // the large counts of a sweep run on this team too
  int no = 0;                               // the case's number in its TeamSet, the same on every PE
  bool member() const { return idx >= 0; }
  int size() const { return static_cast<int>(world.size()); }
};

inline std::vector<int> strided_members(int start, int stride, int size) {
  std::vector<int> v;
  for (int i = 0; i < size; ++i) v.push_back(start + i * stride);
  return v;
}

/// The teams of the conformance tests, made and destroyed collectively by
/// every PE: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED (this host's PEs),
/// a stride-2 split (the even PEs; odd PEs are outside it), a stride -1
/// split (the world in reverse order), and the x- and y-teams of
/// split_2d(WORLD, 3) (several disjoint teams of different sizes at once).
/// Counts above 1001 run on the world, the reversed world and the y-teams,
/// counts above 4097 on the world only (runs_on).
class TeamSet {
 public:
  TeamSet() {
    const int n = npes(), self = me();
    add("SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, strided_members(0, 1, n), false, true);
    // SHMEM_TEAM_SHARED: this host's PEs (the job, on one host; test_ctx_team
    // checks the membership against shmem_ptr).
    std::vector<int> host;
    for (int p = 0; p < n; ++p)
      if (shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED) >= 0) host.push_back(p);
    add("SHMEM_TEAM_SHARED", SHMEM_TEAM_SHARED, host, false);
    split("evens (split_strided 0, 2)", 0, 2, (n + 1) / 2);
    split("reversed (split_strided n-1, -1)", n - 1, -1, n, true);
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, nullptr, 0, &xt, nullptr, 0, &yt), 0);
    const int xr = std::min(3, n), x = self % xr, y = self / xr;
    std::vector<int> row, col;
    for (int p = y * xr; p < std::min(y * xr + xr, n); ++p) row.push_back(p);
    for (int p = x; p < n; p += xr) col.push_back(p);
    add("split_2d(3) x-team", xt, row, true);
    add("split_2d(3) y-team", yt, col, true, true);
  }
  ~TeamSet() {
    shmem_barrier_all();
    for (const TeamCase& tc : cases_)
      if (owned_[&tc - cases_.data()] && tc.team != SHMEM_TEAM_INVALID) shmem_team_destroy(tc.team);
    shmem_barrier_all();
  }
  TeamSet(const TeamSet&) = delete;
  TeamSet& operator=(const TeamSet&) = delete;

  const std::vector<TeamCase>& all() const { return cases_; }
  const TeamCase& world() const { return cases_[0]; }
  const TeamCase& reversed() const { return cases_[3]; }

 private:
  void split(const char* name, int start, int stride, int size, bool sweep = false) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t), 0) << name;
    add(name, t, strided_members(start, stride, size), true, sweep);
  }
  void add(const char* name, shmem_team_t t, std::vector<int> members, bool owned, bool sweep = false) {
    TeamCase tc;
    tc.name = name;
    tc.sweep = sweep;
    tc.no = static_cast<int>(cases_.size()) + 1;
    tc.team = t;
    auto it = std::find(members.begin(), members.end(), me());
    const bool member = it != members.end();
    EXPECT_EQ(t != SHMEM_TEAM_INVALID, member) << name << ": the team handle says otherwise";
    if (member && t != SHMEM_TEAM_INVALID) {
      tc.idx = static_cast<int>(it - members.begin());
      tc.world = std::move(members);
      EXPECT_EQ(shmem_team_my_pe(t), tc.idx) << name;
      EXPECT_EQ(shmem_team_n_pes(t), tc.size()) << name;
    }
    cases_.push_back(std::move(tc));
    owned_.push_back(owned);
  }

  std::vector<TeamCase> cases_;
  std::vector<bool> owned_;
};

/// Runs body(tc) on the members of each team case; non-members skip it.
/// World barriers around each case keep every PE in step.
template <class F>
void on_each_team(const TeamSet& teams, F&& body) {
  for (const TeamCase& tc : teams.all()) {
    shmem_barrier_all();
    if (tc.member()) body(tc);
    shmem_barrier_all();
  }
}

// ---- element counts ------------------------------------------------------------------

/// Counts every type runs with: empty, one, odd, a power of two, large odd.
inline std::vector<std::size_t> small_counts() { return {0, 1, 7, 64, 1001}; }

/// Powers of two and their neighbours up to 64 Ki + 1 elements, at most
/// about 1 MiB per PE block, for the types that sweep the sizes.
inline std::vector<std::size_t> sweep_counts(std::size_t elem_bytes) {
  std::vector<std::size_t> v;
  for (std::size_t n : {0, 1, 7, 63, 64, 65, 1001, 4095, 4096, 4097, 65535, 65536, 65537})
    if (n * elem_bytes <= (std::size_t{1} << 20) + 64) v.push_back(n);
  return v;
}

/// Whether count n runs on team case tc: up to 1001 everywhere, up to 4097
/// on the sweep teams, above on the world only (the first case).
/// Whether count n runs on team case tc: up to 1001 everywhere, up to 4097
/// on the sweep teams, above that on the world (the first case) only.
inline bool runs_on(const TeamCase& tc, std::size_t n) { return n <= 1001 || (tc.sweep && n <= 4097) || tc.no == 1; }

/// Elements after the last one a call may write, checked to stay untouched.
constexpr std::size_t kPad = 9;

/// A multi-MiB block: 3 MiB + 5 bytes.
constexpr std::size_t kBigBytes = (std::size_t{3} << 20) + 5;

// ---- values --------------------------------------------------------------------------

/// Complex helpers that work for C's `double _Complex` (a GNU extension in
/// C++) and for std::complex alike: the element type is taken from the
/// routine's declaration.
template <class T>
constexpr bool is_complex_v = !std::is_arithmetic_v<T>;

template <class T>
concept StdComplex = requires(T v) { v.real(); };

template <class T>
T make_complex(double re, double im) {
  if constexpr (StdComplex<T>) {
    return T(re, im);
  } else {
    T v{};
    __real__ v = re;
    __imag__ v = im;
    return v;
  }
}
template <class T>
double real_of(const T& v) {
  if constexpr (StdComplex<T>) return static_cast<double>(v.real());
  else return static_cast<double>(__real__ v);
}
template <class T>
double imag_of(const T& v) {
  if constexpr (StdComplex<T>) return static_cast<double>(v.imag());
  else return static_cast<double>(__imag__ v);
}

template <class T>
std::string show(const T& v) {
  if constexpr (is_complex_v<T>) {
    std::ostringstream os;
    os << '(' << api::show(real_of(v)) << ", " << api::show(imag_of(v)) << ')';
    return os.str();
  } else {
    return api::show(v);
  }
}

inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Element i of PE `pe`'s data in the call with `salt`: a hash, so that a
/// block shifted by any number of elements or taken from another PE or call
/// is caught; exact in every table type (chars stay in 1..127, floating
/// point values are integers plus 0.25) and never equal to sentinel<T>().
template <class T>
T datum(int pe, std::size_t i, int salt) {
  const std::uint64_t h = mix64((static_cast<std::uint64_t>(pe) << 48) ^ (static_cast<std::uint64_t>(salt) << 32) ^ i);
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(static_cast<double>(h % (1u << 20)) + 0.25);
  else if constexpr (sizeof(T) == 1) return static_cast<T>(h % 127 + 1);
  else if constexpr (sizeof(T) == 2) return static_cast<T>(h % 32749 + 1);
  else if constexpr (sizeof(T) == 4) return static_cast<T>(h % 2147483629u + 1);
  else return static_cast<T>((h >> 2) | 1u);
}

/// What dest holds where no call may write: outside the range of datum<T>
/// (negative for floating point and complex, the top bit set for integers).
template <class T>
T sentinel() {
  if constexpr (is_complex_v<T>) return make_complex<T>(-1.5, -1.5);
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(-1.5);
  else return static_cast<T>((std::uint64_t{1} << (8 * sizeof(T) - 1)) | 1u);
}

/// got[i * stride] == expected(i) for i < n; reports the count and the first mismatch.
template <class T, class F>
::testing::AssertionResult equal_to(const T* got, std::size_t n, F expected, std::size_t stride = 1) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!(got[i * stride] == static_cast<T>(expected(i))) && bad++ == 0) first = i;
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "PE " << me() << ": " << bad << " of " << n << " elements differ; first at ["
                                       << first * stride << "]: got " << show(got[first * stride]) << ", expected "
                                       << show(static_cast<T>(expected(first)));
}

/// got[0..n) all hold the sentinel.
template <class T>
::testing::AssertionResult untouched(const T* got, std::size_t n) {
  return equal_to(got, n, [](std::size_t) { return sentinel<T>(); });
}

template <class T>
void fill_sentinel(T* p, std::size_t n) {
  std::fill(p, p + n, sentinel<T>());
}

// ---- reductions ----------------------------------------------------------------------

enum class Op { And, Or, Xor, Max, Min, Sum, Prod };
inline const char* op_name(Op op) {
  switch (op) {
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Xor: return "xor";
    case Op::Max: return "max";
    case Op::Min: return "min";
    case Op::Sum: return "sum";
    case Op::Prod: return "prod";
  }
  return "?";
}
inline constexpr unsigned bit(Op op) { return 1u << static_cast<int>(op); }
constexpr unsigned kBitOps = bit(Op::And) | bit(Op::Or) | bit(Op::Xor);
constexpr unsigned kMinMaxOps = bit(Op::Max) | bit(Op::Min);
constexpr unsigned kArithOps = bit(Op::Sum) | bit(Op::Prod);
inline std::vector<Op> ops_in(unsigned mask) {
  std::vector<Op> v;
  for (int o = 0; o < 7; ++o)
    if (mask & (1u << o)) v.push_back(static_cast<Op>(o));
  return v;
}

/// PE `pe`'s element i of a reduction with `op`: bit patterns that differ
/// per PE for and/or/xor, values of both signs (signed types) and near the
/// top of the range for max/min, small values for sum and small factors
/// (powers of two, at most four > 1 per element in any team here) for prod.
template <class T>
T op_value(Op op, int pe, std::size_t i) {
  const std::uint64_t p = static_cast<std::uint64_t>(pe), j = i;
  if constexpr (is_complex_v<T>) {
    if (op == Op::Sum) return make_complex<T>(double((p * 3 + j) % 17) - 8, double((p + 2 * j) % 13) - 6);
    static const double f[6][2] = {{1, 0}, {0, 1}, {1, 1}, {0, -1}, {-1, 0}, {1, -1}};
    const auto& c = f[(p + j) % 6];
    return make_complex<T>(c[0], c[1]);
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::Max:
      case Op::Min: return static_cast<T>((double((p * 37 + j * 11 + 5) % 101) - 50) * 0.5);
      case Op::Sum: return static_cast<T>((double((p * 7 + j * 3 + 1) % 31) - 15) * 0.25);
      default: return static_cast<T>(((p + j) % 2 ? 2.0 : 0.5) * ((p + 2 * j) % 3 == 0 ? -1.0 : 1.0));
    }
  } else {
    constexpr unsigned bits = 8 * sizeof(T);
    constexpr bool s = std::is_signed_v<T>;
    constexpr std::int64_t mm_scale = sizeof(T) == 1 ? 2 : sizeof(T) == 2 ? 600 : sizeof(T) == 4 ? 40000000 : 180000000000000000;
    constexpr std::int64_t sum_scale = sizeof(T) == 1 ? 1 : sizeof(T) == 2 ? 200 : sizeof(T) == 4 ? 10000000 : 50000000000000000;
    constexpr unsigned prod_shift = sizeof(T) == 1 ? 1 : sizeof(T) == 2 ? 3 : sizeof(T) == 4 ? 7 : 15;
    auto from_bits = [](std::uint64_t v) { return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v)); };
    switch (op) {
      case Op::And: return from_bits(~((1ull << ((p + j) % bits)) | (1ull << ((3 * p + 5 * j + 1) % bits))));
      case Op::Or: return from_bits((1ull << ((p + j) % bits)) | (1ull << ((2 * p + 7 * j + 3) % bits)));
      case Op::Xor: return from_bits(mix64(p * 1000003 + j));
      case Op::Max:
      case Op::Min: {
        const std::int64_t base = static_cast<std::int64_t>((p * 37 + j * 11 + 5) % 101);  // 0..100
        if constexpr (s) return static_cast<T>((base - 50) * mm_scale);
        else return from_bits(static_cast<std::uint64_t>(base) * static_cast<std::uint64_t>(mm_scale));
      }
      case Op::Sum: {
        const std::int64_t base = static_cast<std::int64_t>((p * 7 + j * 3 + 1) % 31);  // 0..30
        if constexpr (s) return static_cast<T>((base - 15) * sum_scale);
        else return from_bits(static_cast<std::uint64_t>(base) * static_cast<std::uint64_t>(sum_scale));
      }
      case Op::Prod: {
        const std::int64_t mag = std::int64_t{1} << (((p + j) % 2) * prod_shift);
        if constexpr (s) return static_cast<T>((p + 2 * j) % 3 == 0 ? -mag : mag);
        else return static_cast<T>(mag);
      }
    }
    return T{};
  }
}

template <class T>
T combine(Op op, T a, T b) {
  if constexpr (is_complex_v<T>) {
    return op == Op::Sum ? T(a + b) : T(a * b);
  } else {
    if constexpr (std::is_integral_v<T>) {  // integer sums and products wrap, as the library's
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      if (op == Op::Sum) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      if (op == Op::Prod) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    }
    switch (op) {
      case Op::Max: return a < b ? b : a;
      case Op::Min: return b < a ? b : a;
      case Op::Sum: return static_cast<T>(a + b);
      case Op::Prod: return static_cast<T>(a * b);
      default: break;
    }
    if constexpr (std::is_integral_v<T>) {
      if (op == Op::And) return static_cast<T>(a & b);
      if (op == Op::Or) return static_cast<T>(a | b);
      return static_cast<T>(a ^ b);
    }
    return T{};
  }
}

/// The reduction of element i over the members (world PE numbers).
template <class T>
T reduced(Op op, const std::vector<int>& members, std::size_t i) {
  T acc = op_value<T>(op, members[0], i);
  for (std::size_t k = 1; k < members.size(); ++k) acc = combine(op, acc, op_value<T>(op, members[k], i));
  return acc;
}

/// The element type of a routine whose dest is its first pointer argument
/// after an optional team: complexd is whatever the header declares.
template <class F>
struct elem_of;
template <class R, class T, class... A>
struct elem_of<R (*)(shmem_team_t, T*, A...)> {
  using type = T;
};
template <class R, class T, class... A>
struct elem_of<R (*)(T*, A...)> {
  using type = T;
};

// ---- jitter --------------------------------------------------------------------------

/// Random per-PE delays: nothing, a short busy loop, or a sleep of a few
/// microseconds. Seeded per PE, so PEs arrive at collectives in varying order.
class Jitter {
 public:
  explicit Jitter(unsigned seed) : rng_(seed) {}
  void operator()() {
    switch (rng_() % 8) {
      case 4:
      case 5: {
        const unsigned spins = rng_() % 4000;
        for (unsigned k = 0; k < spins; ++k) std::atomic_signal_fence(std::memory_order_seq_cst);  // not optimized away
        break;
      }
      case 6:
      case 7: usleep(1 + rng_() % 20); break;
      default: break;
    }
  }

 private:
  std::mt19937 rng_;
};

}  // namespace coll
