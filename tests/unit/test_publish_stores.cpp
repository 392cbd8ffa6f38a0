// The choice of stores for the copies peers read next (NOTE [publishing
// stores] in src/coll/copy.cpp), fed made-up call times.
#include <gtest/gtest.h>

#include "coll/coll.hpp"

namespace {

using tilecomm::coll::StoreRecord;

// Runs `calls` calls that take `cached` or `streaming` seconds by the kind
// the record picks; returns how many of them streamed.
int run(StoreRecord& r, int calls, double cached, double streaming) {
  int streamed = 0;
  for (int i = 0; i < calls; ++i) {
    const bool s = r.next();
    streamed += s;
    r.add(s, s ? streaming : cached);
  }
  return streamed;
}

TEST(PublishStores, WarmUpAlternatesAndKeepsTheFasterKind) {
  StoreRecord r;
  EXPECT_FALSE(r.next());
  r.add(false, 5e-6);
  EXPECT_TRUE(r.next());
  r.add(true, 9e-6);
  EXPECT_FALSE(r.next());
  r.add(false, 4e-6);
  EXPECT_TRUE(r.next());
  r.add(true, 3e-6);  // streaming's best, 3, beats cached's best, 4
  EXPECT_TRUE(r.kept);
  EXPECT_EQ(r.until_probe, StoreRecord::kFirstInterval);
}

TEST(PublishStores, ProbesBackOffWhileTheKeptKindStaysFaster) {
  StoreRecord r;
  run(r, 4, 1.0, 2.0);
  ASSERT_FALSE(r.kept);
  // Probes after 16 calls, then 64, 256 and 1024, then every 1024: 5 in 16 + 1 + 64 + 1 + 256 + 1 + 1024 + 1 + 1024 + 1 calls.
  const int calls = 16 + 1 + 64 + 1 + 256 + 1 + 1024 + 1 + 1024 + 1;
  EXPECT_EQ(run(r, calls, 1.0, 2.0), 5);
  EXPECT_FALSE(r.kept);
  EXPECT_EQ(r.interval, StoreRecord::kLastInterval);
  EXPECT_EQ(run(r, 1024, 1.0, 2.0), 0);  // until the next probe
  EXPECT_TRUE(r.next());
}

TEST(PublishStores, AProbeThatRunsFasterTakesOverAndTheIntervalRestarts) {
  StoreRecord r;
  run(r, 4, 1.0, 2.0);
  run(r, 16 + 1 + 64 + 1 + 256 + 1, 1.0, 2.0);  // three failed probes: the interval is at 1024
  ASSERT_EQ(r.interval, StoreRecord::kLastInterval);
  // The host changes: cached calls now take 6, streaming ones still 2.
  int streamed = run(r, 1024, 6.0, 2.0);
  EXPECT_EQ(streamed, 0);
  EXPECT_TRUE(r.next());  // the probe
  r.add(true, 2.0);
  EXPECT_TRUE(r.kept);
  EXPECT_EQ(r.interval, StoreRecord::kFirstInterval);
  EXPECT_EQ(run(r, 16, 6.0, 2.0), 16);
  EXPECT_FALSE(r.next());  // the next probe tries cached stores again
}

TEST(PublishStores, AProbeWithinTenPercentDoesNotSwitch) {
  StoreRecord r;
  run(r, 4, 1.0, 2.0);
  run(r, 16, 1.0, 0.95);
  ASSERT_TRUE(r.next());
  r.add(true, 0.95);
  EXPECT_FALSE(r.kept);
  EXPECT_EQ(r.interval, 4 * StoreRecord::kFirstInterval);
}

}  // namespace
