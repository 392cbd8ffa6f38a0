// The DMA workspace: submission queues and completion records in memory.
//
// A workspace is what SdmaWorkspaceManager / UrmaWorkspaceManager hand to
// kernels (the `__gm__ uint8_t* workspace` of BuildAsyncSession). It holds
// `groups` channel groups; a session owns one group while it is used. A group
// has up to kMaxQueues submission queues. Each queue is a single-producer
// (the session's thread) single-consumer (one engine thread) ring of entries:
//
//   producer: write ring[staged % N], ++staged; publish: tail = staged (release)
//   engine:   while head < tail (acquire): run ring[head], head++ (release)
//
// An operation of a session gets the next sequence number `seq`. Its payload
// is cut into entries of at most block_bytes, dealt round-robin over the
// group's queues; then every queue receives a Flag entry for `seq`. The
// engine runs a queue's entries in order, and a Flag stores `seq` into the
// queue's `done` word (the completion record) after the payload's stores are
// visible. Operation `seq` and everything before it in the session are
// therefore complete once every queue's `done` is at least `seq`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tilecomm::transport::dma {

constexpr std::uint64_t kWorkspaceMagic = 0x74636f6d6d444d41ull;  // "tcommDMA"
constexpr int kMaxQueues = 8;
constexpr std::uint32_t kRingEntries = 256;
constexpr int kMaxOutstanding = 64;  // operations in flight per session

// Copy moves bytes between addresses of this process (a peer's through its
// mapping). Put and Get reach PE `pe` through the engine's remote transport
// (another host: NOTE [remote copies] in engine.hpp): Put copies src (here)
// to PE pe's copy of the symmetric dst, Get PE pe's copy of the symmetric
// src to dst (here).
enum class EntryOp : std::uint32_t { Copy, Flag, Signal, Put, Get };

/// One cache line, so that the producer writing entry i and the engine
/// reading entry i-1 do not share a line.
struct alignas(64) Entry {
  EntryOp op;
  std::int32_t signal_value;
  std::uint64_t seq;
  void* dst;
  const void* src;
  std::size_t len;
  std::int32_t* signal;  // Signal: the int32 to set or add to, once the payload is visible
  std::uint32_t signal_add;
  std::int32_t pe;       // Put, Get, Signal: the remote PE; -1: this process's memory
};
static_assert(sizeof(Entry) == 64);

struct alignas(64) Queue {
  alignas(64) std::atomic<std::uint64_t> tail{0};  // published by the producer
  std::uint64_t staged = 0;                         // written by the producer, not yet published
  std::uint64_t head_seen = 0;                      // producer's last read of head (saves cache misses)
  alignas(64) std::atomic<std::uint64_t> head{0};   // consumed by the engine
  bool remote_unflushed = false;                    // the engine's: a Put or remote Signal since the last Flag
  bool remote_failed = false;                       // the engine's: a remote entry failed; no Flag completes
  alignas(64) std::atomic<std::uint64_t> done{0};   // completion record: last Flag's seq
  Entry ring[kRingEntries];
};

enum class EngineKind : std::uint32_t { Sdma = 1, Urma = 2 };

struct alignas(64) ChannelGroup {
  // Set by BuildAsyncSession, read by the engine on every pass: a line of its own.
  std::atomic<std::uint32_t> active{0};   // the engine polls this group's queues
  std::atomic<std::uint32_t> queue_num_{1};  // set by the owner, read by the engine
  std::uint32_t queue_num() const { return queue_num_.load(std::memory_order_relaxed); }
  std::uint64_t block_bytes = 0;
  std::int32_t peer = -1;                 // URMA: the session's remote PE; SDMA: -1
  // Producer side (the thread that owns the session), on its own line so
  // that posting does not disturb the engine's reads above.
  alignas(64) std::atomic<std::uint64_t> owner{0};  // the thread that built the session (its only user)
  std::uint64_t issued = 0;               // seq of the last operation submitted (staged or published)
  std::uint64_t published = 0;            // seq of the last operation the engine may see
  std::uint64_t waited = 0;               // seq up to which a Wait succeeded
  std::uint64_t completed_seen = 0;       // producer's last read of completed() (saves cache misses)
  std::uint32_t next_queue = 0;           // round-robin position
  // Sleeping waiters and the engine's wake-ups.
  alignas(64) std::atomic<std::uint32_t> wake{0};  // futex word waiters sleep on
  std::atomic<std::uint32_t> sleepers{0};
  alignas(64) char error[256] = {};       // why the last call of this group failed ("" = none)
  Queue queues[kMaxQueues];

  /// Every operation up to `seq` is complete.
  bool complete(std::uint64_t seq) const {
    for (std::uint32_t q = 0, n = queue_num(); q < n; ++q)
      if (queues[q].done.load(std::memory_order_acquire) < seq) return false;
    return true;
  }
  std::uint64_t completed() const {
    std::uint64_t m = UINT64_MAX;
    for (std::uint32_t q = 0, n = queue_num(); q < n; ++q) {
      std::uint64_t d = queues[q].done.load(std::memory_order_acquire);
      if (d < m) m = d;
    }
    return m;
  }
};

struct Workspace {
  std::uint64_t magic = kWorkspaceMagic;
  EngineKind kind = EngineKind::Sdma;
  std::uint32_t groups = 0;
  std::int32_t pe = 0;     // the PE that made it (workspaces are per PE)
  std::size_t bytes = 0;   // total size, this header included
  // URMA: the symmetric window operations must stay inside (this PE's address).
  std::uintptr_t window = 0;
  std::size_t window_bytes = 0;
  ChannelGroup group[1];   // `groups` of them

  static std::size_t size_for(std::uint32_t groups) {
    return offsetof(Workspace, group) + sizeof(ChannelGroup) * groups;
  }
  /// Maps a workspace of `groups` channel groups and attaches it to the
  /// engine; throws tilecomm::Error.
  static Workspace* create(EngineKind kind, std::uint32_t groups, int pe);
  /// Waits for the operations in flight (returns false if that wait ended
  /// because the job failed or timed out), detaches and unmaps.
  static bool destroy(Workspace* ws);
};

}  // namespace tilecomm::transport::dma
