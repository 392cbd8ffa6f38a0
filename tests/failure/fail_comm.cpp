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
// Misuse the call board catches (NOTE [call board] in src/comm/board.hpp),
// on a communicator of every PE; each first makes calls #1 and #2 together
// (plans A, AllReduce of 4 int32, and B, AllReduce of 4096 int32, each run
// once: their first runs agreed):
//   mismatch-running  call #3: rank 1 runs B, every other rank A.
//   skip-destroy      call #3: rank 1 destroys the communicator instead,
//                     every other rank runs A.
//   skip-finalize     call #3: rank 1 calls shmem_finalize instead (its
//                     communicator still alive), every other rank runs A.
//   alone-timeout     call #3: rank 0 runs A alone; the others wait in
//                     shmem_barrier_all (TILECOMM_COMM_TIMEOUT ends rank 0's
//                     wait), which rank 0 then joins.
//   peer-failed       call #3: rank 1 runs A alone, as rank 0 above; then,
//                     after the barrier, every rank destroys the communicator.
// Each rank prints "helper PE <k> <step>: <code>: <message>" for every error
// (steps: call, later (an operator call after the error), destroy,
// destroyed (what the destruction did), then "helper PE <k> finished" after
// shmem_finalize, and exits 0.
//
// Every PE first prints "helper: PE <k> pid <pid>". A line holding
// "UNEXPECTED" means a call returned that must not have.
#include <signal.h>
#include <unistd.h>

#include <tilecomm/ops.hpp>

#include <cstdio>
#include <cstring>
#include <string>
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

// ---- misuse the call board catches -------------------------------------------------

namespace ops = tilecomm::ops;

void report(int rank, const char* step, const tilecomm::Error& e) {
  std::fprintf(stderr, "helper PE %d %s: %s: %s\n", rank, step, tilecomm::to_string(e.code()), e.what());
  std::fflush(stderr);
}

void say(int rank, const char* what) {
  std::printf("helper PE %d %s\n", rank, what);
  std::fflush(stdout);
}

// Plans A and B (see the top), each run once by every rank: calls #1 and #2.
struct Plans {
  std::vector<std::int32_t> a_in, a_out, b_in, b_out;
  ops::Executor a, b;
  explicit Plans(tilecomm::Comm& comm) : a_in(4, 1), a_out(4), b_in(4096, 1), b_out(4096) {
    ops::AllReduceGetWorkspaceSize(comm, a_in.data(), a_out.data(), a_in.size(), ops::DataType::Int32,
                                   ops::ReduceOp::Sum, &a);
    ops::AllReduceGetWorkspaceSize(comm, b_in.data(), b_out.data(), b_in.size(), ops::DataType::Int32,
                                   ops::ReduceOp::Sum, &b);
    ops::AllReduce(nullptr, 0, &a);
    ops::AllReduce(nullptr, 0, &b);
    if (a_out[0] != comm.size() || b_out[4095] != comm.size()) unexpected("plans A and B gave wrong sums");
  }
};

// Runs `ex` (an AllReduce plan) as call #3; reports its error.
bool call(tilecomm::Comm& comm, ops::Executor& ex) {
  try {
    ops::AllReduce(nullptr, 0, &ex);
    return true;
  } catch (const tilecomm::Error& e) {
    report(comm.rank(), "call", e);
    return false;
  }
}

// After a failed call: a later operator call refuses, and the destruction
// releases the communicator without waiting.
void after_failure(tilecomm::Comm& comm, ops::Executor& ex) {
  try {
    ops::AllReduce(nullptr, 0, &ex);
    unexpected("an operator call ran on a communicator whose earlier call failed");
  } catch (const tilecomm::Error& e) {
    report(comm.rank(), "later", e);
  }
}

void destroy(tilecomm::Comm& comm) {
  const int rank = comm.rank();
  try {
    comm.destroy();
    say(rank, "destroyed");
  } catch (const tilecomm::Error& e) {
    report(rank, "destroy", e);
  }
}

void misuse(tilecomm::Comm& comm, const std::string& scenario) {
  const int me = comm.rank();
  Plans p(comm);
  shmem_barrier_all();
  if (scenario == "mismatch-running") {
    if (call(comm, me == 1 ? p.b : p.a)) unexpected("call #3 returned although rank 1 ran another call");
    after_failure(comm, p.a);
    destroy(comm);
  } else if (scenario == "skip-destroy") {
    if (me == 1) {
      destroy(comm);
    } else {
      if (call(comm, p.a)) unexpected("call #3 returned although rank 1 destroyed the communicator");
      after_failure(comm, p.a);
      destroy(comm);
    }
  } else if (scenario == "skip-finalize") {
    if (me == 1) {
      shmem_finalize();  // the communicator is still alive: released at the end of main
      say(me, "finished");
      return;
    }
    if (call(comm, p.a)) unexpected("call #3 returned although rank 1 is in shmem_finalize");
    after_failure(comm, p.a);
    destroy(comm);
  } else {  // alone-timeout, peer-failed, peer-failed-dtor
    const int alone = scenario == "alone-timeout" ? 0 : 1;
    if (me == alone) {
      if (call(comm, p.a)) unexpected("call #3 returned although only this rank made it");
      after_failure(comm, p.a);
    }
    shmem_barrier_all();
    if (scenario == "peer-failed-dtor") {
      { tilecomm::Comm gone = std::move(comm); }  // its destructor logs what destroy() would throw
      say(me, "released");
    } else {
      destroy(comm);
    }
  }
  shmem_finalize();
  say(me, "finished");
}

}  // namespace

int main(int argc, char** argv) {
  const char* const kMisuse[] = {"mismatch-running", "skip-destroy",     "skip-finalize",   "alone-timeout",
                                 "peer-failed",      "peer-failed-dtor"};
  const bool launch = argc >= 2 && std::strcmp(argv[1], "kill-in-launch") == 0;
  const bool fused = argc >= 2 && std::strcmp(argv[1], "kill-in-fused") == 0;
  bool board = false;
  for (const char* s : kMisuse) board = board || (argc >= 2 && std::strcmp(argv[1], s) == 0);
  if (!launch && !fused && !board) {
    std::fprintf(stderr, "usage: tc_fail_comm kill-in-launch | kill-in-fused | mismatch-running | skip-destroy | "
                 "skip-finalize | alone-timeout | peer-failed | peer-failed-dtor\n");
    return 2;
  }
  shmem_init();
  std::printf("helper: PE %d pid %d\n", shmem_my_pe(), static_cast<int>(getpid()));
  std::fflush(stdout);
  tilecomm::CommOptions small;
  small.window_bytes = board ? 64 << 10 : 4096;
  small.flag_bytes = 64 << 10;
  tilecomm::Comm comm = tilecomm::Comm::world(small);
  if (board) {
    misuse(comm, argv[1]);
    return 0;
  }
  if (launch) kill_in_launch(comm);
  kill_in_fused(comm);
}
