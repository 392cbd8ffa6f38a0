// The communicator's C API (<tilecomm/comm.h>): handles over tilecomm::Comm,
// errors as codes plus a per-thread message; the one-call operators; C
// kernels with the orchestration helpers (NOTE [C kernel errors] in the header).
#include "tilecomm/comm.h"

#include <array>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>

#include "tilecomm/comm.hpp"
#include "tilecomm/ops.hpp"
#include "tilecomm/orchestration.hpp"

// A handle is never freed, so that a destroyed handle can never come back
// to life as the address of a new one: destroy releases the communicator
// and keeps the few bytes of the handle in g_dead.
struct tilecomm_comm {
  tilecomm::Comm comm;
  int users = 0;  // operators and launches running on it (guarded by g_live_mutex): destroy refuses meanwhile
};

namespace {

thread_local std::string t_last_error;
std::mutex g_live_mutex;                // guards g_live, and a handle while a call uses it
std::set<const tilecomm_comm*> g_live;  // handles created and not yet destroyed
// Destroyed handles, kept (never destroyed, so still reachable at exit) so
// that no new handle reuses their address.
std::set<const tilecomm_comm*>& g_dead = *new std::set<const tilecomm_comm*>;

tilecomm_result_t code_of(tilecomm::ErrorCode c) {
  switch (c) {
    case tilecomm::ErrorCode::InvalidUsage: return TILECOMM_ERROR_INVALID_USAGE;
    case tilecomm::ErrorCode::Timeout: return TILECOMM_ERROR_TIMEOUT;
    case tilecomm::ErrorCode::Transport: return TILECOMM_ERROR_TRANSPORT;
    case tilecomm::ErrorCode::Remote: return TILECOMM_ERROR_REMOTE;
    case tilecomm::ErrorCode::System: return TILECOMM_ERROR_SYSTEM;
  }
  return TILECOMM_ERROR_SYSTEM;
}

// Runs body, turning an Error into its code and message.
template <class Body>
tilecomm_result_t guarded(const char* call, Body&& body) {
  try {
    body();
    t_last_error.clear();
    return TILECOMM_SUCCESS;
  } catch (const tilecomm::Error& e) {
    t_last_error = std::string(call) + ": " + e.what();
    return code_of(e.code());
  } catch (const std::exception& e) {
    t_last_error = std::string(call) + ": " + e.what();
    return TILECOMM_ERROR_SYSTEM;
  } catch (...) {
    t_last_error = std::string(call) + ": an exception that is not a std::exception";
    return TILECOMM_ERROR_SYSTEM;
  }
}

constexpr const char* kNotLive = "the communicator handle is not live (destroyed, or never created)";

tilecomm_result_t usage(const char* call, const std::string& what) {
  t_last_error = std::string(call) + ": " + what;
  return TILECOMM_ERROR_INVALID_USAGE;
}

tilecomm::CommOptions options_of(const tilecomm_comm_options_t* o) {
  tilecomm::CommOptions opts;
  if (o && o->window_bytes) opts.window_bytes = o->window_bytes;
  if (o && o->flag_bytes) opts.flag_bytes = o->flag_bytes;
  return opts;
}

template <class Make>
tilecomm_result_t create(const char* call, tilecomm_comm_t* out, Make&& make) {
  if (!out) return usage(call, "the output handle pointer is NULL");
  *out = nullptr;
  return guarded(call, [&] {
    auto* h = new tilecomm_comm{make()};
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.insert(h);
    *out = h;
  });
}

// Runs body(comm) on a live handle with a non-null output; the handle
// cannot be destroyed meanwhile.
template <class Out, class Body>
tilecomm_result_t query(const char* call, tilecomm_comm_t h, Out* out, Body&& body) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  if (!g_live.count(h)) return usage(call, kNotLive);
  if (!out) return usage(call, "the output pointer is NULL");
  return guarded(call, [&] { *out = body(h->comm); });
}

