// PTO point-to-point instructions on real PEs: TPUT / TGET (single tile and
// ping-pong, 2-D sliding over strided tensors larger than the tile, partial
// chunks of dynamic tiles, AtomicAdd from every PE), several blocks per
// kernel, TNOTIFY / TWAIT / TTEST with every WaitCmp on Signal and Signal2D,
// TQUIET / TBARRIER, and the usage errors. With one PE the peer is itself.
#include <gmock/gmock.h>
#include <pto/comm/pto_comm_inst.hpp>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "../api/api_test.hpp"
#include "pto_geometry.hpp"

using namespace api;
using namespace pto;
using testing::HasSubstr;
using pto_test::at_pe;
using pto_test::Geo;

namespace {

constexpr std::size_t kPong = 64 * 1024;  // UB offset of the pong tile

enum class Mode { PutSingle, PutPingPong, PutRuntimeNone, GetSingle, GetPingPong };

template <class TileT>
TileT make_tile(int vr, int vc) {
  if constexpr (TileT::ValidRow == DYNAMIC) return TileT(vr, vc);
  else return TileT();
}

// TPUT: my src -> right's dst, so dst holds left's pattern. TGET: right's src
// -> my dst, so dst holds right's pattern. Gaps of dst keep the sentinel.
template <class T, class TileT>
void run_p2p(const Geo& sg, const Geo& dg, Mode mode, int vr = 0, int vc = 0, int salt = 1) {
  Sym<T> src(sg.span()), dst(dg.span());
  if (!src.ok() || !dst.ok()) return;
  sg.fill(src.get(), [&](std::size_t i) { return value<T>(me(), i, salt); }, T(-7));
  dg.fill(dst.get(), [](std::size_t) { return T(-3); }, T(-3));
  barrier();
  const bool put = mode == Mode::PutSingle || mode == Mode::PutPingPong || mode == Mode::PutRuntimeNone;
  pto::launch(1, [&] {
    auto d = dg.tensor(put ? at_pe<T>(dst.get(), right()) : dst.get());
    auto s = sg.tensor(put ? src.get() : at_pe<T>(src.get(), right()));
    TileT ping = make_tile<TileT>(vr, vc), pong = make_tile<TileT>(vr, vc);
    TASSIGN(ping, 0);
    TASSIGN(pong, kPong);
    RecordEvent before;
    switch (mode) {
      case Mode::PutSingle: comm::TPUT(d, s, ping, before); break;
      case Mode::PutPingPong: comm::TPUT(d, s, ping, pong); break;
      case Mode::PutRuntimeNone: comm::TPUT(d, s, ping, AtomicType::AtomicNone, before); break;
      case Mode::GetSingle: comm::TGET(d, s, ping); break;
      case Mode::GetPingPong: comm::TGET(d, s, ping, pong, before); break;
    }
  });
  barrier();
  const int from = put ? left() : right();
  EXPECT_TRUE(dg.check(dst.get(), [&](std::size_t i) { return value<T>(from, i, salt); }, T(-3)))
      << "mode " << int(mode);
  barrier();
}

const Mode kModes[] = {Mode::PutSingle, Mode::PutPingPong, Mode::PutRuntimeNone, Mode::GetSingle, Mode::GetPingPong};

using TileF16x64 = Tile<TileType::Vec, float, 16, 64>;
using TileI16x64Dyn = Tile<TileType::Vec, std::int32_t, 16, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC>;

TEST(PtoP2p, OneChunk) {
  for (Mode m : kModes) run_p2p<float, TileF16x64>(Geo::dense({1, 1, 1, 16, 64}), Geo::dense({1, 1, 1, 16, 64}), m);
}

TEST(PtoP2p, SlidingStaticTile) {
  // 2 planes x 4 row chunks x 2 column chunks.
  for (Mode m : kModes)
    run_p2p<float, TileF16x64>(Geo::dense({1, 1, 2, 64, 128}), Geo::dense({1, 1, 2, 64, 128}), m, 0, 0, 2);
}

TEST(PtoP2p, SlidingDynamicTilePartialChunksStrided) {
  // 37 rows = 12+12+12+1, 100 columns = 40+40+20; padded source rows and
  // planes, an interleaved destination (every second element).
  const Geo s{{2, 1, 2, 37, 100}, {2 * 4000 + 16, 4000, 4000, 104, 1}};
  const Geo d{{2, 1, 2, 37, 100}, {2 * 7500 + 2, 7500, 7500, 200, 2}};
  for (Mode m : kModes) run_p2p<std::int32_t, TileI16x64Dyn>(s, d, m, 12, 40, 3);
}

TEST(PtoP2p, ColumnMajorTileAndDoubles) {
  using TileD = Tile<TileType::Vec, double, 16, 8, BLayout::ColMajor, DYNAMIC, DYNAMIC>;
  const Geo g{{1, 1, 1, 20, 30}, {640, 640, 640, 32, 1}};
  for (Mode m : kModes) run_p2p<double, TileD>(g, Geo::dense({1, 1, 1, 20, 30}), m, 7, 8, 4);
}

// Ping-pong takes the chunks in turn: with three one-row chunks, ping ends
// with row 2 and pong with row 1.
TEST(PtoP2p, PingPongAlternatesTiles) {
  using TileT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  std::vector<float> src(3 * 64), dst(3 * 64, 0.0f), ends(4, 0.0f);
  for (int i = 0; i < 3 * 64; ++i) src[i] = static_cast<float>(i);
  pto::launch(1, [&] {
    const Geo g = Geo::dense({1, 1, 1, 3, 64});
    auto d = g.tensor(dst.data());
    auto s = g.tensor(src.data());
    TileT ping(1, 64), pong(1, 64);
    TASSIGN(ping, 0);
    TASSIGN(pong, kPong);
    comm::TPUT(d, s, ping, pong);
    ends[0] = ping.data()[0], ends[1] = pong.data()[63];
    comm::TGET(s, d, pong, ping);  // now pong takes rows 0 and 2
    ends[2] = pong.data()[0], ends[3] = ping.data()[63];
  });
  EXPECT_EQ(dst, src);
  EXPECT_EQ(ends, (std::vector<float>{128.0f, 127.0f, 128.0f, 127.0f}));
}

// Every PE (and both blocks of each) adds its values into PE 0's buffer.
template <class T>
void atomic_add_all_into_pe0() {
  using TileT = Tile<TileType::Vec, T, 16, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  const Geo g = Geo::dense({1, 1, 1, 40, 96});  // partial chunks: 16+16+8 rows, 64+32 columns
  Sym<T> dst(g.span()), src(g.span());
  if (!dst.ok() || !src.ok()) return;
  auto v = [](int pe, std::size_t i) { return static_cast<T>(pe * 4 + static_cast<int>(i % 5)) + T(1) / T(2); };
  g.fill(src.get(), [&](std::size_t i) { return v(me(), i); }, T(0));
  barrier();
  pto::launch(2, [&] {
    auto d = g.tensor(at_pe<T>(dst.get(), 0));
    auto s = g.tensor(src.get());
    TileT t(16, 64), u(16, 64);
    TASSIGN(t, 0);
    TASSIGN(u, kPong);
    if (GetBlockIdx() == 0) comm::TPUT<AtomicType::AtomicAdd>(d, s, t, u);
    else comm::TPUT(d, s, t, AtomicType::AtomicAdd);
  });
  barrier();
  if (me() == 0) {
    EXPECT_TRUE(g.check(dst.get(), [&](std::size_t i) {
      T sum = 0;
      for (int p = 0; p < npes(); ++p) sum += static_cast<T>(2 * v(p, i));
      return sum;
    }, T(0)));
  }
  barrier();
}

TEST(PtoP2p, AtomicAddFromAllPesInt32) { atomic_add_all_into_pe0<std::int32_t>(); }
TEST(PtoP2p, AtomicAddFromAllPesFloat) { atomic_add_all_into_pe0<float>(); }

// Four blocks each put their 16-row slice to the right PE, meet every PE
// (TBARRIER inside the kernel), then each reads back its slice of the local
// buffer, which the left PE wrote.
TEST(PtoP2p, FourBlocksWithKernelBarrier) {
  using TileT = Tile<TileType::Vec, float, 8, 64>;
  constexpr int kRows = 64, kCols = 64, kSlice = 16;
  Sym<float> src(kRows * kCols), dst(kRows * kCols);
  if (!src.ok() || !dst.ok()) return;
  for (int i = 0; i < kRows * kCols; ++i) src[i] = value<float>(me(), i, 5);
  std::vector<float> copy(kRows * kCols, -1.0f);
  barrier();
  pto::launch(4, [&] {
    using GT = GlobalTensor<float, Shape<1, 1, 1, kSlice, kCols>, Stride<kSlice * kCols, kSlice * kCols,
                                                                          kSlice * kCols, kCols, 1>>;
    const int off = static_cast<int>(GetBlockIdx()) * kSlice * kCols;
    GT mine(src.get() + off), there(at_pe<float>(dst.get(), right()) + off);
    GT here(dst.get() + off), out(copy.data() + off);
    TileT t;
    TASSIGN(t, 0);
    comm::TPUT(there, mine, t);
    comm::TBARRIER();
    comm::TGET(out, here, t);
  });
  EXPECT_TRUE(all_equal(copy.data(), copy.size(), [](std::size_t i) { return value<float>(left(), i, 5); }));
  comm::TBARRIER();  // from host code
}

// Producer / consumer ring: each PE puts rounds of data to the right PE and
// raises its flag (Set r), then waits (GE r) for the left PE's round and
// copies it out inside the kernel: TWAIT must order the data after the flag.
TEST(PtoP2p, RingTputTnotifyTwait) {
  using TileT = Tile<TileType::Vec, std::int32_t, 8, 32>;
  constexpr int kRounds = 3, kN = 8 * 32;
  Sym<std::int32_t> buf(kRounds * kN), flag(1), counter(1);
  if (!buf.ok() || !flag.ok() || !counter.ok()) return;
  std::vector<std::int32_t> src(kRounds * kN), got(kRounds * kN, -1);
  for (int i = 0; i < kRounds * kN; ++i) src[i] = value<std::int32_t>(me(), i, 6);
  barrier();
  pto::launch(1, [&] {
    using GT = GlobalTensor<std::int32_t, Shape<1, 1, 1, 8, 32>, Stride<kN, kN, kN, 32, 1>>;
    TileT t;
    TASSIGN(t, 0);
    comm::Signal remote_flag(at_pe<std::int32_t>(flag.get(), right())), my_flag(flag.get());
    for (int r = 0; r < kRounds; ++r) {
      GT d(at_pe<std::int32_t>(buf.get(), right()) + r * kN), s(src.data() + r * kN);
      comm::TPUT(d, s, t);
      comm::TNOTIFY(remote_flag, r + 1, comm::NotifyOp::Set);
      comm::TWAIT(my_flag, r + 1, comm::WaitCmp::GE);  // the left PE may be a round ahead
      GT mine(buf.get() + r * kN), out(got.data() + r * kN);
      comm::TGET(out, mine, t);
    }
    // Count-up: every PE adds 1 to every PE's counter; count-down afterwards.
    for (int p = 0; p < npes(); ++p) {
      comm::Signal c(at_pe<std::int32_t>(counter.get(), p));
      comm::TNOTIFY(c, 1, comm::NotifyOp::AtomicAdd);
    }
    comm::Signal mine(counter.get());
    comm::TWAIT(mine, npes(), comm::WaitCmp::EQ);
    comm::TWAIT(mine, 0, comm::WaitCmp::GT);
    comm::TBARRIER();
    for (int p = 0; p < npes(); ++p) {
      comm::Signal c(at_pe<std::int32_t>(counter.get(), p));
      comm::TNOTIFY(c, -1, comm::NotifyOp::AtomicAdd);
    }
    comm::TWAIT(mine, 0, comm::WaitCmp::LE);
    comm::TWAIT(mine, 1, comm::WaitCmp::LT);
  });
  EXPECT_TRUE(all_equal(got.data(), got.size(), [](std::size_t i) { return value<std::int32_t>(left(), i, 6); }));
  EXPECT_EQ(*counter.get(), 0);
  barrier();
}

// Signal2D: row p, column b of every PE's 8 x 4 grid is set by block b of PE
// p; rows of absent PEs start satisfied. A strided Signal2D (row pitch 16)
// watches the NE flags placed in the second half of each row.
TEST(PtoP2p, Signal2DGridFromAllBlocksOfAllPes) {
  constexpr int kRows = 8, kCols = 4, kPitch = 16;
  Sym<std::int32_t> grid(kRows * kPitch);
  if (!grid.ok()) return;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kPitch; ++c) grid[r * kPitch + c] = r < npes() ? 0 : (c < kCols ? 1 : 5);
  barrier();
  pto::launch(kCols, [&] {
    const int b = static_cast<int>(GetBlockIdx());
    for (int p = 0; p < npes(); ++p) {
      std::int32_t* there = at_pe<std::int32_t>(grid.get(), p) + me() * kPitch;
      comm::Signal flag(there + b), other(there + kCols + b);
      comm::TNOTIFY(flag, 1, comm::NotifyOp::Set);
      comm::TNOTIFY(other, 5, comm::NotifyOp::AtomicAdd);
    }
    comm::Signal2D<kRows, kCols> all(grid.get(), kPitch), second(grid.get() + kCols, kPitch);
    comm::TWAIT(all, 0, comm::WaitCmp::GT);
    comm::TWAIT(all, 1, comm::WaitCmp::EQ);
    comm::TWAIT(second, 0, comm::WaitCmp::NE);
    comm::TWAIT(second, 5, comm::WaitCmp::GE);
  });
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < 2 * kCols; ++c) EXPECT_EQ(grid[r * kPitch + c], c < kCols ? 1 : 5) << r << "," << c;
  barrier();
}

