// The SDMA engine of this PE: threads that run the workspaces' queues.
//
// Contract
// - attach(ws) makes the engine poll the active channel groups of `ws`;
//   detach(ws) stops it and returns once no engine thread looks at `ws`.
// - After publishing entries (Queue::tail), a producer calls doorbell(); an
//   idle engine thread sleeps on a futex and the doorbell wakes it, so an
//   idle engine costs no CPU and a submission is picked up at once.
// - Queue q of group g is always run by the same engine thread, so a queue's
//   entries run in order; different queues run concurrently when there are
//   several threads (TILECOMM_SDMA_THREADS).
// - A Flag entry makes the payload's stores visible (store fence), then
//   stores the completion record and wakes the group's sleeping waiters.
// - A Signal entry runs only when every queue of its group has completed the
//   same operation's payload (their done >= seq), then sets or adds the
//   int32 signal: the remote side sees the signal after the data.
//
// NOTE [remote copies] Put, Get and Signal entries for a PE of another
// host go through the remote transport the runtime gave (set_remote: UCX),
// called from the engine thread (UCX's worker is thread-safe): a Put or a
// Get returns once its source may be reused or its data arrived; a remote
// Signal first quiets the remote transport (the payload is delivered), and
// a Flag after any of them quiets it again, so a completed operation is
// delivered at its target, as a local one is visible. An engine thread that
// waits for UCX progresses the worker, for the peers' requests too. A
// remote operation that fails marks the job failed with the reason (a PE
// or host that went away), so every wait of this PE ends with it.
//
// NOTE [engine hold, for tests] hold(mask) parks the engine threads whose
// bit is set in `mask` and lets the others run; hold(0) releases them all.
// A running thread in `mask` first runs every entry published before the
// call, then parks; a parked thread in `mask` stays parked without running
// anything. hold() returns once every thread has done so (or raises a
// tilecomm::Error if the job failed or 60 s passed; TILECOMM_TIMEOUT does
// not apply, so tests may set it short). Tests use it to put the engine in
// a known state (nothing runs; one queue's thread runs and another does
// not) without depending on timing. A Signal entry waiting for a parked
// thread's queue keeps its own thread from parking (hold() then times
// out): hold both. The hold word is read only on the way to sleep, never
// on a pass that finds work, so it costs the copy path nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/dma/workspace.hpp"
#include "transport/transport.hpp"

namespace tilecomm::transport::dma {

class Engine {
 public:
  /// The process's engine, never destroyed; its threads start at the first attach.
  static Engine& instance();

  void attach(Workspace* ws);
  void detach(Workspace* ws);
  /// Where Put, Get and remote Signal entries go (NOTE [remote copies]);
  /// nullptr: none (set once the UCX transport exists, cleared before it goes).
  void set_remote(Transport* t) { remote_.store(t, std::memory_order_release); }

  /// Wakes sleeping engine threads after entries were published.
  void doorbell() {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the published tails before the sleepers check
    if (sleepers_.load(std::memory_order_relaxed) != 0) wake_engines();
  }
  int threads() const { return static_cast<int>(threads_.size()); }
  /// Stops the threads (process exit); attach restarts them.
  void stop();
  /// shmem_finalize: runs every published entry to completion (unless the
  /// job failed), then stops the threads, before symmetric memory goes away.
  void quiesce();
  /// Test hook (NOTE [engine hold]): parks the threads in `mask`, bit i =
  /// thread i; 0 releases every thread.
  void hold(std::uint32_t mask);

 private:
  static constexpr int kMaxWorkspaces = 64;
  static constexpr int kMaxThreads = 16;  // TILECOMM_SDMA_THREADS; also the mask bits of hold_
  Engine() = default;
  void run(int index);
  void scan(int me, int n, bool& worked, bool& blocked);
  bool run_queue(ChannelGroup& g, std::uint32_t q, bool& blocked);
  void wake_engines();
  void park(int me, std::uint32_t word);
  void remote_entry(Queue& Q, const Entry& e);
  void remote_quiet(Queue& Q);

  std::mutex mutex_;  // attach/detach/start/stop
  std::atomic<Workspace*> spaces_[kMaxWorkspaces] = {};
  std::atomic<int> in_scan_[kMaxWorkspaces] = {};  // engine threads looking at a slot now
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<Transport*> remote_{nullptr};
  std::atomic<std::uint32_t> bell_{0};
  std::atomic<std::uint32_t> sleepers_{0};
  // NOTE [engine hold]: generation << 16 | mask of held threads.
  std::atomic<std::uint32_t> hold_{0};
  std::atomic<std::uint32_t> parked_[kMaxThreads] = {};  // the hold word thread i is parked under; 0 = running
  static_assert(kMaxThreads <= 16, "the hold word has 16 mask bits");
};

}  // namespace tilecomm::transport::dma
