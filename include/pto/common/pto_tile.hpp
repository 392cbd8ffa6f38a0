// Tile: a small 2-D block of data placed in a block's UB scratch memory.
//
// A Tile is declared in a kernel and placed with TASSIGN(tile, offset), which
// checks the placement against the block's UB: the offset must be a multiple
// of kUbAlign (32 bytes) and the whole tile must fit. A misplaced tile is an
// InvalidUsage error naming the tile type, the offset and the limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <typeinfo>

#include "pto/common/constants.hpp"
#include "pto/common/pto_tensor.hpp"
#include "pto/kernel.hpp"

namespace pto {

/// Rows x Cols elements of T; the valid region (ValidRow x ValidCol) may be
/// smaller, and DYNAMIC valid extents are given to the constructor.
template <TileType Loc_, typename T, int Rows_, int Cols_, BLayout BL = BLayout::RowMajor, int RowValid_ = Rows_,
          int ColValid_ = Cols_, SLayout SL = SLayout::NoneBox, int SFractalSize = 512>
class Tile {
  static_assert(Rows_ > 0 && Cols_ > 0, "a tile has at least one row and one column");
  static_assert(RowValid_ == DYNAMIC || (RowValid_ > 0 && RowValid_ <= Rows_), "ValidRow must be in 1..Rows");
  static_assert(ColValid_ == DYNAMIC || (ColValid_ > 0 && ColValid_ <= Cols_), "ValidCol must be in 1..Cols");
  static_assert(BL != BLayout::RowMajor || (Cols_ * sizeof(T)) % kUbAlign == 0,
                "a row-major tile's row must be a multiple of 32 bytes");

 public:
  using DType = T;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_;
  static constexpr int Cols = Cols_;
  static constexpr int ValidRow = RowValid_;
  static constexpr int ValidCol = ColValid_;
  static constexpr BLayout BFractal = BL;
  static constexpr SLayout SFractal = SL;
  static constexpr bool isRowMajor = BL == BLayout::RowMajor;
  static constexpr std::size_t Numel = static_cast<std::size_t>(Rows_) * Cols_;
  static constexpr std::size_t Bytes = Numel * sizeof(T);

  Tile() = default;
  /// Both valid extents DYNAMIC.
  Tile(std::size_t valid_rows, std::size_t valid_cols)
      : RowMaskInternal(static_cast<int>(valid_rows)), ColMaskInternal(static_cast<int>(valid_cols)) {
    static_assert(RowValid_ == DYNAMIC && ColValid_ == DYNAMIC, "this tile's valid extents are static");
  }
  /// Exactly one valid extent DYNAMIC.
  explicit Tile(std::size_t valid) {
    static_assert((RowValid_ == DYNAMIC) != (ColValid_ == DYNAMIC), "exactly one valid extent must be DYNAMIC");
    (RowValid_ == DYNAMIC ? RowMaskInternal : ColMaskInternal) = static_cast<int>(valid);
  }
  int GetValidRow() const { return RowValid_ == DYNAMIC ? RowMaskInternal : RowValid_; }
  int GetValidCol() const { return ColValid_ == DYNAMIC ? ColMaskInternal : ColValid_; }

  int RowMaskInternal = RowValid_ == DYNAMIC ? Rows_ : RowValid_;
  int ColMaskInternal = ColValid_ == DYNAMIC ? Cols_ : ColValid_;

  T* data() const { return data_; }
  bool placed() const { return data_ != nullptr; }
  /// Used by TASSIGN only.
  void bind(T* p) { data_ = p; }

  /// "Tile<Vec, float, 16, 64>", for messages.
  static std::string Name() {
    static const char* const kLoc[] = {"Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft",
                                       "ScaleRight"};
    return std::string("Tile<") + kLoc[static_cast<int>(Loc_)] + ", " + ElementName() + ", " +
           std::to_string(Rows_) + ", " + std::to_string(Cols_) + ">";
  }

 private:
  static const char* ElementName() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, std::int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16_t";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "int32_t";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32_t";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64_t";
    else return typeid(T).name();
  }
  T* data_ = nullptr;
};

template <class>
inline constexpr bool is_tile_v = false;
template <TileType L, typename T, int R, int C, BLayout B, int RV, int CV, SLayout S, int F>
inline constexpr bool is_tile_v<Tile<L, T, R, C, B, RV, CV, S, F>> = true;

/// Places `tile` at byte `offset` of the calling block's UB (checked).
template <class TileT>
PTO_INST void TASSIGN(TileT& tile, std::size_t offset) {
  static_assert(is_tile_v<TileT>, "TASSIGN places a pto::Tile");
  tile.bind(reinterpret_cast<typename TileT::DType*>(
      tilecomm::kernel::ub_place(offset, TileT::Bytes, TileT::Name().c_str())));
}

}  // namespace pto
