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
// collectives), in as many rounds as the window requires.
//
//   AllGather   output[r * count + i] = input of rank r [i]
//   AllReduce   output[i] = op over the ranks of input[i]
//   Broadcast   output[i] = input of rank `root` [i]
//   AllToAll    output[r * count + i] = input of rank r [me * count + i]
//
// Types: int8, int16, int32, int64, fp16, bf16 (reductions accumulate in
// fp32 and round once, to nearest even), fp32, fp64. Integer sums and
// products wrap. Errors throw tilecomm::Error.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilecomm/comm.hpp"

namespace tilecomm::ops {

enum class DataType : std::uint8_t { Int8, Int16, Int32, Int64, Fp16, Bf16, Fp32, Fp64 };
enum class ReduceOp : std::uint8_t { Sum, Prod, Max, Min };
std::size_t size_of(DataType t);
const char* name_of(DataType t);

/// fp16 and bf16 <-> fp32, rounding to nearest even (NaN stays NaN).
float fp16_to_float(std::uint16_t h);
std::uint16_t float_to_fp16(float f);
float bf16_to_float(std::uint16_t b);
std::uint16_t float_to_bf16(float f);

/// A planned call: filled by a GetWorkspaceSize function, run by the
/// matching operator (as often as wanted, while the communicator lives).
struct Executor {
  enum class Kind : std::uint8_t { None, AllGather, AllReduce, Broadcast, AllToAll } kind = Kind::None;
  Comm* comm = nullptr;
  const void* input = nullptr;
  void* output = nullptr;
  std::uint64_t count = 0;
  DataType dtype = DataType::Int8;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  std::uint64_t workspace = 0;
};

std::uint64_t AllGatherGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, Executor* executor);
void AllGather(void* workspace, std::uint64_t workspace_size, Executor* executor);

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

}  // namespace tilecomm::ops
