#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "memory/heap.hpp"

using tilecomm::memory::HeapAllocator;

TEST(HeapAllocator, FirstFitAlignedAndMerged) {
  HeapAllocator h(4096, 4096 + 1024);
  std::size_t a = h.allocate(100, 16);
  std::size_t b = h.allocate(200, 16);
  EXPECT_EQ(a, 4096u);
  EXPECT_EQ(b, 4096u + 112u);  // 100 rounded up to 112
  EXPECT_EQ(h.block_size(a), 112u);
  EXPECT_EQ(h.free_bytes(), 1024u - 112u - 208u);
  std::size_t c = h.allocate(64, 256);
  EXPECT_EQ(c % 256, 0u);
  EXPECT_EQ(h.release(b), 208u);
  EXPECT_EQ(h.release(b), 0u);  // double free is refused
  EXPECT_EQ(h.release(a), 112u);
  EXPECT_EQ(h.release(c), 64u);
  EXPECT_EQ(h.free_bytes(), 1024u);
  EXPECT_EQ(h.largest_free(), 1024u);  // everything merged back
}

TEST(HeapAllocator, ExhaustionAndResize) {
  HeapAllocator h(0, 1024);
  std::size_t a = h.allocate(512, 16);
  EXPECT_EQ(h.allocate(1024, 16), HeapAllocator::kFailed);
  EXPECT_TRUE(h.resize_in_place(a, 1000));
  EXPECT_EQ(h.block_size(a), 1008u);
  EXPECT_FALSE(h.resize_in_place(a, 2000));
  EXPECT_TRUE(h.resize_in_place(a, 16));
  EXPECT_EQ(h.free_bytes(), 1024u - 16u);
  std::size_t b = h.allocate(1008, 16);
  EXPECT_EQ(b, 16u);
}

TEST(HeapAllocator, DeterministicUnderRandomWorkload) {
  // Two allocators fed the same calls return the same offsets: the property
  // that makes collective allocation symmetric.
  HeapAllocator x(65536, 65536 + (1 << 20)), y(65536, 65536 + (1 << 20));
  std::mt19937 rng(42);
  std::vector<std::size_t> live;
  for (int i = 0; i < 5000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      std::size_t k = rng() % live.size();
      EXPECT_EQ(x.release(live[k]), y.release(live[k]));
      live.erase(live.begin() + static_cast<long>(k));
    } else {
      std::size_t size = 1 + rng() % 5000, align = std::size_t{16} << (rng() % 6);
      std::size_t p = x.allocate(size, align);
      ASSERT_EQ(p, y.allocate(size, align));
      if (p != HeapAllocator::kFailed) {
        EXPECT_EQ(p % align, 0u);
        live.push_back(p);
      }
    }
  }
  for (auto p : live) x.release(p), y.release(p);
  EXPECT_EQ(x.free_bytes(), std::size_t{1} << 20);
  EXPECT_EQ(x.largest_free(), std::size_t{1} << 20);
}
