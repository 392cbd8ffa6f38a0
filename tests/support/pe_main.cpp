// GoogleTest main for tests that run as PEs under tcrun: shmem_init, every
// test on every PE, and an exit status that is non-zero when any test of
// this PE failed (tcrun turns that into a failed job).
#include "pe_report.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  shmem_init();
  int rc = api::run_all_tests_as_pe();
  shmem_finalize();
  return rc;
}
