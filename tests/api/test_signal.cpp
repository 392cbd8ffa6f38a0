// Put-with-signal and signal operations (OpenSHMEM 1.5 sections 9.6 and
// 9.9.x): shmem_put_signal, shmem_put_signal_nbi for every RMA type, the
// sized and untyped forms, both signal operations, ctx forms,
// shmem_signal_fetch and shmem_signal_wait_until.
#include <sched.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "api_test.hpp"

using namespace api;

namespace {

#define SIG_TRAITS(TYPE, NAME)                                                     \
  struct Sig_##NAME {                                                              \
    using T = TYPE;                                                                \
    static constexpr auto put_signal = shmem_##NAME##_put_signal;                  \
    static constexpr auto put_signal_nbi = shmem_##NAME##_put_signal_nbi;          \
    static constexpr auto ctx_put_signal = shmem_ctx_##NAME##_put_signal;          \
    static constexpr auto ctx_put_signal_nbi = shmem_ctx_##NAME##_put_signal_nbi;  \
  };
SHMEMI_RMA_TYPES(SIG_TRAITS)
#undef SIG_TRAITS

// One variant of put-with-signal for a type: plain or ctx, blocking or nbi.
template <class Tr>
struct SigOp {
  using T = typename Tr::T;
  shmem_ctx_t ctx;  // SHMEM_CTX_INVALID: the form without a context
  bool nbi;
  void operator()(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) const {
    if (ctx == SHMEM_CTX_INVALID)
      nbi ? Tr::put_signal_nbi(d, s, n, sig, v, op, pe) : Tr::put_signal(d, s, n, sig, v, op, pe);
    else
      nbi ? Tr::ctx_put_signal_nbi(ctx, d, s, n, sig, v, op, pe) : Tr::ctx_put_signal(ctx, d, s, n, sig, v, op, pe);
  }
  void quiet() const { ctx == SHMEM_CTX_INVALID ? shmem_quiet() : shmem_ctx_quiet(ctx); }
  std::string name() const {
    return std::string(nbi ? " [nbi, " : " [blocking, ") +
           (ctx == SHMEM_CTX_INVALID ? "no ctx]" : ctx == SHMEM_CTX_DEFAULT ? "SHMEM_CTX_DEFAULT]" : "created ctx]");
  }
};

// Ring with SHMEM_SIGNAL_SET, then all-to-one with SHMEM_SIGNAL_ADD. The
// receiver waits only for the signal and then checks the data: the data
// must be delivered before the signal is.
template <class Tr>
void signal_sequence(SigOp<Tr> put_signal, int salt) {
  using T = typename Tr::T;
  const int n = npes(), self = me(), l = left();
  const std::string where = put_signal.name();
  constexpr size_t N = 37, M = 11;
  Sym<T> ring(N), gather(M * n);
  Sym<uint64_t> sig(2);
  if (!ring.ok() || !gather.ok() || !sig.ok()) return;
  std::vector<T> src(N);
  for (size_t i = 0; i < N; ++i) src[i] = value<T>(self, i, salt);
  barrier();

  // Ring, SET: the signal value names the sender.
  put_signal(ring.get(), src.data(), N, &sig[0], 1000 + self, SHMEM_SIGNAL_SET, right());
  uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 1000 + l);
  EXPECT_EQ(got, static_cast<uint64_t>(1000 + l)) << "signal_wait_until returns the signal" << where;
  EXPECT_TRUE(all_equal(ring.get(), N, [&](size_t i) { return value<T>(l, i, salt); })) << "ring data" << where;
  EXPECT_EQ(shmem_signal_fetch(&sig[0]), static_cast<uint64_t>(1000 + l)) << where;

  // All to PE 0, ADD: PE 0 waits for n arrivals.
  put_signal(gather.get() + self * M, src.data(), M, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
  put_signal.quiet();
  if (self == 0) {
    got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, static_cast<uint64_t>(n));
    EXPECT_EQ(got, static_cast<uint64_t>(n)) << where;
    for (int pe = 0; pe < n; ++pe)
      EXPECT_TRUE(all_equal(gather.get() + pe * M, M, [&](size_t i) { return value<T>(pe, i, salt); }))
          << "gathered data of PE " << pe << where;
    EXPECT_EQ(shmem_signal_fetch(&sig[1]), static_cast<uint64_t>(n)) << where;
  }
  barrier();
}

