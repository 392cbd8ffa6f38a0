// The collective operators (<tilecomm/ops.hpp>): each round stages this
// rank's slice of the input into its window, runs the library's collective
// with the window as source (coll::Region: every rank of the host maps it)
// and either writes the result straight into the caller's output (when peers
// never read it: Args::dest_private) or through the window, then copies it
// out. The library's calls return only once every peer finished reading this
// rank's window, so the next round, launch or operator may reuse it.
#include "tilecomm/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "coll/coll.hpp"
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

float bf16_to_float(std::uint16_t b) {
  const std::uint32_t x = std::uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

std::uint16_t float_to_bf16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>(x >> 16 | 0x40u);  // quiet NaN
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

namespace {

using Kind = Executor::Kind;
constexpr std::size_t kAlign = 64;
std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

bool is_half(DataType t) { return t == DataType::Fp16 || t == DataType::Bf16; }
bool half_reduce(const Executor& ex) { return ex.kind == Kind::AllReduce && is_half(ex.dtype); }
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
void to_wire(const Executor& ex, void* dst, const void* src, std::size_t n) {
  if (!half_reduce(ex)) return copy_bytes(dst, src, n * size_of(ex.dtype));
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

const char* call_of(Kind k) {
  switch (k) {
    case Kind::AllGather: return "tilecomm::ops::AllGather";
    case Kind::AllReduce: return "tilecomm::ops::AllReduce";
    case Kind::Broadcast: return "tilecomm::ops::Broadcast";
    case Kind::AllToAll: return "tilecomm::ops::AllToAll";
    case Kind::None: break;
  }
  return "tilecomm::ops";
}

// Elements per rank (per peer for AllToAll) that one round moves: the
// window holds the staged input and, where needed, the result.
std::uint64_t per_round(const Executor& ex, const CommArgs& a) {
  const std::uint64_t n = static_cast<std::uint64_t>(a.rankSize), e = wire_size(ex);
  const std::uint64_t usable = a.windowBytes - kAlign;  // the result area starts on a line
  switch (ex.kind) {
    case Kind::AllGather: return usable / ((n + 1) * e);
    case Kind::AllReduce: return usable / (2 * e);
    case Kind::Broadcast: return a.windowBytes / e;
    case Kind::AllToAll: return usable / (2 * n * e);
    case Kind::None: break;
  }
  return 0;
}

std::uint64_t plan(Executor* ex, Kind kind, Comm& comm, const void* input, void* output, std::uint64_t count,
                   DataType dtype) {
  const char* call = call_of(kind);
  if (!ex) raise(ErrorCode::InvalidUsage, "%sGetWorkspaceSize: the executor pointer is null", call);
  if (static_cast<unsigned>(dtype) > static_cast<unsigned>(DataType::Fp64))
    raise(ErrorCode::InvalidUsage, "%s: data type %u is not one of int8..fp64", call, static_cast<unsigned>(dtype));
  const CommArgs& a = comm.args();  // throws for a destroyed communicator
  const std::uint64_t blocks = kind == Kind::AllGather || kind == Kind::AllToAll ? a.rankSize : 1;
  std::uint64_t bytes;
  if (__builtin_mul_overflow(count, blocks * size_of(dtype), &bytes))
    raise(ErrorCode::InvalidUsage, "%s: %llu elements of %s per rank overflow 64 bits", call,
          static_cast<unsigned long long>(count), name_of(dtype));
  if (count && (!output || (!input && kind != Kind::Broadcast)))
    raise(ErrorCode::InvalidUsage, "%s: %s is null for a call of %llu elements", call, output ? "input" : "output",
          static_cast<unsigned long long>(count));
  *ex = Executor{};
  ex->kind = kind;
  ex->comm = &comm;
  ex->input = input;
  ex->output = output;
  ex->count = count;
  ex->dtype = dtype;
  if (count && per_round(*ex, a) == 0)
    raise(ErrorCode::InvalidUsage, "%s: the communicator's window (CommOptions::window_bytes=%llu) cannot hold one "
          "element of %s per rank for this operator; use a larger window", call,
          static_cast<unsigned long long>(a.windowBytes), name_of(dtype));
  return ex->workspace;  // the collective operators work in the windows
}

Executor& checked(Executor* ex, Kind kind, std::uint64_t workspace_size) {
  const char* call = call_of(kind);
  if (!ex || ex->kind != kind)
    raise(ErrorCode::InvalidUsage, "%s: the executor was not planned by %sGetWorkspaceSize", call, call);
  if (workspace_size < ex->workspace)
    raise(ErrorCode::InvalidUsage, "%s: the workspace has %llu bytes; the plan needs %llu", call,
          static_cast<unsigned long long>(workspace_size), static_cast<unsigned long long>(ex->workspace));
  return *ex;
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

void run(Executor& ex) {
  const CommArgs& a = ex.comm->args();
  const int n = a.rankSize, me = a.rank;
  const std::uint64_t count = ex.count, c = per_round(ex, a);
  const std::size_t e = size_of(ex.dtype), we = wire_size(ex);
  const coll::Region region{a.peerMems, a.windowBytes};
  std::uint8_t* const win = a.peerMems[me];
  const auto* in = static_cast<const std::uint8_t*>(ex.input);
  auto* out = static_cast<std::uint8_t*>(ex.output);
  const bool one_round = count <= c;
  tilecomm_team* team = ex.comm->team();
  for (std::uint64_t at = 0; at < count; at += c) {
    const std::uint64_t len = std::min(c, count - at);
    switch (ex.kind) {
      case Kind::AllGather: {
        std::uint8_t* result = one_round ? out : win + align_up(c * e);
        copy_bytes(win, in + at * e, len * e);
        coll::run(team, args_for(ex, coll::Kind::Fcollect, region, win, result, len, one_round));
        if (!one_round)
          for (int r = 0; r < n; ++r) copy_bytes(out + (r * count + at) * e, result + r * len * e, len * e);
        break;
      }
      case Kind::AllReduce: {
        std::uint8_t* result = win + align_up(c * we);
        to_wire(ex, win, in + at * e, len);
        coll::run(team, args_for(ex, coll::Kind::Reduce, region, win, result, len, false));
        from_wire(ex, out + at * e, result, len);
        break;
      }
      case Kind::Broadcast:
        if (me == ex.root) copy_bytes(win, in + at * e, len * e);
        coll::run(team, args_for(ex, coll::Kind::Broadcast, region, win, out + at * e, len, true));
        break;
      case Kind::AllToAll: {
        std::uint8_t* result = one_round ? out : win + align_up(n * c * e);
        for (int r = 0; r < n; ++r) copy_bytes(win + r * len * e, in + (r * count + at) * e, len * e);
        coll::run(team, args_for(ex, coll::Kind::Alltoall, region, win, result, len, one_round));
        if (!one_round)
          for (int r = 0; r < n; ++r) copy_bytes(out + (r * count + at) * e, result + r * len * e, len * e);
        break;
      }
      case Kind::None: break;
    }
  }
}

}  // namespace

std::uint64_t AllGatherGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, Executor* ex) {
  return plan(ex, Kind::AllGather, comm, input, output, count, dtype);
}
void AllGather(void*, std::uint64_t workspace_size, Executor* ex) { run(checked(ex, Kind::AllGather, workspace_size)); }

std::uint64_t AllReduceGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, ReduceOp op, Executor* ex) {
  if (static_cast<unsigned>(op) > static_cast<unsigned>(ReduceOp::Min))
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::AllReduce: reduce operation %u is not one of sum, prod, max, min",
          static_cast<unsigned>(op));
  const std::uint64_t ws = plan(ex, Kind::AllReduce, comm, input, output, count, dtype);
  ex->op = op;
  return ws;
}
void AllReduce(void*, std::uint64_t workspace_size, Executor* ex) { run(checked(ex, Kind::AllReduce, workspace_size)); }

std::uint64_t BroadcastGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, int root, Executor* ex) {
  if (root < 0 || root >= comm.size())
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Broadcast: root %d is not a rank of the communicator (0..%d)", root,
          comm.size() - 1);
  if (count && comm.rank() == root && !input)
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Broadcast: the root's input is null");
  const std::uint64_t ws = plan(ex, Kind::Broadcast, comm, input, output, count, dtype);
  ex->root = root;
  return ws;
}
void Broadcast(void*, std::uint64_t workspace_size, Executor* ex) { run(checked(ex, Kind::Broadcast, workspace_size)); }

std::uint64_t AllToAllGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                       DataType dtype, Executor* ex) {
  return plan(ex, Kind::AllToAll, comm, input, output, count, dtype);
}
void AllToAll(void*, std::uint64_t workspace_size, Executor* ex) { run(checked(ex, Kind::AllToAll, workspace_size)); }

}  // namespace tilecomm::ops
