// The rules of asynchronous sessions: invalid events and their reasons,
// which tensors are flat 1-D, session ownership, workspaces and their managers.
#include "async_test.hpp"

using namespace async_test;

namespace {

// ---- invalid events -----------------------------------------------------------------

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
// Flat contiguous 1-D: at most one dimension above 1, with stride 1; the
// strides of dimensions of extent 1 are never used.
TEST(AsyncInvalid, WhichTensorsAreFlatContiguous1D) {
  float* p = nullptr;
  auto is_flat = [&](Shape5 shape, Stride5 stride) { return GT<float>(p, shape, stride).IsFlat1D(); };
  EXPECT_TRUE(is_flat(Shape5(1, 1, 1, 1, 1000), Stride5(1, 1, 1, 1, 1)));
  EXPECT_TRUE(is_flat(Shape5(1, 1, 1, 1, 1000), Stride5(1000, 1000, 1000, 1000, 1)));
  EXPECT_TRUE(is_flat(Shape5(1, 1, 1, 1, 1000), Stride5(0, 7, 123456, 3, 1)));
  EXPECT_TRUE(is_flat(Shape5(1, 1, 1000, 1, 1), Stride5(9, 9, 1, 9, 9)));
  EXPECT_TRUE(is_flat(Shape5(1000, 1, 1, 1, 1), Stride5(1, 1, 1, 1, 1)));
  EXPECT_TRUE(is_flat(Shape5(1, 1, 1, 1, 1), Stride5(5, 4, 3, 2, 9)));  // one element: no stride is used
  EXPECT_TRUE(is_flat(Shape5(1, 1, 0, 4, 8), Stride5(1, 1, 1, 1, 1)));  // no element
  EXPECT_FALSE(is_flat(Shape5(1, 1, 2, 4, 128), Stride5(1024, 1024, 512, 128, 1)));  // packed, but 3-D
  EXPECT_FALSE(is_flat(Shape5(1, 1, 1, 2, 500), Stride5(1000, 1000, 1000, 500, 1)));  // packed, but 2-D
  EXPECT_FALSE(is_flat(Shape5(1, 1, 1, 1, 500), Stride5(1000, 1000, 1000, 1000, 2)));  // every other element
  EXPECT_FALSE(is_flat(Shape5(1, 1, 1000, 1, 1), Stride5(1, 1, 2, 1, 1)));
  EXPECT_FALSE(is_flat(Shape5(1, 1, 1, 1, -1), Stride5(1, 1, 1, 1, 1)));
}

// The seed's own flat form, shape (1,1,1,1,N) with unit strides, moves data
// both ways; so does a flat tensor along another dimension.
TEST(AsyncInvalid, UnitStridesAndOtherFlatDimensionsAreAccepted) {
  constexpr int kN = 3001;
  Sdma sdma;
  Sym<std::int32_t> src(kN), got(kN), put(kN);
  if (!src.ok() || !got.ok() || !put.ok()) return;
  fill(src.get(), kN, me(), 14);
  barrier();
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(sdma.ws(), s), &s);
    GT<std::int32_t> dst(got.get(), Shape5(1, 1, 1, 1, kN), Stride5(1, 1, 1, 1, 1));
    GT<std::int32_t> remote(at(src.get(), right()), Shape5(1, 1, 1, 1, kN), Stride5(1, 1, 1, 1, 1));
    AsyncEvent g = TGET_ASYNC(dst, remote, s);
    GT<std::int32_t> local(src.get(), Shape5(1, 1, kN, 1, 1), Stride5(0, 0, 1, 0, 0));
    GT<std::int32_t> remote_put(at(put.get(), right()), Shape5(1, 1, 1, kN, 1), Stride5(kN, kN, kN, 1, kN));
    AsyncEvent p = TPUT_ASYNC(remote_put, local, s);
    KCHECK(rep, g.valid() && p.valid() && p.Wait(s) && g.Test(s), &s);
    KCHECK(rep, all_equal(got.get(), kN, pattern<std::int32_t>(right(), 14)), nullptr);
  });
  barrier();
  EXPECT_TRUE(all_equal(put.get(), kN, pattern<std::int32_t>(left(), 14)));
  barrier();
}

// ---- session rules --------------------------------------------------------------------

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

