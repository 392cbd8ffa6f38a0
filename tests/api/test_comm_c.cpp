// The communicator's C API beyond handles and windows (those are in
// test_comm.cpp and test_comm_options.cpp): the one-call operators, C
// kernels with the orchestration helpers, and their errors, from a strict
// C11 program (comm_c_api.c, called from here; each of its entry points is
// collective and returns its failed checks), on a small window so that the
// operators and the kernel's gather run in rounds.
#include <tilecomm/comm.h>

#include "api_test.hpp"

using namespace api;

extern "C" {
int comm_c_operators(tilecomm_comm_t c, long count);
int comm_c_fused(tilecomm_comm_t c);
int comm_c_kernel_allgather(tilecomm_comm_t c);
int comm_c_kernel_ring(tilecomm_comm_t c);
int comm_c_operator_errors(tilecomm_comm_t c);
int comm_c_destroyed_handle(const tilecomm_comm_options_t* o);
int comm_c_kernel_errors(tilecomm_comm_t c);
}

namespace {

// A 4 KiB data window (2 KiB partitions) and the smallest flag region.
constexpr tilecomm_comm_options_t kSmall{4096, 64 << 10};

// A communicator of every PE for one test, destroyed at its end.
class CommC : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(tilecomm_comm_init_all(&kSmall, &comm_), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
  }
  void TearDown() override {
    if (comm_) {
      EXPECT_EQ(tilecomm_comm_destroy(comm_), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
    }
  }
  tilecomm_comm_t comm_ = nullptr;
};

}  // namespace

// 1 and 7 elements in one round; 1000 in several (the window holds 4 KiB).
TEST_F(CommC, EveryCollectiveOperatorExactlyInOneRoundAndInRounds) {
  for (long count : {1L, 7L, 1000L}) EXPECT_EQ(comm_c_operators(comm_, count), 0) << count << " elements";
}

TEST_F(CommC, RepeatedCallsReuseTheirPlansAndStayExact) {
  for (int i = 0; i < 20; ++i) ASSERT_EQ(comm_c_operators(comm_, 1 + i % 3 * 50), 0) << "call " << i;
}

TEST_F(CommC, EveryFusedOperatorExactlyWithAndWithoutBiasAndGatherOut) { EXPECT_EQ(comm_c_fused(comm_), 0); }

TEST_F(CommC, KernelAllGatherThroughTheWindowsWithTheFanInHelpers) {
  EXPECT_EQ(comm_c_kernel_allgather(comm_), 0);
}

TEST_F(CommC, KernelRingWithThePairwiseHelpers) { EXPECT_EQ(comm_c_kernel_ring(comm_), 0); }

TEST_F(CommC, OperatorAndLaunchMisuseIsACodeAndAMessage) { EXPECT_EQ(comm_c_operator_errors(comm_), 0); }

TEST_F(CommC, ADestroyedHandleIsRefusedByEveryCall) { EXPECT_EQ(comm_c_destroyed_handle(&kSmall), 0); }

TEST_F(CommC, AFailedHelperEndsTheLaunchWithItsCode) { EXPECT_EQ(comm_c_kernel_errors(comm_), 0); }
