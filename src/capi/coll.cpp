// The OpenSHMEM collectives other than barrier and sync: broadcast, collect,
// fcollect, alltoall, alltoalls and the reductions, in the team forms of 1.5
// and in the deprecated active-set forms.
//
// Each routine only describes its call in a coll::Args and hands it to the
// collective library (src/coll/coll.hpp): synchronisation, the choice of
// algorithm, argument checks and their messages all live there, so every
// routine here is one line. The typed routines come from the type lists of
// <tilecomm/shmem_types.h>, the same lists <shmem.h> declares them from.
//
// Element sizes: sizeof(TYPE) for the typed forms, 1 byte for the mem forms,
// 4 or 8 for the sized active-set forms (whose dtype is then the unsigned
// integer of that width, so that elem == dtype_size(dtype) holds for every
// call). The complex types are std::complex here; <shmem.h> declares them as
// float/double _Complex for C, which has the same layout.
//
// The active-set reductions accept pWrk and never touch it: the library keeps
// its own scratch space. Their nreduce is an int, and a negative one is a
// usage error.
#include "capi/capi.hpp"
#include "coll/coll.hpp"

using namespace tilecomm;
using namespace tilecomm::capi;
using coll::Args;
using coll::DType;
using coll::Kind;
using coll::Op;

namespace {

/// A call on `count` elements of T (strides and root left at their defaults).
template <class T>
Args typed(Kind kind, T* dest, const T* source, std::size_t count, const char* call) {
  return Args{.kind = kind, .dest = dest, .source = source, .count = count, .elem = sizeof(T),
              .dtype = coll::dtype_of<T>(), .call = call};
}

/// A call on untyped words of `bytes` bytes each: 1 (mem forms), 4 or 8.
Args words(Kind kind, void* dest, const void* source, std::size_t count, std::size_t bytes, const char* call) {
  DType t = bytes == 8 ? DType::UInt64 : bytes == 4 ? DType::UInt32 : DType::UInt8;
  return Args{.kind = kind, .dest = dest, .source = source, .count = count, .elem = bytes, .dtype = t, .call = call};
}

Args with_root(Args a, int root, bool root_dest) {
  a.root = root;
  a.root_dest = root_dest;
  return a;
}

Args with_strides(Args a, std::ptrdiff_t dst, std::ptrdiff_t sst) {
  a.dst_stride = dst;
  a.src_stride = sst;
  return a;
}

template <class T>
Args reduce(Op op, T* dest, const T* source, std::size_t nreduce, const char* call) {
  Args a = typed(Kind::Reduce, dest, source, nreduce, call);
  a.op = op;
  return a;
}

template <class T>
void to_all(Op op, T* dest, const T* source, int nreduce, int start, int log_stride, int size, long* psync,
            const char* call) {
  if (TC_UNLIKELY(nreduce < 0)) usage_error(call, "nreduce is %d: the number of reductions cannot be negative", nreduce);
  coll::run_active_set(start, log_stride, size, psync, reduce(op, dest, source, static_cast<std::size_t>(nreduce), call));
}

}  // namespace

extern "C" {

// ---- team forms, every RMA type ----------------------------------------------------

#define TC_COLL(TYPE, NAME)                                                                                       \
  int shmem_##NAME##_broadcast(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems, int PE_root) {  \
    return coll::run(team, with_root(typed(Kind::Broadcast, dest, source, nelems, __func__), PE_root, true));    \
  }                                                                                                               \
  int shmem_##NAME##_collect(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems) {                 \
    return coll::run(team, typed(Kind::Collect, dest, source, nelems, __func__));                                 \
  }                                                                                                               \
  int shmem_##NAME##_fcollect(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems) {                \
    return coll::run(team, typed(Kind::Fcollect, dest, source, nelems, __func__));                                \
  }                                                                                                               \
  int shmem_##NAME##_alltoall(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems) {                \
    return coll::run(team, typed(Kind::Alltoall, dest, source, nelems, __func__));                                \
  }                                                                                                               \
  int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems) {                                                                   \
    return coll::run(team, with_strides(typed(Kind::Alltoalls, dest, source, nelems, __func__), dst, sst));       \
  }
SHMEMI_RMA_TYPES(TC_COLL)
#undef TC_COLL

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) {
  return coll::run(team, with_root(words(Kind::Broadcast, dest, source, nelems, 1, __func__), PE_root, true));
}
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return coll::run(team, words(Kind::Collect, dest, source, nelems, 1, __func__));
}
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return coll::run(team, words(Kind::Fcollect, dest, source, nelems, 1, __func__));
}
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return coll::run(team, words(Kind::Alltoall, dest, source, nelems, 1, __func__));
}
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) {
  return coll::run(team, with_strides(words(Kind::Alltoalls, dest, source, nelems, 1, __func__), dst, sst));
}

