// tilecomm-perf, operator part (tilecomm only; perf.c calls it with
// "--only ops"): each collective operator of <tilecomm/ops.hpp> against the
// library's OpenSHMEM collective on the same bytes, in the same run,
// interleaved (one repetition of each in turn), from 8 B to the
// --coll-max-size bytes per PE:
//
//   AllGather (int8)   against shmem_fcollectmem
//   AllReduce (fp32)   against shmem_float_sum_reduce
//   Broadcast (int8)   against shmem_broadcastmem (root 0)
//   AllToAll  (int8)   against shmem_alltoallmem (size per peer)
//
// The operators take ordinary memory and stage it through the
// communicator's window; the OpenSHMEM collectives take symmetric buffers.
// Prints, on PE 0, the median time per call of each and the ratio
// operator / library (the cost of the staging), and the operator's algorithm
// and bus bandwidth (the nccl-tests convention). Every result is checked.
//
// The operator runs twice: on an input and output in ordinary memory
// (staged through the window) and on symmetric buffers as the library's
// (the input read in place, NOTE [inputs in place] in src/comm/ops.cpp:
// "op sym").
//
// And the library once more as a program with its data in ordinary memory
// must call it: copying the input into the symmetric source first, inside
// the timed call ("copy+shmem"). The operator's staging is that copy; the
// ratio operator / copy+shmem is what staging through the window costs
// beyond it. Calls run back to back on the same input (what OpenSHMEM
// benchmarks measure), so every side that writes its source writes lines
// the peers read in the previous call.
#include <shmem.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include <tilecomm/ops.hpp>

