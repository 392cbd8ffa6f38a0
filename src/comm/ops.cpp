// The collective operators (<tilecomm/ops.hpp>): each round stages this
// rank's slice of the input into its window (unless the input is read in
// place: NOTE [inputs in place]), runs the library's collective with the
// window as source (coll::Region: every rank of the host maps it) and
// either writes the result straight into the caller's output (when peers
// never read it: Args::dest_private) or through the window, then copies it
// out. The library's calls return only once every peer finished reading this
// rank's window, so the next round, launch or operator may reuse it.
#include "tilecomm/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "coll/algorithm.hpp"
#include "comm/ops_plan.hpp"
#include "core/copy.hpp"
#include "core/error.hpp"

namespace tilecomm::ops {

std::size_t size_of(DataType t) {
  switch (t) {
    case DataType::Int8: return 1;
    case DataType::Int16: case DataType::Fp16: case DataType::Bf16: return 2;
    case DataType::Int32: case DataType::Fp32: return 4;
    case DataType::Int64: case DataType::Fp64: return 8;
  }
  return 0;
}

const char* name_of(DataType t) {
  static const char* const names[] = {"int8", "int16", "int32", "int64", "fp16", "bf16", "fp32", "fp64"};
  const auto i = static_cast<unsigned>(t);
  return i < 8 ? names[i] : "(invalid type)";
}

const char* name_of(Moves m) {
  static const char* const names[] = {"auto", "shards", "weights", "products", "operands"};
  const auto i = static_cast<unsigned>(m);
  return i < 5 ? names[i] : "(invalid form)";
}

// ---- fp16 and bf16 ----------------------------------------------------------------------

float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  }
  const std::uint32_t x = exp == 31 ? sign | 0x7f800000u | mant << 13 : sign | (exp + 112) << 23 | mant << 13;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

std::uint16_t float_to_fp16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (mag >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and above round to infinity
  if (mag < 0x38800000u) {                        // below 2^-14: a subnormal (or zero)
    float a;
    std::memcpy(&a, &mag, sizeof a);
    return sign | static_cast<std::uint16_t>(std::nearbyint(a * 16777216.0f));  // units of 2^-24, to even
  }
  std::uint32_t h = ((mag >> 23) - 112) << 10 | (mag & 0x7fffffu) >> 13;
  const std::uint32_t rest = mag & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;  // a carry into the exponent is right
  return sign | static_cast<std::uint16_t>(h);
}


const char* call_of(Executor::Kind k) {
  using K = Executor::Kind;
  switch (k) {
    case K::AllGather: return "tilecomm::ops::AllGather";
    case K::ReduceScatter: return "tilecomm::ops::ReduceScatter";
    case K::AllReduce: return "tilecomm::ops::AllReduce";
    case K::Reduce: return "tilecomm::ops::Reduce";
    case K::Broadcast: return "tilecomm::ops::Broadcast";
    case K::AllToAll: return "tilecomm::ops::AllToAll";
    case K::AllToAllV: return "tilecomm::ops::AllToAllV";
    case K::AllGatherAdd: return "tilecomm::ops::AllGatherAdd";
    case K::AllGatherMatmul: return "tilecomm::ops::AllGatherMatmul";
    case K::MatmulReduceScatter: return "tilecomm::ops::MatmulReduceScatter";
    case K::MatmulAllReduce: return "tilecomm::ops::MatmulAllReduce";
    case K::None: break;
  }
  return "tilecomm::ops";
}

Executor& checked(Executor* ex, Executor::Kind kind, std::uint64_t workspace_size) {
  if (!ex || ex->kind != kind)
    raise(ErrorCode::InvalidUsage, "%s: the executor was not planned by %sGetWorkspaceSize", call_of(kind),
          call_of(kind));
  if (workspace_size < ex->workspace)
    raise(ErrorCode::InvalidUsage, "%s: the workspace has %llu bytes; the plan needs %llu", call_of(kind),
          static_cast<unsigned long long>(workspace_size), static_cast<unsigned long long>(ex->workspace));
  return *ex;
}

void check_type(DataType dtype, Executor::Kind kind) {
  if (static_cast<unsigned>(dtype) > static_cast<unsigned>(DataType::Fp64))
    raise(ErrorCode::InvalidUsage, "%s: data type %u is not one of int8..fp64", call_of(kind),
          static_cast<unsigned>(dtype));
}

// NOTE [staging stores] The peers read a staged copy next, so its stores
// are chosen as the library chooses those of what it publishes (NOTE
// [publishing stores] in src/coll/copy.cpp), per kind of operator.
void stage(void* window, const void* src, std::size_t bytes, bool streaming) {
  coll::copy(window, src, bytes, streaming);
}

