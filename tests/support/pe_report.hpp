// Running GoogleTest as a PE: every PE runs every test (SPMD), so collective
// calls inside a test line up. PE 0 prints the usual report, the other PEs
// only their failures, tagged with the PE number. Used by pe_main.cpp and by
// the test programs that start OpenSHMEM themselves (shmem_init_thread,
// start_pes) with a main of their own.
#pragma once

#include <gtest/gtest.h>
#include <shmem.h>

#include <cstdio>

namespace api {

class FailuresOnlyListener : public testing::EmptyTestEventListener {
 public:
  explicit FailuresOnlyListener(int pe) : pe_(pe) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed())
      fprintf(stderr, "[PE %d] %s:%d: Failure\n%s\n", pe_, r.file_name() ? r.file_name() : "?", r.line_number(),
              r.summary());
  }

 private:
  int pe_;
};

/// Runs every test on this PE (OpenSHMEM must be initialized) and returns the
/// GoogleTest status; ends with a barrier so that no PE leaves early.
inline int run_all_tests_as_pe() {
  int me = shmem_my_pe();
  if (me != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnlyListener(me));
  }
  int rc = RUN_ALL_TESTS();
  shmem_barrier_all();
  return rc;
}

}  // namespace api
