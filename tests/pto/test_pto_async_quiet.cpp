// Quiet semantics, backpressure and DEFER batches of asynchronous sessions.
#include <atomic>

#include "async_test.hpp"
#include "core/wait.hpp"

using namespace async_test;

namespace {

// ---- quiet semantics and backpressure --------------------------------------------

// `ops` gets of `slice` ints from the right neighbour into consecutive slices,
// with no Wait in between; then one Wait on the last event.
void gets_then_one_wait(std::size_t ops, std::size_t slice, sdma::SdmaBaseConfig cfg, int salt) {
  Sdma sdma;
  Sym<std::int32_t> src(ops * slice), dst(ops * slice);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), ops * slice, me(), salt);
  barrier();
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, cfg), &s);
    std::vector<AsyncEvent> ev;
    for (std::size_t k = 0; k < ops; ++k) {
      auto d = flat(dst.get() + k * slice, slice), r = flat(at(src.get(), right()) + k * slice, slice);
      ev.push_back(TGET_ASYNC(d, r, s));
      KCHECK(rep, ev.back().valid(), &s);
    }
    KCHECK(rep, ev.back().Wait(s), &s);
    KCHECK(rep, all_equal(dst.get(), ops * slice, pattern<std::int32_t>(right(), salt)), nullptr);
    KCHECK(rep, ev.back().Test(s) && ev.front().Test(s) && ev[ops / 2].Test(s), &s);  // earlier ones too
    KCHECK(rep, TQUIET(s), &s);
  });
  barrier();
}

TEST(AsyncQuiet, OneWaitOnTheLastEventDrainsEveryEarlierOperation) {
  gets_then_one_wait(24, 4099, {4096, 0, 2}, 1);
  gets_then_one_wait(24, 4099, {sdma::kDefaultSdmaBlockBytes, 0, 1}, 2);
}

// Over 64 in flight: the 65th submission waits for room. 32 KiB slices of
// 4 KiB entries over 2 queues also fill the 256-entry rings.
TEST(AsyncBackpressure, TwoHundredGetsWithoutWaitThenOneWait) { gets_then_one_wait(200, 8192, {4096, 0, 2}, 3); }

// With the engine held nothing completes: 64 gets return at once, and the
// 65th is found asleep in its channel group waiting for the first, not
// returned and with nothing moved; released, it returns and every get's
// data arrives. Block 1 watches block 0; its wait only bounds a hang.
TEST(AsyncBackpressure, The65thOperationWaitsForTheFirst) {
  constexpr std::size_t kOps = 65, kSlice = 1000;
  Sdma sdma;
  Sym<std::int32_t> src(kOps * kSlice), dst(kOps * kSlice);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kOps * kSlice, me(), 13);
  fill(dst.get(), kOps * kSlice, me(), 130);
  barrier();
  std::atomic<int> returned{0};  // block 0's TGET_ASYNC calls that returned
  EngineHold hold;
  auto& group = reinterpret_cast<tilecomm::transport::dma::Workspace*>(sdma.ws())->group[0];
  run(2, [&](Report& rep) {
    if (GetBlockIdx() == 0) {
      AsyncSession s;
      KCHECK(rep, sdma_session(sdma.ws(), s, {sdma::kDefaultSdmaBlockBytes, 0, 1}, 0), &s);
      AsyncEvent last;
      for (std::size_t k = 0; k < kOps; ++k) {
        auto d = flat(dst.get() + k * kSlice, kSlice), r = flat(at(src.get(), right()) + k * kSlice, kSlice);
        last = TGET_ASYNC(d, r, s);
        KCHECK(rep, last.valid() && last.handle == k + 1, &s);
        returned.fetch_add(1);
      }
      KCHECK(rep, last.Wait(s), &s);
      KCHECK(rep, all_equal(dst.get(), kOps * kSlice, pattern<std::int32_t>(right(), 13)), nullptr);
      return;
    }
    auto st = tilecomm::wait_for([&] { return returned.load() == 64 && group.sleepers.load() != 0; });
    KCHECK(rep, st == tilecomm::WaitStatus::Done, nullptr);
    KCHECK(rep, returned.load() == 64, nullptr);  // the 65th is waiting, the 64 before it did not
    KCHECK(rep, all_equal(dst.get(), kSlice, pattern<std::int32_t>(me(), 130)), nullptr);  // the first did not run
    EngineHold::set(0);
  });
  EXPECT_EQ(returned.load(), 65);
  barrier();
}

