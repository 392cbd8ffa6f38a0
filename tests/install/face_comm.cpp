// The C++ communicator face from an installed tilecomm
// (tests/install/check_install.sh): a communicator of every PE, a kernel
// launched on it with the orchestration helpers (each rank writes its window,
// every other rank reads it), and an operator call (AllReduce), each
// checked. Prints one line on rank 0; exits 1 when a value is wrong.
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <tilecomm/ops.hpp>
#include <tilecomm/orchestration.hpp>
#include <vector>

namespace ops = tilecomm::ops;
namespace orch = tilecomm::orch;

namespace {

// One block per rank: publish rank * 100 in my window, read every rank's,
// then the post-sync (every reader tells the writer it is done).
void exchange(const tilecomm::CommArgs& a, std::int64_t* got) {
  *a.data<std::int64_t>(a.rank) = a.rank * 100;
  orch::Record1vN(a.magic);
  for (int r = 0; r < a.rankSize; ++r) {
    if (r != a.rank) orch::WaitNv1(r, a.magic);
    got[r] = *a.data<std::int64_t>(r);
  }
  for (int r = 0; r < a.rankSize; ++r)
    if (r != a.rank) orch::RecordNv1(r, a.magic);
  orch::Wait1vN(a.magic);
}

}  // namespace

int main() {
  shmem_init();
  int bad = 0, me = shmem_my_pe(), n = shmem_n_pes();
  try {
    tilecomm::CommOptions opts;
    opts.window_bytes = 1 << 20;
    tilecomm::Comm comm = tilecomm::Comm::world(opts);
    std::vector<std::int64_t> got(n, -1);
    comm.launch(1, exchange, got.data());
    for (int r = 0; r < n; ++r) bad |= got[r] != r * 100;

    constexpr std::uint64_t kCount = 1000;
    std::vector<std::int32_t> in(kCount), out(kCount, -1);
    for (std::uint64_t i = 0; i < kCount; ++i) in[i] = me + static_cast<std::int32_t>(i % 7);
    ops::Executor ex;
    const std::uint64_t ws = ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), kCount,
                                                            ops::DataType::Int32, ops::ReduceOp::Sum, &ex);
    std::vector<std::byte> workspace(ws);
    ops::AllReduce(workspace.data(), ws, &ex);
    for (std::uint64_t i = 0; i < kCount; ++i) bad |= out[i] != n * (n - 1) / 2 + n * static_cast<int>(i % 7);
    if (bad)
      std::fprintf(stderr, "rank %d: a wrong value (rank 0's window %lld, sum[0] %d)\n", me,
                   static_cast<long long>(got[0]), out[0]);
    comm.destroy();
  } catch (const tilecomm::Error& e) {
    std::fprintf(stderr, "rank %d: %s\n", me, e.what());
    bad = 1;
  }
  if (me == 0 && !bad) std::printf("face comm.hpp: ok on %d ranks\n", n);
  shmem_finalize();
  return bad;
}
