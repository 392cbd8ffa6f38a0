// The communicator started the way TileXR programs start: no launcher, one
// process draws the unique ID (Comm::unique_id / tilecomm_comm_get_unique_id)
// and hands it to the others, and every rank of a fresh process calls
// Comm::init_rank / tilecomm_comm_init_rank. The helpers tc_comm_uid (C++,
// comm_uid_launch.cpp) and tc_comm_uid_c (C, comm_uid_launch_c.c) fork the
// ranks, and each rank checks its communicator, its windows and its
// neighbour's with exact values, destroys it, finalizes and exits 0.
#include <tuple>

#include "fixture.hpp"

using namespace tcfail;

namespace {

// (helper program, ranks)
class CommInitRank : public JobTest, public ::testing::WithParamInterface<std::tuple<std::string, int>> {};

std::string ended(const PeEnd& e) {
  return e.pid < 0 ? "no report" : (e.exited ? "exited with status " : "killed by signal ") + std::to_string(e.code);
}

}  // namespace

TEST_P(CommInitRank, FreshProcessesJoinThroughTheUniqueIdAndShareTheirWindows) {
  const auto& [helper, n] = GetParam();
  const std::string marker = new_marker();
  Result r = run({helper, std::to_string(n), marker}, marker);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  auto ends = uid_pe_ends(r);
  EXPECT_THAT(ends, SizeIs(n)) << r;
  for (int rank = 0; rank < n; ++rank)
    EXPECT_TRUE(ends[rank].exited && ends[rank].code == 0) << "rank " << rank << ": " << ended(ends[rank]) << r;
  EXPECT_THAT(r.err, Not(HasSubstr("comm-uid: rank"))) << r;
  EXPECT_THAT(r.err, Not(HasSubstr("ERROR"))) << r;
  EXPECT_NOTHING_LEFT(r);
}

INSTANTIATE_TEST_SUITE_P(Cpp, CommInitRank, ::testing::Combine(::testing::Values(TC_COMM_UID), ::testing::Values(1, 2, 3, 4)));
INSTANTIATE_TEST_SUITE_P(C, CommInitRank, ::testing::Combine(::testing::Values(TC_COMM_UID_C), ::testing::Values(1, 2, 3, 4)));
