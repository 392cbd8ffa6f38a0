#include <sched.h>
#include "core/wait.hpp"

#include <mutex>
#include <time.h>

namespace tilecomm {
namespace detail {
WaitParams g_wait;
std::atomic<bool> g_failed{false};
std::atomic<void (*)()> g_progress{nullptr};
constinit thread_local WaitWatch* t_watch __attribute__((tls_model("initial-exec"))) = nullptr;

double now_seconds() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
}  // namespace detail

namespace {
std::mutex g_reason_mutex;
std::string g_reason;
}  // namespace

bool job_failed() noexcept { return detail::g_failed.load(std::memory_order_acquire); }

std::string job_failure() {
  std::lock_guard<std::mutex> lock(g_reason_mutex);
  return g_reason;
}

void set_job_failed(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(g_reason_mutex);
    if (g_reason.empty()) g_reason = reason;
  }
  detail::g_failed.store(true, std::memory_order_release);
}

int process_cpus() noexcept {
  static const int n = [] {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  }();
  return n;
}

void configure_waits(std::uint64_t spin, double timeout_seconds, bool oversubscribed) {
  detail::g_wait.oversubscribed = oversubscribed;
  detail::g_wait.spin = spin;
  detail::g_wait.timeout = timeout_seconds;
}

}  // namespace tilecomm
