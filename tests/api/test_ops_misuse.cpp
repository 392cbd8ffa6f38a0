// Misuse of the operators of <tilecomm/ops.hpp> ("Misuse is caught by
// default"), and the forms that came with those checks:
// - calls that differ among the ranks -- count, type, operation, root,
//   operator, AllToAllV's count matrix, matmul shapes, bias or gather_out
//   on some ranks only, MatmulOptions, count 0 on some ranks only -- throw
//   on the plan's first run on every rank, naming the call number and each
//   rank's call that differs from rank 0's; the same communicator then runs
//   a correct call with exact results (NOTE [first run] in
//   src/comm/ops_plan.hpp);
// - the one-call forms: the same checks, buffers that change between
//   calls, more signatures than the communicator keeps (NOTE [one-call
//   operators] in src/comm/calls.cpp);
// - Start and Request (NOTE [non-blocking calls]);
// - the unsigned types and Avg in AllReduce, Reduce and ReduceScatter;
// - plans bound to their communicator (NOTE [bound plans]);
// - the fused operators' aliasing rules (NOTE [fused aliasing] in
//   src/comm/fused.cpp) and sizes that wrap the address space.
// In the mismatches the odd ranks make the other call, so that at 3, 4 and
// 8 ranks a message lists several ranks; one rank alone has nobody to
// differ from and runs the correct calls only. What the call board catches
// while ranks wait (another call at the same number, a rank that left, a
// timeout) ends the communicator and is tested as jobs:
// tests/failure/test_comm_misuse.cpp. Values are small integers or exact
// binary fractions: every result is compared exactly (the calls and their
// references: ops_misuse_test.hpp).
#include <tilecomm/ops.hpp>

#include <gmock/gmock.h>

#include <climits>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "api_test.hpp"
#include "ops_misuse_test.hpp"
#include "ops_test.hpp"

using namespace api;
using namespace api::misuse;
using tilecomm::Comm;
using tilecomm::ErrorCode;
using ops::DataType;
using ops::MatmulOptions;
using ops::MatmulShape;
using ops::Moves;
using ops::ReduceOp;
using ::testing::HasSubstr;

// ---- (a) calls that differ, caught on the first run ----------------------------------

TEST(OpsMisuse, CountTypeAndOperationThatDifferAreCaughtOnTheFirstRun) {
  Comm comm = world();
  const int n = comm.size(), odd = comm.rank() % 2;
  std::uint64_t call = 0;
  std::vector<std::int32_t> in(8, 1), out(8);
  struct Case {
    std::uint64_t count[2];
    DataType type[2];
    ReduceOp op[2];
  };
  const Case cases[] = {
      {{4, 8}, {DataType::Int32, DataType::Int32}, {ReduceOp::Sum, ReduceOp::Sum}},   // count
      {{4, 4}, {DataType::Int32, DataType::Fp32}, {ReduceOp::Sum, ReduceOp::Sum}},    // type
      {{4, 4}, {DataType::Int32, DataType::Int32}, {ReduceOp::Sum, ReduceOp::Max}},   // operation
      {{4, 4}, {DataType::Int32, DataType::Uint32}, {ReduceOp::Avg, ReduceOp::Avg}},  // signedness
  };
  for (const Case& k : cases) {
    if (n < 2) break;
    const Caught c = caught([&] {
      ops::Executor ex;
      ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), k.count[odd], k.type[odd], k.op[odd], &ex);
      ops::AllReduce(nullptr, 0, &ex);
    });
    expect_calls_differ(c, n, ++call, reducing("AllReduce", k.count[0], k.type[0], k.op[0]),
                        reducing("AllReduce", k.count[1], k.type[1], k.op[1]));
    EXPECT_EQ(allreduce(comm, 5, static_cast<int>(call)), 0) << "call #" << call + 1 << ", after #" << call;
    ++call;
  }
  EXPECT_EQ(allreduce(comm, 8, 1), 0);
  comm.destroy();
}

TEST(OpsMisuse, RootsThatDifferAreCaughtOnTheFirstRun) {
  Comm comm = world();
  const int n = comm.size(), me_ = comm.rank(), odd = me_ % 2;
  std::uint64_t call = 0;
  std::vector<std::int32_t> in(4), out(4, -1);
  for (std::size_t i = 0; i < 4; ++i) in[i] = arv(me_, i, 0);
  if (n >= 2) {
    const int root[2] = {0, n - 1};
    Caught c = caught([&] {
      ops::Executor ex;
      ops::ReduceGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum, root[odd], &ex);
      ops::Reduce(nullptr, 0, &ex);
    });
    expect_calls_differ(c, n, ++call, rooted("Reduce", 4, DataType::Int32, ReduceOp::Sum, 0),
                        rooted("Reduce", 4, DataType::Int32, ReduceOp::Sum, n - 1));
    c = caught([&] {
      ops::Executor ex;
      ops::BroadcastGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, root[odd], &ex);
      ops::Broadcast(nullptr, 0, &ex);
    });
    expect_calls_differ(c, n, ++call, rooted("Broadcast", 4, DataType::Int32, ReduceOp::Sum, 0),
                        rooted("Broadcast", 4, DataType::Int32, ReduceOp::Sum, n - 1));
  }
  // The same communicator: a reduce to the last rank and a broadcast from it.
  std::fill(out.begin(), out.end(), -1);
  ops::Executor ex;
  ops::ReduceGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum, n - 1, &ex);
  ops::Reduce(nullptr, 0, &ex);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], me_ == n - 1 ? n * static_cast<std::int32_t>(i) + 50 * n * (n - 1) : -1) << i;
  for (std::size_t i = 0; i < 4; ++i) in[i] = arv(me_, i, 7);
  ops::BroadcastGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, n - 1, &ex);
  ops::Broadcast(nullptr, 0, &ex);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(out[i], arv(n - 1, i, 7)) << i;
  comm.destroy();
}

