// ops_cpp: tilecomm's C++ one-call operators (<tilecomm/ops.hpp>) on ordinary
// (non-symmetric) buffers, the yardstick of bench/python/torch_coll.py: the
// torch backend "tilecomm" runs these same operators on views of the tensors,
// so the staging through the communicator's window is alike and the
// difference is what the Python face and torch add (bench/compare-python).
//
//   all_reduce      AllReduce(comm, buf, buf, count, Fp32, Sum)   in place, as the backend calls it
//   all_gather      AllGather(comm, in, out, count, Fp32)         out: size() * count
//   broadcast       Broadcast(comm, buf, buf, count, Fp32, 0)     in place, root 0
//   reduce_scatter  ReduceScatter(comm, in, out, count, Fp32, Sum) in: size() * count
//   all_to_all      AllToAll(comm, in, out, count, Fp32)          count per peer
//
// size = count * 4 bytes (count as ops.hpp has it: the tensor, the input per
// rank, the output per rank, the block per peer). The communicator is
// Comm::world() with the default options, as the backend's.
//
// Method (torch_coll.py's): per size, one warm-up call, then a calibration:
// the slowest rank's time of one call sets n, the calls of a round lasting
// about --rep-ms (1 <= n <= 10000). A round is shmem_barrier_all, n calls,
// shmem_barrier_all; PE 0 times it from the end of the first barrier to the
// end of the last. --rounds rounds (--big-rounds from 8 MiB); PE 0 prints the
// median of (round time / n), "op,size,value,unit" lines.
//
// --calls: instead, the per-call cost of an 8-byte AllReduce (1 int64, in
// place), with calls_c.c's method (--iters calls a round, --rounds, --warmup):
// the C++ twin of calls.py's comm_all_reduce.
//
//   tcrun -n N ops_cpp [--ops LIST] [--sizes LIST] [--rep-ms MS] [--rounds R] [--big-rounds R]
//   tcrun -n 2 ops_cpp --calls [--iters N] [--rounds R] [--warmup W]
// Build: <build>/tcc++ -std=c++20 -O2 -I<repo>/include bench/python/ops_cpp.cpp -o ops_cpp
#include <shmem.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tilecomm/comm.hpp>
#include <tilecomm/ops.hpp>

namespace {

namespace ops = tilecomm::ops;
using Clock = std::chrono::steady_clock;

double now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    std::size_t e = s.find(',', at);
    if (e == std::string::npos) e = s.size();
    if (e > at) out.push_back(s.substr(at, e - at));
    at = e + 1;
  }
  return out;
}

std::size_t parse_size(const std::string& s) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (*end == 'k' || *end == 'K') v <<= 10, ++end;
  else if (*end == 'm' || *end == 'M') v <<= 20, ++end;
  return *end ? 0 : static_cast<std::size_t>(v);
}

/// A zeroed float buffer aligned as torch's CPU allocator aligns tensors (64 bytes; std::vector's
/// large blocks start 16 bytes past a page boundary), so that the staging copies are alike.
struct Buffer {
  explicit Buffer(std::size_t count)
      : p(static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64))) {
    if (!p) std::abort();
    std::memset(p, 0, count * sizeof(float));
  }
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* data() const { return p; }
  float* p;
};

/// The slowest PE's value (a max reduction of doubles through the symmetric heap).
double max_over_pes(double v) {
  static double* src = static_cast<double*>(shmem_malloc(sizeof(double)));
  static double* dst = static_cast<double*>(shmem_malloc(sizeof(double)));
  *src = v;
  shmem_double_max_reduce(SHMEM_TEAM_WORLD, dst, src, 1);
  return *dst;
}

}  // namespace

