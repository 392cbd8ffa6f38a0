// The communicator: its members (a team of its own), its windows (one
// shared-memory segment per rank, mapped by every rank of the host) and the
// kernel descriptor. See <tilecomm/comm.hpp>.
#include "tilecomm/comm.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "coll/coll.hpp"
#include "comm/access.hpp"
#include "comm/flags.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "memory/segment.hpp"
#include "shmem/launch.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm {

using shmem::g_runtime;

struct Comm::Impl {
  shmem_team_t team = SHMEM_TEAM_INVALID;
  memory::Segment window;              // mine
  std::vector<std::size_t> mapped;     // bytes of each peer's window mapped here (0: none)
  std::unique_ptr<CommArgs> args = std::make_unique<CommArgs>();
  std::uint32_t magic = 0;             // the last magic drawn
  comm::Line* lines[kCommMaxRanks] = {};  // each rank's board line, mapped here
  comm::Calls calls;                   // the operators' (comm::Access)

  Impl();
  // Local resources only: the team is destroyed by the collective paths.
  ~Impl();
};

namespace {

// The live communicators of this process, told when shmem_finalize starts
// (NOTE [call board]: a peer waiting in a call then sees this rank leave).
std::mutex g_live_mutex;
std::vector<Comm::Impl*> g_live;
std::atomic<std::uint64_t> g_serial{0};

void on_finalize() {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  for (Comm::Impl* im : g_live) im->calls.board.set(comm::State::Finalizing);
}

}  // namespace

Comm::Impl::Impl() { calls.serial = ++g_serial; }

Comm::Impl::~Impl() {
  calls.extras.reset();  // stops the worker first
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    std::erase(g_live, this);
  }
  for (std::size_t r = 0; r < mapped.size(); ++r)
    if (mapped[r]) memory::Segment::unmap_peer(args->peerMems[r], mapped[r]);
}

namespace {

void require_runtime(const char* call) {
  if (!g_runtime)
    raise(ErrorCode::InvalidUsage, "%s: tilecomm is not initialised in this process; call shmem_init() first, or "
          "create the communicator with tilecomm::Comm::init_rank", call);
}

// The options as the communicator uses them: a size of 0 takes the default
// (as in the C API), and the sizes are checked.
CommOptions check_options(const CommOptions& requested) {
  CommOptions o = requested;
  if (o.window_bytes == 0) o.window_bytes = CommOptions{}.window_bytes;
  if (o.flag_bytes == 0) o.flag_bytes = CommOptions{}.flag_bytes;
  if (o.window_bytes < 2 * 64 || o.window_bytes % 128 != 0)
    raise(ErrorCode::InvalidUsage, "CommOptions::window_bytes=%zu: the data region is cut in two partitions of "
          "64-byte lines; use a multiple of 128 bytes, or 0 for the default (200 MiB)", o.window_bytes);
  if (o.flag_bytes < 2 * comm::kFlagPartitionBytes || o.flag_bytes % 128 != 0)
    raise(ErrorCode::InvalidUsage, "CommOptions::flag_bytes=%zu is below the %zu bytes the flags need (two "
          "partitions of %zu) or not a multiple of 128; use 64K or more, or 0 for the default (4 MiB)", o.flag_bytes,
          2 * comm::kFlagPartitionBytes, comm::kFlagPartitionBytes);
  // A rank's window is one segment: the data region, the flag region right
  // after it (at base + window_bytes), a little of the communicator's own,
  // rounded up to pages and reserved with a kBaseAlign margin. A sum that
  // wraps would make a small segment with its flags outside it, so the sum
  // must not overflow and must leave room for those margins within what one
  // process can map at all: 2^47 bytes, the address space mmap hands out on
  // x86-64 (arm64: 2^48) without an address hint.
  constexpr std::size_t kMapLimit = std::size_t{1} << 47;
  constexpr std::size_t kMaxSum = kMapLimit - 2 * memory::Segment::kBaseAlign;
  std::size_t sum = 0;
  const bool overflows = __builtin_add_overflow(o.window_bytes, o.flag_bytes, &sum);
  if (overflows || sum > kMaxSum)
    raise(ErrorCode::InvalidUsage, "CommOptions::window_bytes=%zu plus flag_bytes=%zu %s: a rank's window holds both "
          "in one mapping, which with its page and alignment margins must fit in the %zu bytes (128 TiB) a process "
          "can map, so their sum may be at most %zu; lower window_bytes (default 200 MiB) or flag_bytes (default "
          "4 MiB)", o.window_bytes, o.flag_bytes,
          overflows ? "overflows size_t" : strprintf("is %zu bytes", sum).c_str(), kMapLimit, kMaxSum);
  return o;
}

}  // namespace