// TTEST: one look, with every comparison both ways, on a stable local value.
TEST(PtoP2p, TtestEveryComparison) {
  std::vector<std::int32_t> g(4 * 8, 5);
  g[3 * 8 + 7] = 6;  // outside the 4 x 4 sub-grid below, inside the dense 4 x 8 one
  pto::launch(1, [&] {
    comm::Signal s(g.data());
    using C = comm::WaitCmp;
    const struct { C cmp; int value; bool expect; } cases[] = {
        {C::EQ, 5, true}, {C::EQ, 4, false}, {C::NE, 4, true}, {C::NE, 5, false},
        {C::GT, 4, true}, {C::GT, 5, false}, {C::GE, 5, true}, {C::GE, 6, false},
        {C::LT, 6, true}, {C::LT, 5, false}, {C::LE, 5, true}, {C::LE, 4, false}};
    for (const auto& c : cases) EXPECT_EQ(comm::TTEST(s, c.value, c.cmp), c.expect) << comm::to_string(c.cmp);
    comm::Signal2D<4, 8> dense(g.data());
    comm::Signal2D<4, 4> sub(g.data(), 8);
    EXPECT_FALSE(comm::TTEST(dense, 5, C::EQ));
    EXPECT_TRUE(comm::TTEST(dense, 5, C::GE));
    EXPECT_TRUE(comm::TTEST(sub, 5, C::EQ));
    comm::TWAIT(sub, 5, C::LE);  // satisfied: returns at once
  });
}

