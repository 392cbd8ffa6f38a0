// The fixture of the failure tests: runs tcrun with the helper PE program
// (tc_fail_pe) or the unique-ID helper (tc_fail_uid), whose paths CMake
// passes as TC_TCRUN, TC_FAIL_PE and TC_FAIL_UID.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner.hpp"

namespace tcfail {

// The matchers every failure test uses, for `using namespace tcfail`.
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

class JobTest : public ::testing::Test {
 public:
  /// tcrun [tcrun_opts] -n N tc_fail_pe helper_args... <marker>
  static Result tcrun(int n, const std::vector<std::string>& helper_args, const Options& opts = {},
                      const std::vector<std::string>& tcrun_opts = {}) {
    std::string marker = new_marker();
    std::vector<std::string> argv{TC_TCRUN};
    argv.insert(argv.end(), tcrun_opts.begin(), tcrun_opts.end());
    argv.insert(argv.end(), {"-n", std::to_string(n), TC_FAIL_PE});
    argv.insert(argv.end(), helper_args.begin(), helper_args.end());
    argv.push_back(marker);
    return run(argv, marker, opts);
  }

  /// tc_fail_uid MODE N <marker>
  static Result uid(const std::string& mode, int n, const Options& opts = {}) {
    std::string marker = new_marker();
    return run({TC_FAIL_UID, mode, std::to_string(n), marker}, marker, opts);
  }

  /// Options with a long TILECOMM_ABORT_GRACE: the surviving PEs must leave
  /// their waits by themselves (what these tests check) long before tcrun or
  /// the watcher thread would end them.
  static Options survivors_leave_by_themselves(std::vector<std::string> more = {}) {
    Options o;
    o.env = {"TILECOMM_ABORT_GRACE=30"};
    o.env.insert(o.env.end(), more.begin(), more.end());
    return o;
  }

  /// A job that PE 1's SIGKILL ended (tcrun exits 128 + 9): how messages
  /// name the dead PE, "PE 1 (pid <pid>", or "" after reporting a failure.
  static std::string killed_pe1(const Result& r) {
    const int pid1 = helper_pid(r, 1);
    EXPECT_GT(pid1, 0) << r;
    EXPECT_EQ(r.exit_code(), 128 + 9) << r;
    return pid1 > 0 ? "PE 1 (pid " + std::to_string(pid1) : "";
  }
  /// Lines of tilecomm's log written by PE `pe` ("tilecomm[host:pid:PE k] ...")
  /// that hold every one of `needles`.
  static std::vector<std::string> pe_lines(const Result& r, int pe, std::vector<std::string> needles) {
    needles.push_back(":PE " + std::to_string(pe) + "] ");
    return lines_with(r.err, needles);
  }
};

}  // namespace tcfail

/// The run ended by itself (not by the hang bound); stops the test otherwise.
#define ASSERT_ENDED(r) ASSERT_FALSE((r).hung) << "the job did not end within the hang bound; it hangs" << (r)

/// Nothing of the job is left: no process, no /dev/shm entry.
#define EXPECT_NOTHING_LEFT(r)                                                                      \
  do {                                                                                              \
    EXPECT_THAT((r).leftovers, ::testing::IsEmpty()) << "processes of the job outlived it" << (r); \
    EXPECT_THAT((r).new_shm, ::testing::IsEmpty()) << "the job left entries in /dev/shm" << (r);   \
  } while (0)

/// No helper reported a call that returned although it must not.
#define EXPECT_NO_UNEXPECTED(r)                                                  \
  do {                                                                           \
    EXPECT_THAT((r).out, ::testing::Not(::testing::HasSubstr("UNEXPECTED"))) << (r); \
    EXPECT_THAT((r).err, ::testing::Not(::testing::HasSubstr("UNEXPECTED"))) << (r); \
  } while (0)
