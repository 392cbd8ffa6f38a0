// Point-to-point synchronization, signals, ordering, barriers and locks.
#include <climits>
#include <cstdint>

#include "capi/capi.hpp"
#include "shmem/launch.hpp"

using namespace tilecomm;
using namespace tilecomm::capi;

namespace {

template <class T>
[[noreturn]] void wait_error(WaitStatus st, const char* call, const T* ivar, int cmp, T ref) {
  shmem::wait_failed(st, call, ivar, strprintf("value %s %s", cmp_text(cmp), show(ref).c_str()),
                     show(load(const_cast<T*>(ivar))));
}

// Returns the value that satisfied the comparison (not a later re-read).
template <class T>
T wait_until(T* ivar, int cmp, T ref, const char* call) {
  shmem::rt(call);
  check_cmp(cmp, call);
  shmem::check_symmetric(ivar, call);
  T seen{};
  WaitStatus st = wait_for([&] { return compare(seen = load(ivar), cmp, ref); });
  if (st != WaitStatus::Done) wait_error(st, call, ivar, cmp, ref);
  return seen;
}

// NOTE [fair any] A series of shmem_*_test_any / wait_until_any calls must
// eventually return every index that satisfies the condition, even when the
// caller leaves satisfied elements in the test set. Each thread remembers,
// per ivars array, the element after the one it last returned and starts the
// next scan there. The memory is a small direct-mapped table per thread, so
// calls under SHMEM_THREAD_MULTIPLE never share it; the slot is a
// multiplicative hash of the address (allocations are 16- or 64-byte
// aligned, so low bits alone would put most arrays in one slot). An array
// that finds its slot taken by another one starts at a pseudo-random
// element, so two arrays that share a slot and are polled in turn still
// see every index, with probability 1, instead of always the first.
std::size_t& any_cursor(const void* ivars) {
  struct Entry {
    const void* ivars;
    std::size_t next;
  };
  constexpr int kSlotBits = 6;
  thread_local Entry table[1 << kSlotBits];
  thread_local std::uint64_t rng = 0x2545F4914F6CDD1Dull ^ reinterpret_cast<std::uintptr_t>(&rng);
  const std::uint64_t key = reinterpret_cast<std::uintptr_t>(ivars);
  Entry& e = table[(key * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits)];
  if (e.ivars != ivars) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;  // xorshift64
    e = {ivars, static_cast<std::size_t>(rng >> 1)};      // any() takes it modulo the size
  }
  return e.next;
}

// The element-set forms. `refs` is either one value (stride 0) or a vector.
template <class T>
struct Set {
  T* ivars;
  std::size_t n;
  const int* status;
  int cmp;
  const T* refs;
  std::size_t ref_stride;

  bool included(std::size_t i) const { return !status || status[i] == 0; }
  bool holds(std::size_t i) const { return compare(load(ivars + i), cmp, refs[i * ref_stride]); }
  bool all() const {
    for (std::size_t i = 0; i < n; ++i)
      if (included(i) && !holds(i)) return false;
    return true;
  }
  // An element of the test set that satisfies the condition, scanning from
  // the one after the last returned (NOTE [fair any]); SIZE_MAX if none.
  std::size_t any() const {
    if (n == 0) return SIZE_MAX;
    std::size_t& next = any_cursor(ivars);
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t i = (next + k) % n;
      if (included(i) && holds(i)) {
        next = i + 1;
        return i;
      }
    }
    return SIZE_MAX;
  }
  std::size_t some(std::size_t* indices) const {
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (included(i) && holds(i)) indices[k++] = i;
    return k;
  }
  bool none_included() const {
    for (std::size_t i = 0; i < n; ++i)
      if (included(i)) return false;
    return true;
  }
  void check(const char* call) const {
    shmem::rt(call);
    check_cmp(cmp, call);
    progress();  // a test_* call may be all that lets UCX deliver the peers' updates
    if (n) shmem::check_symmetric(ivars, call);
  }
  // Blocks until pred(); a failure names the first included element not yet satisfied.
  template <class Pred>
  void block(Pred pred, const char* call) const {
    WaitStatus st = wait_for(pred);
    if (st == WaitStatus::Done) return;
    for (std::size_t i = 0; i < n; ++i)
      if (included(i) && !holds(i)) wait_error(st, call, ivars + i, cmp, refs[i * ref_stride]);
    wait_error(st, call, ivars, cmp, refs[0]);
  }
};

}  // namespace

