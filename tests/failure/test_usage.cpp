// Errors of the program or its environment: a wait past TILECOMM_TIMEOUT,
// calls outside init..finalize, bad PE numbers and addresses, heap
// exhaustion, mismatched allocations, malformed variables. Each must end the
// job (or fail the call) with a message that says what is wrong.
#include <functional>

#include "fixture.hpp"

using namespace tcfail;

namespace {

using WaitTimeout = JobTest;
using HeapExhaustion = JobTest;
using BadEnvironment = JobTest;

// The address the helper printed after `prefix` (e.g. "waits on "), as %p prints it.
std::string printed_address(const Result& r, const std::string& prefix) {
  auto at = r.out.find(prefix);
  if (at == std::string::npos) return "";
  at += prefix.size();
  auto end = r.out.find_first_of(" \n", at);
  return r.out.substr(at, end - at);
}

}  // namespace

struct UsageError : JobTest {
  // A 2-PE job whose PE 0 makes a bad put in `scenario`, after printing the
  // address after `said`: the job ends with status 1 and PE 0's one error
  // line holds the call and what `parts(address)` names.
  void expect_put_refused(const char* scenario, const std::string& said,
                          const std::function<std::vector<std::string>(const std::string&)>& parts) {
    Result r = tcrun(2, {scenario}, survivors_leave_by_themselves());
    ASSERT_ENDED(r);
    std::string addr = printed_address(r, said);
    ASSERT_FALSE(addr.empty()) << r;
    EXPECT_EQ(r.exit_code(), 1) << r;
    EXPECT_THAT(pe_lines(r, 0, parts(addr)), SizeIs(1)) << r;
    EXPECT_NO_UNEXPECTED(r);
    EXPECT_NOTHING_LEFT(r);
  }
};

