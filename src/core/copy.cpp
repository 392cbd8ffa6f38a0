// The vector loops of copy_bytes and copy_streaming (core/copy.hpp).
#include "core/copy.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tilecomm {

namespace {

#if defined(__x86_64__)
template <bool Stream>
inline void store(char* p, __m128i v) noexcept {
  if constexpr (Stream) _mm_stream_si128(reinterpret_cast<__m128i*>(p), v);
  else _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}
#endif

// 64 bytes a step, unaligned loads; streaming (non-temporal) stores need a
// 16-byte aligned destination, which copy_streaming arranges. Returns the
// bytes copied (a multiple of 64).
template <bool Stream>
std::size_t copy_loop(char* d, const char* s, std::size_t n) noexcept {
  std::size_t i = 0;
#if defined(__x86_64__)
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    store<Stream>(d + i, a);
    store<Stream>(d + i + 16, b);
    store<Stream>(d + i + 32, c);
    store<Stream>(d + i + 48, e);
  }
#endif
  return i;
}

}  // namespace

void detail::copy_vector(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t i = copy_loop<false>(d, s, n);
  std::memcpy(d + i, s + i, n - i);
}

void copy_streaming(void* dst, const void* src, std::size_t n) noexcept {
#if defined(__x86_64__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t head = std::min(n, static_cast<std::size_t>((-reinterpret_cast<std::uintptr_t>(d)) & 15));
  std::memcpy(d, s, head);
  const std::size_t i = head + copy_loop<true>(d + head, s + head, n - head);
  std::memcpy(d + i, s + i, n - i);
  _mm_sfence();  // streaming stores are weakly ordered: visible before the next flag store
#else
  copy_bytes(dst, src, n);
#endif
}

}  // namespace tilecomm
