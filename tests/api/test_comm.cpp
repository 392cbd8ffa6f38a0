// The communicator face (<tilecomm/comm.hpp>, <tilecomm/comm.h>) and the
// orchestration helpers (<tilecomm/orchestration.hpp>): creation from the
// world and from strided sub-teams, windows every rank reaches, the kernel
// descriptor, magics, seed 001's AllGather (examples/comm) on inputs larger
// than the window, 1000 back-to-back launches with random per-PE delays,
// two communicators used alternately, every helper, and the errors.
#include <tilecomm/comm.h>

#include <tilecomm/comm.hpp>
#include <tilecomm/orchestration.hpp>

#include <gmock/gmock.h>

#include <chrono>
#include <random>
#include <thread>

#include "../../examples/comm/allgather_seed.hpp"
#include "api_test.hpp"

using namespace api;
using tilecomm::Comm;
using tilecomm::CommArgs;
using tilecomm::CommOptions;

namespace {

CommOptions small(std::size_t window = 4096) {
  CommOptions o;
  o.window_bytes = window;
  o.flag_bytes = 64 << 10;
  return o;
}

std::int64_t item(int rank, std::int64_t i, int salt) { return std::int64_t{rank} << 40 | std::int64_t{salt} << 28 | i; }

// Runs seed 001's AllGather of `count` elements per rank and counts wrong elements.
std::int64_t gather_errors(Comm& comm, std::int64_t count, int salt, int* launches = nullptr) {
  const int n = comm.size(), r = comm.rank();
  std::vector<std::int64_t> in(count), out(count * n, -1);
  for (std::int64_t i = 0; i < count; ++i) in[i] = item(r, i, salt);
  const int l = seed001::AllGather(comm, in.data(), out.data(), count);
  if (launches) *launches = l;
  std::int64_t bad = 0;
  for (int k = 0; k < n; ++k)
    for (std::int64_t i = 0; i < count; ++i) bad += out[k * count + i] != item(k, i, salt);
  return bad;
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const tilecomm::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// ---- creation, windows, descriptor -------------------------------------------------

TEST(Comm, WorldHasEveryPeAndEveryWindowIsReachable) {
  Comm comm = Comm::world(small());
  EXPECT_EQ(comm.rank(), me());
  EXPECT_EQ(comm.size(), npes());
  EXPECT_EQ(comm.local_rank(), me());  // one host
  EXPECT_EQ(comm.local_size(), npes());
  const CommArgs& a = comm.args();
  EXPECT_EQ(a.rank, me());
  EXPECT_EQ(a.rankSize, npes());
  EXPECT_EQ(a.localRankSize, npes());
  EXPECT_EQ(a.windowBytes, 4096u);
  EXPECT_EQ(a.flagBytes, std::uint64_t{64} << 10);
  for (int r = 0; r < npes(); ++r) {
    tilecomm::Window w = comm.window(r);
    EXPECT_EQ(w.data, a.peerMems[r]);
    EXPECT_EQ(w.data_bytes, 4096u);
    EXPECT_EQ(w.flags, a.peerFlags[r]);
  }
  // Each rank writes into its right neighbour's window; each reads its own.
  auto* theirs = reinterpret_cast<std::int64_t*>(comm.window(right()).data);
  for (int i = 0; i < 512; ++i) theirs[i] = item(me(), i, 1);
  shmem_team_sync(comm.team());
  auto* mine = reinterpret_cast<std::int64_t*>(comm.window(me()).data);
  int bad = 0;
  for (int i = 0; i < 512; ++i) bad += mine[i] != item(left(), i, 1);
  EXPECT_EQ(bad, 0);
  comm.destroy();
}

TEST(Comm, MagicsAreTheSameSequenceOnEveryRankAndPartitionsAlternate) {
  Comm comm = Comm::world(small());
  static std::uint32_t mine[4], all[4 * 8];
  for (auto& m : mine) m = comm.NextMagic();
  for (int i = 1; i < 4; ++i) EXPECT_EQ(mine[i], mine[i - 1] + 1);
  shmem_uint32_fcollect(SHMEM_TEAM_WORLD, all, mine, 4);
  for (int r = 0; r < npes(); ++r)
    for (int i = 0; i < 4; ++i) EXPECT_EQ(all[r * 4 + i], mine[i]) << "rank " << r;
  CommArgs a = comm.args();
  a.magic = 6;
  const auto* even = a.data(0);
  const std::uint64_t* even_flags = a.flags(0);
  a.magic = 7;
  EXPECT_EQ(a.data(0), even + 2048);  // the other half of the 4 KiB window
  EXPECT_EQ(reinterpret_cast<const std::uint8_t*>(a.flags(0)),
            reinterpret_cast<const std::uint8_t*>(even_flags) + (32 << 10));  // and of the 64 KiB flag region
  EXPECT_EQ(reinterpret_cast<const std::uint8_t*>(even_flags), a.peerFlags[0]);
  EXPECT_EQ(a.peerFlags[0], a.peerMems[0] + 4096);
  comm.destroy();
}

TEST(Comm, StridedSubTeamsMakeCommunicatorsOfTheirMembers) {
  // Every other PE (and, apart, the rest), so a stride 2 team exists from 2 PEs on.
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes() + 1) / 2, nullptr, 0, &evens);
  if (npes() > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes() / 2, nullptr, 0, &odds);
  shmem_team_t mine = me() % 2 == 0 ? evens : odds;
  Comm comm = Comm::from_team(mine, small(1024));
  EXPECT_EQ(comm.rank(), me() / 2);
  EXPECT_EQ(comm.size(), me() % 2 == 0 ? (npes() + 1) / 2 : npes() / 2);
  int launches = 0;
  EXPECT_EQ(gather_errors(comm, 300, 2, &launches), 0);
  EXPECT_EQ(launches, 5);  // 512-byte partitions: 64 elements per launch
  comm.destroy();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
}

