// Quiet semantics, backpressure and DEFER batches of asynchronous sessions.
#include "async_test.hpp"

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
    AsyncEvent batch = SubmitAsyncPutBatch(s);
    KCHECK(rep, batch.valid() && batch.Wait(s), &s);
    KCHECK(rep, all_equal(at(dst.get(), right()), kN / 2, pattern<float>(me(), 9)), nullptr);
    empty = outcome(SubmitAsyncPutBatch(s).valid(), s);
    // The same two steps under their other names.
    for (std::size_t k = kOps; k < 2 * kOps; ++k) {
      auto [r, l] = slice(k);
      TPUT_ASYNC_DEFER(r, l, s);
    }
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
