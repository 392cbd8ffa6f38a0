// The communicator's operators on ordinary memory (<tilecomm/ops.hpp>), as
// model code calls them: an AllReduce, then a fused AllGatherMatmul timed
// against the same work unfused (the AllGather operator into a temporary,
// then the same BLAS product). Every element of every result is checked
// against its exact value: the inputs are small integers, whose sums and
// products fp32 holds exactly.
//
//   tcrun -n 4 ./comm-operators [M K N]    x1: M x K per rank, x2: K x N (default 256 1024 32)
//
// Prints on rank 0; exits 1 when any rank finds a wrong element.
#include <shmem.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tilecomm/ops.hpp>

namespace {

namespace ops = tilecomm::ops;

// The operands, small integers: x1 of rank r, x2 and bias are the same on every rank.
float x1_at(int r, std::uint64_t row, std::uint64_t col) { return static_cast<float>((r * 7 + row * 3 + col) % 5) - 2; }
float x2_at(std::uint64_t row, std::uint64_t col) { return static_cast<float>((row + 2 * col) % 3) - 1; }
float bias_at(std::uint64_t col) { return static_cast<float>(col % 4); }

// Wrong elements of the AllReduce of in_r[i] = r + i % 7 over n ranks.
std::uint64_t check_allreduce(const std::vector<float>& out, int n) {
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i) bad += out[i] != static_cast<float>(n * (n - 1) / 2 + n * (i % 7));
  return bad;
}

// Wrong elements of y = AllGather(x1) @ x2 + bias (n ranks, y: n*m x cols).
std::uint64_t check_matmul(const std::vector<float>& y, int n, ops::MatmulShape s) {
  std::uint64_t bad = 0;
  for (int r = 0; r < n; ++r)
    for (std::uint64_t i = 0; i < s.m; ++i)
      for (std::uint64_t j = 0; j < s.n; ++j) {
        double want = bias_at(j);
        for (std::uint64_t k = 0; k < s.k; ++k) want += double{x1_at(r, i, k)} * x2_at(k, j);
        bad += y[(r * s.m + i) * s.n + j] != static_cast<float>(want);
      }
  return bad;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times f (a collective call) on every rank; returns the median of reps
// calls in milliseconds, as rank 0 saw it.
template <typename F>
double time_ms(F&& f, int reps) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    shmem_barrier_all();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  ops::MatmulShape s{256, 1024, 32};
  if (argc == 4) s = {std::strtoull(argv[1], nullptr, 0), std::strtoull(argv[2], nullptr, 0),
                      std::strtoull(argv[3], nullptr, 0)};
  if ((argc != 1 && argc != 4) || !s.m || !s.k || !s.n) {
    std::fprintf(stderr, "usage: comm-operators [M K N]  (each at least 1)\n");
    return 2;
  }
  shmem_init();
  std::uint64_t bad = 0;
  try {
    tilecomm::Comm comm = tilecomm::Comm::world();
    const int me = comm.rank(), n = comm.size();

    // AllReduce: fp32 sum of 1 Mi elements, input and output private.
    const std::uint64_t count = 1 << 20;
    std::vector<float> in(count), out(count, -1);
    for (std::uint64_t i = 0; i < count; ++i) in[i] = static_cast<float>(me + i % 7);
    ops::Executor allreduce;
    std::vector<std::byte> ws(ops::AllReduceGetWorkspaceSize(comm, in.data(), out.data(), count, ops::DataType::Fp32,
                                                             ops::ReduceOp::Sum, &allreduce));
    const double t_allreduce = time_ms([&] { ops::AllReduce(ws.data(), ws.size(), &allreduce); }, 5);
    bad += check_allreduce(out, n);
    if (me == 0)
      std::printf("AllReduce: fp32 sum of %llu elements (4 MiB) per rank, %d ranks: %.2f ms, %s\n",
                  static_cast<unsigned long long>(count), n, t_allreduce, bad ? "MISMATCH" : "every element checked");

    // AllGatherMatmul, fused and unfused.
    std::vector<float> x1(s.m * s.k), x2(s.k * s.n), bias(s.n), gathered(n * s.m * s.k);
    std::vector<float> fused(n * s.m * s.n, -1), unfused(n * s.m * s.n, -1);
    for (std::uint64_t i = 0; i < s.m; ++i)
      for (std::uint64_t k = 0; k < s.k; ++k) x1[i * s.k + k] = x1_at(me, i, k);
    for (std::uint64_t k = 0; k < s.k; ++k)
      for (std::uint64_t j = 0; j < s.n; ++j) x2[k * s.n + j] = x2_at(k, j);
    for (std::uint64_t j = 0; j < s.n; ++j) bias[j] = bias_at(j);
    ops::Executor fused_ex, gather_ex;
    ws.resize(std::max(ops::AllGatherMatmulGetWorkspaceSize(comm, x1.data(), x2.data(), bias.data(), fused.data(),
                                                            nullptr, s, ops::DataType::Fp32, &fused_ex),
                       ops::AllGatherGetWorkspaceSize(comm, x1.data(), gathered.data(), s.m * s.k,
                                                      ops::DataType::Fp32, &gather_ex)));
    auto run_fused = [&] { ops::AllGatherMatmul(ws.data(), ws.size(), &fused_ex); };
    auto run_unfused = [&] {
      ops::AllGather(ws.data(), ws.size(), &gather_ex);
      ops::Matmul(gathered.data(), x2.data(), bias.data(), unfused.data(), {n * s.m, s.k, s.n}, ops::DataType::Fp32);
    };
    run_fused();  // first runs: the BLAS loads, pages fault in
    run_unfused();
    std::vector<double> t_fused, t_unfused;
    for (int rep = 0; rep < 9; ++rep) {  // interleaved, so both see the same host
      t_fused.push_back(time_ms(run_fused, 1));
      t_unfused.push_back(time_ms(run_unfused, 1));
    }
    const std::uint64_t bad_fused = check_matmul(fused, n, s), bad_unfused = check_matmul(unfused, n, s);
    bad += bad_fused + bad_unfused;
    if (me == 0) {
      const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
      const double f = median(t_fused), uf = median(t_unfused);
      std::printf("AllGatherMatmul: fp32, x1 %llux%llu per rank, x2 %llux%llu, bias; y %llux%llu on every rank\n"
                  "  fused                          %7.2f ms\n"
                  "  unfused (AllGather, Matmul)    %7.2f ms\n"
                  "  fused / unfused                %7.2f    (medians of 9; both results: %s)\n",
                  u(s.m), u(s.k), u(s.k), u(s.n), u(n * s.m), u(s.n), f, uf, f / uf,
                  bad_fused || bad_unfused ? "MISMATCH" : "every element checked");
    }
    if (bad) std::fprintf(stderr, "comm-operators: rank %d: %llu wrong elements\n", me, static_cast<unsigned long long>(bad));
    comm.destroy();
  } catch (const tilecomm::Error& e) {
    std::fprintf(stderr, "comm-operators: %s\n", e.what());
    bad = 1;
  }
  shmem_finalize();
  return bad != 0;
}