TEST(OpsMisuse, OperatorsThatDifferAreCaughtOnTheFirstRun) {
  Comm comm = world();
  const int n = comm.size(), odd = comm.rank() % 2;
  std::uint64_t call = 0;
  std::vector<std::int32_t> in(4, 1), out(4 * n, 0);
  if (n >= 2) {
    // AllReduce against AllGather: the same count and type.
    Caught c = caught([&] {
      ops::Executor ex;
      if (odd) {
        ops::AllGatherGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, &ex);
        ops::AllGather(nullptr, 0, &ex);
      } else {
        ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum, &ex);
        ops::AllReduce(nullptr, 0, &ex);
      }
    });
    expect_calls_differ(c, n, ++call, reducing("AllReduce", 4, DataType::Int32, ReduceOp::Sum),
                        counted("AllGather", 4, DataType::Int32));
    // A collective operator against a fused one.
    MatmulCall fused(MatmulCall::AllReduce, comm, {4, 3, 2}, false, false);
    fused.plan();
    c = caught([&] {
      if (odd) return fused.run();
      ops::Executor ex;
      ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum, &ex);
      ops::AllReduce(nullptr, 0, &ex);
    });
    expect_calls_differ(c, n, ++call, reducing("AllReduce", 4, DataType::Int32, ReduceOp::Sum), fused.call());
    // The fused plan whose first run failed on the odd ranks runs on every rank now (a first run, again).
    fused.run();
    EXPECT_EQ(fused.wrong(), 0);
  }
  EXPECT_EQ(allreduce(comm, 4), 0);
  ops::Executor ex;
  for (std::size_t i = 0; i < 4; ++i) in[i] = arv(comm.rank(), i, 3);
  ops::AllGatherGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, &ex);
  ops::AllGather(nullptr, 0, &ex);
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(out[r * 4 + i], arv(r, i, 3)) << r << ' ' << i;
  comm.destroy();
}

TEST(OpsMisuse, AllToAllVCountMatricesThatDifferAreCaughtOnTheFirstRun) {
  Comm comm = world();
  const int n = comm.size(), odd = comm.rank() % 2;
  const std::vector<std::uint64_t> m[2] = {matrix(n, 0), matrix(n, 1)};
  if (n >= 2) {
    AllToAllVCall v(comm, m[odd]);
    const Caught c = caught([&] { v.run(); });
    expect_calls_differ(c, n, 1, matrix_call(DataType::Int32, m[0]), matrix_call(DataType::Int32, m[1]));
  }
  for (int k : {0, 1}) {  // either matrix, on every rank
    AllToAllVCall v(comm, m[k]);
    v.run();
    EXPECT_EQ(v.wrong(comm, m[k]), 0) << "matrix " << k;
  }
  comm.destroy();
}

TEST(OpsMisuse, MatmulShapesBiasGatherOutAndOptionsThatDifferAreCaughtOnTheFirstRun) {
  Comm comm = world();
  const int n = comm.size(), odd = comm.rank() % 2;
  MatmulOptions tiles1, tiles2, shards, weights, products, operands;
  tiles1.tiles = 1;
  tiles2.tiles = 2;
  shards.moves = Moves::Shards;
  weights.moves = Moves::Weights;
  products.moves = Moves::Products;
  operands.moves = Moves::Operands;
  using Op = MatmulCall::Op;
  struct Variant {
    Op op;
    MatmulShape s;
    bool bias, gather;
    MatmulOptions o;
  };
  struct Case {
    const char* what;
    Variant v[2];
  };
  const Case cases[] = {
      {"m=4 against m=8", {{Op::Gather, {4, 8, 5}, false, false, {}}, {Op::Gather, {8, 8, 5}, false, false, {}}}},
      {"gather_out on some ranks",
       {{Op::Gather, {4, 3, 5}, false, true, {}}, {Op::Gather, {4, 3, 5}, false, false, {}}}},
      {"bias on some ranks", {{Op::Gather, {4, 3, 5}, true, false, {}}, {Op::Gather, {4, 3, 5}, false, false, {}}}},
      {"bias on some ranks (sum)",
       {{Op::AllReduce, {4, 3, 5}, false, false, {}}, {Op::AllReduce, {4, 3, 5}, true, false, {}}}},
      {"tiles", {{Op::Gather, {4, 3, 5}, false, false, tiles1}, {Op::Gather, {4, 3, 5}, false, false, tiles2}}},
      {"tiles (scatter)",
       {{Op::ReduceScatter, {4u * n, 3, 5}, false, false, tiles2},
        {Op::ReduceScatter, {4u * n, 3, 5}, false, false, tiles1}}},
      {"moves", {{Op::Gather, {4, 3, 5}, true, false, shards}, {Op::Gather, {4, 3, 5}, true, false, weights}}},
      {"moves (sum)",
       {{Op::AllReduce, {4, 3, 5}, false, false, products}, {Op::AllReduce, {4, 3, 5}, false, false, operands}}},
  };
  std::uint64_t call = 0;
  for (const Case& k : cases) {
    auto make = [&](const Variant& v) { return MatmulCall(v.op, comm, v.s, v.bias, v.gather, v.o); };
    SCOPED_TRACE(k.what);
    if (n >= 2) {
      MatmulCall even = make(k.v[0]), other = make(k.v[1]);
      even.plan();  // planning is local: every rank learns both calls' forms and tiles
      other.plan();
      MatmulCall& mine = odd ? other : even;
      const Caught c = caught([&] { mine.run(); });
      expect_calls_differ(c, n, ++call, even.call(), other.call());
    }
    for (const Variant& v : k.v) {  // either call, on every rank: exact
      EXPECT_EQ(matmul(v.op, comm, v.s, v.bias, v.gather, v.o), 0) << k.what << ", call #" << call + 1;
      ++call;
    }
  }
  comm.destroy();
}

// ---- (b) count 0 on some ranks only ----------------------------------------------------

