// Shared by the collective (ops.cpp) and fused (fused.cpp) operators: the
// names of the calls, the check of a planned executor, window alignment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilecomm/ops.hpp"

namespace tilecomm::ops {

/// "tilecomm::ops::AllGather", ...: the operator's name, for messages.
const char* call_of(Executor::Kind k);
/// Throws unless `dtype` is one of the DataType values.
void check_type(DataType dtype, Executor::Kind kind);
/// The executor, once checked to be planned for `kind` with a large enough workspace.
Executor& checked(Executor* ex, Executor::Kind kind, std::uint64_t workspace_size);

/// Copies a rank's input into its window, for the peers to read, with the
/// stores a coll::PublishStores chose (NOTE [publishing stores]).
void stage(void* window, const void* src, std::size_t bytes, bool streaming);

/// The symmetric id of [p, p + bytes) if every rank of ex's communicator
/// passed the same symmetric range and every rank's copy is mapped here,
/// else 0; one exchange among the ranks (NOTE [inputs in place] in ops.cpp).
std::uint64_t common_symmetric(const Executor& ex, const void* p, std::uint64_t bytes);
/// Rank r's copy of the symmetric range common_symmetric() named `id`.
const std::uint8_t* rank_copy(const Executor& ex, std::uint64_t id, int r);

inline bool is_half(DataType t) { return t == DataType::Fp16 || t == DataType::Bf16; }

/// Areas of a window start on a cache line.
constexpr std::size_t kAlign = 64;
inline std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

}  // namespace tilecomm::ops