// ---- deprecated active-set forms: 32- and 64-bit words ------------------------------
// The root of an active-set broadcast keeps its dest as it was.

#define TC_COLL_SIZED(BITS)                                                                                       \
  void shmem_broadcast##BITS(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,            \
                             int logPE_stride, int PE_size, long* pSync) {                                        \
    coll::run_active_set(PE_start, logPE_stride, PE_size, pSync,                                                  \
                         with_root(words(Kind::Broadcast, dest, source, nelems, BITS / 8, __func__), PE_root, false)); \
  }                                                                                                               \
  void shmem_collect##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,        \
                           int PE_size, long* pSync) {                                                            \
    coll::run_active_set(PE_start, logPE_stride, PE_size, pSync,                                                  \
                         words(Kind::Collect, dest, source, nelems, BITS / 8, __func__));                         \
  }                                                                                                               \
  void shmem_fcollect##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,       \
                            int PE_size, long* pSync) {                                                           \
    coll::run_active_set(PE_start, logPE_stride, PE_size, pSync,                                                  \
                         words(Kind::Fcollect, dest, source, nelems, BITS / 8, __func__));                        \
  }                                                                                                               \
  void shmem_alltoall##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,       \
                            int PE_size, long* pSync) {                                                           \
    coll::run_active_set(PE_start, logPE_stride, PE_size, pSync,                                                  \
                         words(Kind::Alltoall, dest, source, nelems, BITS / 8, __func__));                        \
  }                                                                                                               \
  void shmem_alltoalls##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,        \
                             int PE_start, int logPE_stride, int PE_size, long* pSync) {                          \
    coll::run_active_set(PE_start, logPE_stride, PE_size, pSync,                                                  \
                         with_strides(words(Kind::Alltoalls, dest, source, nelems, BITS / 8, __func__), dst, sst)); \
  }
TC_COLL_SIZED(32)
TC_COLL_SIZED(64)
#undef TC_COLL_SIZED

// ---- reductions: team forms (the team table) and active-set forms (its own table) ----

#define TC_REDUCE(TYPE, NAME, OP, OPNAME)                                                                         \
  int shmem_##NAME##_##OPNAME##_reduce(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nreduce) {      \
    return coll::run(team, reduce(Op::OP, dest, source, nreduce, __func__));                                      \
  }
#define TC_REDUCE_BITWISE(TYPE, NAME) \
  TC_REDUCE(TYPE, NAME, And, and) TC_REDUCE(TYPE, NAME, Or, or) TC_REDUCE(TYPE, NAME, Xor, xor)
#define TC_REDUCE_MINMAX(TYPE, NAME) TC_REDUCE(TYPE, NAME, Max, max) TC_REDUCE(TYPE, NAME, Min, min)
#define TC_REDUCE_ARITH(TYPE, NAME) TC_REDUCE(TYPE, NAME, Sum, sum) TC_REDUCE(TYPE, NAME, Prod, prod)
SHMEMI_REDUCE_BITWISE_TYPES(TC_REDUCE_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(TC_REDUCE_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(TC_REDUCE_ARITH)
#undef TC_REDUCE_BITWISE
#undef TC_REDUCE_MINMAX
#undef TC_REDUCE_ARITH
#undef TC_REDUCE

#define TC_TO_ALL(TYPE, NAME, OP, OPNAME)                                                                         \
  void shmem_##NAME##_##OPNAME##_to_all(TYPE* dest, const TYPE* source, int nreduce, int PE_start,               \
                                        int logPE_stride, int PE_size, TYPE* /* pWrk: unused */, long* pSync) {   \
    to_all(Op::OP, dest, source, nreduce, PE_start, logPE_stride, PE_size, pSync, __func__);                      \
  }
#define TC_TO_ALL_BITWISE(TYPE, NAME) \
  TC_TO_ALL(TYPE, NAME, And, and) TC_TO_ALL(TYPE, NAME, Or, or) TC_TO_ALL(TYPE, NAME, Xor, xor)
#define TC_TO_ALL_MINMAX(TYPE, NAME) TC_TO_ALL(TYPE, NAME, Max, max) TC_TO_ALL(TYPE, NAME, Min, min)
#define TC_TO_ALL_ARITH(TYPE, NAME) TC_TO_ALL(TYPE, NAME, Sum, sum) TC_TO_ALL(TYPE, NAME, Prod, prod)
SHMEMI_TO_ALL_BITWISE_TYPES(TC_TO_ALL_BITWISE)
SHMEMI_TO_ALL_MINMAX_TYPES(TC_TO_ALL_MINMAX)
SHMEMI_TO_ALL_ARITH_TYPES(TC_TO_ALL_ARITH)
#undef TC_TO_ALL_BITWISE
#undef TC_TO_ALL_MINMAX
#undef TC_TO_ALL_ARITH
#undef TC_TO_ALL

}  // extern "C"
