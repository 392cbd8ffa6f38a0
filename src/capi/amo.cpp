// Atomic memory operations: CPU atomics on the target PE's mapped memory,
// or UCX's atomics for a PE routed to UCX (another host, or by
// TILECOMM_TRANSPORTS): capi.hpp's Amo.
//
// Every AMO is sequentially consistent (std::atomic_ref defaults), which
// makes them ordered with each other and with fence/quiet without extra
// work. Through UCX every AMO waits for its reply, so it too is complete
// when it returns. The fetching _nbi forms complete at once and store the
// old value.
#include "capi/capi.hpp"

using namespace tilecomm;
using namespace tilecomm::capi;

namespace {

template <class T>
inline Amo<T> amo(shmem_ctx_t ctx, const T* dest, int pe, const char* call) {
  shmem::rt(call);
  return word(shmem::world_pe(checked_ctx(ctx, call), pe, call), const_cast<T*>(dest), call);
}

template <class T>
inline T compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe, const char* call) {
  (void)amo(ctx, dest, pe, call).compare_exchange_strong(cond, value);
  return cond;  // the old value either way
}

}  // namespace

extern "C" {

#define TC_AMO_EXT(TYPE, NAME)                                                                                     \
  TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE* source, int pe) {                             \
    return amo(ctx, source, pe, __func__).load();                                                                  \
  }                                                                                                                \
  TYPE shmem_##NAME##_atomic_fetch(const TYPE* source, int pe) {                                                  \
    return amo(SHMEM_CTX_DEFAULT, source, pe, __func__).load();                                                    \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE* fetch, const TYPE* source, int pe) {            \
    *fetch = amo(ctx, source, pe, __func__).load();                                                                \
  }                                                                                                                \
  void shmem_##NAME##_atomic_fetch_nbi(TYPE* fetch, const TYPE* source, int pe) {                                 \
    *fetch = amo(SHMEM_CTX_DEFAULT, source, pe, __func__).load();                                                  \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                           \
    amo(ctx, dest, pe, __func__).store(value);                                                                     \
  }                                                                                                                \
  void shmem_##NAME##_atomic_set(TYPE* dest, TYPE value, int pe) {                                                \
    amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).store(value);                                                       \
  }                                                                                                                \
  TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                          \
    return amo(ctx, dest, pe, __func__).exchange(value);                                                           \
  }                                                                                                                \
  TYPE shmem_##NAME##_atomic_swap(TYPE* dest, TYPE value, int pe) {                                               \
    return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).exchange(value);                                             \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE value, int pe) {         \
    *fetch = amo(ctx, dest, pe, __func__).exchange(value);                                                         \
  }                                                                                                                \
  void shmem_##NAME##_atomic_swap_nbi(TYPE* fetch, TYPE* dest, TYPE value, int pe) {                              \
    *fetch = amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).exchange(value);                                           \
  }
SHMEMI_AMO_EXT_TYPES(TC_AMO_EXT)
#undef TC_AMO_EXT

#define TC_AMO(TYPE, NAME)                                                                                         \
  TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE* dest, TYPE cond, TYPE value, int pe) {       \
    return compare_swap(ctx, dest, cond, value, pe, __func__);                                                     \
  }                                                                                                                \
  TYPE shmem_##NAME##_atomic_compare_swap(TYPE* dest, TYPE cond, TYPE value, int pe) {                            \
    return compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe, __func__);                                       \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE cond, TYPE value, \
                                                  int pe) {                                                        \
    *fetch = compare_swap(ctx, dest, cond, value, pe, __func__);                                                   \
  }                                                                                                                \
  void shmem_##NAME##_atomic_compare_swap_nbi(TYPE* fetch, TYPE* dest, TYPE cond, TYPE value, int pe) {           \
    *fetch = compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe, __func__);                                     \
  }                                                                                                                \
  TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE* dest, int pe) {                                 \
    return amo(ctx, dest, pe, __func__).fetch_add(1);                                                              \
  }                                                                                                                \
  TYPE shmem_##NAME##_atomic_fetch_inc(TYPE* dest, int pe) {                                                      \
    return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(1);                                                \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, int pe) {                \
    *fetch = amo(ctx, dest, pe, __func__).fetch_add(1);                                                            \
  }                                                                                                                \
  void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE* fetch, TYPE* dest, int pe) {                                     \
    *fetch = amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(1);                                              \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE* dest, int pe) {                                       \
    amo(ctx, dest, pe, __func__).fetch_add(1);                                                                     \
  }                                                                                                                \
  void shmem_##NAME##_atomic_inc(TYPE* dest, int pe) { amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(1); } \
  TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                     \
    return amo(ctx, dest, pe, __func__).fetch_add(value);                                                          \
  }                                                                                                                \
  TYPE shmem_##NAME##_atomic_fetch_add(TYPE* dest, TYPE value, int pe) {                                          \
    return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(value);                                            \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE value, int pe) {    \
    *fetch = amo(ctx, dest, pe, __func__).fetch_add(value);                                                        \
  }                                                                                                                \
  void shmem_##NAME##_atomic_fetch_add_nbi(TYPE* fetch, TYPE* dest, TYPE value, int pe) {                         \
    *fetch = amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(value);                                          \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                           \
    amo(ctx, dest, pe, __func__).fetch_add(value);                                                                 \
  }                                                                                                                \
  void shmem_##NAME##_atomic_add(TYPE* dest, TYPE value, int pe) {                                                \
    amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(value);                                                   \
  }
