// tilecomm-perf, asynchronous part (tilecomm only; perf.c calls it):
// the PTO DMA instructions against a plain memcpy of the same bytes, in the
// same run, on PE 0, reading from PE 1 (from itself with 1 PE).
//
//   async_issue    TGET_ASYNC of 8 bytes: time to post one, 64 per Wait     us
//   async_op       the same, post + share of the Wait: one small op         us
//   memcpy_bw      64 x memcpy of 1 MiB from the peer's mapping             MB/s
//   async_get_bw   64 outstanding 1 MiB TGET_ASYNCs, then one Wait          MB/s
//   overlap        a kernel computes while 64 x 1 MiB gets are in flight:
//                  compute-only, transfer-only and overlapped times (ms),
//                  and the share of the shorter phase hidden by the overlap
//
// The engine thread shares the CPUs the PE may use: with one CPU per PE
// (tcrun -n 2 on 2 CPUs) copies and compute take turns on it, with two
// (tcrun -n 1) the engine copies on the second CPU while the kernel computes.
#include <sched.h>
#include <shmem.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/pto_comm_inst.hpp>
#include <vector>

using namespace pto;

namespace {

constexpr int kOps = 64;                 // operations per Wait (the session's in-flight limit)
constexpr std::size_t kBlock = 1 << 20;  // bytes per large operation
constexpr std::size_t kSmall = 8;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

using ShapeDyn = Shape<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
using StrideDyn = Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
using Bytes = GlobalTensor<std::uint8_t, ShapeDyn, StrideDyn, Layout::ND>;
using ScratchTile = Tile<TileType::Vec, std::uint8_t, 1, comm::sdma::UB_ALIGN_SIZE>;

Bytes flat(std::uint8_t* p, std::size_t n) {
  auto len = static_cast<int>(n);
  return Bytes(p, ShapeDyn(1, 1, 1, 1, len), StrideDyn(len, len, len, len, 1));
}

struct Run {
  std::uint8_t* dst;        // local
  std::uint8_t* src;        // the peer's buffer, as mapped here
  std::uint8_t* workspace;
  int rounds;
  double post = 0, total = 0;  // seconds
  bool ok = true;
};

/// `rounds` x (kOps gets of `bytes`, one Wait); post = time spent posting.
void gets(Run& r, std::size_t bytes) {
  ScratchTile scratch;
  TASSIGN(scratch, 0);
  comm::AsyncSession session;
  if (!comm::BuildAsyncSession(scratch, r.workspace, session)) {
    fprintf(stderr, "perf: BuildAsyncSession: %s\n", session.lastError());
    r.ok = false;
    return;
  }
  auto t0 = Clock::now();
  for (int k = 0; k < r.rounds; ++k) {
    auto p0 = Clock::now();
    comm::AsyncEvent last;
    for (int i = 0; i < kOps; ++i) {
      Bytes d = flat(r.dst + i * bytes, bytes), s = flat(r.src + i * bytes, bytes);
      last = comm::TGET_ASYNC(d, s, session);
    }
    r.post += seconds_since(p0);
    r.ok &= last.valid() && last.Wait(session);
  }
  r.total = seconds_since(t0);
}

/// Floating-point work on a private, cache-resident array: `iters` passes.
volatile float g_sink;
void compute(int iters) {
  static thread_local std::vector<float> a(16384, 1.0f);
  float acc = 0;
  for (int k = 0; k < iters; ++k)
    for (float& x : a) x = x * 0.999f + 0.001f, acc += x;
  g_sink = acc;
}

struct Overlap {
  Run* run;
  int iters;
  double t = 0;
};
void overlapped(Overlap& o) {
  ScratchTile scratch;
  TASSIGN(scratch, 0);
  comm::AsyncSession session;
  if (!comm::BuildAsyncSession(scratch, o.run->workspace, session)) return void(o.run->ok = false);
  auto t0 = Clock::now();
  comm::AsyncEvent last;
  for (int i = 0; i < kOps; ++i) {
    Bytes d = flat(o.run->dst + i * kBlock, kBlock), s = flat(o.run->src + i * kBlock, kBlock);
    last = comm::TGET_ASYNC(d, s, session);
  }
  compute(o.iters);
  o.run->ok &= last.Wait(session);
  o.t = seconds_since(t0);
}

void row(bool csv, const char* name, const char* what, const char* size, double v, const char* unit) {
  if (csv) printf("%s,%s,%.6g,%s\n", name, size, v, unit);
  else printf("%-16s %-52s %7s %12.3f %-5s\n", name, what, size, v, unit);
}

}  // namespace

