// Waiting: spin briefly, then yield; never forever.
//
// Every blocking loop in tilecomm goes through wait_for(). It polls the
// condition, spinning with a CPU relax hint for TILECOMM_SPIN polls and then
// calling sched_yield() between polls (every 16th poll unless the host has
// more PEs than CPUs), so that an oversubscribed host keeps moving. Every few
// polls it also looks at the job's failure state (set when a peer PE dies or
// the job is aborted) and at the TILECOMM_TIMEOUT deadline, and returns
// instead of hanging. With a transport that needs it (UCX), every poll also
// progresses that transport. A thread inside a communicator's operator
// also runs that call's WaitWatch, once past the spin (a wait that short
// reads no peer's line), which may end the wait with an error.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace tilecomm {

enum class WaitStatus { Done, PeerFailed, TimedOut };

/// The job-wide failure state of this process: set once, by the thread that
/// watches the rendezvous connection or by the launcher's abort message.
bool job_failed() noexcept;
std::string job_failure();  // "PE 3 (pid 1234) was killed by signal 9", or ""
void set_job_failed(const std::string& reason);

/// A check that a thread runs while it waits, installed for the duration of
/// a call (the communicator's operators: NOTE [call board] in
/// src/comm/board.hpp). check() throws a tilecomm::Error to leave a wait
/// that can never end (a peer in another call, or gone); `waited` is the
/// seconds this wait has lasted.
class WaitWatch {
 public:
  virtual void check(double waited) = 0;

 protected:
  ~WaitWatch() = default;
};

namespace detail {
struct WaitParams {
  std::uint64_t spin = 2000;
  double timeout = 0;  // seconds, 0 = off
  bool oversubscribed = false;  // more PEs than CPUs on this host
};
extern WaitParams g_wait;
extern std::atomic<bool> g_failed;
/// Called on every poll when set: drives a transport whose data lands only
/// while this process calls into it (UCX over TCP).
extern std::atomic<void (*)()> g_progress;
/// The calling thread's watch, or null (WaitWatch).
extern constinit thread_local WaitWatch* t_watch __attribute__((tls_model("initial-exec")));
double now_seconds() noexcept;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}
}  // namespace detail

void configure_waits(std::uint64_t spin, double timeout_seconds, bool oversubscribed = false);
inline double wait_timeout() noexcept { return detail::g_wait.timeout; }
inline bool oversubscribed() noexcept { return detail::g_wait.oversubscribed; }
/// CPUs this process may run on (its affinity mask, read once). With one,
/// a helper thread (the SDMA engine) and the thread waiting for it share
/// that CPU, so neither should spin.
int process_cpus() noexcept;
/// Whether a thread waiting for another thread of this process should spin
/// before it sleeps: more than one CPU and no oversubscription.
inline bool may_spin() noexcept { return !oversubscribed() && process_cpus() > 1; }

/// Drives the transport that needs it (detail::g_progress), for calls that
/// look at memory peers write without waiting (shmem_test, signal_fetch).
inline void progress() noexcept {
  if (auto p = detail::g_progress.load(std::memory_order_relaxed)) p();
}

/// Polls done() until it returns true, the job fails, or the timeout passes.
template <class Done>
WaitStatus wait_for(Done&& done) {
  if (done()) return WaitStatus::Done;
  const std::uint64_t spin = detail::g_wait.spin;
  double deadline = 0, started = 0;
  for (std::uint64_t i = 1;; ++i) {
    progress();
    if (done()) return WaitStatus::Done;
    if (i < spin) {
      detail::cpu_relax();
      if ((i & 255) != 0) continue;
    } else {
      // Past the spin, yield the CPU: at every poll when the host has more
      // PEs than CPUs (the PE waited for may need this one), otherwise at
      // every 16th, since a yield per poll delays seeing the news by the
      // yield's cost (over UCX, 5% of a 20 us get's round trip).
      if (detail::g_wait.oversubscribed || (i & 15) == 0) sched_yield();
      else detail::cpu_relax();
      if ((i & 15) != 0) continue;
    }
    if (detail::g_failed.load(std::memory_order_relaxed)) return done() ? WaitStatus::Done : WaitStatus::PeerFailed;
    if (WaitWatch* w = detail::t_watch; w && i >= spin) {  // past the spin: a short wait costs no peer a miss
      const double now = detail::now_seconds();
      if (started == 0) started = now;
      if (done()) return WaitStatus::Done;
      w->check(now - started);
    }
    if (detail::g_wait.timeout > 0) {
      double now = detail::now_seconds();
      if (deadline == 0) deadline = now + detail::g_wait.timeout;
      else if (now > deadline) return done() ? WaitStatus::Done : WaitStatus::TimedOut;
    }
  }
}

}  // namespace tilecomm
