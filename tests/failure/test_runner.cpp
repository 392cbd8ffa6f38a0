// The fixture's own checks must catch what they are meant to catch: a
// process that outlives its command, an entry left in /dev/shm, a hang.
// (Plain shell commands, no tilecomm.)
#include <unistd.h>

#include <fstream>

#include "fixture.hpp"

using namespace tcfail;

TEST(Runner, SeesAndEndsAProcessThatOutlivesItsCommand) {
  std::string marker = new_marker();
  Result r = run({"/bin/sh", "-c", "sleep 300 & exit 0", marker}, marker);
  ASSERT_FALSE(r.hung) << r;
  EXPECT_EQ(r.exit_code(), 0) << r;
  ASSERT_THAT(r.leftovers, SizeIs(1)) << r;
  EXPECT_THAT(r.leftovers[0], HasSubstr("sleep 300")) << r;
  // It was killed: nothing of this run is left now.
  Result again = run({"/bin/true", marker}, marker);
  EXPECT_THAT(again.leftovers, IsEmpty()) << again;
}

TEST(Runner, SeesAnEntryLeftInDevShm) {
  std::string marker = new_marker();
  Result r = run({"/bin/sh", "-c", "echo x > /dev/shm/" + marker}, marker);
  ASSERT_FALSE(r.hung) << r;
  EXPECT_THAT(r.new_shm, ::testing::ElementsAre(marker)) << r;
  unlink(("/dev/shm/" + marker).c_str());
}

TEST(Runner, EndsAHangAfterTheBound) {
  std::string marker = new_marker();
  Options o;
  o.hang_bound_s = 1;
  Result r = run({"/bin/sh", "-c", "sleep 300; exit 0", marker}, marker, o);
  EXPECT_TRUE(r.hung) << r;
  EXPECT_THAT(r.leftovers, IsEmpty()) << r;
}

TEST(Runner, CapturesOutputStatusAndCleansTheEnvironment) {
  std::string marker = new_marker();
  setenv("TILECOMM_TIMEOUT", "5", 1);  // must not reach the command
  Options o;
  o.env = {"TC_FAIL_SET=yes"};
  Result r = run({"/bin/sh", "-c", "echo out:${TILECOMM_TIMEOUT:-unset}:$TC_FAIL_SET; echo err >&2; exit 4", marker},
                 marker, o);
  unsetenv("TILECOMM_TIMEOUT");
  EXPECT_EQ(r.exit_code(), 4) << r;
  EXPECT_EQ(r.out, "out:unset:yes\n") << r;
  EXPECT_EQ(r.err, "err\n") << r;
}
