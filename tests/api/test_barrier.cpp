// Barrier and sync (OpenSHMEM 1.5 section 9.9): shmem_barrier_all,
// shmem_sync_all, shmem_team_sync and the deprecated active-set
// shmem_barrier and shmem_sync with a pSync array.
//
// A barrier is checked by what it promises: no PE leaves before every PE
// has arrived (counters incremented before the barrier are complete after
// it), and, for the barrier forms, puts issued before it are visible after it.
#include <algorithm>

#include "api_test.hpp"

using namespace api;

namespace {

long g_psync_a[SHMEM_BARRIER_SYNC_SIZE];
long g_psync_b[SHMEM_BARRIER_SYNC_SIZE];
long g_psync_c[SHMEM_SYNC_SIZE];

void reset_psync() {
  std::fill(g_psync_a, g_psync_a + SHMEM_BARRIER_SYNC_SIZE, SHMEM_SYNC_VALUE);
  std::fill(g_psync_b, g_psync_b + SHMEM_BARRIER_SYNC_SIZE, SHMEM_SYNC_VALUE);
  std::fill(g_psync_c, g_psync_c + SHMEM_SYNC_SIZE, SHMEM_SYNC_VALUE);
  barrier();
}

// The active set (start, 2^log_stride, size) as a list of world PEs.
std::vector<int> active_set(int start, int log_stride, int size) {
  std::vector<int> v;
  for (int i = 0; i < size; ++i) v.push_back(start + (i << log_stride));
  return v;
}

bool in_set(const std::vector<int>& set) { return std::find(set.begin(), set.end(), me()) != set.end(); }

}  // namespace

// ---- barrier_all, sync_all, team_sync ------------------------------------------------

TEST(Barrier, BarrierAllWaitsForEveryPe) {
  // Each round every PE increments a counter on PE 0 and then enters the
  // barrier: after it, the counter holds exactly n per round so far.
  Sym<long> counter(1);
  if (!counter.ok()) return;
  barrier();
  const int n = npes();
  for (int round = 1; round <= 50; ++round) {
    shmem_long_atomic_inc(counter.get(), 0);
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), 0), static_cast<long>(round) * n) << "round " << round;
    shmem_barrier_all();  // nobody increments for the next round before all checked
  }
}

TEST(Barrier, BarrierAllCompletesPuts) {
  // Non-blocking puts to every PE, then barrier_all only (no quiet): the
  // barrier completes them.
  const int n = npes();
  Sym<int> slots(n);
  if (!slots.ok()) return;
  barrier();
  for (int round = 1; round <= 20; ++round) {
    int v = round * 100 + me();
    for (int pe = 0; pe < n; ++pe) shmem_int_put_nbi(slots.get() + me(), &v, 1, pe);
    shmem_barrier_all();
    EXPECT_TRUE(all_equal(slots.get(), n, [round](size_t i) { return round * 100 + static_cast<int>(i); }))
        << "round " << round;
    shmem_barrier_all();
  }
}

TEST(Barrier, SyncAllWaitsForEveryPe) {
  Sym<long> counter(1);
  if (!counter.ok()) return;
  barrier();
  const int n = npes();
  for (int round = 1; round <= 50; ++round) {
    shmem_long_atomic_inc(counter.get(), 0);
    shmem_quiet();
    shmem_sync_all();
    EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), 0), static_cast<long>(round) * n) << "round " << round;
    shmem_sync_all();
  }
}

TEST(Barrier, QuietThenSyncAllPublishesPuts) {
  const int n = npes();
  Sym<int> slots(n);
  if (!slots.ok()) return;
  shmem_sync_all();
  for (int round = 1; round <= 20; ++round) {
    int v = round * 1000 + me();
    for (int pe = 0; pe < n; ++pe) shmem_int_put(slots.get() + me(), &v, 1, pe);
    shmem_quiet();
    shmem_sync_all();
    EXPECT_TRUE(all_equal(slots.get(), n, [round](size_t i) { return round * 1000 + static_cast<int>(i); }))
        << "round " << round;
    shmem_sync_all();
  }
}

TEST(Barrier, TeamSyncOnWorldAndShared) {
  Sym<long> counter(2);
  if (!counter.ok()) return;
  barrier();
  const int n = npes();
  // TEAM_SHARED is this host's PEs (all of them on one host): they count on
  // its last PE.
  const int shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  const int last = shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_n - 1, SHMEM_TEAM_WORLD);
  for (int round = 1; round <= 30; ++round) {
    shmem_long_atomic_inc(counter.get(), 0);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), 0), static_cast<long>(round) * n);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
    shmem_long_atomic_inc(counter.get() + 1, last);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
    EXPECT_EQ(shmem_long_atomic_fetch(counter.get() + 1, last), static_cast<long>(round) * shared_n);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
  }
}

TEST(Barrier, MixedBarrierFormsStayInStep) {
  // barrier_all, sync_all and team_sync interleaved: they all synchronize
  // the same PEs and must not confuse one another.
  Sym<long> counter(1);
  if (!counter.ok()) return;
  barrier();
  const int n = npes();
  long round = 0;
  for (int i = 0; i < 30; ++i) {
    ++round;
    shmem_long_atomic_inc(counter.get(), 0);
    switch (i % 3) {
      case 0: shmem_barrier_all(); break;
      case 1: shmem_quiet(); shmem_sync_all(); break;
      default: shmem_quiet(); shmem_team_sync(SHMEM_TEAM_WORLD); break;
    }
    EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), 0), round * n) << "step " << i;
    switch (i % 3) {
      case 0: shmem_team_sync(SHMEM_TEAM_WORLD); break;
      case 1: shmem_barrier_all(); break;
      default: shmem_sync_all(); break;
    }
  }
}