SHMEMI_AMO_TYPES(TC_AMO)
#undef TC_AMO

#define TC_AMO_BIT_OP(TYPE, NAME, OP)                                                                              \
  TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                    \
    return amo(ctx, dest, pe, __func__).fetch_##OP(value);                                                         \
  }                                                                                                                \
  TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE* dest, TYPE value, int pe) {                                         \
    return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_##OP(value);                                           \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE value, int pe) { \
    *fetch = amo(ctx, dest, pe, __func__).fetch_##OP(value);                                                       \
  }                                                                                                                \
  void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE* fetch, TYPE* dest, TYPE value, int pe) {                      \
    *fetch = amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_##OP(value);                                         \
  }                                                                                                                \
  void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                          \
    amo(ctx, dest, pe, __func__).fetch_##OP(value);                                                                \
  }                                                                                                                \
  void shmem_##NAME##_atomic_##OP(TYPE* dest, TYPE value, int pe) {                                               \
    amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_##OP(value);                                                  \
  }
#define TC_AMO_BIT(TYPE, NAME) TC_AMO_BIT_OP(TYPE, NAME, and) TC_AMO_BIT_OP(TYPE, NAME, or) TC_AMO_BIT_OP(TYPE, NAME, xor)
SHMEMI_AMO_BIT_TYPES(TC_AMO_BIT)
#undef TC_AMO_BIT
#undef TC_AMO_BIT_OP

// Deprecated AMO names (OpenSHMEM 1.3), still listed by the specification.
#define TC_AMO_OLD(TYPE, NAME)                                                                                     \
  TYPE shmem_##NAME##_cswap(TYPE* dest, TYPE cond, TYPE value, int pe) {                                          \
    return compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe, __func__);                                       \
  }                                                                                                                \
  TYPE shmem_##NAME##_finc(TYPE* dest, int pe) { return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(1); } \
  void shmem_##NAME##_inc(TYPE* dest, int pe) { amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(1); }         \
  TYPE shmem_##NAME##_fadd(TYPE* dest, TYPE value, int pe) {                                                      \
    return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(value);                                            \
  }                                                                                                                \
  void shmem_##NAME##_add(TYPE* dest, TYPE value, int pe) {                                                       \
    amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).fetch_add(value);                                                   \
  }
#define TC_AMO_EXT_OLD(TYPE, NAME)                                                                                 \
  TYPE shmem_##NAME##_fetch(const TYPE* source, int pe) { return amo(SHMEM_CTX_DEFAULT, source, pe, __func__).load(); } \
  void shmem_##NAME##_set(TYPE* dest, TYPE value, int pe) { amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).store(value); } \
  TYPE shmem_##NAME##_swap(TYPE* dest, TYPE value, int pe) {                                                      \
    return amo(SHMEM_CTX_DEFAULT, dest, pe, __func__).exchange(value);                                             \
  }
SHMEMI_OLD_AMO_TYPES(TC_AMO_OLD)
SHMEMI_OLD_AMO_EXT_TYPES(TC_AMO_EXT_OLD)
#undef TC_AMO_OLD
#undef TC_AMO_EXT_OLD

}  // extern "C"