extern "C" int tc_perf_async(int quick, int csv, int reps) {
  const int me = shmem_my_pe(), npes = shmem_n_pes(), peer = npes > 1 ? 1 : 0;
  const std::size_t bytes = kOps * kBlock;
  auto* src = static_cast<std::uint8_t*>(shmem_malloc(bytes));
  if (!src) {
    if (me == 0) fprintf(stderr, "perf: shmem_malloc(%zu) failed; raise SHMEM_SYMMETRIC_SIZE\n", bytes);
    return 1;
  }
  for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<std::uint8_t>(i * 131 + me * 7 + 1);
  shmem_barrier_all();
  int failed = 0;
  if (me == 0) {
    comm::sdma::SdmaWorkspaceManager mgr;
    std::vector<std::uint8_t> dst(bytes, 0);
    if (!mgr.Init()) {
      fprintf(stderr, "perf: %s\n", mgr.LastError());
      failed = 1;
    } else {
      cpu_set_t set;
      sched_getaffinity(0, sizeof set, &set);
      Run r{dst.data(), static_cast<std::uint8_t*>(shmem_ptr(src, peer)),
            static_cast<std::uint8_t*>(mgr.GetWorkspaceAddr()), quick ? 20 : 200};
      if (!csv)
        printf("# async (PTO DMA instructions on the SDMA engine), PE 0 <- PE %d, %d CPUs for PE 0, median of %d\n",
               peer, CPU_COUNT(&set), reps);
      std::vector<double> issue, op, copy, async, tc, tt, to;
      const int big_rounds = quick ? 2 : 8;
      for (int k = 0; k < reps; ++k) {
        Run s = r;
        launch(1, gets, s, kSmall);
        issue.push_back(s.post / (s.rounds * kOps) * 1e6);
        op.push_back(s.total / (s.rounds * kOps) * 1e6);
        r.ok &= s.ok;

        auto c0 = Clock::now();
        for (int j = 0; j < big_rounds; ++j)
          for (int i = 0; i < kOps; ++i) std::memcpy(r.dst + i * kBlock, r.src + i * kBlock, kBlock);
        copy.push_back(double(bytes) * big_rounds / seconds_since(c0) / 1e6);

        std::memset(r.dst, 0, bytes);
        Run b = r;
        b.rounds = big_rounds;
        launch(1, gets, b, kBlock);
        async.push_back(double(bytes) * big_rounds / b.total / 1e6);
        r.ok &= b.ok && std::memcmp(r.dst, r.src, bytes) == 0;
      }
      // Overlap: compute sized to about the transfer time.
      Run t = r;
      t.rounds = 1;
      launch(1, gets, t, kBlock);
      auto c0 = Clock::now();
      compute(10);
      double per_iter = seconds_since(c0) / 10;
      int iters = std::max(1, static_cast<int>(t.total / per_iter));
      for (int k = 0; k < reps; ++k) {
        auto a0 = Clock::now();
        launch(1, [&] { compute(iters); });
        tc.push_back(seconds_since(a0) * 1e3);
        Run x = r;
        x.rounds = 1;
        auto b0 = Clock::now();
        launch(1, gets, x, kBlock);
        tt.push_back(seconds_since(b0) * 1e3);
        Overlap o{&r, iters};
        auto o0 = Clock::now();
        launch(1, overlapped, o);
        to.push_back(seconds_since(o0) * 1e3);
      }
      double mc = median(copy), ma = median(async), c = median(tc), x = median(tt), o = median(to);
      row(csv, "async_issue", "TGET_ASYNC 8 B: post one (64 per Wait)", "8 B", median(issue), "us");
      row(csv, "async_op", "TGET_ASYNC 8 B: post + share of the Wait", "8 B", median(op), "us");
      row(csv, "memcpy_bw", "64 x memcpy 1 MiB from the peer's mapping", "1 MiB", mc, "MB/s");
      row(csv, "async_get_bw", "64 x TGET_ASYNC 1 MiB in flight, one Wait", "1 MiB", ma, "MB/s");
      row(csv, "async_vs_memcpy", "async_get_bw / memcpy_bw (target >= 0.8)", "1 MiB", ma / mc, "x");
      row(csv, "overlap_compute", "kernel compute only", "64 MiB", c, "ms");
      row(csv, "overlap_transfer", "64 x 1 MiB TGET_ASYNC + Wait only", "64 MiB", x, "ms");
      row(csv, "overlap_both", "gets in flight while the kernel computes", "64 MiB", o, "ms");
      row(csv, "overlap_hidden", "(compute + transfer - both) / min(compute, transfer)", "64 MiB",
          (c + x - o) / std::min(c, x), "x");
      if (!r.ok) {
        fprintf(stderr, "perf: async data checks failed; the async numbers are not valid\n");
        failed = 1;
      }
    }
  }
  shmem_barrier_all();
  shmem_free(src);
  return failed;
}
