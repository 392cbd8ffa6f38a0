// The asynchronous DMA instructions on real PEs (contract in
// pto/comm/async_common/async_types.hpp): TGET_ASYNC / TPUT_ASYNC over SDMA
// and URMA sessions, quiet semantics, backpressure, DEFER batches,
// TPUT_ASYNC_NOTIFY, invalid events, the session rules and the workspace
// manager. Every PE runs every test; the peers are the ring neighbours
// (the PE itself on 1 PE) and every element is checked.
//
// Kernels never assert: a failed check inside a block goes into a Report,
// which the host expects to be empty once the launch has returned.
#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/async/urma/urma_workspace_manager.hpp>
#include <pto/comm/pto_comm_inst.hpp>

#include <mutex>
#include <string>
#include <vector>

#include "api_test.hpp"

using namespace api;
using namespace pto;
using namespace pto::comm;

namespace {

constexpr std::size_t kMiB = 1024 * 1024;

using Shape5 = Shape<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
using Stride5 = Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
template <class T>
using GT = GlobalTensor<T, Shape5, Stride5, Layout::ND>;
using Scratch = Tile<TileType::Vec, std::uint8_t, 1, sdma::UB_ALIGN_SIZE>;

/// A flat 1-D view of n elements at p (packed strides).
template <class T>
GT<T> flat(T* p, std::size_t n) {
  const int e = static_cast<int>(n);
  return GT<T>(p, Shape5(1, 1, 1, 1, e), Stride5(e, e, e, e, 1));
}

/// PE `pe`'s copy of the symmetric object at p, as this process reaches it.
template <class T>
T* at(T* p, int pe) {
  return static_cast<T*>(shmem_ptr(p, pe));
}

template <class T>
void fill(T* p, std::size_t n, int pe, int salt, std::size_t from = 0) {
  for (std::size_t i = 0; i < n; ++i) p[i] = value<T>(pe, from + i, salt);
}
/// The values fill(.., pe, salt, from) writes, for all_equal.
template <class T>
auto pattern(int pe, int salt, std::size_t from = 0) {
  return [=](std::size_t i) { return value<T>(pe, from + i, salt); };
}

/// The failed checks of a kernel's blocks, with the session's reason; read
/// by the host once the launch has returned (the blocks have ended).
struct Report {
  void check(const ::testing::AssertionResult& ok, int line, const char* what, const AsyncSession* s) {
    if (ok) return;
    std::string msg = "line " + std::to_string(line) + ", block " + std::to_string(GetBlockIdx()) + ": " + what;
    if (*ok.message()) msg += ": " + std::string(ok.message());
    if (s) msg += std::string(" [lastError: ") + s->lastError() + "]";
    std::lock_guard<std::mutex> lock(mutex);
    text += msg + "\n";
  }
  std::mutex mutex;
  std::string text;
};
#define KCHECK(report, cond, session) (report).check(::testing::AssertionResult(cond), __LINE__, #cond, session)

/// Runs kernel(report) on `blocks` blocks; expects no exception and no failed check.
template <class Kernel>
void run(int blocks, Kernel&& kernel) {
  Report report;
  try {
    launch(blocks, [&] { kernel(report); });
  } catch (const std::exception& e) {
    ADD_FAILURE() << "PE " << me() << ": the kernel threw: " << e.what();
  }
  EXPECT_EQ(report.text, "") << "PE " << me() << ": checks that failed inside the kernel";
}

/// A call's outcome seen inside a kernel, for the host to check.
struct Outcome {
  bool ok = true;
  std::string error;
};
Outcome outcome(bool ok, const AsyncSession& s) { return {ok, s.lastError()}; }
/// The call was refused, and its reason holds `needle`.
::testing::AssertionResult Refused(const Outcome& o, const char* needle) {
  if (!o.ok && o.error.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "PE " << me() << ": expected a refusal mentioning \"" << needle << "\"; got "
                                       << (o.ok ? "success" : "a refusal") << ", lastError \"" << o.error << "\"";
}

/// This PE's SDMA workspace, for one test.
struct Sdma {
  sdma::SdmaWorkspaceManager mgr;
  Sdma() { EXPECT_TRUE(mgr.Init()) << mgr.LastError(); }
  std::uint8_t* ws() const { return static_cast<std::uint8_t*>(mgr.GetWorkspaceAddr()); }
};

/// Builds an SDMA session for the calling block, its scratch tile at UB 0.
bool sdma_session(std::uint8_t* ws, AsyncSession& s, sdma::SdmaBaseConfig cfg = {sdma::kDefaultSdmaBlockBytes, 0, 1},
                  std::uint32_t group = sdma::kAutoChannelGroupIdx) {
  Scratch scratch;
  TASSIGN(scratch, 0);
  return BuildAsyncSession<DmaEngine::SDMA>(scratch, ws, s, 0, cfg, group);
}

// ---- 1. data movement: types x sizes x queue configurations ------------------------

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

// ---- 2, 3. quiet semantics and backpressure --------------------------------------------

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

// ---- 4. invalid events -----------------------------------------------------------------

TEST(AsyncInvalid, RejectedOperationsReturnHandleZeroWithAReason) {
  constexpr std::size_t kN = 1024;
  Sdma sdma;
  Sym<float> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kN, me(), 5);
  std::vector<float> heap(kN);
  barrier();
  Outcome cube, strided, heap_remote, stack_remote;
  run(1, [&](Report& rep) {
    float stack[kN] = {};
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s), &s);
    auto remote = flat(at(src.get(), right()), kN), local = flat(src.get(), kN);
    GT<float> cube_dst(dst.get(), Shape5(1, 1, 2, 4, 128), Stride5(1024, 1024, 512, 128, 1));
    AsyncEvent e = TGET_ASYNC(cube_dst, remote, s);
    cube = outcome(e.valid(), s);
    KCHECK(rep, e.Wait(s) && e.Test(s), &s);  // nothing to wait for
    GT<float> strided_dst(dst.get(), Shape5(1, 1, 1, 1, 512), Stride5(1024, 1024, 1024, 1024, 2));
    strided = outcome(TGET_ASYNC(strided_dst, remote, s).valid(), s);
    auto heap_src = flat(heap.data(), kN), stack_dst = flat(stack, kN), d = flat(dst.get(), kN);
    heap_remote = outcome(TGET_ASYNC(d, heap_src, s).valid(), s);
    stack_remote = outcome(TPUT_ASYNC(stack_dst, local, s).valid(), s);
    // The session still works.
    AsyncEvent ok = TGET_ASYNC(d, remote, s);
    KCHECK(rep, ok.valid() && ok.Wait(s), &s);
    KCHECK(rep, all_equal(dst.get(), kN, pattern<float>(right(), 5)), nullptr);
  });
  EXPECT_TRUE(Refused(cube, "not flat contiguous 1-D"));
  EXPECT_TRUE(Refused(cube, "shape (1,1,2,4,128)"));
  EXPECT_TRUE(Refused(strided, "not flat contiguous 1-D"));
  EXPECT_TRUE(Refused(heap_remote, "shmem_ptr"));
  EXPECT_TRUE(Refused(stack_remote, "shmem_ptr"));
  barrier();
}

