// Collective operators on a communicator, in the two phases of the ACLNN
// host API that seed 002's operators use:
//
//   tilecomm::ops::Executor ex;
//   std::uint64_t ws = tilecomm::ops::AllReduceGetWorkspaceSize(comm, in, out, count,
//                                                                DataType::Fp16, ReduceOp::Sum, &ex);
//   std::vector<std::byte> workspace(ws);
//   tilecomm::ops::AllReduce(workspace.data(), ws, &ex);
//
// The first call checks the arguments, plans the call and returns the
// workspace it needs; the second runs it (collective: every rank of the
// communicator, in the same order). Inputs and outputs are this rank's
// ordinary memory; the data travel through the communicator's windows and
// the collective-algorithm library (the algorithms of the OpenSHMEM
// collectives), in as many rounds as the window requires (how an operator
// uses the window: <tilecomm/comm.hpp>, "Windows"). An input that
// every rank holds in the same symmetric object (shmem_malloc, at the same
// offset on every rank; a broadcast: on the root) is read in place instead,
// without the copy into the window (half-precision reductions always
// convert; Reduce, and AllReduce of such an input into private outputs,
// still return their result through the window). The first run of a plan
// finds that out with one exchange among the ranks, so a plan's first run
// must happen on every rank together, in the same order of calls, as every
// operator call is collective anyway.
//
// Misuse is caught by default, at no cost per call, where a call passes a
// point at which the ranks meet anyway; TILECOMM_CHECK=1 catches the rest:
// - The first run's exchange compares the whole call (operator, count or
//   shapes, type, operation, root, count matrix, bias and gather_out given
//   or not, MatmulOptions as planned): where the ranks' calls differ, every
//   rank throws, naming each rank's call, and the communicator stays usable.
// - A rank waiting inside a call (past the spin of its wait) watches its
//   peers: one that runs another
//   call as the same call number, destroys the communicator or is in
//   shmem_finalize without having made this call, or failed, ends the wait
//   with an error naming both (NOTE [call board] in src/comm/board.hpp).
//   Plans that agreed on their first run and later run against each other
//   (100 elements on one rank, 101 on another) are seen only when a rank
//   waits long enough: such a call may return with wrong data.
// - A wait that lasts TILECOMM_COMM_TIMEOUT (600 s by default) throws a
//   Timeout naming the ranks that have not started the call and what they
//   did last: an operator called on some ranks only. TILECOMM_TIMEOUT,
//   when lower, bounds every wait as before.
// - A plan run on another communicator than it was made for (the one it
//   named was destroyed, moved from or replaced) refuses to run.
// - TILECOMM_CHECK=1 compares every library call of every run besides: the
//   rest, at the cost of one more exchange per library call.
// Errors inside a call throw tilecomm::Error; after one that is not found
// alike on every rank the communicator is failed on that rank: its later
// calls throw, and destroying it does not wait for the others.
//
//   AllGather      output[r * count + i] = input of rank r [i]
//   ReduceScatter  output[i] = op over the ranks r of input_r[me * count + i]
//   AllReduce      output[i] = op over the ranks r of input_r[i]
//   Reduce         the same, written on rank `root` only
//   Broadcast      output[i] = input of rank `root` [i]
//   AllToAll       output[r * count + i] = input of rank r [me * count + i]
//   AllToAllV      as AllToAll with counts[s * size() + d] elements from s to d
//
// An output may share bytes with its rank's input only as the input itself
// (AllReduce; Reduce and Broadcast on the root; AllToAll) or in the in-place
// layouts input == output + rank * count (AllGather) and output == input +
// rank * count (ReduceScatter); the planner refuses any other overlap (an
// AllToAllV's buffers must be disjoint).
//
// Types: int8..int64, uint8..uint64, fp16, bf16 (reductions accumulate in
// fp32 and round once, to nearest even), fp32, fp64. Integer sums and
// products wrap; reductions combine the ranks in rank order, so every rank
// gets the same bits. Errors throw tilecomm::Error.
//
// Fused operators (seed 002's MC2 operators), row-major matrices, the
// products through OpenBLAS, loaded by the first product (fp16 and bf16 are
// converted to fp32 and back, rounding once):
//
//   AllGatherAdd         c = AllGather(a) + b           a: count, b and c: size() * count
//   AllGatherMatmul      y = AllGather(x1) @ x2 + bias  x1: m x k, x2: k x n, y: size()*m x n;
//                        gather_out (optional): AllGather(x1), size()*m x k
//   MatmulReduceScatter  y = rows me*m/size().. of the sum over ranks of x1 @ x2, + bias
//                        x1: m x k, x2: k x n, y: m/size() x n (m a multiple of size())
//   MatmulAllReduce      y = the sum over ranks of x1 @ x2, + bias    y: m x n
//
// Aliasing: AllGatherAdd's c may hold a exactly in one rank's slot (a == c
// + j * count) and b in place (b == c); AllGatherMatmul's gather_out may
// hold x1 in one rank's slot (x1 == gather_out + j * m * k); any other
// overlap of an output with an input, or of y with gather_out, is refused.
// Matmul operators take fp16, bf16, fp32 and fp64, AllGatherAdd every type.
// Every rank passes bias and gather_out, or none does.
//
// bias (n elements, optional) is added once: to each product row of
// AllGatherMatmul, and to each row of the sum of the others, where the
// reducing operators expect the same bias (or none) on every rank, as a
// replicated layer bias is: each rank adds its copy to the rows it sums.
// None of them materialises the gathered or unreduced matrix where it need
// not: AllGatherMatmul and AllGatherAdd read the peers' shards in place in
// their windows, or, when every rank passes the same symmetric object as
// its shard, in the peers' copies of it (nothing staged); AllGatherMatmul
// moves the weights instead where they are smaller than a shard (Moves);
// the Matmul* operators compute straight into the window, in row tiles the
// peers reduce as they complete (MatmulOptions::tiles), or move x1's rows
// and x2 instead where those are smaller than the product rows (Moves).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "tilecomm/comm.hpp"