std::uint64_t common_symmetric(const Executor& ex, const void* p, std::uint64_t bytes) {
  const transport::ShmTransport& shm = shmem::g_runtime->shm();
  tilecomm_team* team = ex.comm->team();
  std::uint64_t mine = bytes ? shm.symmetric_id(p, bytes) : 0;
  for (int r = 0; mine && r < team->size; ++r)
    if (!shm.translate(p, bytes, team->world(r))) mine = 0;  // a rank whose copy is not mapped here
  std::vector<std::uint64_t> all(team->size);
  coll::exchange(team, &mine, sizeof mine, all.data(), call_of(ex.kind));
  return std::all_of(all.begin(), all.end(), [&](std::uint64_t id) { return id == all[0]; }) ? all[0] : 0;
}

const std::uint8_t* rank_copy(const Executor& ex, std::uint64_t id, int r) {
  const transport::ShmTransport& shm = shmem::g_runtime->shm();
  return reinterpret_cast<const std::uint8_t*>(shm.translate(shm.symmetric_address(id), ex.comm->team()->world(r)));
}

namespace {

using Kind = Executor::Kind;

bool reduces(Kind k) { return k == Kind::AllReduce || k == Kind::Reduce || k == Kind::ReduceScatter; }
bool half_reduce(const Executor& ex) { return reduces(ex.kind) && is_half(ex.dtype); }
// Bytes of an element in the window: half-precision reductions travel as fp32.
std::size_t wire_size(const Executor& ex) { return half_reduce(ex) ? 4 : size_of(ex.dtype); }

coll::DType coll_type(DataType t) {
  switch (t) {
    case DataType::Int8: return coll::DType::Int8;
    case DataType::Int16: return coll::DType::Int16;
    case DataType::Int32: return coll::DType::Int32;
    case DataType::Int64: return coll::DType::Int64;
    case DataType::Fp16: case DataType::Bf16: case DataType::Fp32: return coll::DType::Float;
    case DataType::Fp64: return coll::DType::Double;
  }
  return coll::DType::Int8;
}

coll::Op coll_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return coll::Op::Sum;
    case ReduceOp::Prod: return coll::Op::Prod;
    case ReduceOp::Max: return coll::Op::Max;
    case ReduceOp::Min: return coll::Op::Min;
  }
  return coll::Op::Sum;
}

// n elements of the caller's type into the window's, and back.
void to_wire(const Executor& ex, void* dst, const void* src, std::size_t n, bool streaming) {
  if (!half_reduce(ex)) return stage(dst, src, n * size_of(ex.dtype), streaming);
  const auto* s = static_cast<const std::uint16_t*>(src);
  auto* d = static_cast<float*>(dst);
  for (std::size_t i = 0; i < n; ++i) d[i] = ex.dtype == DataType::Fp16 ? fp16_to_float(s[i]) : bf16_to_float(s[i]);
}

void from_wire(const Executor& ex, void* dst, const void* src, std::size_t n) {
  if (!half_reduce(ex)) return copy_bytes(dst, src, n * size_of(ex.dtype));
  const auto* s = static_cast<const float*>(src);
  auto* d = static_cast<std::uint16_t*>(dst);
  for (std::size_t i = 0; i < n; ++i) d[i] = ex.dtype == DataType::Fp16 ? float_to_fp16(s[i]) : float_to_bf16(s[i]);
}

// Whether an AllReduce's rounds reduce the staged input straight into the
// output: the library may overwrite the staged copy to publish its slices
// (coll::Args::source_scratch), so the result needs no window area and no
// copy out. Not where the input is read in place, which must stay as it is,
// nor for half precision, whose fp32 result is converted back. Only known
// once the plan is resolved (NOTE [inputs in place]).
bool reduces_into_output(const Executor& ex) {
  return ex.kind == Kind::AllReduce && ex.resolved && !ex.symmetric_input && !half_reduce(ex);
}

// Elements per rank (per peer for AllToAll) that one round moves: the
// window holds the staged input and, where needed, the result.
std::uint64_t per_round(const Executor& ex, const CommArgs& a) {
  const std::uint64_t n = static_cast<std::uint64_t>(a.rankSize), e = wire_size(ex);
  const std::uint64_t usable = a.windowBytes - kAlign;  // the result area starts on a line
  switch (ex.kind) {
    case Kind::AllGather: case Kind::ReduceScatter: return usable / ((n + 1) * e);
    case Kind::AllReduce: case Kind::Reduce: return reduces_into_output(ex) ? a.windowBytes / e : usable / (2 * e);
    case Kind::Broadcast: return a.windowBytes / e;
    case Kind::AllToAll: case Kind::AllToAllV: return usable / (2 * n * e);
    default: return 0;  // the fused operators plan their own rounds (fused.cpp)
  }
}