TEST(OpsMisuse, CountZeroOnSomeRanksOnlyIsCaughtNotAHang) {
  Comm comm = world();
  const int n = comm.size(), odd = comm.rank() % 2;
  std::uint64_t call = 0;
  std::vector<std::int32_t> in(6 * n, 1), out(6 * n, 0), c(6 * n, 0);
  if (n >= 2) {
    // Even ranks pass 0 elements and no buffers, as a rank with nothing to add would.
    Caught e = caught([&] {
      ops::Executor ex;
      ops::AllReduceGetWorkspaceSize(comm, odd ? in.data() : nullptr, odd ? out.data() : nullptr, odd ? 6 : 0,
                                     DataType::Int32, ReduceOp::Sum, &ex);
      ops::AllReduce(nullptr, 0, &ex);
    });
    expect_calls_differ(e, n, ++call, reducing("AllReduce", 0, DataType::Int32, ReduceOp::Sum),
                        reducing("AllReduce", 6, DataType::Int32, ReduceOp::Sum));
    e = caught([&] { ops::AllGather(comm, in.data(), out.data(), odd ? 0 : 6, DataType::Int32); });  // one call
    expect_calls_differ(e, n, ++call, counted("AllGather", 6, DataType::Int32),
                        counted("AllGather", 0, DataType::Int32));
    e = caught([&] {
      ops::Executor ex;
      ops::AllGatherAddGetWorkspaceSize(comm, in.data(), c.data(), out.data(), odd ? 6 : 0, DataType::Int32, &ex);
      ops::AllGatherAdd(nullptr, 0, &ex);
    });
    expect_calls_differ(e, n, ++call, counted("AllGatherAdd", 0, DataType::Int32),
                        counted("AllGatherAdd", 6, DataType::Int32));
    const std::vector<std::uint64_t> zero(static_cast<std::size_t>(n) * n, 0), some = matrix(n, 0);
    AllToAllVCall v(comm, odd ? some : zero);
    e = caught([&] { v.run(); });
    expect_calls_differ(e, n, ++call, matrix_call(DataType::Int32, zero), matrix_call(DataType::Int32, some));
    MatmulCall no_rows(MatmulCall::Gather, comm, {0, 3, 5}, false, false),
        rows(MatmulCall::Gather, comm, {4, 3, 5}, false, false);
    no_rows.plan();  // planning is local: every rank learns both calls' forms and tiles
    rows.plan();
    e = caught([&] { (odd ? rows : no_rows).run(); });
    expect_calls_differ(e, n, ++call, no_rows.call(), rows.call());
  }
  // Zero on every rank is a call like any other, then the same communicator sums.
  ops::Executor ex;
  ops::AllReduceGetWorkspaceSize(comm, nullptr, nullptr, 0, DataType::Int32, ReduceOp::Sum, &ex);
  ops::AllReduce(nullptr, 0, &ex);
  ops::AllGather(comm, nullptr, nullptr, 0, DataType::Int32);
  EXPECT_EQ(allreduce(comm, 6), 0);
  comm.destroy();
}

// ---- (c) the one-call forms ----------------------------------------------------------

TEST(OpsMisuse, OneCallFormsCatchCallsThatDifferAndStayUsable) {
  Comm comm = world();
  const int n = comm.size(), me_ = comm.rank(), odd = me_ % 2;
  std::uint64_t call = 0;
  std::vector<std::int32_t> in(8 * n, 1), out(8 * n, 0);
  if (n >= 2) {
    Caught c =
        caught([&] { ops::AllReduce(comm, in.data(), out.data(), odd ? 8 : 4, DataType::Int32, ReduceOp::Sum); });
    expect_calls_differ(c, n, ++call, reducing("AllReduce", 4, DataType::Int32, ReduceOp::Sum),
                        reducing("AllReduce", 8, DataType::Int32, ReduceOp::Sum));
    c = caught([&] {
      if (odd) ops::AllGather(comm, in.data(), out.data(), 4, DataType::Int32);
      else ops::AllReduce(comm, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum);
    });
    expect_calls_differ(c, n, ++call, reducing("AllReduce", 4, DataType::Int32, ReduceOp::Sum),
                        counted("AllGather", 4, DataType::Int32));
    c = caught([&] { ops::Broadcast(comm, in.data(), out.data(), 4, DataType::Int32, odd ? n - 1 : 0); });
    expect_calls_differ(c, n, ++call, rooted("Broadcast", 4, DataType::Int32, ReduceOp::Sum, 0),
                        rooted("Broadcast", 4, DataType::Int32, ReduceOp::Sum, n - 1));
    MatmulOptions tiles1, tiles2;
    tiles1.tiles = 1;
    tiles2.tiles = 2;
    MatmulCall even(MatmulCall::Gather, comm, {4, 3, 5}, true, true, tiles1),
        other(MatmulCall::Gather, comm, {4, 3, 5}, true, true, tiles2);
    even.plan();
    other.plan();
    MatmulCall& mine = odd ? other : even;
    c = caught([&] {
      ops::AllGatherMatmul(comm, mine.x1.data(), mine.x2.data(), mine.bias.data(), mine.y.data(), mine.gather.data(),
                           mine.s, DataType::Fp32, mine.options);
    });
    expect_calls_differ(c, n, ++call, even.call(), other.call());
    // Every signature that failed, now made by every rank: kept or new, each agrees again.
    for (int k : {0, 1}) {
      MatmulCall& same = k ? other : even;
      ops::AllGatherMatmul(comm, same.x1.data(), same.x2.data(), same.bias.data(), same.y.data(), same.gather.data(),
                           same.s, DataType::Fp32, same.options);
      EXPECT_EQ(same.wrong(), 0) << "tiles " << same.options.tiles;
    }
    EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 4, 1), 0);
    EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 8, 2), 0);
  }
  for (std::size_t i = 0; i < 4; ++i) in[i] = arv(me_, i, 5);
  ops::Broadcast(comm, in.data(), out.data(), 4, DataType::Int32, n - 1);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(out[i], arv(n - 1, i, 5)) << i;
  ops::AllGather(comm, in.data(), out.data(), 4, DataType::Int32);
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(out[r * 4 + i], arv(r, i, 5)) << r << ' ' << i;
  comm.destroy();
}

