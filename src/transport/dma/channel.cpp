#include "transport/dma/channel.hpp"

#include <algorithm>

#include "core/config.hpp"
#include "core/futex.hpp"
#include "core/wait.hpp"
#include "transport/dma/engine.hpp"

namespace tilecomm::transport::dma {
namespace {
constexpr long kSleepNs = 20 * 1000 * 1000;  // waiters re-check failure and timeout this often
constexpr long kProgressNapNs = 50 * 1000;    // and progress UCX this often, in a job that uses it

/// Waits until queue q has room for `need` more entries, handing the staged
/// entries of every queue to the engine while it is full; false and `why`
/// if that wait ends because the job failed or timed out.
bool room(ChannelGroup& g, std::uint32_t q, std::uint32_t need, Completion& why) {
  Queue& Q = g.queues[q];
  auto fits = [&] { return Q.staged + need - Q.head_seen <= kRingEntries; };
  if (fits()) return true;
  Q.head_seen = Q.head.load(std::memory_order_acquire);
  if (fits()) return true;
  for (std::uint32_t i = 0; i < g.queue_num(); ++i)
    g.queues[i].tail.store(g.queues[i].staged, std::memory_order_release);
  Engine::instance().doorbell();
  WaitStatus st = wait_for([&] {
    Q.head_seen = Q.head.load(std::memory_order_acquire);
    return fits();
  });
  if (st == WaitStatus::Done) return true;
  why = st == WaitStatus::TimedOut ? Completion::TimedOut : Completion::PeerFailed;
  return false;
}

void stage(Queue& Q, const Entry& e) {
  Q.ring[Q.staged % kRingEntries] = e;
  ++Q.staged;
}
}  // namespace

const char* to_text(Completion c) {
  switch (c) {
    case Completion::Done: return "done";
    case Completion::PeerFailed: return "the job failed";
    case Completion::TimedOut: return "TILECOMM_TIMEOUT passed";
  }
  return "?";
}

void publish(ChannelGroup& g) {
  bool any = false;
  for (std::uint32_t q = 0; q < g.queue_num(); ++q) {
    Queue& Q = g.queues[q];
    if (Q.tail.load(std::memory_order_relaxed) != Q.staged) Q.tail.store(Q.staged, std::memory_order_release), any = true;
  }
  g.published = g.issued;
  if (any) Engine::instance().doorbell();
}

Completion wait_complete(ChannelGroup& g, std::uint64_t seq) {
  if (g.complete(seq)) return Completion::Done;
  const std::uint64_t spin = may_spin() ? process_config().spin : 0;
  for (std::uint64_t i = 0; i < spin; ++i) {
    if (g.complete(seq)) return Completion::Done;
    detail::cpu_relax();
  }
  const double timeout = wait_timeout();
  const double deadline = timeout > 0 ? detail::now_seconds() + timeout : 0;
  // Over UCX nothing reaches this PE while nobody progresses its worker
  // (transport/ucx/ucx_transport.hpp): a waiter then sleeps in short naps and
  // progresses between them, so peers' gets and atomics to this PE wait at
  // most a nap for a long copy to finish.
  const bool progresses = detail::g_progress.load(std::memory_order_relaxed) != nullptr;
  for (;;) {
    if (progresses) progress();
    // Announce the sleeper first: the engine wakes only groups with sleepers.
    g.sleepers.fetch_add(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::uint32_t w = g.wake.load(std::memory_order_seq_cst);
    if (!g.complete(seq)) futex_wait(&g.wake, w, progresses ? kProgressNapNs : kSleepNs);
    g.sleepers.fetch_sub(1, std::memory_order_seq_cst);
    if (g.complete(seq)) return Completion::Done;
    if (job_failed()) return Completion::PeerFailed;
    if (deadline > 0 && detail::now_seconds() > deadline) return Completion::TimedOut;
  }
}

std::uint64_t post(ChannelGroup& g, const Op& op, bool defer, Completion& why) {
  const std::uint64_t seq = g.issued + 1;
  // Backpressure: at most kMaxOutstanding operations in flight.
  if (seq > g.completed_seen + kMaxOutstanding) {
    g.completed_seen = g.completed();
    if (seq > g.completed_seen + kMaxOutstanding) {
      publish(g);
      why = wait_complete(g, seq - kMaxOutstanding);
      if (why != Completion::Done) return 0;
      g.completed_seen = seq - kMaxOutstanding;
    }
  }
  // Where this operation starts, to take back what the engine has not been
  // given if a wait for room fails part-way.
  std::uint64_t start[kMaxQueues];
  for (std::uint32_t q = 0; q < g.queue_num(); ++q) start[q] = g.queues[q].staged;
  const std::uint32_t first_queue = g.next_queue;
  bool ok = true;
  for (std::size_t off = 0; ok && off < op.bytes; off += g.block_bytes) {
    std::size_t len = std::min<std::size_t>(g.block_bytes, op.bytes - off);
    const std::uint32_t q = g.next_queue++ % g.queue_num();
    if ((ok = room(g, q, 1, why)))
      stage(g.queues[q], Entry{op.pe < 0 ? EntryOp::Copy : op.put ? EntryOp::Put : EntryOp::Get, 0, seq, op.dst + off,
                               op.src + off, len, nullptr, 0, op.pe});
  }
  // The Signal and the Flags go in together, once every queue has room for
  // its share: an operation that fails has none of them in any ring, so its
  // sequence number completes nothing when the next operation reuses it.
  for (std::uint32_t q = 0; ok && q < g.queue_num(); ++q) ok = room(g, q, q == 0 && op.signal ? 2 : 1, why);
  if (!ok) {
    for (std::uint32_t q = 0; q < g.queue_num(); ++q) {
      Queue& Q = g.queues[q];
      Q.staged = std::max(start[q], Q.tail.load(std::memory_order_relaxed));
    }
    g.next_queue = first_queue;
    return 0;
  }
  // The signal waits (in the engine) for every queue's payload of this operation.
  if (op.signal)
    stage(g.queues[0], Entry{EntryOp::Signal, op.value, seq, nullptr, nullptr, 0, op.signal, op.add, op.pe});
  for (std::uint32_t q = 0; q < g.queue_num(); ++q)
    stage(g.queues[q], Entry{EntryOp::Flag, 0, seq, nullptr, nullptr, 0, nullptr, 0, -1});
  g.issued = seq;
  if (!defer) publish(g);
  return seq;
}

}  // namespace tilecomm::transport::dma