TEST(PtoP2p, TquietOrdersPutsBeforeTheFlag) {
  Sym<std::int32_t> data(64), flag(1);
  if (!data.ok() || !flag.ok()) return;
  std::vector<std::int32_t> src(64, me() + 100), got(64, -1);
  barrier();
  pto::launch(1, [&] {
    using GT = GlobalTensor<std::int32_t, Shape<1, 1, 1, 1, 64>, Stride<64, 64, 64, 64, 1>>;
    GT d(at_pe<std::int32_t>(data.get(), right())), s(src.data()), mine(data.get()), out(got.data());
    Tile<TileType::Vec, std::int32_t, 1, 64> t;
    TASSIGN(t, 0);
    comm::TPUT(d, s, t);
    comm::TQUIET();
    comm::Signal f(at_pe<std::int32_t>(flag.get(), right())), my(flag.get());
    comm::TNOTIFY(f, 1, comm::NotifyOp::Set);
    comm::TWAIT(my, 1, comm::WaitCmp::EQ);
    comm::TGET(out, mine, t);
  });
  EXPECT_EQ(got, std::vector<std::int32_t>(64, left() + 100));
  barrier();
}

// ---- usage errors (local to each PE) --------------------------------------------------------

template <class F>
std::string launch_error(F&& kernel, tilecomm::ErrorCode want = tilecomm::ErrorCode::InvalidUsage, int blocks = 1) {
  try {
    pto::launch(blocks, kernel);
  } catch (const tilecomm::Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(want)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the launch did not throw";
  return "";
}

TEST(PtoP2pErrors, TassignOutOfRangeAndMisaligned) {
  using TileT = Tile<TileType::Vec, float, 16, 64>;
  const std::size_t ub = tilecomm::kernel::ub_size();
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%zx", ub - 32);
  std::string e = launch_error([&] { TileT t; TASSIGN(t, ub - 32); });
  EXPECT_THAT(e, HasSubstr("Tile<Vec, float, 16, 64>"));
  EXPECT_THAT(e, HasSubstr(hex));
  EXPECT_THAT(e, HasSubstr("UB limit"));
  EXPECT_THAT(e, HasSubstr(std::to_string(ub) + " bytes"));
  e = launch_error([&] { TileT t; TASSIGN(t, 16); });
  EXPECT_THAT(e, HasSubstr("Tile<Vec, float, 16, 64>"));
  EXPECT_THAT(e, HasSubstr("0x10"));
  EXPECT_THAT(e, HasSubstr("not a multiple of 32"));
}

TEST(PtoP2pErrors, BadStagingTilesAndShapes) {
  std::vector<float> a(64 * 64), b(64 * 64);
  using GT = GlobalTensor<float, Shape<>, Stride<>>;
  using TileT = Tile<TileType::Vec, float, 16, 64>;
  auto dense = [](float* p, int rows) { return GT(p, Shape<>(1, 1, 1, rows, 64), Stride<>(rows * 64, rows * 64, rows * 64, 64, 1)); };
  std::string e = launch_error([&] { auto d = dense(a.data(), 32), s = dense(b.data(), 32); TileT t; comm::TPUT(d, s, t); });
  EXPECT_THAT(e, HasSubstr("TPUT: the staging tile (Tile<Vec, float, 16, 64>) is not placed"));
  EXPECT_THAT(e, HasSubstr("TASSIGN"));
  e = launch_error([&] {
    auto d = dense(a.data(), 32), s = dense(b.data(), 32);
    TileT p, q;
    TASSIGN(p, 0);
    TASSIGN(q, 2048);
    comm::TGET(d, s, p, q);
  });
  EXPECT_THAT(e, HasSubstr("TGET: the ping tile (UB 0x0..0x1000) and the pong tile (UB 0x800..0x1800) overlap"));
  e = launch_error([&] { auto d = dense(a.data(), 40), s = dense(b.data(), 40); TileT t; TASSIGN(t, 0); comm::TPUT(d, s, t); });
  EXPECT_THAT(e, HasSubstr("static ValidRow of 16, which does not divide DIM_3 (40)"));
  e = launch_error([&] { auto d = dense(a.data(), 32), s = dense(b.data(), 16); TileT t; TASSIGN(t, 0); comm::TPUT(d, s, t); });
  EXPECT_THAT(e, HasSubstr("same extents"));
  e = launch_error([&] { comm::Signal s(nullptr); comm::TNOTIFY(s, 1, comm::NotifyOp::Set); });
  EXPECT_THAT(e, HasSubstr("TNOTIFY"));
}

// A block waiting in TWAIT for a flag nobody sets stops when a sibling block
// fails, instead of hanging: no timing involved.
TEST(PtoP2pErrors, TwaitStopsWhenASiblingBlockFails) {
  std::int32_t never = 0;
  std::string e = launch_error([&] {
    if (GetBlockIdx() == 1) throw std::runtime_error("block 1 gives up");
    comm::Signal s(&never);
    comm::TWAIT(s, 1, comm::WaitCmp::EQ);
  }, tilecomm::ErrorCode::InvalidUsage, 2);
  EXPECT_THAT(e, HasSubstr("kernel failed in block 1 of 2: block 1 gives up"));
}

// Run alone with TILECOMM_TIMEOUT=1 by the pto_twait_timeout ctest entry.
TEST(PtoP2pErrors, DISABLED_TwaitTimesOut) {
  std::int32_t flag = 3;
  std::string e = launch_error([&] { comm::Signal s(&flag); comm::TWAIT(s, 4, comm::WaitCmp::GE); },
                               tilecomm::ErrorCode::Timeout);
  EXPECT_THAT(e, HasSubstr("TWAIT: the signal at"));
  EXPECT_THAT(e, HasSubstr(">= 4 (WaitCmp::GE)"));
  EXPECT_THAT(e, HasSubstr("is still 3"));
  EXPECT_THAT(e, HasSubstr("TILECOMM_TIMEOUT=1 s"));
}

}  // namespace
