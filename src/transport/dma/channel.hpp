// Posting operations to a channel group: the producer half of the queue
// protocol of workspace.hpp, shared by PTO sessions and the SHMEM layer's
// DMA transport. The caller owns the group (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/dma/workspace.hpp"

namespace tilecomm::transport::dma {

enum class Completion { Done, PeerFailed, TimedOut };
const char* to_text(Completion c);  // "the job failed", "TILECOMM_TIMEOUT passed"

/// One operation: `bytes` from src to dst, then optionally the int32 at
/// `signal` set to / increased by `value` once the data is visible. With
/// pe >= 0 the remote side is PE pe of another host: dst (put) or src (get),
/// and the signal, are this PE's symmetric addresses, reached through the
/// engine's remote transport (NOTE [remote copies] in engine.hpp).
struct Op {
  char* dst;
  const char* src;
  std::size_t bytes;
  std::int32_t* signal = nullptr;
  std::int32_t value = 0;
  bool add = false;
  std::int32_t pe = -1;
  bool put = true;
};

/// Appends `op` as operation g.issued + 1 and returns its sequence number;
/// publishes it unless `defer`. Waits while kMaxOutstanding operations are
/// in flight or a ring is full; returns 0 and sets `why` if that wait ends
/// because the job failed or timed out. A failed operation leaves no Signal
/// and no Flag in any ring, and its entries that were not yet handed to the
/// engine are taken back; Copy entries already handed over (a ring filled
/// part-way) still run, before any later operation's entries of their queue.
std::uint64_t post(ChannelGroup& g, const Op& op, bool defer, Completion& why);
/// Makes every staged entry visible to the engine and rings its doorbell.
void publish(ChannelGroup& g);
/// Waits until operations up to `seq` are complete: spins briefly, then
/// sleeps on the group's futex; returns early if the job fails or times out.
Completion wait_complete(ChannelGroup& g, std::uint64_t seq);

}  // namespace tilecomm::transport::dma
