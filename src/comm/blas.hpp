// The matrix products of the fused operators, through OpenBLAS (row-major).
//
// NOTE [BLAS loading] OpenBLAS is loaded (dlopen of libopenblas.so.0) by
// the first product, not linked: Debian's OpenBLAS starts a thread per
// extra CPU when it loads, and that thread polls with sched_yield for about
// 0.1 s before it sleeps. Linked, every PE of every job carried that thread
// (and libgfortran), and it took CPU time from the PEs while they started
// and while a benchmark's first rounds ran. Loaded by the first product,
// only a process that multiplies pays for it.
//
// NOTE [BLAS threads] tilecomm runs one process per PE and expects the PEs
// of a host to fill its CPUs, so a BLAS that starts its own thread per CPU
// in every PE would oversubscribe them (2 PEs on 2 CPUs: 4 threads). Unless
// OPENBLAS_NUM_THREADS or OMP_NUM_THREADS says otherwise, loading sets
// OpenBLAS to one thread per process.
#pragma once

#include <cstddef>
#include <string>

namespace tilecomm::ops::blas {

/// c (rows x n, row stride ldc) = a (rows x k, lda) @ b (k x n, ldb) + beta * c.
void gemm(std::size_t rows, std::size_t k, std::size_t n, const float* a, std::size_t lda, const float* b,
          std::size_t ldb, float beta, float* c, std::size_t ldc);
void gemm(std::size_t rows, std::size_t k, std::size_t n, const double* a, std::size_t lda, const double* b,
          std::size_t ldb, double beta, double* c, std::size_t ldc);

/// "OpenBLAS 0.3.21 ..., 1 thread per process, loaded at the first product", or
/// "not available: <why>", for tilecomm-info (which loads it).
std::string describe();

}  // namespace tilecomm::ops::blas
