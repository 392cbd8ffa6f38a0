// A PE that computes without calling tilecomm still serves its peers when
// TILECOMM_UCX_PROGRESS_THREAD=1 (NOTE in transport/ucx/ucx_transport.hpp):
// over UCX on TCP a put, a get or an AMO on a PE lands only while that PE
// progresses UCX, and here the targets spin on plain memory, never calling
// the library, until their peers are done with them. Without the progress
// thread these PEs would wait forever, so that test runs only with the
// thread; on shared memory it passes trivially.
//
// Pairs (2k, 2k+1): the even PE spins; the odd PE gets the even PE's
// block, adds to a counter on it, puts a block to it and then, after a
// fence, the flag that releases it. An odd PE without a partner idles.
//
// The other way round, with or without the thread (ctest runs that test
// without it too): a put to a PE with
// nothing in flight to it leaves at once (NOTE [ucx coalescing]), so a PE
// that puts and then computes without calling tilecomm does not hold its
// partner's wait. The partner says it saw the put through a file both map,
// outside tilecomm; if the put waited for its sender's next call, the
// partner's wait would time out (TILECOMM_TIMEOUT) and fail the test.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "api_test.hpp"

using namespace api;

namespace {

constexpr std::size_t N = 1000;
long source[N];  // symmetric: the block the partner gets
long target[N];  // symmetric: the block the partner puts
long counter;    // symmetric: the partner adds to it
long released;   // symmetric: the partner sets it last
long arrived;    // symmetric: the sender's one put
char side_path[64];  // symmetric: the even PE's file, for its partner

bool progress_thread_on() {
  const char* v = std::getenv("TILECOMM_UCX_PROGRESS_THREAD");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace

TEST(ProgressThread, PeersReachAPeThatComputesWithoutCallingTilecomm) {
  if (!progress_thread_on()) GTEST_SKIP() << "run with TILECOMM_UCX_PROGRESS_THREAD=1 (the test waits outside tilecomm)";
  const int self = me();
  for (std::size_t i = 0; i < N; ++i) source[i] = value<long>(self, i, 1);
  barrier();
  const bool spinner = self % 2 == 0 && self + 1 < npes();
  const bool worker = self % 2 == 1;
  if (spinner) {
    // Plain loads only: no call into tilecomm until the partner releases us.
    while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) == 0) {
    }
    EXPECT_EQ(counter, 7 * (self + 1));
    EXPECT_TRUE(all_equal(target, N, [&](std::size_t i) { return value<long>(self + 1, i, 2); }));
  } else if (worker) {
    const int partner = self - 1;
    std::vector<long> got(N);
    shmem_long_get(got.data(), source, N, partner);
    EXPECT_TRUE(all_equal(got.data(), N, [&](std::size_t i) { return value<long>(partner, i, 1); }));
    EXPECT_EQ(shmem_long_atomic_fetch_add(&counter, 7 * (partner + 1), partner), 0);
    std::vector<long> mine(N);
    for (std::size_t i = 0; i < N; ++i) mine[i] = value<long>(self, i, 2);
    shmem_long_put(target, mine.data(), N, partner);
    shmem_fence();
    shmem_long_p(&released, 1, partner);
    shmem_quiet();
  }
  barrier();
}

TEST(ProgressThread, APutArrivesWhileItsSenderComputes) {
  const int self = me();
  const bool receiver = self % 2 == 0 && self + 1 < npes();
  const bool sender = self % 2 == 1;
  arrived = 0;
  // The side channel: a page of a file the pair maps, made by the receiver.
  char path[] = "/tmp/tilecomm-test-progress-XXXXXX";
  int fd = -1;
  if (receiver) {
    fd = mkstemp(path);
    EXPECT_GE(fd, 0) << "mkstemp: " << std::strerror(errno);
    if (fd >= 0) {
      EXPECT_EQ(ftruncate(fd, 4096), 0);
    }
    shmem_putmem(side_path, path, sizeof path, self + 1);
  }
  barrier();
  if (sender) fd = open(side_path, O_RDWR);
  void* map = fd < 0 ? MAP_FAILED : mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (fd >= 0) close(fd);
  barrier();  // both mapped it: the name can go
  if (receiver && fd >= 0) unlink(path);
  const bool ready = map != MAP_FAILED;
  if (receiver || sender) {
    EXPECT_TRUE(ready) << "PE " << self << " cannot map the pair's file " << path;
  }
  auto* seen = static_cast<long*>(map);
  if (sender && ready) {
    shmem_long_p(&arrived, 1, self - 1);
    // Plain loads only: no call into tilecomm until the partner saw the put.
    while (__atomic_load_n(seen, __ATOMIC_ACQUIRE) == 0) {
    }
  } else if (receiver && ready) {
    shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, 1);
    __atomic_store_n(seen, 1, __ATOMIC_RELEASE);
  }
  if (ready) munmap(map, 4096);
  barrier();
}
