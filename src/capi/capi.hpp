// Shared pieces of the C API implementation: checked access to the runtime,
// contexts and symmetric addresses, and the comparison of the wait/test family.
#pragma once

#include <shmem.h>

#include <climits>
#include <cstring>
#include <string>
#include <type_traits>

#include "shmem/runtime.hpp"

// Every C API routine shmem_NAME is weak and also exported as pshmem_NAME
// (the profiling interface), generated from the public headers.
#include "capi/pshmem_aliases.h"

namespace tilecomm::capi {

using shmem::g_runtime;
using shmem::usage_error;

inline tilecomm_ctx* checked_ctx(shmem_ctx_t ctx, const char* call) {
  if (TC_UNLIKELY(ctx == nullptr)) usage_error(call, "the context is SHMEM_CTX_INVALID");
  return ctx;
}

/// The peer address of the `bytes`-long symmetric range at `addr` on PE `pe`
/// of `ctx`'s team; checks init, the PE and both ends of the range. nullptr
/// for a PE of another host (its route is UCX: NOTE [host groups]).
inline char* target(shmem_ctx_t ctx, const void* addr, std::size_t bytes, int pe, const char* call) {
  shmem::rt(call);
  int w = shmem::world_pe(checked_ctx(ctx, call), pe, call);
  char* p = g_runtime->shm().translate(addr, bytes, w);
  if (TC_UNLIKELY(!p)) {
    // A PE of another host: nothing is mapped, the caller's route is UCX.
    if (!g_runtime->local(w) && g_runtime->shm().translate(addr, bytes, g_runtime->my_pe())) return nullptr;
    (void)shmem::remote(addr, w, call);  // a start outside every segment is named as such
    usage_error(call, "the range [%p, +%zu bytes) runs past the end of its symmetric segment", addr, bytes);
  }
  return p;
}

/// An AMO target: world PE `pe`'s copy of my symmetric word `sym`, through
/// the mapping, or through UCX when the PE is routed to it (another host, or
/// TILECOMM_TRANSPORTS=ucx). The members have std::atomic_ref's names and
/// meaning; every operation is sequentially consistent (the memory orders
/// are accepted and not weakened), and through UCX complete on return.
template <class T>
class Amo {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMOs are 4 or 8 bytes wide");
  using Op = transport::AtomicOp;
  using Order = std::memory_order;
  static constexpr Order kSeq = std::memory_order_seq_cst;

 public:
  Amo(int pe, T* sym, T* mapped, const char* call) : sym_(sym), mapped_(mapped), call_(call) {
    if (g_runtime->route(pe) == shmem::Route::Ucx) pe_ = pe;
  }

  T load(Order = kSeq) const { return pe_ < 0 ? ref().load() : value(op(Op::Fetch, 0)); }
  void store(T v, Order = kSeq) const { pe_ < 0 ? ref().store(v) : void(op(Op::Set, bits(v))); }
  T exchange(T v, Order = kSeq) const { return pe_ < 0 ? ref().exchange(v) : value(op(Op::Swap, bits(v))); }
  T fetch_add(T v, Order = kSeq) const { return pe_ < 0 ? ref().fetch_add(v) : value(op(Op::FetchAdd, bits(v))); }
  T fetch_and(T v, Order = kSeq) const { return pe_ < 0 ? ref().fetch_and(v) : value(op(Op::FetchAnd, bits(v))); }
  T fetch_or(T v, Order = kSeq) const { return pe_ < 0 ? ref().fetch_or(v) : value(op(Op::FetchOr, bits(v))); }
  T fetch_xor(T v, Order = kSeq) const { return pe_ < 0 ? ref().fetch_xor(v) : value(op(Op::FetchXor, bits(v))); }
  /// Stores the old value in `expected` either way; true if it was `expected`.
  bool compare_exchange_strong(T& expected, T desired, Order = kSeq) const {
    if (pe_ < 0) return ref().compare_exchange_strong(expected, desired);
    const T old = value(op(Op::CompareSwap, bits(desired), bits(expected)));
    const bool swapped = bits(old) == bits(expected);
    expected = old;
    return swapped;
  }
  bool compare_exchange_weak(T& expected, T desired, Order o = kSeq) const {
    return compare_exchange_strong(expected, desired, o);
  }

 private:
  std::atomic_ref<T> ref() const { return std::atomic_ref<T>(*mapped_); }
  static std::uint64_t bits(T v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
  }
  static T value(std::uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  std::uint64_t op(Op o, std::uint64_t operand, std::uint64_t compare = 0) const {
    try {
      return g_runtime->atomics(pe_).atomic(pe_, o, sym_, sizeof(T), operand, compare);
    } catch (const Error& e) {
      fatal_error(call_, e);
    }
  }

  T* sym_;
  T* mapped_;
  int pe_ = -1;  // the world PE when routed to UCX
  const char* call_;
};

/// The AMO target of world PE `pe`'s copy of my symmetric `sym`, checked
/// (symmetric, aligned).
template <class T>
inline Amo<T> word(int pe, T* sym, const char* call) {
  shmem::rt(call);
  auto* mapped = reinterpret_cast<T*>(g_runtime->shm().translate(sym, sizeof(T), pe));
  if (!mapped) (void)shmem::remote(sym, g_runtime->my_pe(), call);  // not symmetric: ends the job naming it
  if (TC_UNLIKELY(reinterpret_cast<std::uintptr_t>(sym) % sizeof(T) != 0))
    usage_error(call, "address %p is not aligned to %zu bytes", static_cast<const void*>(sym), sizeof(T));
  return Amo<T>(pe, sym, mapped, call);
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) return strprintf("%Lg", static_cast<long double>(v));
  else if constexpr (std::is_signed_v<T>) return std::to_string(static_cast<long long>(v));
  else return std::to_string(static_cast<unsigned long long>(v));
}

inline const char* cmp_text(int cmp) {
  switch (cmp) {
    case SHMEM_CMP_EQ: return "==";
    case SHMEM_CMP_NE: return "!=";
    case SHMEM_CMP_GT: return ">";
    case SHMEM_CMP_GE: return ">=";
    case SHMEM_CMP_LT: return "<";
    case SHMEM_CMP_LE: return "<=";
  }
  return "?";
}

inline void check_cmp(int cmp, const char* call) {
  if (TC_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE))
    usage_error(call, "comparison %d is not one of SHMEM_CMP_EQ/NE/GT/GE/LT/LE", cmp);
}

template <class T>
inline bool compare(T v, int cmp, T ref) {
  switch (cmp) {
    case SHMEM_CMP_EQ: return v == ref;
    case SHMEM_CMP_NE: return v != ref;
    case SHMEM_CMP_GT: return v > ref;
    case SHMEM_CMP_GE: return v >= ref;
    case SHMEM_CMP_LT: return v < ref;
    case SHMEM_CMP_LE: return v <= ref;
  }
  return false;
}

/// Acquire load of a variable that other PEs update.
template <class T>
inline T load(T* p) {
  return std::atomic_ref<T>(*p).load(std::memory_order_acquire);
}

}  // namespace tilecomm::capi
