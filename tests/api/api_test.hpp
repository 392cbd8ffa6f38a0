// Shared helpers of the tier-1 conformance tests (tests/api).
//
// Every PE runs every test (SPMD). Tests therefore use EXPECT_* around
// collective calls, never an early return, so that the barriers and
// collective allocations of all PEs stay in step even when a check fails.
#pragma once

#include <gtest/gtest.h>
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace api {

inline int me() { return shmem_my_pe(); }
inline int npes() { return shmem_n_pes(); }
inline int right() { return (me() + 1) % npes(); }
inline int left() { return (me() + npes() - 1) % npes(); }
inline void barrier() { shmem_barrier_all(); }
/// PE `pe` shares this PE's host (SHMEM_TEAM_SHARED): shmem_ptr reaches it.
/// Every PE, unless tests/hosts runs the suite over several hosts.
inline bool same_host(int pe) { return shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0; }

/// An exact value of type T, distinct for neighbouring (pe, i, salt), that is
/// representable in every type of the specification's tables (char types
/// stay in 1..127, floating point values are exact binary fractions). The
/// 64-bit integers use their high bits too.
template <class T>
T value(int pe, std::size_t i, int salt) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<double>(pe * 1000 + static_cast<long>(i % 997) + salt * 10) + 0.25);
  } else if constexpr (sizeof(T) == 1) {
    return static_cast<T>((pe * 37 + i * 11 + static_cast<std::size_t>(salt) * 5) % 127 + 1);
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>((pe * 3001 + i * 13 + static_cast<std::size_t>(salt) * 101) % 32749 + 1);
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>((pe * 100003ull + i * 17 + static_cast<std::size_t>(salt) * 7919) % 2147483629ull + 1);
  } else {
    std::uint64_t v = (std::uint64_t(pe + 1) << 44) | (std::uint64_t(salt & 0xff) << 34) |
                      ((std::uint64_t(i) * 2654435761ull) % 4294967291ull);
    return static_cast<T>(v);  // < 2^63: positive in the signed types too
  }
}

/// Printable form of any table type (chars as numbers, long double in full).
template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) os << static_cast<long long>(v);
  else if constexpr (std::is_integral_v<T>) os << static_cast<unsigned long long>(v);
  else os << std::setprecision(21) << static_cast<long double>(v);
  return os.str();
}

/// Checks got[i * stride] == expected(i) for i < n and reports the number of
/// mismatches and the first one, instead of one failure per element.
template <class T, class F>
::testing::AssertionResult all_equal(const T* got, std::size_t n, F expected, std::size_t stride = 1) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(got[i * stride] == static_cast<T>(expected(i)))) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "PE " << me() << ": " << bad << " of " << n
                                       << " elements differ; first at [" << first << "]: got "
                                       << show(got[first * stride]) << ", expected "
                                       << show(static_cast<T>(expected(first)));
}

/// Byte-wise comparison with the same kind of report.
inline ::testing::AssertionResult bytes_equal(const void* got, const void* want, std::size_t n) {
  auto* g = static_cast<const unsigned char*>(got);
  auto* w = static_cast<const unsigned char*>(want);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (g[i] != w[i] && bad++ == 0) first = i;
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "PE " << me() << ": " << bad << " of " << n
                                       << " bytes differ; first at [" << first << "]: got " << int(g[first])
                                       << ", expected " << int(w[first]);
}

/// A symmetric array of n T, zeroed; freed (collectively) at scope exit.
/// Allocation is collective and agreed by every PE, so all PEs see the same
/// outcome: a test that checks `ok()` stays in step with the others.
template <class T>
class Sym {
 public:
  explicit Sym(std::size_t n) : n_(n), p_(static_cast<T*>(shmem_calloc(n, sizeof(T)))) {
    EXPECT_NE(p_, nullptr) << "shmem_calloc(" << n << ", " << sizeof(T) << ") failed";
  }
  ~Sym() { shmem_free(p_); }
  Sym(const Sym&) = delete;
  Sym& operator=(const Sym&) = delete;

  bool ok() const { return p_ != nullptr; }
  T* get() const { return p_; }
  T& operator[](std::size_t i) const { return p_[i]; }
  std::size_t size() const { return n_; }

 private:
  std::size_t n_;
  T* p_;
};

/// A context created for one test and destroyed at scope exit.
class Ctx {
 public:
  explicit Ctx(long options = 0, shmem_team_t team = SHMEM_TEAM_WORLD) {
    int rc = shmem_team_create_ctx(team, options, &ctx_);
    EXPECT_EQ(rc, 0) << "shmem_team_create_ctx(options=" << options << ")";
    EXPECT_NE(ctx_, SHMEM_CTX_INVALID);
  }
  ~Ctx() {
    if (ctx_ != SHMEM_CTX_INVALID) shmem_ctx_destroy(ctx_);
  }
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;
  shmem_ctx_t get() const { return ctx_; }
  bool ok() const { return ctx_ != SHMEM_CTX_INVALID; }

 private:
  shmem_ctx_t ctx_ = SHMEM_CTX_INVALID;
};

}  // namespace api
