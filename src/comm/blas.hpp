// The matrix products of the fused operators, through OpenBLAS (row-major).
//
// NOTE [BLAS threads] tilecomm runs one process per PE and expects the PEs
// of a host to fill its CPUs, so a BLAS that starts its own thread per CPU
// in every PE would oversubscribe them (2 PEs on 2 CPUs: 4 threads). Unless
// OPENBLAS_NUM_THREADS or OMP_NUM_THREADS says otherwise, the first product
// sets OpenBLAS to one thread per process.
#pragma once

#include <cstddef>
#include <string>

namespace tilecomm::ops::blas {

/// c (rows x n, row stride ldc) = a (rows x k, lda) @ b (k x n, ldb) + beta * c.
void gemm(std::size_t rows, std::size_t k, std::size_t n, const float* a, std::size_t lda, const float* b,
          std::size_t ldb, float beta, float* c, std::size_t ldc);
void gemm(std::size_t rows, std::size_t k, std::size_t n, const double* a, std::size_t lda, const double* b,
          std::size_t ldb, double beta, double* c, std::size_t ldc);

/// "OpenBLAS 0.3.21 ... (1 thread per process: NOTE [BLAS threads])", for tilecomm-info.
std::string describe();

}  // namespace tilecomm::ops::blas
