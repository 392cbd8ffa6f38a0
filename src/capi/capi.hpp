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
/// of `ctx`'s team; checks init, the PE and both ends of the range.
inline char* target(shmem_ctx_t ctx, const void* addr, std::size_t bytes, int pe, const char* call) {
  shmem::rt(call);
  int w = shmem::world_pe(checked_ctx(ctx, call), pe, call);
  char* p = g_runtime->shm().translate(addr, bytes, w);
  if (TC_UNLIKELY(!p)) {
    (void)shmem::remote(addr, w, call);  // a start outside every segment is named as such
    usage_error(call, "the range [%p, +%zu bytes) runs past the end of its symmetric segment", addr, bytes);
  }
  return p;
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
