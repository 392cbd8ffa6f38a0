// Shared helpers of the operator tests (test_ops.cpp, test_fused.cpp): typed
// element access to the byte buffers the operators take, the value an
// integer type holds of an exact result, a communicator with a small window,
// and the message of the tilecomm::Error a call throws.
#pragma once

#include <tilecomm/ops.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "api_test.hpp"

namespace api {

namespace ops = tilecomm::ops;

inline constexpr ops::DataType kTypes[] = {ops::DataType::Int8, ops::DataType::Int16, ops::DataType::Int32,
                                           ops::DataType::Int64, ops::DataType::Fp16, ops::DataType::Bf16,
                                           ops::DataType::Fp32, ops::DataType::Fp64};

/// Element i of a buffer of type t, as a double, and back.
inline void put(ops::DataType t, void* base, std::size_t i, double v) {
  using ops::DataType;
  switch (t) {
    case DataType::Int8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Int16: static_cast<std::int16_t*>(base)[i] = static_cast<std::int16_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Int32: static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Int64: static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(v); break;
    case DataType::Uint8: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Uint16: static_cast<std::uint16_t*>(base)[i] = static_cast<std::uint16_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Uint32: static_cast<std::uint32_t*>(base)[i] = static_cast<std::uint32_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Uint64: static_cast<std::uint64_t*>(base)[i] = static_cast<std::uint64_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Fp16: static_cast<std::uint16_t*>(base)[i] = ops::float_to_fp16(static_cast<float>(v)); break;
    case DataType::Bf16: static_cast<std::uint16_t*>(base)[i] = ops::float_to_bf16(static_cast<float>(v)); break;
    case DataType::Fp32: static_cast<float*>(base)[i] = static_cast<float>(v); break;
    case DataType::Fp64: static_cast<double*>(base)[i] = v; break;
  }
}

inline double get(ops::DataType t, const void* base, std::size_t i) {
  using ops::DataType;
  switch (t) {
    case DataType::Int8: return static_cast<const std::int8_t*>(base)[i];
    case DataType::Int16: return static_cast<const std::int16_t*>(base)[i];
    case DataType::Int32: return static_cast<const std::int32_t*>(base)[i];
    case DataType::Int64: return static_cast<double>(static_cast<const std::int64_t*>(base)[i]);
    case DataType::Uint8: return static_cast<const std::uint8_t*>(base)[i];
    case DataType::Uint16: return static_cast<const std::uint16_t*>(base)[i];
    case DataType::Uint32: return static_cast<const std::uint32_t*>(base)[i];
    case DataType::Uint64: return static_cast<double>(static_cast<const std::uint64_t*>(base)[i]);
    case DataType::Fp16: return ops::fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case DataType::Bf16: return ops::bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case DataType::Fp32: return static_cast<const float*>(base)[i];
    case DataType::Fp64: return static_cast<const double*>(base)[i];
  }
  return 0;
}

/// What an integer type holds of an exact integer result (wrapping).
inline double wrapped(ops::DataType t, double v) {
  std::vector<std::uint8_t> cell(8);
  put(t, cell.data(), 0, v);
  return get(t, cell.data(), 0);
}

/// Communicator options with a data window of `bytes` (small windows make
/// the operators run in rounds).
inline tilecomm::CommOptions window(std::size_t bytes) {
  tilecomm::CommOptions o;
  o.window_bytes = bytes;
  o.flag_bytes = 64 << 10;
  return o;
}

/// The message of the tilecomm::Error that fn() throws, or "(no error)".
template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const tilecomm::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace api
