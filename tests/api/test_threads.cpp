// Multithreading (OpenSHMEM 1.5 sections 9.2.2 and 2.2): shmem_init_thread
// with SHMEM_THREAD_MULTIPLE, then several threads per PE communicating at
// once, each through its own private context or through the default one,
// with exact final values.
//
// This program has its own main: it starts OpenSHMEM with shmem_init_thread.
#include <atomic>
#include <thread>

#include "pe_report.hpp"
#include "api_test.hpp"

using namespace api;

namespace {

int g_requested_rc = -1;
int g_provided = -1;
constexpr int kThreads = 4;

// Runs body(t) on kThreads threads and joins them.
template <class Body>
void on_threads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& th : threads) th.join();
}

}  // namespace

TEST(Threads, InitThreadProvidesMultiple) {
  EXPECT_EQ(g_requested_rc, 0);
  EXPECT_EQ(g_provided, SHMEM_THREAD_MULTIPLE);
  int q = -1;
  shmem_query_thread(&q);
  EXPECT_EQ(q, g_provided);
}

TEST(Threads, PrivateContextsPerThread) {
  // Each thread t, each round r: a block into region (t, r) of the right
  // neighbour, a fence, a flag (t) := r; then waits for its own flag from
  // the left neighbour's thread t and checks that block. Plus AMOs: a
  // counter per thread on the right neighbour, one shared counter on PE 0.
  constexpr int R = 20, M = 64;
  const int n = npes(), self = me(), l = left(), r = right();
  Sym<long> data(static_cast<size_t>(kThreads) * R * M);
  Sym<long> flags(kThreads), per_thread(kThreads), shared(1);
  if (!data.ok() || !flags.ok() || !per_thread.ok() || !shared.ok()) return;
  std::atomic<int> failures{0};
  std::atomic<int> ctx_failures{0};
  barrier();
  on_threads([&](int t) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0 || ctx == SHMEM_CTX_INVALID) {
      ++ctx_failures;
      ctx = SHMEM_CTX_DEFAULT;  // carry on, so that the peers waiting for this thread are served
    }
    std::vector<long> block(M);
    for (int round = 1; round <= R; ++round) {
      for (int i = 0; i < M; ++i) block[i] = ((long)self << 32) | (t << 24) | (round << 12) | i;
      long* region = data.get() + (static_cast<size_t>(t) * R + (round - 1)) * M;
      shmem_ctx_long_put_nbi(ctx, region, block.data(), M, r);
      shmem_ctx_fence(ctx);
      shmem_ctx_long_atomic_set(ctx, flags.get() + t, round, r);
      shmem_ctx_long_atomic_inc(ctx, per_thread.get() + t, r);
      shmem_ctx_long_atomic_fetch_add(ctx, shared.get(), 1, 0);
      shmem_ctx_quiet(ctx);
      // My flag t is raised by the left neighbour's thread t; it may already
      // be past this round, hence >=.
      shmem_long_wait_until(flags.get() + t, SHMEM_CMP_GE, round);
      for (int i = 0; i < M; ++i) {
        long want = ((long)l << 32) | (t << 24) | (round << 12) | i;
        if (region[i] != want) {
          ++failures;
          break;
        }
      }
    }
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
  });
  EXPECT_EQ(ctx_failures.load(), 0) << "shmem_ctx_create(SHMEM_CTX_PRIVATE) failed on a thread";
  EXPECT_EQ(failures.load(), 0) << "blocks that did not match after their flag";
  barrier();
  EXPECT_TRUE(all_equal(per_thread.get(), kThreads, [](size_t) { return static_cast<long>(R); }));
  EXPECT_EQ(shmem_long_atomic_fetch(shared.get(), 0), static_cast<long>(n) * kThreads * R);
  for (int t = 0; t < kThreads; ++t)
    for (int round = 1; round <= R; ++round) {
      const long* region = data.get() + (static_cast<size_t>(t) * R + (round - 1)) * M;
      EXPECT_TRUE(all_equal(region, M, [&](size_t i) {
        return ((long)l << 32) | (t << 24) | (round << 12) | static_cast<long>(i);
      })) << "thread " << t << ", round " << round;
    }
  barrier();
}

