// The collective operators of <tilecomm/ops.hpp>: every operator and type,
// sizes of one element, odd sizes and inputs larger than the window (several
// rounds), on the world and on a strided sub-team communicator; the two
// phases and their errors; fp16/bf16 conversions. ReduceScatter and Reduce
// run every operation (Reduce from every root, with a non-root's output
// checked untouched or passed null); AllToAllV runs a send-count matrix with
// zeros, odd counts and a different count for every pair (the same matrix on
// every rank). Values are small integers, exact in every type, so every
// result is compared exactly (fp16 and bf16 reductions accumulate in fp32
// and round once: exact for these values). The same again with the inputs
// in symmetric memory (NOTE [inputs in place] in src/comm/ops.cpp): read in
// place when every rank's is the same object, staged when they differ, with
// private and symmetric outputs, and a plan run several times with new
// input values.
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
using ::testing::AllOf;
using ::testing::HasSubstr;

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

// Where run_all's inputs live. A and B are two symmetric blocks, each at the
// same offset on every rank.
enum class Input {
  Private,         // std::vector on every rank: staged
  Symmetric,       // A on every rank: read in place
  PrivateOnRank0,  // rank 0's private, the others' A: staged (a broadcast from another root: in place)
  ByParity,        // A on even ranks, B on odd ones: staged (a broadcast: in place)
};