void check_aliasing(const Executor& ex, const CommArgs& a);

std::uint64_t plan(Executor* ex, Kind kind, Comm& comm, const void* input, void* output, std::uint64_t count,
                   DataType dtype) {
  const char* call = call_of(kind);
  if (!ex) raise(ErrorCode::InvalidUsage, "%sGetWorkspaceSize: the executor pointer is null", call);
  *ex = Executor{};  // unplanned until every check passed: a failed plan cannot be run
  check_type(dtype, kind);
  const CommArgs& a = comm.args();  // throws for a destroyed communicator
  const bool blocked = kind == Kind::AllGather || kind == Kind::AllToAll || kind == Kind::ReduceScatter ||
                       kind == Kind::AllToAllV;
  std::uint64_t bytes;
  if (__builtin_mul_overflow(count, (blocked ? a.rankSize : 1) * size_of(dtype), &bytes))
    raise(ErrorCode::InvalidUsage, "%s: %llu elements of %s per rank overflow 64 bits", call,
          static_cast<unsigned long long>(count), name_of(dtype));
  // The root's input of a broadcast and output of a reduce are checked by their planners.
  const bool output_needed = kind != Kind::Reduce, input_needed = kind != Kind::Broadcast;
  if (count && ((output_needed && !output) || (input_needed && !input)))
    raise(ErrorCode::InvalidUsage, "%s: %s is null for a call of %llu elements", call,
          output_needed && !output ? "output" : "input", static_cast<unsigned long long>(count));
  Executor planned;
  planned.kind = kind;
  planned.comm = &comm;
  planned.input = input;
  planned.output = output;
  planned.count = count;
  planned.dtype = dtype;
  if (count && per_round(planned, a) == 0)
    raise(ErrorCode::InvalidUsage, "%s: the communicator's window (CommOptions::window_bytes=%llu) cannot hold one "
          "element of %s per rank for this operator; use a larger window", call,
          static_cast<unsigned long long>(a.windowBytes), name_of(dtype));
  if (kind != Kind::AllToAllV) check_aliasing(planned, a);  // AllToAllV's planner checks its own
  *ex = std::move(planned);
  return ex->workspace;  // the collective operators work in the windows
}

// The library call of one round.
coll::Args args_for(const Executor& ex, coll::Kind kind, const coll::Region& region, const void* src, void* dst,
                    std::uint64_t count, bool dest_private) {
  coll::Args a;
  a.kind = kind;
  a.source = src;
  a.dest = dst;
  a.count = count;
  a.elem = wire_size(ex);
  a.dtype = coll_type(ex.dtype);
  a.op = coll_op(ex.op);
  a.root = ex.root;
  a.call = call_of(ex.kind);
  a.region = &region;
  a.dest_private = dest_private;
  return a;
}

// Bytes of rank r's input a call reads.
std::uint64_t input_bytes(const Executor& ex, const CommArgs& a, int r) {
  const std::uint64_t e = size_of(ex.dtype), n = a.rankSize;
  switch (ex.kind) {
    case Kind::AllGather: case Kind::AllReduce: case Kind::Reduce: return ex.count * e;
    case Kind::Broadcast: return r == ex.root ? ex.count * e : 0;
    case Kind::ReduceScatter: case Kind::AllToAll: return n * ex.count * e;
    case Kind::AllToAllV: {
      std::uint64_t sent = 0;
      for (std::uint64_t d = 0; d < n; ++d) sent += ex.counts[r * n + d];
      return sent * e;
    }
    default: return 0;
  }
}

// NOTE [inputs in place] On its first run an executor finds out whether
// every rank's input is the same symmetric object (the root's, for a
// broadcast): each rank names its input's symmetric range (segment and
// offset, ShmTransport::symmetric_id) and the ranks exchange the names
// (coll::exchange, one synchronisation). If so, every later run, and this
// one, hands the library that object as the source, with no copy into the
// window: in one call (no rounds) straight into the output, which the
// executor keeps (NOTE [prepared calls]), so a run costs what the OpenSHMEM call
// costs. Reduce, and AllReduce of such an input into private outputs,
// still return their results through the window in rounds (the library's
// large reductions have peers read the dest). Half-precision reductions, which convert
// their input, always stage. The exchange makes a plan's first run the
// point where the ranks agree: every rank must run its plans in the same
// order, each plan's first run on every rank together (as every operator
// call is collective). The outputs are named too, for the library call:
// every output private (no peer reads it), or every output the same
// symmetric object, apart from the input or (a broadcast, an all-reduce)
// equal to it; any other mix stages, as the library would refuse the call
// on some rank.
std::uint64_t output_bytes(const Executor& ex, const CommArgs& a, int r) {
  const std::uint64_t e = size_of(ex.dtype), n = a.rankSize;
  switch (ex.kind) {
    case Kind::AllGather: case Kind::AllToAll: return n * ex.count * e;
    case Kind::AllToAllV: {
      std::uint64_t received = 0;
      for (std::uint64_t s = 0; s < n; ++s) received += ex.counts[s * n + r];
      return received * e;
    }
    default: return ex.count * e;
  }
}

