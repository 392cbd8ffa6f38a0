// The fused operators of <tilecomm/ops.hpp> -- AllGatherAdd, AllGatherMatmul,
// MatmulReduceScatter, MatmulAllReduce -- and ops::Matmul: every matmul type
// (AllGatherAdd: every type), shapes that are not powers of two, with and
// without bias and gather_out, shapes larger than the window (several
// rounds), strided sub-team communicators, explicit tile counts, both forms
// of each matmul operator (ops::Moves: shards or weights, products or
// operands travel), a plan run
// twice, 200 back-to-back calls with random per-rank delays, the errors, and
// the fused results against the unfused composition (AllGather/ReduceScatter/
// AllReduce operator + ops::Matmul).
//
// Every rank computes a serial reference from inputs every rank regenerates:
// rank r's matrices are a hash of (call, r, row, column) mapped to small
// integers. Products and sums of small integers are exact in fp32 as long as
// every partial sum stays below 2^24 (fp64: 2^53), whatever order the BLAS or
// the reduction adds them in, so fp32 and fp64 results must equal the
// reference exactly. fp16 and bf16 hold every integer up to 2^11 and 2^8:
// their matrices are made sparse (x1[i][j] is non-zero only on every
// stride-th diagonal) and small enough that the sum of the magnitudes of all
// terms -- over k and over the ranks, plus the bias -- stays within that
// bound. Every intermediate value is then exact however often an
// implementation rounds, and these results are compared exactly too.
//
// One test (HalfPrecisionResultsAreRoundedOnce) uses dense non-negative
// values whose results fp16/bf16 cannot hold. The header's rule: products
// and sums in fp32 (exact here), rounded once to the type. One rounding to
// nearest errs by at most u * |y|, u = 2^-11 for fp16 and 2^-8 for bf16:
// that is the tolerance.
#include <tilecomm/ops.hpp>

#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api_test.hpp"
#include "ops_test.hpp"

using namespace api;
using tilecomm::Comm;
using ops::DataType;
using ops::MatmulOptions;
using ops::MatmulShape;
using ops::Moves;

namespace {

constexpr DataType kMatmulTypes[] = {DataType::Fp32, DataType::Fp64, DataType::Fp16, DataType::Bf16};
// m (rows of x1 per rank; MatmulReduceScatter: per rank of y), k, n: every
// value of 1, 3, 7, 33, 65 in every position.
constexpr MatmulShape kShapes[] = {{1, 1, 1}, {3, 7, 33}, {7, 33, 65}, {33, 65, 1}, {65, 1, 3}, {1, 65, 7}, {65, 3, 33}};

enum class Fused { AllGatherMatmul, MatmulReduceScatter, MatmulAllReduce };
constexpr Fused kFused[] = {Fused::AllGatherMatmul, Fused::MatmulReduceScatter, Fused::MatmulAllReduce};
const char* name_of(Fused f) {
  return f == Fused::AllGatherMatmul ? "AllGatherMatmul" : f == Fused::MatmulReduceScatter ? "MatmulReduceScatter"
                                                                                            : "MatmulAllReduce";
}

// A deterministic hash of four numbers (the same on every rank).
std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  std::uint64_t h = 0x243f6a8885a308d3ull;
  for (std::uint64_t v : {a, b, c, d}) {
    h = (h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
    h ^= h >> 31;
  }
  return h;
}

// An integer in lo..hi picked by (salt, rank, i, j).
double pick(std::uint64_t salt, int rank, std::size_t i, std::size_t j, long lo, long hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo + 1);
  return static_cast<double>(lo + static_cast<long>(mix(salt, static_cast<std::uint64_t>(rank), i, j) % span));
}

// Every integer up to this magnitude is exact in t.
double exact_limit(DataType t) {
  return t == DataType::Fp16 ? 2048 : t == DataType::Bf16 ? 256 : t == DataType::Fp32 ? 0x1p24 : 0x1p53;
}

// The unit roundoff of t: one rounding to nearest errs by at most u * |x|.
double unit_roundoff(DataType t) {
  return t == DataType::Fp16 ? 0x1p-11 : t == DataType::Bf16 ? 0x1p-8 : t == DataType::Fp32 ? 0x1p-24 : 0x1p-53;
}

// The inputs of one matmul call on `ranks` ranks: x1 of rank r (m x k), x2
// of rank r (k x n), the bias of rank r (n). Values in -3..3 (bias -8..8);
// for fp16/bf16 values in -1..1 (bias -4..4) with x1 non-zero only where
// (i + j + r) % stride == 0, the stride chosen so that the results stay
// exact (see the top of the file). `dense`: values in 0..7 (bias -8..8),
// large sums that fp16/bf16 results must round.
struct Inputs {
  MatmulShape s;
  int ranks;
  std::uint64_t salt;
  long lo = -3, hi = 3, bias_range = 8;
  std::uint64_t stride = 1;
  bool exact = true;  // every result and intermediate value exact in the type

  Inputs(DataType t, MatmulShape shape, int nranks, std::uint64_t salt_, bool dense = false)
      : s(shape), ranks(nranks), salt(salt_) {
    if (dense) {
      lo = 0;
      hi = 7;
    } else if (t == DataType::Fp16 || t == DataType::Bf16) {
      lo = -1;
      hi = 1;
      bias_range = 4;
      while (bound() > exact_limit(t)) ++stride;
    }
    exact = bound() <= exact_limit(t);
  }
  // The largest sum of magnitudes of the terms of one result element.
  double bound() const {
    const double most = static_cast<double>(std::max(-lo, hi));
    return static_cast<double>(ranks) * static_cast<double>((s.k + stride - 1) / stride) * most * most + bias_range;
  }
  double x1(int r, std::size_t i, std::size_t j) const {
    return (i + j + static_cast<std::size_t>(r)) % stride ? 0 : pick(salt, r, i, j, lo, hi);
  }
  double x2(int r, std::size_t j, std::size_t c) const { return pick(salt + 1, r, j, c, lo, hi); }
  double bias(int r, std::size_t c) const { return pick(salt + 2, r, c, 0, -bias_range, bias_range); }
};

// A typed buffer with a guard byte after its last element; outputs start
// filled with 0xa5.
struct Buf {
  DataType t;
  std::vector<std::uint8_t> bytes;
  Buf(DataType type, std::uint64_t elems) : t(type), bytes(elems * ops::size_of(type) + 1, 0xa5) {}
  void* data() { return bytes.data(); }
  double at(std::size_t i) const { return get(t, bytes.data(), i); }
  void set(std::size_t i, double v) { put(t, bytes.data(), i, v); }
  std::size_t size() const { return (bytes.size() - 1) / ops::size_of(t); }
  bool guard_intact() const { return bytes.back() == 0xa5; }
};