TEST(Barrier, TeamSyncOnSubTeams) {
  // Evens and odds sync separately; each checks its own counter.
  const int n = npes();
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  if (n >= 2) {
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odds), 0);
  }
  Sym<long> counter(1);
  shmem_team_t mine = me() % 2 == 0 ? evens : odds;
  if (counter.ok() && mine != SHMEM_TEAM_INVALID) {
    const int root = me() % 2;  // world PE 0 or 1
    const long size = shmem_team_n_pes(mine);
    for (int round = 1; round <= 30; ++round) {
      shmem_long_atomic_inc(counter.get(), root);
      shmem_quiet();
      EXPECT_EQ(shmem_team_sync(mine), 0);
      EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), root), round * size);
      EXPECT_EQ(shmem_team_sync(mine), 0);
    }
  }
  barrier();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
  barrier();
}

// ---- deprecated active-set barrier and sync ------------------------------------------

namespace {

// Rounds of: every member increments a counter on the set's first PE, then
// the active-set call; after it the counter must hold every member's
// increments. Non-members do not call.
void active_set_rounds(int start, int log_stride, int size, bool use_barrier, long* psync, int rounds,
                       long* counter) {
  auto set = active_set(start, log_stride, size);
  if (!in_set(set)) return;
  for (int round = 1; round <= rounds; ++round) {
    shmem_long_atomic_inc(counter, start);
    if (use_barrier) {
      shmem_barrier(start, log_stride, size, psync);
    } else {
      shmem_quiet();
      shmem_sync(start, log_stride, size, psync);
    }
    EXPECT_EQ(shmem_long_atomic_fetch(counter, start), static_cast<long>(round) * size)
        << (use_barrier ? "shmem_barrier" : "shmem_sync") << "(" << start << ", " << log_stride << ", " << size
        << "), round " << round;
    // The same pSync again, back to back, for the same active set.
    if (use_barrier) shmem_barrier(start, log_stride, size, psync);
    else shmem_sync(start, log_stride, size, psync);
  }
}

struct ActiveSet {
  int start, log_stride, size;
};

std::vector<ActiveSet> active_sets() {
  const int n = npes();
  std::vector<ActiveSet> sets = {{0, 0, n}, {0, 1, (n + 1) / 2}, {n - 1, 0, 1}};
  if (n >= 2) sets.push_back({1, 1, n / 2});
  if (n >= 3) sets.push_back({1, 0, n - 1});
  if (n >= 5) sets.push_back({0, 2, (n + 3) / 4});
  if (n >= 4) sets.push_back({2, 0, 2});
  return sets;
}

}  // namespace

TEST(ActiveSet, BarrierOverEveryShape) {
  reset_psync();
  for (const ActiveSet& s : active_sets()) {
    Sym<long> counter(1);
    if (!counter.ok()) break;
    barrier();
    active_set_rounds(s.start, s.log_stride, s.size, true, g_psync_a, 20, counter.get());
    barrier();
    EXPECT_TRUE(all_equal(g_psync_a, SHMEM_BARRIER_SYNC_SIZE, [](size_t) { return SHMEM_SYNC_VALUE; }))
        << "pSync holds SHMEM_SYNC_VALUE again";
  }
}

TEST(ActiveSet, SyncOverEveryShape) {
  reset_psync();
  for (const ActiveSet& s : active_sets()) {
    Sym<long> counter(1);
    if (!counter.ok()) break;
    barrier();
    active_set_rounds(s.start, s.log_stride, s.size, false, g_psync_c, 20, counter.get());
    barrier();
    EXPECT_TRUE(all_equal(g_psync_c, SHMEM_SYNC_SIZE, [](size_t) { return SHMEM_SYNC_VALUE; }))
        << "pSync holds SHMEM_SYNC_VALUE again";
  }
}

TEST(ActiveSet, DisjointSetsAtTheSameTime) {
  // Evens with one pSync and odds with another, concurrently.
  reset_psync();
  const int n = npes();
  Sym<long> counter(1);
  if (!counter.ok()) return;
  barrier();
  if (me() % 2 == 0) active_set_rounds(0, 1, (n + 1) / 2, true, g_psync_a, 30, counter.get());
  else active_set_rounds(1, 1, n / 2, true, g_psync_b, 30, counter.get());
  barrier();
  EXPECT_TRUE(all_equal(g_psync_a, SHMEM_BARRIER_SYNC_SIZE, [](size_t) { return SHMEM_SYNC_VALUE; }));
  EXPECT_TRUE(all_equal(g_psync_b, SHMEM_BARRIER_SYNC_SIZE, [](size_t) { return SHMEM_SYNC_VALUE; }));
}

TEST(ActiveSet, BarrierCompletesPuts) {
  // Puts to every member, then shmem_barrier over the whole job: after it,
  // all data is in place.
  reset_psync();
  const int n = npes();
  Sym<int> slots(n);
  if (!slots.ok()) return;
  barrier();
  for (int round = 1; round <= 10; ++round) {
    int v = round * 10 + me();
    for (int pe = 0; pe < n; ++pe) shmem_int_put_nbi(slots.get() + me(), &v, 1, pe);
    shmem_barrier(0, 0, n, g_psync_a);
    EXPECT_TRUE(all_equal(slots.get(), n, [round](size_t i) { return round * 10 + static_cast<int>(i); }));
    shmem_barrier(0, 0, n, g_psync_a);
  }
}

TEST(ActiveSet, HeapPSync) {
  // pSync may live on the symmetric heap as well.
  Sym<long> psync(SHMEM_BARRIER_SYNC_SIZE);
  Sym<long> counter(1);
  if (!psync.ok() || !counter.ok()) return;
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  barrier();
  active_set_rounds(0, 0, npes(), true, psync.get(), 10, counter.get());
  barrier();
}
