// Misuse that the call board catches while ranks wait inside an operator
// (NOTE [call board] in src/comm/board.hpp), as jobs of 2 and 3 PEs of
// tc_fail_comm (fail_comm.cpp; every rank first makes calls #1 and #2
// together, the first runs of plans A and B, agreed):
// - call #3 is plan A on some ranks and plan B on rank 1: the waiting ranks
//   name both calls (or the rank that failed first);
// - rank 1 destroys the communicator, or calls shmem_finalize, instead of
//   making call #3: the others name it; rank 1's destruction names them;
// - rank 0 (rank 1) makes call #3 alone while the others wait in
//   shmem_barrier_all: TILECOMM_COMM_TIMEOUT ends its wait with a Timeout
//   naming every other rank idle after call #2; the others' destruction
//   then names the failed rank at once (destroy() throws, the destructor
//   logs a warning) instead of waiting for it.
// In every case each rank's later operator call refuses (Remote), its
// destruction does not wait, no process ends before shmem_finalize, and
// the job exits 0. TILECOMM_COMM_TIMEOUT is low everywhere, so that a
// wait the board missed fails in seconds with a message, not a hang.
#include "fixture.hpp"

using namespace tcfail;

namespace {

const std::string kA = "AllReduce(count=4, int32, sum)";     // plan A
const std::string kB = "AllReduce(count=4096, int32, sum)";  // plan B
const std::string kLater =
    "later: remote failure: tilecomm::ops::AllReduce: an earlier call on this communicator failed on this rank, so "
    "its ranks may be anywhere now; destroy the communicator (that does not wait for the others) and create a new one";
const std::string kReleased = "; this rank released its window without waiting for the others";

class CommMisuse : public JobTest, public ::testing::WithParamInterface<int> {
 public:
  // tcrun -n N tc_fail_comm SCENARIO <marker>, with TILECOMM_COMM_TIMEOUT=timeout.
  static Result job(const char* scenario, int n, int timeout = 10) {
    const std::string marker = new_marker();
    Options o;
    o.env = {"TILECOMM_COMM_TIMEOUT=" + std::to_string(timeout), "TILECOMM_TIMEOUT=30"};
    o.hang_bound_s = 60;
    return run({TC_TCRUN, "-n", std::to_string(n), TC_FAIL_COMM, scenario, marker}, marker, o);
  }
  // PE pe's lines "helper PE <pe> <step>..." that hold every one of `more`.
  static std::vector<std::string> said(const Result& r, int pe, const std::string& step,
                                       std::vector<std::string> more = {}) {
    more.insert(more.begin(), "helper PE " + std::to_string(pe) + " " + step);
    return lines_with(r.out + "\n" + r.err, more);
  }
  static std::string own(int pe) { return "this rank (" + std::to_string(pe) + ") waits in call #3, "; }
  // How a timeout names rank `pe`, idle since it returned from call #2 (plan
  // B): as idle, or, where a call that returned leaves its line as it was
  // (one write per call), as in or past that call.
  // A rank's line is written when it waits long (NOTE [call board]): the
  // others' last long wait was in call #1 or #2 (plans A and B), or none.
  static ::testing::Matcher<std::string> idle_after_b(int pe) {
    const std::string rank =
        "; rank " + std::to_string(pe) + " has not been seen in this call (its line, written when it last waited: ";
    return ::testing::AnyOf(HasSubstr(rank + "in or past its call #1, " + kA + ")"),
                            HasSubstr(rank + "in or past its call #2, " + kB + ")"),
                            HasSubstr(rank + "idle, before any call)"));
  }
  // PE pe's one timeout in call #3 (plan A, alone), naming every other rank absent.
  static void expect_alone_timeout(const Result& r, int pe, int n) {
    const auto lines = said(r, pe, "call: timeout: tilecomm::ops::AllReduce: " + own(pe) + kA + " and has waited ",
                            {" s (TILECOMM_COMM_TIMEOUT=1); rank "});
    ASSERT_THAT(lines, SizeIs(1)) << "PE " << pe << r;
    EXPECT_THAT(said(r, pe, "call: "), SizeIs(1)) << "PE " << pe << r;
    for (int other = 0; other < n; ++other) {
      if (other == pe) continue;
      EXPECT_THAT(lines[0], idle_after_b(other)) << "PE " << pe << r;
    }
  }
  // Rank 1 left (`what`: destroying, in shmem_finalize) instead of making call #3: every other rank leaves
  // call #3 with one error, at least one of them naming rank 1, then releases its communicator at once.
  static void expect_rank1_named(const Result& r, int n, const std::string& what) {
    int named_rank1 = 0;
    for (int pe = 0; pe < n; ++pe) {
      if (pe == 1) continue;
      const auto left = said(r, pe, "call: invalid usage: tilecomm::ops::AllReduce: rank 1 " + what + " after 2 "
                             "calls, without making the call " + own(pe) + kA + "; every rank must make the same "
                             "operator calls on a communicator before destroying it or finalizing");
      const auto failed = said(r, pe, "call: remote failure: tilecomm::ops::AllReduce: rank ",
                               {" failed in its call #3 (" + kA + "); " + own(pe) + kA});
      named_rank1 += static_cast<int>(left.size());
      EXPECT_EQ(left.size() + failed.size(), 1u) << "PE " << pe << " must leave call #3 with one error" << r;
      EXPECT_THAT(said(r, pe, kLater), SizeIs(1)) << "PE " << pe << r;
      EXPECT_THAT(said(r, pe, "destroyed"), SizeIs(1)) << "PE " << pe << r;
    }
    EXPECT_GE(named_rank1, 1) << "no rank named rank 1 (" << what << ")" << r;
  }
  // Every rank reached the end: shmem_finalize returned everywhere, the job exited 0, nothing left.
  static void expect_clean_end(const Result& r, int n) {
    EXPECT_EQ(r.exit_code(), 0) << r;
    for (int pe = 0; pe < n; ++pe) EXPECT_THAT(said(r, pe, "finished"), SizeIs(1)) << "PE " << pe << r;
    EXPECT_NO_UNEXPECTED(r);
    EXPECT_NOTHING_LEFT(r);
  }
};

}  // namespace

