// A PE of a tcrun job dies (signal or exit without shmem_finalize) or holds
// a lock when it dies; the global exit status. tcrun must end the job, exit
// non-zero naming the PE, its pid and how it ended; the other PEs must leave
// whatever wait, barrier or lock they are in, naming the dead PE; nothing of
// the job may remain.
#include "fixture.hpp"

using namespace tcfail;

namespace {

using PeKilled = JobTest;
using PeExits = JobTest;
using DeadLockHolder = JobTest;
using GlobalExit = JobTest;

// tcrun's line for PE `pe` (pid) that ended with `how` ("signal 9", "status 3").
void expect_tcrun_names(const Result& r, int pe, int pid, const std::string& how) {
  std::string who = "PE " + std::to_string(pe) + " (pid " + std::to_string(pid) + ")";
  EXPECT_THAT(lines_with(r.err, {"tcrun: ", who, how}), SizeIs(1))
      << "tcrun must name " << who << " and '" << how << "' on one line" << r;
}

// Every PE in `survivors` logged that it left `call` because PE `dead` (pid) failed.
void expect_survivors_left(const Result& r, const std::vector<int>& survivors, const std::string& call, int dead,
                           int pid) {
  std::string who = "PE " + std::to_string(dead) + " (pid " + std::to_string(pid);
  for (int pe : survivors)
    EXPECT_THAT(JobTest::pe_lines(r, pe, {call, "because the job failed", who}), SizeIs(1))
        << "PE " << pe << " must leave " << call << " with a message naming " << who << r;
}

}  // namespace

