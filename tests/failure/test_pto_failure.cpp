// The PTO instructions when a PE dies: a survivor in TWAIT leaves with an
// error naming the signal; one with operations outstanding on an SDMA
// session gets an error from Wait, naming the failure, within 5 s (the acceptance bound of the issue: a bound on how
// long an error may take, not a speed test), and then leave by itself.
// The helper PE program is tc_fail_pto (fail_pto.cpp, path TC_FAIL_PTO).
#include "fixture.hpp"

using namespace tcfail;

namespace {

using PtoPeerKilled = JobTest;

/// tcrun -n N tc_fail_pto scenario <marker>
Result tcrun_pto(int n, const std::string& scenario, const Options& opts) {
  std::string marker = new_marker();
  return run({TC_TCRUN, "-n", std::to_string(n), TC_FAIL_PTO, scenario, marker}, marker, opts);
}

}  // namespace

TEST_F(PtoPeerKilled, WaitWithEventsOutstandingFailsWithinFiveSeconds) {
  Result r = tcrun_pto(2, "wait-after-peer-killed", survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << r;
  EXPECT_EQ(r.exit_code(), 128 + 9) << "tcrun exits 128+signal of the PE that failed" << r;
  EXPECT_THAT(lines_with(r.err, {"tcrun: ", "PE 1 (pid " + std::to_string(pid1) + ")", "signal 9"}), SizeIs(1))
      << "tcrun must name PE 1, its pid and signal 9 on one line" << r;
  EXPECT_THAT(r.out, HasSubstr("WAIT-FAILED-OK")) << "PE 0's Wait must fail within 5 s naming the failure" << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// The same over two hosts: PE 0's URMA engine gets from PE 1 through UCX.
TEST_F(PtoPeerKilled, UrmaWaitForAnotherHostsDeadPeFailsWithinFiveSeconds) {
  Result r = tcrun_pto(2, "urma-wait-after-remote-peer-killed", survivors_leave_by_themselves({"UCX_TLS=tcp"}));
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 128 + 9) << "tcrun exits 128+signal of the PE that failed" << r;
  EXPECT_THAT(r.out, HasSubstr("WAIT-FAILED-OK")) << "PE 0's Wait must fail within 5 s naming the failure" << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(PtoPeerKilled, TwaitLeavesWithAnErrorNamingTheSignal) {
  Result r = tcrun_pto(2, "twait-after-peer-killed", survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 128 + 9) << "tcrun exits 128+signal of the PE that failed" << r;
  EXPECT_THAT(r.out, HasSubstr("TWAIT-FAILED-OK")) << "PE 0's TWAIT must end with an error naming the failure" << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