template <class Tr>
void run_signal() {
  signal_sequence(SigOp<Tr>{SHMEM_CTX_INVALID, false}, 1);
  signal_sequence(SigOp<Tr>{SHMEM_CTX_INVALID, true}, 2);
  signal_sequence(SigOp<Tr>{SHMEM_CTX_DEFAULT, false}, 3);
  Ctx ctx;
  if (ctx.ok()) signal_sequence(SigOp<Tr>{ctx.get(), true}, 4);
}

}  // namespace

#define SIG_TEST(TYPE, NAME) \
  TEST(PutSignalTyped, NAME) { run_signal<Sig_##NAME>(); }
SHMEMI_RMA_TYPES(SIG_TEST)
#undef SIG_TEST

// ---- sized and untyped -------------------------------------------------------------

namespace {

struct SizedSig {
  size_t bytes;
  void (*put_signal)(void*, const void*, size_t, uint64_t*, uint64_t, int, int);
  void (*put_signal_nbi)(void*, const void*, size_t, uint64_t*, uint64_t, int, int);
  void (*ctx_put_signal)(shmem_ctx_t, void*, const void*, size_t, uint64_t*, uint64_t, int, int);
  void (*ctx_put_signal_nbi)(shmem_ctx_t, void*, const void*, size_t, uint64_t*, uint64_t, int, int);
};

void sized_signal_sequence(const SizedSig& f, int variant) {
  const size_t E = f.bytes, N = 29;
  const int self = me(), l = left();
  Sym<unsigned char> buf(N * E);
  Sym<uint64_t> sig(1);
  if (!buf.ok() || !sig.ok()) return;
  std::vector<unsigned char> src(N * E), want(N * E);
  for (size_t i = 0; i < N * E; ++i) {
    src[i] = static_cast<unsigned char>(i * 3 + self * 17 + E + variant);
    want[i] = static_cast<unsigned char>(i * 3 + l * 17 + E + variant);
  }
  barrier();
  Ctx ctx;
  const uint64_t v = (uint64_t{1} << 63) | static_cast<uint64_t>(self);  // the top bit too
  switch (variant) {
    case 0: f.put_signal(buf.get(), src.data(), N, sig.get(), v, SHMEM_SIGNAL_SET, right()); break;
    case 1: f.put_signal_nbi(buf.get(), src.data(), N, sig.get(), v, SHMEM_SIGNAL_SET, right()); break;
    case 2: f.ctx_put_signal(ctx.get(), buf.get(), src.data(), N, sig.get(), v, SHMEM_SIGNAL_SET, right()); break;
    default: f.ctx_put_signal_nbi(ctx.get(), buf.get(), src.data(), N, sig.get(), v, SHMEM_SIGNAL_SET, right());
  }
  const uint64_t expect = (uint64_t{1} << 63) | static_cast<uint64_t>(l);
  EXPECT_EQ(shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, expect), expect);
  EXPECT_TRUE(bytes_equal(buf.get(), want.data(), N * E)) << E * 8 << " bits, variant " << variant;
  shmem_quiet();
  if (ctx.ok()) shmem_ctx_quiet(ctx.get());
  barrier();
}

}  // namespace