// 1. PE 1 dies by SIGKILL while PEs 0, 2, 3 are in shmem_barrier_all.
TEST_F(PeKilled, InBarrier) {
  Result r = tcrun(4, {"kill-in-barrier"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << "tcrun exits 128+signal of the PE that failed" << r;
  expect_tcrun_names(r, 1, pid1, "signal 9");
  expect_survivors_left(r, {0, 2, 3}, "shmem_barrier_all", 1, pid1);
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 2. PE 1 dies while the others wait in shmem_long_wait_until on a variable nobody changes.
TEST_F(PeKilled, InWaitUntil) {
  Result r = tcrun(3, {"kill-in-wait"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << r;
  expect_tcrun_names(r, 1, pid1, "signal 9");
  expect_survivors_left(r, {0, 2}, "shmem_long_wait_until", 1, pid1);
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// PE 1 dies while the others are busy outside tilecomm (pause()): they are
// ended anyway, by their watcher thread or by tcrun, after TILECOMM_ABORT_GRACE.
TEST_F(PeKilled, WhileOthersAreBusyOutsideTilecomm) {
  Options o;
  o.env = {"TILECOMM_ABORT_GRACE=1"};
  Result r = tcrun(3, {"kill-while-busy"}, o);
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << r;
  expect_tcrun_names(r, 1, pid1, "signal 9");
  for (int pe : {0, 2}) {
    int pid = helper_pid(r, pe);
    bool by_watcher = !pe_lines(r, pe, {"did not stop within"}).empty();
    bool by_tcrun =
        !lines_with(r.err, {"tcrun: PE " + std::to_string(pe) + " (pid " + std::to_string(pid) + ")", "did not stop"})
             .empty();
    EXPECT_TRUE(by_watcher || by_tcrun) << "PE " << pe << " must be ended after the grace time, with a message" << r;
  }
  EXPECT_NOTHING_LEFT(r);
}

// 3. PE 1 dies before it calls shmem_init: the others, in or entering
// shmem_init, must fail naming it.
TEST_F(PeKilled, BeforeInit) {
  Result r = tcrun(3, {"kill-before-init"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << r;
  expect_tcrun_names(r, 1, pid1, "signal 9");
  for (int pe : {0, 2})
    EXPECT_THAT(pe_lines(r, pe, {"shmem_init", "PE 1 (pid " + std::to_string(pid1)}), SizeIs(1))
        << "PE " << pe << " must fail in shmem_init naming PE 1" << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 3b. PE 1 dies as soon as shmem_init returns; the others go on to a barrier.
TEST_F(PeKilled, RightAfterInit) {
  Result r = tcrun(3, {"kill-after-init"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << r;
  expect_tcrun_names(r, 1, pid1, "signal 9");
  for (int pe : {0, 2})
    EXPECT_THAT(pe_lines(r, pe, {"because the job failed", "PE 1 (pid " + std::to_string(pid1)}), SizeIs(1))
        << "PE " << pe << " must leave with a message naming PE 1" << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 4. PE 2 calls exit(3) without shmem_finalize while the others wait.
TEST_F(PeExits, NonZeroWithoutFinalizeWhileOthersWait) {
  Result r = tcrun(3, {"exit-in-wait"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid2 = helper_pid(r, 2);
  ASSERT_GT(pid2, 0) << r;
  EXPECT_EQ(r.exit_code(), 3) << "tcrun exits with the status of the PE that failed" << r;
  expect_tcrun_names(r, 2, pid2, "status 3");
  expect_survivors_left(r, {0, 1}, "shmem_long_wait_until", 2, pid2);
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 4b. The same while the others are in shmem_barrier_all: the barrier must
// not complete (PE 2 never called it).
TEST_F(PeExits, NonZeroWithoutFinalizeWhileOthersInBarrier) {
  Result r = tcrun(3, {"exit-in-barrier"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid2 = helper_pid(r, 2);
  ASSERT_GT(pid2, 0) << r;
  EXPECT_EQ(r.exit_code(), 3) << r;
  expect_tcrun_names(r, 2, pid2, "status 3");
  expect_survivors_left(r, {0, 1}, "shmem_barrier_all", 2, pid2);
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// Every PE finalizes, then PE 2 returns 3 from main: the job fails with 3.
TEST_F(PeExits, NonZeroAfterFinalize) {
  Result r = tcrun(3, {"exit-after-finalize"});
  ASSERT_ENDED(r);
  int pid2 = helper_pid(r, 2);
  ASSERT_GT(pid2, 0) << r;
  EXPECT_EQ(r.exit_code(), 3) << r;
  expect_tcrun_names(r, 2, pid2, "status 3");
  EXPECT_NOTHING_LEFT(r);
}

// 5. PE 1 takes the lock and dies holding it; PEs 0 and 2 wait in shmem_set_lock.
TEST_F(DeadLockHolder, WaitersLeaveSetLock) {
  Result r = tcrun(3, {"lock-holder-dies", "1"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  ASSERT_THAT(r.out, HasSubstr("PE 1 holds the lock and dies")) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << r;
  expect_tcrun_names(r, 1, pid1, "signal 9");
  expect_survivors_left(r, {0, 2}, "shmem_set_lock", 1, pid1);
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// The same when the holder is PE 0, whose memory holds the lock word.
TEST_F(DeadLockHolder, HolderIsTheLockHome) {
  Result r = tcrun(3, {"lock-holder-dies", "0"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid0 = helper_pid(r, 0);
  ASSERT_GT(pid0, 0) << r;
  ASSERT_THAT(r.out, HasSubstr("PE 0 holds the lock and dies")) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << r;
  expect_tcrun_names(r, 0, pid0, "signal 9");
  expect_survivors_left(r, {1, 2}, "shmem_set_lock", 0, pid0);
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 8. PE 1 calls shmem_global_exit(7) while PE 0 is in a barrier (and PE 2 is
// busy outside tilecomm): tcrun exits 7.
TEST_F(GlobalExit, StatusBecomesTcrunsStatus) {
  Result r = tcrun(2, {"global-exit"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 7) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(GlobalExit, EndsBusyPesToo) {
  Result r = tcrun(3, {"global-exit"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 7) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