// ---- 5. several channel groups in one kernel -------------------------------------------

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

// ---- 6. TPUT_ASYNC_NOTIFY --------------------------------------------------------------

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

// ---- 7. DEFER batches --------------------------------------------------------------------

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

// ---- 8. session rules --------------------------------------------------------------------

TEST(AsyncSessionRules, BuildRefusesBadWorkspacesAndUnplacedScratch) {
  Sdma sdma;
  Outcome fake, finalized, wrong_kind, unplaced;
  auto* gone = [] {
    sdma::SdmaWorkspaceManager m;
    EXPECT_TRUE(m.Init()) << m.LastError();
    return static_cast<std::uint8_t*>(m.GetWorkspaceAddr());
  }();  // finalized by the destructor
  run(1, [&](Report&) {
    alignas(64) static std::uint8_t not_a_workspace[4096];
    AsyncSession s;
    fake = outcome(sdma_session(not_a_workspace, s), s);
    finalized = outcome(sdma_session(gone, s), s);
    wrong_kind = outcome(BuildAsyncSession<DmaEngine::URMA>(sdma.ws(), s), s);
    Scratch scratch;  // never TASSIGNed
    unplaced = outcome(BuildAsyncSession<DmaEngine::SDMA>(scratch, sdma.ws(), s), s);
  });
  EXPECT_TRUE(Refused(fake, "not a live workspace"));
  EXPECT_TRUE(Refused(fake, "SdmaWorkspaceManager"));
  EXPECT_TRUE(Refused(finalized, "SdmaWorkspaceManager"));
  EXPECT_TRUE(Refused(wrong_kind, "SdmaWorkspaceManager"));
  EXPECT_TRUE(Refused(unplaced, "not placed"));
}

TEST(AsyncSessionRules, RebuildingAGroupWithAStagedBatchIsRefused) {
  constexpr std::size_t kN = 5000;
  Sdma sdma;
  Sym<std::int32_t> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kN, me(), 10);
  barrier();
  Outcome rebuild;
  run(1, [&](Report& rep) {
    AsyncSession s, again;
    KCHECK(rep, sdma_session(sdma.ws(), s), &s);
    auto r = flat(at(dst.get(), right()), kN), l = flat(src.get(), kN);
    (void)TPUT_ASYNC(r, l, s, AsyncPutMode::DEFER);
    rebuild = outcome(sdma_session(sdma.ws(), again), again);
    AsyncEvent batch = SubmitAsyncPutBatch(s);
    KCHECK(rep, batch.valid() && batch.Wait(s), &s);
    KCHECK(rep, sdma_session(sdma.ws(), again), &again);  // nothing outstanding now
  });
  EXPECT_TRUE(Refused(rebuild, "in flight"));
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), kN, pattern<std::int32_t>(left(), 10)));
  barrier();
}