// One call of a matmul operator. s.m: rows of x1 on each rank.
struct Call {
  Fused f = Fused::AllGatherMatmul;
  DataType t = DataType::Fp32;
  MatmulShape s;
  bool bias = false, gather = false;
  int tiles = 0;
  Moves moves = Moves::Auto;
};

// The second form of c's operator (ops::Moves): AllGatherMatmul's
// weights, the reducing operators' operands.
Moves second_form(const Call& c) { return c.f == Fused::AllGatherMatmul ? Moves::Weights : Moves::Operands; }
// The forms a call can be forced into: AllGatherMatmul's weights travel
// only without gather_out.
std::vector<Moves> forms(const Call& c) {
  if (c.f != Fused::AllGatherMatmul) return {Moves::Auto, Moves::Products, Moves::Operands};
  if (c.gather) return {Moves::Auto, Moves::Shards};
  return {Moves::Auto, Moves::Shards, Moves::Weights};
}
// Whether a window of window_bytes holds what the second form needs in one
// partition (half the window), in the compute type: x2 (its area 64-byte
// aligned), then one row of every rank's product (Weights) or one row of
// x1 per rank and, for MatmulAllReduce, of the sum (Operands).
bool second_fits(const Call& c, std::uint64_t window_bytes, int ranks) {
  const std::uint64_t w = c.t == DataType::Fp64 ? 8 : 4, n = static_cast<std::uint64_t>(ranks);
  const std::uint64_t row = c.f == Fused::AllGatherMatmul ? n * c.s.n
                                                          : n * c.s.k + (c.f == Fused::MatmulAllReduce ? c.s.n : 0);
  return (c.s.k * c.s.n * w + 63) / 64 * 64 + row * w <= window_bytes / 2;
}

// Whether c fills a gather_out (AllGatherMatmul only has one).
bool gathers(const Call& c) { return c.gather && c.f == Fused::AllGatherMatmul; }

std::string describe(const Call& c, int ranks) {
  std::ostringstream os;
  os << name_of(c.f) << ' ' << ops::name_of(c.t) << " m=" << c.s.m << " k=" << c.s.k << " n=" << c.s.n
     << (c.bias ? " bias" : "") << (gathers(c) ? " gather_out" : "") << " tiles=" << c.tiles
     << " moves=" << name_of(c.moves) << " on " << ranks << " ranks";
  return os.str();
}

std::uint64_t y_rows(const Call& c, int ranks) {
  const auto n = static_cast<std::uint64_t>(ranks);
  return c.f == Fused::AllGatherMatmul ? n * c.s.m : c.f == Fused::MatmulReduceScatter ? c.s.m / n : c.s.m;
}

// The rank whose bias a call uses: its own for AllGatherMatmul; the same
// bias on every rank for the reducing operators (it is added once).
int bias_rank(const Call& c, int me) { return c.f == Fused::AllGatherMatmul ? me : 0; }

Buf matrix_x1(const Call& c, const Inputs& in, int r) {
  Buf x(c.t, c.s.m * c.s.k);
  for (std::size_t i = 0; i < c.s.m; ++i)
    for (std::size_t j = 0; j < c.s.k; ++j) x.set(i * c.s.k + j, in.x1(r, i, j));
  return x;
}
Buf matrix_x2(const Call& c, const Inputs& in, int r) {
  Buf x(c.t, c.s.k * c.s.n);
  for (std::size_t j = 0; j < c.s.k; ++j)
    for (std::size_t i = 0; i < c.s.n; ++i) x.set(j * c.s.n + i, in.x2(r, j, i));
  return x;
}
Buf vector_bias(const Call& c, const Inputs& in, int r) {
  Buf b(c.t, c.s.n);
  for (std::size_t i = 0; i < c.s.n; ++i) b.set(i, in.bias(r, i));
  return b;
}

// The exact result y of c on rank me.
std::vector<double> reference(const Call& c, const Inputs& in, int me) {
  const std::size_t k = c.s.k, n = c.s.n, rows = y_rows(c, in.ranks);
  std::vector<double> x2(k * n), p(rows * n), y(rows * n);
  auto load_x2 = [&](int r) {
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t i = 0; i < n; ++i) x2[j * n + i] = in.x2(r, j, i);
  };
  // p[row] += x1 of rank r, row `from` @ x2
  auto row_product = [&](int r, std::size_t from, std::size_t row) {
    for (std::size_t j = 0; j < k; ++j) {
      const double a = in.x1(r, from, j);
      if (a != 0)
        for (std::size_t i = 0; i < n; ++i) p[row * n + i] += a * x2[j * n + i];
    }
  };
  if (c.f == Fused::AllGatherMatmul) {
    load_x2(me);
    for (int r = 0; r < in.ranks; ++r)
      for (std::size_t i = 0; i < c.s.m; ++i) row_product(r, i, r * c.s.m + i);
    y = p;
  } else {
    const std::size_t first = c.f == Fused::MatmulReduceScatter ? me * rows : 0;
    for (int r = 0; r < in.ranks; ++r) {
      load_x2(r);
      p.assign(p.size(), 0);
      for (std::size_t i = 0; i < rows; ++i) row_product(r, first + i, i);
      for (std::size_t e = 0; e < p.size(); ++e) y[e] += p[e];
    }
  }
  if (c.bias)
    for (std::size_t e = 0; e < y.size(); ++e) y[e] += in.bias(bias_rank(c, me), e % n);
  return y;
}

// got against the reference: exactly when the inputs are exact, otherwise
// within one rounding (see the top of the file).
::testing::AssertionResult compare(const std::string& what, const Buf& got, const std::vector<double>& want,
                                   bool exact, std::size_t cols) {
  const double u = exact ? 0 : unit_roundoff(got.t);
  std::size_t bad = 0, first = 0;
  for (std::size_t e = 0; e < want.size(); ++e)
    if (!(std::fabs(got.at(e) - want[e]) <= u * std::fabs(want[e])) && bad++ == 0) first = e;
  if (bad == 0 && got.guard_intact()) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure() << "PE " << me() << ", " << what << ": ";
  if (bad)
    f << bad << " of " << want.size() << " elements of y differ; first y[" << first / cols << "][" << first % cols
      << "]: got " << got.at(first) << ", expected " << want[first] << (exact ? " exactly; " : " within 2^-p relative; ");
  if (!got.guard_intact()) f << "wrote past the end of y";
  return f;
}

