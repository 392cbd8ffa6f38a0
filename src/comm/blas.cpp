// OpenBLAS behind the fused operators (blas.hpp).
#include "comm/blas.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>

#include "core/error.hpp"

namespace tilecomm::ops::blas {

namespace {

constexpr const char* kLibrary = "libopenblas.so.0";

#define TC_BLAS_FUNCTIONS(X) \
  X(cblas_sgemm) X(cblas_dgemm) X(openblas_set_num_threads) X(openblas_get_num_threads) X(openblas_get_config)

struct Api {
#define TC_BLAS_MEMBER(f) decltype(&::f) f = nullptr;
  TC_BLAS_FUNCTIONS(TC_BLAS_MEMBER)
#undef TC_BLAS_MEMBER
};

// NOTE [BLAS loading] [BLAS threads] OpenBLAS, loaded on first use; raises
// when it is missing.
const Api& api() {
  static const Api a = [] {
    void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      raise(ErrorCode::System, "the matrix products of the fused operators need OpenBLAS: cannot load %s (%s); "
            "install Debian's libopenblas0", kLibrary, dlerror());
    Api r;
#define TC_BLAS_LOAD(f)                                                                        \
  r.f = reinterpret_cast<decltype(r.f)>(dlsym(lib, #f));                                       \
  if (!r.f) raise(ErrorCode::System, "%s has no %s: is it OpenBLAS 0.3 or later?", kLibrary, #f);
    TC_BLAS_FUNCTIONS(TC_BLAS_LOAD)
#undef TC_BLAS_LOAD
    if (!std::getenv("OPENBLAS_NUM_THREADS") && !std::getenv("OMP_NUM_THREADS")) r.openblas_set_num_threads(1);
    return r;
  }();
  return a;
}

// Zero dimensions are legal for the operators but not for the BLAS
// (leading dimensions of at least 1): nothing to multiply, c = beta * c.
template <class T>
bool trivial(std::size_t rows, std::size_t k, std::size_t n, T beta, T* c, std::size_t ldc) {
  if (rows && n && k) return false;
  for (std::size_t i = 0; i < rows && k == 0; ++i)
    for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
  return true;
}

// Both precisions: the same call, sgemm or dgemm.
template <class T>
void gemm_of(std::size_t rows, std::size_t k, std::size_t n, const T* a, std::size_t lda, const T* b,
             std::size_t ldb, T beta, T* c, std::size_t ldc) {
  if (trivial(rows, k, n, beta, c, ldc)) return;
  const Api& blas = api();
  const auto m = static_cast<blasint>(rows), nn = static_cast<blasint>(n), kk = static_cast<blasint>(k);
  const auto la = static_cast<blasint>(lda), lb = static_cast<blasint>(ldb), lc = static_cast<blasint>(ldc);
  if constexpr (std::is_same_v<T, float>)
    blas.cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, nn, kk, 1.0f, a, la, b, lb, beta, c, lc);
  else
    blas.cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, nn, kk, 1.0, a, la, b, lb, beta, c, lc);
}

}  // namespace

void gemm(std::size_t rows, std::size_t k, std::size_t n, const float* a, std::size_t lda, const float* b,
          std::size_t ldb, float beta, float* c, std::size_t ldc) {
  gemm_of(rows, k, n, a, lda, b, ldb, beta, c, ldc);
}
void gemm(std::size_t rows, std::size_t k, std::size_t n, const double* a, std::size_t lda, const double* b,
          std::size_t ldb, double beta, double* c, std::size_t ldc) {
  gemm_of(rows, k, n, a, lda, b, ldb, beta, c, ldc);
}

std::string describe() {
  try {
    const Api& blas = api();
    const int threads = blas.openblas_get_num_threads();
    return std::string(blas.openblas_get_config()) + ", " + std::to_string(threads) +
           (threads == 1 ? " thread" : " threads") + " per process, loaded at the first product";
  } catch (const Error& e) {
    return std::string("not available: ") + e.what();
  }
}

}  // namespace tilecomm::ops::blas