TEST(AsyncSessionRules, ASessionBelongsToTheBlockThatBuiltIt) {
  constexpr std::size_t kN = 256;
  Sdma sdma;
  Sym<std::int32_t> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  barrier();
  struct {
    AsyncSession* session = nullptr;  // block 0's, handed to block 1
  } shared;
  AsyncSession built_by_block0;
  Outcome foreign;
  run(2, [&](Report& rep) {
    if (GetBlockIdx() == 0) {
      KCHECK(rep, sdma_session(sdma.ws(), built_by_block0), &built_by_block0);
      shared.session = &built_by_block0;
    }
    SyncAll();
    if (GetBlockIdx() == 1 && shared.session) {
      auto d = flat(dst.get(), kN), r = flat(at(src.get(), right()), kN);
      foreign = outcome(TGET_ASYNC(d, r, *shared.session).valid(), *shared.session);
    }
    SyncAll();
  });
  EXPECT_TRUE(Refused(foreign, "another thread"));
  barrier();
}

// URMA: the window holds [src | from_right | from_left | put_in]; the remote
// side of an operation is the symmetric address of this PE's own copy.
TEST(AsyncSessionRules, UrmaBoundAndPerOperationPeers) {
  constexpr std::size_t kN = 70001;
  Sym<std::int32_t> win(4 * kN), outside(kN);
  if (!win.ok() || !outside.ok()) return;
  std::int32_t *src = win.get(), *from_right = src + kN, *from_left = src + 2 * kN, *put_in = src + 3 * kN;
  fill(src, kN, me(), 11);
  urma::UrmaWorkspaceManager urma;
  EXPECT_TRUE(urma.Init(me(), npes(), win.get(), 4 * kN * sizeof(std::int32_t))) << urma.LastError();
  auto* ws = static_cast<std::uint8_t*>(urma.GetWorkspaceAddr());
  barrier();
  Outcome bad_rank, remote_outside, local_outside;
  run(1, [&](Report& rep) {
    AsyncSession s;
    bad_rank = outcome(BuildAsyncSession<DmaEngine::URMA>(ws, static_cast<std::uint32_t>(npes()), s), s);
    // Bound peer: get from and put to the right neighbour.
    KCHECK(rep, BuildAsyncSession<DmaEngine::URMA>(ws, static_cast<std::uint32_t>(right()), s), &s);
    auto l = flat(src, kN), fr = flat(from_right, kN), pi = flat(put_in, kN);
    AsyncEvent g = TGET_ASYNC<DmaEngine::URMA>(fr, l, s);
    AsyncEvent p = TPUT_ASYNC<DmaEngine::URMA>(pi, l, s);
    KCHECK(rep, g.valid() && p.valid() && p.Wait(s) && g.Test(s), &s);
    KCHECK(rep, all_equal(from_right, kN, pattern<std::int32_t>(right(), 11)), nullptr);
    auto out = flat(outside.get(), kN);
    remote_outside = outcome(TGET_ASYNC<DmaEngine::URMA>(fr, out, s).valid(), s);
    local_outside = outcome(TGET_ASYNC<DmaEngine::URMA>(out, l, s).valid(), s);
    // Peer per operation: get from the left neighbour.
    AsyncSession any;
    KCHECK(rep, BuildAsyncSession<DmaEngine::URMA>(ws, any), &any);
    auto fl = flat(from_left, kN);
    AsyncEvent e = TGET_ASYNC<DmaEngine::URMA>(fl, l, any, static_cast<std::uint32_t>(left()));
    KCHECK(rep, e.valid() && e.Wait(any), &any);
    KCHECK(rep, all_equal(from_left, kN, pattern<std::int32_t>(left(), 11)), nullptr);
  });
  EXPECT_TRUE(Refused(bad_rank, "out of range"));
  EXPECT_TRUE(Refused(remote_outside, "outside the window"));
  EXPECT_TRUE(Refused(local_outside, "outside the window"));
  barrier();
  EXPECT_TRUE(all_equal(put_in, kN, pattern<std::int32_t>(left(), 11)));
  barrier();
}

// ---- 9. the workspace manager ------------------------------------------------------------

TEST(AsyncWorkspaceManager, InitIsIdempotentAndFinalizeIsSafeTwice) {
  sdma::SdmaWorkspaceManager m;
  EXPECT_EQ(m.GetWorkspaceAddr(), nullptr);
  ASSERT_TRUE(m.Init()) << m.LastError();
  void* first = m.GetWorkspaceAddr();
  EXPECT_NE(first, nullptr);
  EXPECT_TRUE(m.Init());
  EXPECT_EQ(m.GetWorkspaceAddr(), first);
  m.Finalize();
  EXPECT_EQ(m.GetWorkspaceAddr(), nullptr);
  m.Finalize();
  EXPECT_EQ(m.GetWorkspaceAddr(), nullptr);
  EXPECT_TRUE(m.Init()) << m.LastError();  // usable again
  EXPECT_NE(m.GetWorkspaceAddr(), nullptr);
}

}  // namespace