int main(int argc, char** argv) {
  std::string op_list = "all_reduce,all_gather,broadcast,reduce_scatter,all_to_all";
  std::string size_list = "8,64,512,4K,32K,256K,1M,8M,64M";
  double rep_ms = 20;
  int rounds = 7, big_rounds = 3, warmup = 3;
  long iters = 2000;
  bool calls = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ops_cpp: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--ops") op_list = next();
    else if (a == "--sizes") size_list = next();
    else if (a == "--rep-ms") rep_ms = std::atof(next().c_str());
    else if (a == "--rounds") rounds = std::atoi(next().c_str());
    else if (a == "--big-rounds") big_rounds = std::atoi(next().c_str());
    else if (a == "--warmup") warmup = std::atoi(next().c_str());
    else if (a == "--iters") iters = std::atol(next().c_str());
    else if (a == "--calls") calls = true;
    else {
      std::fprintf(stderr, "ops_cpp: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (rounds < 1 || big_rounds < 1 || iters < 1 || warmup < 0) return 2;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int status = 0;
  {
    tilecomm::Comm comm = tilecomm::Comm::world();
    if (me == 0) std::printf("op,size,value,unit\n");
    if (calls) {
      std::int64_t x = 1;
      std::vector<double> t;
      for (int r = -warmup; r < rounds; ++r) {
        shmem_barrier_all();
        double t0 = now();
        for (long i = 0; i < iters; ++i) ops::AllReduce(comm, &x, &x, 1, ops::DataType::Int64, ops::ReduceOp::Sum);
        double dt = now() - t0;
        if (r >= 0) t.push_back(dt / static_cast<double>(iters) * 1e6);
        shmem_barrier_all();
      }
      if (me == 0) std::printf("comm_all_reduce,8,%.6g,us\n", median(t));
    } else {
      for (const std::string& op : split(op_list)) {
        for (const std::string& s : split(size_list)) {
          const std::size_t size = parse_size(s);
          if (size < 4 || size % 4) {
            if (me == 0) std::fprintf(stderr, "ops_cpp: size '%s' is not a positive multiple of 4 bytes\n", s.c_str());
            status = 2;
            break;
          }
          const std::uint64_t count = size / 4;
          const bool wide_in = op == "reduce_scatter" || op == "all_to_all";
          const bool wide_out = op == "all_gather" || op == "all_to_all";
          Buffer in(count * (wide_in ? n : 1)), out(count * (wide_out ? n : 1));
          auto call = [&] {
            if (op == "all_reduce") ops::AllReduce(comm, in.data(), in.data(), count, ops::DataType::Fp32, ops::ReduceOp::Sum);
            else if (op == "all_gather") ops::AllGather(comm, in.data(), out.data(), count, ops::DataType::Fp32);
            else if (op == "broadcast") ops::Broadcast(comm, in.data(), in.data(), count, ops::DataType::Fp32, 0);
            else if (op == "reduce_scatter")
              ops::ReduceScatter(comm, in.data(), out.data(), count, ops::DataType::Fp32, ops::ReduceOp::Sum);
            else if (op == "all_to_all") ops::AllToAll(comm, in.data(), out.data(), count, ops::DataType::Fp32);
          };
          if (op != "all_reduce" && op != "all_gather" && op != "broadcast" && op != "reduce_scatter" &&
              op != "all_to_all") {
            if (me == 0) std::fprintf(stderr, "ops_cpp: unknown op '%s'\n", op.c_str());
            status = 2;
            break;
          }
          shmem_barrier_all();
          call();  // warm-up: the plan and its first-run exchange
          shmem_barrier_all();
          double t0 = now();
          call();
          const double one = max_over_pes(now() - t0);
          const long calls_per_round = std::clamp(static_cast<long>(rep_ms * 1e-3 / std::max(one, 1e-9)), 1L, 10000L);
          std::vector<double> t;
          const int r_count = size >= (std::size_t{8} << 20) ? big_rounds : rounds;
          for (int r = 0; r < r_count; ++r) {
            shmem_barrier_all();
            double t1 = now();
            for (long i = 0; i < calls_per_round; ++i) call();
            shmem_barrier_all();
            t.push_back((now() - t1) / static_cast<double>(calls_per_round) * 1e6);
          }
          if (me == 0) std::printf("%s,%zu,%.6g,us\n", op.c_str(), size, median(t));
          std::fflush(stdout);
        }
        if (status) break;
      }
    }
    comm.destroy();
  }
  shmem_finalize();
  return status;
}