// Runs c on every rank of comm (collective) with this rank's inputs;
// returns y, fills *gathered (when gathers(c)) and *tiles (the plan's).
Buf run(Comm& comm, const Call& c, const Inputs& in, Buf* gathered = nullptr, int* tiles = nullptr) {
  const int me_ = comm.rank(), n = comm.size();
  Buf x1 = matrix_x1(c, in, me_), x2 = matrix_x2(c, in, me_), bias = vector_bias(c, in, bias_rank(c, me_));
  Buf y(c.t, y_rows(c, n) * c.s.n);
  if (gathered) *gathered = Buf(c.t, gathers(c) ? n * c.s.m * c.s.k : 0);
  const void* b = c.bias ? bias.data() : nullptr;
  MatmulOptions opt;
  opt.tiles = c.tiles;
  opt.moves = c.moves;
  ops::Executor ex;
  std::uint64_t ws = 0;
  switch (c.f) {
    case Fused::AllGatherMatmul:
      ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), b, y.data(),
                                                gathers(c) && gathered ? gathered->data() : nullptr, c.s, c.t, &ex, opt);
      break;
    case Fused::MatmulReduceScatter:
      ws = ops::MatmulReduceScatterGetWorkspaceSize(comm, x1.data(), x2.data(), b, y.data(), c.s, c.t, &ex, opt);
      break;
    case Fused::MatmulAllReduce:
      ws = ops::MatmulAllReduceGetWorkspaceSize(comm, x1.data(), x2.data(), b, y.data(), c.s, c.t, &ex, opt);
      break;
  }
  std::vector<std::uint8_t> w(ws);
  switch (c.f) {
    case Fused::AllGatherMatmul: ops::AllGatherMatmul(w.data(), ws, &ex); break;
    case Fused::MatmulReduceScatter: ops::MatmulReduceScatter(w.data(), ws, &ex); break;
    case Fused::MatmulAllReduce: ops::MatmulAllReduce(w.data(), ws, &ex); break;
  }
  if (tiles) *tiles = ex.tiles();
  return y;
}

// Elements of gather_out that differ from the ranks' x1.
std::size_t gather_errors(const Buf& gathered, const Call& c, const Inputs& in) {
  std::size_t bad = 0;
  for (int q = 0; q < in.ranks; ++q)
    for (std::size_t i = 0; i < c.s.m; ++i)
      for (std::size_t j = 0; j < c.s.k; ++j) bad += gathered.at((q * c.s.m + i) * c.s.k + j) != in.x1(q, i, j);
  return bad;
}

// Runs c (collective) and checks y and gather_out against the reference.
::testing::AssertionResult check(Comm& comm, const Call& c, std::uint64_t salt, bool dense = false) {
  const Inputs in(c.t, c.s, comm.size(), salt, dense);
  Buf gathered(c.t, 0);
  const Buf y = run(comm, c, in, &gathered);
  const std::string what = describe(c, comm.size());
  ::testing::AssertionResult r = compare(what, y, reference(c, in, comm.rank()), in.exact, c.s.n);
  if (!r || !gathers(c)) return r;
  const std::size_t bad = gather_errors(gathered, c, in);
  if (bad == 0 && gathered.guard_intact()) return r;
  return ::testing::AssertionFailure() << "PE " << me() << ", " << what << ": " << bad
                                       << " elements of gather_out differ from the ranks' x1"
                                       << (gathered.guard_intact() ? "" : "; wrote past the end of gather_out");
}

// The unfused composition of c: the AllGather, ReduceScatter or AllReduce
// operator and ops::Matmul, the bias added after the reduction.
Buf unfused(Comm& comm, const Call& c, const Inputs& in) {
  const int me_ = comm.rank(), n = comm.size();
  Buf x1 = matrix_x1(c, in, me_), x2 = matrix_x2(c, in, me_), bias = vector_bias(c, in, bias_rank(c, me_));
  Buf y(c.t, y_rows(c, n) * c.s.n);
  ops::Executor ex;
  if (c.f == Fused::AllGatherMatmul) {
    Buf all(c.t, n * c.s.m * c.s.k);
    const auto ws = ops::AllGatherGetWorkspaceSize(comm, x1.data(), all.data(), c.s.m * c.s.k, c.t, &ex);
    std::vector<std::uint8_t> w(ws);
    ops::AllGather(w.data(), ws, &ex);
    ops::Matmul(all.data(), x2.data(), c.bias ? bias.data() : nullptr, y.data(), {n * c.s.m, c.s.k, c.s.n}, c.t);
    return y;
  }
  Buf partial(c.t, c.s.m * c.s.n);
  ops::Matmul(x1.data(), x2.data(), nullptr, partial.data(), c.s, c.t);
  const std::uint64_t count = y_rows(c, n) * c.s.n;
  const auto ws = c.f == Fused::MatmulReduceScatter
                      ? ops::ReduceScatterGetWorkspaceSize(comm, partial.data(), y.data(), count, c.t, ops::ReduceOp::Sum, &ex)
                      : ops::AllReduceGetWorkspaceSize(comm, partial.data(), y.data(), count, c.t, ops::ReduceOp::Sum, &ex);
  std::vector<std::uint8_t> w(ws);
  if (c.f == Fused::MatmulReduceScatter) ops::ReduceScatter(w.data(), ws, &ex);
  else ops::AllReduce(w.data(), ws, &ex);
  if (c.bias)
    for (std::size_t e = 0; e < count; ++e) y.set(e, y.at(e) + bias.at(e % c.s.n));
  return y;
}

// AllGatherAdd: a of rank r holds add_a(r, i), b of rank r add_b(r, j).
double add_a(std::uint64_t salt, int rank, std::size_t i) { return pick(salt, rank, i, 0, -48, 48); }
double add_b(std::uint64_t salt, int rank, std::size_t j) { return pick(salt + 1, rank, j, 1, -48, 48); }

::testing::AssertionResult check_allgather_add(Comm& comm, DataType t, std::uint64_t count, std::uint64_t salt) {
  const int me_ = comm.rank(), n = comm.size();
  Buf a(t, count), b(t, n * count), c(t, n * count);
  for (std::size_t i = 0; i < count; ++i) a.set(i, add_a(salt, me_, i));
  for (std::size_t j = 0; j < n * count; ++j) b.set(j, add_b(salt, me_, j));
  ops::Executor ex;
  const auto ws = ops::AllGatherAddGetWorkspaceSize(comm, a.data(), b.data(), c.data(), count, t, &ex);
  std::vector<std::uint8_t> w(ws);
  ops::AllGatherAdd(w.data(), ws, &ex);
  std::size_t bad = 0, first = 0;
  double want_first = 0;
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t j = r * count + i;
      const double want = wrapped(t, add_a(salt, r, i) + add_b(salt, me_, j));
      if (c.at(j) != want && bad++ == 0) first = j, want_first = want;
    }
  if (bad == 0 && c.guard_intact()) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure() << "PE " << me() << ", AllGatherAdd " << ops::name_of(t) << " count=" << count
                                         << " on " << n << " ranks: ";
  if (bad) f << bad << " of " << n * count << " elements differ; first c[" << first << "]: got " << c.at(first)
             << ", expected " << want_first << "; ";
  if (!c.guard_intact()) f << "wrote past the end of c";
  return f;
}