// ---- seed 001's AllGather ------------------------------------------------------------

TEST(SeedAllGather, EverySizeIncludingInputsLargerThanTheWindow) {
  Comm comm = Comm::world(small());
  for (std::int64_t count : {1, 2, 7, 255, 256, 257, 1000, 4096 + 3}) {
    int launches = 0;
    EXPECT_EQ(gather_errors(comm, count, static_cast<int>(count % 16), &launches), 0) << count << " elements";
    EXPECT_EQ(launches, (count + 255) / 256) << count << " elements";  // 2 KiB partitions of int64
  }
  comm.destroy();
}

TEST(SeedAllGather, ThousandLaunchesOnRandomSizesWithRandomDelaysNeverSeeAStaleFlag) {
  Comm comm = Comm::world(small(1024));
  std::mt19937 sizes(12345);                       // the same sizes on every rank
  std::mt19937 delays(977 * static_cast<unsigned>(me()) + 1);  // different delays
  std::int64_t bad = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t count = std::uniform_int_distribution<std::int64_t>(1, 200)(sizes);
    if (delays() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(delays() % 200));
    bad += gather_errors(comm, count, i % 4096);
  }
  EXPECT_EQ(bad, 0);
  comm.destroy();
}

TEST(SeedAllGather, TwoCommunicatorsUsedAlternatelyNeverInterfere) {
  Comm a = Comm::world(small(2048));
  Comm b = Comm::world(small(512));
  std::int64_t bad = 0;
  for (int i = 0; i < 100; ++i) {
    bad += gather_errors(i % 2 ? a : b, 40 + i, i);
    if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(me() * 50));
  }
  EXPECT_EQ(bad, 0);
  b.destroy();
  a.destroy();
}

// ---- the helpers -------------------------------------------------------------------