namespace tilecomm::ops {

enum class DataType : std::uint8_t { Int8, Int16, Int32, Int64, Fp16, Bf16, Fp32, Fp64, Uint8, Uint16, Uint32, Uint64 };
/// Avg: the sum divided by size() (integers: rounded toward zero, after a
/// sum that wraps; fp16 and bf16: divided in fp32 before the one rounding).
enum class ReduceOp : std::uint8_t { Sum, Prod, Max, Min, Avg };
std::size_t size_of(DataType t);
const char* name_of(DataType t);
const char* name_of(ReduceOp op);

/// fp16 and bf16 <-> fp32, rounding to nearest even (NaN stays NaN).
float fp16_to_float(std::uint16_t h);
std::uint16_t float_to_fp16(float f);
inline float bf16_to_float(std::uint16_t b) {
  const std::uint32_t x = std::uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>(x >> 16 | 0x40u);  // quiet NaN
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

/// Row-major matrix shapes of a fused matmul operator (see above).
struct MatmulShape {
  std::uint64_t m = 0, k = 0, n = 0;
};

/// What a fused matmul operator moves between the ranks; each operator has
/// two forms, and Auto takes the second on more than one rank where what
/// it moves is smaller and fits the window.
/// AllGatherMatmul. Shards: every rank reads every rank's x1 shard (the
/// TileXR order). Weights: every rank reads every rank's x2 instead,
/// multiplies its own shard by all of them in one product, and every rank
/// takes its columns of the others' products; no shard travels, so it
/// cannot fill gather_out. Auto: Weights where x2 and one product block
/// are smaller than a shard, (k + m) * n < m * k, and without gather_out.
/// MatmulReduceScatter, MatmulAllReduce. Products: each rank's product
/// rows travel to the rank that sums them. Operands: each rank computes
/// its rows of the sum from every rank's x1 rows and x2 instead, summing
/// the products in the same order (the same bits). Auto: Operands where
/// they are smaller than the product rows, k * (m + rounds * size() * n)
/// < m * n, with x2 counted once per round of the window.
enum class Moves : std::uint8_t { Auto, Shards, Weights, Products, Operands };
const char* name_of(Moves m);  // "auto", "shards", "weights", "products", "operands"

/// Tuning of the fused matmul operators. tiles: the row tiles each block of
/// a round is cut into, the unit a rank announces to the others, at most
/// one row each (0: the cost model of docs/ARCHITECTURE.md, "The
/// communicator face"). moves: the form (see Moves).
struct MatmulOptions {
  int tiles = 0;
  Moves moves = Moves::Auto;
};

/// A planned call: made by a GetWorkspaceSize function, run by the matching
/// operator, as often as wanted while the communicator it was planned for
/// lives and the buffers it names stay valid. A plan is bound to that
/// communicator: run after the communicator was destroyed, moved from or
/// replaced (even by one with the same address), it refuses to run (plan
/// again). Move-only; its fields are the library's.
class Executor {
 public:
  enum class Kind : std::uint8_t {
    None, AllGather, ReduceScatter, AllReduce, Reduce, Broadcast, AllToAll, AllToAllV,
    AllGatherAdd, AllGatherMatmul, MatmulReduceScatter, MatmulAllReduce,
  };
  struct Plan;

  Executor();
  ~Executor();
  Executor(Executor&&) noexcept;
  Executor& operator=(Executor&&) noexcept;

  /// The operator planned (None until a GetWorkspaceSize succeeded).
  Kind kind() const;
  DataType dtype() const;
  int root() const;
  /// Bytes of workspace the operator needs.
  std::uint64_t workspace() const;
  /// Fused matmuls: the form and the row tiles planning chose.
  Moves moves() const;
  int tiles() const;
  /// Found by the first run: every rank's input is the same symmetric
  /// object, read in place; every run is one library call.
  bool reads_in_place() const;
  bool one_call() const;

  Plan* plan() const { return plan_.get(); }  // the library's
  Plan& reset();                              // the library's: a fresh, unplanned plan

 private:
  std::unique_ptr<Plan> plan_;
};

std::uint64_t AllGatherGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, Executor* executor);
void AllGather(void* workspace, std::uint64_t workspace_size, Executor* executor);

/// input: size() * count elements; output: count.
std::uint64_t ReduceScatterGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                            DataType dtype, ReduceOp op, Executor* executor);
void ReduceScatter(void* workspace, std::uint64_t workspace_size, Executor* executor);