// The memory of a run_all: where its inputs and outputs live, and how often
// each plan runs (with new input values every run). The symmetric blocks
// are allocated once, large enough for every call of `count` elements on
// the world, the same on every PE (shmem_malloc is collective over the
// world, whatever the communicator), and reused by every call.
struct Memory {
  Input input = Input::Private;
  bool symmetric_output = false;
  int runs = 1;
  std::size_t bytes = 0;
  std::uint8_t *a = nullptr, *b = nullptr, *out = nullptr;
  Memory() = default;
  Memory(Input in, bool sym_out, std::size_t count, int runs_ = 1)
      : input(in), symmetric_output(sym_out), runs(runs_), bytes(npes() * (2 * count + 1) * 8 + 1),
        a(alloc()), b(alloc()), out(alloc()) {}
  ~Memory() {
    for (void* p : {out, b, a}) shmem_free(p);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  std::uint8_t* alloc() const { return static_cast<std::uint8_t*>(shmem_malloc(bytes)); }
};

// A call's input and output (in_elems and out_elems elements, the output
// filled with 0xa5 and one byte longer), where `m` puts them for `rank`.
struct Buffers {
  std::size_t e;
  std::vector<std::uint8_t> own_in, own_out;
  std::uint8_t *in, *out;
  std::size_t out_bytes;
  Buffers(DataType t, std::size_t in_elems, std::size_t out_elems, const Memory& m, int rank)
      : e(ops::size_of(t)), own_in(in_elems * e + 1), own_out(out_elems * e + 1), out_bytes(out_elems * e + 1) {
    const bool private_in = m.input == Input::Private || (m.input == Input::PrivateOnRank0 && rank == 0);
    in = private_in ? own_in.data() : m.input == Input::ByParity && rank % 2 ? m.b : m.a;
    out = m.symmetric_output ? m.out : own_out.data();
    std::memset(out, 0xa5, out_bytes);
  }
  // The bytes written past the output's first `elems` elements.
  std::int64_t spilled(std::size_t elems) const {
    return std::count_if(out + elems * e, out + out_bytes, [](std::uint8_t c) { return c != 0xa5; });
  }
};

// Runs every operator once per type on `comm` with `count` elements, in the
// memory `m` (each plan m.runs times, the element values shifted by 5 every
// run), and returns the number of wrong elements (exact comparison) and of
// calls that took the wrong path (see `call`).
std::int64_t run_all(Comm& comm, std::size_t count, const Memory& m = {}) {
  const int n = comm.size(), me_ = comm.rank();
  const std::size_t shifts = 5 * static_cast<std::size_t>(m.runs);
  std::int64_t bad = 0;
  // Runs a planned call; returns 1 if it took the wrong path. Where every
  // rank has an input (the root, for a broadcast) and all are the same
  // symmetric object, the call reads it in place (symmetric_input != 0, and
  // nothing staged in this rank's window but by Reduce, and AllReduce into
  // private outputs, whose results still go through it), but for fp16/bf16 reductions; anything
  // else stages (symmetric_input == 0).
  std::uint8_t* const win = comm.window(me_).data;
  auto call = [&](const ops::Executor& ex, auto&& run_it, bool every_rank_has_input) -> std::int64_t {
    std::memset(win, 0x5a, 64);
    run_it();
    using K = ops::Executor::Kind;
    const bool bcast = ex.kind() == K::Broadcast;
    // Reduce, and AllReduce into private outputs, return their result through the window.
    const bool via_window = ex.kind() == K::Reduce || (ex.kind() == K::AllReduce && !m.symmetric_output);
    const bool half = (ex.kind() == K::AllReduce || ex.kind() == K::Reduce || ex.kind() == K::ReduceScatter) &&
                      (ex.dtype() == DataType::Fp16 || ex.dtype() == DataType::Bf16);
    const bool same = m.input == Input::Symmetric || (m.input == Input::PrivateOnRank0 && bcast && ex.root() != 0) ||
                      (m.input == Input::ByParity && (bcast || n == 1));
    const bool in_place = same && every_rank_has_input && !half;
    const bool staged = std::any_of(win, win + 64, [](std::uint8_t c) { return c != 0x5a; });
    if ((ex.reads_in_place()) == in_place && !(in_place && !via_window && staged)) return 0;
    ADD_FAILURE() << "PE " << me() << ": kind " << static_cast<int>(ex.kind()) << ", " << ops::name_of(ex.dtype()) << ", "
                  << count << " elements, root " << ex.root() << ": reads in place " << ex.reads_in_place()
                  << (staged ? ", window written" : "") << "; expected " << (in_place ? "in place" : "staged");
    return 1;
  };
  for (DataType t : kTypes) {
    ops::Executor ex;
    {  // AllGather
      Buffers b(t, count, count * n, m, me_);
      const auto ws = ops::AllGatherGetWorkspaceSize(comm, b.in, b.out, count, t, &ex);
      std::vector<std::uint8_t> w(ws);
      for (std::size_t s = 0; s < shifts; s += 5) {
        for (std::size_t i = 0; i < count; ++i) put(t, b.in, i, data_value(me_, i + s));
        bad += call(ex, [&] { ops::AllGather(w.data(), ws, &ex); }, count > 0);
        for (int r = 0; r < n; ++r)
          for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out, r * count + i) != data_value(r, i + s);
        bad += b.spilled(count * n);  // nothing written past the output
      }
    }
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {  // AllReduce
      Buffers b(t, count, count, m, me_);
      const auto ws = ops::AllReduceGetWorkspaceSize(comm, b.in, b.out, count, t, op, &ex);
      for (std::size_t s = 0; s < shifts; s += 5) {
        for (std::size_t i = 0; i < count; ++i) put(t, b.in, i, reduce_value(op, me_, i + s));
        bad += call(ex, [&] { ops::AllReduce(nullptr, ws, &ex); }, count > 0);
        for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out, i) != wrapped(t, reduced(op, n, i + s));
        bad += b.spilled(count);
      }
    }
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {  // ReduceScatter
      // Element j of every rank's input is reduce_value(op, rank, j): rank
      // me receives the reduction of elements me * count .. of the inputs.
      Buffers b(t, count * n, count, m, me_);
      const auto ws = ops::ReduceScatterGetWorkspaceSize(comm, b.in, b.out, count, t, op, &ex);
      std::vector<std::uint8_t> w(ws);
      for (std::size_t s = 0; s < shifts; s += 5) {
        for (std::size_t j = 0; j < count * n; ++j) put(t, b.in, j, reduce_value(op, me_, j + s));
        bad += call(ex, [&] { ops::ReduceScatter(w.data(), ws, &ex); }, count > 0);
        for (std::size_t i = 0; i < count; ++i)
          bad += get(t, b.out, i) != wrapped(t, reduced(op, n, me_ * count + i + s));
        bad += b.spilled(count);
      }
    }
    for (int root = 0; root < n; ++root) {  // Reduce, from every root
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
        Buffers b(t, count, count, m, me_);
        // Odd roots: the other ranks pass no output at all (allowed).
        void* out = me_ == root || root % 2 == 0 ? b.out : nullptr;
        const auto ws = ops::ReduceGetWorkspaceSize(comm, b.in, out, count, t, op, root, &ex);
        std::vector<std::uint8_t> w(ws);
        for (std::size_t s = 0; s < shifts; s += 5) {
          for (std::size_t i = 0; i < count; ++i) put(t, b.in, i, reduce_value(op, me_, i + s));
          bad += call(ex, [&] { ops::Reduce(w.data(), ws, &ex); }, count > 0);
          if (me_ == root) {
            for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out, i) != wrapped(t, reduced(op, n, i + s));
            bad += b.spilled(count);
          } else {  // a non-root's output is left as it was
            bad += b.spilled(0);
          }
        }
      }
    }
    for (int root : {0, n - 1}) {  // Broadcast; from root n - 1 the other ranks pass no input (allowed)
      Buffers b(t, count, count, m, me_);
      const void* in = me_ == root || root == 0 ? b.in : nullptr;
      const auto ws = ops::BroadcastGetWorkspaceSize(comm, in, b.out, count, t, root, &ex);
      for (std::size_t s = 0; s < shifts; s += 5) {
        for (std::size_t i = 0; i < count; ++i) put(t, b.in, i, data_value(me_ + 1, i + s));
        bad += call(ex, [&] { ops::Broadcast(nullptr, ws, &ex); }, count > 0);
        for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out, i) != data_value(root + 1, i + s);
        bad += b.spilled(count);
      }
    }
    {  // AllToAll: block r of my input goes to rank r
      Buffers b(t, count * n, count * n, m, me_);
      const auto ws = ops::AllToAllGetWorkspaceSize(comm, b.in, b.out, count, t, &ex);
      for (std::size_t s = 0; s < shifts; s += 5) {
        for (int r = 0; r < n; ++r)
          for (std::size_t i = 0; i < count; ++i) put(t, b.in, r * count + i, data_value(me_ * n + r, i + s));
        bad += call(ex, [&] { ops::AllToAll(nullptr, ws, &ex); }, count > 0);
        for (int r = 0; r < n; ++r)
          for (std::size_t i = 0; i < count; ++i) bad += get(t, b.out, r * count + i) != data_value(r * n + me_, i + s);
        bad += b.spilled(count * n);
      }
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
      bool every_rank_sends = true;
      for (int s = 0; s < n; ++s)
        every_rank_sends &= std::any_of(&counts[s * n], &counts[s * n] + n, [](std::uint64_t c) { return c > 0; });
      Buffers b(t, sent, received, m, me_);
      const auto ws = ops::AllToAllVGetWorkspaceSize(comm, b.in, b.out, counts.data(), t, &ex);
      counts.assign(counts.size(), 0);  // the plan holds its own copy of the matrix
      std::vector<std::uint8_t> w(ws);
      for (std::size_t sh = 0; sh < shifts; sh += 5) {
        for (int d = 0, at = 0; d < n; at += static_cast<int>(v_count(me_, d, count)), ++d)
          for (std::size_t i = 0; i < v_count(me_, d, count); ++i)
            put(t, b.in, at + i, data_value(me_ * n + d, i + sh));
        bad += call(ex, [&] { ops::AllToAllV(w.data(), ws, &ex); }, every_rank_sends);
        for (int s = 0, at = 0; s < n; at += static_cast<int>(v_count(s, me_, count)), ++s)
          for (std::size_t i = 0; i < v_count(s, me_, count); ++i)
            bad += get(t, b.out, at + i) != data_value(s * n + me_, i + sh);
        bad += b.spilled(received);
      }
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

// The in-place layouts (NOTE [aliased buffers]) in private memory, over
// many rounds of a small window: each round's writes land only on input
// that this or an earlier round already read.
TEST(Ops, InPlaceLayoutsRunInRounds) {
  Comm comm = Comm::world(window(1024));
  const int n = comm.size(), me_ = comm.rank();
  const std::size_t count = 777;
  std::vector<std::int32_t> buf(n * count);
  auto value = [](int rank, std::size_t i) { return static_cast<std::int32_t>(rank * 100000 + i); };
  ops::Executor ex;
  for (std::size_t i = 0; i < count; ++i) buf[me_ * count + i] = value(me_, i);  // AllGather: in = my slot
  ops::AllGatherGetWorkspaceSize(comm, &buf[me_ * count], buf.data(), count, DataType::Int32, &ex);
  ops::AllGather(nullptr, 0, &ex);
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(buf[r * count + i], value(r, i)) << "AllGather " << r << " " << i;
  for (std::size_t j = 0; j < n * count; ++j) buf[j] = value(me_, j);  // ReduceScatter: out = my slot
  ops::ReduceScatterGetWorkspaceSize(comm, buf.data(), &buf[me_ * count], count, DataType::Int32, ReduceOp::Sum, &ex);
  ops::ReduceScatter(nullptr, 0, &ex);
  for (std::size_t i = 0; i < count; ++i) {
    std::int32_t sum = 0;
    for (int r = 0; r < n; ++r) sum += value(r, me_ * count + i);
    ASSERT_EQ(buf[me_ * count + i], sum) << "ReduceScatter " << i;
  }
  for (std::size_t i = 0; i < count; ++i) buf[i] = value(me_, i);  // AllReduce: out = in
  ops::AllReduceGetWorkspaceSize(comm, buf.data(), buf.data(), count, DataType::Int32, ReduceOp::Max, &ex);
  ops::AllReduce(nullptr, 0, &ex);
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(buf[i], value(n - 1, i)) << "AllReduce " << i;
  for (std::size_t j = 0; j < n * count; ++j) buf[j] = value(me_, j);  // AllToAll: out = in
  ops::AllToAllGetWorkspaceSize(comm, buf.data(), buf.data(), count, DataType::Int32, &ex);
  ops::AllToAll(nullptr, 0, &ex);
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(buf[r * count + i], value(r, me_ * count + i)) << "AllToAll " << r << " " << i;
  comm.destroy();
}

TEST(Ops, StridedSubTeamCommunicators) {
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes() + 1) / 2, nullptr, 0, &evens);
  if (npes() > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes() / 2, nullptr, 0, &odds);
  Comm comm = Comm::from_team(me() % 2 == 0 ? evens : odds, window(2048));
  EXPECT_EQ(run_all(comm, 300), 0);
  for (Input in : {Input::Symmetric, Input::ByParity}) {  // every PE allocates, whatever its team
    Memory m(in, in == Input::Symmetric, 300);
    EXPECT_EQ(run_all(comm, 300, m), 0) << static_cast<int>(in);
  }
  comm.destroy();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
}

