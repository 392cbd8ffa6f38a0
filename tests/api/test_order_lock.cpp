// Memory ordering (OpenSHMEM 1.5 section 9.11: shmem_fence, shmem_quiet and
// their ctx forms) and distributed locks (section 9.12: shmem_set_lock,
// shmem_test_lock, shmem_clear_lock).
//
// Ordering is checked by the pattern the specification gives it for: data,
// then fence (or quiet), then a flag; the receiver waits for the flag only
// and must then see all of the data. Each round is acknowledged before the
// next, so nothing depends on timing.
#include <sched.h>

#include <cstring>

#include "api_test.hpp"

using namespace api;

namespace {

long g_lock;         // a global lock (symmetric, zero = unlocked)
long g_other_lock;   // a second, independent one
long g_spin_lock;    // used with shmem_test_lock only

enum class Order { Fence, Quiet, CtxFence, CtxQuiet };

const char* order_name(Order o) {
  switch (o) {
    case Order::Fence: return "shmem_fence";
    case Order::Quiet: return "shmem_quiet";
    case Order::CtxFence: return "shmem_ctx_fence";
    case Order::CtxQuiet: return "shmem_ctx_quiet";
  }
  return "?";
}

// `rounds` rounds of: putmem `bytes` (blocking or nbi), order, flag; the
// receiver checks the whole block, then acknowledges.
void data_then_flag(Order order, bool nbi, size_t bytes, int rounds) {
  Sym<unsigned char> buf(bytes);
  Sym<long> flag(1), ack(1);
  if (!buf.ok() || !flag.ok() || !ack.ok()) return;
  Ctx ctx;
  const bool use_ctx = order == Order::CtxFence || order == Order::CtxQuiet;
  shmem_ctx_t c = use_ctx ? ctx.get() : SHMEM_CTX_DEFAULT;
  std::vector<unsigned char> src(bytes), want(bytes);
  barrier();
  for (long round = 1; round <= rounds; ++round) {
    for (size_t i = 0; i < bytes; ++i) {
      src[i] = static_cast<unsigned char>(i * 7 + round * 13 + me());
      want[i] = static_cast<unsigned char>(i * 7 + round * 13 + left());
    }
    if (nbi) shmem_ctx_putmem_nbi(c, buf.get(), src.data(), bytes, right());
    else shmem_ctx_putmem(c, buf.get(), src.data(), bytes, right());
    switch (order) {
      case Order::Fence: shmem_fence(); break;
      case Order::Quiet: shmem_quiet(); break;
      case Order::CtxFence: shmem_ctx_fence(c); break;
      case Order::CtxQuiet: shmem_ctx_quiet(c); break;
    }
    shmem_ctx_long_p(c, flag.get(), round, right());
    shmem_long_wait_until(flag.get(), SHMEM_CMP_EQ, round);
    EXPECT_TRUE(bytes_equal(buf.get(), want.data(), bytes))
        << order_name(order) << (nbi ? " after putmem_nbi" : " after putmem") << ", " << bytes << " bytes, round "
        << round;
    // Consumed: the left neighbour may send the next round.
    shmem_long_atomic_set(ack.get(), round, left());
    shmem_long_wait_until(ack.get(), SHMEM_CMP_EQ, round);
  }
  shmem_ctx_quiet(c);
  barrier();
}

}  // namespace

TEST(Ordering, FenceOrdersPutsToOnePe) {
  data_then_flag(Order::Fence, false, 256, 50);
  data_then_flag(Order::Fence, true, 256, 50);
}

TEST(Ordering, QuietCompletesNonBlockingPuts) {
  data_then_flag(Order::Quiet, true, 256, 50);
  data_then_flag(Order::Quiet, false, 256, 50);
}

TEST(Ordering, CtxFenceAndCtxQuiet) {
  data_then_flag(Order::CtxFence, true, 256, 30);
  data_then_flag(Order::CtxQuiet, true, 256, 30);
}

TEST(Ordering, LargeBlocksBeforeTheFlag) {
  // Blocks large enough for the weakly ordered copies (`rep movsb`, or
  // memcpy's non-temporal stores).
  data_then_flag(Order::Fence, false, 4 << 20, 3);
  data_then_flag(Order::Quiet, true, 4 << 20, 3);
  data_then_flag(Order::CtxFence, true, 3 << 20, 2);
}

