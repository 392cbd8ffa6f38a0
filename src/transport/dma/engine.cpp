#include "transport/dma/engine.hpp"

#include <sched.h>

#include <cstring>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/futex.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"
#include "transport/shm/shm_transport.hpp"

namespace tilecomm::transport::dma {
namespace {
constexpr long kSleepNs = 200 * 1000 * 1000;  // re-check stop_ this often while asleep
constexpr int kIdleSpins = 2000;              // empty passes before sleeping, with CPUs to spare
constexpr int kIdleYields = 64;               // ... when the PE's threads share one CPU: yield instead
}  // namespace

// Never destroyed: workspace managers at namespace scope finalize during
// static destruction, in any order with this object. shmem_finalize stops
// the threads (quiesce); at exit without it they end with the process.
Engine& Engine::instance() {
  static Engine* engine = new Engine;
  return *engine;
}

void Engine::attach(Workspace* ws) {
  std::lock_guard<std::mutex> lock(mutex_);
  int slot = -1;
  for (int s = 0; s < kMaxWorkspaces; ++s) {
    if (spaces_[s].load() == ws) return;
    if (slot < 0 && spaces_[s].load() == nullptr) slot = s;
  }
  if (slot < 0)
    raise(ErrorCode::InvalidUsage, "SDMA engine: %d workspaces are already in use by this PE; Finalize() a "
          "workspace manager before creating another", kMaxWorkspaces);
  spaces_[slot].store(ws, std::memory_order_release);
  if (threads_.empty()) {
    unsigned long long n = process_config().sdma_threads;
    if (n < 1 || n > kMaxThreads)
      raise(ErrorCode::InvalidUsage, "TILECOMM_SDMA_THREADS=%llu: the SDMA engine runs 1 to %d threads", n,
            kMaxThreads);
    stop_.store(false);
    for (unsigned long long i = 0; i < n; ++i) threads_.emplace_back([this, i, n] {
        (void)n;
        run(static_cast<int>(i));
      });
  }
}

void Engine::detach(Workspace* ws) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int s = 0; s < kMaxWorkspaces; ++s) {
    if (spaces_[s].load() != ws) continue;
    spaces_[s].store(nullptr, std::memory_order_seq_cst);
    while (in_scan_[s].load(std::memory_order_seq_cst) != 0) sched_yield();
  }
}

void Engine::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (threads_.empty()) return;
  stop_.store(true, std::memory_order_seq_cst);
  wake_engines();
  futex_wake_all(&hold_);  // parked threads (NOTE [engine hold])
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void Engine::quiesce() {
  for (int s = 0; s < kMaxWorkspaces; ++s) {
    Workspace* ws = spaces_[s].load();
    if (!ws) continue;
    for (std::uint32_t g = 0; g < ws->groups; ++g)
      for (auto& q : ws->group[g].queues)
        (void)wait_for([&] { return q.head.load(std::memory_order_acquire) == q.tail.load(std::memory_order_acquire); });
  }
  stop();
}

void Engine::hold(std::uint32_t mask) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint32_t word = (((hold_.load() >> 16) + 1) << 16) | (mask & 0xffffu);
  hold_.store(word, std::memory_order_seq_cst);
  futex_wake_all(&hold_);
  wake_engines();
  const int n = static_cast<int>(threads_.size());
  auto settled = [&] {
    for (int i = 0; i < n; ++i)
      if (parked_[i].load(std::memory_order_acquire) != ((mask >> i) & 1u ? word : 0u)) return false;
    return true;
  };
  // Not wait_for: tests that hold the engine set TILECOMM_TIMEOUT short to
  // time out a submission, and a busy host must not fail the hold itself.
  // The bound only turns a hold that can never settle into an error.
  constexpr double kBoundSeconds = 60;
  const double deadline = detail::now_seconds() + kBoundSeconds;
  while (!settled()) {
    const char* why = job_failed() ? "the job failed" : detail::now_seconds() > deadline ? "60 s passed" : nullptr;
    if (why)
      raise(ErrorCode::Timeout, "SDMA engine: hold(0x%x): the engine threads did not %s: %s", mask,
            mask ? "go idle and park" : "leave the hold", why);
    sched_yield();
  }
}

void Engine::park(int me, std::uint32_t word) {
  parked_[me].store(word, std::memory_order_release);
  for (;;) {
    std::uint32_t now = hold_.load(std::memory_order_acquire);
    if (!(now >> me & 1u) || stop_.load()) break;
    if (now != word) parked_[me].store(word = now, std::memory_order_release);  // held again: stays parked
    futex_wait(&hold_, now, kSleepNs);
  }
  parked_[me].store(0, std::memory_order_release);
}

void Engine::wake_engines() {
  bell_.fetch_add(1, std::memory_order_seq_cst);
  futex_wake_all(&bell_);
}

// NOTE [remote copies]
void Engine::remote_entry(Queue& Q, const Entry& e) {
  Transport* r = remote_.load(std::memory_order_acquire);
  const char* what = e.op == EntryOp::Put ? "put" : e.op == EntryOp::Get ? "get" : "signal";
  if (job_failed()) {  // the job's waits end with its reason; nothing more to deliver
    Q.remote_failed = true;
    return;
  }
  try {
    if (!r) raise(ErrorCode::InvalidUsage, "no transport reaches PE %d from this process", e.pe);
    switch (e.op) {
      case EntryOp::Put: r->put(e.pe, e.dst, e.src, e.len); break;
      case EntryOp::Get: r->get(e.pe, e.dst, e.src, e.len); break;
      default:
        r->quiet();  // the payload is delivered before the signal
        r->atomic(e.pe, e.signal_add ? AtomicOp::Add : AtomicOp::Set, e.signal, sizeof *e.signal,
                  static_cast<std::uint32_t>(e.signal_value), 0);
        break;
    }
    Q.remote_unflushed |= e.op != EntryOp::Get;
  } catch (const std::exception& x) {
    Q.remote_failed = true;
    set_job_failed(strprintf("the copy engine's %s of %zu bytes to PE %d failed: %s", what, e.len, e.pe, x.what()));
  }
}