namespace {

namespace ops = tilecomm::ops;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

extern "C" int tc_perf_ops(int quick, int csv, int reps, size_t max_size) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const double rep_s = quick ? 0.003 : 0.02;
  // Window: the largest call's staged input and result (AllGather: n + 1 blocks).
  tilecomm::CommOptions opts;
  opts.window_bytes = (static_cast<std::size_t>(n) * 2 + 2) * max_size + 4096;
  opts.window_bytes = (opts.window_bytes + 127) / 128 * 128;
  tilecomm::Comm comm = tilecomm::Comm::world(opts);
  const std::size_t bytes = max_size * static_cast<std::size_t>(n);
  auto* sym_src = static_cast<std::uint8_t*>(shmem_malloc(bytes));
  auto* sym_dst = static_cast<std::uint8_t*>(shmem_malloc(bytes));
  auto* sym_out = static_cast<std::uint8_t*>(shmem_malloc(bytes));  // the output of "op sym"
  if (!sym_src || !sym_dst || !sym_out) {
    if (me == 0) std::fprintf(stderr, "perf: ops: shmem_malloc of %zu bytes failed (SHMEM_SYMMETRIC_SIZE)\n", bytes);
    return 1;
  }
  std::vector<std::uint8_t> in(bytes), out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) sym_src[i] = in[i] = static_cast<std::uint8_t>(me + 3 * i);
  int bad = 0;
  const char* names[] = {"allgather", "allreduce", "broadcast", "alltoall"};
  if (me == 0 && !csv)
    std::printf("\noperators vs the library's OpenSHMEM collectives (%d PEs; size per PE, alltoall per peer)\n"
                "%-10s %10s %12s %12s %8s %12s %8s %14s %8s %12s %12s\n", n, "operator", "size", "shmem us",
                "operator us", "ratio", "op sym us", "ratio", "copy+shmem us", "ratio", "algbw GB/s", "busbw GB/s");
  for (int which = 0; which < 4; ++which) {
    for (std::size_t size = 8; size <= max_size; size *= 2) {
      const std::uint64_t count = which == 1 ? size / 4 : size;
      if (count == 0) continue;
      // Two plans: the input in ordinary memory (staged through the window)
      // and in the symmetric heap (read in place: NOTE [inputs in place]).
      ops::Executor ex, ex_sym;
      auto plan = [&](ops::Executor& e, const void* input, void* output) {
        switch (which) {
          case 0: ops::AllGatherGetWorkspaceSize(comm, input, output, count, ops::DataType::Int8, &e); break;
          case 1:
            ops::AllReduceGetWorkspaceSize(comm, input, output, count, ops::DataType::Fp32, ops::ReduceOp::Sum, &e);
            break;
          case 2: ops::BroadcastGetWorkspaceSize(comm, input, output, count, ops::DataType::Int8, 0, &e); break;
          case 3: ops::AllToAllGetWorkspaceSize(comm, input, output, count, ops::DataType::Int8, &e); break;
        }
      };
      plan(ex, in.data(), out.data());
      plan(ex_sym, sym_src, sym_out);
      auto run_plan = [&](ops::Executor& e) {
        switch (which) {
          case 0: ops::AllGather(nullptr, 0, &e); break;
          case 1: ops::AllReduce(nullptr, 0, &e); break;
          case 2: ops::Broadcast(nullptr, 0, &e); break;
          case 3: ops::AllToAll(nullptr, 0, &e); break;
        }
      };
      auto run_op = [&] { run_plan(ex); };
      auto run_lib = [&] {
        switch (which) {
          case 0: shmem_fcollectmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, size); break;
          case 1:
            shmem_float_sum_reduce(SHMEM_TEAM_WORLD, reinterpret_cast<float*>(sym_dst),
                                   reinterpret_cast<const float*>(sym_src), count);
            break;
          case 2: shmem_broadcastmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, size, 0); break;
          case 3: shmem_alltoallmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, size); break;
        }
      };
      // Iterations per repetition: from one timed call, agreed on PE 0's.
      static long iters_sym;
      shmem_barrier_all();
      auto t0 = Clock::now();
      run_lib();
      const double one = seconds(t0);
      long iters = std::max<long>(1, std::min<long>(100000, static_cast<long>(rep_s / std::max(one, 1e-7))));
      iters_sym = iters;
      shmem_barrier_all();
      iters = shmem_long_g(&iters_sym, 0);
      std::vector<double> lib, op, op_sym, staged_lib;
      const std::size_t in_bytes = which == 3 ? size * n : size;  // the call's input
      auto run_staged_lib = [&] {  // sym_src holds what in holds: the results do not change
        if (which != 2 || me == 0) std::memcpy(sym_src, in.data(), in_bytes);
        run_lib();
      };
      for (int r = 0; r < reps; ++r) {
        for (int side = 0; side < 4; ++side) {
          const std::function<void()> call[] = {run_lib, run_op, [&] { run_plan(ex_sym); }, run_staged_lib};
          shmem_barrier_all();
          t0 = Clock::now();
          for (long i = 0; i < iters; ++i) call[side]();
          shmem_barrier_all();
          (side == 3 ? staged_lib : side == 2 ? op_sym : side ? op : lib).push_back(seconds(t0) / iters * 1e6);
        }
      }
      // Both plans' results, checked against the library's.
      const std::size_t out_bytes = which == 0 || which == 3 ? size * n : size;
      // Bit for bit: both sum in member order, and the input bytes make
      // some floats NaN on PEs 2 and up, which no float comparison equals.
      auto check = [&](const std::uint8_t* got) { bad += std::memcmp(got, sym_dst, out_bytes) != 0; };
      check(out.data());
      std::memset(sym_out, 0, out_bytes);
      shmem_barrier_all();  // nobody still reads sym_out (a broadcast root's)
      run_plan(ex_sym);
      check(sym_out);
      if (me != 0) continue;
      const double lib_us = median(lib), op_us = median(op), sym_us = median(op_sym), staged_us = median(staged_lib);
      const double moved = static_cast<double>(which == 0 || which == 3 ? size * n : size);  // bytes out per PE
      const double algbw = moved / (op_us * 1e3);
      const double factor = which == 1 ? 2.0 * (n - 1) / n : which == 2 ? 1.0 : static_cast<double>(n - 1) / n;
      if (csv) {  // times, and bus bandwidths for bench/plot-coll (NAME_busbw rows)
        const struct {
          const char* side;
          double us;
        } rows[] = {{"op", op_us}, {"lib", lib_us}, {"op_sym", sym_us}, {"staged_lib", staged_us}};
        for (const auto& r : rows) {
          std::printf("%s_%s,%zu,%.3f,us\n", r.side, names[which], size, r.us);
          if (r.us > 0)
            std::printf("%s_%s_busbw,%zu,%.6g,GB/s\n", r.side, names[which], size, moved / (r.us * 1e3) * factor);
        }
      } else
        std::printf("%-10s %10zu %12.3f %12.3f %8.3f %12.3f %8.3f %14.3f %8.3f %12.3f %12.3f\n", names[which],
                    size, lib_us, op_us, op_us / lib_us, sym_us, sym_us / lib_us, staged_us, op_us / staged_us, algbw,
                    algbw * factor);
    }
  }
  shmem_free(sym_out);
  shmem_free(sym_dst);
  shmem_free(sym_src);
  comm.destroy();
  if (bad) std::fprintf(stderr, "perf: PE %d: %d operator results differ from the library's\n", me, bad);
  return bad != 0;
}