// Runs body(comm) on a live handle, like query, but without holding
// g_live_mutex: an operator or a launch runs long, on several threads
// (another communicator's calls must not wait for it, nor a kernel's
// queries deadlock on it). The handle counts as in use meanwhile, so that
// destroy refuses it instead of freeing it under the call.
template <class Body>
tilecomm_result_t use(const char* call, tilecomm_comm_t h, Body&& body) {
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    if (!g_live.count(h)) return usage(call, kNotLive);
    ++h->users;
  }
  const tilecomm_result_t rc = guarded(call, [&] { body(h->comm); });
  std::lock_guard<std::mutex> lock(g_live_mutex);
  --h->users;
  return rc;
}

// ---- operators ----------------------------------------------------------------------

namespace ops = tilecomm::ops;

// The C enumerators are the C++ ones (the C values are public ABI).
static_assert(TILECOMM_INT8 == static_cast<int>(ops::DataType::Int8));
static_assert(TILECOMM_INT16 == static_cast<int>(ops::DataType::Int16));
static_assert(TILECOMM_INT32 == static_cast<int>(ops::DataType::Int32));
static_assert(TILECOMM_INT64 == static_cast<int>(ops::DataType::Int64));
static_assert(TILECOMM_FP16 == static_cast<int>(ops::DataType::Fp16));
static_assert(TILECOMM_BF16 == static_cast<int>(ops::DataType::Bf16));
static_assert(TILECOMM_FP32 == static_cast<int>(ops::DataType::Fp32));
static_assert(TILECOMM_FP64 == static_cast<int>(ops::DataType::Fp64));
static_assert(TILECOMM_UINT8 == static_cast<int>(ops::DataType::Uint8));
static_assert(TILECOMM_UINT16 == static_cast<int>(ops::DataType::Uint16));
static_assert(TILECOMM_UINT32 == static_cast<int>(ops::DataType::Uint32));
static_assert(TILECOMM_UINT64 == static_cast<int>(ops::DataType::Uint64));
static_assert(TILECOMM_SUM == static_cast<int>(ops::ReduceOp::Sum));
static_assert(TILECOMM_PROD == static_cast<int>(ops::ReduceOp::Prod));
static_assert(TILECOMM_MAX == static_cast<int>(ops::ReduceOp::Max));
static_assert(TILECOMM_MIN == static_cast<int>(ops::ReduceOp::Min));
static_assert(TILECOMM_AVG == static_cast<int>(ops::ReduceOp::Avg));

// A C enum's value as the caller's int, whatever it holds (C lets any int
// through; in C++ a value outside the enumerators' range may not even be
// loaded as the enum, so its bytes are copied).
template <class E>
int value_of(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Checked before the C++ enum (8 bits wide) would wrap a wrong value into a right one.
ops::DataType dtype_of(const tilecomm_datatype_t& t) {
  const int v = value_of(t);
  if (v < TILECOMM_INT8 || v > TILECOMM_UINT64)
    throw tilecomm::Error(tilecomm::ErrorCode::InvalidUsage,
                          "data type " + std::to_string(v) + " is not a tilecomm_datatype_t (TILECOMM_INT8 = 0 .. "
                          "TILECOMM_UINT64 = 11)");
  return static_cast<ops::DataType>(v);
}

ops::ReduceOp op_of(const tilecomm_reduce_op_t& op) {
  const int v = value_of(op);
  if (v < TILECOMM_SUM || v > TILECOMM_AVG)
    throw tilecomm::Error(tilecomm::ErrorCode::InvalidUsage,
                          "reduce operation " + std::to_string(v) + " is not a tilecomm_reduce_op_t (TILECOMM_SUM = "
                          "0 .. TILECOMM_AVG = 4)");
  return static_cast<ops::ReduceOp>(v);
}

ops::MatmulShape shape_of(const tilecomm_matmul_shape_t& s) { return ops::MatmulShape{s.m, s.k, s.n}; }

// ---- kernels --------------------------------------------------------------------------

// The first failure of a helper in the calling block's C kernel (NOTE [C
// kernel errors] in the header): set by the helper, rethrown by the block
// when the kernel returns.
struct KernelBlock {
  bool failed = false;
  tilecomm::ErrorCode code = tilecomm::ErrorCode::InvalidUsage;
  std::string what;
};
thread_local KernelBlock* t_kernel = nullptr;

// Binds t_kernel to one block's state for the duration of its C kernel.
class KernelScope {
 public:
  explicit KernelScope(KernelBlock& b) { t_kernel = &b; }
  ~KernelScope() { t_kernel = nullptr; }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;
};

// Runs one helper: refused outside a C kernel, skipped after the block's
// first failure, which it keeps otherwise.
template <class Helper>
tilecomm_result_t helper(const char* call, Helper&& run) {
  if (!t_kernel)
    return usage(call, "called outside a kernel run by tilecomm_comm_launch (the helpers need the launch's "
                       "communicator and magic, and end the launch when they fail)");
  KernelBlock& b = *t_kernel;
  if (b.failed) {
    t_last_error = std::string(call) + ": not run: this block's kernel already failed (" + b.what +
                   "); return from the kernel";
    return code_of(b.code);
  }
  auto keep = [&](tilecomm::ErrorCode code, const char* what) {
    b.failed = true;
    b.code = code;
    b.what = t_last_error = std::string(call) + ": " + what;
    return code_of(code);
  };
  try {
    run();
    t_last_error.clear();
    return TILECOMM_SUCCESS;
  } catch (const tilecomm::Error& e) {
    return keep(e.code(), e.what());
  } catch (const std::exception& e) {
    return keep(tilecomm::ErrorCode::System, e.what());
  }
}

}  // namespace

