// A stress test of the team collectives: 1000 calls back to back, of random
// kinds (broadcast, collect, fcollect, alltoall, alltoalls, reductions),
// element types, sizes (0 to 40000 elements), roots, per-PE counts, strides
// and operations, on the world and on a sub-team that leaves PEs out, with
// random per-PE delays before and after writing the source. The sequence
// comes from one seed, the same on every PE, so all PEs make the same calls;
// the delays come from a per-PE seed. Every result is checked exactly.
//
// Destinations rotate through kRing buffers with a world barrier every
// kRing calls (NOTE [dest readiness] in coll_test.hpp): the calls between
// two barriers run with no synchronization but their own.
#include <random>

#include "coll_traits.hpp"

using namespace coll;

namespace {

constexpr int kCalls = 1000;
constexpr int kRing = 4;
constexpr std::size_t kMaxCount = 40000;      // elements per PE block
constexpr std::size_t kMaxStridedCount = 3000;  // alltoalls: strided blocks are up to 3x larger

enum Kind { kBroadcast, kCollect, kFcollect, kAlltoall, kAlltoalls, kReduce, kKinds };
const char* const kKindNames[] = {"broadcast", "collect", "fcollect", "alltoall", "alltoalls", "reduce"};

// Everything one call needs, drawn from the shared generator: the same
// number of draws per call on every PE, member of the chosen team or not.
struct Call {
  int kind, type, pattern, op_pick;
  bool on_sub, in_place;
  std::size_t n;
  unsigned root_pick;
  std::ptrdiff_t ds, ss;
};

Call draw(std::mt19937_64& rng) {
  Call c;
  c.kind = static_cast<int>(rng() % kKinds);
  c.on_sub = rng() % 3 == 0;
  c.type = static_cast<int>(rng() % 4);
  const unsigned band = rng() % 100;
  const std::size_t r = rng();
  c.n = band < 40 ? r % 17 : band < 80 ? 17 + r % 2000 : band < 95 ? 2017 + r % 10000 : 12017 + r % (kMaxCount - 12017);
  c.root_pick = static_cast<unsigned>(rng());
  c.pattern = static_cast<int>(rng() % 3);
  c.ds = 1 + static_cast<std::ptrdiff_t>(rng() % 3);
  c.ss = 1 + static_cast<std::ptrdiff_t>(rng() % 3);
  c.op_pick = static_cast<int>(rng() % 3);
  c.in_place = rng() % 4 == 0;
  if (c.kind == kAlltoalls) c.n = std::min(c.n, kMaxStridedCount);
  return c;
}

std::vector<std::size_t> counts_of(int pattern, int size, std::size_t n) {
  std::vector<std::size_t> c(size);
  for (int k = 0; k < size; ++k)
    c[k] = pattern == 0 ? n : pattern == 1 ? (k % 3 == 1 ? 0 : n / (k + 1) + k) : (k == size - 1 ? n : 0);
  return c;
}

// The data routines and three reductions of one element type.
template <class D, class R>
struct Family {
  using T = typename D::T;
  using Data = D;
  using Red = R;
};
using Families = std::tuple<Family<Data_int, Red_int32>, Family<Data_double, Red_double>,
                            Family<Data_uint8, Red_uint8>, Family<Data_long, Red_long>>;

template <class Red>
Op op_for(int pick) {
  if constexpr ((Red::kOps & kBitOps) != 0) {
    const Op ops[] = {Op::Sum, Op::Xor, Op::And};
    if (std::is_same_v<Red, Red_uint8>) return pick == 0 ? Op::Prod : pick == 1 ? Op::Or : Op::Max;
    return ops[pick];
  } else {
    const Op ops[] = {Op::Sum, Op::Min, Op::Max};
    return ops[pick];
  }
}

// Makes call `c` (number `no`) on `tc` into dest `d` with source `s`;
// returns the check of its result. `jitter` runs before and after the
// source is written.
template <class F>
::testing::AssertionResult run_call(const Call& c, int no, const TeamCase& tc, void* dv, void* sv, Jitter& jitter,
                                    std::string& what) {
  using T = typename F::T;
  using D = typename F::Data;
  using R = typename F::Red;
  T* d = static_cast<T*>(dv);
  T* s = static_cast<T*>(sv);
  const int size = tc.size(), salt = no;
  const std::size_t n = c.n;
  auto fill = [&](T* p, std::size_t count) {
    jitter();
    for (std::size_t i = 0; i < count; ++i) p[i] = datum<T>(me(), i, salt);
    jitter();
  };
  what = std::string(kKindNames[c.kind]) + "<" + D::label() + "> on " + tc.name + ", nelems " + std::to_string(n);
  switch (c.kind) {
    case kBroadcast: {
      const int root = static_cast<int>(c.root_pick % size);
      what += ", root " + std::to_string(root);
      fill(s, n);
      if (D::broadcast(tc.team, d, s, n, root) != 0) return ::testing::AssertionFailure() << "returned non-zero";
      return equal_to(d, n, [&](std::size_t i) { return datum<T>(tc.world[root], i, salt); });
    }
    case kCollect:
    case kFcollect: {
      const auto counts = c.kind == kFcollect ? std::vector<std::size_t>(size, n) : counts_of(c.pattern, size, n);
      what += ", this PE's count " + std::to_string(counts[tc.idx]);
      fill(s, counts[tc.idx]);
      const int rc = c.kind == kFcollect ? D::fcollect(tc.team, d, s, n) : D::collect(tc.team, d, s, counts[tc.idx]);
      if (rc != 0) return ::testing::AssertionFailure() << "returned non-zero";
      std::size_t off = 0;
      for (int k = 0; k < size; ++k) {
        auto r = equal_to(d + off, counts[k], [&](std::size_t i) { return datum<T>(tc.world[k], i, salt); });
        if (!r) return r << " (block of team PE " << k << ")";
        off += counts[k];
      }
      return ::testing::AssertionSuccess();
    }
    case kAlltoall:
    case kAlltoalls: {
      const std::ptrdiff_t ds = c.kind == kAlltoall ? 1 : c.ds, ss = c.kind == kAlltoall ? 1 : c.ss;
      if (c.kind == kAlltoalls) what += ", dst " + std::to_string(ds) + ", sst " + std::to_string(ss);
      fill(s, size * n * ss);
      const int rc = c.kind == kAlltoall ? D::alltoall(tc.team, d, s, n) : D::alltoalls(tc.team, d, s, ds, ss, n);
      if (rc != 0) return ::testing::AssertionFailure() << "returned non-zero";
      for (int k = 0; k < size; ++k) {
        auto r = equal_to(
            d + k * n * ds, n, [&](std::size_t e) { return datum<T>(tc.world[k], (tc.idx * n + e) * ss, salt); }, ds);
        if (!r) return r << " (block from team PE " << k << ")";
      }
      return ::testing::AssertionSuccess();
    }
    default: {
      const Op op = op_for<R>(c.op_pick);
      what = reduce_name<R>(op) + (c.in_place ? " in place" : "") + " on " + tc.name + ", nreduce " + std::to_string(n);
      T* src = c.in_place ? d : s;
      jitter();
      for (std::size_t i = 0; i < n; ++i) src[i] = op_value<T>(op, me(), i);
      jitter();
      if (reduce_call<R>(op, tc.team, d, src, n) != 0) return ::testing::AssertionFailure() << "returned non-zero";
      return equal_to(d, n, [&](std::size_t i) { return reduced<T>(op, tc.world, i); });
    }
  }
}

template <std::size_t I = 0>
::testing::AssertionResult dispatch(const Call& c, int no, const TeamCase& tc, void* d, void* s, Jitter& jitter,
                                    std::string& what) {
  if constexpr (I < std::tuple_size_v<Families>) {
    if (c.type == static_cast<int>(I)) return run_call<std::tuple_element_t<I, Families>>(c, no, tc, d, s, jitter, what);
    return dispatch<I + 1>(c, no, tc, d, s, jitter, what);
  } else {
    return ::testing::AssertionFailure() << "no element type " << c.type;
  }
}

}  // namespace

