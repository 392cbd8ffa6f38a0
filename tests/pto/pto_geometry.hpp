// Test helper of the PTO tests: a five-dimensional shape with its strides
// over a buffer, to fill a buffer with a pattern (gaps get a sentinel), to
// check one exactly (gaps must still hold the sentinel), and to build the
// GlobalTensor a kernel uses.
#pragma once

#include <gtest/gtest.h>
#include <pto/common/pto_tensor.hpp>
#include <shmem.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <vector>

namespace pto_test {

struct Geo {
  std::array<std::int64_t, 5> shape;
  std::array<std::int64_t, 5> stride;

  /// Packed strides.
  static Geo dense(std::array<std::int64_t, 5> s) {
    Geo g{s, {}};
    std::int64_t step = 1;
    for (int d = 4; d >= 0; --d) g.stride[d] = step, step *= s[d];
    return g;
  }
  /// Elements the buffer needs: the largest offset + 1.
  std::size_t span() const {
    std::int64_t last = 0;
    for (int d = 0; d < 5; ++d) last += (shape[d] - 1) * stride[d];
    return static_cast<std::size_t>(last + 1);
  }
  /// f(logical index, buffer offset) for every element, in logical order.
  template <class F>
  void each(F f) const {
    std::size_t flat = 0;
    for (std::int64_t a = 0; a < shape[0]; ++a)
      for (std::int64_t b = 0; b < shape[1]; ++b)
        for (std::int64_t c = 0; c < shape[2]; ++c)
          for (std::int64_t r = 0; r < shape[3]; ++r)
            for (std::int64_t k = 0; k < shape[4]; ++k)
              f(flat++, a * stride[0] + b * stride[1] + c * stride[2] + r * stride[3] + k * stride[4]);
  }
  template <class T, class F>
  void fill(T* buf, F value, T gap) const {
    for (std::size_t i = 0; i < span(); ++i) buf[i] = gap;
    each([&](std::size_t i, std::int64_t off) { buf[off] = static_cast<T>(value(i)); });
  }
  /// Every element equals expected(logical index); every gap equals `gap`.
  template <class T, class F>
  testing::AssertionResult check(const T* buf, F expected, T gap) const {
    std::vector<std::int64_t> logical(span(), -1);
    each([&](std::size_t i, std::int64_t off) { logical[off] = static_cast<std::int64_t>(i); });
    std::size_t bad = 0, first = 0;
    for (std::size_t o = 0; o < logical.size(); ++o) {
      const T want = logical[o] < 0 ? gap : static_cast<T>(expected(static_cast<std::size_t>(logical[o])));
      if (!(buf[o] == want) && bad++ == 0) first = o;
    }
    if (bad == 0) return testing::AssertionSuccess();
    std::ostringstream os;
    os << bad << " of " << logical.size() << " buffer elements differ; first at offset " << first << " ("
       << (logical[first] < 0 ? std::string("a gap") : "element " + std::to_string(logical[first])) << "): got "
       << +buf[first] << ", expected "
       << +(logical[first] < 0 ? gap : static_cast<T>(expected(static_cast<std::size_t>(logical[first]))));
    return testing::AssertionFailure() << os.str();
  }
  template <class T>
  pto::GlobalTensor<T, pto::Shape<>, pto::Stride<>> tensor(T* p) const {
    return {p, pto::Shape<>(shape[0], shape[1], shape[2], shape[3], shape[4]),
            pto::Stride<>(stride[0], stride[1], stride[2], stride[3], stride[4])};
  }
};

/// PE `pe`'s copy of symmetric buffer `p`, as mapped in this process.
template <class T, class P>
T* at_pe(P* p, int pe) {
  return static_cast<T*>(shmem_ptr(p, pe));
}

}  // namespace pto_test