void Engine::remote_quiet(Queue& Q) {
  Q.remote_unflushed = false;
  Transport* r = remote_.load(std::memory_order_acquire);
  if (!r || job_failed()) {
    Q.remote_failed = true;
    if (!r) set_job_failed("the copy engine lost its transport to other hosts with puts not yet delivered");
    return;
  }
  try {
    r->quiet();
  } catch (const std::exception& x) {
    Q.remote_failed = true;
    set_job_failed(strprintf("the copy engine's quiet of its puts to other hosts failed: %s", x.what()));
  }
}

bool Engine::run_queue(ChannelGroup& g, std::uint32_t q, bool& blocked) {
  Queue& Q = g.queues[q];
  std::uint64_t head = Q.head.load(std::memory_order_relaxed);
  const std::uint64_t tail = Q.tail.load(std::memory_order_acquire);
  if (head == tail) return false;
  bool completed = false, gated = false;
  for (; head < tail && !gated; ++head) {
    const Entry& e = Q.ring[head % kRingEntries];
    switch (e.op) {
      case EntryOp::Copy:
        copy_bytes(e.dst, e.src, e.len);  // NOTE [copy aliasing]
        break;
      case EntryOp::Put:
      case EntryOp::Get:
        remote_entry(Q, e);
        break;
      case EntryOp::Signal: {
        for (std::uint32_t o = 0; o < g.queue_num() && !gated; ++o)
          gated = o != q && g.queues[o].done.load(std::memory_order_acquire) < e.seq;
        if (gated) {
          --head;  // run it again once the other queues caught up
          break;
        }
        if (e.pe >= 0) {
          remote_entry(Q, e);
          break;
        }
        ShmTransport::store_fence();
        std::atomic_ref<std::int32_t> sig(*e.signal);
        if (e.signal_add) sig.fetch_add(e.signal_value, std::memory_order_seq_cst);
        else sig.store(e.signal_value, std::memory_order_seq_cst);
        break;
      }
      case EntryOp::Flag:
        if (Q.remote_unflushed) remote_quiet(Q);
        if (Q.remote_failed) break;  // never completes: its waiters end with the job's failure
        ShmTransport::store_fence();
        Q.done.store(e.seq, std::memory_order_seq_cst);
        completed = true;
        break;
    }
  }
  Q.head.store(head, std::memory_order_release);  // frees the ring slots
  // Waiters announce themselves (sleepers) before they read `wake` and
  // re-check `done`: either they see the new done or they are woken here,
  // once per batch rather than once per operation.
  if (completed && g.sleepers.load(std::memory_order_seq_cst) != 0) {
    g.wake.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_all(&g.wake);
  }
  blocked |= gated;
  return true;
}

void Engine::scan(int me, int n, bool& worked, bool& blocked) {
  for (int s = 0; s < kMaxWorkspaces; ++s) {
    Workspace* ws = spaces_[s].load(std::memory_order_acquire);
    if (!ws) continue;
    in_scan_[s].fetch_add(1, std::memory_order_seq_cst);
    if (spaces_[s].load(std::memory_order_seq_cst) == ws) {
      for (std::uint32_t gi = 0; gi < ws->groups; ++gi) {
        ChannelGroup& g = ws->group[gi];
        if (!g.active.load(std::memory_order_acquire)) continue;
        for (std::uint32_t q = 0; q < g.queue_num(); ++q)
          if (static_cast<int>((gi * kMaxQueues + q) % n) == me) worked |= run_queue(g, q, blocked);
      }
    }
    in_scan_[s].fetch_sub(1, std::memory_order_seq_cst);
  }
}

void Engine::run(int me) {
  const int n = static_cast<int>(process_config().sdma_threads);
  // Idle: spin when the PE has CPUs to spare; on a shared CPU yield it to
  // the producer instead, so that it posts a batch before the engine runs.
  const bool spin = may_spin();
  const int idle_limit = spin ? kIdleSpins : kIdleYields;
  int idle = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    bool worked = false, blocked = false;
    scan(me, n, worked, blocked);
    if (worked && !blocked) {
      idle = 0;
      continue;
    }
    if (blocked) {
      sched_yield();
      continue;
    }
    if (++idle < idle_limit) {
      if (spin) detail::cpu_relax();
      else sched_yield();
      continue;
    }
    // Going to sleep: announce it, then look once more, so that a producer
    // either sees a sleeper (and rings) or its entries are found here.
    // A hold (test hook) read here, before the last look, parks the thread
    // once that look finds nothing: every entry published before hold() ran.
    idle = 0;
    std::uint32_t bell = bell_.load(std::memory_order_seq_cst);
    const std::uint32_t held = hold_.load(std::memory_order_seq_cst);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    scan(me, n, worked, blocked);
    if (!worked && !blocked && !stop_.load()) {
      if (held >> me & 1u) park(me, held);
      else futex_wait(&bell_, bell, kSleepNs);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

}  // namespace tilecomm::transport::dma