TEST(CollStress, ThousandBackToBackCollectivesWithJitter) {
  const int n = npes();
  // The world, and every other PE downwards from the last (a negative
  // stride; with 2 or more PEs some PEs are outside it).
  TeamCase world{"SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, strided_members(0, 1, n), me(), true};
  TeamCase sub{"every other PE from the last", SHMEM_TEAM_INVALID, {}, -1, true};
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -2, (n + 1) / 2, nullptr, 0, &sub.team), 0);
  const auto sub_members = strided_members(n - 1, -2, (n + 1) / 2);
  if (sub.team != SHMEM_TEAM_INVALID) {
    sub.world = sub_members;
    sub.idx = static_cast<int>(std::find(sub_members.begin(), sub_members.end(), me()) - sub_members.begin());
  }

  // Per slot: the largest dest of any call, in 8-byte elements.
  const std::size_t slot = n * (kMaxCount + n) + 3 * n * kMaxStridedCount + kPad;
  Sym<std::uint64_t> src(n * kMaxCount + 3 * n * kMaxStridedCount), ring(kRing * slot);
  if (!src.ok() || !ring.ok()) return;

  std::mt19937_64 shared(20261203);   // the same sequence of calls on every PE
  Jitter jitter(7919u * me() + 17u);  // delays of this PE only
  int failures = 0, made = 0;
  std::array<int, kKinds> per_kind{};
  for (int no = 0; no < kCalls; ++no) {
    if (no % kRing == 0) shmem_barrier_all();  // every PE checked the ring's dests
    const Call c = draw(shared);
    const TeamCase& tc = c.on_sub ? sub : world;
    if (!tc.member()) continue;
    std::string what;
    auto ok = dispatch(c, no, tc, ring.get() + (no % kRing) * slot, src.get(), jitter, what);
    ++made;
    ++per_kind[c.kind];
    if (!ok && ++failures <= 10) ADD_FAILURE() << "call " << no << ": " << what << ": " << ok.message();
  }
  shmem_barrier_all();
  EXPECT_EQ(failures, 0) << "of " << made << " calls on PE " << me();
  for (int k = 0; k < kKinds; ++k) EXPECT_GT(per_kind[k], 0) << "no " << kKindNames[k] << " was drawn";
  if (sub.team != SHMEM_TEAM_INVALID) shmem_team_destroy(sub.team);
  shmem_barrier_all();
}
