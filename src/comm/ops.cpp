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
#include "comm/access.hpp"
#include "comm/ops_plan.hpp"
#include "core/copy.hpp"
#include "core/error.hpp"

namespace tilecomm::ops {

std::size_t size_of(DataType t) {
  switch (t) {
    case DataType::Int8: case DataType::Uint8: return 1;
    case DataType::Int16: case DataType::Uint16: case DataType::Fp16: case DataType::Bf16: return 2;
    case DataType::Int32: case DataType::Uint32: case DataType::Fp32: return 4;
    case DataType::Int64: case DataType::Uint64: case DataType::Fp64: return 8;
  }
  return 0;
}

const char* name_of(DataType t) {
  static const char* const names[] = {"int8", "int16", "int32", "int64", "fp16",   "bf16",
                                      "fp32", "fp64",  "uint8", "uint16", "uint32", "uint64"};
  const auto i = static_cast<unsigned>(t);
  return i < 12 ? names[i] : "(invalid type)";
}

const char* name_of(ReduceOp op) {
  static const char* const names[] = {"sum", "prod", "max", "min", "avg"};
  const auto i = static_cast<unsigned>(op);
  return i < 5 ? names[i] : "(invalid operation)";
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


// ---- the executor ---------------------------------------------------------------------

Executor::Executor() = default;
Executor::~Executor() = default;
Executor::Executor(Executor&&) noexcept = default;
Executor& Executor::operator=(Executor&&) noexcept = default;
Executor::Plan& Executor::reset() {
  plan_ = std::make_unique<Plan>();
  return *plan_;
}
Executor::Kind Executor::kind() const { return plan_ ? plan_->kind : Kind::None; }
DataType Executor::dtype() const { return plan_ ? plan_->dtype : DataType::Int8; }
int Executor::root() const { return plan_ ? plan_->root : 0; }
std::uint64_t Executor::workspace() const { return plan_ ? plan_->workspace : 0; }
Moves Executor::moves() const { return plan_ ? plan_->moves : Moves::Auto; }
int Executor::tiles() const { return plan_ ? plan_->tiles : 0; }
bool Executor::reads_in_place() const { return plan_ && plan_->symmetric_input != 0; }
bool Executor::one_call() const { return plan_ && plan_->prepared != nullptr; }

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

Plan& checked(Executor* executor, Kind kind, std::uint64_t workspace_size) {
  Plan* ex = executor ? executor->plan() : nullptr;
  if (!ex || ex->kind != kind)
    raise(ErrorCode::InvalidUsage, "%s: the executor was not planned by %sGetWorkspaceSize", call_of(kind),
          call_of(kind));
  comm::Calls& calls = comm::Access::calls(*ex->comm);  // throws for a destroyed or moved-from communicator
  if (calls.serial != ex->serial)  // NOTE [bound plans]
    raise(ErrorCode::InvalidUsage, "%s: the communicator this plan was made for was replaced since (another "
          "communicator now lives at %p); plan again with %sGetWorkspaceSize", call_of(kind),
          static_cast<void*>(ex->comm), call_of(kind));
  if (workspace_size < ex->workspace)
    raise(ErrorCode::InvalidUsage, "%s: the workspace has %llu bytes; the plan needs %llu", call_of(kind),
          static_cast<unsigned long long>(workspace_size), static_cast<unsigned long long>(ex->workspace));
  if (calls.extras) calls.extras->settle();  // NOTE [non-blocking calls]
  if (calls.board.state() == comm::State::Failed)
    raise(ErrorCode::Remote, "%s: an earlier call on this communicator failed on this rank, so its ranks may be "
          "anywhere now; destroy the communicator (that does not wait for the others) and create a new one",
          call_of(kind));
  return *ex;
}

void check_range(const void* p, std::uint64_t bytes, const char* what, Kind kind) {
  std::uint64_t end;
  if (p && __builtin_add_overflow(reinterpret_cast<std::uint64_t>(p), bytes, &end))
    raise(ErrorCode::InvalidUsage, "%s: %s [%p, +%llu bytes) runs past the end of the address space; check the "
          "count and the shape", call_of(kind), what, p, static_cast<unsigned long long>(bytes));
}

void check_type(DataType dtype, Kind kind) {
  if (static_cast<unsigned>(dtype) > static_cast<unsigned>(DataType::Uint64))
    raise(ErrorCode::InvalidUsage, "%s: data type %u is not one of int8..int64, uint8..uint64, fp16, bf16, fp32, "
          "fp64", call_of(kind), static_cast<unsigned>(dtype));
}

void check_op(ReduceOp op, Kind kind) {
  if (static_cast<unsigned>(op) > static_cast<unsigned>(ReduceOp::Avg))
    raise(ErrorCode::InvalidUsage, "%s: reduce operation %u is not one of sum, prod, max, min, avg", call_of(kind),
          static_cast<unsigned>(op));
}

// ---- what the ranks agree on (NOTE [first run]) ----------------------------------------

void sign(Plan& ex) {
  comm::Signature& g = ex.sig;
  g = {};
  g.kind = static_cast<std::uint8_t>(ex.kind);
  g.dtype = static_cast<std::uint8_t>(ex.dtype);
  g.op = static_cast<std::uint8_t>(ex.op);
  g.moves = static_cast<std::uint8_t>(ex.moves);
  g.flags = (ex.bias ? comm::Signature::kHasBias : 0) | (ex.gather_out ? comm::Signature::kHasGatherOut : 0);
  g.root = ex.root;
  g.tiles = ex.tiles;
  g.count = ex.kind >= Kind::AllGatherMatmul ? ex.shape.m : ex.count;
  g.k = ex.shape.k;
  g.n = ex.shape.n;
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the count matrix
  for (std::uint64_t c : ex.counts)
    for (int i = 0; i < 8; ++i) h = (h ^ ((c >> (8 * i)) & 0xff)) * 1099511628211ull;
  g.matrix = ex.counts.empty() ? 0 : h;
}

}  // namespace tilecomm::ops

namespace tilecomm::comm {

std::string describe(const Signature& g) {
  using namespace ops;
  const auto kind = static_cast<Kind>(g.kind);
  const char* name = call_of(kind) + std::strlen("tilecomm::ops::");
  const char* type = name_of(static_cast<DataType>(g.dtype));
  const char* op = name_of(static_cast<ReduceOp>(g.op));
  const auto count = static_cast<unsigned long long>(g.count);
  switch (kind) {
    case Kind::None: return "no call";
    case Kind::AllGather: case Kind::AllToAll: case Kind::AllGatherAdd:
      return strprintf("%s(count=%llu, %s)", name, count, type);
    case Kind::ReduceScatter: case Kind::AllReduce: return strprintf("%s(count=%llu, %s, %s)", name, count, type, op);
    case Kind::Reduce: return strprintf("%s(count=%llu, %s, %s, root=%d)", name, count, type, op, g.root);
    case Kind::Broadcast: return strprintf("%s(count=%llu, %s, root=%d)", name, count, type, g.root);
    case Kind::AllToAllV:
      return strprintf("%s(%s, count matrix %016llx)", name, type, static_cast<unsigned long long>(g.matrix));
    default:
      return strprintf("%s(m=%llu, k=%llu, n=%llu, %s, %s, %d tiles%s%s)", name, count,
                       static_cast<unsigned long long>(g.k), static_cast<unsigned long long>(g.n), type,
                       name_of(static_cast<Moves>(g.moves)), g.tiles, g.flags & Signature::kHasBias ? ", bias" : "",
                       g.flags & Signature::kHasGatherOut ? ", gather_out" : "");
  }
}

}  // namespace tilecomm::comm

namespace tilecomm::ops {

std::vector<Names> agree(const Plan& ex, Names mine, comm::CallScope& scope) {
  struct Record {
    comm::Signature sig;
    Names names;
  };
  static_assert(sizeof(Record) == 64, "coll::exchange moves 64 bytes per member");
  const int n = ex.comm->size();
  const Record me{ex.sig, mine};
  std::vector<Record> all(n);
  coll::exchange(ex.comm->team(), &me, sizeof me, all.data(), call_of(ex.kind));
  std::string differ;
  for (int r = 1; r < n; ++r)
    if (!(all[r].sig == all[0].sig)) differ += strprintf("; rank %d: %s", r, comm::describe(all[r].sig).c_str());
  if (!differ.empty()) {
    scope.agreed();  // every rank saw the same records: the communicator stays usable
    raise(ErrorCode::InvalidUsage, "%s: the ranks made different calls as call #%llu of the communicator: rank 0: "
          "%s%s; every rank must make the same operator calls in the same order with the same arguments (count, "
          "type, operation, root, shapes, bias and gather_out given or not, MatmulOptions)", call_of(ex.kind),
          static_cast<unsigned long long>(comm::Access::board(*ex.comm).calls()), comm::describe(all[0].sig).c_str(),
          differ.c_str());
  }
  std::vector<Names> names(n);
  for (int r = 0; r < n; ++r) names[r] = all[r].names;
  scope.agreeing_done();
  return names;
}

// NOTE [staging stores] The peers read a staged copy next, so its stores
// are chosen as the library chooses those of what it publishes (NOTE
// [publishing stores] in src/coll/copy.cpp), per kind of operator.
void stage(void* window, const void* src, std::size_t bytes, bool streaming) {
  coll::copy(window, src, bytes, streaming);
}

std::uint64_t symmetric_name(const Plan& ex, const void* p, std::uint64_t bytes) {
  if (!bytes || !p || ex.staged_only) return 0;
  const transport::ShmTransport& shm = shmem::g_runtime->shm();
  tilecomm_team* team = ex.comm->team();
  std::uint64_t mine = shm.symmetric_id(p, bytes);
  for (int r = 0; mine && r < team->size; ++r)
    if (!shm.translate(p, bytes, team->world(r))) mine = 0;  // a rank whose copy is not mapped here
  return mine;
}

const std::uint8_t* rank_copy(const Plan& ex, std::uint64_t id, int r) {
  const transport::ShmTransport& shm = shmem::g_runtime->shm();
  return reinterpret_cast<const std::uint8_t*>(shm.translate(shm.symmetric_address(id), ex.comm->team()->world(r)));
}

namespace {

using Kind = Executor::Kind;

bool reduces(Kind k) { return k == Kind::AllReduce || k == Kind::Reduce || k == Kind::ReduceScatter; }
bool half_reduce(const Plan& ex) { return reduces(ex.kind) && is_half(ex.dtype); }
// Bytes of an element in the window: half-precision reductions travel as fp32.
std::size_t wire_size(const Plan& ex) { return half_reduce(ex) ? 4 : size_of(ex.dtype); }

coll::DType coll_type(DataType t) {
  switch (t) {
    case DataType::Int8: return coll::DType::Int8;
    case DataType::Int16: return coll::DType::Int16;
    case DataType::Int32: return coll::DType::Int32;
    case DataType::Int64: return coll::DType::Int64;
    case DataType::Uint8: return coll::DType::UInt8;
    case DataType::Uint16: return coll::DType::UInt16;
    case DataType::Uint32: return coll::DType::UInt32;
    case DataType::Uint64: return coll::DType::UInt64;
    case DataType::Fp16: case DataType::Bf16: case DataType::Fp32: return coll::DType::Float;
    case DataType::Fp64: return coll::DType::Double;
  }
  return coll::DType::Int8;
}

coll::Op coll_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: case ReduceOp::Avg: return coll::Op::Sum;  // Avg: then divided (divide())
    case ReduceOp::Prod: return coll::Op::Prod;
    case ReduceOp::Max: return coll::Op::Max;
    case ReduceOp::Min: return coll::Op::Min;
  }
  return coll::Op::Sum;
}

// n elements of the caller's type into the window's, and back.
void to_wire(const Plan& ex, void* dst, const void* src, std::size_t n, bool streaming) {
  if (!half_reduce(ex)) return stage(dst, src, n * size_of(ex.dtype), streaming);
  const auto* s = static_cast<const std::uint16_t*>(src);
  auto* d = static_cast<float*>(dst);
  for (std::size_t i = 0; i < n; ++i) d[i] = ex.dtype == DataType::Fp16 ? fp16_to_float(s[i]) : bf16_to_float(s[i]);
}

void from_wire(const Plan& ex, void* dst, const void* src, std::size_t n) {
  if (!half_reduce(ex)) return copy_bytes(dst, src, n * size_of(ex.dtype));
  const auto* s = static_cast<const float*>(src);
  auto* d = static_cast<std::uint16_t*>(dst);
  const float by = static_cast<float>(ex.comm->size());
  for (std::size_t i = 0; i < n; ++i) {
    const float v = ex.op == ReduceOp::Avg ? s[i] / by : s[i];
    d[i] = ex.dtype == DataType::Fp16 ? float_to_fp16(v) : float_to_bf16(v);
  }
}

// Avg (but half precision, which from_wire divides): the sums in the output, divided by size().
template <class T>
void divide_typed(void* p, std::uint64_t n, int by) {
  auto* x = static_cast<T*>(p);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = static_cast<T>(x[i] / static_cast<T>(by));
}

void divide(const Plan& ex, const CommArgs& a) {
  if (ex.op != ReduceOp::Avg || !reduces(ex.kind) || is_half(ex.dtype) || !ex.count) return;
  if (ex.kind == Kind::Reduce && a.rank != ex.root) return;
  const int n = a.rankSize;
  switch (ex.dtype) {
    case DataType::Int8: return divide_typed<std::int8_t>(ex.output, ex.count, n);
    case DataType::Int16: return divide_typed<std::int16_t>(ex.output, ex.count, n);
    case DataType::Int32: return divide_typed<std::int32_t>(ex.output, ex.count, n);
    case DataType::Int64: return divide_typed<std::int64_t>(ex.output, ex.count, n);
    case DataType::Uint8: return divide_typed<std::uint8_t>(ex.output, ex.count, n);
    case DataType::Uint16: return divide_typed<std::uint16_t>(ex.output, ex.count, n);
    case DataType::Uint32: return divide_typed<std::uint32_t>(ex.output, ex.count, n);
    case DataType::Uint64: return divide_typed<std::uint64_t>(ex.output, ex.count, n);
    case DataType::Fp32: return divide_typed<float>(ex.output, ex.count, n);
    case DataType::Fp64: return divide_typed<double>(ex.output, ex.count, n);
    default: return;
  }
}

// Whether an AllReduce's rounds reduce the staged input straight into the
// output: the library may overwrite the staged copy to publish its slices
// (coll::Args::source_scratch), so the result needs no window area and no
// copy out. Not where the input is read in place, which must stay as it is,
// nor for half precision, whose fp32 result is converted back. Only known
// once the plan is resolved (NOTE [inputs in place]).
bool reduces_into_output(const Plan& ex) {
  return ex.kind == Kind::AllReduce && ex.resolved && !ex.symmetric_input && !half_reduce(ex);
}

// Elements per rank (per peer for AllToAll) that one round moves: the
// window holds the staged input and, where needed, the result.
std::uint64_t per_round(const Plan& ex, const CommArgs& a) {
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

void check_aliasing(const Plan& ex, const CommArgs& a);

std::uint64_t input_bytes(const Plan& ex, const CommArgs& a, int r);
std::uint64_t output_bytes(const Plan& ex, const CommArgs& a, int r);

// Plans a collective operator; `counts`: AllToAllV's matrix, checked by its planner.
std::uint64_t plan(Executor* executor, Kind kind, Comm& comm, const void* input, void* output, std::uint64_t count,
                   DataType dtype, ReduceOp op = ReduceOp::Sum, int root = 0, const std::uint64_t* counts = nullptr) {
  const char* call = call_of(kind);
  if (!executor) raise(ErrorCode::InvalidUsage, "%sGetWorkspaceSize: the executor pointer is null", call);
  executor->reset();  // unplanned until every check passed: a failed plan cannot be run
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
  Plan planned;
  planned.kind = kind;
  planned.comm = &comm;
  planned.serial = comm::Access::serial(comm);
  planned.input = input;
  planned.output = output;
  planned.count = count;
  planned.dtype = dtype;
  planned.op = op;
  planned.root = root;
  if (counts) planned.counts.assign(counts, counts + std::size_t(a.rankSize) * a.rankSize);
  if (count && per_round(planned, a) == 0)
    raise(ErrorCode::InvalidUsage, "%s: the communicator's window (CommOptions::window_bytes=%llu) cannot hold one "
          "element of %s per rank for this operator; use a larger window", call,
          static_cast<unsigned long long>(a.windowBytes), name_of(dtype));
  check_range(input, input_bytes(planned, a, a.rank), "input", kind);
  check_range(output, output_bytes(planned, a, a.rank), "output", kind);
  if (kind != Kind::AllToAllV) check_aliasing(planned, a);  // AllToAllV's planner checks its own
  sign(planned);
  executor->reset() = std::move(planned);
  return 0;  // the collective operators work in the windows
}

// The library call of one round.
coll::Args args_for(const Plan& ex, coll::Kind kind, const coll::Region& region, const void* src, void* dst,
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
std::uint64_t input_bytes(const Plan& ex, const CommArgs& a, int r) {
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
std::uint64_t output_bytes(const Plan& ex, const CommArgs& a, int r) {
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


// NOTE [aliased buffers] An output that shares bytes with its rank's input
// is accepted only in the layouts every round of a call keeps right: the
// input itself (AllReduce; Reduce and Broadcast on the root; AllToAll),
// the rank's own slot of the output (AllGather: input == output + rank *
// count) or of the input (ReduceScatter: output == input + rank * count).
// Any other overlap would have a round overwrite input a later round still
// reads, so the planner refuses it.
void check_aliasing(const Plan& ex, const CommArgs& a) {
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
std::optional<coll::Kind> in_place_kind(const Plan& ex, bool private_outputs) {
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
// input's order. The communicator names its windows and team at each run,
// and the plan its output (which a one-call plan changes).
struct PreparedCall {
  std::vector<std::uint64_t> counts;  // AllToAllV's matrix, which args.counts names
  coll::Args args;                    // its region, and a window source, are named at each run
  bool source_in_window = false;      // the call reads this rank's window, where `staged` bytes go first
  std::uint64_t staged = 0;
};

namespace {

// The first run (NOTE [first run]): the ranks agree on the call and name
// their buffers; a = the input's symmetric name, b = the output's.
void resolve(Plan& ex, const CommArgs& a, comm::CallScope& scope) {
  const std::uint64_t in_bytes = input_bytes(ex, a, a.rank), out_bytes = output_bytes(ex, a, a.rank);
  const transport::ShmTransport& shm = shmem::g_runtime->shm();
  const std::vector<Names> all = agree(
      ex, {half_reduce(ex) ? 0 : symmetric_name(ex, ex.input, in_bytes), symmetric_name(ex, ex.output, out_bytes)},
      scope);
  ex.resolved = true;
  auto same = [&](auto field) {
    return std::all_of(all.begin(), all.end(), [&](const Names& x) { return x.*field == all[0].*field; });
  };
  const std::uint64_t input = ex.kind == Kind::Broadcast ? all[ex.root].a : same(&Names::a) ? all[0].a : 0;
  const std::uint64_t output = same(&Names::b) ? all[0].b : 0;
  const bool private_outputs = std::all_of(all.begin(), all.end(), [](const Names& x) { return x.b == 0; });
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
  ex.prepared = std::move(call);
}

// Where a round's result lands when it does not go straight into the
// output: in the window after the staged input, copied out after the call.
std::uint8_t* window_result(const Plan& ex, const CommArgs& a, std::uint64_t c, bool one_round) {
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
coll::Args round_args(const Plan& ex, const CommArgs& a, const coll::Region& region,
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
void run(Plan& ex, const CommArgs& a, const std::uint8_t* symmetric, bool streaming) {
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
void prepare_staged(Plan& ex, const CommArgs& a) {
  if (ex.prepared || ex.symmetric_input || half_reduce(ex) || ex.kind == Kind::AllToAllV) return;
  const std::uint64_t c = per_round(ex, a);
  if (ex.count > c || window_result(ex, a, c, true)) return;
  const coll::Region region{a.peerMems, a.windowBytes};
  auto call = std::make_shared<PreparedCall>();
  call->args = round_args(ex, a, region, nullptr, 0, ex.count, nullptr);
  call->args.region = nullptr;  // named at each run, with the source
  call->source_in_window = true;
  call->staged = input_bytes(ex, a, a.rank);
  ex.prepared = std::move(call);
}

void run_prepared(const Plan& ex, const CommArgs& a) {
  const PreparedCall& p = *ex.prepared;
  const coll::Region region{a.peerMems, a.windowBytes};
  coll::Args args = p.args;
  args.region = &region;
  args.dest = ex.output;
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
void run_v(Plan& ex, const CommArgs& a, bool streaming) {
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
void execute_call(Plan& ex, comm::CallScope& scope) {
  const CommArgs& a = ex.comm->args();
  const bool empty = ex.kind == Kind::AllToAllV ? std::all_of(ex.counts.begin(), ex.counts.end(),
                                                              [](std::uint64_t c) { return c == 0; })
                                                : ex.count == 0;
  if (!ex.resolved) {
    resolve(ex, a, scope);
    if (!empty) prepare_staged(ex, a);
  }
  if (ex.prepared) {
    run_prepared(ex, a);
    return divide(ex, a);
  }
  if (empty) return;
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
  divide(ex, a);
}

void execute(Plan& ex) {
  as_call(ex, [&](comm::CallScope& scope) { execute_call(ex, scope); });
}

}  // namespace

std::uint64_t AllGatherGetWorkspaceSize(Comm& comm, const void* input, void* output, std::uint64_t count,
                                        DataType dtype, Executor* ex) {
  return plan(ex, Kind::AllGather, comm, input, output, count, dtype);
}
void AllGather(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::AllGather, workspace_size));
}

void check_root(int root, const Comm& comm, Kind kind) {
  if (root < 0 || root >= comm.size())
    raise(ErrorCode::InvalidUsage, "%s: root %d is not a rank of the communicator (0..%d)", call_of(kind), root,
          comm.size() - 1);
}

std::uint64_t plan_reduce(Executor* ex, Kind kind, Comm& comm, const void* input, void* output, std::uint64_t count,
                          DataType dtype, ReduceOp op, int root = 0) {
  check_op(op, kind);
  return plan(ex, kind, comm, input, output, count, dtype, op, root);
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
  return plan_reduce(ex, Kind::Reduce, comm, input, output, count, dtype, op, root);
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
  return plan(ex, Kind::Broadcast, comm, input, output, count, dtype, ReduceOp::Sum, root);
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
  ex->reset();  // unplanned until every check passed
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
  Plan probe;
  probe.kind = Kind::AllToAllV;
  probe.dtype = dtype;
  if (longest && per_round(probe, comm.args()) == 0)
    raise(ErrorCode::InvalidUsage, "%s: the communicator's window (CommOptions::window_bytes=%llu) cannot hold one "
          "element of %s per rank pair; use a larger window", call,
          static_cast<unsigned long long>(comm.args().windowBytes), name_of(dtype));
  return plan(ex, Kind::AllToAllV, comm, input, output, 0, dtype, ReduceOp::Sum, 0, counts);
}
void AllToAllV(void*, std::uint64_t workspace_size, Executor* ex) {
  execute(checked(ex, Kind::AllToAllV, workspace_size));
}

}  // namespace tilecomm::ops