TEST(AsyncBackpressure, TwoHundredDeferredPutsThenOneSubmitAndWait) {
  constexpr std::size_t kOps = 200, kSlice = 8192;
  Sdma sdma;
  Sym<float> src(kOps * kSlice), dst(kOps * kSlice);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kOps * kSlice, me(), 4);
  barrier();
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, {4096, 0, 2}), &s);
    for (std::size_t k = 0; k < kOps; ++k) {
      auto r = flat(at(dst.get(), right()) + k * kSlice, kSlice), l = flat(src.get() + k * kSlice, kSlice);
      KCHECK(rep, !TPUT_ASYNC(r, l, s, AsyncPutMode::DEFER).valid(), &s);
    }
    KCHECK(rep, *s.lastError() == '\0', &s);
    AsyncEvent batch = SubmitAsyncPutBatch(s);
    KCHECK(rep, batch.valid() && batch.Wait(s), &s);
    KCHECK(rep, all_equal(at(dst.get(), right()), kOps * kSlice, pattern<float>(me(), 4)), nullptr);
  });
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), kOps * kSlice, pattern<float>(left(), 4)));
  barrier();
}
// ---- DEFER batches --------------------------------------------------------------------

TEST(AsyncDefer, StagedPutsMoveOnSubmit) {
  constexpr std::size_t kOps = 8, kSlice = 3000, kN = 2 * kOps * kSlice;
  Sdma sdma;
  Sym<float> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kN, me(), 9);
  fill(dst.get(), kN, me(), 90);  // what the owner wrote; only this test's puts change it
  barrier();
  Outcome empty;
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, {4096, 0, 2}), &s);
    auto slice = [&](std::size_t k) {
      return std::pair{flat(at(dst.get(), right()) + k * kSlice, kSlice), flat(src.get() + k * kSlice, kSlice)};
    };
    for (std::size_t k = 0; k < kOps; ++k) {
      auto [r, l] = slice(k);
      KCHECK(rep, !TPUT_ASYNC(r, l, s, AsyncPutMode::DEFER).valid(), &s);  // a placeholder
    }
    // Staged, not moved: the engine runs everything it was given and parks
    // (NOTE [engine hold]); the destination still holds its owner's values.
    auto unmoved = [&](std::size_t from) {
      EngineHold::set(~0u);
      bool same = all_equal(at(dst.get(), right()) + from, kN / 2, pattern<float>(right(), 90, from));
      EngineHold::set(0);
      return same;
    };
    KCHECK(rep, unmoved(0), nullptr);
    AsyncEvent batch = SubmitAsyncPutBatch(s);
    KCHECK(rep, batch.valid() && batch.Wait(s), &s);
    KCHECK(rep, all_equal(at(dst.get(), right()), kN / 2, pattern<float>(me(), 9)), nullptr);
    empty = outcome(SubmitAsyncPutBatch(s).valid(), s);
    // The same two steps under their other names.
    for (std::size_t k = kOps; k < 2 * kOps; ++k) {
      auto [r, l] = slice(k);
      TPUT_ASYNC_DEFER(r, l, s);
    }
    KCHECK(rep, unmoved(kN / 2), nullptr);
    AsyncEvent second = TPUT_ASYNC_SUBMIT(s);
    KCHECK(rep, second.valid() && second.Wait(s), &s);
    KCHECK(rep, all_equal(at(dst.get(), right()), kN, pattern<float>(me(), 9)), nullptr);
  });
  EXPECT_TRUE(Refused(empty, "no deferred put is staged"));
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), kN, pattern<float>(left(), 9)));
  barrier();
}
}  // namespace