TEST(Ordering, FenceOrdersAmosAndPutsToOnePe) {
  // Several puts to distinct words, each followed by a fence, then an AMO
  // flag: the receiver sees every word once it sees the flag.
  constexpr int W = 16;
  Sym<long> words(W), flag(1);
  if (!words.ok() || !flag.ok()) return;
  barrier();
  for (int w = 0; w < W; ++w) {
    shmem_long_p(words.get() + w, 1000 * me() + w, right());
    shmem_fence();
  }
  shmem_long_atomic_inc(flag.get(), right());
  shmem_long_wait_until(flag.get(), SHMEM_CMP_EQ, 1);
  EXPECT_TRUE(all_equal(words.get(), W, [](size_t w) { return 1000L * left() + static_cast<long>(w); }));
  barrier();
}

TEST(Ordering, ManySmallPutsOfMixedSizesBeforeTheFlag) {
  // Hundreds of puts of 1 to 1100 and of 8000 to 8400 bytes side by side
  // (through UCX, most of them travel in batches and some on their own:
  // NOTE [ucx coalescing], 8 KiB by default),
  // a later put overwriting part of an earlier one, blocking and nbi mixed;
  // then fence and a flag, or quiet and a flag.
  constexpr size_t kBytes = 600 << 10;
  Sym<unsigned char> buf(kBytes);
  Sym<long> flag(1), ack(1);
  if (!buf.ok() || !flag.ok() || !ack.ok()) return;
  std::vector<unsigned char> src(kBytes), want(kBytes);
  barrier();
  for (long round = 1; round <= 2; ++round) {
    for (size_t i = 0; i < kBytes; ++i) {
      src[i] = static_cast<unsigned char>(i * 31 + round * 5 + me());
      want[i] = static_cast<unsigned char>(i * 31 + round * 5 + left());
    }
    size_t at = 0;
    for (size_t k = 0; at < kBytes; ++k) {
      const size_t n = std::min(kBytes - at, k % 4 == 3 ? 8000 + (k * 37) % 400 : 1 + (k * 37) % 1100);
      if (k % 3 == 0) shmem_putmem_nbi(buf.get() + at, src.data() + at, n, right());
      else shmem_putmem(buf.get() + at, src.data() + at, n, right());
      if (k % 5 == 0 && at >= 8) shmem_putmem(buf.get() + at - 8, src.data() + at - 8, 8, right());  // again
      at += n;
    }
    if (round == 1) shmem_fence();
    else shmem_quiet();
    shmem_long_p(flag.get(), round, right());
    shmem_long_wait_until(flag.get(), SHMEM_CMP_EQ, round);
    EXPECT_TRUE(bytes_equal(buf.get(), want.data(), kBytes)) << "round " << round;
    shmem_long_atomic_set(ack.get(), round, left());
    shmem_long_wait_until(ack.get(), SHMEM_CMP_EQ, round);
  }
  barrier();
}

TEST(Ordering, QuietMakesPutsVisibleToEveryPe) {
  // Puts to all PEs, quiet, then a flag to PE 0 only: once PE 0 has every
  // flag, every PE's data is in place everywhere (quiet completes puts to
  // all PEs, not just to one).
  const int n = npes();
  Sym<int> slots(n);
  Sym<long> arrived(1);
  if (!slots.ok() || !arrived.ok()) return;
  barrier();
  for (int pe = 0; pe < n; ++pe) shmem_int_p(slots.get() + me(), 7 + me(), pe);
  shmem_quiet();
  shmem_long_atomic_inc(arrived.get(), 0);
  if (me() == 0) {
    shmem_long_wait_until(arrived.get(), SHMEM_CMP_EQ, n);
    // Read every PE's slots from PE 0: all complete.
    std::vector<int> got(n);
    for (int pe = 0; pe < n; ++pe) {
      shmem_int_get(got.data(), slots.get(), n, pe);
      EXPECT_TRUE(all_equal(got.data(), n, [](size_t i) { return 7 + static_cast<int>(i); })) << "on PE " << pe;
    }
  }
  barrier();
}

TEST(Ordering, FenceAndQuietWithNothingOutstanding) {
  shmem_fence();
  shmem_quiet();
  shmem_ctx_fence(SHMEM_CTX_DEFAULT);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  Ctx ctx;
  if (ctx.ok()) {
    shmem_ctx_fence(ctx.get());
    shmem_ctx_quiet(ctx.get());
  }
  SUCCEED();
}

// ---- locks -------------------------------------------------------------------------

