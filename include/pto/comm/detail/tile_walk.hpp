// The data path shared by the synchronous PTO instructions (TPUT, TGET and
// the collectives): GM -> UB tile -> GM in chunks of one tile ("2-D
// sliding"), the checks of the staging tiles, and the event waits.
//
// NOTE [2-D sliding] A transfer has five extents (d0..d4); rows are the
// (d0, d1, d2, d3) index tuples in order, columns run along d4. When every
// row and column fits in the tile (d0*d1*d2*d3 <= validRow and d4 <= validCol)
// the transfer is one chunk. Otherwise each (d0, d1, d2) plane is cut into
// chunks of validRow rows of DIM_3 by validCol columns of DIM_4, taken in
// order plane by plane, row chunk by row chunk, column chunk by column chunk;
// with a DYNAMIC valid row / column the last chunk of a plane may be partial,
// a static one must divide the extent. Each side reaches element (row, col)
// through its own five strides, so either side may be non-contiguous. The
// staging tiles keep their valid shape: a partial chunk only uses part of it.
//
// With two tiles (ping-pong) the chunks alternate between them: ping, pong,
// ping, ... The result is that of the single-tile form.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include <tilecomm/error.hpp>

#include "pto/common/constants.hpp"
#include "pto/common/pto_tensor.hpp"
#include "pto/common/pto_tile.hpp"
#include "pto/kernel.hpp"

namespace pto::comm::detail {

[[noreturn]] inline void usage_error(const std::string& message) {
  throw tilecomm::Error(tilecomm::ErrorCode::InvalidUsage, message);
}

// ---- transfer extents and the two sides ---------------------------------------------------

/// The five extents of a transfer.
struct Region {
  std::int64_t ext[5] = {1, 1, 1, 1, 1};

  std::int64_t rows() const { return ext[0] * ext[1] * ext[2] * ext[3]; }
  bool empty() const { return rows() == 0 || ext[4] == 0; }
  bool operator==(const Region&) const = default;
  /// "(1,1,2,40,96)".
  std::string text() const {
    std::string s = "(";
    for (int d = 0; d < 5; ++d) s += std::to_string(ext[d]) + (d < 4 ? "," : ")");
    return s;
  }
};

template <class G>
Region region_of(const G& g) {
  Region r;
  for (int d = 0; d < 5; ++d) r.ext[d] = g.GetShape(d);
  return r;
}

/// "shape (1,1,1,40,96) stride (3840,3840,3840,96,1)", for messages.
template <class G>
std::string tensor_text(const G& g) {
  std::string s = "shape " + region_of(g).text() + " stride (";
  for (int d = 0; d < 5; ++d) s += std::to_string(g.GetStride(d)) + (d < 4 ? "," : ")");
  return s;
}

/// One side of a transfer: a base address and its five strides (elements).
template <class T>
struct Side {
  T* base = nullptr;
  std::int64_t stride[5] = {1, 1, 1, 1, 1};

