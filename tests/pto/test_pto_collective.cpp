// PTO collectives on real PEs, root side: TBROADCAST, TGATHER, TSCATTER and
// TREDUCE (Sum, Max, Min), with root 0 and root n-1, single tile and
// ping-pong, one chunk and 2-D sliding over strided multi-plane members with
// partial chunks, several blocks on the root, and the usage errors. Every PE
// makes its data ready before a barrier; only the root runs the kernel; a
// second barrier lets the others check.
#include <gmock/gmock.h>
#include <pto/comm/pto_comm_inst.hpp>

#include <algorithm>
#include <array>
#include <vector>

#include "../api/api_test.hpp"
#include "pto_geometry.hpp"

using namespace api;
using namespace pto;
using testing::HasSubstr;
using pto_test::at_pe;
using pto_test::Geo;

namespace {

constexpr std::size_t kPong = 64 * 1024, kAcc = 128 * 1024;  // UB offsets

template <class TileT>
TileT make_tile(int vr, int vc) {
  if constexpr (TileT::ValidRow == DYNAMIC) return TileT(vr, vc);
  else return TileT();
}

/// Logical indices of element `flat` of shape s.
std::array<std::int64_t, 5> unflatten(const std::array<std::int64_t, 5>& s, std::size_t flat) {
  std::array<std::int64_t, 5> i{};
  auto f = static_cast<std::int64_t>(flat);
  for (int d = 4; d >= 0; --d) i[d] = f % s[d], f /= s[d];
  return i;
}
std::size_t flatten(const std::array<std::int64_t, 5>& s, const std::array<std::int64_t, 5>& i) {
  std::int64_t f = 0;
  for (int d = 0; d < 5; ++d) f = f * s[d] + i[d];
  return static_cast<std::size_t>(f);
}

/// The members' layout and the root's local tensor stacked along DIM_3 with two extra rows.
struct Case {
  Geo member;
  int vr, vc;
  Geo stacked(int n) const {
    auto s = member.shape;
    s[3] = n * s[3] + 2;
    Geo g = Geo::dense(s);
    g.stride[3] = s[4] + 3;  // padded rows
    for (int d = 2; d >= 0; --d) g.stride[d] = g.stride[d + 1] * s[d + 1];
    return g;
  }
};

const Case kOneChunk{Geo::dense({1, 1, 1, 16, 64}), 16, 64};
// 21 rows = 8+8+5, 40 columns = 16+16+8, two planes, padded member rows.
const Case kSliding{Geo{{1, 2, 1, 21, 40}, {2 * 21 * 48, 21 * 48, 21 * 48, 48, 1}}, 8, 16};

enum class Op { Broadcast, Gather, Scatter, Sum, Max, Min };

template <class T>
T pattern(Op op, int pe, std::size_t i) {
  if (op == Op::Sum || op == Op::Max || op == Op::Min)  // small exact values, distinct per PE, both signs
    return static_cast<T>(static_cast<int>((pe * 7 + i) % 13) - 6) + static_cast<T>(pe % 2) / T(2);
  return value<T>(pe, i, static_cast<int>(op));
}

template <class T, class TileT>
void run_collective(Op op, const Case& c, int root, bool pingpong) {
  const int n = npes();
  const Geo m = c.member, st = c.stacked(n);
  const bool stacked = op == Op::Gather || op == Op::Scatter;
  Sym<T> mine(m.span());  // every PE's member buffer
  if (!mine.ok()) return;
  std::vector<T> local(stacked ? st.span() : m.span());  // the root's src or dst
  const Geo& lg = stacked ? st : m;
  if (op == Op::Broadcast || op == Op::Scatter) {
    m.fill(mine.get(), [](std::size_t) { return T(-3); }, T(-3));
    lg.fill(local.data(), [&](std::size_t i) { return pattern<T>(op, root, i); }, T(-5));
  } else {
    m.fill(mine.get(), [&](std::size_t i) { return pattern<T>(op, me(), i); }, T(-3));
    lg.fill(local.data(), [](std::size_t) { return T(-3); }, T(-3));
  }
  barrier();  // every member's data is ready
  if (me() == root) {
    pto::launch(1, [&] {
      std::vector<decltype(m.tensor(mine.get()))> members;
      for (int r = 0; r < n; ++r) members.push_back(m.tensor(at_pe<T>(mine.get(), r)));
      comm::ParallelGroup<decltype(m.tensor(mine.get()))> pg(members.data(), n, root);
      auto t = lg.tensor(local.data());
      TileT a = make_tile<TileT>(c.vr, c.vc), p = make_tile<TileT>(c.vr, c.vc), q = make_tile<TileT>(c.vr, c.vc);
      TASSIGN(p, 0);
      TASSIGN(q, kPong);
      TASSIGN(a, kAcc);
      const comm::ReduceOp rop = op == Op::Sum ? comm::ReduceOp::Sum : op == Op::Max ? comm::ReduceOp::Max
                                                                                       : comm::ReduceOp::Min;
      RecordEvent ev;
      switch (op) {
        case Op::Broadcast: pingpong ? comm::TBROADCAST(pg, t, p, q, ev) : comm::TBROADCAST(pg, t, p); break;
        case Op::Gather: pingpong ? comm::TGATHER(pg, t, p, q) : comm::TGATHER<comm::CollEngine::AIV>(pg, t, p, ev); break;
        case Op::Scatter: pingpong ? comm::TSCATTER(pg, t, p, q, ev) : comm::TSCATTER(pg, t, p); break;
        default: pingpong ? comm::TREDUCE(pg, t, a, p, q, rop, ev) : comm::TREDUCE(pg, t, a, p, rop); break;
      }
    });
  }
  barrier();  // the root is done
  const std::string what = "op " + std::to_string(int(op)) + " root " + std::to_string(root) +
                           (pingpong ? " ping-pong" : " single");
  const std::int64_t h = m.shape[3];
  switch (op) {
    case Op::Broadcast:
      EXPECT_TRUE(m.check(mine.get(), [&](std::size_t i) { return pattern<T>(op, root, i); }, T(-3))) << what;
      break;
    case Op::Scatter:  // my member = rows [me*H, (me+1)*H) of the root's source
      EXPECT_TRUE(m.check(mine.get(), [&](std::size_t i) {
        auto idx = unflatten(m.shape, i);
        idx[3] += me() * h;
        return pattern<T>(op, root, flatten(st.shape, idx));
      }, T(-3))) << what;
      break;
    case Op::Gather:
      if (me() == root) {
        EXPECT_TRUE(st.check(local.data(), [&](std::size_t i) {
          auto idx = unflatten(st.shape, i);
          if (idx[3] >= n * h) return T(-3);  // extra rows untouched
          const int r = static_cast<int>(idx[3] / h);
          idx[3] %= h;
          return pattern<T>(op, r, flatten(m.shape, idx));
        }, T(-3))) << what;
      }
      break;
    default:
      if (me() == root) {
        EXPECT_TRUE(m.check(local.data(), [&](std::size_t i) {
          T acc = pattern<T>(op, root, i);  // the instruction's order: root, then ascending ranks
          for (int r = 0; r < n; ++r) {
            if (r == root) continue;
            const T x = pattern<T>(op, r, i);
            acc = op == Op::Sum ? static_cast<T>(acc + x) : op == Op::Max ? std::max(acc, x) : std::min(acc, x);
          }
          return acc;
        }, T(-3))) << what;
      }
  }
  barrier();
}

template <class T, class TileT>
void every_root_and_form(Op op, const Case& c) {
  for (int root : {0, npes() - 1})
    for (bool pp : {false, true}) run_collective<T, TileT>(op, c, root, pp);
}

using TileF = Tile<TileType::Vec, float, 16, 64>;
using TileIDyn = Tile<TileType::Vec, std::int32_t, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using TileFDyn = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;

TEST(PtoCollective, Broadcast) {
  every_root_and_form<float, TileF>(Op::Broadcast, kOneChunk);
  every_root_and_form<std::int32_t, TileIDyn>(Op::Broadcast, kSliding);
}
TEST(PtoCollective, Gather) {
  every_root_and_form<float, TileF>(Op::Gather, kOneChunk);
  every_root_and_form<std::int32_t, TileIDyn>(Op::Gather, kSliding);
}
TEST(PtoCollective, Scatter) {
  every_root_and_form<float, TileF>(Op::Scatter, kOneChunk);
  every_root_and_form<std::int32_t, TileIDyn>(Op::Scatter, kSliding);
}
TEST(PtoCollective, ReduceSumMaxMin) {
  for (Op op : {Op::Sum, Op::Max, Op::Min}) {
    every_root_and_form<float, TileF>(op, kOneChunk);
    every_root_and_form<float, TileFDyn>(op, kSliding);
    every_root_and_form<std::int32_t, TileIDyn>(op, kSliding);
  }
}

// Four blocks on the root, each reducing its quarter of the columns.
TEST(PtoCollective, ReduceFourBlocksOnTheRoot) {
  constexpr int kRows = 24, kCols = 256, kQuarter = kCols / 4;
  const int n = npes(), root = n - 1;
  Sym<std::int32_t> mine(kRows * kCols);
  if (!mine.ok()) return;
  for (int i = 0; i < kRows * kCols; ++i) mine[i] = (me() + 1) * 1000 + i % 991;
  std::vector<std::int32_t> out(kRows * kCols, -1);
  barrier();
  if (me() == root) {
    pto::launch(4, [&] {
      using GT = GlobalTensor<std::int32_t, Shape<1, 1, 1, kRows, kQuarter>,
                              Stride<kRows * kCols, kRows * kCols, kRows * kCols, kCols, 1>>;
      const int col = static_cast<int>(GetBlockIdx()) * kQuarter;
      std::vector<GT> members;
      for (int r = 0; r < n; ++r) members.emplace_back(at_pe<std::int32_t>(mine.get(), r) + col);
      auto pg = comm::ParallelGroup<GT>::Create(members.data(), n, root);
      GT dst(out.data() + col);
      Tile<TileType::Vec, std::int32_t, 8, 64> acc, recv;
      TASSIGN(acc, 0);
      TASSIGN(recv, kPong);
      comm::TREDUCE(pg, dst, acc, recv, comm::ReduceOp::Sum);
    });
    EXPECT_TRUE(all_equal(out.data(), out.size(), [&](std::size_t i) {
      return static_cast<std::int32_t>(n * (n + 1) / 2 * 1000 + n * static_cast<int>(i % 991));
    }));
  }
  barrier();
}

// ---- usage errors (local: every member is this PE's own buffer) ------------------------------

template <class F>
std::string launch_error(F&& kernel) {
  try {
    pto::launch(1, kernel);
  } catch (const tilecomm::Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(tilecomm::ErrorCode::InvalidUsage)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the launch did not throw";
  return "";
}

TEST(PtoCollectiveErrors, GroupsTilesAndShapes) {
  using GT = GlobalTensor<float, Shape<>, Stride<>>;
  using TileT = Tile<TileType::Vec, float, 16, 64>;
  std::vector<float> a(64 * 64), b(64 * 64);
  auto dense = [](float* p, int rows) {
    return GT(p, Shape<>(1, 1, 1, rows, 64), Stride<>(rows * 64, rows * 64, rows * 64, 64, 1));
  };
  GT members[3] = {dense(a.data(), 16), dense(a.data(), 16), dense(a.data(), 16)};
  std::string e = launch_error([&] {
    comm::ParallelGroup<GT> pg(members, 3, 3);
    auto s = dense(b.data(), 16);
    TileT t;
    TASSIGN(t, 0);
    comm::TBROADCAST(pg, s, t);
  });
  EXPECT_THAT(e, HasSubstr("TBROADCAST: rootIdx 3 is out of range; the group has ranks 0..2"));
  e = launch_error([&] {
    comm::ParallelGroup<GT> pg;
    auto s = dense(b.data(), 16);
    TileT t;
    TASSIGN(t, 0);
    comm::TSCATTER(pg, s, t);
  });
  EXPECT_THAT(e, HasSubstr("TSCATTER: the ParallelGroup is empty"));
  e = launch_error([&] {
    comm::ParallelGroup<GT> pg(members, 3, 0);
    auto d = dense(b.data(), 40);  // needs 48 rows
    TileT t;
    TASSIGN(t, 0);
    comm::TGATHER(pg, d, t);
  });
  EXPECT_THAT(e, HasSubstr("TGATHER: the destination tensor has shape (1,1,1,40,64)"));
  EXPECT_THAT(e, HasSubstr(">= 48"));
  e = launch_error([&] {
    comm::ParallelGroup<GT> pg(members, 3, 0);
    auto d = dense(b.data(), 16);
    TileT acc, recv;
    TASSIGN(acc, 0);
    TASSIGN(recv, 1024);
    comm::TREDUCE(pg, d, acc, recv, comm::ReduceOp::Max);
  });
  EXPECT_THAT(e, HasSubstr("TREDUCE: the acc tile (UB 0x0..0x1000) and the recv tile (UB 0x400..0x1400) overlap"));
  e = launch_error([&] {
    GT odd[2] = {dense(a.data(), 16), dense(a.data(), 32)};
    comm::ParallelGroup<GT> pg(odd, 2, 0);
    auto d = dense(b.data(), 16);
    TileT acc, recv;
    TASSIGN(acc, 0);
    TASSIGN(recv, 4096);
    comm::TREDUCE(pg, d, acc, recv, comm::ReduceOp::Sum);
  });
  EXPECT_THAT(e, HasSubstr("rank 1's tensor has shape (1,1,1,32,64)"));
  EXPECT_THAT(e, HasSubstr("all members must have the same shape"));
  comm::ParallelGroup<GT> pg(members, 3, 0);
  EXPECT_EQ(pg.GetSize(), 3);
  EXPECT_EQ(pg.GetRootIdx(), 0);
  EXPECT_FALSE(pg.empty());
  EXPECT_TRUE(comm::ParallelGroup<GT>().empty());
  static_assert(std::is_same_v<comm::ParallelGroupTraits<comm::ParallelGroup<GT>>::GlobalDataType, GT>);
  try {
    (void)pg[3];
    ADD_FAILURE() << "pg[3] did not throw";
  } catch (const tilecomm::Error& x) {
    EXPECT_THAT(x.what(), HasSubstr("ParallelGroup: rank 3 is out of range; the group has ranks 0..2"));
  }
}

}  // namespace