TEST(Ops, SymmetricInputsAreReadInPlace) {
  // Outputs private and symmetric; 1 KiB windows: inputs larger than the
  // window in one call (the reductions still in rounds, their input in place).
  for (bool symmetric_output : {false, true}) {
    for (std::size_t bytes : {std::size_t{1} << 20, std::size_t{1024}}) {
      Comm comm = Comm::world(window(bytes));
      for (std::size_t count : {1, 63, 777}) {
        Memory m(Input::Symmetric, symmetric_output, count);
        EXPECT_EQ(run_all(comm, count, m), 0) << count << " elements, window " << bytes << ", output "
                                              << (symmetric_output ? "symmetric" : "private");
      }
      comm.destroy();
    }
  }
}

TEST(Ops, InputsThatDifferAmongTheRanksAreStaged) {
  // Rank 0's input private, or the inputs symmetric at different offsets.
  Comm comm = Comm::world(window(1024));
  for (Input in : {Input::PrivateOnRank0, Input::ByParity}) {
    for (bool symmetric_output : {false, true}) {
      Memory m(in, symmetric_output, 100);
      EXPECT_EQ(run_all(comm, 100, m), 0) << static_cast<int>(in) << (symmetric_output ? ", symmetric output" : "");
    }
  }
  comm.destroy();
}

