// The collective operators of <tilecomm/ops.hpp>: every operator and type,
// sizes of one element, odd sizes and inputs larger than the window (several
// rounds), on the world and on a strided sub-team communicator; the two
// phases and their errors; fp16/bf16 conversions. ReduceScatter and Reduce
// run every operation (Reduce from every root, with a non-root's output
// checked untouched or passed null); AllToAllV runs a send-count matrix with
// zeros, odd counts and a different count for every pair (the same matrix on
// every rank). Values are small integers, exact in every type, so every
// result is compared exactly (fp16 and bf16 reductions accumulate in fp32
// and round once: exact for these values).
#include <tilecomm/ops.hpp>

#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api_test.hpp"
#include "ops_test.hpp"

using namespace api;
using tilecomm::Comm;
using tilecomm::CommOptions;
namespace ops = tilecomm::ops;
using ops::DataType;
using ops::ReduceOp;

namespace {

double data_value(int rank, std::size_t i) { return static_cast<double>((rank * 31 + static_cast<long>(i)) % 97 - 48); }
double reduce_value(ReduceOp op, int rank, std::size_t i) {
  if (op != ReduceOp::Prod) return static_cast<double>((rank * 7 + static_cast<long>(i) * 3) % 13 - 6);
  const long k = (rank + static_cast<long>(i)) % 3;
  return k == 0 ? 2 : k == 1 ? 1 : -1;
}
// op over the ranks 0..n-1 of reduce_value(op, rank, i), in rank order.
double reduced(ReduceOp op, int n, std::size_t i) {
  double x = reduce_value(op, 0, i);
  for (int r = 1; r < n; ++r) {
    const double v = reduce_value(op, r, i);
    x = op == ReduceOp::Sum ? x + v : op == ReduceOp::Prod ? x * v : op == ReduceOp::Max ? std::max(x, v) : std::min(x, v);
  }
  return x;
}

// AllToAllV: the elements rank s sends to rank d, for a call of `count`
// elements: a quarter of the pairs send none, the others count/2, count or
// 3*count/2 elements plus one when s + d is odd (odd counts, different for
// neighbouring pairs, zero for every pair when count is 0).
std::uint64_t v_count(int s, int d, std::size_t count) {
  const std::uint64_t k = static_cast<std::uint64_t>(s * 5 + d * 3 + 1) % 4;
  return count == 0 || k == 0 ? 0 : count * k / 2 + static_cast<std::uint64_t>(s + d) % 2;
}

struct Buffers {
  std::vector<std::uint8_t> in, out;
  Buffers(DataType t, std::size_t in_elems, std::size_t out_elems)
      : in(in_elems * ops::size_of(t) + 1), out(out_elems * ops::size_of(t) + 1, 0xa5) {}
};

// Runs every operator once per type on `comm` with `count` elements and
// returns the number of wrong elements (exact comparison).
std::int64_t run_all(Comm& comm, std::size_t count) {
  const int n = comm.size(), me_ = comm.rank();
  std::int64_t bad = 0;
  for (DataType t : kTypes) {
    ops::Executor ex;
    {  // AllGather
      Buffers b(t, count, count * n);
      for (std::size_t i = 0; i < count; ++i) put(t, b.in.data(), i, data_value(me_, i));
      const auto ws = ops::AllGatherGetWorkspaceSize(comm, b.in.data(), b.out.data(), count, t, &ex);
      std::vector<std::uint8_t> w(ws);
      ops::AllGather(w.data(), ws, &ex);
      for (int r = 0; r < n; ++r)
        for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out.data(), r * count + i) != data_value(r, i);
      bad += b.out.back() != 0xa5;  // nothing written past the output
    }
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {  // AllReduce
      Buffers b(t, count, count);
      for (std::size_t i = 0; i < count; ++i) put(t, b.in.data(), i, reduce_value(op, me_, i));
      const auto ws = ops::AllReduceGetWorkspaceSize(comm, b.in.data(), b.out.data(), count, t, op, &ex);
      ops::AllReduce(nullptr, ws, &ex);
      for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out.data(), i) != wrapped(t, reduced(op, n, i));
      bad += b.out.back() != 0xa5;
    }
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {  // ReduceScatter
      // Element j of every rank's input is reduce_value(op, rank, j): rank
      // me receives the reduction of elements me * count .. of the inputs.
      Buffers b(t, count * n, count);
      for (std::size_t j = 0; j < count * n; ++j) put(t, b.in.data(), j, reduce_value(op, me_, j));
      const auto ws = ops::ReduceScatterGetWorkspaceSize(comm, b.in.data(), b.out.data(), count, t, op, &ex);
      std::vector<std::uint8_t> w(ws);
      ops::ReduceScatter(w.data(), ws, &ex);
      for (std::size_t i = 0; i < count; ++i)
        bad += get(t, b.out.data(), i) != wrapped(t, reduced(op, n, me_ * count + i));
      bad += b.out.back() != 0xa5;
    }
    for (int root = 0; root < n; ++root) {  // Reduce, from every root
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
        Buffers b(t, count, count);
        for (std::size_t i = 0; i < count; ++i) put(t, b.in.data(), i, reduce_value(op, me_, i));
        // Odd roots: the other ranks pass no output at all (allowed).
        void* out = me_ == root || root % 2 == 0 ? b.out.data() : nullptr;
        const auto ws = ops::ReduceGetWorkspaceSize(comm, b.in.data(), out, count, t, op, root, &ex);
        std::vector<std::uint8_t> w(ws);
        ops::Reduce(w.data(), ws, &ex);
        if (me_ == root) {
          for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out.data(), i) != wrapped(t, reduced(op, n, i));
          bad += b.out.back() != 0xa5;
        } else {  // a non-root's output is left as it was
          bad += std::count_if(b.out.begin(), b.out.end(), [](std::uint8_t c) { return c != 0xa5; });
        }
      }
    }
    for (int root : {0, n - 1}) {  // Broadcast
      Buffers b(t, count, count);
      for (std::size_t i = 0; i < count; ++i) put(t, b.in.data(), i, data_value(me_ + 1, i));
      const auto ws = ops::BroadcastGetWorkspaceSize(comm, b.in.data(), b.out.data(), count, t, root, &ex);
      ops::Broadcast(nullptr, ws, &ex);
      for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out.data(), i) != data_value(root + 1, i);
      bad += b.out.back() != 0xa5;
    }
    {  // AllToAll: block r of my input goes to rank r
      Buffers b(t, count * n, count * n);
      for (int r = 0; r < n; ++r)
        for (std::size_t i = 0; i < count; ++i) put(t, b.in.data(), r * count + i, data_value(me_ * n + r, i));
      const auto ws = ops::AllToAllGetWorkspaceSize(comm, b.in.data(), b.out.data(), count, t, &ex);
      ops::AllToAll(nullptr, ws, &ex);
      for (int r = 0; r < n; ++r)
        for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out.data(), r * count + i) != data_value(r * n + me_, i);
      bad += b.out.back() != 0xa5;
    }
    {  // AllToAllV: the v_count matrix; my block for rank d holds data_value(me * n + d, i)
      std::vector<std::uint64_t> counts(static_cast<std::size_t>(n) * n);
      for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) counts[s * n + d] = v_count(s, d, count);
      std::size_t sent = 0, received = 0;
      for (int r = 0; r < n; ++r) {
        sent += counts[me_ * n + r];
        received += counts[r * n + me_];
      }
      Buffers b(t, sent, received);
      for (int d = 0, at = 0; d < n; at += static_cast<int>(counts[me_ * n + d]), ++d)
        for (std::size_t i = 0; i < counts[me_ * n + d]; ++i) put(t, b.in.data(), at + i, data_value(me_ * n + d, i));
      const auto ws = ops::AllToAllVGetWorkspaceSize(comm, b.in.data(), b.out.data(), counts.data(), t, &ex);
      counts.assign(counts.size(), 0);  // the plan holds its own copy of the matrix
      std::vector<std::uint8_t> w(ws);
      ops::AllToAllV(w.data(), ws, &ex);
      for (int s = 0, at = 0; s < n; at += static_cast<int>(v_count(s, me_, count)), ++s)
        for (std::size_t i = 0; i < v_count(s, me_, count); ++i)
          bad += get(t, b.out.data(), at + i) != data_value(s * n + me_, i);
      bad += b.out.back() != 0xa5;
    }
  }
  return bad;
}

}  // namespace