// One signature, called again and again with other buffers and values: private,
// symmetric (the same object on every rank), the output being the input.
TEST(OpsMisuse, OneCallFormsWithBuffersThatChangeGiveExactResults) {
  Comm comm = world();
  const std::size_t count = 1000;  // several rounds of... one round of the 64 KiB window
  std::vector<std::int32_t> a(count), b(count), out_a(count), out_b(count);
  Sym<std::int32_t> sym(count);
  ASSERT_TRUE(sym.ok());
  for (int k = 0; k < 12; ++k) {
    std::int32_t* in = k % 3 == 0 ? a.data() : k % 3 == 1 ? sym.get() : b.data();
    std::int32_t* out = k % 4 == 3 ? in : k % 2 ? out_a.data() : out_b.data();
    EXPECT_EQ(allreduce_once(comm, in, out, count, k), 0) << "call " << k;
    shmem_barrier_all();  // nobody reads sym any more before it changes
  }
  // An AllGather in place (input == output + rank * count), then apart, through the same kept plan.
  std::vector<std::int32_t> gathered(comm.size() * 8);
  for (int k = 0; k < 2; ++k) {
    std::int32_t* in = k == 0 ? gathered.data() + comm.rank() * 8 : a.data();
    for (std::size_t i = 0; i < 8; ++i) in[i] = arv(comm.rank(), i, 40 + k);
    ops::AllGather(comm, in, gathered.data(), 8, DataType::Int32);
    for (int r = 0; r < comm.size(); ++r)
      for (std::size_t i = 0; i < 8; ++i)
        EXPECT_EQ(gathered[r * 8 + i], arv(r, i, 40 + k)) << k << ' ' << r << ' ' << i;
  }
  comm.destroy();
}

// 70 signatures (AllReduce of 1..70 elements), more than the 64 kept, then the
// first again, whose plan went first: made and agreed again.
TEST(OpsMisuse, MoreSignaturesThanTheCommunicatorKeepsGiveExactResults) {
  Comm comm = world();
  std::vector<std::int32_t> in(70), out(70);
  for (int round = 0; round < 2; ++round)
    for (std::size_t count = 1; count <= 70; ++count)
      EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), count, static_cast<int>(count + round)), 0)
          << count << " elements, round " << round;
  EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 1, 99), 0);
  EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 70, 98), 0);
  comm.destroy();
}

// After a one-call mismatch the communicator must stay usable for any
// number of later calls. Every rank keeps its own call's plan (unresolved),
// and the odd ranks keep the even ranks' call too once they make it: a plan
// more than the even ranks keep. 62 signatures later a plan resolved on
// every rank has gone on the odd ranks only, and its next call is a first
// run (an exchange) there but a kept plan's run on the even ranks: the two
// never meet (a hang until TILECOMM_TIMEOUT, or a call that returns on some
// ranks only). Disabled until the communicator's kept plans stay the same
// on every rank after such an error (src/comm/calls.cpp, plan_for).
TEST(OpsMisuse, AOneCallMismatchLeavesTheKeptPlansAlikeOnEveryRank) {
  Comm comm = world();
  const int odd = comm.rank() % 2;
  std::vector<std::int32_t> in(1000), out(1000);
  EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 1000, 0), 0);  // kept and resolved on every rank
  if (comm.size() >= 2) {
    const std::size_t count = odd ? 8 : 4;
    EXPECT_TRUE(caught([&] { ops::AllReduce(comm, in.data(), out.data(), count, DataType::Int32, ReduceOp::Sum); }).thrown);
  }
  EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 4, 1), 0);
  for (std::size_t count = 10; count < 72; ++count)
    EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), count, 2), 0) << count;
  EXPECT_EQ(allreduce_once(comm, in.data(), out.data(), 1000, 3), 0);
  comm.destroy();
}

// ---- (d) Start and Request -------------------------------------------------------------

TEST(OpsMisuse, StartedCallsRunInOrderAndWaitRethrowsTheirErrors) {
  Comm comm = world();
  const int n = comm.size(), me_ = comm.rank();
  constexpr int kCalls = 6;
  constexpr std::size_t kCount = 300;
  std::vector<std::vector<std::int32_t>> in(kCalls, std::vector<std::int32_t>(kCount)), out(kCalls);
  std::vector<ops::Request> started;
  for (int k = 0; k < kCalls; ++k) {
    for (std::size_t i = 0; i < kCount; ++i) in[k][i] = arv(me_, i, k);
    // AllReduce of every second one, AllGather of the others: two signatures, kept plans reused.
    out[k].assign(k % 2 ? n * kCount : kCount, -1);
    started.push_back(ops::Start(comm, [&, k] {
      if (k % 2) ops::AllGather(comm, in[k].data(), out[k].data(), kCount, DataType::Int32);
      else ops::AllReduce(comm, in[k].data(), out[k].data(), kCount, DataType::Int32, ReduceOp::Sum);
    }));
  }
  for (int k = 0; k < kCalls; ++k) {
    if (k == kCalls - 1) {
      while (!started[k].test()) std::this_thread::yield();  // test() says so, eventually
      EXPECT_TRUE(started[k].test());
    }
    started[k].wait();
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < kCount; ++i) {
      if (k % 2)
        for (int r = 0; r < n; ++r) bad += out[k][r * kCount + i] != arv(r, i, k);
      else
        bad += out[k][i] != n * static_cast<std::int32_t>(i + k) + 50 * n * (n - 1);
    }
    EXPECT_EQ(bad, 0) << "started call " << k;
  }
  // An operator called here waits for the started ones: program order on each rank.
  std::vector<std::int32_t> mine(kCount), sum(kCount);
  ops::Request r = ops::Start(comm, [&] { allreduce_once(comm, in[0].data(), out[0].data(), kCount, 11); });
  EXPECT_EQ(allreduce_once(comm, mine.data(), sum.data(), kCount, 12), 0);
  EXPECT_TRUE(r.test());  // finished before the call above began
  r.wait();
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < kCount; ++i) bad += out[0][i] != n * static_cast<std::int32_t>(i + 11) + 50 * n * (n - 1);
  EXPECT_EQ(bad, 0);
  // Errors: wait() and test() rethrow them, once.
  r = ops::Start(comm, [&] { ops::Broadcast(comm, mine.data(), sum.data(), 4, DataType::Int32, n); });
  Caught c = caught([&] { r.wait(); });
  EXPECT_EQ(c.code, ErrorCode::InvalidUsage);
  EXPECT_THAT(c.what, HasSubstr("tilecomm::ops::Broadcast: root " + std::to_string(n) + " is not a rank"));
  EXPECT_NO_THROW(r.wait());
  r = ops::Start(comm, [] { throw std::runtime_error("not tilecomm's"); });
  EXPECT_THROW(
      {
        while (!r.test()) std::this_thread::yield();
      },
      std::runtime_error);
  if (n >= 2) {
    r = ops::Start(comm, [&] {
      ops::AllReduce(comm, mine.data(), sum.data(), me_ % 2 ? 8 : 4, DataType::Int32, ReduceOp::Sum);
    });
    c = caught([&] { r.wait(); });
    // This communicator's calls so far: the 6, the 2 above (the failed broadcast never began).
    expect_calls_differ(c, n, kCalls + 3, reducing("AllReduce", 4, DataType::Int32, ReduceOp::Sum),
                        reducing("AllReduce", 8, DataType::Int32, ReduceOp::Sum));
  }
  r = ops::Start(comm, [&] { EXPECT_EQ(allreduce_once(comm, mine.data(), sum.data(), kCount, 13), 0); });
  r.wait();
  ops::Request empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_THAT(caught([&] { empty.wait(); }).what, HasSubstr("an empty request"));
  EXPECT_THAT(caught([&] { ops::Start(comm, {}); }).what, HasSubstr("tilecomm::ops::Start: the call is empty"));
  comm.destroy();
}