extern "C" {

#define TC_SYNC(TYPE, NAME)                                                                                       \
  void shmem_##NAME##_wait_until(TYPE* ivar, int cmp, TYPE cmp_value) { wait_until(ivar, cmp, cmp_value, __func__); } \
  void shmem_##NAME##_wait(TYPE* ivar, TYPE cmp_value) { wait_until(ivar, SHMEM_CMP_NE, cmp_value, __func__); }  \
  int shmem_##NAME##_test(TYPE* ivar, int cmp, TYPE cmp_value) {                                                 \
    shmem::rt(__func__);                                                                                          \
    check_cmp(cmp, __func__);                                                                                     \
    shmem::check_symmetric(ivar, __func__);                                                                       \
    progress();                                                                                                   \
    return compare(load(ivar), cmp, cmp_value) ? 1 : 0;                                                           \
  }                                                                                                               \
  void shmem_##NAME##_wait_until_all(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {   \
    Set<TYPE> s{ivars, nelems, status, cmp, &cmp_value, 0};                                                       \
    s.check(__func__);                                                                                            \
    s.block([&] { return s.all(); }, __func__);                                                                   \
  }                                                                                                               \
  void shmem_##NAME##_wait_until_all_vector(TYPE* ivars, size_t nelems, const int* status, int cmp,              \
                                            TYPE* cmp_values) {                                                   \
    Set<TYPE> s{ivars, nelems, status, cmp, cmp_values, 1};                                                       \
    s.check(__func__);                                                                                            \
    s.block([&] { return s.all(); }, __func__);                                                                   \
  }                                                                                                               \
  size_t shmem_##NAME##_wait_until_any(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) { \
    Set<TYPE> s{ivars, nelems, status, cmp, &cmp_value, 0};                                                       \
    s.check(__func__);                                                                                            \
    if (s.none_included()) return SIZE_MAX;                                                                       \
    std::size_t found = SIZE_MAX;                                                                                 \
    s.block([&] { return (found = s.any()) != SIZE_MAX; }, __func__);                                            \
    return found;                                                                                                 \
  }                                                                                                               \
  size_t shmem_##NAME##_wait_until_any_vector(TYPE* ivars, size_t nelems, const int* status, int cmp,            \
                                              TYPE* cmp_values) {                                                 \
    Set<TYPE> s{ivars, nelems, status, cmp, cmp_values, 1};                                                       \
    s.check(__func__);                                                                                            \
    if (s.none_included()) return SIZE_MAX;                                                                       \
    std::size_t found = SIZE_MAX;                                                                                 \
    s.block([&] { return (found = s.any()) != SIZE_MAX; }, __func__);                                            \
    return found;                                                                                                 \
  }                                                                                                               \
  size_t shmem_##NAME##_wait_until_some(TYPE* ivars, size_t nelems, size_t* indices, const int* status, int cmp, \
                                        TYPE cmp_value) {                                                         \
    Set<TYPE> s{ivars, nelems, status, cmp, &cmp_value, 0};                                                       \
    s.check(__func__);                                                                                            \
    if (s.none_included()) return 0;                                                                              \
    std::size_t k = 0;                                                                                            \
    s.block([&] { return (k = s.some(indices)) != 0; }, __func__);                                               \
    return k;                                                                                                     \
  }                                                                                                               \
  size_t shmem_##NAME##_wait_until_some_vector(TYPE* ivars, size_t nelems, size_t* indices, const int* status,   \
                                               int cmp, TYPE* cmp_values) {                                       \
    Set<TYPE> s{ivars, nelems, status, cmp, cmp_values, 1};                                                       \
    s.check(__func__);                                                                                            \
    if (s.none_included()) return 0;                                                                              \
    std::size_t k = 0;                                                                                            \
    s.block([&] { return (k = s.some(indices)) != 0; }, __func__);                                               \
    return k;                                                                                                     \
  }                                                                                                               \
  int shmem_##NAME##_test_all(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {          \
    Set<TYPE> s{ivars, nelems, status, cmp, &cmp_value, 0};                                                       \
    s.check(__func__);                                                                                            \
    return s.all() ? 1 : 0;                                                                                       \
  }                                                                                                               \
  int shmem_##NAME##_test_all_vector(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE* cmp_values) { \
    Set<TYPE> s{ivars, nelems, status, cmp, cmp_values, 1};                                                       \
    s.check(__func__);                                                                                            \
    return s.all() ? 1 : 0;                                                                                       \
  }                                                                                                               \
  size_t shmem_##NAME##_test_any(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {       \
    Set<TYPE> s{ivars, nelems, status, cmp, &cmp_value, 0};                                                       \
    s.check(__func__);                                                                                            \
    return s.any();                                                                                               \
  }                                                                                                               \
  size_t shmem_##NAME##_test_any_vector(TYPE* ivars, size_t nelems, const int* status, int cmp,                  \
                                        TYPE* cmp_values) {                                                       \
    Set<TYPE> s{ivars, nelems, status, cmp, cmp_values, 1};                                                       \
    s.check(__func__);                                                                                            \
    return s.any();                                                                                               \
  }                                                                                                               \
  size_t shmem_##NAME##_test_some(TYPE* ivars, size_t nelems, size_t* indices, const int* status, int cmp,       \
                                  TYPE cmp_value) {                                                               \
    Set<TYPE> s{ivars, nelems, status, cmp, &cmp_value, 0};                                                       \
    s.check(__func__);                                                                                            \
    return s.some(indices);                                                                                       \
  }                                                                                                               \
  size_t shmem_##NAME##_test_some_vector(TYPE* ivars, size_t nelems, size_t* indices, const int* status, int cmp, \
                                         TYPE* cmp_values) {                                                      \
    Set<TYPE> s{ivars, nelems, status, cmp, cmp_values, 1};                                                       \
    s.check(__func__);                                                                                            \
    return s.some(indices);                                                                                       \
  }
