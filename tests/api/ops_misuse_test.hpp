// Shared by the misuse tests of the operators (test_ops_misuse.cpp): what a
// call threw, the calls as the library's messages name them
// (comm::describe), the message of a first run whose calls differ, and
// correct calls checked exactly -- an int32 AllReduce, an AllToAllV of a
// count matrix, the fused matmuls on small integers in fp32 against a
// serial reference.
#pragma once

#include <tilecomm/ops.hpp>

#include <gmock/gmock.h>

#include <cstdio>
#include <string>
#include <vector>

#include "api_test.hpp"
#include "ops_test.hpp"

namespace api::misuse {

using tilecomm::Comm;
using tilecomm::ErrorCode;
using ops::DataType;
using ops::MatmulOptions;
using ops::MatmulShape;
using ops::ReduceOp;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- what a call threw -------------------------------------------------------------

struct Caught {
  bool thrown = false;
  ErrorCode code = ErrorCode::System;
  std::string what = "(no error)";
};

template <class F>
Caught caught(F&& fn) {
  try {
    fn();
  } catch (const tilecomm::Error& e) {
    return {true, e.code(), e.what()};
  }
  return {};
}

// fn() throws InvalidUsage whose message holds every one of `parts`.
template <class F>
void expect_refused(F&& fn, std::initializer_list<std::string> parts) {
  const Caught c = caught(fn);
  EXPECT_TRUE(c.thrown) << "PE " << me() << ": no error; expected one holding " << *parts.begin();
  EXPECT_EQ(c.code, ErrorCode::InvalidUsage) << c.what;
  for (const std::string& p : parts) EXPECT_THAT(c.what, HasSubstr(p)) << "PE " << me();
}

inline std::string pointer(const void* p) {
  char s[32];
  std::snprintf(s, sizeof s, "%p", p);
  return s;
}

// ---- the calls as messages name them (comm::describe) -------------------------------

inline std::string counted(const char* name, std::uint64_t count, DataType t) {
  return std::string(name) + "(count=" + std::to_string(count) + ", " + ops::name_of(t) + ")";
}
inline std::string reducing(const char* name, std::uint64_t count, DataType t, ReduceOp op) {
  return std::string(name) + "(count=" + std::to_string(count) + ", " + ops::name_of(t) + ", " + ops::name_of(op) + ")";
}
inline std::string rooted(const char* name, std::uint64_t count, DataType t, ReduceOp op, int root) {
  std::string s = std::string(name) + "(count=" + std::to_string(count) + ", " + ops::name_of(t);
  if (std::string(name) == "Reduce") s += std::string(", ") + ops::name_of(op);
  return s + ", root=" + std::to_string(root) + ")";
}
// AllToAllV: the FNV-1a hash of the matrix's bytes (little-endian words).
inline std::string matrix_call(DataType t, const std::vector<std::uint64_t>& counts) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t c : counts)
    for (int i = 0; i < 8; ++i) h = (h ^ ((c >> (8 * i)) & 0xff)) * 1099511628211ull;
  char s[96];
  std::snprintf(s, sizeof s, "AllToAllV(%s, count matrix %016llx)", ops::name_of(t),
                static_cast<unsigned long long>(h));
  return s;
}
inline std::string matmul_call(const char* name, const ops::Executor& ex, MatmulShape s, DataType t, bool bias,
                               bool gather) {
  return std::string(name) + "(m=" + std::to_string(s.m) + ", k=" + std::to_string(s.k) + ", n=" + std::to_string(s.n) +
         ", " + ops::name_of(t) + ", " + ops::name_of(ex.moves()) + ", " + std::to_string(ex.tiles()) + " tiles" +
         (bias ? ", bias" : "") + (gather ? ", gather_out" : "") + ")";
}

// The error of a first run whose calls differ: even ranks made `even`, odd
// ranks `odd`; every rank throws the same list, as call number `call`.
inline void expect_calls_differ(const Caught& c, int n, std::uint64_t call, const std::string& even,
                                const std::string& odd) {
  const std::string mine = me() % 2 ? odd : even;
  std::string listed = "the ranks made different calls as call #" + std::to_string(call) +
                       " of the communicator: rank 0: " + even;
  for (int r = 1; r < n; r += 2) listed += "; rank " + std::to_string(r) + ": " + odd;
  listed += "; every rank must make the same operator calls in the same order with the same arguments";
  EXPECT_TRUE(c.thrown) << "PE " << me() << ": call #" << call << " returned although the ranks' calls differ";
  EXPECT_EQ(c.code, ErrorCode::InvalidUsage) << c.what;
  EXPECT_THAT(c.what, StartsWith("tilecomm::ops::" + mine.substr(0, mine.find('(')) + ": ")) << "PE " << me();
  EXPECT_THAT(c.what, HasSubstr(listed)) << "PE " << me();
}

