// tilecomm-perf, fused-operator part (tilecomm only; perf.c calls it with
// "--only fused"): each fused operator of <tilecomm/ops.hpp> against the
// same work done unfused with tilecomm's operators, in the same run,
// interleaved (one repetition of each variant in turn, the order rotating
// from one repetition to the next):
//
//   fused                 unfused                                           comm alone
//   AllGatherAdd          AllGather into a temporary, then c = tmp + b       AllGather
//   AllGatherMatmul       AllGather into a temporary, then ops::Matmul       AllGather
//                         with the bias
//   MatmulReduceScatter   ops::Matmul, ReduceScatter (sum), then + bias      ReduceScatter
//   MatmulAllReduce       ops::Matmul, AllReduce (sum), then + bias          AllReduce
//
// The cases (operator, type, shape, data) are those of fused_cases.h, which
// bench/mpi_fused.c measures too (the unfused work through OpenMPI and
// OpenBLAS); bench/compare-fused sets the three side by side. The inputs
// are ordinary memory; AllGatherAdd and AllGatherMatmul run a second time
// with their input (a, x1) in the symmetric heap, the same object on every
// rank, which both variants then read in place (the fused operator reads
// the peers' shards where they lie, the AllGather operator is the library's
// fcollect): lines NAME/sym/VARIANT. The
// communication alone is the unfused variant's collective operator on the
// same bytes: its share of the unfused time is what fusing can hide at best.
//
// Run it with OPENBLAS_NUM_THREADS=1 (bench/compare-fused does): one BLAS
// thread per process, as MPI ranks run, so that the fused and the unfused
// products get the same CPUs and the BLAS's own threads do not oversubscribe
// a small host. The table's header shows the value this run saw.
//
// Prints on PE 0, per case, the median time per call of each variant, the
// ratio fused / unfused and the communication's share of the unfused time;
// with --csv the lines NAME[/sym]/fused, .../unfused and .../comm (metric), the
// bytes each rank hands to the collective (size), the microseconds (value).
// After the timed repetitions, the fused result is compared with the unfused
// one element by element, and the unfused one with the exact values
// (fused_expected) at a few places; a difference fails the run.
#include <shmem.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>
#include <vector>

#include <tilecomm/ops.hpp>

#include "fused_cases.h"

