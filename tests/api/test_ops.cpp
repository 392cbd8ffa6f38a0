// The collective operators of <tilecomm/ops.hpp>: every operator and type,
// sizes of one element, odd sizes and inputs larger than the window (several
// rounds), on the world and on a strided sub-team communicator; the two
// phases and their errors; fp16/bf16 conversions. Values are small integers,
// exact in every type, so every result is compared exactly (fp16 and bf16
// reductions accumulate in fp32 and round once: exact for these values).
#include <tilecomm/ops.hpp>

#include <gmock/gmock.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "api_test.hpp"

using namespace api;
using tilecomm::Comm;
using tilecomm::CommOptions;
namespace ops = tilecomm::ops;
using ops::DataType;
using ops::ReduceOp;

namespace {

constexpr DataType kTypes[] = {DataType::Int8, DataType::Int16, DataType::Int32, DataType::Int64,
                               DataType::Fp16, DataType::Bf16,  DataType::Fp32,  DataType::Fp64};

// Element i of a buffer of type t, as a double, and back.
void put(DataType t, void* base, std::size_t i, double v) {
  switch (t) {
    case DataType::Int8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Int16: static_cast<std::int16_t*>(base)[i] = static_cast<std::int16_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Int32: static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(v)); break;
    case DataType::Int64: static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(v); break;
    case DataType::Fp16: static_cast<std::uint16_t*>(base)[i] = ops::float_to_fp16(static_cast<float>(v)); break;
    case DataType::Bf16: static_cast<std::uint16_t*>(base)[i] = ops::float_to_bf16(static_cast<float>(v)); break;
    case DataType::Fp32: static_cast<float*>(base)[i] = static_cast<float>(v); break;
    case DataType::Fp64: static_cast<double*>(base)[i] = v; break;
  }
}

double get(DataType t, const void* base, std::size_t i) {
  switch (t) {
    case DataType::Int8: return static_cast<const std::int8_t*>(base)[i];
    case DataType::Int16: return static_cast<const std::int16_t*>(base)[i];
    case DataType::Int32: return static_cast<const std::int32_t*>(base)[i];
    case DataType::Int64: return static_cast<double>(static_cast<const std::int64_t*>(base)[i]);
    case DataType::Fp16: return ops::fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case DataType::Bf16: return ops::bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case DataType::Fp32: return static_cast<const float*>(base)[i];
    case DataType::Fp64: return static_cast<const double*>(base)[i];
  }
  return 0;
}

// What an integer type holds of an exact integer result (wrapping).
double wrapped(DataType t, double v) {
  std::vector<std::uint8_t> cell(8);
  put(t, cell.data(), 0, v);
  return get(t, cell.data(), 0);
}

double data_value(int rank, std::size_t i) { return static_cast<double>((rank * 31 + static_cast<long>(i)) % 97 - 48); }
double reduce_value(ReduceOp op, int rank, std::size_t i) {
  if (op != ReduceOp::Prod) return static_cast<double>((rank * 7 + static_cast<long>(i) * 3) % 13 - 6);
  const long k = (rank + static_cast<long>(i)) % 3;
  return k == 0 ? 2 : k == 1 ? 1 : -1;
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
      for (std::size_t i = 0; i < count; ++i) {
        double x = reduce_value(op, 0, i);
        for (int r = 1; r < n; ++r) {
          const double v = reduce_value(op, r, i);
          x = op == ReduceOp::Sum ? x + v : op == ReduceOp::Prod ? x * v : op == ReduceOp::Max ? std::max(x, v) : std::min(x, v);
        }
        bad += get(t, b.out.data(), i) != wrapped(t, x);
      }
      bad += b.out.back() != 0xa5;
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
  }
  return bad;
}

CommOptions window(std::size_t bytes) {
  CommOptions o;
  o.window_bytes = bytes;
  o.flag_bytes = 64 << 10;
  return o;
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
  auto error_of = [](auto&& fn) -> std::string {
    try {
      fn();
    } catch (const tilecomm::Error& e) {
      return e.what();
    }
    return "(no error)";
  };
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