namespace {

// Ring: block 0 of each rank records to its right neighbour and waits for
// its left one, `rounds` times, passing a counter through the windows.
void RingKernel(const CommArgs& a, int rounds, std::int64_t* seen) {
  using namespace tilecomm::orch;
  const int right = (a.rank + 1) % a.rankSize, left = (a.rank + a.rankSize - 1) % a.rankSize;
  auto* box = a.data<std::int64_t>(right);
  for (int i = 0; i < rounds; ++i) {
    box[i] = std::int64_t{a.rank} * 1000 + i;  // into my right neighbour's window
    PipeBarrier<PIPE_ALL>();
    Record(right, a.magic);
    Wait(left, a.magic);
    seen[i] = a.data<std::int64_t>(a.rank)[i];
  }
}

// Fan-in: every rank adds its rank + 1 into rank 0's window atomically,
// then records a fan-in to rank 0; rank 0 waits for all and reads the sum.
void FanInKernel(const CommArgs& a, std::int64_t* sum) {
  using namespace tilecomm::orch;
  const std::int64_t v = a.rank + 1;
  CpGM2GM(a.data<std::int64_t>(0), &v, 1, AtomicOp::Add);
  if (a.rank != 0) {
    RecordNv1(0, a.magic);
  } else {
    Wait1vN(a.magic);
    *sum = *a.data<std::int64_t>(0);
  }
}

// Inner flags: each block writes its slot, sets its inner flag; block 0
// waits for all blocks of its rank, then for all blocks of the right rank.
void InnerKernel(const CommArgs& a, std::int64_t* out) {
  using namespace tilecomm::orch;
  const std::int64_t b = pto::GetBlockIdx(), nb = pto::GetBlockNum();
  a.data<std::int64_t>(a.rank)[b] = a.rank * 100 + b;
  SetInnerFlag(a.magic, 1);
  if (b != 0) return;
  const int right = (a.rank + 1) % a.rankSize;
  WaitRankInnerFlag(a.magic, 1, a.rank);
  WaitRankInnerFlag(a.magic, 1, right);
  for (std::int64_t k = 0; k < nb; ++k) out[k] = a.data<std::int64_t>(right)[k];
}

}  // namespace

TEST(Orchestration, PairwiseRecordAndWaitPassDataAroundARing) {
  Comm comm = Comm::world(small());
  for (int launch = 0; launch < 3; ++launch) {
    std::vector<std::int64_t> seen(20, -1);
    comm.launch(1, RingKernel, 20, seen.data());
    int bad = 0;
    for (int i = 0; i < 20; ++i) bad += seen[i] != std::int64_t{left()} * 1000 + i;
    EXPECT_EQ(bad, 0) << "launch " << launch;
  }
  comm.destroy();
}

TEST(Orchestration, FanInWaitsForEveryRank) {
  Comm comm = Comm::world(small());
  for (int launch = 0; launch < 4; ++launch) {
    // Rank 0 clears the sum slot of this launch's partition before anybody adds.
    CommArgs next = comm.args();
    next.magic += 1;
    if (me() == 0) *next.data<std::int64_t>(0) = 0;
    shmem_team_sync(comm.team());
    std::int64_t sum = -1;
    comm.launch(1, FanInKernel, &sum);
    if (me() == 0) {
      EXPECT_EQ(sum, std::int64_t{npes()} * (npes() + 1) / 2) << "launch " << launch;
    }
    shmem_team_sync(comm.team());
  }
  comm.destroy();
}

namespace {
// Two blocks of every rank record a fan-in to rank 0; rank 0's block 0
// waits twice (the n-th wait needs n records from each rank).
void TwoBlockFanIn(const CommArgs& a, int* passed) {
  using namespace tilecomm::orch;
  if (a.rank != 0) RecordNv1(0, a.magic);
  if (a.rank == 0 && pto::GetBlockIdx() == 0) {
    Wait1vN(a.magic);
    Wait1vN(a.magic);
    *passed = 1;
  }
}

// Rank 0 only announces (no post-sync): a broken protocol.
void AnnounceOnly(const CommArgs& a) {
  if (a.rank == 0) tilecomm::orch::Record1vN(a.magic);
}
void WaitForTheAnnouncement(const CommArgs& a) {
  if (a.rank == 1) tilecomm::orch::WaitNv1(0, a.magic);
}
}  // namespace

TEST(Orchestration, RecordsOfSeveralBlocksAddUp) {
  Comm comm = Comm::world(small());
  for (int launch = 0; launch < 3; ++launch) {
    int passed = 0;
    comm.launch(2, TwoBlockFanIn, &passed);
    if (me() == 0) {
      EXPECT_EQ(passed, 1) << "launch " << launch;
    }
    shmem_team_sync(comm.team());  // FanIn has no post-sync: keep ranks within one launch
  }
  comm.destroy();
}