SHMEMI_SYNC_TYPES(TC_SYNC)
#undef TC_SYNC

void shmem_wait(long* ivar, long cmp_value) { wait_until(ivar, SHMEM_CMP_NE, cmp_value, "shmem_wait"); }

// ---- signals -----------------------------------------------------------------------

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) {
  shmem::rt("shmem_signal_fetch");
  shmem::check_symmetric(sig_addr, "shmem_signal_fetch");
  progress();
  return load(const_cast<uint64_t*>(sig_addr));
}

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  return wait_until(sig_addr, cmp, cmp_value, "shmem_signal_wait_until");
}

// ---- ordering ------------------------------------------------------------------------

void shmem_fence(void) { shmem::rt("shmem_fence").fence("shmem_fence"); }
// On SHMEM_CTX_INVALID, ctx_fence and ctx_quiet perform no operation (1.5).
void shmem_ctx_fence(shmem_ctx_t ctx) {
  auto& r = shmem::rt("shmem_ctx_fence");
  if (ctx != SHMEM_CTX_INVALID) r.fence("shmem_ctx_fence");
}
void shmem_quiet(void) { shmem::rt("shmem_quiet").quiet("shmem_quiet"); }
void shmem_ctx_quiet(shmem_ctx_t ctx) {
  auto& r = shmem::rt("shmem_ctx_quiet");
  if (ctx != SHMEM_CTX_INVALID) r.quiet("shmem_ctx_quiet");
}

// ---- barrier and sync ----------------------------------------------------------------

void shmem_barrier_all(void) {
  auto& r = shmem::rt("shmem_barrier_all");
  r.quiet("shmem_barrier_all");
  r.team_sync(*shmem::world_team(), "shmem_barrier_all");
}

void shmem_sync_all(void) { shmem::rt("shmem_sync_all").team_sync(*shmem::world_team(), "shmem_sync_all"); }

int shmem_team_sync(shmem_team_t team) {
  auto& r = shmem::rt("shmem_team_sync");
  if (!team) return -1;
  r.team_sync(*team, "shmem_team_sync");
  return 0;
}

}  // extern "C"

