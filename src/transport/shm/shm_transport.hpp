// The shared-memory transport (MTE: the calling thread loads and stores).
//
// Every PE's segments are mapped by every PE of the host, so a put is a
// memcpy into the peer's mapping, a get the reverse, and an AMO a CPU atomic
// instruction on the peer's memory. Operations complete before they return.
//
// NOTE [ordering] on shared memory: stores become visible in program order on
// x86-64 (TSO), except the non-temporal stores that memcpy uses for large
// copies, and the stores within one `rep movsb` (NOTE [string copies]), which
// may land in any order among themselves. fence() is therefore a store fence
// (sfence), which orders those too; quiet() is a full fence (mfence), which also orders later loads. Both
// are also compiler barriers. On other CPUs both are full fences.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/copy.hpp"
#include "transport/transport.hpp"

namespace tilecomm::transport {

class ShmTransport final : public Transport {
 public:
  static constexpr int kSegments = 2;

  ShmTransport(int my_pe, int n_pes);
  ~ShmTransport() override;

  std::string_view name() const noexcept override { return "shm"; }
  Capabilities capabilities() const noexcept override { return {true, true, false}; }
  /// PEs of this host once attached (and this PE).
  bool reachable(int pe) const noexcept override { return pe >= 0 && pe < n_pes_ && peers_[0][pe]; }

  memory::SegmentKey register_segment(int id, const memory::Segment& seg) override;
  void attach(int pe, int id, const memory::SegmentKey& key) override;

  void put(int pe, void* dst, const void* src, std::size_t n) override { copy_bytes(translate(dst, pe), src, n); }
  void get(int pe, void* dst, const void* src, std::size_t n) override { copy_bytes(dst, translate(src, pe), n); }
  std::uint64_t atomic(int pe, AtomicOp op, void* dst, std::size_t width, std::uint64_t operand,
                       std::uint64_t compare) override;
  void put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig, std::uint64_t signal,
                  bool add) override;
  void fence() override { store_fence(); }
  void quiet() override { full_fence(); }
  void progress() override {}

  /// The address of symmetric address `addr` in PE `pe`'s copy, or nullptr
  /// if `addr` is in no symmetric segment or `pe` is not mapped (another host).
  char* translate(const void* addr, int pe) const noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    for (int s = 0; s < kSegments; ++s) {
      std::uintptr_t off = a - local_[s].base;
      if (off < local_[s].size) return peers_[s][pe] ? peers_[s][pe] + off : nullptr;
    }
    return nullptr;
  }
  /// translate() for the whole range [addr, addr + n): nullptr unless the
  /// range lies inside one symmetric segment.
  char* translate(const void* addr, std::size_t n, int pe) const noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    for (int s = 0; s < kSegments; ++s) {
      std::uintptr_t off = a - local_[s].base;
      if (off < local_[s].size) return n <= local_[s].size - off && peers_[s][pe] ? peers_[s][pe] + off : nullptr;
    }
    return nullptr;
  }
  bool is_symmetric(const void* addr) const noexcept { return translate(addr, my_pe_) != nullptr; }

  /// A name of the symmetric range [addr, addr + n) that every PE shares:
  /// the segment and the offset in it (never 0), or 0 if the range is not
  /// in one symmetric segment. symmetric_address() turns it back into this
  /// PE's address.
  std::uint64_t symmetric_id(const void* addr, std::size_t n) const noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    for (int s = 0; s < kSegments; ++s) {
      std::uintptr_t off = a - local_[s].base;
      if (off < local_[s].size) return n <= local_[s].size - off ? (static_cast<std::uint64_t>(s + 1) << 56 | off) : 0;
    }
    return 0;
  }
  char* symmetric_address(std::uint64_t id) const noexcept {
    const int s = static_cast<int>(id >> 56) - 1;
    return s >= 0 && s < kSegments ? reinterpret_cast<char*>(local_[s].base) + (id & ((std::uint64_t{1} << 56) - 1))
                                   : nullptr;
  }

  /// Where a mapped address lies: the PE whose symmetric segment (as mapped
  /// in this process) contains `addr`, and the bytes from `addr` to that
  /// segment's end; {-1, 0} for an address in no PE's segment.
  struct Owner {
    int pe;
    std::size_t room;
  };
  Owner owner(const void* addr) const noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    for (int s = 0; s < kSegments; ++s)
      for (int pe = 0; pe < n_pes_; ++pe) {
        std::uintptr_t off = a - reinterpret_cast<std::uintptr_t>(peers_[s][pe]);
        if (peers_[s][pe] && off < local_[s].size) return {pe, local_[s].size - off};
      }
    return {-1, 0};
  }
  /// Bytes from symmetric address `addr` to the end of its segment (0: not symmetric).
  std::size_t room(const void* addr) const noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    for (int s = 0; s < kSegments; ++s) {
      std::uintptr_t off = a - local_[s].base;
      if (off < local_[s].size) return local_[s].size - off;
    }
    return 0;
  }

  static void store_fence() noexcept {
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  }
  static void full_fence() noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }

 private:
  struct Local {
    std::uintptr_t base = 0;
    std::size_t size = 0;
  };
  int my_pe_, n_pes_;
  Local local_[kSegments];
  std::vector<char*> peers_[kSegments];
};

}  // namespace tilecomm::transport