  /// Address of column 0 of row k of region r (k counts (d0, d1, d2, d3) tuples).
  T* row(const Region& r, std::int64_t k) const {
    const std::int64_t i3 = k % r.ext[3];
    k /= r.ext[3];
    const std::int64_t i2 = k % r.ext[2];
    k /= r.ext[2];
    const std::int64_t i1 = k % r.ext[1];
    const std::int64_t i0 = k / r.ext[1];
    return base + i0 * stride[0] + i1 * stride[1] + i2 * stride[2] + i3 * stride[3];
  }
};

/// The side of tensor g, its base moved `rows3` rows along DIM_3 (gather and
/// scatter address rank r's slice this way).
template <class G>
Side<typename G::DType> side_of(const G& g, std::int64_t rows3 = 0) {
  Side<typename G::DType> s;
  for (int d = 0; d < 5; ++d) s.stride[d] = g.GetStride(d);
  s.base = g.data() + rows3 * s.stride[3];
  return s;
}

/// Checks that a tensor the instruction reads or writes has an address and
/// no negative extent.
template <class G>
void check_tensor(const char* call, const char* role, const G& g) {
  const Region r = region_of(g);
  for (int d = 0; d < 5; ++d)
    if (r.ext[d] < 0)
      usage_error(std::string(call) + ": the " + role + " tensor has a negative extent: " + tensor_text(g));
  if (!r.empty() && g.data() == nullptr)
    usage_error(std::string(call) + ": the " + role + " tensor has no address (null data()) but " +
                tensor_text(g) + "; build it over this PE's buffer or a peer's (shmem_ptr)");
}

/// The element and tile types of a data instruction (compile time).
template <class Dst, class Src, class TileT>
constexpr void check_types() {
  static_assert(std::is_same_v<typename Dst::RawDType, typename Src::RawDType>,
                "the source and destination tensors must have the same element type (RawDType)");
  static_assert(Dst::layout == Src::layout, "the source and destination tensors must have the same layout");
  static_assert(is_tile_v<TileT>, "the staging operands must be pto::Tile objects");
  static_assert(std::is_same_v<typename TileT::DType, typename Src::RawDType>,
                "the staging tile's element type (DType) must be the tensors' RawDType");
  static_assert(TileT::Loc == TileType::Vec, "communication instructions stage data in Vec (UB) tiles");
}

// ---- staging tiles ---------------------------------------------------------------------------

/// "UB 0x400..0x1400" of a placed tile of this block, or its address.
inline std::string ub_range(const void* p, std::size_t bytes) {
  char buf[96];
  const auto* b = tilecomm::kernel::current_block();
  const auto* u = static_cast<const std::uint8_t*>(p);
  if (b && b->ub && u >= b->ub && u < b->ub + b->ub_size)
    std::snprintf(buf, sizeof buf, "UB 0x%zx..0x%zx", static_cast<std::size_t>(u - b->ub),
                  static_cast<std::size_t>(u - b->ub) + bytes);
  else
    std::snprintf(buf, sizeof buf, "address %p, %zu bytes", p, bytes);
  return buf;
}

/// A staging tile must be placed, and its valid shape must be in 1..Rows x 1..Cols.
template <class TileT>
void check_tile(const char* call, const char* role, const TileT& t) {
  if (!t.placed())
    usage_error(std::string(call) + ": the " + role + " (" + TileT::Name() +
                ") is not placed in UB; place it with TASSIGN(tile, offset) in the kernel first");
  const int vr = t.GetValidRow(), vc = t.GetValidCol();
  if (vr < 1 || vr > TileT::Rows || vc < 1 || vc > TileT::Cols)
    usage_error(std::string(call) + ": the " + role + " (" + TileT::Name() + ") has a valid shape of " +
                std::to_string(vr) + " x " + std::to_string(vc) + "; it must be 1.." + std::to_string(TileT::Rows) +
                " x 1.." + std::to_string(TileT::Cols));
}

/// Two staging tiles must not share UB bytes.
template <class A, class B>
void check_apart(const char* call, const char* role_a, const A& a, const char* role_b, const B& b) {
  const auto* pa = reinterpret_cast<const std::uint8_t*>(a.data());
  const auto* pb = reinterpret_cast<const std::uint8_t*>(b.data());
  if (pa < pb + B::Bytes && pb < pa + A::Bytes)
    usage_error(std::string(call) + ": the " + role_a + " (" + ub_range(pa, A::Bytes) + ") and the " + role_b +
                " (" + ub_range(pb, B::Bytes) + ") overlap; place them with TASSIGN at offsets at least " +
                std::to_string(std::max(A::Bytes, B::Bytes)) + " bytes apart");
}

/// One tile, or a ping-pong pair taken in turn; checked on construction.
template <class TileT>
class Staging {
 public:
  Staging(const char* call, const char* role, TileT& only) : tiles_{&only, &only}, count_(1), role_(role) {
    check_tile(call, role, only);
  }
  Staging(const char* call, TileT& ping, TileT& pong) : tiles_{&ping, &pong}, count_(2), role_("ping tile") {
    check_tile(call, "ping tile", ping);
    check_tile(call, "pong tile", pong);
    check_apart(call, "ping tile", ping, "pong tile", pong);
    if (ping.GetValidRow() != pong.GetValidRow() || ping.GetValidCol() != pong.GetValidCol())
      usage_error(std::string(call) + ": the ping tile's valid shape (" + std::to_string(ping.GetValidRow()) +
                  " x " + std::to_string(ping.GetValidCol()) + ") differs from the pong tile's (" +
                  std::to_string(pong.GetValidRow()) + " x " + std::to_string(pong.GetValidCol()) +
                  "); give both the same valid rows and columns");
  }
  /// The tile that sets the chunk size.
  const TileT& first() const { return *tiles_[0]; }
  /// Checks that `other` shares no UB bytes with these tiles.
  void check_apart_from(const char* call, const char* role, const TileT& other) const {
    check_apart(call, role, other, role_, *tiles_[0]);
    if (count_ == 2) check_apart(call, role, other, "pong tile", *tiles_[1]);
  }
  /// The tile for the next chunk: ping, pong, ping, ...
  TileT& next() {
    TileT& t = *tiles_[turn_];
    turn_ = (turn_ + 1) % count_;
    return t;
  }

