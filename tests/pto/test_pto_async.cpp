// The asynchronous DMA instructions on real PEs (contract in
// pto/comm/async_common/async_types.hpp): data movement by TGET_ASYNC /
// TPUT_ASYNC over SDMA sessions of every queue configuration, several
// channel groups in one kernel, TPUT_ASYNC_NOTIFY. Every PE runs every test;
// the peers are the ring neighbours (the PE itself on 1 PE) and every
// element is checked. The other concerns: test_pto_async_*.cpp.
#include "async_test.hpp"

using namespace async_test;

namespace {

// ---- data movement: types x sizes x queue configurations ------------------------

struct Config { const char* name; std::uint64_t block_bytes; std::uint32_t queues; };
const Config kConfigs[] = {{"Block1MiBx1Queue", kMiB, 1},  {"Block1MiBx2Queues", kMiB, 2},
                           {"Block4KiBx1Queue", 4096, 1}, {"Block4KiBx2Queues", 4096, 2},
                           {"Block4KiBx4Queues", 4096, 4}};
enum class Dir { Get, Put };
void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }
void PrintTo(Dir d, std::ostream* os) { *os << (d == Dir::Get ? "Get" : "Put"); }

/// 1 element, ~1000 bytes (odd count), 64 KiB, 1 MiB + 3 elements, 3 MiB.
template <class T>
std::vector<std::size_t> counts() {
  return {1, (1001 / sizeof(T)) | 1, 64 * 1024 / sizeof(T), kMiB / sizeof(T) + 3, 3 * kMiB / sizeof(T)};
}

class AsyncTransfer : public ::testing::TestWithParam<std::tuple<Dir, Config>> {
 protected:
  /// Every PE moves n elements from/to both neighbours: get their `src`, or
  /// put its `src` into theirs; either way from_right / from_left end up with
  /// the neighbours' values. Checked right after Wait inside the kernel
  /// (where the data went) and by the owners after a barrier.
  template <class T>
  void ring(std::size_t n, int salt) {
    const Dir dir = std::get<0>(GetParam());
    const Config cfg = std::get<1>(GetParam());
    SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte " << (std::is_floating_point_v<T> ? "float" : "int")
                                      << ", " << n << " elements, salt " << salt);
    Sym<T> src(n), from_right(n), from_left(n);
    if (!src.ok() || !from_right.ok() || !from_left.ok()) return;
    fill(src.get(), n, me(), salt);
    barrier();
    run(1, [&](Report& rep) {
      AsyncSession s;
      KCHECK(rep, sdma_session(sdma_.ws(), s, {cfg.block_bytes, 0, cfg.queues}), &s);
      const bool get = dir == Dir::Get;
      T* a = get ? from_right.get() : at(from_left.get(), right());
      T* b = get ? from_left.get() : at(from_right.get(), left());
      auto local = flat(src.get(), n), ta = flat(a, n), tb = flat(b, n);
      auto ra = flat(at(src.get(), right()), n), rb = flat(at(src.get(), left()), n);
      AsyncEvent e1 = get ? TGET_ASYNC(ta, ra, s) : TPUT_ASYNC(ta, local, s);
      AsyncEvent e2 = get ? TGET_ASYNC(tb, rb, s) : TPUT_ASYNC(tb, local, s);
      KCHECK(rep, e1.valid() && e2.valid() && e2.Wait(s) && e1.Test(s), &s);
      KCHECK(rep, all_equal(a, n, pattern<T>(get ? right() : me(), salt)), nullptr);
      KCHECK(rep, all_equal(b, n, pattern<T>(get ? left() : me(), salt)), nullptr);
    });
    barrier();
    EXPECT_TRUE(all_equal(from_right.get(), n, pattern<T>(right(), salt)));
    EXPECT_TRUE(all_equal(from_left.get(), n, pattern<T>(left(), salt)));
    barrier();
  }
  Sdma sdma_;
};

TEST_P(AsyncTransfer, EveryElementArrives) {
  int salt = 0;
  for (std::size_t n : counts<std::int32_t>()) ring<std::int32_t>(n, ++salt);
  for (std::size_t n : counts<float>()) ring<float>(n, ++salt);
  for (std::size_t n : counts<std::uint8_t>()) ring<std::uint8_t>(n, ++salt);
}

INSTANTIATE_TEST_SUITE_P(Sdma, AsyncTransfer, ::testing::Combine(::testing::Values(Dir::Get, Dir::Put),
                                                                 ::testing::ValuesIn(kConfigs)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == Dir::Get ? "Get_" : "Put_") +
                                  std::get<1>(info.param).name;
                         });
// ---- several channel groups in one kernel -------------------------------------------

