// Signals and ordering of the PTO face: the blocking wait of TWAIT, the test
// of TTEST, the write of TNOTIFY, TQUIET and the job barrier of TBARRIER
// (see pto/comm/detail/signal_wait.hpp and pto/comm/p2p.hpp).
#include <pto/comm/detail/signal_wait.hpp>

#include <pto/kernel.hpp>

#include <atomic>
#include <cinttypes>
#include <string>

#include "core/error.hpp"
#include "core/wait.hpp"
#include "shmem/launch.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm::signal {
namespace {

using pto::comm::WaitCmp;

bool satisfies(std::int32_t v, std::int32_t value, WaitCmp cmp) {
  switch (cmp) {
    case WaitCmp::EQ: return v == value;
    case WaitCmp::NE: return v != value;
    case WaitCmp::GT: return v > value;
    case WaitCmp::GE: return v >= value;
    case WaitCmp::LT: return v < value;
    case WaitCmp::LE: return v <= value;
  }
  return false;
}

const char* symbol(WaitCmp cmp) {
  static const char* const kSymbols[] = {"==", "!=", ">", ">=", "<", "<="};
  const auto i = static_cast<unsigned>(cmp);
  return i < 6 ? kSymbols[i] : "?";
}

std::string shape_text(const SignalView& s) {
  return strprintf("shape (%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ") stride (%" PRId64
                   ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ")",
                   s.shape[0], s.shape[1], s.shape[2], s.shape[3], s.shape[4], s.stride[0], s.stride[1],
                   s.stride[2], s.stride[3], s.stride[4]);
}

// Polls between two looks at the sibling blocks of the launch.
constexpr std::uint64_t kLaunchCheckPolls = 64;

}  // namespace

void check_view(const SignalView& s, const char* call) {
  if (!s.base)
    raise(ErrorCode::InvalidUsage, "%s: the signal tensor has no address (null data()); build it over an int32 "
          "in this PE's memory", call);
  if (reinterpret_cast<std::uintptr_t>(s.base) % alignof(std::int32_t) != 0)
    raise(ErrorCode::InvalidUsage, "%s: the signal address %p is not 4-byte aligned; signals are int32 words",
          call, static_cast<void*>(s.base));
  for (int d = 0; d < 5; ++d)
    if (s.shape[d] < 0)
      raise(ErrorCode::InvalidUsage, "%s: the signal tensor at %p has a negative extent in dimension %d: %s",
            call, static_cast<void*>(s.base), d, shape_text(s).c_str());
}

bool test(const SignalView& s, std::int32_t value, WaitCmp cmp, Unsatisfied* first) {
  for (std::int64_t i0 = 0; i0 < s.shape[0]; ++i0)
    for (std::int64_t i1 = 0; i1 < s.shape[1]; ++i1)
      for (std::int64_t i2 = 0; i2 < s.shape[2]; ++i2)
        for (std::int64_t i3 = 0; i3 < s.shape[3]; ++i3) {
          std::int32_t* row = s.base + i0 * s.stride[0] + i1 * s.stride[1] + i2 * s.stride[2] + i3 * s.stride[3];
          for (std::int64_t i4 = 0; i4 < s.shape[4]; ++i4) {
            std::int32_t* p = row + i4 * s.stride[4];
            const std::int32_t v = std::atomic_ref<std::int32_t>(*p).load(std::memory_order_acquire);
            if (satisfies(v, value, cmp)) continue;
            if (first) *first = Unsatisfied{{i0, i1, i2, i3, i4}, p, v};
            return false;
          }
        }
  return true;
}

void wait(const SignalView& s, std::int32_t value, WaitCmp cmp, const char* call) {
  check_view(s, call);
  Unsatisfied first;
  std::uint64_t polls = 0;
  const WaitStatus st = wait_for([&] {
    if (++polls % kLaunchCheckPolls == 0) kernel::check_launch();  // throws when a sibling block failed
    return test(s, value, cmp, &first);
  });
  if (st == WaitStatus::Done) return;
  const std::string where = strprintf(
      "%s: the signal at %p (%s) is waited on until every element is %s %d (WaitCmp::%s); element "
      "[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "] at %p is still %d",
      call, static_cast<void*>(s.base), shape_text(s).c_str(), symbol(cmp), value, pto::comm::to_string(cmp),
      first.index[0], first.index[1], first.index[2], first.index[3], first.index[4],
      static_cast<const void*>(first.address), first.seen);
  if (st == WaitStatus::PeerFailed)
    raise(ErrorCode::Remote, "%s; leaving the wait because the job failed: %s", where.c_str(),
          job_failure().c_str());
  raise(ErrorCode::Timeout, "%s after TILECOMM_TIMEOUT=%g s; check that a TNOTIFY reaches this signal with a value "
        "that satisfies the comparison, or raise TILECOMM_TIMEOUT", where.c_str(), wait_timeout());
}

void notify(std::int32_t* signal, std::int32_t value, pto::comm::NotifyOp op) {
  if (!signal)
    raise(ErrorCode::InvalidUsage, "TNOTIFY: the signal tensor has no address (null data()); build it over the "
          "peer's int32 (shmem_ptr)");
  if (reinterpret_cast<std::uintptr_t>(signal) % alignof(std::int32_t) != 0)
    raise(ErrorCode::InvalidUsage, "TNOTIFY: the signal address %p is not 4-byte aligned; signals are int32 words",
          static_cast<void*>(signal));
  // The data written before the notification must be visible first: order
  // any weakly ordered (non-temporal) stores, then publish with release.
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#endif
  std::atomic_ref<std::int32_t> ref(*signal);
  switch (op) {
    case pto::comm::NotifyOp::Set: ref.store(value, std::memory_order_release); return;
    case pto::comm::NotifyOp::AtomicAdd: ref.fetch_add(value, std::memory_order_acq_rel); return;
  }
  raise(ErrorCode::InvalidUsage, "TNOTIFY: NotifyOp %d is neither AtomicAdd (0) nor Set (1)",
        static_cast<int>(op));
}

void quiet() {
  if (shmem::g_state.load(std::memory_order_acquire) == static_cast<int>(shmem::State::Ready))
    shmem::g_runtime->quiet("TQUIET");  // every transport in use, as shmem_quiet
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void barrier_all(const char* call) {
  if (shmem::g_state.load(std::memory_order_acquire) != static_cast<int>(shmem::State::Ready))
    raise(ErrorCode::InvalidUsage, "%s: OpenSHMEM is not initialized (or already finalized); call shmem_init "
          "before launching the kernel and shmem_finalize after it", call);
  shmem::Runtime& r = *shmem::g_runtime;
  r.quiet(call);
  r.team_sync(*shmem::world_team(), call);
}

}  // namespace tilecomm::signal
