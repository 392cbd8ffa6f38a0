// The helper PE program of the communicator failure tests
// (test_comm_failure.cpp), run under tcrun; argv[1] names the scenario,
// further arguments are ignored (the runner appends a marker).
//
//   kill-in-launch   every rank launches seed 001's AllGather; rank 1 dies
//                    (SIGKILL) inside its kernel. Each survivor's launch must
//                    throw an error naming the helper that waited and the
//                    dead PE; the survivor prints "helper PE <k> left: <message>".
//
// Every PE first prints "helper: PE <k> pid <pid>". A line holding
// "UNEXPECTED" means a launch returned that must not have.
#include <signal.h>
#include <unistd.h>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "kill-in-launch") != 0) {
    std::fprintf(stderr, "usage: tc_fail_comm kill-in-launch\n");
    return 2;
  }
  shmem_init();
  std::printf("helper: PE %d pid %d\n", shmem_my_pe(), static_cast<int>(getpid()));
  std::fflush(stdout);
  tilecomm::CommOptions small;
  small.window_bytes = 4096;
  small.flag_bytes = 64 << 10;
  tilecomm::Comm comm = tilecomm::Comm::world(small);
  std::vector<std::int64_t> in(64, comm.rank()), out(64 * comm.size());
  try {
    comm.launch(comm.size(), KillingAllGather, in.data(), out.data(), std::int64_t{64}, std::int64_t{64});
  } catch (const tilecomm::Error& e) {
    std::fprintf(stderr, "helper PE %d left: %s\n", comm.rank(), e.what());
    std::fflush(stderr);
    _exit(1);
  }
  std::printf("UNEXPECTED: a launch returned although rank 1 died inside it\n");
  std::fflush(stdout);
  _exit(3);
}