/// output matters on the root only (may be null elsewhere).
std::uint64_t ReduceGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                     DataType dtype, ReduceOp op, int root, Executor* executor);
void Reduce(void* workspace, std::uint64_t workspace_size, Executor* executor);

std::uint64_t AllReduceGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, ReduceOp op, Executor* executor);
void AllReduce(void* workspace, std::uint64_t workspace_size, Executor* executor);

/// input matters on the root only; output is written on every rank, the
/// root included (input and output may be the same there).
std::uint64_t BroadcastGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, int root, Executor* executor);
void Broadcast(void* workspace, std::uint64_t workspace_size, Executor* executor);

/// count elements per peer: input and output hold size() * count elements.
std::uint64_t AllToAllGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                       DataType dtype, Executor* executor);
void AllToAll(void* workspace, std::uint64_t workspace_size, Executor* executor);

/// counts: size() * size() elements, the same on every rank; counts[s *
/// size() + d] elements go from rank s to rank d. input: this rank's blocks
/// by destination, packed; output: the received blocks by source, packed.
std::uint64_t AllToAllVGetWorkspaceSize(Comm& comm, const void* input, void* output, const std::uint64_t* counts,
                                        DataType dtype, Executor* executor);
void AllToAllV(void* workspace, std::uint64_t workspace_size, Executor* executor);

// ---- fused operators (see the top of this file) ----

std::uint64_t AllGatherAddGetWorkspaceSize(Comm& comm, const void* a, const void* b, void* c, std::uint64_t count,
                                           DataType dtype, Executor* executor);
void AllGatherAdd(void* workspace, std::uint64_t workspace_size, Executor* executor);