// Every fused operator on comm for the types and shapes given.
std::int64_t run_every_operator(Comm& comm, std::initializer_list<DataType> types,
                                std::initializer_list<MatmulShape> shapes, std::uint64_t add_count) {
  std::int64_t bad = 0;
  std::uint64_t salt = 1000;
  for (DataType t : types) {
    const auto added = check_allgather_add(comm, t, add_count, ++salt);
    EXPECT_TRUE(added);
    bad += !added;
    for (MatmulShape s : shapes)
      for (Fused f : kFused) {
        Call c{f, t, s, true, true, 0};
        if (f == Fused::MatmulReduceScatter) c.s.m *= static_cast<std::uint64_t>(comm.size());
        const auto r = check(comm, c, ++salt);
        EXPECT_TRUE(r);
        bad += !r;
        c.gather = false;  // and in the second form, where it fits the window
        c.moves = second_form(c);
        if (!second_fits(c, comm.window(comm.rank()).data_bytes, comm.size())) continue;
        const auto w = check(comm, c, ++salt);
        EXPECT_TRUE(w);
        bad += !w;
      }
  }
  return bad;
}

}  // namespace

TEST(Fused, MatmulMatchesTheSerialReference) {
  std::uint64_t salt = 1;
  for (DataType t : kMatmulTypes)
    for (MatmulShape s : kShapes)
      for (bool bias : {false, true}) {
        // ops::Matmul on one rank is AllGatherMatmul on one rank.
        const Call c{Fused::AllGatherMatmul, t, s, bias, false, 0};
        const Inputs in(t, s, 1, ++salt);
        Buf a = matrix_x1(c, in, 0), b = matrix_x2(c, in, 0), v = vector_bias(c, in, 0), y(t, s.m * s.n);
        ops::Matmul(a.data(), b.data(), bias ? v.data() : nullptr, y.data(), s, t);
        EXPECT_TRUE(compare("ops::Matmul, as " + describe(c, 1), y, reference(c, in, 0), in.exact, s.n));
      }
}

TEST(Fused, AllGatherAddEveryTypeOnOneElementOddSizesAndZero) {
  Comm comm = Comm::world(window(1 << 20));
  std::uint64_t salt = 10;
  for (DataType t : kTypes)
    for (std::uint64_t count : {0, 1, 2, 63, 1001}) EXPECT_TRUE(check_allgather_add(comm, t, count, ++salt));
  comm.destroy();
}

TEST(Fused, MatmulOperatorsEveryTypeAndShapeWithAndWithoutBiasAndGatherOut) {
  Comm comm = Comm::world(window(1 << 20));
  const auto n = static_cast<std::uint64_t>(comm.size());
  std::uint64_t salt = 100;
  for (Fused f : kFused)
    for (DataType t : kMatmulTypes)
      for (MatmulShape s : kShapes)
        for (int variant = 0; variant < (f == Fused::AllGatherMatmul ? 4 : 2); ++variant) {
          Call c{f, t, s, variant % 2 == 1, variant >= 2, 0};
          if (f == Fused::MatmulReduceScatter) c.s.m *= n;  // m / size() rows of y on each rank
          for (Moves m : forms(c)) {
            c.moves = m;
            EXPECT_TRUE(check(comm, c, ++salt));
          }
        }
  comm.destroy();
}

TEST(Fused, FusedEqualsTheUnfusedCompositionInFp32) {
  // Integer data: every fp32 result is exact, so the two must agree bit for bit.
  Comm comm = Comm::world(window(1 << 20));
  const auto n = static_cast<std::uint64_t>(comm.size());
  std::uint64_t salt = 200;
  for (Fused f : kFused)
    for (MatmulShape s : kShapes)
      for (bool bias : {false, true}) {
        Call c{f, DataType::Fp32, s, bias, false, 0};
        if (f == Fused::MatmulReduceScatter) c.s.m *= n;
        const Inputs in(c.t, c.s, comm.size(), ++salt);
        const Buf composed = unfused(comm, c, in);
        EXPECT_TRUE(compare(describe(c, comm.size()), composed, reference(c, in, comm.rank()), true, c.s.n))
            << "the unfused composition itself";
        for (Moves m : forms(c)) {
          c.moves = m;
          const Buf fused = run(comm, c, in);
          EXPECT_TRUE(bytes_equal(fused.bytes.data(), composed.bytes.data(), fused.bytes.size()))
              << describe(c, comm.size());
        }
      }
  for (std::uint64_t count : {1, 63, 1001}) {  // AllGatherAdd = AllGather + b
    const int me_ = comm.rank();
    Buf a(DataType::Fp32, count), b(DataType::Fp32, n * count), fused(DataType::Fp32, n * count),
        composed(DataType::Fp32, n * count);
    for (std::size_t i = 0; i < count; ++i) a.set(i, add_a(++salt, me_, i) / 4);  // quarters: exact too
    for (std::size_t j = 0; j < n * count; ++j) b.set(j, add_b(salt, me_, j) / 8);
    ops::Executor ex;
    auto ws = ops::AllGatherAddGetWorkspaceSize(comm, a.data(), b.data(), fused.data(), count, DataType::Fp32, &ex);
    std::vector<std::uint8_t> w(ws);
    ops::AllGatherAdd(w.data(), ws, &ex);
    ws = ops::AllGatherGetWorkspaceSize(comm, a.data(), composed.data(), count, DataType::Fp32, &ex);
    w.resize(ws);
    ops::AllGather(w.data(), ws, &ex);
    for (std::size_t j = 0; j < n * count; ++j) composed.set(j, composed.at(j) + b.at(j));
    EXPECT_TRUE(bytes_equal(fused.bytes.data(), composed.bytes.data(), fused.bytes.size()))
        << "AllGatherAdd fp32 count=" << count;
  }
  comm.destroy();
}

TEST(Fused, ShapesLargerThanTheWindowRunInRounds) {
  // 64 KiB windows (32 KiB partitions): x1 of 129 x 65 fp64 is 65 KiB; the
  // reducing operators move size() blocks of a 129- or 65-column row per
  // round (MatmulAllReduce size() + 1 beyond two ranks), a few rows at a
  // time at 8 ranks; AllGatherMatmul with the weights travelling, x2 (17 KiB
  // in fp32; fp64's 34 KiB does not fit, so fp64 skips that form) and rows
  // of size() * n columns of its product: 3 to 14 rows per round at 8
  // ranks. AllGatherAdd: 4 KiB windows,
  // 3001 elements take 2 (int8) to 12 (64-bit types) rounds.
  Comm comm = Comm::world(window(64 << 10));
  EXPECT_EQ(run_every_operator(comm, {DataType::Fp32, DataType::Fp64, DataType::Fp16, DataType::Bf16},
                               {{129, 65, 65}, {65, 129, 33}, {257, 33, 129}}, 3001),
            0);
  comm.destroy();
  Comm small = Comm::world(window(4096));
  std::uint64_t salt = 600;
  for (DataType t : kTypes) EXPECT_TRUE(check_allgather_add(small, t, 3001, ++salt));
  small.destroy();
}

