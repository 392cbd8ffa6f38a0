// The collective-algorithm library: one entry point per kind of call site
// (a team, or a deprecated active set with its pSync array), one file per
// algorithm, one table that says which algorithm serves which call.
//
// The OpenSHMEM collectives (src/capi/coll.cpp) and the communicator of
// <tilecomm/comm.hpp> describe a call with coll::Args and hand it to run().
// Everything below that (synchronisation, selection, checked mode, failure
// messages) is the library's business; see docs/ARCHITECTURE.md, "Collectives".
#pragma once

#include <chrono>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

struct tilecomm_team;

namespace tilecomm {
struct Config;
}

namespace tilecomm::coll {

/// What a call computes. Reduce is the all-reduce of OpenSHMEM (every PE
/// gets the result). ReduceScatter and Alltoallv serve the communicator's
/// operators (<tilecomm/ops.hpp>); OpenSHMEM has no such routines.
enum class Kind : std::uint8_t { Broadcast, Collect, Fcollect, Alltoall, Alltoalls, Reduce, ReduceScatter, Alltoallv };
constexpr int kKinds = 8;
const char* kind_name(Kind k);  // "broadcast", ... "reduce_scatter" (TILECOMM_COLL_<NAME> in capitals)

enum class Op : std::uint8_t { And, Or, Xor, Max, Min, Sum, Prod };
const char* op_name(Op op);  // "and", ... "prod"

/// Element types of reductions, by representation: the C types of the
/// specification's tables map onto these (dtype_of<T>).
enum class DType : std::uint8_t {
  Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  Float, Double, LongDouble, ComplexFloat, ComplexDouble,
};
const char* dtype_name(DType t);  // "int8", ... "complexd"
std::size_t dtype_size(DType t);

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::Float;
  else if constexpr (std::is_same_v<T, double>) return DType::Double;
  else if constexpr (std::is_same_v<T, long double>) return DType::LongDouble;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DType::ComplexFloat;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return DType::ComplexDouble;
  else {
    static_assert(std::is_integral_v<T>, "not a reduction type");
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) return s ? DType::Int8 : DType::UInt8;
    else if constexpr (sizeof(T) == 2) return s ? DType::Int16 : DType::UInt16;
    else if constexpr (sizeof(T) == 4) return s ? DType::Int32 : DType::UInt32;
    else return s ? DType::Int64 : DType::UInt64;
  }
}

/// Memory outside the symmetric heap that every member maps, such as a
/// communicator's windows: bases[m] is member m's region as mapped here,
/// `bytes` long. Data addresses of a call may lie in it instead of the heap.
struct Region {
  std::uint8_t* const* bases;
  std::size_t bytes;
};

/// One collective call, as every member of the team passes it.
struct Args {
  Kind kind = Kind::Broadcast;
  void* dest = nullptr;            // symmetric
  const void* source = nullptr;    // symmetric
  std::size_t count = 0;           // elements: per PE (broadcast, fcollect, collect: this PE's),
                                   // per peer (alltoall, alltoalls), per reduction (reduce),
                                   // per member's slice (reduce_scatter: source holds members x count)
                                   // (alltoallv: unused; counts says)
  std::size_t elem = 1;            // bytes per element
  int root = 0;                    // broadcast: root's number in the team or active set
  std::ptrdiff_t dst_stride = 1;   // alltoalls: element strides
  std::ptrdiff_t src_stride = 1;
  Op op = Op::Sum;                 // reduce, reduce_scatter
  DType dtype = DType::Int8;       // reduce, reduce_scatter (elem == dtype_size(dtype))
  const std::uint64_t* counts = nullptr;  // alltoallv: members x members elements, [s * members + d] from s
                                          // to d, the same on every member; blocks packed in member order
  bool root_dest = true;           // broadcast: the root's dest is written too (false: active sets)
  const char* call = "";           // the API routine, for messages ("shmem_long_sum_reduce")
  const Region* region = nullptr;  // source and dest may lie in it (teams only; load/store)
  bool dest_private = false;       // dest is this member's private memory: no peer reads it
  bool source_scratch = false;     // source is the caller's staged copy, which the call may overwrite:
                                   // rsag then serves a private dest (it publishes through the source)
};

/// Runs a team collective. Returns 0, or -1 when `team` is SHMEM_TEAM_INVALID
/// (nothing happens then, on that PE). Ends the job with a message naming
/// args.call on misuse, when a member fails, or when checked mode
/// (TILECOMM_CHECK=1) finds members that made different calls.
int run(tilecomm_team* team, const Args& args);

/// Runs a deprecated active-set collective (start, 2^log_stride, size) whose
/// synchronisation words live in `psync` (at least SHMEM_SYNC_SIZE longs,
/// all SHMEM_SYNC_VALUE on entry, and again on return).
void run_active_set(int start, int log_stride, int size, long* psync, const Args& args);

/// Gathers `len` bytes from every member of `team` into `all` (member order,
/// len bytes each). Buffers are local (not symmetric); len is at most 64
/// bytes. For setup exchanges (the communicator's window keys, the
/// operators' first run: NOTE [inputs in place]). Collective.
void exchange(tilecomm_team* team, const void* mine, std::size_t len, void* all, const char* call);

/// The selection table with the current TILECOMM_COLL_* settings, for tilecomm-info.
std::string selection_table();

/// Bytes a PE writes in one call from which the library's copies use
/// non-temporal stores: TILECOMM_COLL_STREAM, or kNeverStream on a CPU with
/// fast string moves, or 16 times this CPU's L2 cache (NOTE [streaming copies]).
std::size_t stream_bytes(const Config& cfg);
inline constexpr std::size_t kNeverStream = ~std::size_t{0};

/// The measurements behind the choice of stores for one kind of call and
/// size (NOTE [publishing stores] in copy.cpp): next() names the stores of
/// the next call (true: streaming), add() takes that call's time.
struct StoreRecord {
  static constexpr std::uint32_t kFirstInterval = 16, kLastInterval = 1024;
  double cost[2] = {0, 0};  // seconds per call, [streaming]: the warm-up's best, then an average, or the last probe
  std::uint32_t warm = 0;   // warm-up calls measured, up to 4
  std::uint32_t interval = kFirstInterval, until_probe = kFirstInterval;
  bool kept = false;  // streaming

  bool next() const { return warm < 4 ? (warm & 1) != 0 : until_probe == 0 ? !kept : kept; }
  void add(bool streaming, double t);
};

inline constexpr std::uint32_t kPublishedByLibrary = 0x100;

/// The stores of one call's copies that peers read next (NOTE [publishing
/// stores] in copy.cpp): TILECOMM_PUBLISH_STORES, or by default chosen on
/// each thread per kind of call and size by measuring both. Construct it
/// where the call starts and call done() where it ends; a call that throws
/// records nothing.
class PublishStores {
 public:
  /// `kind`: the kind of call (the operators' Executor::Kind, below 0x100;
  /// the library's kPublishedByLibrary + its Kind); `bytes`:
  /// what this PE publishes in the call (0: nothing, so nothing to choose).
  PublishStores(std::uint32_t kind, std::uint64_t bytes);
  bool streaming() const { return streaming_; }
  void done();

 private:
  StoreRecord* record_ = nullptr;  // null: not measured (forced, or too few bytes)
  bool streaming_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tilecomm::coll