/// Matmul operators take fp16, bf16, fp32 and fp64; bias and gather_out may be null.
std::uint64_t AllGatherMatmulGetWorkspaceSize(Comm& comm, const void* x1, const void* x2, const void* bias, void* y,
                                              void* gather_out, MatmulShape shape, DataType dtype,
                                              Executor* executor, const MatmulOptions& options = {});
void AllGatherMatmul(void* workspace, std::uint64_t workspace_size, Executor* executor);

std::uint64_t MatmulReduceScatterGetWorkspaceSize(Comm& comm, const void* x1, const void* x2, const void* bias,
                                                  void* y, MatmulShape shape, DataType dtype, Executor* executor,
                                                  const MatmulOptions& options = {});
void MatmulReduceScatter(void* workspace, std::uint64_t workspace_size, Executor* executor);

std::uint64_t MatmulAllReduceGetWorkspaceSize(Comm& comm, const void* x1, const void* x2, const void* bias, void* y,
                                              MatmulShape shape, DataType dtype, Executor* executor,
                                              const MatmulOptions& options = {});
void MatmulAllReduce(void* workspace, std::uint64_t workspace_size, Executor* executor);

// ---- one call, and non-blocking ----
//
//   tilecomm::ops::AllReduce(comm, in, out, count, DataType::Fp32, ReduceOp::Sum);
//   tilecomm::ops::Request r = tilecomm::ops::Start(comm, [&] {
//     tilecomm::ops::AllReduce(comm, in, out, count, DataType::Fp32, ReduceOp::Sum);
//   });
//   ... compute ...
//   r.wait();
//
// Each operator in one call, as NCCL and HCCL offer them: the call plans,
// then runs the plan the communicator keeps for the call's signature
// (operator, count or shapes, type, operation, root, options, bias and
// gather_out given or not; up to 64 signatures, the least recently used
// going first), so a repeated call pays its planning and its first-run
// exchange once (NOTE [one-call operators] in src/comm/calls.cpp). These
// plans bring their own workspace and always stage their inputs: a
// symmetric input is read in place by a two-phase plan only.
//
// Start runs a call (typically one-call operators on `comm`) on the
// communicator's worker thread, after the calls started before it, and
// returns at once; test() says whether it finished and wait() waits, both
// rethrowing its error. Buffers must stay valid until then. An operator
// called on the communicator from any other thread first waits for every
// started call, so each rank's calls keep their program order. Other
// threads may meanwhile compute, or use tilecomm as the process's thread
// level allows (SHMEM_THREAD_MULTIPLE for OpenSHMEM calls from several
// threads at once).

void AllGather(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype);
void ReduceScatter(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, ReduceOp op);
void AllReduce(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, ReduceOp op);
void Reduce(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, ReduceOp op, int root);
void Broadcast(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, int root);
void AllToAll(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype);
void AllToAllV(Comm& comm, const void* input, void* output, const std::uint64_t* counts, DataType dtype);
void AllGatherAdd(Comm& comm, const void* a, const void* b, void* c, std::uint64_t count, DataType dtype);
void AllGatherMatmul(Comm& comm, const void* x1, const void* x2, const void* bias, void* y, void* gather_out,
                     MatmulShape shape, DataType dtype, const MatmulOptions& options = {});
void MatmulReduceScatter(Comm& comm, const void* x1, const void* x2, const void* bias, void* y, MatmulShape shape,
                         DataType dtype, const MatmulOptions& options = {});
void MatmulAllReduce(Comm& comm, const void* x1, const void* x2, const void* bias, void* y, MatmulShape shape,
                     DataType dtype, const MatmulOptions& options = {});

/// A started call (Start).
class Request {
 public:
  struct State;
  /// Whether the call finished; rethrows its error.
  bool test();
  /// Waits until the call finished; rethrows its error.
  void wait();
  bool valid() const { return state_ != nullptr; }

 private:
  friend class CommState;
  std::shared_ptr<State> state_;
};
Request Start(Comm& comm, std::function<void()> call);

/// C = A @ B (+ bias) through the same BLAS, row-major, on this rank only:
/// the unfused reference the benchmarks and tests compare with.
void Matmul(const void* a, const void* b, const void* bias, void* c, MatmulShape shape, DataType dtype);

}  // namespace tilecomm::ops
