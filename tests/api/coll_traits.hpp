// The typed collective routines of OpenSHMEM 1.5 as traits structs, one per
// row of the specification's tables, so that the tests are written once as
// templates: Data_NAME (broadcast, collect, fcollect, alltoall, alltoalls of
// the standard RMA types table, plus the mem forms and the C++ generic
// overloads) and Red_NAME (the team reductions of the "Team-Based
// Reductions" table, plus generic overloads).
#pragma once

#include <cstddef>
#include <string>

#include "coll_test.hpp"

namespace coll {

// ---- data movement: Table 5 (standard RMA types) --------------------------------------

#define COLL_DATA_TRAITS(TYPE, NAME)                                                                  \
  struct Data_##NAME {                                                                                \
    using T = TYPE;                                                                                   \
    static std::string label() { return #NAME; }                                                      \
    static int broadcast(shmem_team_t t, T* d, const T* s, std::size_t n, int root) {                 \
      return shmem_##NAME##_broadcast(t, d, s, n, root);                                              \
    }                                                                                                 \
    static int collect(shmem_team_t t, T* d, const T* s, std::size_t n) {                             \
      return shmem_##NAME##_collect(t, d, s, n);                                                      \
    }                                                                                                 \
    static int fcollect(shmem_team_t t, T* d, const T* s, std::size_t n) {                            \
      return shmem_##NAME##_fcollect(t, d, s, n);                                                     \
    }                                                                                                 \
    static int alltoall(shmem_team_t t, T* d, const T* s, std::size_t n) {                            \
      return shmem_##NAME##_alltoall(t, d, s, n);                                                     \
    }                                                                                                 \
    static int alltoalls(shmem_team_t t, T* d, const T* s, std::ptrdiff_t dst, std::ptrdiff_t sst,   \
                         std::size_t n) {                                                             \
      return shmem_##NAME##_alltoalls(t, d, s, dst, sst, n);                                          \
    }                                                                                                 \
  };
SHMEMI_RMA_TYPES(COLL_DATA_TRAITS)
#undef COLL_DATA_TRAITS

/// shmem_broadcastmem and friends: elements are bytes.
struct Data_mem {
  using T = unsigned char;
  static std::string label() { return "mem"; }
  static int broadcast(shmem_team_t t, T* d, const T* s, std::size_t n, int root) {
    return shmem_broadcastmem(t, d, s, n, root);
  }
  static int collect(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_collectmem(t, d, s, n); }
  static int fcollect(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_fcollectmem(t, d, s, n); }
  static int alltoall(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_alltoallmem(t, d, s, n); }
  static int alltoalls(shmem_team_t t, T* d, const T* s, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n) {
    return shmem_alltoallsmem(t, d, s, dst, sst, n);
  }
};

/// The C++ type-generic forms (shmem_broadcast(team, ...), ...).
template <class Ty>
struct Data_generic {
  using T = Ty;
  static std::string label() {
    if constexpr (std::is_same_v<Ty, char>) return "generic_char";
    else if constexpr (std::is_same_v<Ty, int>) return "generic_int";
    else if constexpr (std::is_same_v<Ty, unsigned long long>) return "generic_ulonglong";
    else if constexpr (std::is_same_v<Ty, double>) return "generic_double";
    else return "generic_longdouble";
  }
  static int broadcast(shmem_team_t t, T* d, const T* s, std::size_t n, int root) {
    return shmem_broadcast(t, d, s, n, root);
  }
  static int collect(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_collect(t, d, s, n); }
  static int fcollect(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_fcollect(t, d, s, n); }
  static int alltoall(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_alltoall(t, d, s, n); }
  static int alltoalls(shmem_team_t t, T* d, const T* s, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n) {
    return shmem_alltoalls(t, d, s, dst, sst, n);
  }
};

// ---- team reductions: the "Team-Based Reductions" table -----------------------------

// Which operations each row supports.
#define COLL_RED_BITWISE(X)                                                                          \
  X(uchar) X(ushort) X(uint) X(ulong) X(ulonglong) X(int8) X(int16) X(int32) X(int64) X(uint8)      \
  X(uint16) X(uint32) X(uint64) X(size)
#define COLL_RED_ORDERED(X) \
  X(char) X(schar) X(short) X(int) X(long) X(longlong) X(ptrdiff) X(float) X(double) X(longdouble)
#define COLL_RED_COMPLEX(X) X(complexd) X(complexf)

#define COLL_RED_ARITH_FNS(NAME)                                                                     \
  using T = typename elem_of<decltype(&shmem_##NAME##_sum_reduce)>::type;                            \
  static std::string label() { return #NAME; }                                                       \
  static int sum(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_sum_reduce(t, d, s, n); } \
  static int prod(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_prod_reduce(t, d, s, n); }
#define COLL_RED_MINMAX_FNS(NAME)                                                                    \
  static int max(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_max_reduce(t, d, s, n); } \
  static int min(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_min_reduce(t, d, s, n); }
#define COLL_RED_BIT_FNS(NAME)                                                                       \
  static int band(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_and_reduce(t, d, s, n); } \
  static int bor(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_or_reduce(t, d, s, n); }   \
  static int bxor(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_##NAME##_xor_reduce(t, d, s, n); }

#define COLL_RED_TRAITS_BITWISE(NAME)                               \
  struct Red_##NAME {                                               \
    COLL_RED_ARITH_FNS(NAME)                                        \
    COLL_RED_MINMAX_FNS(NAME)                                       \
    COLL_RED_BIT_FNS(NAME)                                          \
    static constexpr unsigned kOps = kBitOps | kMinMaxOps | kArithOps; \
  };
#define COLL_RED_TRAITS_ORDERED(NAME)                     \
  struct Red_##NAME {                                     \
    COLL_RED_ARITH_FNS(NAME)                              \
    COLL_RED_MINMAX_FNS(NAME)                             \
    static constexpr unsigned kOps = kMinMaxOps | kArithOps; \
  };
#define COLL_RED_TRAITS_COMPLEX(NAME)        \
  struct Red_##NAME {                        \
    COLL_RED_ARITH_FNS(NAME)                 \
    static constexpr unsigned kOps = kArithOps; \
  };
COLL_RED_BITWISE(COLL_RED_TRAITS_BITWISE)
COLL_RED_ORDERED(COLL_RED_TRAITS_ORDERED)
COLL_RED_COMPLEX(COLL_RED_TRAITS_COMPLEX)
#undef COLL_RED_TRAITS_BITWISE
#undef COLL_RED_TRAITS_ORDERED
#undef COLL_RED_TRAITS_COMPLEX

/// The C++ generic reductions (shmem_sum_reduce(team, ...), ...). and/or/xor
/// exist for the integer types of those rows (int is int32_t, long int64_t).
template <class Ty, unsigned Ops>
struct Red_generic {
  using T = Ty;
  static constexpr unsigned kOps = Ops;
  static std::string label() {
    if constexpr (std::is_same_v<Ty, unsigned int>) return "generic_uint";
    else if constexpr (std::is_same_v<Ty, long>) return "generic_long";
    else if constexpr (std::is_same_v<Ty, char>) return "generic_char";
    else return "generic_double";
  }
  static int sum(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_sum_reduce(t, d, s, n); }
  static int prod(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_prod_reduce(t, d, s, n); }
  static int max(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_max_reduce(t, d, s, n); }
  static int min(shmem_team_t t, T* d, const T* s, std::size_t n) { return shmem_min_reduce(t, d, s, n); }
  static int band(shmem_team_t t, T* d, const T* s, std::size_t n) {
    if constexpr ((Ops & kBitOps) != 0) return shmem_and_reduce(t, d, s, n);
    else return -1;
  }
  static int bor(shmem_team_t t, T* d, const T* s, std::size_t n) {
    if constexpr ((Ops & kBitOps) != 0) return shmem_or_reduce(t, d, s, n);
    else return -1;
  }
  static int bxor(shmem_team_t t, T* d, const T* s, std::size_t n) {
    if constexpr ((Ops & kBitOps) != 0) return shmem_xor_reduce(t, d, s, n);
    else return -1;
  }
};

/// Calls the reduction `op` of traits Tr (which must support it).
template <class Tr, class T = typename Tr::T>
int reduce_call(Op op, shmem_team_t t, T* d, const T* s, std::size_t n) {
  switch (op) {
    case Op::And:
      if constexpr ((Tr::kOps & kBitOps) != 0) return Tr::band(t, d, s, n);
      break;
    case Op::Or:
      if constexpr ((Tr::kOps & kBitOps) != 0) return Tr::bor(t, d, s, n);
      break;
    case Op::Xor:
      if constexpr ((Tr::kOps & kBitOps) != 0) return Tr::bxor(t, d, s, n);
      break;
    case Op::Max:
      if constexpr ((Tr::kOps & kMinMaxOps) != 0) return Tr::max(t, d, s, n);
      break;
    case Op::Min:
      if constexpr ((Tr::kOps & kMinMaxOps) != 0) return Tr::min(t, d, s, n);
      break;
    case Op::Sum: return Tr::sum(t, d, s, n);
    case Op::Prod: return Tr::prod(t, d, s, n);
  }
  ADD_FAILURE() << Tr::label() << " has no " << op_name(op) << " reduction";
  return -1;
}

/// "shmem_TYPENAME_OP_reduce" for messages.
template <class Tr>
std::string reduce_name(Op op) {
  return "shmem_" + Tr::label() + "_" + op_name(op) + "_reduce";
}

}  // namespace coll