TEST(Ops, EveryOperatorAndTypeOnOneElementAndOddSizes) {
  Comm comm = Comm::world(window(1 << 20));
  for (std::size_t count : {1, 2, 63, 1001}) EXPECT_EQ(run_all(comm, count), 0) << count << " elements";
  comm.destroy();
}

TEST(Ops, InputsLargerThanTheWindowRunInRounds) {
  // 1 KiB windows: an AllToAll of 8 ranks moves 7 int64 per peer and round.
  Comm comm = Comm::world(window(1024));
  for (std::size_t count : {100, 777}) EXPECT_EQ(run_all(comm, count), 0) << count << " elements";
  comm.destroy();
}

TEST(Ops, StridedSubTeamCommunicators) {
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes() + 1) / 2, nullptr, 0, &evens);
  if (npes() > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes() / 2, nullptr, 0, &odds);
  Comm comm = Comm::from_team(me() % 2 == 0 ? evens : odds, window(2048));
  EXPECT_EQ(run_all(comm, 300), 0);
  comm.destroy();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
}

TEST(Ops, ZeroElementsIsANoOp) {
  Comm comm = Comm::world(window(4096));
  EXPECT_EQ(run_all(comm, 0), 0);
  comm.destroy();
}

TEST(Ops, MisuseIsAClearError) {
  Comm comm = Comm::world(window(4096));
  std::int32_t x[4] = {};
  ops::Executor ex;
  EXPECT_THAT(error_of([&] { ops::BroadcastGetWorkspaceSize(comm, x, x, 4, DataType::Int32, npes(), &ex); }),
              ::testing::HasSubstr("root " + std::to_string(npes()) + " is not a rank"));
  EXPECT_THAT(error_of([&] { ops::AllGatherGetWorkspaceSize(comm, nullptr, x, 4, DataType::Int32, &ex); }),
              ::testing::HasSubstr("input is null"));
  EXPECT_THAT(error_of([&] { ops::AllGatherGetWorkspaceSize(comm, x, x, 4, DataType::Int32, nullptr); }),
              ::testing::HasSubstr("executor pointer is null"));
  EXPECT_THAT(error_of([&] { ops::AllGatherGetWorkspaceSize(comm, x, x, std::numeric_limits<std::uint64_t>::max() / 2,
                                                            DataType::Int32, &ex); }),
              ::testing::HasSubstr("overflow 64 bits"));
  EXPECT_THAT(error_of([&] { ops::AllReduceGetWorkspaceSize(comm, x, x, 4, DataType::Int32, static_cast<ReduceOp>(9), &ex); }),
              ::testing::HasSubstr("reduce operation 9"));
  ops::Executor fresh;
  EXPECT_THAT(error_of([&] { ops::AllReduce(nullptr, 0, &fresh); }),
              ::testing::HasSubstr("was not planned by tilecomm::ops::AllReduceGetWorkspaceSize"));
  Comm tiny = Comm::world(window(128));
  EXPECT_THAT(error_of([&] { ops::AllToAllGetWorkspaceSize(tiny, x, x, 1, DataType::Int64, &ex); }),
              npes() > 4 ? ::testing::HasSubstr("cannot hold one element") : ::testing::HasSubstr("(no error)"));
  tiny.destroy();
  comm.destroy();
  EXPECT_THAT(error_of([&] { ops::AllGatherGetWorkspaceSize(comm, x, x, 4, DataType::Int32, &ex); }),
              ::testing::HasSubstr("was destroyed"));
}