// ---- (e) unsigned types and Avg --------------------------------------------------------

namespace {

// The C++ type of a DataType (fp16 and bf16: their bits).
template <DataType T>
using Elem = std::conditional_t<
    T == DataType::Int8, std::int8_t,
    std::conditional_t<T == DataType::Int16, std::int16_t,
    std::conditional_t<T == DataType::Int32, std::int32_t,
    std::conditional_t<T == DataType::Int64, std::int64_t,
    std::conditional_t<T == DataType::Uint8, std::uint8_t,
    std::conditional_t<T == DataType::Uint16, std::uint16_t,
    std::conditional_t<T == DataType::Uint32, std::uint32_t,
    std::conditional_t<T == DataType::Uint64, std::uint64_t,
    std::conditional_t<T == DataType::Fp32, float,
    std::conditional_t<T == DataType::Fp64, double, std::uint16_t>>>>>>>>>>;

constexpr bool half(DataType t) { return t == DataType::Fp16 || t == DataType::Bf16; }

// Rank r's element i of type T for operation op. Integers: values across
// the whole range (unsigned ones above the signed maximum, so that max and
// min compare them unsigned, and sums that wrap); products of small
// values. Floating point: n * (k + 1/2) for small k, so that every sum is
// exact and so is its division by n, the average.
template <DataType T>
Elem<T> element(ReduceOp op, int r, std::size_t i, int n) {
  using E = Elem<T>;
  if constexpr (std::is_integral_v<E> && !half(T)) {
    using U = std::make_unsigned_t<E>;
    if (op == ReduceOp::Prod) return static_cast<E>((r + i) % 3 + (i % 5 == 0 ? 200 : 1));
    const U top = std::numeric_limits<U>::max();
    const U v = (r + i) % 2 ? static_cast<U>(top - static_cast<U>(r * 29 + i * 3)) : static_cast<U>(r * 7 + i);
    return static_cast<E>(v);
  } else {
    const double k = static_cast<double>((r * 3 + static_cast<long>(i)) % 9) - 4;
    const double v = n * (k + 0.5);
    if constexpr (T == DataType::Fp16) return ops::float_to_fp16(static_cast<float>(v));
    else if constexpr (T == DataType::Bf16) return ops::float_to_bf16(static_cast<float>(v));
    else return static_cast<E>(v);
  }
}

// op over the ranks of element(op, r, i), in T's arithmetic: integers wrap,
// Avg divides the wrapped sum (toward zero); half precision sums in fp32.
template <DataType T>
Elem<T> expected(ReduceOp op, std::size_t i, int n) {
  using E = Elem<T>;
  if constexpr (std::is_integral_v<E> && !half(T)) {
    using U = std::make_unsigned_t<E>;
    U acc = static_cast<U>(element<T>(op, 0, i, n));
    for (int r = 1; r < n; ++r) {
      const E v = element<T>(op, r, i, n);
      const E a = static_cast<E>(acc);
      switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Avg: acc = static_cast<U>(static_cast<std::uint64_t>(acc) + static_cast<U>(v)); break;
        case ReduceOp::Prod:
          acc = static_cast<U>(static_cast<std::uint64_t>(acc) * static_cast<std::uint64_t>(static_cast<U>(v)));
          break;
        case ReduceOp::Max: acc = static_cast<U>(std::max(a, v)); break;
        case ReduceOp::Min: acc = static_cast<U>(std::min(a, v)); break;
      }
    }
    const E total = static_cast<E>(acc);
    return op == ReduceOp::Avg ? static_cast<E>(total / static_cast<E>(n)) : total;
  } else {
    double acc = 0;
    for (int r = 0; r < n; ++r) {
      const E v = element<T>(op, r, i, n);
      if constexpr (T == DataType::Fp16) acc += ops::fp16_to_float(v);
      else if constexpr (T == DataType::Bf16) acc += ops::bf16_to_float(v);
      else acc += static_cast<double>(v);
    }
    const double v = op == ReduceOp::Avg ? acc / n : acc;  // exact (see element)
    if constexpr (T == DataType::Fp16) return ops::float_to_fp16(static_cast<float>(v));
    else if constexpr (T == DataType::Bf16) return ops::float_to_bf16(static_cast<float>(v));
    else return static_cast<E>(v);
  }
}

// AllReduce, Reduce (to the last rank; the others' outputs untouched) and
// ReduceScatter of type T with op, two-phase and one-call: the wrong elements.
template <DataType T>
std::int64_t reductions(Comm& comm, ReduceOp op) {
  using E = Elem<T>;
  const int n = comm.size(), me_ = comm.rank();
  constexpr std::size_t kCount = 37;
  std::vector<E> in(n * kCount), out(n * kCount + 1);
  const E untouched = static_cast<E>(0x5a);
  std::int64_t bad = 0;
  for (int one_call : {0, 1}) {
    // AllReduce and Reduce: input i = element i.
    for (std::size_t i = 0; i < kCount; ++i) in[i] = element<T>(op, me_, i, n);
    std::fill(out.begin(), out.end(), untouched);
    ops::Executor ex;
    if (one_call) {
      ops::AllReduce(comm, in.data(), out.data(), kCount, T, op);
    } else {
      ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), kCount, T, op, &ex);
      ops::AllReduce(nullptr, 0, &ex);
    }
    for (std::size_t i = 0; i < kCount; ++i) bad += out[i] != expected<T>(op, i, n);
    std::fill(out.begin(), out.end(), untouched);
    if (one_call) {
      ops::Reduce(comm, in.data(), out.data(), kCount, T, op, n - 1);
    } else {
      ops::ReduceGetWorkspaceSize(comm, in.data(), out.data(), kCount, T, op, n - 1, &ex);
      ops::Reduce(nullptr, 0, &ex);
    }
    for (std::size_t i = 0; i < kCount; ++i) bad += out[i] != (me_ == n - 1 ? expected<T>(op, i, n) : untouched);
    // ReduceScatter: block d of the input holds elements d * kCount.., for rank d.
    for (std::size_t i = 0; i < n * kCount; ++i) in[i] = element<T>(op, me_, i, n);
    std::fill(out.begin(), out.end(), untouched);
    if (one_call) {
      ops::ReduceScatter(comm, in.data(), out.data(), kCount, T, op);
    } else {
      ops::ReduceScatterGetWorkspaceSize(comm, in.data(), out.data(), kCount, T, op, &ex);
      ops::ReduceScatter(nullptr, 0, &ex);
    }
    for (std::size_t i = 0; i < kCount; ++i) bad += out[i] != expected<T>(op, me_ * kCount + i, n);
    bad += out[kCount] != untouched;
  }
  return bad;
}

