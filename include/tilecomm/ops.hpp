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
// collectives), in as many rounds as the window requires. An input that
// every rank holds in the same symmetric object (shmem_malloc, at the same
// offset on every rank; a broadcast: on the root) is read in place instead,
// without the copy into the window (half-precision reductions always
// convert; Reduce, and AllReduce of such an input into private outputs,
// still return their result through the window). The first run of a plan
// finds that out with one exchange among the ranks, so a plan's first run
// must happen on every rank together, in the same order of calls, as every
// operator call is collective anyway.
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
// Types: int8, int16, int32, int64, fp16, bf16 (reductions accumulate in
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
#include <memory>
#include <vector>

#include "tilecomm/comm.hpp"

namespace tilecomm::ops {

enum class DataType : std::uint8_t { Int8, Int16, Int32, Int64, Fp16, Bf16, Fp32, Fp64 };
enum class ReduceOp : std::uint8_t { Sum, Prod, Max, Min };
std::size_t size_of(DataType t);
const char* name_of(DataType t);

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

/// A planned call: filled by a GetWorkspaceSize function, run by the
/// matching operator (as often as wanted, while the communicator lives and
/// the buffers it names stay valid).
struct Executor {
  enum class Kind : std::uint8_t {
    None, AllGather, ReduceScatter, AllReduce, Reduce, Broadcast, AllToAll, AllToAllV,
    AllGatherAdd, AllGatherMatmul, MatmulReduceScatter, MatmulAllReduce,
  } kind = Kind::None;
  Comm* comm = nullptr;
  const void* input = nullptr;   // a, x1
  void* output = nullptr;        // c, y
  std::uint64_t count = 0;
  DataType dtype = DataType::Int8;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  std::vector<std::uint64_t> counts;  // AllToAllV: the send-count matrix
  const void* input2 = nullptr;  // b, x2
  const void* bias = nullptr;
  void* gather_out = nullptr;
  MatmulShape shape;
  int tiles = 0;                 // fused matmuls: the tiles chosen
  Moves moves = Moves::Auto;     // fused matmuls: the form planning chose (then never Auto)
  std::uint64_t workspace = 0;
  // Found by the first run: whether every rank's input is the same
  // symmetric object (shmem_malloc), read in place (symmetric_input != 0),
  // whether the outputs lie apart from the input (input_apart: a rank then
  // reads its own shard in its input, not in its staged copy), and, where
  // every run is one library call, that call (NOTE [prepared calls] in
  // src/comm/ops.cpp).
  bool resolved = false;
  bool input_apart = false;
  std::uint64_t symmetric_input = 0;
  std::shared_ptr<const struct PreparedCall> prepared;
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

/// C = A @ B (+ bias) through the same BLAS, row-major, on this rank only:
/// the unfused reference the benchmarks and tests compare with.
void Matmul(const void* a, const void* b, const void* bias, void* c, MatmulShape shape, DataType dtype);

}  // namespace tilecomm::ops