// Whether ranges [x, x + xb) and [y, y + yb) share a byte.
bool overlap(std::uint64_t x, std::uint64_t xb, std::uint64_t y, std::uint64_t yb) { return x < y + yb && y < x + xb; }

// NOTE [aliased buffers] An output that shares bytes with its rank's input
// is accepted only in the layouts every round of a call keeps right: the
// input itself (AllReduce; Reduce and Broadcast on the root; AllToAll),
// the rank's own slot of the output (AllGather: input == output + rank *
// count) or of the input (ReduceScatter: output == input + rank * count).
// Any other overlap would have a round overwrite input a later round still
// reads, so the planner refuses it.
void check_aliasing(const Executor& ex, const CommArgs& a) {
  const bool rooted = ex.kind == Kind::Reduce || ex.kind == Kind::Broadcast;
  if (!ex.count || (rooted && a.rank != ex.root)) return;  // a non-root's buffer of these is not both read and written
  const auto in = reinterpret_cast<std::uint64_t>(ex.input), out = reinterpret_cast<std::uint64_t>(ex.output);
  const std::uint64_t in_bytes = input_bytes(ex, a, a.rank), out_bytes = output_bytes(ex, a, a.rank);
  if (!overlap(in, in_bytes, out, out_bytes)) return;
  const std::uint64_t slot = static_cast<std::uint64_t>(a.rank) * ex.count * size_of(ex.dtype);
  switch (ex.kind) {
    case Kind::AllReduce: case Kind::Reduce: case Kind::Broadcast: case Kind::AllToAll:
      if (in == out) return;
      break;
    case Kind::AllGather: if (in == out + slot) return; break;
    case Kind::ReduceScatter: if (out == in + slot) return; break;
    default: break;
  }
  const char* allowed = ex.kind == Kind::AllGather       ? "input == output + rank * count"
                        : ex.kind == Kind::ReduceScatter ? "output == input + rank * count"
                                                         : "output == input";
  raise(ErrorCode::InvalidUsage, "%s: output [%p, +%llu bytes) partly overlaps input [%p, +%llu bytes) on rank %d; "
        "pass disjoint buffers or the in-place layout (%s)", call_of(ex.kind), ex.output,
        static_cast<unsigned long long>(out_bytes), ex.input, static_cast<unsigned long long>(in_bytes), a.rank,
        allowed);
}

