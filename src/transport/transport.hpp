// The transport interface: how bytes reach another PE's symmetric memory.
//
// Contract
// - A transport serves the PEs for which reachable(pe) is true once their
//   segments are attached. The shmem layer picks one per peer
//   (Runtime::route(), from TILECOMM_TRANSPORTS; see shmem/runtime.hpp) and
//   never asks a transport for an operation its capabilities() deny.
// - Memory: register_segment() makes one of this PE's symmetric segments
//   accessible and returns a key that the shmem layer exchanges through the
//   bootstrap; attach() takes a peer's key for the same segment id.
// - Addresses given to put/get/atomic are symmetric addresses of *this* PE;
//   the transport translates them to the peer's copy.
// - Ordering (NOTE [ordering]): put/get/atomic may complete asynchronously.
//   fence(): puts and AMOs issued before it to one PE are delivered before
//   those issued after it to the same PE. quiet(): every put, AMO and
//   put-with-signal issued before it is complete and visible to all PEs.
//   Completion of a get means the data is in the local buffer.
// - No collectives: those are built above, from these verbs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memory/segment.hpp"

namespace tilecomm::transport {

struct Capabilities {
  bool load_store = false;      // peer memory is mapped: translate() works
  bool remote_atomics = false;  // atomic() is native, not emulated
  bool asynchronous = false;    // put/get may complete after they return
};

// Notify is Add to a word its owner polls (a barrier flag): the owner sees
// it arrive, so quiet and fence need not wait for its delivery.
enum class AtomicOp { Fetch, Set, Swap, CompareSwap, Add, FetchAdd, And, FetchAnd, Or, FetchOr, Xor, FetchXor, Notify };

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual Capabilities capabilities() const noexcept = 0;
  virtual bool reachable(int pe) const noexcept = 0;

  /// Segment `id` of this PE (0 = heap, 1 = data): returns the key peers attach.
  virtual memory::SegmentKey register_segment(int id, const memory::Segment& seg) = 0;
  /// Maps peer `pe`'s segment `id`, whose local twin starts at `local_base`.
  virtual void attach(int pe, int id, const memory::SegmentKey& key) = 0;

  virtual void put(int pe, void* dst, const void* src, std::size_t n) = 0;
  virtual void get(int pe, void* dst, const void* src, std::size_t n) = 0;
  /// The OpenSHMEM _nbi forms: may return before the source may be reused
  /// (put) or before the data has arrived (get); quiet() completes them.
  /// A transport whose put and get already return early need not override.
  virtual void put_nbi(int pe, void* dst, const void* src, std::size_t n) { put(pe, dst, src, n); }
  virtual void get_nbi(int pe, void* dst, const void* src, std::size_t n) { get(pe, dst, src, n); }
  /// Atomic on a naturally aligned 4- or 8-byte integer; operands and result
  /// as unsigned bit patterns of that width.
  virtual std::uint64_t atomic(int pe, AtomicOp op, void* dst, std::size_t width, std::uint64_t operand,
                               std::uint64_t compare) = 0;
  /// put(), then an atomic Set or Add of `signal` at `sig` once the data is visible.
  virtual void put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig,
                          std::uint64_t signal, bool add) = 0;
  virtual void fence() = 0;
  virtual void quiet() = 0;
  /// Drives outstanding operations; a no-op for transports without any.
  virtual void progress() = 0;
};

}  // namespace tilecomm::transport