extern "C" {

tilecomm_result_t tilecomm_comm_init_all(const tilecomm_comm_options_t* options, tilecomm_comm_t* comm) {
  return create("tilecomm_comm_init_all", comm, [&] { return tilecomm::Comm::world(options_of(options)); });
}

tilecomm_result_t tilecomm_comm_init_team(shmem_team_t team, const tilecomm_comm_options_t* options,
                                          tilecomm_comm_t* comm) {
  return create("tilecomm_comm_init_team", comm, [&] { return tilecomm::Comm::from_team(team, options_of(options)); });
}

tilecomm_result_t tilecomm_comm_get_unique_id(shmemx_uniqueid_t* id) {
  if (!id) return usage("tilecomm_comm_get_unique_id", "the output pointer is NULL");
  return guarded("tilecomm_comm_get_unique_id", [&] { *id = tilecomm::Comm::unique_id(); });
}

tilecomm_result_t tilecomm_comm_init_rank(int nranks, const shmemx_uniqueid_t* id, int rank,
                                          const tilecomm_comm_options_t* options, tilecomm_comm_t* comm) {
  if (!id) return usage("tilecomm_comm_init_rank", "the unique ID pointer is NULL");
  return create("tilecomm_comm_init_rank", comm,
                [&] { return tilecomm::Comm::init_rank(nranks, *id, rank, options_of(options)); });
}

tilecomm_result_t tilecomm_comm_destroy(tilecomm_comm_t h) {
  constexpr const char* call = "tilecomm_comm_destroy";
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    if (!g_live.count(h)) return usage(call, kNotLive);
    if (h->users > 0)
      return usage(call, "the communicator is in use by " + std::to_string(h->users) + " operator or launch call(s) "
                         "of other threads (or of the kernel calling this); destroy it after they returned");
    g_live.erase(h);
    g_dead.insert(h);
  }
  return guarded(call, [&] { h->comm.destroy(); });  // the handle stays in g_dead
}

tilecomm_result_t tilecomm_comm_rank(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_rank", h, v, [](const tilecomm::Comm& c) { return c.rank(); });
}
tilecomm_result_t tilecomm_comm_size(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_size", h, v, [](const tilecomm::Comm& c) { return c.size(); });
}
tilecomm_result_t tilecomm_comm_local_rank(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_local_rank", h, v, [](const tilecomm::Comm& c) { return c.local_rank(); });
}
tilecomm_result_t tilecomm_comm_local_size(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_local_size", h, v, [](const tilecomm::Comm& c) { return c.local_size(); });
}
tilecomm_result_t tilecomm_comm_next_magic(tilecomm_comm_t h, unsigned int* v) {
  return query("tilecomm_comm_next_magic", h, v, [](tilecomm::Comm& c) { return c.NextMagic(); });
}