TEST(Fused, StridedSubTeamCommunicators) {
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes() + 1) / 2, nullptr, 0, &evens);
  if (npes() > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes() / 2, nullptr, 0, &odds);
  Comm comm = Comm::from_team(me() % 2 == 0 ? evens : odds, window(8192));
  EXPECT_EQ(run_every_operator(comm, {DataType::Fp32, DataType::Bf16}, {{7, 33, 5}, {65, 3, 33}}, 300), 0);
  EXPECT_TRUE(check_allgather_add(comm, DataType::Int8, 301, 77));
  comm.destroy();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
}

TEST(Fused, ExplicitTileCountsGiveTheResultOfTheCostModel) {
  Comm comm = Comm::world(window(64 << 10));
  const auto n = static_cast<std::uint64_t>(comm.size());
  std::uint64_t salt = 300;
  for (Fused f : kFused)
    for (DataType t : {DataType::Fp32, DataType::Bf16})
      for (MatmulShape s : {MatmulShape{33, 65, 7}, MatmulShape{3, 7, 33}})
        for (Moves m : forms(Call{f})) {
          Call c{f, t, s, true, false, 0, m};
          if (f == Fused::MatmulReduceScatter) c.s.m *= n;
          const Inputs in(t, c.s, comm.size(), ++salt);
          int chosen = 0;
          const Buf model = run(comm, c, in, nullptr, &chosen);
          EXPECT_GE(chosen, 1) << describe(c, comm.size()) << ": the plan names the tiles it chose";
          EXPECT_TRUE(compare(describe(c, comm.size()), model, reference(c, in, comm.rank()), in.exact, c.s.n));
          for (int tiles : {1, 2, 3, 7}) {
            c.tiles = tiles;
            const Buf y = run(comm, c, in, nullptr, &chosen);
            EXPECT_TRUE(bytes_equal(y.bytes.data(), model.bytes.data(), y.bytes.size())) << describe(c, comm.size());
            EXPECT_TRUE(chosen >= 1 && chosen <= tiles) << describe(c, comm.size()) << ": the plan chose " << chosen;
          }
        }
  comm.destroy();
}

// Moves::Auto: the weights travel where they and a product block are
// smaller than a shard, on more than one rank, without gather_out, and
// where x2 fits the window; the shards otherwise. Every choice is exact.
TEST(Fused, AllGatherMatmulMovesTheSmallerOperand) {
  Comm comm = Comm::world(window(1 << 20)), narrow = Comm::world(window(4096));
  const bool many = comm.size() > 1;
  struct Case {
    Comm* comm;
    MatmulShape s;
    bool gather;
    Moves want;
  };
  // {65, 129, 5}: (129 + 65) * 5 < 65 * 129. {7, 3, 33}: not. In 2 KiB
  // partitions a 64 x 16 fp32 x2 (4 KiB) does not fit, a 256-byte x1 row does.
  const Case cases[] = {{&comm, {65, 129, 5}, false, many ? Moves::Weights : Moves::Shards},
                        {&comm, {65, 129, 5}, true, Moves::Shards},
                        {&comm, {7, 3, 33}, false, Moves::Shards},
                        {&narrow, {200, 64, 16}, false, Moves::Shards}};
  std::uint64_t salt = 800;
  for (const Case& k : cases) {
    const Call c{Fused::AllGatherMatmul, DataType::Fp32, k.s, true, k.gather, 0};
    const int n = k.comm->size();
    std::vector<float> x1(k.s.m * k.s.k), x2(k.s.k * k.s.n), y(n * k.s.m * k.s.n), g(n * k.s.m * k.s.k);
    ops::Executor ex;
    ops::AllGatherMatmulGetWorkspaceSize(*k.comm, x1.data(), x2.data(), nullptr, y.data(), k.gather ? g.data() : nullptr,
                                         k.s, c.t, &ex);
    EXPECT_STREQ(name_of(ex.moves()), name_of(k.want)) << describe(c, n);
    EXPECT_TRUE(check(*k.comm, c, ++salt));
  }
  narrow.destroy();
  comm.destroy();
}

// Moves::Auto for the reducing operators: the operands travel where x1's
// rows and x2 are smaller than the product rows, k * (m + size() * n) <
// m * n, on more than one rank, and where they fit the window; the
// products otherwise. Every choice is exact.
TEST(Fused, ReducingMatmulsMoveTheSmallerOperand) {
  Comm comm = Comm::world(window(1 << 20)), narrow = Comm::world(window(4096));
  const auto ranks = static_cast<std::uint64_t>(comm.size());
  struct Case {
    Comm* comm;
    MatmulShape s;
    Moves want;
  };
  // {48r, 4, 32}: 4 * (48r + 32r) < 48r * 32. {8r, 64, 8}: not. {480, 16,
  // 32} is smaller too, but in 2 KiB partitions its 16 x 32 fp32 x2 (2 KiB)
  // leaves no room for x1, where a 128-byte product row fits.
  const Case cases[] = {{&comm, {48 * ranks, 4, 32}, ranks > 1 ? Moves::Operands : Moves::Products},
                        {&comm, {8 * ranks, 64, 8}, Moves::Products},
                        {&narrow, {480, 16, 32}, Moves::Products}};
  std::uint64_t salt = 850;
  for (Fused f : {Fused::MatmulReduceScatter, Fused::MatmulAllReduce})
    for (const Case& k : cases) {
      const Call c{f, DataType::Fp32, k.s, true, false, 0};
      std::vector<float> x1(k.s.m * k.s.k), x2(k.s.k * k.s.n), y(k.s.m * k.s.n);
      ops::Executor ex;
      if (f == Fused::MatmulReduceScatter)
        ops::MatmulReduceScatterGetWorkspaceSize(*k.comm, x1.data(), x2.data(), nullptr, y.data(), k.s, c.t, &ex);
      else
        ops::MatmulAllReduceGetWorkspaceSize(*k.comm, x1.data(), x2.data(), nullptr, y.data(), k.s, c.t, &ex);
      EXPECT_STREQ(name_of(ex.moves()), name_of(k.want)) << describe(c, k.comm->size());
      EXPECT_TRUE(check(*k.comm, c, ++salt));
    }
  // x2 is staged and read again in every round: {240, 4, 64} moves less in
  // one round (4 * (240 + 64r) < 240 * 64), but a 2304-byte partition holds
  // x2 (1 KiB) and only 3 or 4 rows of x1 per rank and of the sum, so 10 to
  // 30 rounds: the products move less.
  Comm rounds = Comm::world(window(4608));
  const Call c{Fused::MatmulAllReduce, DataType::Fp32, {240, 4, 64}, true, false, 0};
  std::vector<float> x1(240 * 4), x2(4 * 64), y(240 * 64);
  ops::Executor ex;
  ops::MatmulAllReduceGetWorkspaceSize(rounds, x1.data(), x2.data(), nullptr, y.data(), c.s, c.t, &ex);
  EXPECT_STREQ(name_of(ex.moves()), name_of(Moves::Products)) << describe(c, rounds.size());
  EXPECT_TRUE(check(rounds, c, ++salt));
  rounds.destroy();
  narrow.destroy();
  comm.destroy();
}

