#include "memory/heap.hpp"

#include <iterator>

namespace tilecomm::memory {

HeapAllocator::HeapAllocator(std::size_t begin, std::size_t end) : begin_(begin), end_(end) {
  if (end > begin) {
    free_[begin] = end - begin;
    free_total_ = end - begin;
  }
}

std::size_t HeapAllocator::allocate(std::size_t size, std::size_t align) {
  if (size == 0) size = 1;
  size = (size + 15) & ~std::size_t{15};  // keep every block 16-byte granular
  if (align < 16) align = 16;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    std::size_t start = it->first, len = it->second;
    std::size_t aligned = (start + align - 1) & ~(align - 1);
    if (aligned < start || aligned - start > len || len - (aligned - start) < size) continue;
    free_.erase(it);
    if (aligned > start) free_[start] = aligned - start;
    std::size_t tail = start + len - (aligned + size);
    if (tail) free_[aligned + size] = tail;
    used_[aligned] = size;
    free_total_ -= size;
    return aligned;
  }
  return kFailed;
}

std::size_t HeapAllocator::release(std::size_t offset) {
  auto u = used_.find(offset);
  if (u == used_.end()) return 0;
  std::size_t start = offset, len = u->second, freed = u->second;
  used_.erase(u);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + len) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = len;
  free_total_ += freed;
  return freed;
}

std::size_t HeapAllocator::block_size(std::size_t offset) const {
  auto u = used_.find(offset);
  return u == used_.end() ? 0 : u->second;
}

bool HeapAllocator::resize_in_place(std::size_t offset, std::size_t size) {
  auto u = used_.find(offset);
  if (u == used_.end()) return false;
  if (size == 0) size = 1;
  size = (size + 15) & ~std::size_t{15};
  std::size_t old = u->second;
  if (size == old) return true;
  auto next = free_.find(offset + old);
  if (size < old) {
    std::size_t tail = old - size, tail_len = tail;
    if (next != free_.end()) {
      tail_len += next->second;
      free_.erase(next);
    }
    free_[offset + size] = tail_len;
    u->second = size;
    free_total_ += tail;
    return true;
  }
  std::size_t need = size - old;
  if (next == free_.end() || next->second < need) return false;
  std::size_t rest = next->second - need;
  free_.erase(next);
  if (rest) free_[offset + size] = rest;
  u->second = size;
  free_total_ -= need;
  return true;
}

std::size_t HeapAllocator::largest_free() const {
  std::size_t best = 0;
  for (auto& [off, len] : free_) best = len > best ? len : best;
  return best;
}

}  // namespace tilecomm::memory