// A workspace's memory is unmapped by Finalize(): every call on a session
// built on it is refused, naming the workspace, instead of touching it.
TEST(AsyncSessionRules, ASessionOnAFinalizedWorkspaceIsRefusedNamingIt) {
  constexpr std::size_t kN = 1024;
  Sym<std::int32_t> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kN, me(), 15);
  barrier();
  sdma::SdmaWorkspaceManager m;
  ASSERT_TRUE(m.Init()) << m.LastError();
  char ws[32];
  snprintf(ws, sizeof ws, "%p", m.GetWorkspaceAddr());
  Outcome get, wait, test, batch, quiet;
  run(1, [&](Report& rep) {
    AsyncSession s;
    KCHECK(rep, sdma_session(static_cast<std::uint8_t*>(m.GetWorkspaceAddr()), s), &s);
    auto d = flat(dst.get(), kN), r = flat(at(src.get(), right()), kN);
    AsyncEvent e = TGET_ASYNC(d, r, s);
    KCHECK(rep, e.valid() && e.Wait(s), &s);
    KCHECK(rep, all_equal(dst.get(), kN, pattern<std::int32_t>(right(), 15)), nullptr);
    m.Finalize();
    get = outcome(TGET_ASYNC(d, r, s).valid(), s);
    wait = outcome(e.Wait(s), s);
    test = outcome(e.Test(s), s);
    batch = outcome(SubmitAsyncPutBatch(s).valid(), s);
    quiet = outcome(TQUIET(s), s);
  });
  const std::string why = std::string(": the session's workspace ") + ws + " (channel group 0) was finalized: its "
                          "workspace manager's Finalize() or destructor freed it; build a new session on a live "
                          "workspace";
  EXPECT_TRUE(RefusedWith(get, "TGET_ASYNC" + why));
  EXPECT_TRUE(RefusedWith(wait, "AsyncEvent::Wait" + why));
  EXPECT_TRUE(RefusedWith(test, "AsyncEvent::Test" + why));
  EXPECT_TRUE(RefusedWith(batch, "SubmitAsyncPutBatch" + why));
  EXPECT_TRUE(RefusedWith(quiet, "AsyncEvent::Wait" + why));
  barrier();
}

// An event is waited for with the session that issued it: another channel
// group's session, or its own group rebuilt, is refused and both are named.
TEST(AsyncSessionRules, AnEventWaitedWithAnotherSessionIsRefusedNamingBoth) {
  constexpr std::size_t kN = 2048;
  Sdma sdma;
  Sym<std::int32_t> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  fill(src.get(), kN, me(), 16);
  barrier();
  Outcome other_wait, other_test, rebuilt_wait;
  std::uint64_t handle = 0, issuer = 0, other = 0, rebuilt = 0;
  run(1, [&](Report& rep) {
    AsyncSession a, b, again;
    KCHECK(rep, sdma_session(sdma.ws(), a, {sdma::kDefaultSdmaBlockBytes, 0, 1}, 0), &a);
    KCHECK(rep, sdma_session(sdma.ws(), b, {sdma::kDefaultSdmaBlockBytes, 0, 1}, 1), &b);
    auto d = flat(dst.get(), kN), r = flat(at(src.get(), right()), kN);
    AsyncEvent e = TGET_ASYNC(d, r, a);
    other_wait = outcome(e.Wait(b), b);
    other_test = outcome(e.Test(b), b);
    KCHECK(rep, e.valid() && e.Wait(a) && e.Test(a), &a);
    KCHECK(rep, all_equal(dst.get(), kN, pattern<std::int32_t>(right(), 16)), nullptr);
    KCHECK(rep, sdma_session(sdma.ws(), again, {sdma::kDefaultSdmaBlockBytes, 0, 1}, 0), &again);
    rebuilt_wait = outcome(e.Wait(again), again);
    handle = e.handle, issuer = a.id(), other = b.id(), rebuilt = again.id();
  });
  auto text = [&](const char* call, std::uint64_t waiter, int group) {
    return std::string(call) + ": event " + std::to_string(handle) + " was issued by session #" +
           std::to_string(issuer) + ", not by this session #" + std::to_string(waiter) + " (channel group " +
           std::to_string(group) + "): wait for an event with the session that issued it";
  };
  EXPECT_EQ(handle, 1u);
  EXPECT_NE(issuer, other);
  EXPECT_TRUE(RefusedWith(other_wait, text("AsyncEvent::Wait", other, 1)));
  EXPECT_TRUE(RefusedWith(other_test, text("AsyncEvent::Test", other, 1)));
  EXPECT_TRUE(RefusedWith(rebuilt_wait, text("AsyncEvent::Wait", rebuilt, 0)));
  barrier();
}

// A session keeps the identity of the thread that built it, never reused:
// a later thread (which may get the ended thread's stack and thread-local
// storage) is another thread.
TEST(AsyncSessionRules, ASessionOfAThreadThatEndedIsRefusedOnALaterThread) {
  constexpr std::size_t kN = 256;
  Sdma sdma;
  Sym<std::int32_t> src(kN), dst(kN);
  if (!src.ok() || !dst.ok()) return;
  barrier();
  AsyncSession of_ended_thread;
  Outcome built, reused;
  run(2, [&](Report&) {
    if (GetBlockIdx() == 1) built = outcome(sdma_session(sdma.ws(), of_ended_thread), of_ended_thread);
  });
  run(2, [&](Report&) {
    if (GetBlockIdx() != 1) return;
    auto d = flat(dst.get(), kN), r = flat(at(src.get(), right()), kN);
    reused = outcome(TGET_ASYNC(d, r, of_ended_thread).valid(), of_ended_thread);
  });
  EXPECT_TRUE(built.ok) << built.error;
  EXPECT_TRUE(RefusedWith(reused, "TGET_ASYNC: the session belongs to the thread (kernel block) that built it; this "
                                  "call comes from another thread: build one session per block, on its own channel "
                                  "group"));
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

// ---- the workspace manager ------------------------------------------------------------

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