TEST(Fused, HalfPrecisionResultsAreRoundedOnce) {
  // Dense values in 0..7: results up to 49 * k * size() + 8, beyond what
  // fp16/bf16 hold exactly (see the top of the file) but, for k = 150 and 8
  // ranks, below fp16's largest finite value (65504).
  Comm comm = Comm::world(window(1 << 20));
  const auto n = static_cast<std::uint64_t>(comm.size());
  std::uint64_t salt = 400;
  for (Fused f : kFused)
    for (DataType t : {DataType::Fp16, DataType::Bf16}) {
      std::size_t rounded = 0;  // reference values the type cannot hold: the test has teeth
      for (MatmulShape s : {MatmulShape{7, 150, 33}, MatmulShape{33, 65, 7}})
        for (bool bias : {false, true}) {
          Call c{f, t, s, bias, false, 0};
          if (f == Fused::MatmulReduceScatter) c.s.m *= n;
          for (Moves m : forms(c)) {
            c.moves = m;
            EXPECT_TRUE(check(comm, c, ++salt, true));
            for (double v : reference(c, Inputs(t, c.s, comm.size(), salt, true), comm.rank()))
              rounded += wrapped(t, v) != v;
          }
        }
      EXPECT_GT(rounded, 0u) << name_of(f) << ' ' << ops::name_of(t);
    }
  comm.destroy();
}

TEST(Fused, APlanRunsAgainOnNewValuesInItsBuffers) {
  Comm comm = Comm::world(window(32 << 10));
  const int me_ = comm.rank();
  for (Fused f : kFused) {
    Call c{f, DataType::Fp32, {33, 7, 65}, true, f == Fused::AllGatherMatmul, 2};
    if (f == Fused::MatmulReduceScatter) c.s.m = 5 * static_cast<std::uint64_t>(comm.size());
    Inputs in(c.t, c.s, comm.size(), 500);
    Buf x1 = matrix_x1(c, in, me_), x2 = matrix_x2(c, in, me_), bias = vector_bias(c, in, bias_rank(c, me_));
    Buf y(c.t, y_rows(c, comm.size()) * c.s.n), gathered(c.t, comm.size() * c.s.m * c.s.k);
    ops::Executor ex;
    MatmulOptions opt;
    opt.tiles = c.tiles;
    const std::uint64_t ws =
        f == Fused::AllGatherMatmul
            ? ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), y.data(), gathered.data(),
                                                   c.s, c.t, &ex, opt)
        : f == Fused::MatmulReduceScatter
            ? ops::MatmulReduceScatterGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), y.data(), c.s, c.t, &ex, opt)
            : ops::MatmulAllReduceGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), y.data(), c.s, c.t, &ex, opt);
    std::vector<std::uint8_t> w(ws);
    for (int round = 0; round < 3; ++round) {
      // New values in the same buffers: the plan keeps their addresses.
      in.salt = 500 + 10 * static_cast<std::uint64_t>(round);
      const Buf nx1 = matrix_x1(c, in, me_), nx2 = matrix_x2(c, in, me_), nbias = vector_bias(c, in, bias_rank(c, me_));
      std::copy(nx1.bytes.begin(), nx1.bytes.end(), x1.bytes.begin());
      std::copy(nx2.bytes.begin(), nx2.bytes.end(), x2.bytes.begin());
      std::copy(nbias.bytes.begin(), nbias.bytes.end(), bias.bytes.begin());
      if (f == Fused::AllGatherMatmul) ops::AllGatherMatmul(w.data(), ws, &ex);
      else if (f == Fused::MatmulReduceScatter) ops::MatmulReduceScatter(w.data(), ws, &ex);
      else ops::MatmulAllReduce(w.data(), ws, &ex);
      EXPECT_TRUE(compare(describe(c, comm.size()) + ", run " + std::to_string(round), y,
                          reference(c, in, me_), true, c.s.n));
      if (f == Fused::AllGatherMatmul) {
        EXPECT_EQ(gather_errors(gathered, c, in), 0u) << "run " << round;
      }
    }
  }
  comm.destroy();
}