template <DataType T>
void expect_reductions(Comm& comm, std::initializer_list<ReduceOp> op_list) {
  for (ReduceOp op : op_list) EXPECT_EQ(reductions<T>(comm, op), 0) << ops::name_of(T) << ' ' << ops::name_of(op);
}

}  // namespace

TEST(OpsMisuse, UnsignedTypesEveryOperationExactly) {
  Comm comm = world();
  const auto every = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};
  expect_reductions<DataType::Uint8>(comm, every);
  expect_reductions<DataType::Uint16>(comm, every);
  expect_reductions<DataType::Uint32>(comm, every);
  expect_reductions<DataType::Uint64>(comm, every);
  // The signed types of the same width, on the same bits: max and min differ.
  expect_reductions<DataType::Int8>(comm, {ReduceOp::Max, ReduceOp::Min});
  expect_reductions<DataType::Int64>(comm, {ReduceOp::Max, ReduceOp::Min});
  comm.destroy();
}

TEST(OpsMisuse, AvgOfEveryTypeExactly) {
  Comm comm = world();
  expect_reductions<DataType::Int8>(comm, {ReduceOp::Avg});
  expect_reductions<DataType::Int16>(comm, {ReduceOp::Avg});
  expect_reductions<DataType::Int32>(comm, {ReduceOp::Avg});
  expect_reductions<DataType::Int64>(comm, {ReduceOp::Avg});
  expect_reductions<DataType::Fp16>(comm, {ReduceOp::Avg, ReduceOp::Sum});
  expect_reductions<DataType::Bf16>(comm, {ReduceOp::Avg, ReduceOp::Sum});
  expect_reductions<DataType::Fp32>(comm, {ReduceOp::Avg});
  expect_reductions<DataType::Fp64>(comm, {ReduceOp::Avg});
  // A sum that wraps, then divided: int32 (2^31 - 1) * size() / size() is not 2^31 - 1.
  const int n = comm.size();
  std::vector<std::int32_t> in(1, std::numeric_limits<std::int32_t>::max()), out(1);
  ops::AllReduce(comm, in.data(), out.data(), 1, DataType::Int32, ReduceOp::Avg);
  const auto wrapped = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()) *
                                                 static_cast<std::uint32_t>(n));
  EXPECT_EQ(out[0], wrapped / n);
  comm.destroy();
}

// ---- (f) plans bound to their communicator ---------------------------------------------

TEST(OpsMisuse, APlanRefusesADestroyedOrMovedFromCommunicator) {
  Comm comm = world();
  std::vector<std::int32_t> in(4), out(4);
  ops::Executor ex;
  ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum, &ex);
  ops::AllReduce(nullptr, 0, &ex);
  MatmulCall mm(MatmulCall::AllReduce, comm, {4, 3, 5}, true, false);
  mm.plan();
  mm.run();
  EXPECT_EQ(mm.wrong(), 0);
  // Moved from: the plans named the object they were made with.
  Comm moved = std::move(comm);
  const std::string gone = "this tilecomm::Comm was destroyed (or moved from); create a new communicator";
  expect_refused([&] { ops::AllReduce(nullptr, 0, &ex); }, {gone});
  expect_refused([&] { mm.run(); }, {gone});
  EXPECT_EQ(allreduce(moved, 4), 0);  // planned afresh on the communicator as it is now
  // Destroyed.
  ops::AllReduceGetWorkspaceSize(moved, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum, &ex);
  ops::AllReduce(nullptr, 0, &ex);
  moved.destroy();
  expect_refused([&] { ops::AllReduce(nullptr, 0, &ex); }, {gone});
  expect_refused([&] { ops::AllReduce(moved, in.data(), out.data(), 4, DataType::Int32, ReduceOp::Sum); }, {gone});
  expect_refused([&] { ops::Start(moved, [] {}); }, {gone});
}

