// The SHMEM runtime: one per process, created by shmem_init.
//
// It owns the bootstrap connection, the symmetric segments (heap and the
// executable's data), the transports and the predefined teams and context.
// The C API (src/capi) is a thin layer over the inline operations below.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bootstrap/client.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/wait.hpp"
#include "memory/data_segment.hpp"
#include "memory/heap.hpp"
#include "memory/segment.hpp"
#include "transport/dma/dma_transport.hpp"
#include "transport/shm/shm_transport.hpp"
#include "transport/ucx/ucx_transport.hpp"

namespace tilecomm::shmem {

constexpr int kMaxTeams = 64;   // team slots: barrier flags and ids
constexpr int kMaxRounds = 24;  // dissemination rounds: teams up to 2^24 PEs
constexpr int kPushMembers = 16;  // collectives: teams of up to this many members may push (NOTE [pushed words])
constexpr int kLeaderHosts = 16;  // collectives: teams over up to this many hosts may go host by host (NOTE [host leaders])

/// One cache line per flag, so that PEs spinning on neighbouring flags do
/// not share lines.
struct alignas(64) Flag {
  std::atomic<std::uint64_t> value;
};

constexpr int kCollSlots = 32;   // collectives: scratch slots per team (NOTE [scratch slots])
constexpr int kCollLines = 128;  // collectives: cache lines per ring of tagged records (NOTE [tagged lines])
constexpr int kCollRings = 3;    // collectives: rings of tagged records per team, of 16, 64 and 128-byte records
constexpr std::size_t kScratchSkew = 64;  // collectives: each scratch slot starts a line further on (NOTE [scratch slots])

/// The synchronisation words of one member of a team's collectives, each
/// on its own cache line (see src/coll/algorithm.hpp, NOTE [collective words]).
struct CollWords {
  Flag word[5];                // arrive, done, progress, count, check
  alignas(64) std::uint64_t record[16];  // checked mode: the leader's call
  alignas(64) std::atomic<std::uint64_t> pushed[kPushMembers];  // member k's pushes to me (NOTE [pushed words])
  alignas(64) std::atomic<std::uint64_t> led[kLeaderHosts];      // host h's leader's pushes to me (NOTE [host leaders])
};

/// The first bytes of every PE's heap segment: runtime state that peers
/// reach with the same offsets on every PE.
struct ControlBlock {
  Flag barrier[kMaxTeams][kMaxRounds];  // dissemination flags, per team slot and round
  CollWords coll[kMaxTeams];            // collectives, per team slot
  std::uint64_t free_slots[kMaxTeams];  // team creation: my free-slot mask, per parent slot
  struct AllocRecord {                  // collective allocation check
    std::uint64_t seq, op, size, align, offset;
    std::int64_t status;                // 0 or an errno
  } alloc;
};

/// The transport a put or get to a peer takes (TILECOMM_TRANSPORTS).
using Route = TransportKind;

struct LaunchInfo {
  int my_pe = 0;
  int n_pes = 1;
  std::string rendezvous;  // empty: singleton
};

}  // namespace tilecomm::shmem

/// The index of `pe` in the progression start, start + stride, ... of `size`
/// terms, or -1 if it is not one of them. The stride may be negative, never 0.
inline int progression_index(int start, int stride, int size, int pe) {
  const int d = pe - start;
  if (d % stride != 0) return -1;
  const int i = d / stride;
  return i >= 0 && i < size ? i : -1;
}

/// A team: an arithmetic progression of world PEs (start, stride, size); a
/// negative stride lists them downwards (split_strided with stride < 0).
struct tilecomm_team {
  int start = 0, stride = 1, size = 1;
  int my_pe = 0;  // this PE's number in the team
  int slot = 0;   // team slot: barrier flags
  int num_contexts = 0;
  long config_mask = 0;
  std::uint64_t epoch = 0;  // barriers completed
  struct {                  // collectives (src/coll): what this PE knows of the team's calls
    std::uint64_t epoch = 0;    // calls made
    std::uint64_t done = 0;     // reads of my data that peers have reported, in total
    std::uint64_t checks = 0;   // checked-mode confirmations received as leader, in total
    std::uint64_t entered = 0;  // every member has entered this call
    std::uint64_t pushed[tilecomm::shmem::kPushMembers] = {};  // my pushed word's value on each member (NOTE [pushed words])
    std::uint64_t led[tilecomm::shmem::kLeaderHosts] = {};     // as leader: my led word's value on each host's leader
    std::vector<int> host;                  // each member's host, numbered by first member (NOTE [host leaders])
    std::vector<std::vector<int>> members;  // each host's members, ascending (its leader first)
    int widest = 0;                         // members on the team's most populated host
  } coll;
  bool predefined = false;

