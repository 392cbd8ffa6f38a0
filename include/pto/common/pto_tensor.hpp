// GlobalTensor: a view of up to five dimensions over global memory (GM).
//
// Shape and Stride carry five extents each; a template argument of DYNAMIC
// means the extent is given to the constructor. Dimension 4 is the innermost
// one. On a host, GM is ordinary process memory: a GlobalTensor over a peer's
// buffer holds the address at which that buffer is mapped in this process
// (shmem_ptr), exactly as a kernel on the accelerator holds a peer's GM address.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pto/common/constants.hpp"

namespace pto {

namespace detail {
/// Five extents, the DYNAMIC ones taken from the constructor: either one value
/// per DYNAMIC entry, in order, or five values (static entries must match).
template <int... Dims>
class Extents {
  static_assert(sizeof...(Dims) == 5, "PTO shapes and strides have exactly five dimensions");

 public:
  static constexpr std::array<int, 5> kStatic{Dims...};
  static constexpr int kDynamicCount = ((Dims == DYNAMIC ? 1 : 0) + ...);

  constexpr Extents() : v_{Dims...} {
    for (auto& d : v_)
      if (d == DYNAMIC) d = 1;
  }
  template <class... I, class = std::enable_if_t<(std::is_integral_v<I> && ...)>>
  constexpr Extents(I... values) : v_{Dims...} {
    static_assert(sizeof...(I) == 5 || sizeof...(I) == static_cast<std::size_t>(kDynamicCount),
                  "give one value per DYNAMIC dimension, or all five");
    const long long in[] = {static_cast<long long>(values)...};
    if constexpr (sizeof...(I) == 5) {
      for (int i = 0; i < 5; ++i) v_[i] = static_cast<int>(in[i]);
    } else {
      int k = 0;
      for (auto& d : v_)
        if (d == DYNAMIC) d = static_cast<int>(in[k++]);
    }
  }
  constexpr int operator[](int dim) const { return v_[dim]; }

 private:
  std::array<int, 5> v_;
};
}  // namespace detail

template <int D0 = DYNAMIC, int D1 = DYNAMIC, int D2 = DYNAMIC, int D3 = DYNAMIC, int D4 = DYNAMIC>
struct Shape : detail::Extents<D0, D1, D2, D3, D4> {
  using detail::Extents<D0, D1, D2, D3, D4>::Extents;
};

template <int S0 = DYNAMIC, int S1 = DYNAMIC, int S2 = DYNAMIC, int S3 = DYNAMIC, int S4 = DYNAMIC>
struct Stride : detail::Extents<S0, S1, S2, S3, S4> {
  using detail::Extents<S0, S1, S2, S3, S4>::Extents;
};

template <typename T, typename ShapeT = Shape<>, typename StrideT = Stride<>, Layout L = Layout::ND>
class GlobalTensor {
 public:
  using DType = T;
  using RawDType = std::remove_cv_t<T>;
  using ShapeType = ShapeT;
  using StrideType = StrideT;
  static constexpr Layout layout = L;

  GlobalTensor() = default;
  GlobalTensor(__gm__ T* data, const ShapeT& shape = {}, const StrideT& stride = {})
      : data_(data), shape_(shape), stride_(stride) {}

  __gm__ T* data() const { return data_; }
  std::int64_t GetShape(int dim) const { return shape_[dim]; }
  std::int64_t GetStride(int dim) const { return stride_[dim]; }
  const ShapeT& GetShape() const { return shape_; }
  const StrideT& GetStride() const { return stride_; }

  /// Number of elements.
  std::size_t Numel() const {
    std::size_t n = 1;
    for (int d = 0; d < 5; ++d) n *= static_cast<std::size_t>(shape_[d] < 0 ? 0 : shape_[d]);
    return n;
  }
  /// Flat, contiguous, logically one-dimensional: at most one dimension
  /// has an extent above 1, and its stride is 1. The stride of a dimension
  /// of extent 1 is never used, so it may be anything: (1,1,1,1,N) with
  /// strides (1,1,1,1,1) or (N,N,N,N,1), and (1,1,N,1,1) with stride 1 in
  /// dimension 2, are all the same N contiguous elements. A tensor with no
  /// element (an extent of 0) is flat. Not flat: two dimensions above 1 even
  /// when packed (a 2-D block), or the one such dimension with stride != 1.
  bool IsFlat1D() const {
    for (int d = 0; d < 5; ++d)
      if (shape_[d] < 0) return false;
    if (Numel() == 0) return true;
    int wide = 0;
    for (int d = 0; d < 5; ++d)
      if (shape_[d] > 1 && (++wide > 1 || stride_[d] != 1)) return false;
    return true;
  }

 private:
  __gm__ T* data_ = nullptr;
  ShapeT shape_{};
  StrideT stride_{};
};

}  // namespace pto
