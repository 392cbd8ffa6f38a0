// Collectives that cannot complete: a PE of the team dies inside one, or
// (TILECOMM_CHECK=1) the members make different calls. The survivors must
// leave with a message naming the collective routine and the dead PE; a
// checked mismatch must end the job naming both calls. The helper PE
// program is tc_fail_coll (fail_coll.c, path TC_FAIL_COLL).
#include "fixture.hpp"

using namespace tcfail;

namespace {

class CollFailure : public JobTest, public ::testing::WithParamInterface<std::pair<const char*, const char*>> {
 public:
  static Result job(int n, const std::vector<std::string>& args, const Options& opts) {
    std::string marker = new_marker();
    std::vector<std::string> argv{TC_TCRUN, "-n", std::to_string(n), TC_FAIL_COLL};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(marker);
    return run(argv, marker, opts);
  }

  // PE 1 dies by SIGKILL in `scenario` (fail_coll.c); PEs 0, 2, 3 are inside
  // the collective `kind` whose C routine is `routine`, and must leave it
  // naming PE 1's end.
  void survivors_name_pe1(const char* scenario, const char* kind, const char* routine) {
    Result r = job(4, {scenario, kind}, survivors_leave_by_themselves());
    ASSERT_ENDED(r);
    const std::string who = killed_pe1(r);
    ASSERT_FALSE(who.empty());
    for (int pe : {0, 2, 3})
      EXPECT_THAT(pe_lines(r, pe, {routine, "because the job failed", who}), SizeIs(1))
          << "PE " << pe << " must leave " << routine << " naming " << who << r;
    EXPECT_NO_UNEXPECTED(r);
    EXPECT_NOTHING_LEFT(r);
  }
};

using CollChecked = CollFailure;
using CollSettings = CollFailure;

}  // namespace

TEST_P(CollFailure, PeKilledInside) {
  const auto [kind, routine] = GetParam();
  survivors_name_pe1("kill-in", kind, routine);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, CollFailure,
                         ::testing::Values(std::pair{"broadcast", "shmem_long_broadcast"},
                                           std::pair{"collect", "shmem_long_collect"},
                                           std::pair{"fcollect", "shmem_long_fcollect"},
                                           std::pair{"alltoall", "shmem_long_alltoall"},
                                           std::pair{"alltoalls", "shmem_long_alltoalls"},
                                           std::pair{"reduce", "shmem_long_sum_reduce"},
                                           std::pair{"fcollect64", "shmem_fcollect64"}),
                         [](const auto& info) { return std::string(info.param.first); });

// The same over two hosts of two PEs (PE 1 on the first), where WORLD's
// broadcasts, fcollects and reductions go host by host (NOTE [host
// leaders]): the survivors wait for their leaders, for the other host's
// leader, or for PE 1; an alltoall puts across hosts.
using CollFailureHosts = CollFailure;
TEST_P(CollFailureHosts, PeKilledInside) {
  const auto [kind, routine] = GetParam();
  survivors_name_pe1("kill-in-hosts", kind, routine);
}

INSTANTIATE_TEST_SUITE_P(HostByHost, CollFailureHosts,
                         ::testing::Values(std::pair{"broadcast", "shmem_long_broadcast"},
                                           std::pair{"fcollect", "shmem_long_fcollect"},
                                           std::pair{"alltoall", "shmem_long_alltoall"},
                                           std::pair{"reduce", "shmem_long_sum_reduce"}),
                         [](const auto& info) { return std::string(info.param.first); });

// PE 1's call differs from PE 0's (argument 1); the message on PE 1 names
// both routines and the differing values (arguments 2 and 3).
TEST_P(CollChecked, MismatchNamesBothCalls) {
  const auto [what, needles] = GetParam();
  Options o = survivors_leave_by_themselves({"TILECOMM_CHECK=1"});
  Result r = job(3, {"mismatch", what}, o);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  std::vector<std::string> expected{"TILECOMM_CHECK", "made different collective calls"};
  std::string n(needles);
  for (std::size_t at = 0, next; at < n.size(); at = next + 1) {
    next = n.find('|', at);
    if (next == std::string::npos) next = n.size();
    expected.push_back(n.substr(at, next - at));
  }
  EXPECT_THAT(pe_lines(r, 1, expected), SizeIs(1)) << r;
  EXPECT_THAT(pe_lines(r, 0, {"because the job failed", "PE 1"}), SizeIs(1)) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

INSTANTIATE_TEST_SUITE_P(
    EveryField, CollChecked,
    ::testing::Values(std::pair{"root", "shmem_long_broadcast (broadcast, 64 elements of 8 bytes, root 1)|root 0)"},
                      std::pair{"nelems", "shmem_long_fcollect (fcollect, 63 elements|64 elements"},
                      std::pair{"op", "shmem_long_max_reduce (reduce, 64 elements of 8 bytes, int64 max)|"
                                      "shmem_long_sum_reduce (reduce, 64 elements of 8 bytes, int64 sum)"},
                      std::pair{"type", "shmem_int_sum_reduce (reduce, 64 elements of 4 bytes, int32 sum)|"
                                        "shmem_long_sum_reduce (reduce, 64 elements of 8 bytes, int64 sum)"},
                      std::pair{"routine", "shmem_long_broadcast (broadcast|shmem_long_fcollect (fcollect"},
                      std::pair{"active-set-nelems", "active set|shmem_long_sum_to_all (reduce, 62 elements|"
                                                     "shmem_long_sum_to_all (reduce, 64 elements"}),
    [](const auto& info) {
      std::string s = info.param.first;
      for (char& c : s) c = c == '-' ? '_' : c;
      return s;
    });

// On one host UCX runs on every PE or on none: shmem_init names both PEs'
// choices.
TEST_F(CollSettings, UcxListedOnOnePeStopsShmemInit) {
  Result r = job(2, {"transports", "-"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_init", "listing ucx in TILECOMM_TRANSPORTS", "auto/auto/auto no-ucx",
                                 "auto/auto/auto ucx", "must be the same on every PE"}),
              Not(IsEmpty())) << r;
  EXPECT_NO_UNEXPECTED(r);
}

// PE 1 forces another reduction algorithm than PE 0: shmem_init stops the
// job naming both settings, before any collective can hang on it.
TEST_F(CollSettings, DifferentSettingsStopShmemInit) {
  Result r = job(2, {"settings", "-"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_init", "collective settings", "auto/auto/auto/auto/auto/rsag",
                                 "auto/auto/auto/auto/auto/auto", "must be the same on every PE"}),
              Not(IsEmpty())) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