#define SIZED_SIG_TEST(BITS)                                                                          \
  TEST(PutSignalSized, Bits##BITS) {                                                                  \
    SizedSig f{BITS / 8, shmem_put##BITS##_signal, shmem_put##BITS##_signal_nbi,                      \
               shmem_ctx_put##BITS##_signal, shmem_ctx_put##BITS##_signal_nbi};                       \
    for (int variant = 0; variant < 4; ++variant) sized_signal_sequence(f, variant);                 \
  }
SHMEMI_SIZES(SIZED_SIG_TEST)
#undef SIZED_SIG_TEST

TEST(PutSignalSized, Mem) {
  SizedSig f{1, shmem_putmem_signal, shmem_putmem_signal_nbi, shmem_ctx_putmem_signal, shmem_ctx_putmem_signal_nbi};
  for (int variant = 0; variant < 4; ++variant) sized_signal_sequence(f, variant);
}

// ---- signal semantics --------------------------------------------------------------

TEST(Signal, AddAccumulatesAndSetOverwrites) {
  Sym<uint64_t> sig(1);
  Sym<char> dummy(8);
  if (!sig.ok() || !dummy.ok()) return;
  barrier();
  // Every PE adds (me+1) to PE 0's signal, twice, through a zero-length put.
  shmem_putmem_signal(dummy.get(), dummy.get(), 0, sig.get(), me() + 1, SHMEM_SIGNAL_ADD, 0);
  shmem_putmem_signal_nbi(dummy.get(), dummy.get(), 0, sig.get(), me() + 1, SHMEM_SIGNAL_ADD, 0);
  shmem_quiet();
  const uint64_t total = static_cast<uint64_t>(npes()) * (npes() + 1);
  if (me() == 0) {
    EXPECT_EQ(shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, total), total);
  }
  barrier();
  EXPECT_EQ(shmem_uint64_atomic_fetch(sig.get(), 0), total);
  barrier();
  // SET replaces the value: last writer wins, and it is one of the writers.
  shmem_putmem_signal(dummy.get(), dummy.get(), 0, sig.get(), 7000 + me(), SHMEM_SIGNAL_SET, 0);
  barrier();
  if (me() == 0) {
    uint64_t s = shmem_signal_fetch(sig.get());
    EXPECT_GE(s, 7000u);
    EXPECT_LT(s, 7000u + npes());
  }
  barrier();
}

TEST(Signal, WaitUntilEveryComparison) {
  // The left neighbour raises my signal step by step; I wait with each
  // comparison in turn. A barrier separates the steps.
  Sym<uint64_t> sig(1);
  Sym<int> dummy(1);
  if (!sig.ok() || !dummy.ok()) return;
  sig[0] = 100;
  barrier();
  struct Step {
    uint64_t set;
    int cmp;
    uint64_t ref;
  } steps[] = {
      {200, SHMEM_CMP_NE, 100}, {300, SHMEM_CMP_GT, 250}, {400, SHMEM_CMP_GE, 400},
      {50, SHMEM_CMP_LT, 100},  {40, SHMEM_CMP_LE, 40},   {12345, SHMEM_CMP_EQ, 12345},
  };
  for (const Step& s : steps) {
    shmem_int_put_signal(dummy.get(), dummy.get(), 0, sig.get(), s.set, SHMEM_SIGNAL_SET, right());
    uint64_t got = shmem_signal_wait_until(sig.get(), s.cmp, s.ref);
    EXPECT_EQ(got, s.set) << "cmp " << s.cmp;
    barrier();
  }
}

TEST(Signal, SignalWordUpdatedByAtomics) {
  // A signal word may also be updated by uint64 AMOs.
  Sym<uint64_t> sig(1);
  if (!sig.ok()) return;
  barrier();
  shmem_uint64_atomic_add(sig.get(), 1, 0);
  if (me() == 0) {
    EXPECT_EQ(shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, static_cast<uint64_t>(npes())),
              static_cast<uint64_t>(npes()));
  }
  barrier();
  shmem_uint64_atomic_set(sig.get(), 42 + me(), right());
  EXPECT_EQ(shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, 42u + left()), 42u + left());
  EXPECT_EQ(shmem_signal_fetch(sig.get()), 42u + left());
  barrier();
}

