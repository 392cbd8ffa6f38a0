// A submission whose wait for ring room ends by TILECOMM_TIMEOUT part-way:
// it returns an invalid event with the reason, leaves no completion record
// behind, and the next operation, which gets the same sequence number,
// completes only when its own copies have run.
//
// Disabled here: ctest runs it alone as test_pto_async.np1.timeout with
// TILECOMM_TIMEOUT=1 and TILECOMM_SDMA_THREADS=2 (the configuration is read
// once per process). The engine is held throughout (NOTE [engine hold]), so
// the wait for room can only end by the timeout: the outcome does not
// depend on timing. Two engine threads: queue 0 of channel group 0 runs on
// thread 0, queue 1 on thread 1, so the test can let one queue run and not
// the other.
#include "async_test.hpp"

using namespace async_test;

namespace {

constexpr std::uint32_t kThread0 = 1u << 0, kThread1 = 1u << 1, kBoth = kThread0 | kThread1;

TEST(AsyncTimeout, DISABLED_AFailedSubmissionLeavesNoCompletionForTheNextOperation) {
  constexpr std::size_t kEntry = 4096 / sizeof(std::int32_t);  // ints per ring entry (block_bytes 4096)
  constexpr std::size_t kBig = 511 * kEntry;                   // 256 entries on queue 1, 255 on queue 0
  Sdma sdma;
  ASSERT_EQ(tilecomm::transport::dma::Engine::instance().threads(), 2) << "run with TILECOMM_SDMA_THREADS=2";
  Sym<std::int32_t> src(kBig + kEntry), dst(kBig + kEntry);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kBig + kEntry, me(), 12);
  barrier();
  Outcome failed, later_done_early;
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s, {4096, 0, 2}, 0), &s);
    // One entry on queue 0: the next operation's copies start on queue 1.
    auto one_d = flat(dst.get(), kEntry), one_s = flat(at(src.get(), me()), kEntry);
    AsyncEvent first = TGET_ASYNC(one_d, one_s, s);
    KCHECK(rep, first.valid() && first.Wait(s), &s);
    // Held engine: queue 1 fills with 256 copies before its Flag fits.
    EngineHold::set(kBoth);
    auto big_d = flat(dst.get(), kBig), big_s = flat(at(src.get(), me()), kBig);
    AsyncEvent big = TGET_ASYNC(big_d, big_s, s);
    failed = outcome(big.valid(), s);
    // Every copy the failed operation handed over runs; nothing else is there.
    EngineHold::set(0);
    EngineHold::set(kBoth);
    // The next operation gets the same sequence number. Thread 1 runs
    // queue 1; thread 0 (queue 0) stays held, so the operation cannot be
    // complete: a completion record left by the failed one would say it is.
    auto last_d = flat(dst.get() + kBig, kEntry), last_s = flat(at(src.get(), me()) + kBig, kEntry);
    AsyncEvent later = TGET_ASYNC(last_d, last_s, s);
    KCHECK(rep, later.valid() && later.handle == first.handle + 1, &s);
    EngineHold::set(kThread0);
    EngineHold::set(kBoth);
    later_done_early = outcome(later.Test(s), s);
    EngineHold::set(0);
    KCHECK(rep, later.Wait(s), &s);
    KCHECK(rep, later.Test(s) && first.Test(s), &s);
    KCHECK(rep, all_equal(dst.get() + kBig, kEntry, pattern<std::int32_t>(me(), 12, kBig)), nullptr);
  });
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.error, "TGET_ASYNC: TILECOMM_TIMEOUT passed while waiting for room in the queues of channel group "
                          "0 (at most 64 operations in flight, 256 entries per queue); the operation was not "
                          "submitted");
  EXPECT_FALSE(later_done_early.ok) << "Test reported the later operation complete while its queue 0 was held";
  barrier();
}

}  // namespace
