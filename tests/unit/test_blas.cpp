// The fused operators' BLAS: loaded by the first product, not before
// (NOTE [BLAS loading]), and the products it computes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "comm/blas.hpp"

namespace {

bool openblas_mapped() {
  std::ifstream maps("/proc/self/maps");
  const std::string text{std::istreambuf_iterator<char>(maps), std::istreambuf_iterator<char>()};
  return text.find("libopenblas") != std::string::npos;
}

}  // namespace

namespace tilecomm::ops {

TEST(Blas, LoadsAtTheFirstProductAndMultiplies) {
  ASSERT_FALSE(openblas_mapped()) << "OpenBLAS is in the process before any product";
  // [1 2 3; 4 5 6] @ [7 8; 9 10; 11 12] + 1 * c, with c = 1 everywhere.
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
  float c[4] = {1, 1, 1, 1};
  blas::gemm(2, 3, 2, a, 3, b, 2, 1.0f, c, 2);
  EXPECT_EQ(c[0], 59.0f);
  EXPECT_EQ(c[1], 65.0f);
  EXPECT_EQ(c[2], 140.0f);
  EXPECT_EQ(c[3], 155.0f);
  EXPECT_TRUE(openblas_mapped());
  // Double precision, one row of a wider c (ldc 3): the third column stays.
  const double x[2] = {2, -3}, y[4] = {1, 2, 3, 4};
  double z[3] = {5, 5, 5};
  blas::gemm(1, 2, 2, x, 2, y, 2, 0.0, z, 3);
  EXPECT_EQ(z[0], -7.0);
  EXPECT_EQ(z[1], -8.0);
  EXPECT_EQ(z[2], 5.0);
  // k = 0: nothing to multiply, c = beta * c.
  float d[2] = {3, 4};
  blas::gemm(1, 0, 2, a, 1, b, 2, 2.0f, d, 2);
  EXPECT_EQ(d[0], 6.0f);
  EXPECT_EQ(d[1], 8.0f);
  EXPECT_NE(blas::describe().find("OpenBLAS"), std::string::npos) << blas::describe();
}

}  // namespace tilecomm::ops