// The old heap overflow: an fp16 AllGatherMatmul planned for a small window
// (small row tiles, and a workspace for those) run after the communicator
// at the same address was replaced by one with a larger window.
TEST(OpsMisuse, APlanRefusesACommunicatorReplacedAtTheSameAddress) {
  const int n = npes(), me_ = me();
  const MatmulShape s{64, 48, 16};  // x1: 6 KiB of fp16 per rank; 2 KiB windows: rounds of 10 rows
  std::vector<std::uint16_t> x1(s.m * s.k), x2(s.k * s.n), y(n * s.m * s.n);
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t j = 0; j < s.k; ++j) x1[i * s.k + j] = ops::float_to_fp16((i + j + me_) % 3 == 0 ? 1.0f : 0.0f);
  for (std::size_t j = 0; j < s.k; ++j)
    for (std::size_t c = 0; c < s.n; ++c) x2[j * s.n + c] = ops::float_to_fp16(j % 4 == c % 4 ? 1.0f : 0.0f);
  auto wrong = [&] {
    std::int64_t bad = 0;
    for (int r = 0; r < n; ++r)
      for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t c = 0; c < s.n; ++c) {
          float v = 0;
          for (std::size_t j = 0; j < s.k; ++j) v += ((i + j + r) % 3 == 0) * (j % 4 == c % 4);
          bad += y[(r * s.m + i) * s.n + c] != ops::float_to_fp16(v);
        }
    return bad;
  };
  Comm comm = Comm::world(window(2048));
  ops::Executor ex;
  auto plan = [&] {
    const auto ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), nullptr, y.data(), nullptr, s,
                                                         DataType::Fp16, &ex);
    return std::vector<std::uint8_t>(ws);
  };
  std::vector<std::uint8_t> workspace = plan();
  ops::AllGatherMatmul(workspace.data(), workspace.size(), &ex);
  EXPECT_EQ(wrong(), 0);
  const Comm* const at = &comm;
  const std::string refused = "tilecomm::ops::AllGatherMatmul: the communicator this plan was made for was replaced "
                              "since (another communicator now lives at " + pointer(at) + "); plan again with "
                              "tilecomm::ops::AllGatherMatmulGetWorkspaceSize";
  comm = Comm::world(window(4 << 20));  // larger: one round, larger tiles than the workspace holds
  EXPECT_EQ(&comm, at);
  expect_refused([&] { ops::AllGatherMatmul(workspace.data(), workspace.size(), &ex); }, {refused});
  std::fill(y.begin(), y.end(), 0);
  workspace = plan();
  ops::AllGatherMatmul(workspace.data(), workspace.size(), &ex);
  EXPECT_EQ(wrong(), 0);
  // Replaced by a smaller window, too small for one row of x1 (96 B of fp16) per partition.
  comm = Comm::world(window(128));
  expect_refused([&] { ops::AllGatherMatmul(workspace.data(), workspace.size(), &ex); }, {refused});
  expect_refused([&] { plan(); },
                 {"tilecomm::ops::AllGatherMatmul: the communicator's window (CommOptions::window_bytes=128) "
                  "cannot hold one row of the x1 shard per rank; use a larger window"});
  // A collective plan made for the large window: refused too; made afresh, it runs in rounds.
  comm = Comm::world(window(1 << 20));
  std::vector<std::int32_t> in(1000), out(1000);
  ops::Executor ar;
  ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), 1000, DataType::Int32, ReduceOp::Sum, &ar);
  ops::AllReduce(nullptr, 0, &ar);
  comm = Comm::world(window(256));
  expect_refused([&] { ops::AllReduce(nullptr, 0, &ar); },
                 {"tilecomm::ops::AllReduce: the communicator this plan was made for was replaced since (another "
                  "communicator now lives at " + pointer(at) + "); plan again with "
                  "tilecomm::ops::AllReduceGetWorkspaceSize"});
  EXPECT_EQ(allreduce(comm, 1000, 3), 0);
  comm.destroy();
}

// ---- (g) fused aliasing, and sizes that wrap -------------------------------------------

TEST(OpsMisuse, AllGatherAddOutputsMayHoldTheInputsOnlyInPlace) {
  Comm comm = Comm::world(window(256));  // 32 int32 per partition: several rounds
  const int n = comm.size(), me_ = comm.rank();
  constexpr std::size_t kCount = 100;
  const std::uint64_t shard = kCount * 4, all = n * shard;
  std::vector<std::int32_t> c(n * kCount + kCount), b(n * kCount), a(kCount);
  ops::Executor ex;
  auto plan = [&](const std::int32_t* a_, const std::int32_t* b_, std::int32_t* c_) {
    ops::AllGatherAddGetWorkspaceSize(comm, a_, b_, c_, kCount, DataType::Int32, &ex);
  };
  const std::string hint = "; pass disjoint buffers, or a == c + j * count for a rank j, or b == c";
  const std::string c_at = "c [" + pointer(c.data()) + ", +" + std::to_string(all) + " bytes) overlaps ";
  expect_refused([&] { plan(c.data() + 1, b.data(), c.data()); },
                 {"tilecomm::ops::AllGatherAdd: " + c_at + "a [" + pointer(c.data() + 1) + ", +" +
                  std::to_string(shard) + " bytes)" + hint});
  expect_refused([&] { plan(c.data() + (n - 1) * kCount + kCount / 2, b.data(), c.data()); }, {c_at + "a [", hint});
  expect_refused([&] { plan(a.data(), c.data() + 1, c.data()); },
                 {c_at + "b [" + pointer(c.data() + 1) + ", +" + std::to_string(all) + " bytes)" + hint});
  // Allowed: a in any rank's slot of c, b being c; run, every result exact.
  auto value = [](int r, std::size_t i) { return static_cast<std::int32_t>(r * 1000 + i); };
  for (int slot : {me_, (me_ + 1) % n})
    for (bool b_is_c : {false, true}) {
      std::int32_t* a_ = c.data() + slot * kCount;
      for (std::size_t i = 0; i < n * kCount; ++i) {
        b[i] = static_cast<std::int32_t>(i % 7);
        c[i] = b_is_c ? b[i] : -1;
      }
      for (std::size_t i = 0; i < kCount; ++i) a_[i] = value(me_, i);  // over b's values where b is c
      if (b_is_c)
        for (std::size_t i = 0; i < kCount; ++i) b[slot * kCount + i] = a_[i];
      plan(a_, b_is_c ? c.data() : b.data(), c.data());
      ops::AllGatherAdd(nullptr, 0, &ex);
      std::int64_t bad = 0;
      for (int r = 0; r < n; ++r)
        for (std::size_t i = 0; i < kCount; ++i) bad += c[r * kCount + i] != value(r, i) + b[r * kCount + i];
      EXPECT_EQ(bad, 0) << "a in slot " << slot << (b_is_c ? ", b == c" : "");
    }
  comm.destroy();
}