TEST(Orchestration, AWriterTwoLaunchesAheadIsAnErrorNotAStaleRead) {
  Comm comm = Comm::world(small());
  std::string error = "(no error)";
  if (me() == 0) {
    comm.launch(1, AnnounceOnly);  // magics 1, 2, 3: partition 1 now holds magic 3
    comm.launch(1, AnnounceOnly);
    comm.launch(1, AnnounceOnly);
  }
  shmem_team_sync(comm.team());
  if (me() != 0) {
    try {
      comm.launch(1, WaitForTheAnnouncement);  // magic 1, partition 1
    } catch (const tilecomm::Error& e) {
      error = e.what();
    }
    comm.launch(1, AnnounceOnly);  // keep every rank's magic in step
    comm.launch(1, AnnounceOnly);
  }
  if (me() == 1) {
    EXPECT_THAT(error, ::testing::HasSubstr("already carries magic 3, a later launch than this one (1)"));
  }
  shmem_team_sync(comm.team());
  comm.destroy();
}

TEST(CommErrors, DifferentWindowSizesFailOnEveryRank) {
  CommOptions mine = small(me() == npes() - 1 ? 8192 : 4096);
  const std::string e = error_of([&] { Comm::world(mine); });
  if (npes() > 1) {
    EXPECT_THAT(e, ::testing::HasSubstr("every rank must pass the same CommOptions"));
  } else {
    EXPECT_EQ(e, "(no error)");
  }
  Comm after = Comm::world(small());  // the failed creation left the team slots free
  EXPECT_EQ(after.size(), npes());
  after.destroy();
}

TEST(Orchestration, InnerFlagsSyncBlocksOfOneRankAndOfAnother) {
  Comm comm = Comm::world(small());
  std::vector<std::int64_t> out(5, -1);
  comm.launch(5, InnerKernel, out.data());
  const int r = right();
  for (int b = 0; b < 5; ++b) EXPECT_EQ(out[b], r * 100 + b);
  comm.destroy();
}

template <class T>
void check_cp(tilecomm::orch::AtomicOp op) {
  using tilecomm::orch::CpGM2GM;
  // Odd offsets and lengths: any alignment.
  alignas(64) T src[67], dst[67];
  for (int i = 0; i < 67; ++i) {
    src[i] = static_cast<T>((i * 7) % 50);
    dst[i] = static_cast<T>((i * 3) % 50);
  }
  CpGM2GM(dst + 1, src + 2, 63, op);
  for (int i = 0; i < 67; ++i) {
    const T d = static_cast<T>((i * 3) % 50);
    T expect = d;
    if (i >= 1 && i < 64) {
      const T s = src[i + 1];
      switch (op) {
        case tilecomm::orch::AtomicOp::None: expect = s; break;
        case tilecomm::orch::AtomicOp::Add: expect = static_cast<T>(d + s); break;
        case tilecomm::orch::AtomicOp::Max: expect = d > s ? d : s; break;
        case tilecomm::orch::AtomicOp::Min: expect = d < s ? d : s; break;
      }
    }
    ASSERT_EQ(dst[i], expect) << "element " << i << " op " << static_cast<int>(op);
  }
}

template <class T>
class CpGM2GMTest : public ::testing::Test {};
using CpTypes = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, float, double>;
TYPED_TEST_SUITE(CpGM2GMTest, CpTypes);

TYPED_TEST(CpGM2GMTest, CopiesAndCombinesOnTheFly) {
  using tilecomm::orch::AtomicOp;
  for (AtomicOp op : {AtomicOp::None, AtomicOp::Add, AtomicOp::Max, AtomicOp::Min}) check_cp<TypeParam>(op);
}

// ---- errors ----------------------------------------------------------------------------

namespace {
void WaitForAStranger(const CommArgs& a) { tilecomm::orch::Wait(a.rankSize + 5, a.magic); }
}  // namespace