// The library kind that serves ex in one call straight into its output, or
// nullopt where the result goes through the window.
std::optional<coll::Kind> in_place_kind(const Executor& ex, bool private_outputs) {
  switch (ex.kind) {
    case Kind::AllGather: return coll::Kind::Fcollect;
    case Kind::ReduceScatter: return coll::Kind::ReduceScatter;
    case Kind::Broadcast: return coll::Kind::Broadcast;
    case Kind::AllToAll: return coll::Kind::Alltoall;
    case Kind::AllToAllV: return coll::Kind::Alltoallv;
    case Kind::AllReduce: if (!private_outputs) return coll::Kind::Reduce; break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace

// NOTE [prepared calls] A plan whose every run is one library call keeps
// that call (PreparedCall), made on its first run, so that a run costs the
// library call and, where the input is staged, its copy into the window,
// with nothing planned again. Two kinds of plan qualify: those that read
// their input in place (NOTE [inputs in place]), and those whose call fits
// one round of the window and has the library write the result straight
// into the output. The staging of the latter is one copy of this rank's
// whole input to the window's start, as every one-round layout keeps the
// input's order. The communicator names its windows and team at each run;
// a plan kept for a window of another size is not used.
struct PreparedCall {
  std::vector<std::uint64_t> counts;  // AllToAllV's matrix, which args.counts names
  coll::Args args;                    // its region, and a window source, are named at each run
  bool source_in_window = false;      // the call reads this rank's window, where `staged` bytes go first
  std::uint64_t staged = 0;
  std::uint64_t window_bytes = 0;     // the window size the plan was made for
};

namespace {

void resolve(Executor& ex, const CommArgs& a) {
  const std::uint64_t in_bytes = input_bytes(ex, a, a.rank), out_bytes = output_bytes(ex, a, a.rank);
  const transport::ShmTransport& shm = shmem::g_runtime->shm();
  struct Names {
    std::uint64_t input, output;
  } mine{half_reduce(ex) || !in_bytes ? 0 : shm.symmetric_id(ex.input, in_bytes),
         out_bytes ? shm.symmetric_id(ex.output, out_bytes) : 0};
  std::vector<Names> all(a.rankSize);
  coll::exchange(ex.comm->team(), &mine, sizeof mine, all.data(), call_of(ex.kind));
  ex.resolved = true;
  auto same = [&](auto field) {
    return std::all_of(all.begin(), all.end(), [&](const Names& x) { return x.*field == all[0].*field; });
  };
  const std::uint64_t input = ex.kind == Kind::Broadcast ? all[ex.root].input : same(&Names::input) ? all[0].input : 0;
  const std::uint64_t output = same(&Names::output) ? all[0].output : 0;
  const bool private_outputs = std::all_of(all.begin(), all.end(), [](const Names& x) { return x.output == 0; });
  if (!input) return;
  ex.symmetric_input = input;
  const bool through_window = ex.kind == Kind::Reduce || ex.kind == Kind::AllReduce;  // unless called in place
  std::optional<coll::Kind> kind = in_place_kind(ex, private_outputs);
  if (!private_outputs) {
    std::uint64_t in_span = 0, out_span = 0;  // the largest of any rank (the same offsets on every rank)
    for (int r = 0; r < a.rankSize; ++r) {
      in_span = std::max(in_span, input_bytes(ex, a, r));
      out_span = std::max(out_span, output_bytes(ex, a, r));
    }
    const bool may_equal = ex.kind == Kind::Broadcast || ex.kind == Kind::AllReduce;
    if (!output || !((may_equal && output == input) || !overlap(input, in_span, output, out_span))) {
      kind.reset();
      if (!through_window) ex.symmetric_input = 0;  // staged
    }
  }
  if (!kind) return;
  auto call = std::make_shared<PreparedCall>();
  call->counts = ex.counts;
  const coll::Region region{a.peerMems, a.windowBytes};
  call->args = args_for(ex, *kind, region, shm.symmetric_address(input), ex.output, ex.count, private_outputs);
  call->args.region = nullptr;  // named at each run
  call->args.counts = call->counts.empty() ? nullptr : call->counts.data();
  call->window_bytes = a.windowBytes;
  ex.prepared = std::move(call);
}

// Where a round's result lands when it does not go straight into the
// output: in the window after the staged input, copied out after the call.
std::uint8_t* window_result(const Executor& ex, const CommArgs& a, std::uint64_t c, bool one_round) {
  std::uint8_t* const win = a.peerMems[a.rank];
  const std::uint64_t n = a.rankSize, e = size_of(ex.dtype), we = wire_size(ex);
  switch (ex.kind) {
    case Kind::AllGather: return one_round ? nullptr : win + align_up(c * e);
    case Kind::ReduceScatter: return half_reduce(ex) ? win + align_up(n * c * we) : nullptr;
    case Kind::AllReduce: case Kind::Reduce: return reduces_into_output(ex) ? nullptr : win + align_up(c * we);
    case Kind::AllToAll: return one_round ? nullptr : win + align_up(n * c * e);
    default: return nullptr;  // Broadcast
  }
}

// The library call of the round of elements [at, at + len): from the
// window (or `symmetric`, the input read in place) into the output, or
// into `result` in the window.
coll::Args round_args(const Executor& ex, const CommArgs& a, const coll::Region& region,
                      const std::uint8_t* symmetric, std::uint64_t at, std::uint64_t len, std::uint8_t* result) {
  std::uint8_t* const win = a.peerMems[a.rank];
  auto* out = static_cast<std::uint8_t*>(ex.output);
  const std::size_t e = size_of(ex.dtype);
  const bool direct = result == nullptr;
  switch (ex.kind) {
    case Kind::AllGather: return args_for(ex, coll::Kind::Fcollect, region, win, direct ? out : result, len, direct);
    case Kind::ReduceScatter:
      return args_for(ex, coll::Kind::ReduceScatter, region, win, direct ? out + at * e : result, len, direct);
    case Kind::AllReduce:
    case Kind::Reduce: {
      coll::Args args = args_for(ex, coll::Kind::Reduce, region, symmetric ? symmetric + at * e : win,
                                 direct ? out + at * e : result, len, direct);
      args.source_scratch = direct;
      return args;
    }
    case Kind::Broadcast: return args_for(ex, coll::Kind::Broadcast, region, win, out + at * e, len, true);
    case Kind::AllToAll: return args_for(ex, coll::Kind::Alltoall, region, win, direct ? out : result, len, direct);
    default: return {};
  }
}

// Rounds through the window; `symmetric`: the input, read in place (or null).
void run(Executor& ex, const CommArgs& a, const std::uint8_t* symmetric, bool streaming) {
  const int n = a.rankSize, me = a.rank;
  const std::uint64_t count = ex.count, c = per_round(ex, a);
  const std::size_t e = size_of(ex.dtype), we = wire_size(ex);
  const coll::Region region{a.peerMems, a.windowBytes};
  std::uint8_t* const win = a.peerMems[me];
  const auto* in = static_cast<const std::uint8_t*>(ex.input);
  auto* out = static_cast<std::uint8_t*>(ex.output);
  std::uint8_t* const result = window_result(ex, a, c, count <= c);
  tilecomm_team* team = ex.comm->team();
  for (std::uint64_t at = 0; at < count; at += c) {
    const std::uint64_t len = std::min(c, count - at);
    switch (ex.kind) {  // this rank's part of the round into its window
      case Kind::AllGather: stage(win, in + at * e, len * e, streaming); break;
      case Kind::ReduceScatter:
        for (int r = 0; r < n; ++r) to_wire(ex, win + r * len * we, in + (r * count + at) * e, len, streaming);
        break;
      case Kind::AllReduce: case Kind::Reduce: if (!symmetric) to_wire(ex, win, in + at * e, len, streaming); break;
      case Kind::Broadcast: if (me == ex.root) stage(win, in + at * e, len * e, streaming); break;
      case Kind::AllToAll:
        for (int r = 0; r < n; ++r) stage(win + r * len * e, in + (r * count + at) * e, len * e, streaming);
        break;
      default: break;
    }
    coll::run(team, round_args(ex, a, region, symmetric, at, len, result));
    if (!result) continue;
    switch (ex.kind) {  // and the round's result out of it
      case Kind::AllGather: case Kind::AllToAll:
        for (int r = 0; r < n; ++r) copy_bytes(out + (r * count + at) * e, result + r * len * e, len * e);
        break;
      case Kind::ReduceScatter: from_wire(ex, out + at * e, result, len); break;
      case Kind::AllReduce: case Kind::Reduce:
        if (ex.kind == Kind::AllReduce || me == ex.root) from_wire(ex, out + at * e, result, len);
        break;
      default: break;
    }
  }
}

// After resolve: keeps the one library call of a plan that stages its
// input for one round and has its result written into the output (NOTE
// [prepared calls]).
void prepare_staged(Executor& ex, const CommArgs& a) {
  if (ex.prepared || ex.symmetric_input || half_reduce(ex) || ex.kind == Kind::AllToAllV) return;
  const std::uint64_t c = per_round(ex, a);
  if (ex.count > c || window_result(ex, a, c, true)) return;
  const coll::Region region{a.peerMems, a.windowBytes};
  auto call = std::make_shared<PreparedCall>();
  call->args = round_args(ex, a, region, nullptr, 0, ex.count, nullptr);
  call->args.region = nullptr;  // named at each run, with the source
  call->source_in_window = true;
  call->staged = input_bytes(ex, a, a.rank);
  call->window_bytes = a.windowBytes;
  ex.prepared = std::move(call);
}

void run_prepared(const Executor& ex, const CommArgs& a) {
  const PreparedCall& p = *ex.prepared;
  const coll::Region region{a.peerMems, a.windowBytes};
  coll::Args args = p.args;
  args.region = &region;
  tilecomm_team* team = ex.comm->team();
  if (!p.source_in_window) {
    coll::run(team, args);
    return;
  }
  std::uint8_t* const win = a.peerMems[a.rank];
  args.source = win;
  coll::PublishStores stores(static_cast<std::uint32_t>(ex.kind), p.staged);
  if (p.staged) stage(win, ex.input, p.staged, stores.streaming());
  coll::run(team, args);
  stores.done();
}

// AllToAllV in rounds: round `at` moves elements [at, at + c) of every
// block, so each round is an alltoallv of the clipped matrix.
void run_v(Executor& ex, const CommArgs& a, bool streaming) {
  const int n = a.rankSize, me = a.rank;
  const std::uint64_t c = per_round(ex, a);
  const std::size_t e = size_of(ex.dtype);
  const coll::Region region{a.peerMems, a.windowBytes};
  std::uint8_t* const win = a.peerMems[me];
  const auto* in = static_cast<const std::uint8_t*>(ex.input);
  auto* out = static_cast<std::uint8_t*>(ex.output);
  const std::vector<std::uint64_t>& counts = ex.counts;
  const std::uint64_t longest = *std::max_element(counts.begin(), counts.end());
  std::vector<std::uint64_t> in_at(n), out_at(n), clipped(counts.size());
  for (int r = 1; r < n; ++r) {
    in_at[r] = in_at[r - 1] + counts[me * n + r - 1];
    out_at[r] = out_at[r - 1] + counts[(r - 1) * n + me];
  }
  const bool one_round = longest <= c;
  std::uint8_t* const result = one_round ? out : win + align_up(n * c * e);
  for (std::uint64_t at = 0; at < longest; at += c) {
    for (std::size_t i = 0; i < counts.size(); ++i) clipped[i] = counts[i] > at ? std::min(c, counts[i] - at) : 0;
    std::uint64_t staged = 0;
    for (int r = 0; r < n; ++r) {
      stage(win + staged * e, in + (in_at[r] + at) * e, clipped[me * n + r] * e, streaming);
      staged += clipped[me * n + r];
    }
    coll::Args args = args_for(ex, coll::Kind::Alltoallv, region, win, result, 0, one_round);
    args.counts = clipped.data();
    coll::run(ex.comm->team(), args);
    if (!one_round) {
      std::uint64_t got = 0;
      for (int r = 0; r < n; ++r) {
        copy_bytes(out + (out_at[r] + at) * e, result + got * e, clipped[r * n + me] * e);
        got += clipped[r * n + me];
      }
    }
  }
}

// A planned call: its prepared library call once it has one (NOTE
// [prepared calls]), else rounds through the window.
void execute(Executor& ex) {
  const CommArgs& a = ex.comm->args();  // throws for a destroyed communicator
  if (ex.prepared && ex.prepared->window_bytes == a.windowBytes) return run_prepared(ex, a);
  const bool empty = ex.kind == Kind::AllToAllV ? std::all_of(ex.counts.begin(), ex.counts.end(),
                                                              [](std::uint64_t c) { return c == 0; })
                                                : ex.count == 0;
  if (empty) return;
  if (!ex.resolved) {
    resolve(ex, a);
    prepare_staged(ex, a);
    if (ex.prepared) return run_prepared(ex, a);
  }
  // What this rank copies into its window: nothing where the input is read
  // in place, or converted (half precision) rather than copied.
  const std::uint64_t staged = ex.symmetric_input || half_reduce(ex) ? 0 : input_bytes(ex, a, a.rank);
  coll::PublishStores stores(static_cast<std::uint32_t>(ex.kind), staged);
  if (ex.kind == Kind::AllToAllV) {
    run_v(ex, a, stores.streaming());
  } else {
    const transport::ShmTransport& shm = shmem::g_runtime->shm();
    run(ex, a, ex.symmetric_input ? reinterpret_cast<const std::uint8_t*>(shm.symmetric_address(ex.symmetric_input))
                                  : nullptr,
        stores.streaming());
  }
  stores.done();
}

}  // namespace

std::uint64_t AllGatherGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, Executor* ex) {
  return plan(ex, Kind::AllGather, comm, input, output, count, dtype);
}
void AllGather(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::AllGather, workspace_size));
}

