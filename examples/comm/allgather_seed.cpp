// Seed 001's custom AllGather on a tilecomm communicator: every rank
// contributes COUNT int64 values and gets everybody's, gathered in as many
// launches as the window requires.
//
//   tcrun -n 4 ./comm-seed-allgather [COUNT] [WINDOW_BYTES]
//
// Prints the launches used and checks every element; exits 1 on a mismatch.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "allgather_seed.hpp"

int main(int argc, char** argv) {
  const std::int64_t count = argc > 1 ? std::atoll(argv[1]) : 1 << 20;
  tilecomm::CommOptions opts;
  if (argc > 2) opts.window_bytes = std::strtoull(argv[2], nullptr, 0);
  shmem_init();
  int status = 0;
  try {
    tilecomm::Comm comm = tilecomm::Comm::world(opts);
    const int me = comm.rank(), n = comm.size();
    std::vector<std::int64_t> in(count), out(count * n, -1);
    for (std::int64_t i = 0; i < count; ++i) in[i] = std::int64_t{me} << 40 | i;
    const int launches = seed001::AllGather(comm, in.data(), out.data(), count);
    std::int64_t bad = 0;
    for (int r = 0; r < n; ++r)
      for (std::int64_t i = 0; i < count; ++i) bad += out[r * count + i] != (std::int64_t{r} << 40 | i);
    if (me == 0 || bad)
      std::printf("rank %d: AllGather of %lld int64 per rank over %d ranks in %d launches (window %zu bytes): %s\n",
                  me, static_cast<long long>(count), n, launches, opts.window_bytes, bad ? "MISMATCH" : "ok");
    status = bad != 0;
    comm.destroy();
  } catch (const tilecomm::Error& e) {
    std::fprintf(stderr, "comm-seed-allgather: %s\n", e.what());
    status = 1;
  }
  shmem_finalize();
  return status;
}