TEST(CommErrors, MisuseIsAClearError) {
  Comm comm = Comm::world(small());
  EXPECT_THAT(error_of([&] { comm.window(npes()); }),
              ::testing::HasSubstr("rank " + std::to_string(npes()) + " is not a rank of this communicator"));
  EXPECT_THAT(error_of([&] { comm.launch(1, WaitForAStranger); }),
              ::testing::HasSubstr("Wait: peer " + std::to_string(npes() + 5) + " is not a rank of this communicator"));
  EXPECT_THAT(error_of([] { tilecomm::orch::Record1vN(1); }),
              ::testing::HasSubstr("Record1vN: called outside a kernel launched by tilecomm::Comm::launch"));
  EXPECT_THAT(error_of([] { Comm::world(small(100)); }), ::testing::HasSubstr("CommOptions::window_bytes=100"));
  CommOptions few = small();
  few.flag_bytes = 4096;
  EXPECT_THAT(error_of([&] { Comm::world(few); }), ::testing::HasSubstr("CommOptions::flag_bytes=4096 is below"));
  comm.destroy();
  EXPECT_THAT(error_of([&] { comm.rank(); }), ::testing::HasSubstr("this tilecomm::Comm was destroyed"));
  EXPECT_THAT(error_of([&] { comm.destroy(); }), ::testing::HasSubstr("this tilecomm::Comm was destroyed"));
  EXPECT_THAT(error_of([] { Comm::init_rank(npes(), tilecomm::UniqueId{}, (me() + 1) % npes()); }),
              ::testing::HasSubstr(npes() > 1 ? "tilecomm already runs here as PE" : "(no error)"));
}

// ---- the C API ---------------------------------------------------------------------------

TEST(CommC, HandlesQueriesAndErrorCodes) {
  tilecomm_comm_options_t o{8192, 64 << 10};
  tilecomm_comm_t c = nullptr;
  ASSERT_EQ(tilecomm_comm_init_all(&o, &c), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
  int v = -1;
  EXPECT_EQ(tilecomm_comm_rank(c, &v), TILECOMM_SUCCESS);
  EXPECT_EQ(v, me());
  EXPECT_EQ(tilecomm_comm_size(c, &v), TILECOMM_SUCCESS);
  EXPECT_EQ(v, npes());
  EXPECT_EQ(tilecomm_comm_local_size(c, &v), TILECOMM_SUCCESS);
  EXPECT_EQ(v, npes());
  void *data = nullptr, *flags = nullptr;
  std::size_t db = 0, fb = 0;
  EXPECT_EQ(tilecomm_comm_window(c, npes() - 1, &data, &db, &flags, &fb), TILECOMM_SUCCESS);
  EXPECT_NE(data, nullptr);
  EXPECT_EQ(db, 8192u);
  EXPECT_EQ(fb, std::size_t{64} << 10);
  EXPECT_EQ(tilecomm_comm_window(c, npes(), &data, &db, &flags, &fb), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_THAT(tilecomm_comm_last_error(), ::testing::HasSubstr("is not a rank of this communicator"));
  unsigned m1 = 0, m2 = 0;
  EXPECT_EQ(tilecomm_comm_next_magic(c, &m1), TILECOMM_SUCCESS);
  EXPECT_EQ(tilecomm_comm_next_magic(c, &m2), TILECOMM_SUCCESS);
  EXPECT_EQ(m2, m1 + 1);
  EXPECT_EQ(tilecomm_comm_destroy(c), TILECOMM_SUCCESS);
  EXPECT_STREQ(tilecomm_comm_last_error(), "");
  EXPECT_EQ(tilecomm_comm_rank(c, &v), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_THAT(tilecomm_comm_last_error(), ::testing::HasSubstr("not live"));
  EXPECT_EQ(tilecomm_comm_destroy(c), TILECOMM_ERROR_INVALID_USAGE);
  tilecomm_comm_t d = nullptr;  // a new handle never revives the destroyed one
  ASSERT_EQ(tilecomm_comm_init_all(&o, &d), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
  EXPECT_NE(d, c);
  EXPECT_EQ(tilecomm_comm_rank(c, &v), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_EQ(tilecomm_comm_destroy(d), TILECOMM_SUCCESS);
  o.window_bytes = 100;
  EXPECT_EQ(tilecomm_comm_init_all(&o, &c), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_EQ(c, nullptr);
  EXPECT_THAT(tilecomm_comm_last_error(), ::testing::HasSubstr("window_bytes=100"));
}