namespace {

// NOTE [active-set barrier] The deprecated shmem_barrier/shmem_sync take an
// active set (start, 2^log_stride, size) and a pSync array that must hold
// SHMEM_SYNC_VALUE on entry and does so again on return. The first PE of the
// set is the root: pSync[0] on the root counts arrivals; pSync[1] on each
// other PE is its release flag, which it clears after seeing it. The root
// clears its counter before it releases anyone, so the same pSync can be
// reused by the next call at once.
void active_set_sync(int start, int log_stride, int size, long* psync, const char* call) {
  auto& r = shmem::rt(call);
  shmem::active_set_member(start, log_stride, size, call);
  const int stride = 1 << log_stride;
  const int me = r.my_pe();
  if (size == 1) return;
  std::atomic_ref<long> mine_count(*psync), mine_release(psync[1]);
  if (me == start) {
    WaitStatus st = wait_for([&] { return mine_count.load(std::memory_order_acquire) == size - 1; });
    if (st != WaitStatus::Done)
      shmem::wait_failed(st, call, psync, strprintf("%d arrivals", size - 1), std::to_string(mine_count.load()));
    mine_count.store(0, std::memory_order_relaxed);
    for (int i = 1; i < size; ++i) word(start + i * stride, psync + 1, call).store(1);
  } else {
    word(start, psync, call).fetch_add(1);
    WaitStatus st = wait_for([&] { return mine_release.load(std::memory_order_acquire) != 0; });
    if (st != WaitStatus::Done)
      shmem::wait_failed(st, call, psync + 1, strprintf("release from PE %d", start), "none");
    mine_release.store(0, std::memory_order_relaxed);
  }
}

// NOTE [locks] A lock is a symmetric long; the copy on PE 0 is the lock. Its
// upper 32 bits hand out tickets, its lower 32 bits name the ticket being
// served (a ticket lock: fair, FIFO, one atomic to take a ticket). Zero is
// the unlocked state, as the specification requires of a fresh lock.
constexpr int kLockHome = 0;
constexpr std::uint64_t kTicket = std::uint64_t{1} << 32;

Amo<std::uint64_t> lock_word(long* lock, const char* call) {
  return word(kLockHome, reinterpret_cast<std::uint64_t*>(lock), call);
}

}  // namespace

extern "C" {

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  shmem::rt("shmem_barrier").quiet("shmem_barrier");
  active_set_sync(PE_start, logPE_stride, PE_size, pSync, "shmem_barrier");
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  active_set_sync(PE_start, logPE_stride, PE_size, pSync, "shmem_sync");
}

void shmem_set_lock(long* lock) {
  auto word = lock_word(lock, "shmem_set_lock");
  std::uint32_t ticket = static_cast<std::uint32_t>(word.fetch_add(kTicket, std::memory_order_acq_rel) >> 32);
  WaitStatus st = wait_for([&] { return static_cast<std::uint32_t>(word.load(std::memory_order_acquire)) == ticket; });
  if (st != WaitStatus::Done)
    shmem::wait_failed(st, "shmem_set_lock", lock, strprintf("ticket %u to be served", ticket),
                       strprintf("ticket %u served", static_cast<std::uint32_t>(word.load())));
}

int shmem_test_lock(long* lock) {
  auto word = lock_word(lock, "shmem_test_lock");
  progress();  // a loop of test_lock may be all that lets UCX deliver the peers' operations
  std::uint64_t v = word.load(std::memory_order_acquire);
  if (static_cast<std::uint32_t>(v >> 32) != static_cast<std::uint32_t>(v)) return 1;  // held or queued
  return word.compare_exchange_strong(v, v + kTicket, std::memory_order_acq_rel) ? 0 : 1;
}

void shmem_clear_lock(long* lock) {
  auto word = lock_word(lock, "shmem_clear_lock");
  shmem::g_runtime->quiet("shmem_clear_lock");  // the critical section's stores first
  std::uint64_t v = word.load(std::memory_order_relaxed);
  std::uint64_t next;
  do {
    next = (v & ~std::uint64_t{0xffffffff}) | static_cast<std::uint32_t>(v + 1);
  } while (!word.compare_exchange_weak(v, next, std::memory_order_acq_rel));
}

}  // extern "C"
