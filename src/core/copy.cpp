// The vector loops of copy_bytes and copy_streaming, and what the CPU offers them (core/copy.hpp).
#include "core/copy.hpp"

#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
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

// NOTE [string copies] glibc 2.36 copies with `rep movsb` from a few KiB
// (2-16 KiB, by CPU) up to a stop size, which on AMD CPUs is the L2 cache,
// and with a loop of vector stores above it. Each vector store first reads its destination
// line (read for ownership); `rep movsb` writes whole lines without
// reading them. So from 256 KiB, copy_bytes() runs `rep movsb` itself on
// CPUs with fast string moves (the ERMS bit of CPUID leaf 7); below that
// size memcpy already does. Measured on an AMD EPYC (Zen 5, 1 MiB L2,
// KVM), medians of 4 interleaved runs of tilecomm-perf on 2 PEs, against
// memcpy:
// - fcollect of 1 and 2 MiB per PE: 43.3 and 90.8 us against 51.7 and
//   91.4; alltoall 43.5 and 89.1 against 53.9 and 97.6. From 4 to 32 MiB
//   per PE (memcpy's build streaming from 16 MiB written) the string copy
//   came out from 8% slower to 18% faster, within this host's spread; an
//   earlier alternation had it 15% faster at 4 MiB, this one 5% slower.
// - shmem_putmem of 2, 8 and 16 MiB: 49, 43 and 27 GB/s against 40, 35
//   and 20; shmem_getmem 51, 42 and 29 against 41, 37 and 24 (3 runs).
// glibc stops at the L2 on AMD because, its comment says, `rep movsb`
// performed poorly above it on Zen 3. No Zen 3 host was at hand to
// measure: check this rule on each new kind of CPU. It also changes when
// the collectives stream (NOTE [streaming copies]).
bool fast_strings() noexcept {
#if defined(__x86_64__)
  static const bool erms = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 9)) != 0;
  }();
  return erms;
#else
  return false;
#endif
}

std::size_t l2_cache_bytes() noexcept {
  static const std::size_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<std::size_t>(l2) : std::size_t{0};
  }();
  return bytes;
}

void detail::copy_string(void* dst, const void* src, std::size_t n) noexcept {
#if defined(__x86_64__)
  if (fast_strings()) {
    asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
    return;
  }
#endif
  std::memcpy(dst, src, n);
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