TEST(Ops, APlanRunAgainReadsTheNewInputValues) {
  // The path the first run found is kept; the values change every run.
  Comm comm = Comm::world(window(1024));
  for (Input in : {Input::Symmetric, Input::ByParity, Input::Private}) {
    Memory m(in, true, 100, 3);
    EXPECT_EQ(run_all(comm, 100, m), 0) << static_cast<int>(in);
  }
  comm.destroy();
}

// A plan keeps its one library call (NOTE [prepared calls]) for the window
// it was made with: run on a communicator that now has a smaller window, it
// takes rounds instead of overrunning that window.
// NOTE [bound plans]: a plan refuses to run on a communicator that replaced
// the one it was planned for, even at the same address and with a window
// that would fit; planned again, it runs there.
TEST(Ops, APlanRefusesAReplacedCommunicator) {
  Comm comm = Comm::world(window(1 << 20));
  const int n = comm.size(), me_ = comm.rank();
  const std::size_t count = 1001;  // 4004 bytes per rank: one round of 1 MiB, several of 1 KiB
  std::vector<std::int32_t> in(count), out(n * count);
  ops::Executor ex;
  ops::AllGatherGetWorkspaceSize(comm, in.data(), out.data(), count, DataType::Int32, &ex);
  ops::AllGather(nullptr, 0, &ex);
  comm.destroy();
  EXPECT_THAT(error_of([&] { ops::AllGather(nullptr, 0, &ex); }), HasSubstr("destroyed"));
  comm = Comm::world(window(1024));
  EXPECT_THAT(error_of([&] { ops::AllGather(nullptr, 0, &ex); }),
              AllOf(HasSubstr("replaced"), HasSubstr("plan again with tilecomm::ops::AllGatherGetWorkspaceSize")));
  ops::AllGatherGetWorkspaceSize(comm, in.data(), out.data(), count, DataType::Int32, &ex);
  for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<std::int32_t>(me_ * 100000 + i);
  ops::AllGather(nullptr, 0, &ex);
  EXPECT_FALSE(ex.one_call());  // in rounds through the 1 KiB window
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(out[r * count + i], static_cast<std::int32_t>(r * 100000 + i));
  comm.destroy();
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

// A plan that fails cannot be run; outputs that alias the symmetric input,
// or that only some ranks hold in symmetric memory, make the call stage
// (the library would refuse them on some rank); an AllToAllV's input and
// output must not overlap.
TEST(Ops, FailedPlansAndAliasedBuffers) {
  using ::testing::HasSubstr;
  Comm comm = Comm::world(window(4096));
  const int n = comm.size(), me_ = comm.rank();
  constexpr std::size_t kCount = 33;
  auto* sym = static_cast<std::int32_t*>(shmem_malloc((n + 1) * kCount * sizeof(std::int32_t)));
  ASSERT_NE(sym, nullptr);
  ops::Executor ex;
  EXPECT_THAT(error_of([&] { ops::AllGatherGetWorkspaceSize(comm, sym, nullptr, kCount, DataType::Int32, &ex); }),
              HasSubstr("output is null"));
  EXPECT_THAT(error_of([&] { ops::AllGather(nullptr, 0, &ex); }), HasSubstr("was not planned"));
  // ReduceScatter in place: the output is the rank's own slice of the symmetric input.
  for (std::size_t i = 0; i < n * kCount; ++i) sym[i] = static_cast<std::int32_t>(me_ + i);
  ops::ReduceScatterGetWorkspaceSize(comm, sym, sym + me_ * kCount, kCount, DataType::Int32, ReduceOp::Sum, &ex);
  ops::ReduceScatter(nullptr, 0, &ex);
  EXPECT_FALSE(ex.reads_in_place());
  for (std::size_t i = 0; i < kCount; ++i)
    EXPECT_EQ(sym[me_ * kCount + i], static_cast<std::int32_t>(n * (me_ * kCount + i) + n * (n - 1) / 2)) << i;
  // ReduceScatter with a symmetric output on rank 0 only.
  std::vector<std::int32_t> mine(kCount);
  for (std::size_t i = 0; i < n * kCount; ++i) sym[i] = static_cast<std::int32_t>(me_ + i);
  std::int32_t* out = me_ == 0 ? sym + n * kCount : mine.data();
  ops::ReduceScatterGetWorkspaceSize(comm, sym, out, kCount, DataType::Int32, ReduceOp::Sum, &ex);
  ops::ReduceScatter(nullptr, 0, &ex);
  EXPECT_EQ(ex.reads_in_place(), n == 1);  // alone, rank 0 is every rank
  for (std::size_t i = 0; i < kCount; ++i)
    EXPECT_EQ(out[i], static_cast<std::int32_t>(n * (me_ * kCount + i) + n * (n - 1) / 2)) << i;
  // AllReduce in place: the output is the symmetric input, on every rank,
  // reduced by the library straight in it (the window untouched).
  for (std::size_t i = 0; i < kCount; ++i) sym[i] = static_cast<std::int32_t>(me_ + i);
  std::uint8_t* const win = comm.window(me_).data;
  std::memset(win, 0x5a, 64);
  ops::AllReduceGetWorkspaceSize(comm, sym, sym, kCount, DataType::Int32, ReduceOp::Sum, &ex);
  shmem_barrier_all();  // every rank's input is written
  ops::AllReduce(nullptr, 0, &ex);
  EXPECT_TRUE(ex.reads_in_place());
  EXPECT_TRUE(ex.one_call());
  EXPECT_EQ(std::count(win, win + 64, 0x5a), 64);
  for (std::size_t i = 0; i < kCount; ++i) EXPECT_EQ(sym[i], static_cast<std::int32_t>(n * i + n * (n - 1) / 2)) << i;
  shmem_barrier_all();  // nobody reads sym any more
  // Outputs that partly overlap the input are refused (NOTE [aliased buffers]).
  EXPECT_THAT(error_of([&] { ops::AllReduceGetWorkspaceSize(comm, sym, sym + 1, kCount, DataType::Int32,
                                                             ReduceOp::Sum, &ex); }),
              HasSubstr("partly overlaps input"));
  EXPECT_THAT(error_of([&] { ops::AllGatherGetWorkspaceSize(comm, sym + 1, sym, kCount, DataType::Int32, &ex); }),
              HasSubstr("in-place layout (input == output + rank * count)"));
  EXPECT_THAT(error_of([&] { ops::AllToAllGetWorkspaceSize(comm, sym, sym + 1, kCount, DataType::Int32, &ex); }),
              HasSubstr("partly overlaps"));
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(n) * n, 1);
  EXPECT_THAT(error_of([&] { ops::AllToAllVGetWorkspaceSize(comm, sym, sym + n - 1, counts.data(), DataType::Int32, &ex); }),
              HasSubstr("overlap"));
  EXPECT_THAT(error_of([&] { ops::AllToAllV(nullptr, 0, &ex); }), HasSubstr("was not planned"));
  shmem_barrier_all();
  shmem_free(sym);
  comm.destroy();
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

TEST(Ops, ABroadcastsOutputMayBeItsInput) {
  // Every rank passes one buffer as input and output: the root's input is
  // its output, and the others' outputs are the root's input object when it
  // is symmetric (read in place); private ones stage. Last: a failure here
  // may end the job.
  Comm comm = Comm::world(window(1024));
  const std::size_t count = 777;
  Memory m(Input::Symmetric, false, count);
  std::vector<std::uint8_t> own(count * 8);
  for (std::uint8_t* buf : {own.data(), m.a}) {
    for (DataType t : kTypes) {
      for (int root : {0, npes() - 1}) {
        for (std::size_t i = 0; i < count; ++i) put(t, buf, i, data_value(me() + 1, i));
        ops::Executor ex;
        const auto ws = ops::BroadcastGetWorkspaceSize(comm, buf, buf, count, t, root, &ex);
        ops::Broadcast(nullptr, ws, &ex);
        std::int64_t bad = 0;
        for (std::size_t i = 0; i < count; ++i) bad += get(t, buf, i) != data_value(root + 1, i);
        EXPECT_EQ(bad, 0) << ops::name_of(t) << ", root " << root;
        EXPECT_EQ(ex.reads_in_place(), buf == m.a) << ops::name_of(t) << ", root " << root;
      }
    }
  }
  comm.destroy();
}