TEST(Signal, ManyRoundsOfPutWithSignalAreOrdered) {
  // 200 rounds of a 4 KiB block to the right neighbour; the signal counts
  // rounds and the receiver acknowledges each one before the next.
  constexpr size_t B = 512;
  Sym<long> buf(B);
  Sym<uint64_t> sig(1), ack(1);
  if (!buf.ok() || !sig.ok() || !ack.ok()) return;
  barrier();
  std::vector<long> src(B);
  for (uint64_t round = 1; round <= 200; ++round) {
    for (size_t i = 0; i < B; ++i) src[i] = static_cast<long>(round * 100000 + me() * 1000 + i);
    shmem_long_put_signal_nbi(buf.get(), src.data(), B, sig.get(), round, SHMEM_SIGNAL_SET, right());
    shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, round);
    EXPECT_TRUE(all_equal(buf.get(), B, [&](size_t i) { return static_cast<long>(round * 100000 + left() * 1000 + i); }))
        << "round " << round;
    // Tell the left neighbour that its block was consumed, then wait for mine.
    shmem_uint64_atomic_set(ack.get(), round, left());
    shmem_uint64_wait_until(ack.get(), SHMEM_CMP_EQ, round);
  }
  barrier();
}

TEST(Signal, LargeBlockBeforeTheSignal) {
  // A block large enough for the weakly ordered copies (`rep movsb`, or
  // memcpy's non-temporal stores: see CMakeLists.txt): the signal must not
  // overtake it.
  const size_t bytes = size_t{3} << 20;
  Sym<unsigned char> buf(bytes);
  Sym<uint64_t> sig(1), ack(1);
  if (!buf.ok() || !sig.ok() || !ack.ok()) return;
  std::vector<unsigned char> src(bytes), want(bytes);
  barrier();
  for (uint64_t round = 1; round <= 3; ++round) {
    for (size_t i = 0; i < bytes; ++i) {
      src[i] = static_cast<unsigned char>(i * 5 + round * 29 + me());
      want[i] = static_cast<unsigned char>(i * 5 + round * 29 + left());
    }
    if (round % 2) shmem_putmem_signal(buf.get(), src.data(), bytes, sig.get(), round, SHMEM_SIGNAL_SET, right());
    else shmem_putmem_signal_nbi(buf.get(), src.data(), bytes, sig.get(), round, SHMEM_SIGNAL_SET, right());
    shmem_signal_wait_until(sig.get(), SHMEM_CMP_EQ, round);
    EXPECT_TRUE(bytes_equal(buf.get(), want.data(), bytes)) << "round " << round;
    shmem_uint64_atomic_set(ack.get(), round, left());
    shmem_uint64_wait_until(ack.get(), SHMEM_CMP_EQ, round);
  }
  shmem_quiet();
  barrier();
}

TEST(Signal, WaitUntilReturnsTheValueThatSatisfiedTheCondition) {
  // OpenSHMEM 1.5: shmem_signal_wait_until returns the signal's value that
  // satisfied the condition. A second thread of this PE keeps flipping the
  // signal between 2 and 3; every wait for == 3 must return 3, whatever the
  // signal holds by the time the call returns.
  constexpr int kWaits = 5000;
  static uint64_t sig = 2;  // .data: symmetric
  std::atomic<bool> stop{false};
  const int waiter_cpu = sched_getcpu();
  std::thread flipper([&] {
    // tcrun binds the PE to one CPU; the flipper asks for any other one, so
    // that it changes the signal while the waiting thread runs (best effort:
    // the assertion holds either way).
    cpu_set_t others;
    CPU_ZERO(&others);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (c != waiter_cpu) CPU_SET(c, &others);
    sched_setaffinity(0, sizeof others, &others);
    std::atomic_ref<uint64_t> word(sig);
    for (uint64_t v = 3; !stop.load(std::memory_order_relaxed); v ^= 1) word.store(v, std::memory_order_release);
  });
  int wrong = 0;
  uint64_t first_wrong = 0;
  for (int i = 0; i < kWaits; ++i) {
    uint64_t got = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 3);
    if (got != 3 && wrong++ == 0) first_wrong = got;
  }
  stop.store(true);
  flipper.join();
  EXPECT_EQ(wrong, 0) << "PE " << me() << ": " << wrong << " of " << kWaits << " waits returned another value, first "
                      << first_wrong;
  barrier();
}