 private:
  TileT* tiles_[2];
  int count_;
  const char* role_;
  int turn_ = 0;
};

// ---- the walk --------------------------------------------------------------------------------

/// Rows [row0, row0 + rows) (flat (d0..d3) indices) by columns [col0, col0 + cols).
struct Chunk {
  std::int64_t row0;
  int rows;
  std::int64_t col0;
  int cols;
};

/// Calls f(chunk) for every chunk of region r, in the order of NOTE [2-D sliding].
template <class TileT, class F>
void for_each_chunk(const char* call, const Region& r, const TileT& tile, F&& f) {
  if (r.empty()) return;
  const std::int64_t vr = tile.GetValidRow(), vc = tile.GetValidCol();
  if (r.rows() <= vr && r.ext[4] <= vc) {
    f(Chunk{0, static_cast<int>(r.rows()), 0, static_cast<int>(r.ext[4])});
    return;
  }
  auto indivisible = [&](const char* what, int dim, std::int64_t valid) {
    usage_error(std::string(call) + ": the tile " + TileT::Name() + " has a static " + what + " of " +
                std::to_string(valid) + ", which does not divide DIM_" + std::to_string(dim) + " (" +
                std::to_string(r.ext[dim]) + ") of the transfer " + r.text() + "; use a tile whose " + what +
                " divides it, or a DYNAMIC one (a partial last chunk is then allowed)");
  };
  if (TileT::ValidRow != DYNAMIC && r.ext[3] % vr != 0) indivisible("ValidRow", 3, vr);
  if (TileT::ValidCol != DYNAMIC && r.ext[4] % vc != 0) indivisible("ValidCol", 4, vc);
  const std::int64_t planes = r.ext[0] * r.ext[1] * r.ext[2];
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t row = 0; row < r.ext[3]; row += vr)
      for (std::int64_t col = 0; col < r.ext[4]; col += vc)
        f(Chunk{p * r.ext[3] + row, static_cast<int>(std::min(vr, r.ext[3] - row)), col,
                static_cast<int>(std::min(vc, r.ext[4] - col))});
}

/// Offset of element (i, j) in a tile's storage.
template <class TileT>
constexpr std::size_t tile_index(int i, int j) {
  return TileT::isRowMajor ? static_cast<std::size_t>(i) * TileT::Cols + j
                           : static_cast<std::size_t>(j) * TileT::Rows + i;
}

/// TLOAD: chunk c of region r, from GM side `src` into tile t.
template <class TileT, class T>
void load_chunk(TileT& t, const Side<T>& src, const Region& r, const Chunk& c) {
  using E = typename TileT::DType;
  E* ub = t.data();
  const std::int64_t s4 = src.stride[4];
  for (int i = 0; i < c.rows; ++i) {
    const T* g = src.row(r, c.row0 + i) + c.col0 * s4;
    if (TileT::isRowMajor && s4 == 1) {
      std::memcpy(ub + tile_index<TileT>(i, 0), g, static_cast<std::size_t>(c.cols) * sizeof(E));
    } else {
      for (int j = 0; j < c.cols; ++j) ub[tile_index<TileT>(i, j)] = g[j * s4];
    }
  }
}

/// dst += v, atomically (an integer add, or a compare-and-swap loop).
template <class T>
void atomic_add(T& dst, T v) {
  std::atomic_ref<T> ref(dst);
  if constexpr (std::is_integral_v<T>) {
    ref.fetch_add(v);
  } else {
    T old = ref.load(std::memory_order_relaxed);
    while (!ref.compare_exchange_weak(old, static_cast<T>(old + v))) {
    }
  }
}

/// TSTORE: chunk c of region r, from tile t to GM side `dst` (plain or atomic add).
template <AtomicType atomic, class TileT, class T>
void store_chunk(const Side<T>& dst, const TileT& t, const Region& r, const Chunk& c) {
  using E = typename TileT::DType;
  const E* ub = t.data();
  const std::int64_t s4 = dst.stride[4];
  for (int i = 0; i < c.rows; ++i) {
    T* g = dst.row(r, c.row0 + i) + c.col0 * s4;
    if constexpr (atomic == AtomicType::AtomicAdd) {
      for (int j = 0; j < c.cols; ++j) atomic_add(g[j * s4], ub[tile_index<TileT>(i, j)]);
    } else if (TileT::isRowMajor && s4 == 1) {
      std::memcpy(g, ub + tile_index<TileT>(i, 0), static_cast<std::size_t>(c.cols) * sizeof(E));
    } else {
      for (int j = 0; j < c.cols; ++j) g[j * s4] = ub[tile_index<TileT>(i, j)];
    }
  }
}

/// The atomic path needs naturally aligned destination elements.
template <class G>
void check_atomic_target(const char* call, const G& g) {
  using T = typename G::RawDType;
  static_assert(std::is_arithmetic_v<T>, "AtomicAdd needs an arithmetic element type");
  if (reinterpret_cast<std::uintptr_t>(g.data()) % std::atomic_ref<T>::required_alignment != 0) {
    char at[32];
    std::snprintf(at, sizeof at, "%p", static_cast<const void*>(g.data()));
    usage_error(std::string(call) + ": AtomicAdd needs the destination aligned to " +
                std::to_string(std::atomic_ref<T>::required_alignment) + " bytes; it starts at " + at);
  }
}

/// Moves region r from `src` to `dst` through the staging tile(s), chunk by chunk.
template <AtomicType atomic, class TileT, class D, class S>
void move_region(const char* call, const Side<D>& dst, const Side<S>& src, const Region& r, Staging<TileT>& staging) {
  for_each_chunk(call, r, staging.first(), [&](const Chunk& c) {
    TileT& t = staging.next();
    load_chunk(t, src, r, c);
    store_chunk<atomic>(dst, t, r, c);
  });
}

}  // namespace pto::comm::detail