namespace {

namespace ops = tilecomm::ops;
using Clock = std::chrono::steady_clock;

// Repetitions per case at least (--reps may ask for more): a few slow
// repetitions on a 2-CPU host would move the median of five.
constexpr int kMinReps = 15;
constexpr long kMaxIters = 1000;  // calls of a variant per repetition
constexpr int kSpotChecks = 32;   // unfused elements checked against the exact values
enum Variant { kFused, kUnfused, kComm, kVariants };

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `count` elements of a case's type, in ordinary memory or, `symmetric`,
// in the symmetric heap (shmem_malloc: collective, as every rank builds the
// same cases in the same order).
class Buffer {
 public:
  Buffer(ops::DataType type, std::size_t count, bool symmetric = false)
      : type_(type), count_(count), sym_(symmetric ? shmem_malloc(count * ops::size_of(type)) : nullptr),
        bytes_(symmetric ? 0 : count * ops::size_of(type)) {
    if (symmetric && count && !sym_) throw std::runtime_error("shmem_malloc of a case's input failed; raise SHMEM_SYMMETRIC_SIZE");
  }
  ~Buffer() {
    if (sym_) shmem_free(sym_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() { return sym_ ? sym_ : bytes_.data(); }
  const void* data() const { return sym_ ? sym_ : bytes_.data(); }
  float* f32() { return static_cast<float*>(data()); }
  std::size_t count() const { return count_; }
  double at(std::size_t i) const {
    return type_ == ops::DataType::Bf16 ? ops::bf16_to_float(static_cast<const std::uint16_t*>(data())[i])
                                        : static_cast<const float*>(data())[i];
  }
  // Element i of operand `which` on rank `rank` (fused_value), for every i.
  void fill(int which, int rank) {
    for (std::size_t i = 0; i < count(); ++i) {
      const float v = fused_value(which, rank, i);
      if (type_ == ops::DataType::Bf16) static_cast<std::uint16_t*>(data())[i] = ops::float_to_bf16(v);
      else f32()[i] = v;
    }
  }

 private:
  ops::DataType type_;
  std::size_t count_;
  void* sym_;
  std::vector<std::byte> bytes_;
};

// c = a + b, n floats: the add of the unfused AllGatherAdd.
void add(float* c, const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// y (rows x n) += bias, on every row: the unfused Matmul* operators' bias.
void add_bias(float* y, const float* bias, std::size_t rows, std::size_t n) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < n; ++j) y[r * n + j] += bias[j];
}

// One case on this rank: its operands, the two plans and the three
// variants. x1 is a or x1, x2 is b or x2; tmp is the gathered input or the
// unreduced product.
struct Case {
  Case(tilecomm::Comm& comm, const fused_case& c, bool symmetric);
  Case(const Case&) = delete;  // the plans and the variants point into it
  Case& operator=(const Case&) = delete;
  fused_case c;
  ops::DataType type;
  Buffer x1, x2, bias, tmp, fused_y, unfused_y;
  ops::Executor fused_ex, coll_ex;
  std::vector<std::byte> workspace;
  std::function<void()> run[kVariants];
};

// Elements of x1 (or a), x2 (or b) and tmp on each rank of `size`.
std::size_t x1_count(const fused_case& c) { return c.op == FUSED_ALLGATHER_ADD ? c.m : c.m * c.k; }
std::size_t x2_count(const fused_case& c, int size) { return c.op == FUSED_ALLGATHER_ADD ? size * c.m : c.k * c.n; }
std::size_t tmp_count(const fused_case& c, int size) {
  switch (c.op) {
    case FUSED_ALLGATHER_ADD: return size * c.m;
    case FUSED_ALLGATHER_MATMUL: return size * c.m * c.k;
    default: return c.m * c.n;
  }
}

Case::Case(tilecomm::Comm& comm, const fused_case& fc, bool symmetric)
    : c(fc),
      type(fc.type == FUSED_BF16 ? ops::DataType::Bf16 : ops::DataType::Fp32),
      x1(type, x1_count(fc), symmetric),
      x2(type, x2_count(fc, comm.size())),
      bias(type, fc.op == FUSED_ALLGATHER_ADD ? 0 : fc.n),
      tmp(type, tmp_count(fc, comm.size())),
      fused_y(type, fused_result_count(&fc, comm.size())),
      unfused_y(type, fused_result_count(&fc, comm.size())) {
  x1.fill(FUSED_A, comm.rank());
  x2.fill(FUSED_B, 0);
  bias.fill(FUSED_BIAS, 0);
  const int size = comm.size();
  const ops::MatmulShape shape{c.m, c.k, c.n};
  std::uint64_t fused_ws = 0, coll_ws = 0;
  switch (c.op) {
    case FUSED_ALLGATHER_ADD:
      fused_ws = ops::AllGatherAddGetWorkspaceSize(comm, x1.data(), x2.data(), fused_y.data(), c.m, type, &fused_ex);
      coll_ws = ops::AllGatherGetWorkspaceSize(comm, x1.data(), tmp.data(), c.m, type, &coll_ex);
      break;
    case FUSED_ALLGATHER_MATMUL:
      fused_ws = ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), fused_y.data(),
                                                      nullptr, shape, type, &fused_ex);
      coll_ws = ops::AllGatherGetWorkspaceSize(comm, x1.data(), tmp.data(), c.m * c.k, type, &coll_ex);
      break;
    case FUSED_MATMUL_REDUCE_SCATTER:
      fused_ws = ops::MatmulReduceScatterGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), fused_y.data(),
                                                          shape, type, &fused_ex);
      coll_ws = ops::ReduceScatterGetWorkspaceSize(comm, tmp.data(), unfused_y.data(), c.m / size * c.n, type,
                                                   ops::ReduceOp::Sum, &coll_ex);
      break;
    case FUSED_MATMUL_ALLREDUCE:
      fused_ws = ops::MatmulAllReduceGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), fused_y.data(), shape,
                                                      type, &fused_ex);
      coll_ws = ops::AllReduceGetWorkspaceSize(comm, tmp.data(), unfused_y.data(), c.m * c.n, type,
                                               ops::ReduceOp::Sum, &coll_ex);
      break;
  }
  workspace.resize(std::max(fused_ws, coll_ws));
  void* const ws = workspace.data();
  const std::uint64_t wsn = workspace.size();
  switch (c.op) {
    case FUSED_ALLGATHER_ADD:
      run[kFused] = [=, this] { ops::AllGatherAdd(ws, wsn, &fused_ex); };
      run[kUnfused] = [=, this] {
        ops::AllGather(ws, wsn, &coll_ex);
        add(unfused_y.f32(), tmp.f32(), x2.f32(), tmp.count());
      };
      run[kComm] = [=, this] { ops::AllGather(ws, wsn, &coll_ex); };
      break;
    case FUSED_ALLGATHER_MATMUL:
      run[kFused] = [=, this] { ops::AllGatherMatmul(ws, wsn, &fused_ex); };
      run[kUnfused] = [=, this] {
        ops::AllGather(ws, wsn, &coll_ex);
        ops::Matmul(tmp.data(), x2.data(), bias.data(), unfused_y.data(), {size * c.m, c.k, c.n}, type);
      };
      run[kComm] = [=, this] { ops::AllGather(ws, wsn, &coll_ex); };
      break;
    case FUSED_MATMUL_REDUCE_SCATTER:
      run[kFused] = [=, this] { ops::MatmulReduceScatter(ws, wsn, &fused_ex); };
      run[kUnfused] = [=, this] {
        ops::Matmul(x1.data(), x2.data(), nullptr, tmp.data(), shape, type);
        ops::ReduceScatter(ws, wsn, &coll_ex);
        add_bias(unfused_y.f32(), bias.f32(), c.m / size, c.n);
      };
      run[kComm] = [=, this] { ops::ReduceScatter(ws, wsn, &coll_ex); };
      break;
    case FUSED_MATMUL_ALLREDUCE:
      run[kFused] = [=, this] { ops::MatmulAllReduce(ws, wsn, &fused_ex); };
      run[kUnfused] = [=, this] {
        ops::Matmul(x1.data(), x2.data(), nullptr, tmp.data(), shape, type);
        ops::AllReduce(ws, wsn, &coll_ex);
        add_bias(unfused_y.f32(), bias.f32(), c.m, c.n);
      };
      run[kComm] = [=, this] { ops::AllReduce(ws, wsn, &coll_ex); };
      break;
  }
}