Comm::Comm(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Comm::Comm(Comm&&) noexcept = default;
// A communicator still alive at its destructor (or replaced by a move) is
// destroyed there: that is collective, so every rank must let its
// communicator go at the same point. A destruction that could not wait for
// the others (destroy() explains) is logged, not fatal: a rank unwinding an
// error must neither hang its peers nor end its process.
void Comm::release() noexcept {
  if (!impl_) return;
  try {
    destroy();
  } catch (const Error& e) {
    TC_LOG(Warn, "comm", "%s", e.what());
  }
}

Comm& Comm::operator=(Comm&& o) noexcept {
  if (this != &o) {
    release();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

Comm::~Comm() { release(); }

comm::Calls& comm::Access::calls(const Comm& c) { return c.impl().calls; }

Comm::Impl& Comm::impl() const {
  if (!impl_)
    raise(ErrorCode::InvalidUsage, "this tilecomm::Comm was destroyed (or moved from); create a new communicator");
  return *impl_;
}

Comm Comm::world(const CommOptions& opts) { return from_team(SHMEM_TEAM_WORLD, opts); }

Comm Comm::from_team(shmem_team_t parent, const CommOptions& requested) {
  constexpr const char* call = "tilecomm::Comm::from_team";
  require_runtime(call);
  const CommOptions opts = check_options(requested);
  if (parent == SHMEM_TEAM_INVALID) raise(ErrorCode::InvalidUsage, "%s: the team is SHMEM_TEAM_INVALID", call);
  const int n = shmem_team_n_pes(parent);
  if (n > kCommMaxRanks)
    raise(ErrorCode::InvalidUsage, "%s: the team has %d PEs; a communicator has at most %d ranks (the size of "
          "CommArgs' peer tables)", call, n, kCommMaxRanks);
  auto impl = std::make_unique<Impl>();
  // A team of its own, so that the communicator's collectives never
  // interleave with the caller's on the parent team.
  if (shmem_team_split_strided(parent, 0, 1, n, nullptr, 0, &impl->team) != 0)
    raise(ErrorCode::InvalidUsage, "%s: no team slot left for the communicator's team (%d teams at most); destroy "
          "unused teams or communicators", call, shmem::kMaxTeams);
  tilecomm_team& team = *impl->team;
  CommArgs& a = *impl->args;
  a.rank = team.my_pe;
  a.rankSize = n;
  a.windowBytes = opts.window_bytes;
  a.flagBytes = opts.flag_bytes;

  // My window (data then flags, committed now: no SIGBUS at first touch),
  // then everybody's key, sizes and outcome: a rank that could not make its
  // window, or asked for other sizes, fails the creation on every rank.
  struct Record {
    memory::SegmentKey key;
    std::uint64_t window_bytes, flag_bytes;
    std::int64_t error;  // an errno, or 0
  };
  static_assert(sizeof(Record) <= 64, "coll::exchange moves 64 bytes per member");
  Record mine{{}, opts.window_bytes, opts.flag_bytes, 0};
  const std::size_t bytes = opts.window_bytes + opts.flag_bytes + sizeof(comm::Line);  // the board line last
  try {
    impl->window = memory::Segment::create("tilecomm-comm-window", bytes);
    mine.error = impl->window.back(0, bytes);
    mine.key = impl->window.key();
  } catch (const Error&) {
    mine.error = errno ? errno : ENOMEM;
  }
  std::vector<Record> all(n);
  coll::exchange(&team, &mine, sizeof mine, all.data(), call);
  std::string problem;
  for (int r = 0; r < n && problem.empty(); ++r) {
    if (all[r].error)
      problem = strprintf("rank %d could not commit %zu bytes of shared memory for its window (%s); lower "
                          "CommOptions::window_bytes (now %zu) or free memory", r, bytes,
                          strerror(static_cast<int>(all[r].error)), opts.window_bytes);
    else if (all[r].window_bytes != opts.window_bytes || all[r].flag_bytes != opts.flag_bytes)
      problem = strprintf("rank %d asked for windows of %llu + %llu bytes but rank %d for %zu + %zu; every rank "
                          "must pass the same CommOptions", r, static_cast<unsigned long long>(all[r].window_bytes),
                          static_cast<unsigned long long>(all[r].flag_bytes), a.rank, opts.window_bytes,
                          opts.flag_bytes);
  }
  auto fail_everywhere = [&](const std::string& why) {
    shmem_team_destroy(impl->team);  // collective: every rank found the same problem
    raise(ErrorCode::InvalidUsage, "%s: %s", call, why.c_str());
  };
  // Windows are memory every rank maps: the operators run on one host.
  for (int r = 0; r < n && problem.empty(); ++r)
    if (!g_runtime->local(team.world(r)))
      problem = strprintf("rank %d (PE %d) is on another host than rank %d (PE %d); a communicator's ranks share one "
                          "host (its windows are load/store memory), so make it from SHMEM_TEAM_SHARED or a team "
                          "inside it", r, team.world(r), a.rank, team.world(a.rank));
  if (!problem.empty()) fail_everywhere(problem);

  // Map the windows of the ranks; then every rank reports.
  impl->mapped.assign(n, 0);
  std::int64_t map_error = 0;
  std::string map_problem;
  for (int r = 0; r < n; ++r) {
    const int pe = team.world(r);
    if (!g_runtime->local(pe)) continue;  // another host: not load/store reachable
    a.localRank += r < a.rank;
    ++a.localRankSize;
    std::uint8_t* base = reinterpret_cast<std::uint8_t*>(impl->window.base());
    if (r != a.rank) {
      try {
        base = static_cast<std::uint8_t*>(memory::Segment::map_peer(all[r].key, pe));
        impl->mapped[r] = all[r].key.size;
      } catch (const Error& e) {
        map_error = r + 1;
        map_problem = e.what();
        break;
      }
    }
    a.peerMems[r] = base;
    a.peerFlags[r] = base + opts.window_bytes;
    impl->lines[r] = reinterpret_cast<comm::Line*>(base + opts.window_bytes + opts.flag_bytes);
  }
  // Nobody launches before every rank mapped every window.
  std::vector<std::int64_t> map_errors(n);
  coll::exchange(&team, &map_error, sizeof map_error, map_errors.data(), call);
  for (int r = 0; r < n; ++r)
    if (map_errors[r])
      fail_everywhere(r == a.rank ? map_problem
                                  : strprintf("rank %d could not map the window of rank %lld (its message names the "
                                              "cause)", r, static_cast<long long>(map_errors[r] - 1)));
  impl->calls.board.attach(a.rank, n, impl->lines);
  {
    static std::once_flag hooked;
    std::call_once(hooked, [] { shmem::at_finalize(on_finalize); });
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.push_back(impl.get());
  }
  return Comm(std::move(impl));
}

UniqueId Comm::unique_id() {
  UniqueId id;
  if (int rc = shmemx_get_uniqueid(&id); rc != 0)
    raise(ErrorCode::System, "tilecomm::Comm::unique_id: shmemx_get_uniqueid failed (%d)", rc);
  return id;
}

Comm Comm::init_rank(int nranks, const UniqueId& id, int rank, const CommOptions& opts) {
  constexpr const char* call = "tilecomm::Comm::init_rank";
  if (nranks < 1 || rank < 0 || rank >= nranks)
    raise(ErrorCode::InvalidUsage, "%s: rank %d of %d ranks is out of range (0..nranks-1)", call, rank, nranks);
  if (!g_runtime) {
    shmemx_init_attr_t attr;
    if (shmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr) != 0)
      raise(ErrorCode::InvalidUsage, "%s: the unique ID is not valid (draw it with Comm::unique_id)", call);
    // A job that cannot start (no rendezvous, a wrong cookie, another job
    // size) ends the process inside shmemx_init_attr with a message; what it
    // returns non-zero for is a call it refused, before starting anything.
    constexpr unsigned flags = SHMEMX_INIT_WITH_UNIQUEID;
    if (const int rc = shmemx_init_attr(flags, &attr); rc != 0)
      raise(ErrorCode::InvalidUsage, "%s: shmemx_init_attr(flags=0x%x) for rank %d of %d ranks returned %d and did "
            "not start tilecomm (the log line before this one says why); pass the same nranks on every rank, a "
            "rank in 0..nranks-1 once each, and a unique ID drawn by Comm::unique_id() in a process that stays "
            "alive until every rank has finalized", call, flags, rank, nranks, rc);
  } else if (g_runtime->n_pes() != nranks || g_runtime->my_pe() != rank) {
    raise(ErrorCode::InvalidUsage, "%s: tilecomm already runs here as PE %d of %d, not rank %d of %d; use "
          "Comm::world() or Comm::from_team() in an initialised process", call, g_runtime->my_pe(),
          g_runtime->n_pes(), rank, nranks);
  }
  return world(opts);
}

void Comm::destroy() {
  impl();  // throws when already destroyed
  const std::unique_ptr<Impl> owned = std::move(impl_);
  owned->calls.extras.reset();  // the non-blocking calls still queued run first
  // After shmem_finalize nobody can synchronise any more, and after a call
  // of this rank failed its peers may be anywhere: the mappings and the
  // window go without waiting (Impl's destructor unmaps them), and so does
  // this process's memory of the team; its slot stays taken (a peer may
  // still write the slot's words).
  auto forsake_team = [&] { delete owned->team; };
  if (!g_runtime || owned->calls.board.state() == comm::State::Failed) return forsake_team();
  // Every rank stops using the windows before any unmaps them (the team's
  // destruction waits for every member). A peer that failed or left instead
  // ends the wait (NOTE [call board]).
  try {
    comm::DestroyScope watch(owned->calls.board);
    shmem_team_destroy(owned->team);
  } catch (const Error& e) {
    forsake_team();
    raise(e.code(), "tilecomm::Comm::destroy: %s; this rank released its window without waiting for the others",
          e.what());
  }
}

int Comm::rank() const { return impl().args->rank; }
int Comm::size() const { return impl().args->rankSize; }
int Comm::local_rank() const { return impl().args->localRank; }
int Comm::local_size() const { return impl().args->localRankSize; }
const CommArgs& Comm::args() const { return *impl().args; }
CommArgs& Comm::args() { return *impl().args; }
shmem_team_t Comm::team() const { return impl().team; }

Window Comm::window(int r) const {
  const CommArgs& a = args();
  if (r < 0 || r >= a.rankSize)
    raise(ErrorCode::InvalidUsage, "tilecomm::Comm::window: rank %d is not a rank of this communicator (0..%d)", r,
          a.rankSize - 1);
  return Window{a.peerMems[r], a.peerMems[r] ? a.windowBytes : 0, a.peerFlags[r], a.peerFlags[r] ? a.flagBytes : 0};
}

std::uint32_t Comm::NextMagic() {
  Impl& im = impl();
  // 0 marks a flag never written; wrapping from 0xfffffffe to 1 keeps the
  // partitions (magic % 2) alternating.
  if (++im.magic == 0xffffffffu) im.magic = 1;
  return im.magic;
}

void Comm::begin_launch() {
  const std::uint32_t m = NextMagic();
  impl().args->magic = m;
}

}  // namespace tilecomm
