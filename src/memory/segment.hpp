// Shared-memory segments: anonymous memory files that peers on the host map.
//
// A Segment is a memfd: it has no name in /dev/shm, so nothing can be left
// behind there by any exit, SIGKILL included; the memory goes away with the
// last process that maps it. Peers open it through /proc/<pid>/fd/<fd>,
// which the kernel allows only to the same user (or root), and the file is
// created with mode 0600. Pages are reserved lazily: back() commits a range
// with fallocate, so running out of memory is an error at allocation, never
// a SIGBUS at first touch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tilecomm::memory {

/// What a peer needs to map a segment: serialisable, fixed size.
struct SegmentKey {
  std::int32_t pid = 0;
  std::int32_t fd = -1;
  std::uint64_t size = 0;
  std::uint64_t dev = 0, inode = 0;  // the file's identity: map_peer checks it opened that file
};

class Segment {
 public:
  Segment() = default;
  /// Base alignment of segments mapped at a kernel-chosen address.
  static constexpr std::size_t kBaseAlign = std::size_t{1} << 30;

  /// Creates a segment of `size` bytes (rounded up to pages) and maps it at a
  /// kBaseAlign-aligned address, or at `fixed_addr` (replacing what is there, whose
  /// bytes become the segment's initial contents).
  static Segment create(const char* name, std::size_t size, void* fixed_addr = nullptr);
  /// Maps a peer's segment; throws tilecomm::Error naming the peer on failure.
  static void* map_peer(const SegmentKey& key, int peer_pe);
  static void unmap_peer(void* base, std::size_t size);

  Segment(Segment&& o) noexcept { *this = std::move(o); }
  Segment& operator=(Segment&& o) noexcept;
  ~Segment();

  SegmentKey key() const;
  char* base() const { return base_; }
  std::size_t size() const { return size_; }
  /// Commits [offset, offset+len) so that touching it cannot fault;
  /// returns 0 or the errno of fallocate.
  int back(std::size_t offset, std::size_t len) const;

 private:
  int fd_ = -1;
  char* base_ = nullptr;
  std::size_t size_ = 0;
  bool owns_mapping_ = true;
};

std::size_t page_size();
inline std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace tilecomm::memory
