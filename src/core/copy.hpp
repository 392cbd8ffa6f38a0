// Copies between memory that peers, users and the library each allocated
// in their own way: memcpy, minus one trap of this class of hosts.
//
// NOTE [copy aliasing] glibc copies 4 KiB and more with `rep movsb` on CPUs
// that advertise fast string moves. Measured on an AMD EPYC (Zen 3, KVM,
// glibc 2.36): when the destination sits 1 to 31 bytes past the source
// modulo 4096 the copy runs at 1.6-2 GB/s instead of 35-48 (32 KiB: 20 us
// against 0.9). That is exactly the case of a malloc'd buffer (16 bytes
// past a page) receiving from page-aligned symmetric memory or a window,
// so copy_bytes() takes its own vector loop for those offsets.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tilecomm {

namespace detail {
void copy_vector(void* dst, const void* src, std::size_t n) noexcept;
void copy_string(void* dst, const void* src, std::size_t n) noexcept;
inline constexpr std::size_t kStringCopyMin = std::size_t{256} << 10;  // NOTE [string copies] (copy.cpp)
}  // namespace detail

/// memcpy (dst and src do not overlap) that avoids the slow offsets of
/// NOTE [copy aliasing] and copies large blocks as NOTE [string copies] says.
inline void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
  const auto delta = (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  if (n >= 2048 && delta - 1 < 63) detail::copy_vector(dst, src, n);
  else if (n >= detail::kStringCopyMin) detail::copy_string(dst, src, n);
  else std::memcpy(dst, src, n);
}

/// Whether this CPU moves strings fast (`rep movsb`, the ERMS bit of CPUID
/// leaf 7): large copies then use it (NOTE [string copies]).
bool fast_strings() noexcept;

/// This CPU's L2 cache (per core) in bytes; 0 where the system does not say.
std::size_t l2_cache_bytes() noexcept;

/// A copy with non-temporal stores, for destinations larger than the caches
/// (NOTE [streaming copies] in coll/copy.cpp); complete and ordered
/// (sfence) on return.
void copy_streaming(void* dst, const void* src, std::size_t n) noexcept;

}  // namespace tilecomm