TEST(Threads, DefaultContextFromEveryThread) {
  // Every thread uses the default context at once: AMOs to every PE, puts
  // into disjoint slots, gets, and quiet.
  constexpr int K = 200;
  const int n = npes(), self = me();
  Sym<long> counters(n);
  Sym<int> slots(static_cast<size_t>(n) * kThreads);
  if (!counters.ok() || !slots.ok()) return;
  std::atomic<int> bad_gets{0};
  barrier();
  on_threads([&](int t) {
    for (int k = 0; k < K; ++k) {
      const int pe = (self + k) % n;
      shmem_long_atomic_add(counters.get() + self, 1, pe);
      shmem_int_p(slots.get() + self * kThreads + t, 1000 * self + t, pe);
      if (shmem_int_g(slots.get() + self * kThreads + t, self) < 0) ++bad_gets;
    }
    shmem_quiet();
  });
  barrier();
  // Every PE got K * kThreads / n ... exactly: PE pe receives from PE s the
  // adds of the k with (s + k) % n == pe, per thread.
  for (int s = 0; s < n; ++s) {
    long want = 0;
    for (int k = 0; k < K; ++k) want += (s + k) % n == self;
    EXPECT_EQ(counters[s], want * kThreads) << "from PE " << s;
  }
  for (int s = 0; s < n; ++s)
    for (int t = 0; t < kThreads; ++t) {
      // Slot (s, t) is written on this PE only if some k maps here.
      bool written = false;
      for (int k = 0; k < K; ++k) written |= (s + k) % n == self;
      if (written) {
        EXPECT_EQ(slots[s * kThreads + t], 1000 * s + t) << "slot of PE " << s << ", thread " << t;
      }
    }
  EXPECT_EQ(bad_gets.load(), 0);
  barrier();
}

TEST(Threads, ContextsCreatedAndDestroyedConcurrently) {
  std::atomic<int> failures{0};
  Sym<long> counter(1);
  if (!counter.ok()) return;
  barrier();
  on_threads([&](int) {
    for (int i = 0; i < 300; ++i) {
      shmem_ctx_t ctx = SHMEM_CTX_INVALID;
      if (shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx) != 0) {
        ++failures;
        continue;
      }
      shmem_ctx_long_atomic_inc(ctx, counter.get(), 0);
      shmem_ctx_destroy(ctx);  // completes the increment
    }
  });
  EXPECT_EQ(failures.load(), 0);
  barrier();
  EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), 0), 300L * kThreads * npes());
  barrier();
}

TEST(Threads, ThreadsWaitWhileOthersSignal) {
  // Thread t of each PE waits on its own signal word, raised by thread t of
  // the left neighbour with put-with-signal; all threads run at once.
  constexpr int R = 30;
  Sym<long> buf(kThreads);
  Sym<uint64_t> sig(kThreads);
  if (!buf.ok() || !sig.ok()) return;
  std::atomic<int> failures{0};
  const int l = left(), r = right(), self = me();
  barrier();
  on_threads([&](int t) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0 || ctx == SHMEM_CTX_INVALID) {
      ++failures;
      ctx = SHMEM_CTX_DEFAULT;
    }
    for (int round = 1; round <= R; ++round) {
      long v = 100000L * round + 100 * self + t;
      shmem_ctx_long_put_signal(ctx, buf.get() + t, &v, 1, sig.get() + t, 1, SHMEM_SIGNAL_ADD, r);
      shmem_ctx_quiet(ctx);
      shmem_signal_wait_until(sig.get() + t, SHMEM_CMP_GE, static_cast<uint64_t>(round));
      // The buffer may already hold the next round's value (the left
      // neighbour does not wait for me): it is this round's or later.
      long got = shmem_long_atomic_fetch(buf.get() + t, self);
      if (got < 100000L * round + 100 * l + t || (got - 100 * l - t) % 100000 != 0) ++failures;
    }
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
  });
  EXPECT_EQ(failures.load(), 0);
  barrier();
  EXPECT_TRUE(all_equal(sig.get(), kThreads, [](size_t) { return static_cast<uint64_t>(R); }));
  EXPECT_TRUE(all_equal(buf.get(), kThreads, [&](size_t t) { return 100000L * R + 100 * l + static_cast<long>(t); }));
  barrier();
}

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  g_requested_rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &g_provided);
  int rc = run_all_tests_as_pe();
  shmem_finalize();
  return rc;
}