tilecomm_result_t tilecomm_comm_window(tilecomm_comm_t h, int rank, void** data, size_t* data_bytes, void** flags,
                                       size_t* flag_bytes) {
  constexpr const char* call = "tilecomm_comm_window";
  // Any output may be NULL: the caller does not want that value.
  tilecomm::Window w;
  tilecomm_result_t rc = query(call, h, &w, [&](const tilecomm::Comm& c) { return c.window(rank); });
  if (rc != TILECOMM_SUCCESS) return rc;
  if (data) *data = w.data;
  if (data_bytes) *data_bytes = w.data_bytes;
  if (flags) *flags = w.flags;
  if (flag_bytes) *flag_bytes = w.flag_bytes;
  return rc;
}

const char* tilecomm_comm_last_error(void) { return t_last_error.c_str(); }

// ---- operators ----------------------------------------------------------------------

tilecomm_result_t tilecomm_allgather(tilecomm_comm_t h, const void* input, void* output, uint64_t count,
                                     tilecomm_datatype_t dtype) {
  return use("tilecomm_allgather", h,
             [&](tilecomm::Comm& c) { ops::AllGather(c, input, output, count, dtype_of(dtype)); });
}

tilecomm_result_t tilecomm_reduce_scatter(tilecomm_comm_t h, const void* input, void* output, uint64_t count,
                                          tilecomm_datatype_t dtype, tilecomm_reduce_op_t op) {
  return use("tilecomm_reduce_scatter", h,
             [&](tilecomm::Comm& c) { ops::ReduceScatter(c, input, output, count, dtype_of(dtype), op_of(op)); });
}

tilecomm_result_t tilecomm_allreduce(tilecomm_comm_t h, const void* input, void* output, uint64_t count,
                                     tilecomm_datatype_t dtype, tilecomm_reduce_op_t op) {
  return use("tilecomm_allreduce", h,
             [&](tilecomm::Comm& c) { ops::AllReduce(c, input, output, count, dtype_of(dtype), op_of(op)); });
}

tilecomm_result_t tilecomm_reduce(tilecomm_comm_t h, const void* input, void* output, uint64_t count,
                                  tilecomm_datatype_t dtype, tilecomm_reduce_op_t op, int root) {
  return use("tilecomm_reduce", h,
             [&](tilecomm::Comm& c) { ops::Reduce(c, input, output, count, dtype_of(dtype), op_of(op), root); });
}

tilecomm_result_t tilecomm_broadcast(tilecomm_comm_t h, const void* input, void* output, uint64_t count,
                                     tilecomm_datatype_t dtype, int root) {
  return use("tilecomm_broadcast", h,
             [&](tilecomm::Comm& c) { ops::Broadcast(c, input, output, count, dtype_of(dtype), root); });
}

tilecomm_result_t tilecomm_alltoall(tilecomm_comm_t h, const void* input, void* output, uint64_t count,
                                    tilecomm_datatype_t dtype) {
  return use("tilecomm_alltoall", h,
             [&](tilecomm::Comm& c) { ops::AllToAll(c, input, output, count, dtype_of(dtype)); });
}

tilecomm_result_t tilecomm_alltoallv(tilecomm_comm_t h, const void* input, void* output, const uint64_t* counts,
                                     tilecomm_datatype_t dtype) {
  return use("tilecomm_alltoallv", h,
             [&](tilecomm::Comm& c) { ops::AllToAllV(c, input, output, counts, dtype_of(dtype)); });
}

tilecomm_result_t tilecomm_allgather_add(tilecomm_comm_t h, const void* a, const void* b, void* c, uint64_t count,
                                         tilecomm_datatype_t dtype) {
  return use("tilecomm_allgather_add", h,
             [&](tilecomm::Comm& comm) { ops::AllGatherAdd(comm, a, b, c, count, dtype_of(dtype)); });
}

