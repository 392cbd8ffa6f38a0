// Element-wise reduction kernels, and the names of kinds, types and operations.
#include <complex>
#include <iterator>
#include <cstdint>
#include <type_traits>

#include "coll/algorithm.hpp"
#include "core/error.hpp"

namespace tilecomm::coll {

namespace {

// Integer sums and products wrap around (computed unsigned: no undefined
// behaviour on overflow, the same bits as two's complement arithmetic).
template <class T, bool = std::is_integral_v<T>>
struct ArithOf {
  using type = T;
};
template <class T>
struct ArithOf<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <class T>
using Arith = typename ArithOf<T>::type;

template <class T, Op O>
void apply(T* dst, const T* a, const T* b, std::size_t n) {
  using A = Arith<T>;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (O == Op::Sum) dst[i] = static_cast<T>(static_cast<A>(a[i]) + static_cast<A>(b[i]));
    else if constexpr (O == Op::Prod) dst[i] = static_cast<T>(static_cast<A>(a[i]) * static_cast<A>(b[i]));
    else if constexpr (O == Op::Max) dst[i] = a[i] < b[i] ? b[i] : a[i];
    else if constexpr (O == Op::Min) dst[i] = b[i] < a[i] ? b[i] : a[i];
    else if constexpr (O == Op::And) dst[i] = a[i] & b[i];
    else if constexpr (O == Op::Or) dst[i] = a[i] | b[i];
    else dst[i] = a[i] ^ b[i];
  }
}

template <class T>
void apply_op(Op op, void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<T*>(dst);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  constexpr bool integer = std::is_integral_v<T>;
  constexpr bool ordered = integer || std::is_floating_point_v<T>;
  switch (op) {
    case Op::Sum: return apply<T, Op::Sum>(d, x, y, n);
    case Op::Prod: return apply<T, Op::Prod>(d, x, y, n);
    case Op::Max: if constexpr (ordered) return apply<T, Op::Max>(d, x, y, n); break;
    case Op::Min: if constexpr (ordered) return apply<T, Op::Min>(d, x, y, n); break;
    case Op::And: if constexpr (integer) return apply<T, Op::And>(d, x, y, n); break;
    case Op::Or: if constexpr (integer) return apply<T, Op::Or>(d, x, y, n); break;
    case Op::Xor: if constexpr (integer) return apply<T, Op::Xor>(d, x, y, n); break;
  }
  raise(ErrorCode::InvalidUsage, "the %s reduction is not defined for %s elements", op_name(op),
        dtype_name(dtype_of<T>()));
}

}  // namespace

void reduce2(DType t, Op op, void* dst, const void* a, const void* b, std::size_t n) {
  switch (t) {
    case DType::Int8: return apply_op<std::int8_t>(op, dst, a, b, n);
    case DType::Int16: return apply_op<std::int16_t>(op, dst, a, b, n);
    case DType::Int32: return apply_op<std::int32_t>(op, dst, a, b, n);
    case DType::Int64: return apply_op<std::int64_t>(op, dst, a, b, n);
    case DType::UInt8: return apply_op<std::uint8_t>(op, dst, a, b, n);
    case DType::UInt16: return apply_op<std::uint16_t>(op, dst, a, b, n);
    case DType::UInt32: return apply_op<std::uint32_t>(op, dst, a, b, n);
    case DType::UInt64: return apply_op<std::uint64_t>(op, dst, a, b, n);
    case DType::Float: return apply_op<float>(op, dst, a, b, n);
    case DType::Double: return apply_op<double>(op, dst, a, b, n);
    case DType::LongDouble: return apply_op<long double>(op, dst, a, b, n);
    case DType::ComplexFloat: return apply_op<std::complex<float>>(op, dst, a, b, n);
    case DType::ComplexDouble: return apply_op<std::complex<double>>(op, dst, a, b, n);
  }
}

const char* kind_name(Kind k) {
  static const char* const names[] = {"broadcast", "collect",  "fcollect",       "alltoall",
                                      "alltoalls", "reduce",   "reduce_scatter", "alltoallv"};
  const auto i = static_cast<std::size_t>(k);
  return i < std::size(names) ? names[i] : "(invalid kind)";
}

const char* op_name(Op op) {
  static const char* const names[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
  const auto i = static_cast<std::size_t>(op);
  return i < std::size(names) ? names[i] : "(invalid operation)";
}

const char* dtype_name(DType t) {
  static const char* const names[] = {"int8",  "int16",  "int32",      "int64",    "uint8",   "uint16",  "uint32",
                                      "uint64", "float", "double", "longdouble", "complexf", "complexd"};
  const auto i = static_cast<std::size_t>(t);
  return i < std::size(names) ? names[i] : "(invalid type)";
}

std::size_t dtype_size(DType t) {
  static const std::size_t sizes[] = {1, 2, 4, 8, 1, 2, 4, 8, sizeof(float), sizeof(double), sizeof(long double),
                                      sizeof(std::complex<float>), sizeof(std::complex<double>)};
  return sizes[static_cast<int>(t)];
}

}  // namespace tilecomm::coll
