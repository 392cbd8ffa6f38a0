// The helper PE program of the communicator failure tests
// (test_comm_failure.cpp), run under tcrun; argv[1] names the scenario,
// further arguments are ignored (the runner appends a marker).
//
//   kill-in-launch   every rank launches seed 001's AllGather; rank 1 dies
//                    (SIGKILL) inside its kernel. Each survivor's launch must
//                    throw an error naming the helper that waited and the
//                    dead PE; the survivor prints "helper PE <k> left: <message>".
//   kill-in-fused    every rank runs the fused AllGatherMatmul once (in
//                    rounds: x1 is twice the window); then rank 1 dies
//                    (SIGKILL) instead of making the second call, which the
//                    others are inside, waiting for its shard. Each survivor
//                    must leave it with an error naming the operator and the
//                    dead PE, printed as above.
//
// Every PE first prints "helper: PE <k> pid <pid>". A line holding
// "UNEXPECTED" means a call returned that must not have.
#include <signal.h>
#include <unistd.h>

#include <tilecomm/ops.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../../examples/comm/allgather_seed.hpp"

namespace {

void KillingAllGather(const tilecomm::CommArgs& args, const std::int64_t* in, std::int64_t* out, std::int64_t count,
                      std::int64_t stride) {
  if (args.rank == 1) raise(SIGKILL);
  seed001::AllGatherKernel(args, in, out, count, stride);
}

[[noreturn]] void leave(const tilecomm::Comm& comm, const tilecomm::Error& e) {
  std::fprintf(stderr, "helper PE %d left: %s\n", comm.rank(), e.what());
  std::fflush(stderr);
  _exit(1);
}

[[noreturn]] void unexpected(const char* what) {
  std::printf("UNEXPECTED: %s\n", what);
  std::fflush(stdout);
  _exit(3);
}

void kill_in_launch(tilecomm::Comm& comm) {
  std::vector<std::int64_t> in(64, comm.rank()), out(64 * comm.size());
  try {
    comm.launch(comm.size(), KillingAllGather, in.data(), out.data(), std::int64_t{64}, std::int64_t{64});
  } catch (const tilecomm::Error& e) {
    leave(comm, e);
  }
  unexpected("a launch returned although rank 1 died inside it");
}

void kill_in_fused(tilecomm::Comm& comm) {
  namespace ops = tilecomm::ops;
  // 64 x 32 fp32 rows of x1 per rank: 8 KiB, twice the window (several rounds).
  const ops::MatmulShape shape{64, 32, 16};
  std::vector<float> x1(shape.m * shape.k, 1.0f), x2(shape.k * shape.n, 1.0f), y(comm.size() * shape.m * shape.n);
  try {
    ops::Executor ex;
    const auto ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), nullptr, y.data(), nullptr, shape,
                                                         ops::DataType::Fp32, &ex);
    std::vector<std::uint8_t> workspace(ws);
    ops::AllGatherMatmul(workspace.data(), ws, &ex);
    if (comm.rank() == 1) raise(SIGKILL);
    ops::AllGatherMatmul(workspace.data(), ws, &ex);
  } catch (const tilecomm::Error& e) {
    leave(comm, e);
  }
  unexpected("an AllGatherMatmul returned although rank 1 never made it");
}

}  // namespace

int main(int argc, char** argv) {
  const bool launch = argc >= 2 && std::strcmp(argv[1], "kill-in-launch") == 0;
  const bool fused = argc >= 2 && std::strcmp(argv[1], "kill-in-fused") == 0;
  if (!launch && !fused) {
    std::fprintf(stderr, "usage: tc_fail_comm kill-in-launch | kill-in-fused\n");
    return 2;
  }
  shmem_init();
  std::printf("helper: PE %d pid %d\n", shmem_my_pe(), static_cast<int>(getpid()));
  std::fflush(stdout);
  tilecomm::CommOptions small;
  small.window_bytes = 4096;
  small.flag_bytes = 64 << 10;
  tilecomm::Comm comm = tilecomm::Comm::world(small);
  if (launch) kill_in_launch(comm);
  kill_in_fused(comm);
}