tilecomm_result_t tilecomm_allgather_matmul(tilecomm_comm_t h, const void* x1, const void* x2, const void* bias,
                                            void* y, void* gather_out, tilecomm_matmul_shape_t shape,
                                            tilecomm_datatype_t dtype) {
  return use("tilecomm_allgather_matmul", h, [&](tilecomm::Comm& c) {
    ops::AllGatherMatmul(c, x1, x2, bias, y, gather_out, shape_of(shape), dtype_of(dtype));
  });
}

tilecomm_result_t tilecomm_matmul_reduce_scatter(tilecomm_comm_t h, const void* x1, const void* x2,
                                                 const void* bias, void* y, tilecomm_matmul_shape_t shape,
                                                 tilecomm_datatype_t dtype) {
  return use("tilecomm_matmul_reduce_scatter", h, [&](tilecomm::Comm& c) {
    ops::MatmulReduceScatter(c, x1, x2, bias, y, shape_of(shape), dtype_of(dtype));
  });
}

tilecomm_result_t tilecomm_matmul_allreduce(tilecomm_comm_t h, const void* x1, const void* x2, const void* bias,
                                            void* y, tilecomm_matmul_shape_t shape, tilecomm_datatype_t dtype) {
  return use("tilecomm_matmul_allreduce", h, [&](tilecomm::Comm& c) {
    ops::MatmulAllReduce(c, x1, x2, bias, y, shape_of(shape), dtype_of(dtype));
  });
}

// ---- kernels --------------------------------------------------------------------------

tilecomm_result_t tilecomm_comm_launch(tilecomm_comm_t h, int blocks, tilecomm_kernel_fn_t kernel, void* user) {
  constexpr const char* call = "tilecomm_comm_launch";
  if (!kernel) return usage(call, "the kernel is NULL");  // before Comm::launch draws a magic
  return use(call, h, [&](tilecomm::Comm& c) {
    c.launch(blocks, [&](const tilecomm::CommArgs& a) {
      // This launch's partitions (CommArgs::data / flags), NULL for ranks not mapped here.
      std::array<void*, tilecomm::kCommMaxRanks> data{};
      std::array<std::uint64_t*, tilecomm::kCommMaxRanks> flags{};
      for (int r = 0; r < a.rankSize; ++r) {
        if (a.peerMems[r]) data[r] = a.data(r);
        if (a.peerFlags[r]) flags[r] = a.flags(r);
      }
      const tilecomm_kernel_args_t args{a.rank,
                                        a.rankSize,
                                        a.localRank,
                                        a.localRankSize,
                                        static_cast<int>(pto::GetBlockIdx()),
                                        static_cast<int>(pto::GetBlockNum()),
                                        a.magic,
                                        a.partitionBytes(),
                                        a.flagBytes / 2,
                                        data.data(),
                                        flags.data()};
      KernelBlock block;
      {
        KernelScope scope(block);
        kernel(&args, user);
      }
      // A helper failed: fail this block as a C++ kernel's failed helper
      // does, so that its siblings stop and Comm::launch throws.
      if (block.failed) throw tilecomm::Error(block.code, block.what);
    });
  });
}

tilecomm_result_t tilecomm_record(int peer, uint32_t tag) {
  return helper("tilecomm_record", [&] { tilecomm::orch::Record(peer, tag); });
}
tilecomm_result_t tilecomm_wait(int peer, uint32_t tag) {
  return helper("tilecomm_wait", [&] { tilecomm::orch::Wait(peer, tag); });
}
tilecomm_result_t tilecomm_record_1vn(uint32_t tag) {
  return helper("tilecomm_record_1vn", [&] { tilecomm::orch::Record1vN(tag); });
}
tilecomm_result_t tilecomm_wait_nv1(int peer, uint32_t tag) {
  return helper("tilecomm_wait_nv1", [&] { tilecomm::orch::WaitNv1(peer, tag); });
}
tilecomm_result_t tilecomm_record_nv1(int peer, uint32_t tag) {
  return helper("tilecomm_record_nv1", [&] { tilecomm::orch::RecordNv1(peer, tag); });
}
tilecomm_result_t tilecomm_wait_1vn(uint32_t tag) {
  return helper("tilecomm_wait_1vn", [&] { tilecomm::orch::Wait1vN(tag); });
}

}  // extern "C"
