// A rank of a communicator dies inside a launch, or during a fused operator
// (tc_fail_comm, fail_comm.cpp): every survivor's launch or operator must
// throw, within the job's failure detection, an error naming what it waited
// for and the dead PE.
#include "fixture.hpp"

using namespace tcfail;

namespace {

class CommPeerKilled : public JobTest {};

}  // namespace

TEST_F(CommPeerKilled, SurvivorsLeaveTheirLaunchNamingTheDeadRank) {
  const std::string marker = new_marker();
  Result r = run({TC_TCRUN, "-n", "4", TC_FAIL_COMM, "kill-in-launch", marker}, marker, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  const std::string who = killed_pe1(r);
  ASSERT_FALSE(who.empty());
  for (int pe : {0, 2, 3})
    // The first block that gave up may have waited for rank 1 or for a
    // survivor that left first; either way the message names the dead PE.
    EXPECT_THAT(lines_with(r.err, {"helper PE " + std::to_string(pe) + " left:", "waiting for the",
                                   "because the job failed", who}),
                SizeIs(1))
        << "PE " << pe << " must leave its launch naming the wait and " << who << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(CommPeerKilled, SurvivorsLeaveAFusedOperatorNamingTheDeadRank) {
  const std::string marker = new_marker();
  Result r = run({TC_TCRUN, "-n", "4", TC_FAIL_COMM, "kill-in-fused", marker}, marker, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  const std::string who = killed_pe1(r);
  ASSERT_FALSE(who.empty());
  for (int pe : {0, 2, 3})
    // The operator the caller made, not only the kernel inside it, is named.
    EXPECT_THAT(lines_with(r.err, {"helper PE " + std::to_string(pe) + " left:", "AllGatherMatmul", "waiting for the",
                                   "because the job failed", who}),
                SizeIs(1))
        << "PE " << pe << " must leave AllGatherMatmul naming the operator, the wait and " << who << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
