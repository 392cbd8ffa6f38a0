#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/copy.hpp"

namespace {

using tilecomm::copy_bytes;
using tilecomm::copy_streaming;
using tilecomm::detail::kStringCopyMin;

constexpr std::uint8_t kGuard = 0xA5;

std::uint8_t pattern(std::size_t i) { return static_cast<std::uint8_t>((i * 2654435761u) >> 13); }

// Copies n bytes from src_at into dst_at of a page-aligned buffer pair and
// checks every byte of the destination, and the guard bytes around it.
template <class Copy>
void check_copy(Copy copy, std::size_t n, std::size_t src_at, std::size_t dst_at) {
  constexpr std::size_t kPage = 4096, kPad = 128;
  std::vector<std::uint8_t> src_mem(n + src_at + 2 * kPage), dst_mem(n + dst_at + 2 * kPage + kPad, kGuard);
  auto aligned = [&](std::vector<std::uint8_t>& v) {
    const auto p = reinterpret_cast<std::uintptr_t>(v.data());
    return v.data() + ((kPage - p % kPage) % kPage);
  };
  std::uint8_t* src = aligned(src_mem) + src_at;
  std::uint8_t* dst = aligned(dst_mem) + dst_at;
  for (std::size_t i = 0; i < n; ++i) src[i] = pattern(i);
  copy(dst, src, n);
  std::size_t wrong = 0, first = n;
  for (std::size_t i = 0; i < n; ++i)
    if (dst[i] != pattern(i) && wrong++ == 0) first = i;
  EXPECT_EQ(wrong, 0u) << n << " bytes, source at page offset " << src_at << ", destination at " << dst_at
                       << ": first wrong byte " << first;
  for (std::size_t i = 1; i <= 64 && i <= dst_at; ++i) EXPECT_EQ(dst[-static_cast<std::ptrdiff_t>(i)], kGuard);
  for (std::size_t i = 0; i < 64; ++i) ASSERT_EQ(dst[n + i], kGuard) << n << " bytes: byte " << i << " past the end";
}

// Sizes on both sides of each switch of copy_bytes (2048: the aliasing loop;
// kStringCopyMin: the string copy) and offsets that take each branch: the
// destination 1-63 bytes past the source modulo 4096 (NOTE [copy aliasing]),
// and others.
const std::size_t kSizes[] = {0, 1, 63, 64, 65, 2047, 2048, 4097, kStringCopyMin - 1, kStringCopyMin,
                              kStringCopyMin + 1, (1u << 20) + 17, (3u << 20) + 5};
const std::size_t kOffsets[][2] = {{0, 0}, {0, 1}, {0, 16}, {0, 63}, {0, 64}, {16, 0}, {100, 7}, {4095, 0}, {5, 4094}};

TEST(Copy, BytesExactAtEverySizeAndOffset) {
  for (std::size_t n : kSizes)
    for (const auto& o : kOffsets) check_copy(copy_bytes, n, o[0], o[1]);
}

TEST(Copy, StreamingExactAtEverySizeAndOffset) {
  for (std::size_t n : kSizes)
    for (const auto& o : kOffsets) check_copy(copy_streaming, n, o[0], o[1]);
}

}  // namespace