void check_op(ReduceOp op, Kind kind) {
  if (static_cast<unsigned>(op) > static_cast<unsigned>(ReduceOp::Min))
    raise(ErrorCode::InvalidUsage, "%s: reduce operation %u is not one of sum, prod, max, min", call_of(kind),
          static_cast<unsigned>(op));
}

void check_root(int root, const Comm& comm, Kind kind) {
  if (root < 0 || root >= comm.size())
    raise(ErrorCode::InvalidUsage, "%s: root %d is not a rank of the communicator (0..%d)", call_of(kind), root,
          comm.size() - 1);
}

std::uint64_t plan_reduce(Executor* ex, Kind kind, Comm& comm, const void* input, void* output, std::uint64_t count,
                          DataType dtype, ReduceOp op) {
  check_op(op, kind);
  const std::uint64_t ws = plan(ex, kind, comm, input, output, count, dtype);
  ex->op = op;
  return ws;
}

std::uint64_t ReduceScatterGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                            DataType dtype, ReduceOp op, Executor* ex) {
  return plan_reduce(ex, Kind::ReduceScatter, comm, input, output, count, dtype, op);
}
void ReduceScatter(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::ReduceScatter, workspace_size));
}

std::uint64_t ReduceGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype,
                                     ReduceOp op, int root, Executor* ex) {
  check_root(root, comm, Kind::Reduce);
  if (count && comm.rank() == root && !output)
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Reduce: the root's output is null");
  const std::uint64_t ws = plan_reduce(ex, Kind::Reduce, comm, input, output, count, dtype, op);
  ex->root = root;
  return ws;
}
void Reduce(void*, std::uint64_t workspace_size, Executor* ex) { execute(checked(ex, Kind::Reduce, workspace_size)); }