// Shards every rank passes as the same symmetric object are read in place
// in the peers' copies: nothing is staged (the window keeps its bytes), the
// results are exact, and across back-to-back runs, each rank rewriting its
// shard as soon as its call returns after a random delay, no reader ever
// sees the next run's values (the owner returns only once its readers are
// done) or the previous run's (a reader waits for the owner's announcement).
TEST(Fused, SymmetricShardsAreReadInPlaceRunAfterRun) {
  Comm comm = Comm::world(window(4 << 10));  // the larger shapes run in rounds
  const int me_ = comm.rank(), n = comm.size();
  std::mt19937 delays(104729u * static_cast<unsigned>(me_) + 11u);
  auto nap = [&] {
    if (delays() % 2) std::this_thread::sleep_for(std::chrono::microseconds(delays() % 400));
  };
  std::uint64_t salt = 70000;
  for (DataType t : kMatmulTypes)
    for (MatmulShape shape : {MatmulShape{3, 7, 33}, MatmulShape{65, 33, 7}})
      for (int tiles : {0, 3}) {
        const Call c{Fused::AllGatherMatmul, t, shape, true, true, tiles};
        Inputs in(t, shape, n, ++salt);
        const std::size_t bytes = shape.m * shape.k * ops::size_of(t);
        auto* x1 = static_cast<std::uint8_t*>(shmem_malloc(bytes));
        Buf x2 = matrix_x2(c, in, me_), bias = vector_bias(c, in, me_);
        Buf y(t, y_rows(c, n) * shape.n), gathered(t, n * shape.m * shape.k);
        std::copy_n(matrix_x1(c, in, me_).bytes.begin(), bytes, x1);
        std::uint8_t* const win = comm.window(me_).data;
        std::memset(win, 0x5a, 4 << 10);
        ops::Executor ex;
        MatmulOptions opt;
        opt.tiles = tiles;
        const auto ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1, x2.data(), bias.data(), y.data(),
                                                             gathered.data(), shape, t, &ex, opt);
        std::vector<std::uint8_t> w(ws);
        shmem_barrier_all();  // every rank's first shard is written
        for (int run = 0; run < 6; ++run) {
          nap();
          ops::AllGatherMatmul(w.data(), ws, &ex);
          const Inputs was = in;
          in.salt += 1000;  // the next run's values, written at once
          std::copy_n(matrix_x1(c, in, me_).bytes.begin(), bytes, x1);
          std::copy_n(matrix_x2(c, in, me_).bytes.begin(), x2.bytes.size(), x2.bytes.begin());  // same buffers
          std::copy_n(vector_bias(c, in, me_).bytes.begin(), bias.bytes.size(), bias.bytes.begin());
          EXPECT_TRUE(ex.reads_in_place());
          EXPECT_EQ(std::count(win, win + (4 << 10), 0x5a), 4 << 10) << "the window was written";
          EXPECT_TRUE(compare(describe(c, n) + ", symmetric x1, run " + std::to_string(run), y, reference(c, was, me_),
                              was.exact, shape.n));
          EXPECT_EQ(gather_errors(gathered, c, was), 0u) << describe(c, n) << ", run " << run;
        }
        shmem_barrier_all();
        shmem_free(x1);
      }
  for (DataType t : kTypes)
    for (std::uint64_t count : {1, 1001, 5000}) {
      auto* a = static_cast<std::uint8_t*>(shmem_malloc(count * ops::size_of(t)));
      Buf b(t, n * count), c(t, n * count), a0(t, count);
      auto fill = [&](std::uint64_t k) {
        for (std::size_t i = 0; i < count; ++i) a0.set(i, add_a(k, me_, i));
        std::copy_n(a0.bytes.begin(), count * ops::size_of(t), a);
      };
      fill(++salt);
      for (std::size_t j = 0; j < n * count; ++j) b.set(j, add_b(0, me_, j));
      ops::Executor ex;
      const auto ws = ops::AllGatherAddGetWorkspaceSize(comm, a, b.data(), c.data(), count, t, &ex);
      std::vector<std::uint8_t> w(ws);
      shmem_barrier_all();
      for (int run = 0; run < 6; ++run) {
        nap();
        ops::AllGatherAdd(w.data(), ws, &ex);
        const std::uint64_t was = salt;
        fill(++salt);  // the next run's values, written at once
        EXPECT_TRUE(ex.reads_in_place());
        std::size_t bad = 0;
        for (int r = 0; r < n; ++r)
          for (std::size_t i = 0; i < count; ++i)
            bad += c.at(r * count + i) != wrapped(t, add_a(was, r, i) + add_b(0, me_, r * count + i));
        EXPECT_EQ(bad, 0u) << "AllGatherAdd " << ops::name_of(t) << " count=" << count << ", symmetric a, run " << run;
      }
      shmem_barrier_all();
      shmem_free(a);
    }
  // A shard inside this rank's own output (a = c, the same object on every
  // rank) is staged: the rank writes c while peers would still read a.
  const std::uint64_t count = 3000;
  auto* c = static_cast<std::int32_t*>(shmem_malloc(n * count * sizeof(std::int32_t)));
  std::vector<std::int32_t> b(n * count, 1);
  for (std::uint64_t i = 0; i < count; ++i) c[i] = static_cast<std::int32_t>(1000 * me_ + i);
  ops::Executor ex;
  ops::AllGatherAddGetWorkspaceSize(comm, c, b.data(), c, count, DataType::Int32, &ex);
  std::vector<std::uint8_t> w(ex.workspace());
  shmem_barrier_all();
  ops::AllGatherAdd(w.data(), w.size(), &ex);
  EXPECT_FALSE(ex.reads_in_place());
  std::size_t bad = 0;
  for (int r = 0; r < n; ++r)
    for (std::uint64_t i = 0; i < count; ++i) bad += c[r * count + i] != static_cast<std::int32_t>(1000 * r + i + 1);
  EXPECT_EQ(bad, 0u) << "AllGatherAdd with a = c";
  shmem_barrier_all();
  shmem_free(c);
  comm.destroy();
}

TEST(Fused, TwoHundredBackToBackCallsOnRandomShapesWithRandomDelays) {
  // 8 KiB windows: the larger calls run in rounds. The calls are the same on
  // every rank (one seed); the delays before them differ (a seed per rank).
  Comm comm = Comm::world(window(8 << 10));
  const auto n = static_cast<std::uint64_t>(comm.size());
  std::mt19937_64 calls(20261204);
  std::mt19937 delays(7919u * static_cast<unsigned>(me()) + 3u);
  int bad = 0;
  std::string first;
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t kind = calls() % 4, salt = 10000 + static_cast<std::uint64_t>(i);
    if (delays() % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(delays() % 300));
    ::testing::AssertionResult r = ::testing::AssertionSuccess();
    if (kind == 3) {
      const DataType t = kTypes[calls() % 8];
      r = check_allgather_add(comm, t, calls() % 700, salt);
    } else {
      Call c{kFused[kind], kMatmulTypes[calls() % 4], {1 + calls() % 40, 1 + calls() % 40, 1 + calls() % 40}};
      c.bias = calls() % 2 == 1;
      c.gather = calls() % 2 == 1;
      c.tiles = static_cast<int>(calls() % 4);
      const std::vector<Moves> can = forms(c);
      c.moves = can[calls() % can.size()];
      if (c.moves == second_form(c) && !second_fits(c, 8 << 10, comm.size())) c.moves = Moves::Auto;
      if (c.f == Fused::MatmulReduceScatter) c.s.m = n * (1 + c.s.m % 9);
      r = check(comm, c, salt);
    }
    if (!r && bad++ == 0) first = "call " + std::to_string(i) + ": " + r.message();
  }
  EXPECT_EQ(bad, 0) << first;
  comm.destroy();
}

