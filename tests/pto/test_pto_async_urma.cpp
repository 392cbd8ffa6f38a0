// The URMA engine between ring neighbours: TGET_ASYNC, TPUT_ASYNC and
// TPUT_ASYNC_NOTIFY on sessions bound to the right neighbour, every element
// checked. The remote side of an operation is this PE's own symmetric
// address inside the registered window; the engine reaches a neighbour of
// this host through its mapping and one of another host through UCX (NOTE
// [remote copies] in transport/dma/engine.hpp). The hosts variants of this
// program (tests/pto/CMakeLists.txt) run it with neighbours on other hosts.
#include <shmemx.h>

#include "async_test.hpp"

using namespace async_test;

namespace {

/// 1 element, an odd count, 64 KiB and 1 MiB + 3 elements of int32.
const std::size_t kCounts[] = {1, 251, 16384, kMiB / 4 + 3};
constexpr std::size_t kMax = kMiB / 4 + 3;

/// The window: [src | from_right | from_left | signal], kMax elements each
/// but the signal.
struct Window {
  Sym<std::int32_t> mem{3 * kMax + 1};
  std::int32_t* src() const { return mem.get(); }
  std::int32_t* from_right() const { return mem.get() + kMax; }
  std::int32_t* from_left() const { return mem.get() + 2 * kMax; }
  std::int32_t* signal() const { return mem.get() + 3 * kMax; }
  std::size_t bytes() const { return mem.size() * sizeof(std::int32_t); }
};

// Get the right neighbour's src into from_right, put src into the right
// neighbour's from_left; both checked after Wait (the get) and a barrier.
TEST(Urma, RingGetAndPutMoveEveryElement) {
  Window w;
  if (!w.mem.ok()) return;
  urma::UrmaWorkspaceManager urma;
  ASSERT_TRUE(urma.Init(me(), npes(), w.mem.get(), w.bytes())) << urma.LastError();
  auto* ws = static_cast<std::uint8_t*>(urma.GetWorkspaceAddr());
  int salt = 20;
  for (std::size_t n : kCounts) {
    SCOPED_TRACE(::testing::Message() << n << " elements");
    ++salt;
    fill(w.src(), n, me(), salt);
    barrier();
    run(1, [&](Report& rep) {
      AsyncSession s;
      KCHECK(rep, BuildAsyncSession<DmaEngine::URMA>(ws, static_cast<std::uint32_t>(right()), s), &s);
      auto local = flat(w.src(), n), fr = flat(w.from_right(), n), fl = flat(w.from_left(), n);
      AsyncEvent g = TGET_ASYNC<DmaEngine::URMA>(fr, local, s);
      AsyncEvent p = TPUT_ASYNC<DmaEngine::URMA>(fl, local, s);
      KCHECK(rep, g.valid() && p.valid() && p.Wait(s) && g.Test(s), &s);
      KCHECK(rep, all_equal(w.from_right(), n, pattern<std::int32_t>(right(), salt)), nullptr);
    });
    barrier();
    EXPECT_TRUE(all_equal(w.from_right(), n, pattern<std::int32_t>(right(), salt)));
    EXPECT_TRUE(all_equal(w.from_left(), n, pattern<std::int32_t>(left(), salt)));
    barrier();
  }
}

// TPUT_ASYNC_NOTIFY, Set: the receiver waits for the signal only, then
// checks every element: the payload is delivered before the signal.
TEST(Urma, NotifyArrivesAfterThePayload) {
  Window w;
  if (!w.mem.ok()) return;
  urma::UrmaWorkspaceManager urma;
  ASSERT_TRUE(urma.Init(me(), npes(), w.mem.get(), w.bytes())) << urma.LastError();
  auto* ws = static_cast<std::uint8_t*>(urma.GetWorkspaceAddr());
  int salt = 40;
  for (std::size_t n : kCounts) {
    SCOPED_TRACE(::testing::Message() << n << " elements");
    ++salt;
    fill(w.src(), n, me(), salt);
    barrier();
    run(1, [&](Report& rep) {
      AsyncSession s;
      KCHECK(rep, BuildAsyncSession<DmaEngine::URMA>(ws, static_cast<std::uint32_t>(right()), s), &s);
      auto local = flat(w.src(), n), fl = flat(w.from_left(), n);
      Signal sig(w.signal());
      AsyncEvent e = TPUT_ASYNC_NOTIFY<DmaEngine::URMA>(fl, local, sig, 1000 * salt + me(), NotifyOp::Set, s);
      KCHECK(rep, e.valid() && e.Wait(s), &s);
    });
    shmem_int_wait_until(w.signal(), SHMEM_CMP_EQ, 1000 * salt + left());
    EXPECT_TRUE(all_equal(w.from_left(), n, pattern<std::int32_t>(left(), salt)));
    barrier();
  }
}

// The explicit engine calls reach every PE, on this host or another:
// puts to the right neighbour and gets from it, completed by shmemx_sdma_quiet.
TEST(Urma, ShmemxEngineCallsReachEveryNeighbour) {
  Window w;
  if (!w.mem.ok()) return;
  int salt = 60;
  for (std::size_t n : kCounts) {
    SCOPED_TRACE(::testing::Message() << n << " elements");
    ++salt;
    fill(w.src(), n, me(), salt);
    std::vector<std::int32_t> got(n, -1);
    barrier();
    shmemx_sdma_put_nbi(w.from_left(), w.src(), n * sizeof(std::int32_t), right());
    shmemx_sdma_get_nbi(got.data(), w.src(), n * sizeof(std::int32_t), right());
    shmemx_sdma_quiet();
    EXPECT_TRUE(all_equal(got.data(), n, pattern<std::int32_t>(right(), salt)));
    barrier();
    EXPECT_TRUE(all_equal(w.from_left(), n, pattern<std::int32_t>(left(), salt)));
    barrier();
  }
}

}  // namespace