std::uint64_t AllReduceGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, ReduceOp op, Executor* ex) {
  return plan_reduce(ex, Kind::AllReduce, comm, input, output, count, dtype, op);
}
void AllReduce(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::AllReduce, workspace_size));
}

std::uint64_t BroadcastGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, int root, Executor* ex) {
  check_root(root, comm, Kind::Broadcast);
  if (count && comm.rank() == root && !input)
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Broadcast: the root's input is null");
  const std::uint64_t ws = plan(ex, Kind::Broadcast, comm, input, output, count, dtype);
  ex->root = root;
  return ws;
}
void Broadcast(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::Broadcast, workspace_size));
}

std::uint64_t AllToAllGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                       DataType dtype, Executor* ex) {
  return plan(ex, Kind::AllToAll, comm, input, output, count, dtype);
}
void AllToAll(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::AllToAll, workspace_size));
}

std::uint64_t AllToAllVGetWorkspaceSize(Comm& comm, const void* input, void* output, const std::uint64_t* counts,
                                        DataType dtype, Executor* ex) {
  const char* call = call_of(Kind::AllToAllV);
  if (!ex) raise(ErrorCode::InvalidUsage, "%sGetWorkspaceSize: the executor pointer is null", call);
  *ex = Executor{};  // unplanned until every check passed
  check_type(dtype, Kind::AllToAllV);
  if (!counts) raise(ErrorCode::InvalidUsage, "%s: the send-count matrix is null", call);
  const int n = comm.size(), me = comm.rank();
  const std::uint64_t e = size_of(dtype);
  // The matrix is the same on every rank: all of it is checked, so that every rank fails alike.
  std::uint64_t longest = 0;
  for (int r = 0; r < n; ++r) {
    std::uint64_t row = 0, column = 0, bytes;
    for (int k = 0; k < n; ++k) {
      longest = std::max(longest, counts[r * n + k]);
      if (__builtin_add_overflow(row, counts[r * n + k], &row) ||
          __builtin_add_overflow(column, counts[k * n + r], &column) ||
          __builtin_mul_overflow(std::max(row, column), e, &bytes))
        raise(ErrorCode::InvalidUsage, "%s: the send-count matrix overflows 64 bits (in bytes) in row or column %d",
              call, r);
    }
  }
  std::uint64_t sent = 0, received = 0;
  for (int r = 0; r < n; ++r) {
    sent += counts[me * n + r];
    received += counts[r * n + me];
  }
  if ((sent && !input) || (received && !output))
    raise(ErrorCode::InvalidUsage, "%s: %s is null but this rank %s %llu elements", call, sent && !input ? "input" : "output",
          sent && !input ? "sends" : "receives", static_cast<unsigned long long>(sent && !input ? sent : received));
  const auto* in = static_cast<const std::uint8_t*>(input);
  const auto* out = static_cast<const std::uint8_t*>(output);
  if (sent && received && in < out + received * e && out < in + sent * e)
    raise(ErrorCode::InvalidUsage, "%s: input [%p, +%llu bytes) and output [%p, +%llu bytes) overlap; an all-to-all-v "
          "needs disjoint buffers", call, input, static_cast<unsigned long long>(sent * e), output,
          static_cast<unsigned long long>(received * e));
  Executor probe;
  probe.kind = Kind::AllToAllV;
  probe.dtype = dtype;
  if (longest && per_round(probe, comm.args()) == 0)
    raise(ErrorCode::InvalidUsage, "%s: the communicator's window (CommOptions::window_bytes=%llu) cannot hold one "
          "element of %s per rank pair; use a larger window", call,
          static_cast<unsigned long long>(comm.args().windowBytes), name_of(dtype));
  const std::uint64_t ws = plan(ex, Kind::AllToAllV, comm, input, output, 0, dtype);
  ex->counts.assign(counts, counts + std::size_t(n) * n);
  return ws;
}
void AllToAllV(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::AllToAllV, workspace_size));
}

}  // namespace tilecomm::ops
