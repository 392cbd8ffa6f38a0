// The types of the PTO communication instructions (namespace pto::comm):
// notification and comparison operators, signals, reduction operators, the
// collective engines and ParallelGroup, the root's view of a collective's
// members. The DMA types (DmaEngine, AsyncPutMode, AsyncEvent, AsyncSession)
// come from async_common/async_types.hpp, included here.
//
// Everything here is a plain, trivially copyable view: a Signal or a
// ParallelGroup wraps caller-owned memory and allocates nothing.
#pragma once

#include <cstdint>
#include <string>

#include <tilecomm/error.hpp>

#include "pto/common/constants.hpp"
#include "pto/common/pto_tensor.hpp"
#include "pto/comm/async_common/async_types.hpp"

namespace pto::comm {

/// TNOTIFY: add `value` to the signal atomically, or store it.
enum class NotifyOp : std::uint8_t { AtomicAdd = 0, Set = 1 };

/// TWAIT / TTEST: the test is `signal <cmp> cmpValue` for every element.
enum class WaitCmp : std::uint8_t { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };

/// TREDUCE: how members are combined.
enum class ReduceOp : std::uint8_t { Sum = 0, Max = 1, Min = 2 };

/// Who runs a collective: the vector cores (AIV, the only engine of a CPU
/// host) or the collective communication unit of A5 hardware (CCU).
enum class CollEngine : std::uint8_t { AIV = 0, CCU = 1 };

/// "EQ", "NE", ... for messages.
inline const char* to_string(WaitCmp cmp) {
  static const char* const kNames[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
  const auto i = static_cast<unsigned>(cmp);
  return i < 6 ? kNames[i] : "an unknown WaitCmp";
}

/// One int32 flag: `comm::Signal sig(ptr);`. TNOTIFY writes it (usually in a
/// peer's memory, through shmem_ptr); TWAIT / TTEST read it in local memory.
using Signal = GlobalTensor<std::int32_t, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>, Layout::ND>;

/// Any int32 tensor used as a set of signals (up to five dimensions, its own strides).
template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
using GlobalSignal = GlobalTensor<Element_, Shape_, Stride_, Layout_>;

/// Rows x Cols int32 flags, e.g. one per (peer, block); TWAIT waits until
/// every one of them satisfies the comparison.
template <int Rows, int Cols>
struct Signal2D : GlobalTensor<std::int32_t, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND> {
  static_assert(Rows > 0 && Cols > 0, "Signal2D<Rows, Cols> needs at least one row and one column");
  using Base = GlobalTensor<std::int32_t, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND>;

  /// Dense grid: row r starts at ptr + r * Cols.
  Signal2D(typename Base::DType* ptr) : Base(ptr, {}, typename Base::StrideType(Cols)) {}
  /// Sub-region of a wider grid: row r starts at ptr + r * rowPitch (elements).
  Signal2D(typename Base::DType* ptr, int rowPitch) : Base(ptr, {}, typename Base::StrideType(rowPitch)) {}
};

namespace detail {
[[noreturn]] inline void group_rank_error(int rank, int nranks) {
  throw tilecomm::Error(tilecomm::ErrorCode::InvalidUsage,
                        "ParallelGroup: rank " + std::to_string(rank) + " is out of range; the group has ranks 0.." +
                            std::to_string(nranks - 1) + " (nranks = " + std::to_string(nranks) + ")");
}
}  // namespace detail

/// The root's view of a collective: tensors[r] is rank r's buffer as the
/// root reaches it (a peer's buffer through shmem_ptr), for r in [0, nranks).
/// A non-owning view of an array of GlobalData objects; every rank passes
/// the same rootIdx, and only the root calls the collective instructions.
template <typename GlobalData>
struct ParallelGroup {
  using value_type = GlobalData;

  GlobalData* tensors{nullptr};
  int nranks{0};
  int rootIdx{-1};

  constexpr ParallelGroup() = default;
  constexpr ParallelGroup(GlobalData* tensorArray, int size, int root)
      : tensors(tensorArray), nranks(size), rootIdx(root) {}

  static constexpr ParallelGroup Create(GlobalData* tensorArray, int size, int rootIdx) {
    return ParallelGroup(tensorArray, size, rootIdx);
  }

  constexpr int GetRootIdx() const { return rootIdx; }
  constexpr int GetSize() const { return nranks; }
  constexpr bool empty() const { return nranks <= 0 || tensors == nullptr; }

  /// Rank `teamRank`'s tensor; throws InvalidUsage when out of range.
  constexpr GlobalData& operator[](int teamRank) {
    if (teamRank < 0 || teamRank >= nranks) detail::group_rank_error(teamRank, nranks);
    return tensors[teamRank];
  }
  constexpr const GlobalData& operator[](int teamRank) const {
    if (teamRank < 0 || teamRank >= nranks) detail::group_rank_error(teamRank, nranks);
    return tensors[teamRank];
  }
};

template <typename T>
struct ParallelGroupTraits;
template <typename GlobalData>
struct ParallelGroupTraits<ParallelGroup<GlobalData>> {
  using GlobalDataType = GlobalData;
};

}  // namespace pto::comm