TEST(Locks, MutualExclusionWithSetAndClear) {
  // A non-atomic read-modify-write of a counter on PE 0 under the lock. The
  // total is exact only if the lock excludes; `inside` catches overlaps.
  constexpr int K = 25;
  Sym<long> counter(1), inside(1);
  if (!counter.ok() || !inside.ok()) return;
  barrier();
  for (int k = 0; k < K; ++k) {
    shmem_set_lock(&g_lock);
    EXPECT_EQ(shmem_long_atomic_fetch_inc(inside.get(), 0), 0) << "two PEs hold the lock";
    long v = shmem_long_g(counter.get(), 0);
    shmem_long_p(counter.get(), v + 1, 0);
    shmem_long_atomic_add(inside.get(), -1, 0);
    shmem_clear_lock(&g_lock);  // completes the put before releasing
  }
  barrier();
  EXPECT_EQ(shmem_long_g(counter.get(), 0), static_cast<long>(K) * npes());
  barrier();
}

TEST(Locks, LockOnTheSymmetricHeap) {
  constexpr int K = 10;
  Sym<long> lock(1), counter(1);
  if (!lock.ok() || !counter.ok()) return;
  barrier();
  for (int k = 0; k < K; ++k) {
    shmem_set_lock(lock.get());
    long v = shmem_long_g(counter.get(), npes() - 1);
    shmem_long_p(counter.get(), v + 2, npes() - 1);
    shmem_clear_lock(lock.get());
  }
  barrier();
  EXPECT_EQ(shmem_long_g(counter.get(), npes() - 1), 2L * K * npes());
  barrier();
}

TEST(Locks, TestLockAcquiresOnlyAFreeLock) {
  // Phase 1: PE 0 takes the lock with test_lock and keeps it.
  if (me() == 0) {
    EXPECT_EQ(shmem_test_lock(&g_spin_lock), 0) << "a free lock is acquired";
  }
  barrier();
  // Phase 2: everybody else fails to take it (PE 0 holds it until phase 3),
  // and so does PE 0 itself.
  EXPECT_EQ(shmem_test_lock(&g_spin_lock), 1) << "a held lock is not acquired";
  barrier();
  // Phase 3: PE 0 releases; the lock is free again for the next test.
  if (me() == 0) shmem_clear_lock(&g_spin_lock);
  barrier();
  if (me() == npes() - 1) {
    EXPECT_EQ(shmem_test_lock(&g_spin_lock), 0) << "a released lock is acquired again";
    shmem_clear_lock(&g_spin_lock);
  }
  barrier();
}

TEST(Locks, MutualExclusionWithTestLock) {
  constexpr int K = 15;
  Sym<long> counter(1), inside(1);
  if (!counter.ok() || !inside.ok()) return;
  barrier();
  for (int k = 0; k < K; ++k) {
    while (shmem_test_lock(&g_spin_lock) != 0) sched_yield();
    EXPECT_EQ(shmem_long_atomic_fetch_inc(inside.get(), 0), 0) << "two PEs hold the lock";
    long v = shmem_long_g(counter.get(), 0);
    shmem_long_p(counter.get(), v + 1, 0);
    shmem_long_atomic_add(inside.get(), -1, 0);
    shmem_clear_lock(&g_spin_lock);
  }
  barrier();
  EXPECT_EQ(shmem_long_g(counter.get(), 0), static_cast<long>(K) * npes());
  barrier();
}

TEST(Locks, IndependentLocksDoNotInterfere) {
  // PE 0 holds lock A across a barrier; the others can still take lock B.
  if (me() == 0) shmem_set_lock(&g_lock);
  barrier();
  if (me() == npes() - 1) {
    EXPECT_EQ(shmem_test_lock(&g_other_lock), 0) << "lock B is free while lock A is held";
    shmem_clear_lock(&g_other_lock);
  }
  barrier();
  if (me() != 0 || npes() == 1) {
    shmem_set_lock(&g_other_lock);
    shmem_clear_lock(&g_other_lock);
  }
  barrier();
  if (me() == 0) shmem_clear_lock(&g_lock);
  barrier();
}

TEST(Locks, LockHandsOverToEveryWaiter) {
  // Every PE takes and releases the lock 40 times in a row without any
  // barrier: waiting PEs must all get it eventually (no lost wake-up).
  Sym<long> total(1);
  if (!total.ok()) return;
  barrier();
  for (int k = 0; k < 40; ++k) {
    shmem_set_lock(&g_lock);
    shmem_long_atomic_inc(total.get(), 0);
    shmem_clear_lock(&g_lock);
  }
  barrier();
  EXPECT_EQ(shmem_long_atomic_fetch(total.get(), 0), 40L * npes());
  barrier();
}
