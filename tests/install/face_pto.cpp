// The PTO face from an installed tilecomm (tests/install/check_install.sh):
// in a kernel of two blocks, TPUT of a tile into the right PE's buffer with a
// TNOTIFY, TWAIT for the left PE's, then TGET_ASYNC of the right PE's
// buffer on the copy engine, each checked. Prints one line on PE 0; exits 1
// when a value is wrong.
#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/pto_comm_inst.hpp>
#include <vector>

using namespace pto;

namespace {

constexpr int kRows = 8, kCols = 32, kN = kRows * kCols;  // one tile per block
using GT = GlobalTensor<std::int32_t, Shape<1, 1, 1, kRows, kCols>, Stride<kN, kN, kN, kCols, 1>>;
using TileT = Tile<TileType::Vec, std::int32_t, kRows, kCols>;
using Flat = GlobalTensor<std::int32_t, Shape<1, 1, 1, 1, DYNAMIC>, Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, 1>>;

std::int32_t value(int pe, int i) { return pe * 100000 + i; }

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto* buf = static_cast<std::int32_t*>(shmem_calloc(2 * kN, sizeof(std::int32_t)));
  auto* flag = static_cast<std::int32_t*>(shmem_calloc(2, sizeof(std::int32_t)));
  std::vector<std::int32_t> src(2 * kN), fetched(2 * kN, -1);
  for (int i = 0; i < 2 * kN; ++i) src[i] = value(me, i);
  shmem_barrier_all();
  int bad = 0;
  try {
    comm::sdma::SdmaWorkspaceManager sdma;
    if (!sdma.Init()) throw std::runtime_error(sdma.LastError());
    auto* workspace = static_cast<std::uint8_t*>(sdma.GetWorkspaceAddr());
    launch(2, [&] {
      const int b = static_cast<int>(GetBlockIdx());
      TileT t;
      TASSIGN(t, 0);
      GT there(static_cast<std::int32_t*>(shmem_ptr(buf, right)) + b * kN), mine(src.data() + b * kN);
      comm::TPUT(there, mine, t);
      comm::Signal raised(static_cast<std::int32_t*>(shmem_ptr(flag, right)) + b), mine_flag(flag + b);
      comm::TNOTIFY(raised, 1, comm::NotifyOp::Set);
      comm::TWAIT(mine_flag, 1, comm::WaitCmp::EQ);  // the left PE's tile is in buf
      comm::TBARRIER();                              // and the right PE's too, for the get below
      Tile<TileType::Vec, std::uint8_t, 1, comm::sdma::UB_ALIGN_SIZE> scratch;
      TASSIGN(scratch, 0);
      comm::AsyncSession session;
      if (!comm::BuildAsyncSession(scratch, workspace, session)) throw std::runtime_error(session.lastError());
      Flat d(fetched.data() + b * kN, {kN}, {kN, kN, kN, kN});
      Flat s(static_cast<std::int32_t*>(shmem_ptr(buf, right)) + b * kN, {kN}, {kN, kN, kN, kN});
      auto ev = comm::TGET_ASYNC(d, s, session);
      if (!ev.Wait(session)) throw std::runtime_error(session.lastError());
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "PE %d: %s\n", me, e.what());
    bad = 1;
  }
  for (int i = 0; i < 2 * kN && !bad; ++i)
    if (buf[i] != value(left, i) || fetched[i] != value(me, i)) {
      std::fprintf(stderr, "PE %d: element %d: put %d (expected %d), fetched %d (expected %d)\n", me, i, buf[i],
                   value(left, i), fetched[i], value(me, i));
      bad = 1;
    }
  shmem_barrier_all();
  if (me == 0 && !bad) std::printf("face pto: ok on %d PEs\n", n);
  shmem_free(flag);
  shmem_free(buf);
  shmem_finalize();
  return bad;
}
