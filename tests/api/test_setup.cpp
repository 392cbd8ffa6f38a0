// Setup, query and library constants (OpenSHMEM 1.5 sections 9.1-9.2).
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "api_test.hpp"

using namespace api;

namespace {
long g_counter;  // symmetric: a global variable
}

TEST(Setup, MyPeAndNPes) {
  const int n = shmem_n_pes(), pe = shmem_my_pe();
  EXPECT_GE(n, 1);
  EXPECT_GE(pe, 0);
  EXPECT_LT(pe, n);
  // Stable across calls.
  EXPECT_EQ(shmem_n_pes(), n);
  EXPECT_EQ(shmem_my_pe(), pe);
  // Under tcrun -n N (which tells the PEs N in TILECOMM_SIZE) there are N PEs.
  if (const char* size = getenv("TILECOMM_SIZE")) {
    EXPECT_EQ(n, atoi(size)) << "tcrun -n N must give N PEs";
  }
}

TEST(Setup, PeNumbersAreDistinctAndDense) {
  // Every PE adds 2^pe to a counter on PE 0: the sum is 2^n - 1 only if the
  // PE numbers are exactly 0..n-1, each once.
  const int n = npes();
  g_counter = 0;
  barrier();
  shmem_long_atomic_add(&g_counter, 1L << me(), 0);
  barrier();
  EXPECT_EQ(shmem_long_atomic_fetch(&g_counter, 0), (1L << n) - 1);
  barrier();
}

TEST(Setup, InfoGetVersion) {
  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 5);
  EXPECT_EQ(major, SHMEM_MAJOR_VERSION);
  EXPECT_EQ(minor, SHMEM_MINOR_VERSION);
}

TEST(Setup, InfoGetName) {
  char name[SHMEM_MAX_NAME_LEN];
  memset(name, 'x', sizeof name);
  shmem_info_get_name(name);
  size_t len = strnlen(name, sizeof name);
  EXPECT_LT(len, static_cast<size_t>(SHMEM_MAX_NAME_LEN)) << "the name must be NUL-terminated within SHMEM_MAX_NAME_LEN";
  EXPECT_GT(len, 0u);
  EXPECT_STREQ(name, SHMEM_VENDOR_STRING);
  EXPECT_EQ(strncmp(name, "tilecomm", 8), 0) << name;
}

TEST(Setup, VendorVersionMacros) {
  EXPECT_GE(SHMEM_VENDOR_MAJOR_VERSION, 0);
  EXPECT_GE(SHMEM_VENDOR_MINOR_VERSION, 0);
  EXPECT_GE(SHMEM_VENDOR_PATCH_VERSION, 0);
  EXPECT_LE(sizeof(SHMEM_VENDOR_STRING), static_cast<size_t>(SHMEM_MAX_NAME_LEN));
}

TEST(Setup, QueryThreadAfterShmemInit) {
  int provided = -1;
  shmem_query_thread(&provided);
  // After shmem_init the library may provide any level; it must be one of them.
  EXPECT_GE(provided, SHMEM_THREAD_SINGLE);
  EXPECT_LE(provided, SHMEM_THREAD_MULTIPLE);
}

TEST(Setup, ThreadLevelConstantsAreOrdered) {
  EXPECT_LT(SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED);
  EXPECT_LT(SHMEM_THREAD_FUNNELED, SHMEM_THREAD_SERIALIZED);
  EXPECT_LT(SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE);
}

TEST(Setup, ComparisonAndSignalConstantsAreDistinct) {
  std::set<int> cmps{SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
  EXPECT_EQ(cmps.size(), 6u);
  EXPECT_NE(SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
  std::set<long> ctx_opts{SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE};
  EXPECT_EQ(ctx_opts.size(), 3u);
  for (long o : ctx_opts) EXPECT_EQ(o & (o - 1), 0) << "context options are single bits";
  EXPECT_EQ(SHMEM_MALLOC_ATOMICS_REMOTE & SHMEM_MALLOC_SIGNAL_REMOTE, 0);
  EXPECT_NE(SHMEM_TEAM_NUM_CONTEXTS, 0);
}

TEST(Setup, SyncConstants) {
  EXPECT_EQ(SHMEM_SYNC_VALUE, 0L);
  EXPECT_GE(SHMEM_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_BARRIER_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_BCAST_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_REDUCE_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_COLLECT_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_ALLTOALL_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_ALLTOALLS_SYNC_SIZE, 1);
  EXPECT_GE(SHMEM_REDUCE_MIN_WRKDATA_SIZE, 1);
  EXPECT_LE(SHMEM_BARRIER_SYNC_SIZE, SHMEM_SYNC_SIZE);
}

TEST(Setup, PredefinedHandles) {
  EXPECT_NE(SHMEM_CTX_DEFAULT, SHMEM_CTX_INVALID);
  EXPECT_NE(SHMEM_TEAM_WORLD, SHMEM_TEAM_INVALID);
  EXPECT_NE(SHMEM_TEAM_SHARED, SHMEM_TEAM_INVALID);
  EXPECT_NE(SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED);
  EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me());
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes());
}

TEST(Setup, PeAccessible) {
  const int n = npes();
  for (int pe = 0; pe < n; ++pe) EXPECT_EQ(shmem_pe_accessible(pe), 1) << "PE " << pe;
  EXPECT_EQ(shmem_pe_accessible(-1), 0);
  EXPECT_EQ(shmem_pe_accessible(n), 0);
  EXPECT_EQ(shmem_pe_accessible(INT_MAX), 0);
}

// NOTE [ucx loading]: a job on one host that does not list ucx in
// TILECOMM_TRANSPORTS never loads UCX (nor its memory hooks); a job over
// several hosts (its hosts variants) always does.
TEST(Setup, UcxIsLoadedExactlyWhenTheJobSpansHosts) {
  const char* transports = getenv("TILECOMM_TRANSPORTS");
  if (transports && strstr(transports, "ucx")) GTEST_SKIP() << "TILECOMM_TRANSPORTS lists ucx";
  const bool spans_hosts = shmem_team_n_pes(SHMEM_TEAM_SHARED) < npes();
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  while (std::getline(maps, line))
    if (line.find("libucp") != std::string::npos || line.find("libucm") != std::string::npos) found = line;
  if (spans_hosts) EXPECT_NE(found, "") << "PE " << me() << " of a job over several hosts did not map UCX";
  else EXPECT_EQ(found, "") << "PE " << me() << " mapped UCX";
}