// PE 0's value of v, on every rank of comm.
long from_pe0(tilecomm::Comm& comm, long v) {
  std::int64_t in = v, out = 0;
  ops::Executor ex;
  ops::BroadcastGetWorkspaceSize(comm, &in, &out, 1, ops::DataType::Int64, 0, &ex);
  ops::Broadcast(nullptr, 0, &ex);
  return static_cast<long>(out);
}

// The largest of v over the ranks of comm, on every rank.
double max_over_ranks(tilecomm::Comm& comm, double v) {
  double out = 0;
  ops::Executor ex;
  ops::AllReduceGetWorkspaceSize(comm, &v, &out, 1, ops::DataType::Fp64, ops::ReduceOp::Max, &ex);
  ops::AllReduce(nullptr, 0, &ex);
  return out;
}

// Runs the fused and the unfused variant once more and compares: the fused
// result with the unfused one everywhere, the unfused one with the exact
// values at kSpotChecks places. Prints what differs; returns the largest
// |fused - unfused| and sets *bad.
double check(Case& k, const char* name, int me, int size, bool* bad) {
  k.run[kFused]();
  k.run[kUnfused]();
  const std::size_t n = k.fused_y.count();
  double max_diff = 0;
  std::size_t worst = 0;
  bool differs = false;
  for (std::size_t i = 0; i < n; ++i) {
    const double f = k.fused_y.at(i), u = k.unfused_y.at(i), d = f > u ? f - u : u - f;
    if (std::isnan(d) ? !std::isnan(max_diff) : d > max_diff) max_diff = d, worst = i;  // a NaN is the worst
    differs |= !fused_close(&k.c, f, u);
  }
  if (differs)
    std::fprintf(stderr, "perf: fused: PE %d: %s: the fused result differs from the unfused one; largest "
                 "difference at element %zu: fused %.9g, unfused %.9g, exact %.9g\n", me, name, worst,
                 k.fused_y.at(worst), k.unfused_y.at(worst), fused_expected(&k.c, me, size, worst));
  for (int s = 0; s < kSpotChecks; ++s) {
    const std::size_t i = (n - 1) * s / (kSpotChecks - 1);
    const double want = fused_expected(&k.c, me, size, i);
    if (!fused_close(&k.c, k.unfused_y.at(i), want)) {
      std::fprintf(stderr, "perf: fused: PE %d: %s: the unfused result at element %zu is %.9g, exact %.9g\n", me,
                   name, i, k.unfused_y.at(i), want);
      differs = true;
      break;
    }
  }
  *bad |= differs;
  return max_diff;
}

}  // namespace