TEST(Ops, ReduceScatterReduceAndAllToAllVMisuseIsAClearError) {
  using ::testing::AllOf;
  using ::testing::HasSubstr;
  Comm comm = Comm::world(window(4096));
  const int n = comm.size();
  std::int32_t x[64] = {};
  std::vector<std::uint64_t> ones(static_cast<std::size_t>(n) * n, 1);
  ops::Executor ex;
  // No executor.
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, x, x, 4, DataType::Int32, ReduceOp::Sum, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::ReduceGetWorkspaceSize(comm, x, x, 4, DataType::Int32, ReduceOp::Sum, 0, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, x, x, ones.data(), DataType::Int32, nullptr); }),
              AllOf(HasSubstr("executor"), HasSubstr("null")));
  // Bad operation, type and root.
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, x, x, 4, DataType::Int32, static_cast<ReduceOp>(9), &ex); }),
              AllOf(HasSubstr("ReduceScatter"), HasSubstr("operation 9")));
  EXPECT_THAT(error_of([&] { ops::ReduceGetWorkspaceSize(comm, x, x, 4, DataType::Int32, static_cast<ReduceOp>(9), 0, &ex); }),
              AllOf(HasSubstr("Reduce"), HasSubstr("operation 9")));
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, x, x, 4, static_cast<DataType>(12), ReduceOp::Sum, &ex); }),
              HasSubstr("data type 12"));
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, x, x, ones.data(), static_cast<DataType>(12), &ex); }),
              HasSubstr("data type 12"));
  for (int root : {n, -1})
    EXPECT_THAT(error_of([&] { ops::ReduceGetWorkspaceSize(comm, x, x, 4, DataType::Int32, ReduceOp::Sum, root, &ex); }),
                AllOf(HasSubstr("root " + std::to_string(root)), HasSubstr("not a rank")));
  // Null buffers: the root needs an output, the other ranks do not.
  EXPECT_THAT(error_of([&] { ops::ReduceGetWorkspaceSize(comm, x, nullptr, 4, DataType::Int32, ReduceOp::Sum, 0, &ex); }),
              me() == 0 ? ::testing::Matcher<std::string>(AllOf(HasSubstr("output"), HasSubstr("null")))
                        : HasSubstr("(no error)"));
  EXPECT_THAT(error_of([&] { ops::ReduceGetWorkspaceSize(comm, nullptr, x, 4, DataType::Int32, ReduceOp::Sum, 0, &ex); }),
              AllOf(HasSubstr("input"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, nullptr, x, 4, DataType::Int32, ReduceOp::Sum, &ex); }),
              AllOf(HasSubstr("input"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, x, nullptr, 4, DataType::Int32, ReduceOp::Sum, &ex); }),
              AllOf(HasSubstr("output"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, x, x, nullptr, DataType::Int32, &ex); }),
              AllOf(HasSubstr("count"), HasSubstr("null")));
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, nullptr, x, ones.data(), DataType::Int32, &ex); }),
              AllOf(HasSubstr("input"), HasSubstr("null")));
  // Sizes that overflow 64 bits.
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, x, x, std::numeric_limits<std::uint64_t>::max() / 2,
                                                                DataType::Int32, ReduceOp::Sum, &ex); }),
              HasSubstr("overflow"));
  std::vector<std::uint64_t> huge(ones.size(), std::uint64_t{1} << 62);
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, x, x, huge.data(), DataType::Int32, &ex); }),
              HasSubstr("overflow"));
  // Running what was not planned, or with too small a workspace.
  ops::Executor fresh;
  EXPECT_THAT(error_of([&] { ops::ReduceScatter(nullptr, 0, &fresh); }),
              AllOf(HasSubstr("not planned"), HasSubstr("ReduceScatterGetWorkspaceSize")));
  EXPECT_THAT(error_of([&] { ops::AllToAllV(nullptr, 0, nullptr); }),
              AllOf(HasSubstr("not planned"), HasSubstr("AllToAllVGetWorkspaceSize")));
  const auto ws = ops::ReduceScatterGetWorkspaceSize(comm, x, x + 32, 4, DataType::Int32, ReduceOp::Sum, &ex);
  EXPECT_THAT(error_of([&] { ops::Reduce(nullptr, ws, &ex); }),
              AllOf(HasSubstr("not planned"), HasSubstr("ReduceGetWorkspaceSize")));
  for (DataType t : {DataType::Int8, DataType::Fp16, DataType::Fp64}) {  // a plan that needs a workspace, if any
    const auto need = ops::ReduceScatterGetWorkspaceSize(comm, x, x + 32, 2, t, ReduceOp::Sum, &ex);
    if (need > 0) {
      EXPECT_THAT(error_of([&] { ops::ReduceScatter(x, need - 1, &ex); }),
                  AllOf(HasSubstr("workspace"), HasSubstr(std::to_string(need))));
    }
  }
  comm.destroy();
  EXPECT_THAT(error_of([&] { ops::ReduceScatterGetWorkspaceSize(comm, x, x, 4, DataType::Int32, ReduceOp::Sum, &ex); }),
              HasSubstr("destroyed"));
  EXPECT_THAT(error_of([&] { ops::ReduceGetWorkspaceSize(comm, x, x, 4, DataType::Int32, ReduceOp::Sum, 0, &ex); }),
              HasSubstr("destroyed"));
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, x, x, ones.data(), DataType::Int32, &ex); }),
              HasSubstr("destroyed"));
}

TEST(Ops, HalfPrecisionConversionsRoundToNearestEven) {
  // fp16: 1 + 2^-11 is halfway between 1 and the next value: to even (1).
  EXPECT_EQ(ops::float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(ops::float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(ops::float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(ops::float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(ops::float_to_fp16(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(ops::float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(ops::float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(ops::float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // halfway to 0: even
  EXPECT_TRUE(std::isnan(ops::fp16_to_float(ops::float_to_fp16(std::nanf("")))));
  for (std::uint32_t h = 0; h < 0x7c00; ++h)  // every finite fp16 survives the round trip
    ASSERT_EQ(ops::float_to_fp16(ops::fp16_to_float(static_cast<std::uint16_t>(h))), h) << h;
  EXPECT_EQ(ops::float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(ops::float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);       // halfway: even
  EXPECT_EQ(ops::float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(ops::bf16_to_float(0xc040), -3.0f);
  EXPECT_TRUE(std::isnan(ops::bf16_to_float(ops::float_to_bf16(std::nanf("")))));
}
