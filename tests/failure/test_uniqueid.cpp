// 9. Launch without tcrun, with a unique ID (shmemx_get_uniqueid,
// shmemx_set_attr_uniqueid_args, shmemx_init_attr): the tc_fail_uid helper
// forks the PEs and reports how each ended.
#include <tuple>

#include "fixture.hpp"

using namespace tcfail;

namespace {

using UniqueId = JobTest;

// Who makes the ID: the parent (not a PE), the parent as PE 0, or PE 0 as a child.
class UniqueIdLaunch : public JobTest, public ::testing::WithParamInterface<std::tuple<std::string, int>> {};

std::string ended(const PeEnd& e) {
  return e.pid < 0 ? "no report" : (e.exited ? "exited with status " : "killed by signal ") + std::to_string(e.code);
}

}  // namespace

TEST_P(UniqueIdLaunch, PutGetBarrierAcrossPes) {
  const auto& [mode, n] = GetParam();
  Result r = uid(mode, n);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  auto ends = uid_pe_ends(r);
  for (int pe = 0; pe < n; ++pe) {
    if (mode == "run-parent-pe" && pe == 0) {
      EXPECT_THAT(r.out, HasSubstr("(the parent) returned 0")) << r;
      continue;
    }
    EXPECT_TRUE(ends[pe].exited && ends[pe].code == 0) << "PE " << pe << ": " << ended(ends[pe]) << r;
  }
  EXPECT_THAT(r.err, Not(HasSubstr("ERROR"))) << r;
  EXPECT_NOTHING_LEFT(r);
}

INSTANTIATE_TEST_SUITE_P(ParentMakesId, UniqueIdLaunch,
                         ::testing::Combine(::testing::Values("run"), ::testing::Values(2, 3, 4)));
INSTANTIATE_TEST_SUITE_P(ParentIsPe0, UniqueIdLaunch,
                         ::testing::Combine(::testing::Values("run-parent-pe"), ::testing::Values(2, 3, 4)));
INSTANTIATE_TEST_SUITE_P(Pe0ChildMakesId, UniqueIdLaunch,
                         ::testing::Combine(::testing::Values("run-child0"), ::testing::Values(2, 3, 4)));

// Strangers connect to the rendezvous while the PEs are inside the job: each
// is dropped (the wrong cookie logged as such) and the job succeeds.
TEST_F(UniqueId, StrangersAreDroppedAndTheJobRuns) {
  Result r = uid("strangers", 3);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  for (const char* mode : {"wrong-cookie", "garbage", "not-hello", "close"})
    EXPECT_THAT(r.out, HasSubstr(std::string("stranger ") + mode + ": dropped")) << r;
  EXPECT_THAT(lines_with(r.err, {"dropped a connection from 127.0.0.1:", "wrong cookie"}), SizeIs(1)) << r;
  auto ends = uid_pe_ends(r);
  for (int pe = 0; pe < 3; ++pe)
    EXPECT_TRUE(ends[pe].exited && ends[pe].code == 0) << "PE " << pe << ": " << ended(ends[pe]) << r;
  EXPECT_NOTHING_LEFT(r);
}

// A process with a tampered unique ID (one cookie digit changed) cannot join:
// it fails with a clear error naming the cookie; the real job then runs.
TEST_F(UniqueId, TamperedCookieCannotJoin) {
  Result r = uid("tampered", 2);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  auto intruder = lines_with(r.out, {"uid: intruder pid", "exited with status"});
  ASSERT_THAT(intruder, SizeIs(1)) << "the intruder must exit with an error, not die or join" << r;
  EXPECT_THAT(intruder[0], Not(HasSubstr("exited with status 0"))) << r;
  EXPECT_THAT(lines_with(r.err, {"shmemx_init_attr", "PE 1", "wrong cookie"}), SizeIs(1))
      << "the intruder says why it could not join" << r;
  EXPECT_THAT(lines_with(r.err, {"dropped a connection from 127.0.0.1:", "wrong cookie"}), SizeIs(1))
      << "the server logs the refused connection" << r;
  auto ends = uid_pe_ends(r);
  for (int pe = 0; pe < 2; ++pe)
    EXPECT_TRUE(ends[pe].exited && ends[pe].code == 0) << "PE " << pe << ": " << ended(ends[pe]) << r;
  EXPECT_NOTHING_LEFT(r);
}

// PE 1 dies by SIGKILL while PEs 0 and 2 are in a barrier: they exit
// non-zero naming PE 1 (the rendezvous server, in the parent, tells them).
TEST_F(UniqueId, PeKilledEndsTheOthers) {
  Result r = uid("kill", 3, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  auto ends = uid_pe_ends(r);
  EXPECT_TRUE(!ends[1].exited && ends[1].code == 9) << "PE 1: " << ended(ends[1]) << r;
  for (int pe : {0, 2}) {
    EXPECT_TRUE(ends[pe].exited && ends[pe].code != 0 && ends[pe].code != 99)
        << "PE " << pe << " must exit with an error: " << ended(ends[pe]) << r;
    EXPECT_THAT(pe_lines(r, pe, {"shmem_barrier_all", "because the job failed", "PE 1 (pid " +
                                     std::to_string(ends[1].pid)}),
                SizeIs(1))
        << r;
  }
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// PE 0 made the ID and hosts the rendezvous; it dies while PEs 1 and 2 are in
// a barrier: they lose the server and exit non-zero saying so.
TEST_F(UniqueId, RendezvousHostDies) {
  Result r = uid("host-dies", 3, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  auto ends = uid_pe_ends(r);
  EXPECT_TRUE(!ends[0].exited && ends[0].code == 9) << "PE 0: " << ended(ends[0]) << r;
  for (int pe : {1, 2}) {
    EXPECT_TRUE(ends[pe].exited && ends[pe].code != 0 && ends[pe].code != 99)
        << "PE " << pe << " must exit with an error: " << ended(ends[pe]) << r;
    EXPECT_THAT(pe_lines(r, pe, {"shmem_barrier_all", "rendezvous server"}), SizeIs(1)) << r;
  }
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 8. shmem_global_exit(7) from PE 1 while PE 0 is in a barrier and PE 2 is
// busy outside tilecomm: every PE exits with status 7.
TEST_F(UniqueId, GlobalExitStatusReachesEveryPe) {
  Result r = uid("global-exit", 3, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  auto ends = uid_pe_ends(r);
  for (int pe = 0; pe < 3; ++pe)
    EXPECT_TRUE(ends[pe].exited && ends[pe].code == 7) << "PE " << pe << ": " << ended(ends[pe]) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
