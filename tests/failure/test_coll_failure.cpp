// Collectives when something goes wrong: a PE killed just before a
// collective that the others are in (they must leave it, naming the routine
// and the dead PE), and, in checked mode (TILECOMM_CHECK=1), PEs of one team
// making different collective calls (the job must stop with a message that
// names both calls and what differs).
#include <algorithm>
#include <regex>

#include "fixture.hpp"

using namespace tcfail;

namespace {

struct CollPeKilled : JobTest {
  // An n-PE job in which PE 1 dies by SIGKILL before `kind`: tcrun exits
  // 128+9 naming PE 1, and every other PE logs one line saying it left
  // `routine` because the job failed, naming PE 1 and its pid.
  void expect_survivors_leave(const std::string& kind, const std::string& routine, int n) {
    Result r = tcrun(n, {"kill-in-collective", kind}, survivors_leave_by_themselves());
    ASSERT_ENDED(r);
    const int pid1 = helper_pid(r, 1);
    ASSERT_GT(pid1, 0) << r;
    ASSERT_THAT(r.out, HasSubstr("PE 1 dies before the " + kind)) << r;
    EXPECT_EQ(r.exit_code(), 128 + 9) << "tcrun exits 128+signal of the PE that failed" << r;
    const std::string who = "PE 1 (pid " + std::to_string(pid1);
    EXPECT_THAT(lines_with(r.err, {"tcrun: ", who + ")", "signal 9"}), SizeIs(1)) << r;
    for (int pe = 0; pe < n; ++pe) {
      if (pe == 1) continue;
      EXPECT_THAT(pe_lines(r, pe, {routine, "because the job failed", who}), SizeIs(1))
          << "PE " << pe << " must leave " << routine << " with a message naming " << who << r;
    }
    EXPECT_NO_UNEXPECTED(r);
    EXPECT_NOTHING_LEFT(r);
  }
};

struct CollMismatch : JobTest {
  // A 4-PE job in checked mode in which PE 0's call differs from the
  // others' as `what` says: it ends non-zero, with a line naming the
  // `routines` and the differing `values`, and no call returns.
  Result expect_stopped(const std::string& what, const std::vector<std::string>& routines,
                        const std::vector<long>& values) {
    Result r = tcrun(4, {"coll-mismatch", what}, survivors_leave_by_themselves({"TILECOMM_CHECK=1"}));
    EXPECT_FALSE(r.hung) << "the job did not end within the hang bound; it hangs" << r;
    EXPECT_TRUE(r.exited()) << r;
    EXPECT_NE(r.exit_code(), 0) << "a mismatch must fail the job" << r;
    auto lines = lines_with(r.err, routines);
    std::vector<std::string> naming;
    for (const std::string& line : lines)
      if (std::all_of(values.begin(), values.end(), [&](long v) { return has_number(line, v); }))
        naming.push_back(line);
    EXPECT_THAT(naming, Not(IsEmpty())) << "no line names " << ::testing::PrintToString(routines) << " and "
                                        << ::testing::PrintToString(values) << r;
    EXPECT_NO_UNEXPECTED(r);
    EXPECT_NOTHING_LEFT(r);
    return r;
  }
  // `v` appears in `line` as a whole number.
  static bool has_number(const std::string& line, long v) {
    return std::regex_search(line, std::regex("(^|[^0-9])" + std::to_string(v) + "([^0-9]|$)"));
  }
};

}  // namespace

// ---- a PE dies before the collective -------------------------------------------------------

TEST_F(CollPeKilled, InBroadcast) { expect_survivors_leave("broadcast", "shmem_long_broadcast", 4); }
TEST_F(CollPeKilled, InCollect) { expect_survivors_leave("collect", "shmem_long_collect", 4); }
TEST_F(CollPeKilled, InFcollect) { expect_survivors_leave("fcollect", "shmem_long_fcollect", 3); }
TEST_F(CollPeKilled, InAlltoall) { expect_survivors_leave("alltoall", "shmem_long_alltoall", 4); }
TEST_F(CollPeKilled, InReduce) { expect_survivors_leave("reduce", "shmem_long_sum_reduce", 4); }
TEST_F(CollPeKilled, InActiveSetBroadcast) { expect_survivors_leave("broadcast64", "shmem_broadcast64", 3); }
TEST_F(CollPeKilled, InActiveSetReduce) { expect_survivors_leave("to-all", "shmem_long_sum_to_all", 4); }

// ---- checked mode: different calls on one team ---------------------------------------------

TEST_F(CollMismatch, DifferentRoots) {
  // PE 0 broadcasts from root 1, the others from root 2.
  expect_stopped("root", {"shmem_long_broadcast", "root"}, {1, 2});
}

TEST_F(CollMismatch, DifferentFcollectCounts) {
  expect_stopped("nelems", {"shmem_long_fcollect"}, {13, 29});
}

TEST_F(CollMismatch, DifferentOperations) {
  expect_stopped("op", {"shmem_long_sum_reduce", "shmem_long_max_reduce"}, {});
}

TEST_F(CollMismatch, DifferentTypes) {
  expect_stopped("type", {"shmem_int_sum_reduce", "shmem_long_sum_reduce"}, {});
}

TEST_F(CollMismatch, DifferentRoutines) {
  expect_stopped("routine", {"shmem_long_fcollect", "shmem_long_broadcast"}, {});
}

TEST_F(CollMismatch, AgreeingCallsPass) {
  // The control: matching calls (a collect with a different count on each
  // PE, which collect allows) run to the end in checked mode.
  Result r = tcrun(4, {"coll-mismatch", "none"}, survivors_leave_by_themselves({"TILECOMM_CHECK=1"}));
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  for (int pe = 0; pe < 4; ++pe)
    EXPECT_THAT(r.out, HasSubstr("PE " + std::to_string(pe) + " made its checked collectives")) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