// ---- correct calls, checked exactly -------------------------------------------------

inline std::int32_t arv(int r, std::size_t i, int salt) { return static_cast<std::int32_t>(r * 100 + i + salt); }

// AllReduce (sum) of `count` int32, planned and run: the wrong elements.
inline std::int64_t allreduce(Comm& comm, std::size_t count, int salt = 0) {
  const int n = comm.size();
  std::vector<std::int32_t> in(count), out(count, -1);
  for (std::size_t i = 0; i < count; ++i) in[i] = arv(comm.rank(), i, salt);
  ops::Executor ex;
  ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), count, DataType::Int32, ReduceOp::Sum, &ex);
  ops::AllReduce(nullptr, 0, &ex);
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) bad += out[i] != n * static_cast<std::int32_t>(i + salt) + 50 * n * (n - 1);
  return bad;
}

// The same through the one-call form, with the caller's buffers.
inline std::int64_t allreduce_once(Comm& comm, std::int32_t* in, std::int32_t* out, std::size_t count, int salt) {
  const int n = comm.size();
  for (std::size_t i = 0; i < count; ++i) in[i] = arv(comm.rank(), i, salt);
  ops::AllReduce(comm, in, out, count, DataType::Int32, ReduceOp::Sum);
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) bad += out[i] != n * static_cast<std::int32_t>(i + salt) + 50 * n * (n - 1);
  return bad;
}

// AllToAllV: rank s sends counts[s * n + d] elements s*1000 + d*100 + j to rank d.
inline std::vector<std::uint64_t> matrix(int n, int k) {
  std::vector<std::uint64_t> m(static_cast<std::size_t>(n) * n);
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      m[s * n + d] = static_cast<std::uint64_t>(s + 2 * d + k) % 3 + static_cast<std::uint64_t>(k);
  return m;
}
struct AllToAllVCall {
  std::vector<std::int32_t> in, out;
  ops::Executor ex;
  AllToAllVCall(Comm& comm, const std::vector<std::uint64_t>& m) {
    const int n = comm.size(), me_ = comm.rank();
    for (int d = 0; d < n; ++d)
      for (std::uint64_t j = 0; j < m[me_ * n + d]; ++j)
        in.push_back(static_cast<std::int32_t>(me_ * 1000 + d * 100 + j));
    std::size_t received = 0;
    for (int s = 0; s < n; ++s) received += m[s * n + me_];
    out.assign(received + 1, -1);
    in.push_back(0);  // never empty: data() is not null
    ops::AllToAllVGetWorkspaceSize(comm, in.data(), out.data(), m.data(), DataType::Int32, &ex);
  }
  void run() { ops::AllToAllV(nullptr, 0, &ex); }
  std::int64_t wrong(Comm& comm, const std::vector<std::uint64_t>& m) const {
    const int n = comm.size(), me_ = comm.rank();
    std::int64_t bad = 0;
    std::size_t at = 0;
    for (int s = 0; s < n; ++s)
      for (std::uint64_t j = 0; j < m[s * n + me_]; ++j)
        bad += out[at++] != static_cast<std::int32_t>(s * 1000 + me_ * 100 + j);
    return bad + (out[at] != -1);
  }
};

// Fused matmuls in fp32 on small integers (exact): rank r's x1 (m x k), x2
// (k x n); the bias is the same on every rank.
inline float x1v(int r, std::size_t i, std::size_t j) { return static_cast<float>((r * 3 + i * 5 + j * 7) % 7) - 3; }
inline float x2v(int r, std::size_t j, std::size_t c) { return static_cast<float>((r * 5 + j * 3 + c) % 5) - 2; }
inline float biasv(std::size_t c) { return static_cast<float>(c % 4) - 1; }

struct MatmulCall {
  enum Op { Gather, AllReduce, ReduceScatter } op;
  Comm& comm;
  MatmulShape s;
  bool with_bias, with_gather;
  MatmulOptions options;
  std::vector<float> x1, x2, bias, y, gather;
  ops::Executor ex;
  std::vector<std::uint8_t> workspace;

