// GoogleTest main for tests that run as PEs under tcrun.
//
// Every PE runs every test (SPMD), so collective calls inside a test line up.
// PE 0 prints the usual report; other PEs print only their failures, tagged
// with the PE number. The exit status is non-zero when any PE failed, which
// tcrun turns into a failed job.
#include <gtest/gtest.h>
#include <shmem.h>

#include <cstdio>

namespace {

class FailuresOnly : public testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int pe) : pe_(pe) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed())
      fprintf(stderr, "[PE %d] %s:%d: Failure\n%s\n", pe_, r.file_name() ? r.file_name() : "?", r.line_number(),
              r.summary());
  }

 private:
  int pe_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  shmem_init();
  int me = shmem_my_pe();
  if (me != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(me));
  }
  int rc = RUN_ALL_TESTS();
  shmem_barrier_all();
  shmem_finalize();
  return rc;
}
