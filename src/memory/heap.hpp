// The symmetric heap allocator: offsets within one PE's heap segment.
//
// It is deterministic: the same sequence of calls gives the same offsets on
// every PE, which is what makes collective allocation symmetric. First fit
// over an address-ordered free list, with neighbours merged on free.
#pragma once

#include <cstddef>
#include <map>

namespace tilecomm::memory {

class HeapAllocator {
 public:
  static constexpr std::size_t kFailed = ~std::size_t{0};

  HeapAllocator() = default;
  HeapAllocator(std::size_t begin, std::size_t end);

  /// Offset of a new block of `size` bytes aligned to `align` (a power of
  /// two), or kFailed when no free range fits.
  std::size_t allocate(std::size_t size, std::size_t align);
  /// Frees the block at `offset`; returns its size, or 0 if no block starts there.
  std::size_t release(std::size_t offset);
  /// Size of the block at `offset`, or 0 if none starts there.
  std::size_t block_size(std::size_t offset) const;
  /// Grows or shrinks the block at `offset` in place if the free space after
  /// it allows; returns false otherwise (the block is unchanged).
  bool resize_in_place(std::size_t offset, std::size_t size);

  std::size_t capacity() const { return end_ - begin_; }
  std::size_t free_bytes() const { return free_total_; }
  std::size_t largest_free() const;

 private:
  std::size_t begin_ = 0, end_ = 0, free_total_ = 0;
  std::map<std::size_t, std::size_t> free_;  // offset -> size
  std::map<std::size_t, std::size_t> used_;  // offset -> size
};

}  // namespace tilecomm::memory
