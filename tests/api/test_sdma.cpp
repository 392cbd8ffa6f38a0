// The explicit copy engine (shmemx_sdma_put_nbi / _get_nbi / _quiet) and its
// ordering with the rest of the API: after shmemx_sdma_quiet, shmem_quiet or
// a barrier every queued copy is complete; signals and AMOs issued after a
// quiet are seen after the data.
#include <shmemx.h>

#include <cstring>

#include "api_test.hpp"

using namespace api;

namespace {

constexpr std::size_t kSizes[] = {1, 8, 4095, 65536, (3u << 20) + 17};  // the last spans several engine entries

TEST(Sdma, PutNbiThenQuiet) {
  for (std::size_t n : kSizes) {
    Sym<unsigned char> dst(n);
    std::vector<unsigned char> src(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = value<unsigned char>(me(), i, 1);
    barrier();
    shmemx_sdma_put_nbi(dst.get(), src.data(), n, right());
    shmemx_sdma_quiet();
    barrier();
    EXPECT_TRUE(all_equal(dst.get(), n, [&](std::size_t i) { return value<unsigned char>(left(), i, 1); }))
        << n << " bytes";
    barrier();
  }
}

TEST(Sdma, GetNbiThenShmemQuiet) {
  for (std::size_t n : kSizes) {
    Sym<unsigned char> src(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = value<unsigned char>(me(), i, 2);
    std::vector<unsigned char> got(n, 0);
    barrier();
    shmemx_sdma_get_nbi(got.data(), src.get(), n, right());
    shmem_quiet();
    EXPECT_TRUE(all_equal(got.data(), n, [&](std::size_t i) { return value<unsigned char>(right(), i, 2); }))
        << n << " bytes";
    barrier();
  }
}

TEST(Sdma, ManyQueuedCopiesCompleteAtBarrier) {
  // More copies than the engine keeps in flight (64): submission waits for room.
  constexpr std::size_t kSlices = 200, kSlice = 1000;
  Sym<int> dst(kSlices * kSlice);
  std::vector<int> src(kSlices * kSlice);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = value<int>(me(), i, 3);
  barrier();
  for (std::size_t s = 0; s < kSlices; ++s)
    shmemx_sdma_put_nbi(dst.get() + s * kSlice, src.data() + s * kSlice, kSlice * sizeof(int), right());
  barrier();  // implies quiet
  EXPECT_TRUE(all_equal(dst.get(), dst.size(), [&](std::size_t i) { return value<int>(left(), i, 3); }));
  barrier();
}

TEST(Sdma, SignalAfterQuietSeesTheData) {
  constexpr std::size_t n = 1 << 20;
  Sym<long> data(n);
  Sym<uint64_t> flag(1);
  std::vector<long> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = value<long>(me(), i, 4);
  barrier();
  shmemx_sdma_put_nbi(data.get(), src.data(), n * sizeof(long), right());
  shmem_quiet();
  shmem_uint64_atomic_set(flag.get(), 1, right());
  shmem_uint64_wait_until(flag.get(), SHMEM_CMP_EQ, 1);
  EXPECT_TRUE(all_equal(data.get(), n, [&](std::size_t i) { return value<long>(left(), i, 4); }));
  barrier();
}

TEST(Sdma, ZeroBytesIsANoOp) {
  Sym<int> dst(1);
  barrier();
  shmemx_sdma_put_nbi(dst.get(), nullptr, 0, right());
  shmemx_sdma_get_nbi(nullptr, dst.get(), 0, right());
  shmemx_sdma_quiet();
  EXPECT_EQ(dst[0], 0);
  barrier();
}

}  // namespace