// (h) Call #3 is A on some ranks, B on rank 1. Each waiting rank leaves
// naming both calls, unless it saw first that a peer had failed so (then it
// names that peer's failure); at least one rank names both calls.
TEST_P(CommMisuse, AnotherCallAtTheSameNumberIsNamedByTheWaitingRanks) {
  const int n = GetParam();
  Result r = job("mismatch-running", n);
  ASSERT_ENDED(r);
  int named_both = 0;
  for (int pe = 0; pe < n; ++pe) {
    const std::string mine = pe == 1 ? kB : kA, theirs = pe == 1 ? kA : kB;
    const auto differ = said(r, pe, "call: invalid usage: tilecomm::ops::AllReduce: rank ",
                             {"'s call #3 is " + theirs + " but " + own(pe) + mine +
                              "; every rank must make the same operator calls in the same order with the same "
                              "arguments"});
    const auto failed = said(r, pe, "call: remote failure: tilecomm::ops::AllReduce: rank ",
                             {" failed in its call #3 (", "); " + own(pe) + mine});
    named_both += static_cast<int>(differ.size());
    EXPECT_EQ(differ.size() + failed.size(), 1u) << "PE " << pe << " must leave call #3 with one error" << r;
    EXPECT_THAT(said(r, pe, kLater), SizeIs(1)) << "PE " << pe << r;
    EXPECT_THAT(said(r, pe, "destroyed"), SizeIs(1)) << "PE " << pe << ": its destruction must not wait" << r;
  }
  EXPECT_GE(named_both, 1) << "no rank named both calls" << r;
  EXPECT_THAT(said(r, 1, "call:", {kB}), SizeIs(1)) << r;
  expect_clean_end(r, n);
}