  int world(int team_pe) const { return start + team_pe * stride; }
  /// This team's number of world PE `world_pe`, or -1 for a non-member.
  int team_pe(int world_pe) const { return progression_index(start, stride, size, world_pe); }
};

/// A communication context: a team and the options it was made with.
struct tilecomm_ctx {
  tilecomm_team* team = nullptr;
  long options = 0;
};

namespace tilecomm::shmem {

class Runtime {
 public:
  /// Builds the runtime for this process; throws tilecomm::Error.
  Runtime(const Config& cfg, const LaunchInfo& launch);
  ~Runtime();

  const Config& config() const { return cfg_; }
  int my_pe() const { return my_pe_; }
  int n_pes() const { return n_pes_; }
  transport::ShmTransport& shm() { return *shm_; }
  /// The SDMA transport, started on first use (shmemx_sdma_*, or routed).
  transport::DmaTransport& dma();
  /// UCX, when TILECOMM_TRANSPORTS lists it (else nullptr).
  transport::UcxTransport* ucx() { return ucx_.get(); }
  /// Route of puts and gets to world PE `pe`; routed(): some peer's route is not mte.
  Route route(int pe) const { return routes_[pe]; }
  bool routed() const { return routed_; }
  /// The transport that carries gets and puts to world PE `pe` (its route),
  /// and the one that carries atomics to it (ucx when routed so, else shm).
  transport::Transport& transport(int pe);
  transport::Transport& atomics(int pe);
  /// shmem_quiet / shmem_fence over every transport in use; a transport
  /// that cannot complete (a peer died) ends the job naming `call`.
  void quiet(const char* call);
  void fence(const char* call);
  ControlBlock& control() { return *control_; }
  ControlBlock& control(int pe) { return *reinterpret_cast<ControlBlock*>(shm_->translate(control_, pe)); }
  /// This PE's collective scratch of team slot `team` for call number
  /// `call`: slot call % kCollSlots of TILECOMM_COLL_SCRATCH / kCollSlots
  /// bytes (NOTE [scratch slots]).
  char* coll_scratch(int team, std::uint64_t call) const {
    return heap_.base() + coll_scratch_offset_ + team * team_scratch_bytes(cfg_) +
           call % kCollSlots * (cfg_.coll_scratch / kCollSlots + kScratchSkew);
  }
  /// This PE's kCollRings rings of kCollLines cache lines each, holding
  /// the tagged records of team slot `team`, after its scratch slots
  /// (NOTE [tagged lines]).
  char* coll_lines(int team) const { return coll_scratch(team, 0) + cfg_.coll_scratch + kCollSlots * kScratchSkew; }
  static constexpr std::size_t kCollLinesBytes = std::size_t{kCollRings} * kCollLines * 64;
  static std::size_t team_scratch_bytes(const Config& cfg) {
    return kCollLinesBytes + cfg.coll_scratch + kCollSlots * kScratchSkew;
  }
  const memory::Segment& heap() const { return heap_; }
  std::size_t heap_offset(const void* p) const { return static_cast<const char*>(p) - heap_.base(); }
  /// World PE `pe` is on this host (its memory is mapped here); some PE is not.
  bool local(int pe) const { return local_[pe]; }
  bool spans_hosts() const { return spans_hosts_; }
  /// The first PE of world PE `pe`'s host: PEs with the same answer share a
  /// host (init's map of the job's hosts, NOTE [keyed gathers]).
  int host_of(int pe) const;
  /// Atomic `op` on an 8-byte word of world PE `pe`: `word` is my own copy
  /// of it (a symmetric address); through the mapping on this host, else
  /// UCX. A transport failure ends the job naming `call`.
  std::uint64_t word_op(int pe, transport::AtomicOp op, void* word, std::uint64_t value, const char* call,
                        std::uint64_t compare = 0);
  /// Copies `n` bytes of world PE `pe`'s copy of my symmetric `src` to `dst`, the same way.
  void read(int pe, void* dst, const void* src, std::size_t n, const char* call);
  /// More PEs than the CPUs the job may use (tcrun's count, or the union of
  /// the PEs' affinity masks: the same on every PE, so that every PE takes
  /// the same decisions, e.g. the barrier algorithm).
  bool oversubscribed() const { return oversubscribed_; }

  /// Collective allocation over all PEs (shmem_malloc family); see alloc.cpp.
  /// Collective allocation; size 0 is no action and NULL on every PE (OpenSHMEM 1.5).
  void* allocate(const char* call, std::size_t size, std::size_t align, bool zero);
  void release(const char* call, void* ptr);
  void* reallocate(const char* call, void* ptr, std::size_t size);