extern "C" int tc_perf_fused(int quick, int csv, int reps) {
  const int me = shmem_my_pe(), size = shmem_n_pes();
  const double rep_s = quick ? 0.003 : 0.02;
  if (!quick) reps = std::max(reps, kMinReps);
  try {
    // Window: as perf_ops.cpp sizes it for its largest call (AllGather: the
    // staged input and size() result blocks), over the largest bytes any
    // case hands to a collective.
    std::size_t max_bytes = 0;
    for (int i = 0; i < FUSED_NCASES; ++i) max_bytes = std::max(max_bytes, fused_comm_bytes(&fused_cases[i]));
    tilecomm::CommOptions opts;
    opts.window_bytes = (static_cast<std::size_t>(size) * 2 + 2) * max_bytes + 4096;
    opts.window_bytes = (opts.window_bytes + 127) / 128 * 128;
    tilecomm::Comm comm = tilecomm::Comm::world(opts);
    if (me == 0 && !csv) {
      const char* blas_threads = std::getenv("OPENBLAS_NUM_THREADS");
      std::printf("\nfused operators vs the same work unfused (%d PEs, OPENBLAS_NUM_THREADS=%s; time per call, "
                  "median of %d interleaved repetitions)\n"
                  "shape: AllGatherAdd elements per rank, matmuls m x k x n per rank (fused_cases.h); "
                  "comm share = comm / unfused\n"
                  "%-19s %-5s %-14s %-9s %11s %11s %8s %11s %6s %10s\n", size, blas_threads ? blas_threads : "(unset)",
                  reps, "operator", "type", "shape", "input", "fused us", "unfused us", "ratio", "comm us", "share",
                  "max|diff|");
    }
    bool bad = false;
    for (int run = 0; run < 2 * FUSED_NCASES; ++run) {
      const fused_case& fc = fused_cases[run / 2];
      const bool sym = run % 2;  // the gathering operators again, their input symmetric (read in place)
      if (sym && fc.op != FUSED_ALLGATHER_ADD && fc.op != FUSED_ALLGATHER_MATMUL) continue;
      Case k(comm, fc, sym);
      char name[96];
      fused_name(&k.c, name, sizeof name);
      if (sym) std::strncat(name, "/sym", sizeof name - std::strlen(name) - 1);
      for (auto& run : k.run) run();  // warm-up: caches, page faults, the plans' first rounds
      // Calls per repetition: from one timed unfused call, agreed on PE 0's.
      shmem_barrier_all();
      auto t0 = Clock::now();
      k.run[kUnfused]();
      const double one = seconds(t0);
      const long iters = from_pe0(comm, std::clamp(static_cast<long>(rep_s / std::max(one, 1e-7)), 1L, kMaxIters));
      std::vector<double> us[kVariants];
      for (int r = 0; r < reps; ++r) {
        for (int j = 0; j < kVariants; ++j) {
          const int v = (r + j) % kVariants;
          shmem_barrier_all();
          t0 = Clock::now();
          for (long i = 0; i < iters; ++i) k.run[v]();
          shmem_barrier_all();
          us[v].push_back(seconds(t0) / static_cast<double>(iters) * 1e6);
        }
      }
      const double max_diff = max_over_ranks(comm, check(k, name, me, size, &bad));
      if (me != 0) continue;
      const double fused_us = median(us[kFused]), unfused_us = median(us[kUnfused]), comm_us = median(us[kComm]);
      const std::size_t bytes = fused_comm_bytes(&k.c);
      if (csv) {
        std::printf("%s/fused,%zu,%.3f,us\n%s/unfused,%zu,%.3f,us\n%s/comm,%zu,%.3f,us\n", name, bytes, fused_us, name,
                    bytes, unfused_us, name, bytes, comm_us);
      } else {
        char shape[64];
        std::printf("%-19s %-5s %-14s %-9s %11.1f %11.1f %8.3f %11.1f %5.0f%% %10.3g\n", fused_op_name[k.c.op],
                    fused_type_name[k.c.type], fused_shape(&k.c, shape, sizeof shape), sym ? "symmetric" : "private",
                    fused_us, unfused_us, fused_us / unfused_us, comm_us, 100.0 * comm_us / unfused_us, max_diff);
      }
      std::fflush(stdout);
    }
    // Every rank returns the same verdict, so that PE 0 reports one found elsewhere.
    bad = max_over_ranks(comm, bad ? 1.0 : 0.0) != 0;
    comm.destroy();
    if (bad && me == 0) std::fprintf(stderr, "perf: fused: results differ; see the messages above\n");
    return bad;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perf: fused: PE %d: %s\n", me, e.what());
    shmem_global_exit(1);
  }
  return 1;
}