// 6. PE 0 waits with TILECOMM_TIMEOUT=1 on a variable nobody changes (PE 1,
// without a timeout, waits in a barrier).
TEST_F(WaitTimeout, NamesCallVariableAddressExpectedAndSeenValue) {
  Result r = tcrun(2, {"timeout-wait"}, survivors_leave_by_themselves({"TILECOMM_TIMEOUT=1"}));
  ASSERT_ENDED(r);
  int pid0 = helper_pid(r, 0);
  ASSERT_GT(pid0, 0) << r;
  std::string addr = printed_address(r, "PE 0 waits on ");
  ASSERT_FALSE(addr.empty()) << r;
  EXPECT_EQ(r.exit_code(), 1) << r;
  // One line: the call, the variable, the address, the expected and the seen value.
  EXPECT_THAT(pe_lines(r, 0, {"shmem_long_wait_until", "TILECOMM_TIMEOUT", addr, "== 42", "still 0"}), SizeIs(1))
      << r;
  EXPECT_THAT(lines_with(r.err, {"tcrun: PE 0 (pid " + std::to_string(pid0) + ")", "status 1"}), SizeIs(1)) << r;
  // PE 1 had no timeout: it leaves its barrier because PE 0 failed.
  EXPECT_THAT(pe_lines(r, 1, {"shmem_barrier_all", "because the job failed", "PE 0 (pid " + std::to_string(pid0)}),
              SizeIs(1))
      << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// 7. Usage errors.
TEST_F(UsageError, CallBeforeInit) {
  Result r = tcrun(1, {"before-init"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_my_pe", "before shmem_init"}), SizeIs(1)) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(UsageError, PutBeforeInit) {
  Result r = tcrun(2, {"put-before-init"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_long_p", "before shmem_init"}), Not(IsEmpty())) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(UsageError, CallAfterFinalize) {
  Result r = tcrun(1, {"after-finalize"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_barrier_all", "after shmem_finalize"}), SizeIs(1)) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(UsageError, PeOutOfRange) {
  Result r = tcrun(2, {"pe-out-of-range", "5"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(pe_lines(r, 0, {"shmem_long_p", "PE 5", "out of range", "0..1"}), SizeIs(1)) << r;
  EXPECT_THAT(pe_lines(r, 1, {"because the job failed", "PE 0"}), SizeIs(1)) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(UsageError, NegativePe) {
  Result r = tcrun(3, {"pe-out-of-range", "-1"}, survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(pe_lines(r, 0, {"shmem_long_p", "PE -1", "out of range", "0..2"}), SizeIs(1)) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(UsageError, NonSymmetricPutTarget) {
  expect_put_refused("non-symmetric", "PE 0 puts to the stack address ", [](const std::string& addr) {
    return std::vector<std::string>{"shmem_long_put", addr, "not symmetric"};
  });
}

TEST_F(UsageError, PutRunningPastTheHeap) {
  expect_put_refused("past-end", "PE 0 puts past the end from ", [](const std::string& addr) {
    return std::vector<std::string>{"shmem_long_put", "the range [" + addr + ", +8796093022208 bytes)",
                                    "runs past the end of its symmetric segment"};
  });
}

// shmem_malloc beyond SHMEM_SYMMETRIC_SIZE returns NULL on every PE, says
// why, and the heap stays usable; the program goes on and exits 0.
TEST_F(HeapExhaustion, MallocReturnsNullOnEveryPeAndSaysWhy) {
  Options o;
  o.env = {"SHMEM_SYMMETRIC_SIZE=1M"};
  Result r = tcrun(2, {"heap-exhaustion"}, o);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  for (int pe : {0, 1}) {
    std::string who = "PE " + std::to_string(pe) + ": ";
    EXPECT_THAT(r.out, HasSubstr(who + "shmem_malloc(2097152) returned NULL")) << r;
    EXPECT_THAT(r.out, HasSubstr(who + "heap still usable")) << r;
    // The request, the heap size, its free space and the variable to raise.
    EXPECT_THAT(pe_lines(r, pe, {"shmem_malloc", "2097152", "1048576", "free", "SHMEM_SYMMETRIC_SIZE", "1M"}),
                Not(IsEmpty()))
        << r;
  }
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(UsageError, AllocationMismatch) {
  Result r = tcrun(2, {"alloc-mismatch"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_malloc", "mismatch", "64", "128"}), Not(IsEmpty())) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// A malformed variable in tcrun's environment: tcrun refuses to start.
TEST_F(BadEnvironment, SymmetricSizeForTcrun) {
  Options o;
  o.env = {"SHMEM_SYMMETRIC_SIZE=12Q"};
  Result r = tcrun(2, {"plain"}, o);
  ASSERT_ENDED(r);
  EXPECT_TRUE(r.exited()) << r;
  EXPECT_NE(r.exit_code(), 0) << r;
  EXPECT_THAT(lines_with(r.err, {"SHMEM_SYMMETRIC_SIZE", "12Q"}), SizeIs(1)) << r;
  EXPECT_THAT(r.out, Not(HasSubstr("of 2 ran"))) << "no PE may run" << r;
  EXPECT_NOTHING_LEFT(r);
}

// A malformed variable given to the PEs only (tcrun -x): shmem_init fails on every PE.
TEST_F(BadEnvironment, SymmetricSizeForPes) {
  Result r = tcrun(2, {"plain"}, {}, {"-x", "SHMEM_SYMMETRIC_SIZE=12Q"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_init", "SHMEM_SYMMETRIC_SIZE", "12Q"}), Not(IsEmpty())) << r;
  EXPECT_THAT(r.out, Not(HasSubstr("of 2 ran"))) << r;
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(BadEnvironment, TimeoutForPes) {
  Result r = tcrun(2, {"plain"}, {}, {"-x", "TILECOMM_TIMEOUT=soon"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_init", "TILECOMM_TIMEOUT", "soon"}), Not(IsEmpty())) << r;
  EXPECT_NOTHING_LEFT(r);
}
