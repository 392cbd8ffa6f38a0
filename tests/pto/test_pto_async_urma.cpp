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
/// but the signal, registered with this PE's URMA workspace.
class Urma : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(win.ok());
    ASSERT_TRUE(urma.Init(me(), npes(), win.get(), win.size() * sizeof(std::int32_t))) << urma.LastError();
  }
  std::int32_t* src() const { return win.get(); }
  std::int32_t* from_right() const { return win.get() + kMax; }
  std::int32_t* from_left() const { return win.get() + 2 * kMax; }
  std::int32_t* signal() const { return win.get() + 3 * kMax; }
  std::uint8_t* ws() const { return static_cast<std::uint8_t*>(urma.GetWorkspaceAddr()); }
  /// For each count: src filled with this PE's pattern under a new salt,
  /// a barrier, then body(n, salt), then a barrier.
  template <class Body>
  void each_count(int salt, Body&& body) {
    for (std::size_t n : kCounts) {
      SCOPED_TRACE(::testing::Message() << n << " elements");
      fill(src(), n, me(), ++salt);
      barrier();
      body(n, salt);
      barrier();
    }
  }

  Sym<std::int32_t> win{3 * kMax + 1};
  urma::UrmaWorkspaceManager urma;
};

// Get the right neighbour's src into from_right, put src into the right
// neighbour's from_left; both checked after Wait (the get) and a barrier.
TEST_F(Urma, RingGetAndPutMoveEveryElement) {
  each_count(20, [&](std::size_t n, int salt) {
    run(1, [&](Report& rep) {
      AsyncSession s;
      KCHECK(rep, BuildAsyncSession<DmaEngine::URMA>(ws(), static_cast<std::uint32_t>(right()), s), &s);
      auto local = flat(src(), n), fr = flat(from_right(), n), fl = flat(from_left(), n);
      AsyncEvent g = TGET_ASYNC<DmaEngine::URMA>(fr, local, s);
      AsyncEvent p = TPUT_ASYNC<DmaEngine::URMA>(fl, local, s);
      KCHECK(rep, g.valid() && p.valid() && p.Wait(s) && g.Test(s), &s);
      KCHECK(rep, all_equal(from_right(), n, pattern<std::int32_t>(right(), salt)), nullptr);
    });
    barrier();
    EXPECT_TRUE(all_equal(from_right(), n, pattern<std::int32_t>(right(), salt)));
    EXPECT_TRUE(all_equal(from_left(), n, pattern<std::int32_t>(left(), salt)));
  });
}

// TPUT_ASYNC_NOTIFY, Set: the receiver waits for the signal only, then
// checks every element: the payload is delivered before the signal.
TEST_F(Urma, NotifyArrivesAfterThePayload) {
  each_count(40, [&](std::size_t n, int salt) {
    run(1, [&](Report& rep) {
      AsyncSession s;
      KCHECK(rep, BuildAsyncSession<DmaEngine::URMA>(ws(), static_cast<std::uint32_t>(right()), s), &s);
      auto local = flat(src(), n), fl = flat(from_left(), n);
      Signal sig(signal());
      AsyncEvent e = TPUT_ASYNC_NOTIFY<DmaEngine::URMA>(fl, local, sig, 1000 * salt + me(), NotifyOp::Set, s);
      KCHECK(rep, e.valid() && e.Wait(s), &s);
    });
    shmem_int_wait_until(signal(), SHMEM_CMP_EQ, 1000 * salt + left());
    EXPECT_TRUE(all_equal(from_left(), n, pattern<std::int32_t>(left(), salt)));
  });
}

// The explicit engine calls reach every PE, on this host or another:
// puts to the right neighbour and gets from it, completed by shmemx_sdma_quiet.
TEST_F(Urma, ShmemxEngineCallsReachEveryNeighbour) {
  each_count(60, [&](std::size_t n, int salt) {
    std::vector<std::int32_t> got(n, -1);
    shmemx_sdma_put_nbi(from_left(), src(), n * sizeof(std::int32_t), right());
    shmemx_sdma_get_nbi(got.data(), src(), n * sizeof(std::int32_t), right());
    shmemx_sdma_quiet();
    EXPECT_TRUE(all_equal(got.data(), n, pattern<std::int32_t>(right(), salt)));
    barrier();
    EXPECT_TRUE(all_equal(from_left(), n, pattern<std::int32_t>(left(), salt)));
  });
}

}  // namespace
