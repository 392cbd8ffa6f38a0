// Shared by the collective (ops.cpp) and fused (fused.cpp) operators: the
// plan behind an Executor, the names of the calls, the check of a planned
// executor, the first run's agreement among the ranks, window alignment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/access.hpp"
#include "comm/board.hpp"
#include "tilecomm/ops.hpp"

namespace tilecomm::ops {

using Kind = Executor::Kind;

struct PreparedCall;

// NOTE [bound plans] A plan names the communicator it was made for and that
// communicator's number in this process (comm::Access::serial): a run finds
// a destroyed, moved-from or replaced communicator and refuses, so that
// nothing planned for one window (rounds, workspace layout) ever runs on
// another.
struct Executor::Plan {
  Kind kind = Kind::None;
  Comm* comm = nullptr;
  std::uint64_t serial = 0;      // of comm when planned
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
  std::size_t rows = 0;          // fused matmuls: rows per round, as planned
  std::uint64_t workspace = 0;
  comm::Signature sig;           // what every rank must agree on (sign())
  // One-call plans (NOTE [one-call operators]) never read their input in
  // place: their buffers change between runs.
  bool staged_only = false;
  // Found by the first run: whether every rank's input is the same
  // symmetric object (shmem_malloc), read in place (symmetric_input != 0),
  // whether the outputs lie apart from the input (input_apart: a rank then
  // reads its own shard in its input, not in its staged copy), and, where
  // every run is one library call, that call (NOTE [prepared calls] in
  // src/comm/ops.cpp).
  bool resolved = false;
  bool input_apart = false;
  std::uint64_t symmetric_input = 0;
  std::shared_ptr<const PreparedCall> prepared;
};
using Plan = Executor::Plan;

/// "tilecomm::ops::AllGather", ...: the operator's name, for messages.
const char* call_of(Kind k);
/// Throws unless `dtype` is one of the DataType values.
void check_type(DataType dtype, Kind kind);
/// Throws unless `op` is one of the ReduceOp values.
void check_op(ReduceOp op, Kind kind);
/// The plan, once checked to be planned for `kind`, on the communicator it
/// was planned for (NOTE [bound plans]), with a large enough workspace.
Plan& checked(Executor* ex, Kind kind, std::uint64_t workspace_size);
/// Throws unless [p, p + bytes) lies inside the address space (a size
/// computed from a count must not wrap).
void check_range(const void* p, std::uint64_t bytes, const char* what, Kind kind);
/// Whether ranges [x, x + xb) and [y, y + yb) share a byte (checked ranges).
inline bool overlap(std::uint64_t x, std::uint64_t xb, std::uint64_t y, std::uint64_t yb) {
  return xb && yb && x < y + yb && y < x + xb;
}
/// Fills ex.sig from the plan (after planning).
void sign(Plan& ex);

/// NOTE [first run] The exchange of a plan's first run: every rank sends its
/// signature and two words (the symmetric names of its buffers) and gets
/// every rank's words. Ranks whose signatures differ end the call on every
/// rank alike, naming the calls. Inside `scope` (the call on the board).
struct Names {
  std::uint64_t a = 0, b = 0;
};
std::vector<Names> agree(const Plan& ex, Names mine, comm::CallScope& scope);

/// Runs body(scope) as an operator call on the communicator's board (NOTE
/// [call board]); an error leaving it marks the call failed (no cost when
/// none does).
template <class Body>
void as_call(Plan& ex, Body&& body) {
  comm::CallScope scope(comm::Access::board(*ex.comm), ex.sig,
                        ex.resolved ? comm::State::Running : comm::State::Agreeing, call_of(ex.kind));
  try {
    body(scope);
  } catch (...) {
    scope.failed();
    throw;
  }
}

/// Copies a rank's input into its window, for the peers to read, with the
/// stores a coll::PublishStores chose (NOTE [publishing stores]).
void stage(void* window, const void* src, std::size_t bytes, bool streaming);

/// The symmetric id of [p, p + bytes) if every rank's copy of it is mapped
/// here, else 0 (NOTE [inputs in place] in ops.cpp); compare across ranks
/// with agree().
std::uint64_t symmetric_name(const Plan& ex, const void* p, std::uint64_t bytes);
/// Rank r's copy of the symmetric range named `id`.
const std::uint8_t* rank_copy(const Plan& ex, std::uint64_t id, int r);

inline bool is_half(DataType t) { return t == DataType::Fp16 || t == DataType::Bf16; }

/// Areas of a window start on a cache line.
constexpr std::size_t kAlign = 64;
inline std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

}  // namespace tilecomm::ops