// (i) Rank 1 destroys the communicator instead of making call #3.
TEST_P(CommMisuse, ARankThatDestroysTheCommunicatorInsteadOfACallIsNamed) {
  const int n = GetParam();
  Result r = job("skip-destroy", n);
  ASSERT_ENDED(r);
  expect_rank1_named(r, n, "is destroying the communicator");
  // Rank 1's destruction names a rank in call #3, or one that failed in it, and does not wait.
  const auto in_call = said(r, 1, "destroy: invalid usage: tilecomm::Comm::destroy: rank ",
                            {" is in call #3 (" + kA + "), but this rank (1) destroys the communicator after 2 calls; "
                             "every rank must make the same operator calls before destroying it" + kReleased});
  const auto failed =
      said(r, 1, "destroy: remote failure: tilecomm::Comm::destroy: rank ",
           {" failed in its call #3 (" + kA + "), so it cannot take part in the destruction" + kReleased});
  EXPECT_EQ(in_call.size() + failed.size(), 1u) << r;
  expect_clean_end(r, n);
}

// (i) Rank 1 calls shmem_finalize, its communicator alive, instead of making call #3.
TEST_P(CommMisuse, ARankInShmemFinalizeInsteadOfACallIsNamed) {
  const int n = GetParam();
  Result r = job("skip-finalize", n);
  ASSERT_ENDED(r);
  expect_rank1_named(r, n, "is in shmem_finalize");
  EXPECT_THAT(said(r, 1, "call"), IsEmpty()) << r;
  EXPECT_THAT(said(r, 1, "destroy"), IsEmpty())
      << "rank 1's communicator went after shmem_finalize, without a word" << r;
  expect_clean_end(r, n);
}

// (j) Rank 0 makes call #3 alone; the others wait in shmem_barrier_all.
TEST_P(CommMisuse, ACallMadeOnOneRankOnlyTimesOutNamingTheIdleRanks) {
  const int n = GetParam();
  Result r = job("alone-timeout", n, 1);
  ASSERT_ENDED(r);
  expect_alone_timeout(r, 0, n);
  EXPECT_THAT(said(r, 0, kLater), SizeIs(1)) << r;
  EXPECT_THAT(said(r, 0, "destroyed"), SizeIs(1)) << r;
  for (int pe = 1; pe < n; ++pe)
    EXPECT_THAT(said(r, pe, "destroy: remote failure: tilecomm::Comm::destroy: rank 0 failed in its call #3 (" + kA +
                                "), so it cannot take part in the destruction" + kReleased),
                SizeIs(1))
        << "PE " << pe << r;
  expect_clean_end(r, n);
}

// (k) Rank 1 fails in call #3 (a timeout, alone in it): the others'
// destroy() throws naming it at once, their destructors log it.
TEST_P(CommMisuse, APeerThatFailedInACallDoesNotHangTheOthersDestruction) {
  const int n = GetParam();
  for (const char* scenario : {"peer-failed", "peer-failed-dtor"}) {
    const bool dtor = std::string(scenario) == "peer-failed-dtor";
    Result r = job(scenario, n, 1);
    ASSERT_ENDED(r);
    SCOPED_TRACE(scenario);
    expect_alone_timeout(r, 1, n);
    EXPECT_THAT(said(r, 1, kLater), SizeIs(1)) << r;
    EXPECT_THAT(said(r, 1, dtor ? "released" : "destroyed"), SizeIs(1)) << scenario << r;
    const std::string why = "tilecomm::Comm::destroy: rank 1 failed in its call #3 (" + kA +
                            "), so it cannot take part in the destruction" + kReleased;
    for (int pe = 0; pe < n; ++pe) {
      if (pe == 1) continue;
      if (dtor) {
        EXPECT_THAT(pe_lines(r, pe, {"WARN comm: " + why}), SizeIs(1)) << "PE " << pe << r;
        EXPECT_THAT(said(r, pe, "released"), SizeIs(1)) << "PE " << pe << r;
      } else {
        EXPECT_THAT(said(r, pe, "destroy: remote failure: " + why), SizeIs(1)) << "PE " << pe << r;
      }
    }
    expect_clean_end(r, n);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, CommMisuse, ::testing::Values(2, 3),
                         [](const auto& info) { return "np" + std::to_string(info.param); });