TEST(AsyncGroups, FourBlocksEachOnItsOwnChannelGroup) {
  constexpr int kBlocks = 4;
  constexpr std::size_t kOps = 5, kSlice = 3001, kPerBlock = kOps * kSlice, kN = kBlocks * kPerBlock;
  Sdma sdma;
  Sym<std::int32_t> src(kN), got(kN), put(kN);
  if (!src.ok() || !got.ok() || !put.ok()) return;
  fill(src.get(), kN, me(), 6);
  barrier();
  run(kBlocks, [&](Report& rep) {
    const std::uint32_t b = static_cast<std::uint32_t>(GetBlockIdx());
    const std::size_t base = b * kPerBlock;
    // Default group (the block index): gets of this block's slice.
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, {4096, 0, 2}), &s);
    KCHECK(rep, s.channelGroup() == b, &s);
    AsyncEvent last;
    for (std::size_t k = 0; k < kOps; ++k) {
      const std::size_t off = base + k * kSlice;
      auto d = flat(got.get() + off, kSlice), r = flat(at(src.get(), right()) + off, kSlice);
      last = TGET_ASYNC(d, r, s);
    }
    KCHECK(rep, last.Wait(s), &s);
    KCHECK(rep, all_equal(got.get() + base, kPerBlock, pattern<std::int32_t>(right(), 6, base)), nullptr);
    // Explicit groups, away from the defaults: puts into the right neighbour.
    AsyncSession x;
    const std::uint32_t group = sdma::kMaxChannelGroups - 1 - 3 * b;
    KCHECK(rep, sdma_session(sdma.ws(), x, {kMiB, 0, 1 + b}, group), &x);
    KCHECK(rep, x.channelGroup() == group, &x);
    for (std::size_t k = 0; k < kOps; ++k) {
      const std::size_t off = base + k * kSlice;
      auto r = flat(at(put.get(), right()) + off, kSlice), l = flat(src.get() + off, kSlice);
      last = TPUT_ASYNC(r, l, x);
    }
    KCHECK(rep, last.Wait(x), &x);
  });
  barrier();
  EXPECT_TRUE(all_equal(put.get(), kN, pattern<std::int32_t>(left(), 6)));
  barrier();
}

// ---- TPUT_ASYNC_NOTIFY --------------------------------------------------------------

// Ring, Set: the signal names the sender; the receiver sees the signal, then
// checks every element without any other synchronisation.
TEST(AsyncNotify, SetTellsTheReceiverThatThePayloadIsComplete) {
  constexpr std::size_t kN = 3 * kMiB / sizeof(std::int32_t);
  Sdma sdma;
  Sym<std::int32_t> src(kN), payload(kN), sig(1);
  if (!src.ok() || !payload.ok() || !sig.ok()) return;
  fill(src.get(), kN, me(), 7);
  barrier();
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, {kMiB, 0, 4}), &s);
    auto r = flat(at(payload.get(), right()), kN), l = flat(src.get(), kN);
    Signal flag(at(sig.get(), right()));
    AsyncEvent e = TPUT_ASYNC_NOTIFY(r, l, flag, 1000 + me(), NotifyOp::Set, s);
    KCHECK(rep, e.valid() && e.Wait(s), &s);
  });
  shmem_int_wait_until(sig.get(), SHMEM_CMP_EQ, 1000 + left());
  EXPECT_TRUE(all_equal(payload.get(), kN, pattern<std::int32_t>(left(), 7)));
  barrier();
}

// All to PE 0, AtomicAdd: PE 0 waits for the sum of every PE's increment.
TEST(AsyncNotify, AtomicAddFromEveryPeCountsOnPeZero) {
  constexpr std::size_t kM = 40000;
  Sdma sdma;
  const int n = npes();
  Sym<std::int32_t> src(kM), gather(kM * n), counter(1);
  if (!src.ok() || !gather.ok() || !counter.ok()) return;
  fill(src.get(), kM, me(), 8);
  barrier();
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, {4096, 0, 3}), &s);
    auto r = flat(at(gather.get(), 0) + me() * kM, kM), l = flat(src.get(), kM);
    Signal count(at(counter.get(), 0));
    AsyncEvent e = TPUT_ASYNC_NOTIFY(r, l, count, me() + 1, NotifyOp::AtomicAdd, s);
    KCHECK(rep, e.valid() && e.Wait(s), &s);
  });
  if (me() == 0) {
    shmem_int_wait_until(counter.get(), SHMEM_CMP_EQ, n * (n + 1) / 2);
    for (int pe = 0; pe < n; ++pe)
      EXPECT_TRUE(all_equal(gather.get() + pe * kM, kM, pattern<std::int32_t>(pe, 8))) << "from PE " << pe;
  }
  barrier();
}
}  // namespace