TEST(Fused, MisuseIsAClearError) {
  using ::testing::AllOf;
  using ::testing::AnyOf;
  using ::testing::HasSubstr;
  Comm comm = Comm::world(window(64 << 10));
  const int n = comm.size();
  std::vector<float> a(64), b(64 * n), c(64 * n), g(64 * n);
  const MatmulShape s{2, 2, 2};
  ops::Executor ex;
  // A failed plan leaves the executor unplanned: running it is an error, not a call.
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, nullptr, nullptr, s,
                                                                  DataType::Fp32, &ex); }),
              HasSubstr("y is null"));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmul(nullptr, 0, &ex); }), HasSubstr("was not planned"));
  EXPECT_THAT(error_of([&] { ops::Matmul(nullptr, b.data(), nullptr, c.data(), s, DataType::Fp32); }),
              HasSubstr("a is null"));
  // No executor.
  EXPECT_THAT(error_of([&] { ops::AllGatherAddGetWorkspaceSize(comm, a.data(), b.data(), c.data(), 4, DataType::Fp32, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), nullptr, s,
                                                                  DataType::Fp32, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::MatmulReduceScatterGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(),
                                                                      {2u * n, 2, 2}, DataType::Fp32, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), s,
                                                                  DataType::Fp32, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  // Types: AllGatherAdd takes every type, the matmuls the floating ones.
  EXPECT_THAT(error_of([&] { ops::AllGatherAddGetWorkspaceSize(comm, a.data(), b.data(), c.data(), 4,
                                                               static_cast<DataType>(12), &ex); }),
              HasSubstr("data type 12"));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), nullptr, s,
                                                                  DataType::Int32, &ex); }),
              HasSubstr("int32"));
  EXPECT_THAT(error_of([&] { ops::MatmulReduceScatterGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(),
                                                                      {2u * n, 2, 2}, DataType::Int8, &ex); }),
              HasSubstr("int8"));
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), s,
                                                                  DataType::Int64, &ex); }),
              HasSubstr("int64"));
  EXPECT_THAT(error_of([&] { ops::Matmul(a.data(), b.data(), nullptr, c.data(), s, DataType::Int16); }),
              HasSubstr("int16"));
  // MatmulReduceScatter: m must be a multiple of size().
  if (n > 1) {
    EXPECT_THAT(error_of([&] { ops::MatmulReduceScatterGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(),
                                                                        {2u * n + 1, 2, 2}, DataType::Fp32, &ex); }),
                HasSubstr("multiple"));
  }
  // Null matrices.
  EXPECT_THAT(error_of([&] { ops::AllGatherAddGetWorkspaceSize(comm, a.data(), nullptr, c.data(), 4, DataType::Fp32, &ex); }),
              HasSubstr("null"));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, nullptr, b.data(), nullptr, c.data(), nullptr, s,
                                                                  DataType::Fp32, &ex); }),
              AllOf(HasSubstr("x1"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), nullptr, nullptr, c.data(), s,
                                                                  DataType::Fp32, &ex); }),
              AllOf(HasSubstr("x2"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::MatmulReduceScatterGetWorkspaceSize(comm, a.data(), b.data(), nullptr, nullptr,
                                                                      {2u * n, 2, 2}, DataType::Fp32, &ex); }),
              HasSubstr("null"));
  // Moves: each operator's own forms; the weights cannot fill gather_out, and x2 must fit the window.
  MatmulOptions weights, operands;
  weights.moves = Moves::Weights;
  operands.moves = Moves::Operands;
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), g.data(),
                                                                  s, DataType::Fp32, &ex, weights); }),
              AllOf(HasSubstr("Weights"), HasSubstr("gather_out")));
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), s,
                                                                  DataType::Fp32, &ex, weights); }),
              AllOf(HasSubstr("moves=weights"), HasSubstr("operands")));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), nullptr,
                                                                  s, DataType::Fp32, &ex, operands); }),
              AllOf(HasSubstr("moves=operands"), HasSubstr("shards and weights")));
  // Tiles and sizes.
  MatmulOptions negative;
  negative.tiles = -1;
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), s,
                                                                  DataType::Fp32, &ex, negative); }),
              HasSubstr("tiles"));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), nullptr,
                                                                  {std::uint64_t{1} << 40, std::uint64_t{1} << 40, 2},
                                                                  DataType::Fp32, &ex); }),
              AnyOf(HasSubstr("overflow"), HasSubstr("2^31")));  // the BLAS's int dimensions
  EXPECT_THAT(error_of([&] { ops::AllGatherAddGetWorkspaceSize(comm, a.data(), b.data(), c.data(),
                                                               std::numeric_limits<std::uint64_t>::max() / 2,
                                                               DataType::Fp32, &ex); }),
              HasSubstr("overflow"));
  // A window that cannot hold one row of the product (fp64, 64 columns) per rank.
  Comm tiny = Comm::world(window(256));
  std::vector<double> w1(64 * 64 * n), w2(64 * 64 * n), w3(64 * 64 * n);
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(tiny, w1.data(), w2.data(), nullptr, w3.data(),
                                                                  {1, 1, 64}, DataType::Fp64, &ex); }),
              AllOf(HasSubstr("window"), HasSubstr("256")));
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmulGetWorkspaceSize(tiny, w1.data(), w2.data(), nullptr, w3.data(),
                                                                  nullptr, {1, 64, 1}, DataType::Fp64, &ex, weights); }),
              AllOf(HasSubstr("window"), HasSubstr("x2")));
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(tiny, w1.data(), w2.data(), nullptr, w3.data(),
                                                                  {1, 1, 64}, DataType::Fp64, &ex, operands); }),
              AllOf(HasSubstr("window"), HasSubstr("x1")));
  tiny.destroy();
  // Running what was not planned, or with too small a workspace.
  ops::Executor fresh;
  EXPECT_THAT(error_of([&] { ops::AllGatherMatmul(nullptr, 0, &fresh); }),
              AllOf(HasSubstr("not planned"), HasSubstr("AllGatherMatmulGetWorkspaceSize")));
  EXPECT_THAT(error_of([&] { ops::AllGatherAdd(nullptr, 0, nullptr); }),
              AllOf(HasSubstr("not planned"), HasSubstr("AllGatherAddGetWorkspaceSize")));
  auto ws = ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), s, DataType::Fp32, &ex);
  EXPECT_THAT(error_of([&] { ops::MatmulReduceScatter(g.data(), ws, &ex); }),
              AllOf(HasSubstr("not planned"), HasSubstr("MatmulReduceScatterGetWorkspaceSize")));
  for (Fused f : kFused)
    for (DataType t : kMatmulTypes) {  // the plans that need a workspace, if any
      const MatmulShape shape{f == Fused::MatmulReduceScatter ? 2u * n : 2u, 2, 2};
      ws = f == Fused::AllGatherMatmul
               ? ops::AllGatherMatmulGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), g.data(), shape, t, &ex)
           : f == Fused::MatmulReduceScatter
               ? ops::MatmulReduceScatterGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), shape, t, &ex)
               : ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), shape, t, &ex);
      if (ws == 0) continue;
      std::vector<std::uint8_t> w(ws);
      auto run_with = [&](void* workspace, std::uint64_t size) {
        if (f == Fused::AllGatherMatmul) ops::AllGatherMatmul(workspace, size, &ex);
        else if (f == Fused::MatmulReduceScatter) ops::MatmulReduceScatter(workspace, size, &ex);
        else ops::MatmulAllReduce(workspace, size, &ex);
      };
      EXPECT_THAT(error_of([&] { run_with(w.data(), ws - 1); }),
                  AllOf(HasSubstr("workspace"), HasSubstr(std::to_string(ws))))
          << name_of(f) << ' ' << ops::name_of(t);
      EXPECT_THAT(error_of([&] { run_with(nullptr, ws); }), AllOf(HasSubstr("workspace"), HasSubstr("null")))
          << name_of(f) << ' ' << ops::name_of(t);
    }
  comm.destroy();
  EXPECT_THAT(error_of([&] { ops::AllGatherAddGetWorkspaceSize(comm, a.data(), b.data(), c.data(), 4, DataType::Fp32, &ex); }),
              HasSubstr("destroyed"));
  EXPECT_THAT(error_of([&] { ops::MatmulAllReduceGetWorkspaceSize(comm, a.data(), b.data(), nullptr, c.data(), s,
                                                                  DataType::Fp32, &ex); }),
              HasSubstr("destroyed"));
}