  MatmulCall(Op o, Comm& c, MatmulShape shape, bool b, bool g, MatmulOptions opt = {})
      : op(o), comm(c), s(shape), with_bias(b), with_gather(g), options(opt) {
    const int n = comm.size(), r = comm.rank();
    x1.resize(s.m * s.k + 1);
    x2.resize(s.k * s.n + 1);
    bias.resize(s.n + 1);
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t j = 0; j < s.k; ++j) x1[i * s.k + j] = x1v(r, i, j);
    for (std::size_t j = 0; j < s.k; ++j)
      for (std::size_t k = 0; k < s.n; ++k) x2[j * s.n + k] = x2v(r, j, k);
    for (std::size_t k = 0; k < s.n; ++k) bias[k] = biasv(k);
    const std::size_t rows = op == Gather ? n * s.m : op == AllReduce ? s.m : s.m / n;
    y.assign(rows * s.n + 1, -99);
    gather.assign(n * s.m * s.k + 1, -99);
  }
  const char* name() const {
    return op == Gather ? "AllGatherMatmul" : op == AllReduce ? "MatmulAllReduce" : "MatmulReduceScatter";
  }
  void plan() {
    const float* b = with_bias ? bias.data() : nullptr;
    std::uint64_t ws;
    if (op == Gather)
      ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), b, y.data(),
                                                with_gather ? gather.data() : nullptr, s, DataType::Fp32, &ex, options);
    else if (op == AllReduce)
      ws = ops::MatmulAllReduceGetWorkspaceSize(comm, x1.data(), x2.data(), b, y.data(), s, DataType::Fp32, &ex,
                                                options);
    else
      ws = ops::MatmulReduceScatterGetWorkspaceSize(comm, x1.data(), x2.data(), b, y.data(), s, DataType::Fp32, &ex,
                                                    options);
    workspace.assign(ws + 1, 0);
  }
  void run() {
    if (op == Gather) ops::AllGatherMatmul(workspace.data(), workspace.size(), &ex);
    else if (op == AllReduce) ops::MatmulAllReduce(workspace.data(), workspace.size(), &ex);
    else ops::MatmulReduceScatter(workspace.data(), workspace.size(), &ex);
  }
  std::string call() const { return matmul_call(name(), ex, s, DataType::Fp32, with_bias, with_gather); }
  // The wrong elements of y (and gather_out), against the serial reference.
  std::int64_t wrong() const {
    const int n = comm.size(), me_ = comm.rank();
    std::int64_t bad = 0;
    auto product = [&](int r, std::size_t i, std::size_t c, int weights) {  // x1_r row i times x2_weights column c
      double v = 0;
      for (std::size_t j = 0; j < s.k; ++j) v += x1v(r, i, j) * x2v(weights, j, c);
      return v;
    };
    if (op == Gather) {
      for (int r = 0; r < n; ++r)
        for (std::size_t i = 0; i < s.m; ++i)
          for (std::size_t c = 0; c < s.n; ++c)
            bad += y[(r * s.m + i) * s.n + c] != product(r, i, c, me_) + (with_bias ? biasv(c) : 0);
      if (with_gather)
        for (int r = 0; r < n; ++r)
          for (std::size_t i = 0; i < s.m; ++i)
            for (std::size_t j = 0; j < s.k; ++j) bad += gather[(r * s.m + i) * s.k + j] != x1v(r, i, j);
    } else {
      const std::size_t first = op == AllReduce ? 0 : me_ * s.m / n, rows = op == AllReduce ? s.m : s.m / n;
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t c = 0; c < s.n; ++c) {
          double v = with_bias ? biasv(c) : 0;
          for (int r = 0; r < n; ++r) v += product(r, first + i, c, r);
          bad += y[i * s.n + c] != v;
        }
    }
    return bad + (y.back() != -99);
  }
};

// A matmul call planned and run on every rank alike: its wrong elements.
inline std::int64_t matmul(MatmulCall::Op op, Comm& comm, MatmulShape s, bool bias, bool gather,
                           MatmulOptions o = {}) {
  MatmulCall c(op, comm, s, bias, gather, o);
  c.plan();
  c.run();
  return c.wrong();
}

inline Comm world() { return Comm::world(window(64 << 10)); }

}  // namespace api::misuse