  /// Barrier over a team's members with dissemination flags (no quiet).
  void team_sync(tilecomm_team& team, const char* call);
  void central_sync(tilecomm_team& team, std::uint64_t epoch, const char* call);
  /// Barriers take the central form: oversubscribed, and its members poll
  /// team PE 0's flag, so only on one host (NOTE [host groups]).
  bool central() const { return oversubscribed_ && !spans_hosts_; }
  /// Before a team's slot is freed: a barrier after which no member still
  /// reads another member's flags (team_sync alone leaves the central
  /// barrier's members polling team PE 0's release flag after it returned).
  void team_quiesce(tilecomm_team& team, const char* call);
  /// Reserves `count` team slots agreed by every member of `parent`;
  /// fills `slots` and returns true, or false when slots are exhausted.
  bool agree_slots(tilecomm_team& parent, int count, int* slots, const char* call);
  void free_slot(int slot);
  void reset_slot(int slot);
  void back_scratch(int slot);  // fallocate team slot `slot`'s collective scratch

  /// shmem_finalize after its quiet: the last barrier of `world`, then the
  /// bootstrap's goodbye.
  void finalize(tilecomm_team& world);
  [[noreturn]] void global_exit(int status);

 private:
  void set_routes();
  void start_ucx();
  void quiet_engine(const char* call);
  Config cfg_;
  int my_pe_, n_pes_;
  std::unique_ptr<bootstrap::Client> client_;
  memory::Segment heap_;
  memory::Segment data_;
  std::unique_ptr<transport::ShmTransport> shm_;
  std::once_flag dma_once_;
  std::unique_ptr<transport::DmaTransport> dma_;
  std::atomic<bool> dma_started_{false};
  std::unique_ptr<transport::UcxTransport> ucx_;
  std::vector<Route> routes_;
  bool routed_ = false;
  ControlBlock* control_ = nullptr;
  std::size_t coll_scratch_offset_ = 0;
  std::mutex alloc_mutex_;
  memory::HeapAllocator alloc_;
  std::uint64_t alloc_seq_ = 0;
  std::mutex slot_mutex_;
  std::uint64_t used_slots_ = 0;
  std::vector<char> local_;
  std::vector<bootstrap::GatherRun> hosts_;  // every PE's host, as runs of PEs
  bool spans_hosts_ = false;
  bool oversubscribed_ = false;
};

// ---- process-wide state -----------------------------------------------------

enum class State : int { Uninitialized, Ready, Finalized };
extern std::atomic<int> g_state;
extern Runtime* g_runtime;
extern int g_thread_level;

/// Ends the job: a usage error in call `call`.
[[noreturn]] void usage_error(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] void not_ready(const char* call);

/// The runtime, or a fatal error naming `call` before init / after finalize.
inline Runtime& rt(const char* call) {
  if (TC_UNLIKELY(g_state.load(std::memory_order_relaxed) != static_cast<int>(State::Ready))) not_ready(call);
  return *g_runtime;
}

/// World PE of `pe` in `ctx`'s team, checked.
inline int world_pe(const tilecomm_ctx* ctx, int pe, const char* call) {
  const tilecomm_team* t = ctx->team;
  if (TC_UNLIKELY(static_cast<unsigned>(pe) >= static_cast<unsigned>(t->size)))
    usage_error(call, "PE %d is out of range: the %s has PEs 0..%d", pe,
                t->predefined && t->start == 0 && t->stride == 1 ? "job" : "context's team", t->size - 1);
  return t->world(pe);
}

/// Peer address of symmetric `addr` on world PE `pe`, checked.
inline char* remote(const void* addr, int pe, const char* call) {
  char* p = g_runtime->shm().translate(addr, pe);
  if (TC_UNLIKELY(!p))
    usage_error(call, "address %p is not symmetric: it is neither in the symmetric heap (shmem_malloc) nor a "
                "global or static variable of the executable", addr);
  return p;
}

/// Checks that `addr` is a local symmetric address (for waits and tests).
inline void check_symmetric(const void* addr, const char* call) { (void)remote(addr, g_runtime->my_pe(), call); }

/// My index in the deprecated active set (start, 2^log_stride, size); ends
/// the job naming `call` when the set does not fit the job or I am not in it.
int active_set_member(int start, int log_stride, int size, const char* call);

/// Ends the job after a wait returned because a peer failed or it timed out.
[[noreturn]] void wait_failed(WaitStatus st, const char* call, const void* addr, const std::string& expected,
                              const std::string& seen);

}  // namespace tilecomm::shmem
