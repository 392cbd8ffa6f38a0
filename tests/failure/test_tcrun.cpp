// The launcher: --tag-output, a missing program, signals to tcrun, -x, and
// strangers on its rendezvous socket.
#include <signal.h>

#include <memory>
#include <sstream>

#include "fixture.hpp"

using namespace tcfail;

namespace {

using Tcrun = JobTest;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Runs a job whose PEs say "ready" and then wait forever; sends `sig` to
// tcrun once every PE is ready.
Result signal_tcrun_when_ready(int n, int sig) {
  auto sent = std::make_shared<bool>(false);
  Options o;
  o.env = {"TILECOMM_ABORT_GRACE=30"};
  o.on_output = [sent, n, sig](pid_t pid, const std::string& out, const std::string&) {
    if (!*sent && count_of(out, " ready\n") == static_cast<std::size_t>(n)) {
      *sent = true;
      kill(pid, sig);  // tcrun itself, not its PEs
    }
  };
  return JobTest::tcrun(n, {"ready-then-wait"}, o);
}

}  // namespace

// 10. -t: every line of every PE, stdout and stderr, starts with "[PE k] ";
// a last line without a newline is still written, tagged.
TEST_F(Tcrun, TagOutputPrefixesEveryLine) {
  Result r = tcrun(2, {"output"}, {}, {"-t"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  auto out = split_lines(r.out);
  auto err = split_lines(r.err);
  EXPECT_THAT(out, Not(IsEmpty())) << r;
  for (const auto& line : out) EXPECT_TRUE(line.rfind("[PE ", 0) == 0) << "untagged stdout line '" << line << "'" << r;
  for (int pe : {0, 1}) {
    std::string tag = "[PE " + std::to_string(pe) + "] ";
    std::string k = std::to_string(pe);
    for (const std::string& text : {"out line one from " + k, "out line two from " + k, "unterminated from " + k})
      EXPECT_THAT(out, ::testing::Contains(tag + text)) << r;
    EXPECT_THAT(err, ::testing::Contains(tag + "err line from " + k)) << r;
  }
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(Tcrun, NoTagsWithoutTheOption) {
  Result r = tcrun(2, {"output"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  EXPECT_THAT(r.out, HasSubstr("out line one from 1\n")) << r;
  EXPECT_THAT(r.out, Not(HasSubstr("[PE "))) << r;
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(Tcrun, MissingProgramExits127) {
  std::string marker = new_marker();
  std::string prog = "/nonexistent-dir-" + marker + "/prog";
  Result r = run({TC_TCRUN, "-n", "2", prog}, marker);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 127) << r;
  EXPECT_THAT(lines_with(r.err, {"tcrun", prog}), SizeIs(1)) << "the message names the program" << r;
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(Tcrun, ProgramNotInPathExits127) {
  std::string marker = new_marker();
  std::string prog = "tc-no-such-program-" + marker;
  Result r = run({TC_TCRUN, "-n", "2", prog}, marker);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 127) << r;
  EXPECT_THAT(lines_with(r.err, {"tcrun", prog, "PATH"}), SizeIs(1)) << r;
  EXPECT_NOTHING_LEFT(r);
}

// SIGTERM and SIGINT to tcrun are forwarded: the job ends, non-zero, and
// nothing of it remains.
TEST_F(Tcrun, SigtermEndsTheJob) {
  Result r = signal_tcrun_when_ready(3, SIGTERM);
  ASSERT_ENDED(r);
  EXPECT_TRUE(r.exited()) << "tcrun reports the signal through its exit status" << r;
  EXPECT_NE(r.exit_code(), 0) << r;
  EXPECT_THAT(lines_with(r.err, {"tcrun", "signal 15"}), Not(IsEmpty())) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(Tcrun, SigintEndsTheJob) {
  Result r = signal_tcrun_when_ready(2, SIGINT);
  ASSERT_ENDED(r);
  EXPECT_TRUE(r.exited()) << r;
  EXPECT_NE(r.exit_code(), 0) << r;
  EXPECT_THAT(lines_with(r.err, {"tcrun", "signal 2"}), Not(IsEmpty())) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

// -x VAR=VALUE reaches every PE, also a value with spaces, and is repeatable.
TEST_F(Tcrun, ExportsVariablesToThePes) {
  Result r = tcrun(2, {"print-env", "TC_FAIL_A", "TC_FAIL_B"}, {}, {"-x", "TC_FAIL_A=hello", "-x", "TC_FAIL_B=two words"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  for (int pe : {0, 1}) {
    std::string who = "helper: PE " + std::to_string(pe) + " ";
    EXPECT_THAT(r.out, HasSubstr(who + "TC_FAIL_A=hello\n")) << r;
    EXPECT_THAT(r.out, HasSubstr(who + "TC_FAIL_B=two words\n")) << r;
  }
  EXPECT_NOTHING_LEFT(r);
}

// Strangers on tcrun's rendezvous while the job runs (a wrong cookie, bytes
// that are not the protocol, a message that is not a Hello, an empty
// connection, a cookie holder claiming another job size): each is dropped and
// logged, and the job succeeds.
TEST_F(Tcrun, StrangersOnTheRendezvousAreDroppedAndTheJobRuns) {
  Result r = tcrun(2, {"tcrun-stranger"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  for (const char* mode : {"wrong-cookie", "garbage", "not-hello", "close", "wrong-size"})
    EXPECT_THAT(r.out, HasSubstr(std::string("stranger ") + mode + ": dropped")) << r;
  EXPECT_THAT(lines_with(r.err, {"dropped a connection from", "wrong cookie"}), SizeIs(1)) << r;
  EXPECT_THAT(lines_with(r.err, {"rejected a PE from", "PE 0 says the job has 1000 PEs, but it was started with 2"}),
              SizeIs(1)) << r;
  for (int pe : {0, 1})
    EXPECT_THAT(r.out, HasSubstr("PE " + std::to_string(pe) + " put/get after the strangers ok")) << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}
