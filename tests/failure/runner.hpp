// Runs one command of a failure test (tcrun with the helper PE program, or
// the unique-ID helper) and records how it ended.
//
// The command runs in a process group of its own, with stdin on /dev/null,
// stdout and stderr captured, and an environment cleaned of TILECOMM_* and
// SHMEM_* variables (plus the ones a test sets). A generous bound catches
// hangs: past it the whole group is killed and the result says so. No
// expectation depends on how fast anything is.
//
// When the command's process has ended, every other process of its group
// (and every process whose command line holds the run's marker) is a
// leftover: it is listed in the result and killed. The entries of /dev/shm
// that appeared during the run are listed too; the test process has a
// private /dev/shm for that (see private_dev_shm in runner.cpp).
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tcfail {

struct Options {
  std::vector<std::string> env;  // "VAR=VALUE", set on top of the cleaned environment
  double hang_bound_s = 60;
  /// Called whenever output arrived, with the command's pid and all output so far.
  std::function<void(pid_t pid, const std::string& out, const std::string& err)> on_output;
};

struct Result {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string marker;
  int wait_status = 0;
  bool hung = false;  // killed after the hang bound
  std::string out, err;
  std::vector<std::string> leftovers;  // "pid 123 (state S): cmdline"
  std::vector<std::string> new_shm;    // names that appeared in /dev/shm

  bool exited() const;
  int exit_code() const;  // -1 unless exited()
  bool signaled() const;
  int term_signal() const;  // 0 unless signaled()
  std::string status_text() const;
};

std::ostream& operator<<(std::ostream& os, const Result& r);

/// A string unique to this run of this process, for a command line.
std::string new_marker();

Result run(const std::vector<std::string>& argv, const std::string& marker, const Options& opts = {});

/// Lines of `text` that contain every one of `needles`.
std::vector<std::string> lines_with(const std::string& text, const std::vector<std::string>& needles);
std::size_t count_of(const std::string& text, const std::string& needle);

/// pid of PE `pe` from the helper's "helper: PE <pe> pid <pid>" line; -1 if absent.
int helper_pid(const Result& r, int pe);

/// The unique-ID helper's "uid: PE k pid P exited with status S" / "killed by signal S"
/// lines: pe -> (pid, wait-like description "status S" or "signal S").
struct PeEnd {
  int pid = -1;
  bool exited = false;
  int code = -1;  // exit status or signal number
};
std::map<int, PeEnd> uid_pe_ends(const Result& r);

}  // namespace tcfail