TEST(OpsMisuse, MatmulOutputsMustNotOverlapInputsButGatherOutMayHoldX1InASlot) {
  Comm comm = world();
  const int n = comm.size(), me_ = comm.rank();
  const MatmulShape s{4, 3, 5};
  const std::uint64_t x1b = s.m * s.k * 4, yb = n * s.m * s.n * 4, gb = n * s.m * s.k * 4;
  std::vector<float> big(4096), x2(s.k * s.n), x1(s.m * s.k), bias(s.n), y(n * s.m * s.n), g(n * s.m * s.k);
  ops::Executor ex;
  auto agm = [&](const float* x1_, const float* x2_, const float* b_, float* y_, float* g_) {
    ops::AllGatherMatmulGetWorkspaceSize(comm, x1_, x2_, b_, y_, g_, s, DataType::Fp32, &ex);
  };
  const std::string call = "tilecomm::ops::AllGatherMatmul: ";
  float* p = big.data();
  expect_refused([&] { agm(p, x2.data(), nullptr, p + 1, nullptr); },
                 {call + "y [" + pointer(p + 1) + ", +" + std::to_string(yb) + " bytes) overlaps x1 [" + pointer(p) +
                  ", +" + std::to_string(x1b) + " bytes); pass disjoint buffers"});
  expect_refused([&] { agm(x1.data(), p, nullptr, p + 2, nullptr); }, {call + "y [", " overlaps x2 ["});
  expect_refused([&] { agm(x1.data(), x2.data(), p, p, nullptr); }, {call + "y [", " overlaps bias ["});
  expect_refused([&] { agm(p + 1, x2.data(), nullptr, y.data(), p); },
                 {call + "gather_out [" + pointer(p) + ", +" + std::to_string(gb) + " bytes) overlaps x1 [" +
                  pointer(p + 1) + ", +" + std::to_string(x1b) + " bytes); pass disjoint buffers, or x1 == gather_out "
                  "+ j * m * k for a rank j"});
  expect_refused([&] { agm(x1.data(), p + 3, nullptr, y.data(), p); }, {call + "gather_out [", " overlaps x2 ["});
  expect_refused([&] { agm(x1.data(), x2.data(), nullptr, p, p + gb / 4 - 1); },
                 {call + "gather_out and y overlap; pass disjoint buffers"});
  expect_refused([&] {
    ops::MatmulAllReduceGetWorkspaceSize(comm, x1.data(), p, nullptr, p + 5, s, DataType::Fp32, &ex);
  }, {"tilecomm::ops::MatmulAllReduce: y [", " overlaps x2 ["});
  expect_refused([&] {
    ops::MatmulReduceScatterGetWorkspaceSize(comm, p, x2.data(), nullptr, p, {4u * n, 3, 5}, DataType::Fp32, &ex);
  }, {"tilecomm::ops::MatmulReduceScatter: y [", " overlaps x1 ["});
  // Allowed: x1 in its own slot of gather_out, or in another rank's; exact.
  for (int slot : {me_, (me_ + 1) % n}) {
    MatmulCall mm(MatmulCall::Gather, comm, s, true, true);
    float* x1_in_slot = mm.gather.data() + slot * s.m * s.k;
    std::copy(mm.x1.begin(), mm.x1.end() - 1, x1_in_slot);
    const auto ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1_in_slot, mm.x2.data(), mm.bias.data(), mm.y.data(),
                                                         mm.gather.data(), s, DataType::Fp32, &mm.ex);
    std::vector<std::uint8_t> w(ws + 1);
    ops::AllGatherMatmul(w.data(), ws, &mm.ex);
    EXPECT_EQ(mm.wrong(), 0) << "x1 in slot " << slot;
  }
  comm.destroy();
}

TEST(OpsMisuse, SizesThatWrapTheAddressSpaceAreRefusedWhenPlanning) {
  Comm comm = world();
  const int n = comm.size();
  std::vector<std::int8_t> in(64), out(64 * n);
  ops::Executor ex;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::string past = " runs past the end of the address space; check the count and the shape";
  expect_refused(
      [&] { ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), kMax, DataType::Int8, ReduceOp::Sum, &ex); },
      {"tilecomm::ops::AllReduce: input [" + pointer(in.data()) + ", +" + std::to_string(kMax) + " bytes)" + past});
  // A count whose bytes end exactly at 2^64 from the higher of the two buffers.
  const auto hi = std::max(reinterpret_cast<std::uintptr_t>(in.data()), reinterpret_cast<std::uintptr_t>(out.data()));
  const std::uint64_t to_end = 0 - static_cast<std::uint64_t>(hi);
  expect_refused(
      [&] { ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), to_end, DataType::Int8, ReduceOp::Sum, &ex); },
      {std::string(hi == reinterpret_cast<std::uintptr_t>(in.data()) ? "input [" : "output [") +
       pointer(reinterpret_cast<void*>(hi)) + ", +" + std::to_string(to_end) + " bytes)" + past});
  EXPECT_THAT(caught([&] { ops::AllReduce(nullptr, 0, &ex); }).what, HasSubstr("was not planned"));
  expect_refused([&] { ops::Broadcast(comm, in.data(), out.data(), kMax, DataType::Int8, 0); }, {past});
  expect_refused([&] { ops::AllGatherAdd(comm, in.data(), in.data(), out.data(), kMax / n, DataType::Int8); },
                 {"tilecomm::ops::AllGatherAdd: ", past});
  // Sizes whose bytes overflow 64 bits before any address.
  expect_refused(
      [&] { ops::AllReduce(comm, in.data(), out.data(), kMax / 2, DataType::Int32, ReduceOp::Sum); },
      {"tilecomm::ops::AllReduce: " + std::to_string(kMax / 2) + " elements of int32 per rank overflow 64 bits"});
  expect_refused([&] {
    ops::MatmulAllReduce(comm, in.data(), in.data(), nullptr, out.data(), {INT_MAX, INT_MAX, 1}, DataType::Fp64);
  }, {"tilecomm::ops::MatmulAllReduce: x1 of 2147483647 x 2147483647 elements overflows 64 bits"});
  const std::uint64_t x1_bytes =
      std::uint64_t{INT_MAX} * INT_MAX * 4;  // below 2^64, past the end from any heap address
  expect_refused(
      [&] {
        ops::MatmulAllReduce(comm, in.data(), in.data(), nullptr, out.data(), {INT_MAX, INT_MAX, 1}, DataType::Fp32);
      },
      {"tilecomm::ops::MatmulAllReduce: x1 [" + pointer(in.data()) + ", +" + std::to_string(x1_bytes) + " bytes)" +
       past});
  // A window and flag region whose sum wraps: refused before anything collective.
  tilecomm::CommOptions huge = window(std::numeric_limits<std::size_t>::max() - 127);
  expect_refused([&] { Comm::world(huge); }, {"overflows size_t"});
  EXPECT_EQ(allreduce(comm, 64), 0);  // nothing started: the same communicator still sums
  comm.destroy();
}
