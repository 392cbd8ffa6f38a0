#include "shmem/runtime.hpp"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "core/log.hpp"
#include "transport/dma/engine.hpp"

namespace tilecomm::shmem {

std::atomic<int> g_state{static_cast<int>(State::Uninitialized)};
Runtime* g_runtime = nullptr;
int g_thread_level = 0;

namespace {

// What every PE tells the others at init.
// What init tells the PEs of this host (NOTE [host groups]): the keys that
// map my segments.
struct HostRecord {
  memory::SegmentKey heap;
  memory::SegmentKey data;
};

// What init tells the PEs of this machine: the CPUs they share.
struct CpuRecord {
  std::int32_t cpus;           // TILECOMM_JOB_CPUS (tcrun's count of the job's CPUs), or 0
  std::uint64_t cpu_mask[16];  // the CPUs this PE may run on (CPUs 0-1023)
};

bool lists(const Config& cfg, TransportKind t) {
  return std::find(cfg.transports.begin(), cfg.transports.end(), t) != cfg.transports.end();
}

// The UCX transport that wait loops progress (core/wait.hpp).
transport::UcxTransport* g_ucx = nullptr;
void progress_ucx() { g_ucx->progress(); }

// The settings that decide collective algorithms: they must be the same on
// every PE, or members would pick different algorithms and wait forever.
std::string coll_settings(const Config& c) {
  return strprintf("TILECOMM_COLL_SCRATCH=%zu TILECOMM_COLL_LOAD_STORE=%d %s/%s/%s/%s/%s/%s/%s/%s", c.coll_scratch,
                   static_cast<int>(c.coll_load_store), c.coll_broadcast.c_str(), c.coll_collect.c_str(),
                   c.coll_fcollect.c_str(), c.coll_alltoall.c_str(), c.coll_alltoalls.c_str(), c.coll_reduce.c_str(),
                   c.coll_reduce_scatter.c_str(), c.coll_alltoallv.c_str());
}

// NOTE [host key] PEs share memory when they share a host key: the kernel's
// boot id and the identity of the network namespace (its inode), so that
// containers and network namespaces of one machine count as hosts of their
// own, or TILECOMM_HOST_ID when set (any text: PEs with equal values are one
// host). Host names are for messages only; two machines may share one.
// PEs that claim one host but cannot map each other's memory fail at init
// with a message naming TILECOMM_HOST_ID (Segment::map_peer).
//
// NOTE [host groups] PEs of this host map each other's segments and reach
// each other as before (shm, or the route TILECOMM_TRANSPORTS gives them);
// PEs of other hosts are not mapped (ShmTransport::translate gives nullptr,
// shmem_ptr NULL) and every operation to them takes UCX, which then starts
// on every PE of the job. SHMEM_TEAM_SHARED is this host's PEs (launch.cpp).
// The runtime's own words (barrier flags, team-slot masks, allocation
// records, collective words) go to remote PEs through word_op() and read();
// a team that spans hosts uses the dissemination barrier (its waits are all
// on local flags) and its collectives use the transport verbs.
//
// The kernel's boot id alone names the machine, whose CPUs every PE on it
// shares whatever its host key: oversubscription is counted per machine.
std::string boot_id() {
  char boot[64] = {};
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!std::fgets(boot, sizeof boot, f)) boot[0] = 0;
    std::fclose(f);
  }
  boot[std::strcspn(boot, "\n")] = 0;
  return boot;
}

std::string host_key(const Config& cfg) {
  if (!cfg.host_id.empty()) return "id:" + cfg.host_id;
  const std::string boot = boot_id();
  struct stat net {};
  if (boot.empty() || stat("/proc/self/ns/net", &net) != 0)
    raise(ErrorCode::System, "cannot tell which host this PE is on (/proc/sys/kernel/random/boot_id and "
          "/proc/self/ns/net); set TILECOMM_HOST_ID to a name of this host");
  return strprintf("boot:%s/net:%llu", boot.c_str(), static_cast<unsigned long long>(net.st_ino));
}

// Bytes reserved at the start of each heap: the ControlBlock, then the
// collective scratch of every team slot (backed when a team takes the slot).
std::size_t scratch_offset() { return memory::round_up(sizeof(ControlBlock), 4096); }
std::size_t control_bytes(const Config& cfg) {
  return memory::round_up(scratch_offset() + kMaxTeams * Runtime::team_scratch_bytes(cfg), 1 << 16);
}

}  // namespace

Runtime::Runtime(const Config& cfg, const LaunchInfo& launch)
    : cfg_(cfg), my_pe_(launch.my_pe), n_pes_(launch.n_pes) {
  log::set_pe(my_pe_);
  if (!launch.rendezvous.empty())
    client_ = std::make_unique<bootstrap::Client>(bootstrap::Rendezvous::parse(launch.rendezvous, "the unique ID"),
                                                  my_pe_, n_pes_, cfg_.bootstrap_timeout);

  // Symmetric memory: the heap (control block first), then the data segment.
  if (cfg_.coll_scratch % 2048 != 0 || cfg_.coll_scratch < 2048 || cfg_.coll_scratch > (std::size_t{64} << 20))
    raise(ErrorCode::InvalidUsage, "TILECOMM_COLL_SCRATCH=%zu is not a multiple of 2K from 2K to 64M "
          "(32 slots of at least 64 bytes); use for example 256K", cfg_.coll_scratch);
  const std::size_t reserve = control_bytes(cfg_);
  coll_scratch_offset_ = scratch_offset();
  heap_ = memory::Segment::create("tilecomm-heap", reserve + memory::round_up(cfg_.symmetric_size, 64));
  if (int err = heap_.back(0, coll_scratch_offset_))
    raise(ErrorCode::System, "cannot back %zu bytes of shared memory for the runtime: %s", coll_scratch_offset_,
          errno_text(err).c_str());
  control_ = new (heap_.base()) ControlBlock();
  back_scratch(0);  // the predefined teams; the others when they are created
  back_scratch(1);
  alloc_ = memory::HeapAllocator(reserve, heap_.size());
  if (cfg_.symmetric_data) {
    memory::AddressRange range = memory::find_executable_data();
    if (range.size()) data_ = memory::make_data_symmetric(range);
  }

  shm_ = std::make_unique<transport::ShmTransport>(my_pe_, n_pes_);
  const std::string key = host_key(cfg_);
  if (key.size() > bootstrap::kMaxGatherKey)
    raise(ErrorCode::InvalidUsage, "TILECOMM_HOST_ID='%s' is longer than %u characters", cfg_.host_id.c_str(),
          bootstrap::kMaxGatherKey - 3);
  // Init's gathers are keyed (NOTE [keyed gathers]): a PE learns its host's
  // segment keys with the map of the job's hosts, its machine's CPUs, and
  // whether every PE agrees on the settings that must match; no record of
  // every PE of the job.
  using bootstrap::kGatherList;
  auto gather = [&](const std::string& k, const void* blob, std::size_t len, std::uint32_t want) {
    if (client_) return client_->gather(k, blob, len, want, cfg_.bootstrap_timeout);
    bootstrap::Client::Group alone{1, -1, {0}, {}, {{0, 0}}};
    if (want & kGatherList) alone.blobs.assign(static_cast<const char*>(blob), static_cast<const char*>(blob) + len);
    return alone;
  };
  HostRecord mine{};
  mine.heap = shm_->register_segment(0, heap_);
  if (data_.size()) mine.data = shm_->register_segment(1, data_);
  bootstrap::Client::Group host = gather(key, &mine, sizeof mine, kGatherList | bootstrap::kGatherMap);
  local_.assign(n_pes_, 0);
  for (int pe : host.pes) local_[pe] = 1;
  spans_hosts_ = host.members < n_pes_;
  hosts_ = std::move(host.runs);
  for (std::size_t i = 0; i < host.pes.size(); ++i) {
    if (host.pes[i] == my_pe_) continue;
    HostRecord peer;
    std::memcpy(&peer, host.blobs.data() + i * sizeof peer, sizeof peer);
    shm_->attach(host.pes[i], 0, peer.heap);
    if (data_.size()) shm_->attach(host.pes[i], 1, peer.data);
  }
  // More PEs than CPUs on this machine (hosts that are namespaces of one
  // machine share its CPUs): tcrun's count, or the CPUs any PE of the
  // machine may run on (a launcher that binds each PE to its own CPU leaves
  // each with one).
  CpuRecord cpu{};
  cpu.cpus = static_cast<std::int32_t>(cfg_.job_cpus);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < 1024 && c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpu.cpu_mask[c / 64] |= std::uint64_t{1} << (c % 64);
  const bootstrap::Client::Group machine = gather("machine:" + boot_id(), &cpu, sizeof cpu, kGatherList);
  std::uint64_t any[16] = {};
  int cpus = 0;
  for (int i = 0; i < machine.members; ++i) {
    CpuRecord peer;
    std::memcpy(&peer, machine.blobs.data() + i * sizeof peer, sizeof peer);
    cpus = std::max(cpus, static_cast<int>(peer.cpus));
    for (int w = 0; w < 16; ++w) any[w] |= peer.cpu_mask[w];
  }
  if (cpus == 0)
    for (std::uint64_t w : any) cpus += __builtin_popcountll(w);
  const bool machine_oversubscribed = cpus > 0 && machine.members > cpus;
  // Settings every PE must share: the collective ones decide algorithms
  // (members that chose differently would wait forever), and on one host
  // whether UCX runs (between hosts it always does).
  const bool ucx = lists(cfg_, TransportKind::Ucx);
  const std::string settings = coll_settings(cfg_) + (spans_hosts_ ? "" : ucx ? " ucx" : " no-ucx");
  const bootstrap::Client::Group agree = gather(settings, nullptr, 0, bootstrap::kGatherCount);
  if (agree.members < n_pes_) {
    // Every PE is in a group smaller than the job: all come here and gather
    // the settings themselves, for a message that shows both.
    char text[224] = {};
    snprintf(text, sizeof text, "%s", settings.c_str());
    const bootstrap::Client::Group all = gather("settings", text, sizeof text, kGatherList);
    raise(ErrorCode::InvalidUsage, "PE %d and PE %d differ in the collective settings (TILECOMM_COLL_SCRATCH, "
          "TILECOMM_COLL_LOAD_STORE, then TILECOMM_COLL_BROADCAST/COLLECT/FCOLLECT/ALLTOALL/ALLTOALLS/REDUCE/"
          "REDUCE_SCATTER/ALLTOALLV)%s: PE %d has %s and PE %d has %.*s; they decide the algorithms and must be "
          "the same on every PE", my_pe_, agree.first_other,
          spans_hosts_ ? "" : " or in listing ucx in TILECOMM_TRANSPORTS", my_pe_, text, agree.first_other,
          static_cast<int>(sizeof text), all.blobs.data() + agree.first_other * sizeof text);
  }
  // UCX: when listed, or for the PEs of other hosts (NOTE [host groups]).
  if (ucx || spans_hosts_) start_ucx();
  // The last gather: everybody has mapped everybody of its host, so a PE
  // may exit from here without taking a segment away from a peer that has
  // not opened it yet, and every card is published. It also makes the job
  // oversubscribed when any machine is, the same on every PE: that
  // chooses algorithms.
  const bootstrap::Client::Group over = gather(machine_oversubscribed ? "oversubscribed" : "not oversubscribed",
                                               nullptr, 0, bootstrap::kGatherCount);
  oversubscribed_ = machine_oversubscribed || over.members < n_pes_;
  if (client_) client_->start_watcher(cfg_.abort_grace);
  used_slots_ = 0b11;  // slot 0: TEAM_WORLD, slot 1: TEAM_SHARED
  set_routes();
}

int Runtime::host_of(int pe) const {
  auto run = std::upper_bound(hosts_.begin(), hosts_.end(), pe,
                              [](int p, const bootstrap::GatherRun& r) { return p < r.start; });
  return std::prev(run)->group;
}

Runtime::~Runtime() {
  if (g_ucx == ucx_.get()) {
    detail::g_progress.store(nullptr);
    transport::dma::Engine::instance().set_remote(nullptr);
    g_ucx = nullptr;
  }
}

// The UCX transport: segments registered, this PE's card published to the
// rendezvous server (before init's last gather, so every card is there
// once init returns) and a peer's card looked up there on the first
// operation to that peer (NOTE [ucx cards]); wait loops progress it, and the
// copy engine reaches other hosts through it (NOTE [remote copies]).
void Runtime::start_ucx() {
  ucx_ = std::make_unique<transport::UcxTransport>(my_pe_, n_pes_, cfg_.ucx_progress_thread, cfg_.ucx_coalesce);
  ucx_->register_segment(0, heap_);
  if (data_.size()) ucx_->register_segment(1, data_);
  if (client_) {
    client_->publish(ucx_->card());
    ucx_->set_card_lookup([client = client_.get(), timeout = cfg_.bootstrap_timeout](int pe) {
      return client->lookup(pe, timeout);
    });
  }
  g_ucx = ucx_.get();
  detail::g_progress.store(progress_ucx);
  transport::dma::Engine::instance().set_remote(ucx_.get());
}

void Runtime::set_routes() {
  // Every transport reaches every PE of this host, so the first one listed
  // wins; but a PE reaches its own memory by loads and stores (as a put to
  // itself must be visible at once: there is no peer to deliver it).
  routes_.assign(n_pes_, cfg_.transports.front());
  if (routes_[my_pe_] == Route::Ucx) routes_[my_pe_] = Route::Mte;
  for (int pe = 0; pe < n_pes_; ++pe)
    if (!local_[pe]) routes_[pe] = Route::Ucx;  // the one transport between hosts
  routed_ = std::any_of(routes_.begin(), routes_.end(), [](Route r) { return r != Route::Mte; });
  // (the SDMA engine starts at the first put or get routed to it)
}

transport::DmaTransport& Runtime::dma() {
  std::call_once(dma_once_, [this] {
    dma_ = std::make_unique<transport::DmaTransport>(*shm_, my_pe_);
    dma_started_.store(true, std::memory_order_release);
  });
  return *dma_;
}

transport::Transport& Runtime::transport(int pe) {
  switch (routes_[pe]) {
    case Route::Sdma: return dma();
    case Route::Ucx: return *ucx_;
    case Route::Mte: break;
  }
  return *shm_;
}

transport::Transport& Runtime::atomics(int pe) {
  if (routes_[pe] == Route::Ucx) return *ucx_;
  return *shm_;
}

std::uint64_t Runtime::word_op(int pe, transport::AtomicOp op, void* word, std::uint64_t value, const char* call,
                               std::uint64_t compare) {
  try {
    return atomics(pe).atomic(pe, op, word, 8, value, compare);
  } catch (const Error& e) {
    fatal_error(call, e);
  }
}

void Runtime::read(int pe, void* dst, const void* src, std::size_t n, const char* call) {
  if (local_[pe]) return void(std::memcpy(dst, shm_->translate(src, pe), n));
  try {
    ucx_->get(pe, dst, src, n);
  } catch (const Error& e) {
    fatal_error(call, e);
  }
}

void Runtime::quiet_engine(const char* call) {
  if (!dma_started_.load(std::memory_order_acquire)) return;
  try {
    dma_->quiet();  // the engine's copies are ordered with nothing else: fence = quiet
  } catch (const Error& e) {
    fatal_error(call, e);
  }
}

void Runtime::quiet(const char* call) {
  quiet_engine(call);
  try {
    if (ucx_) ucx_->quiet();
  } catch (const Error& e) {
    fatal_error(call, e);
  }
  shm_->quiet();
}

void Runtime::fence(const char* call) {
  quiet_engine(call);
  try {
    if (ucx_) ucx_->fence();
  } catch (const Error& e) {
    fatal_error(call, e);
  }
  shm_->fence();
}

void Runtime::finalize(tilecomm_team& world) {
  if (ucx_) ucx_->closing();  // from here peers leave: a UCX connection that breaks is no news
  team_sync(world, "shmem_finalize");
  if (client_) client_->finalize();
}

void Runtime::global_exit(int status) {
  if (client_) client_->global_exit(status);
  fflush(stdout);
  fflush(stderr);
  _exit(status);
}

void usage_error(const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrprintf(fmt, ap);
  va_end(ap);
  if (detail::t_throw) raise(ErrorCode::InvalidUsage, "%s: %s", call, s.c_str());
  fatal("%s: %s", call, s.c_str());
}

void not_ready(const char* call) {
  if (detail::t_throw)
    raise(ErrorCode::InvalidUsage, "%s called %s", call,
          g_state.load() == static_cast<int>(State::Finalized) ? "after finalize" : "before init");
  if (g_state.load() == static_cast<int>(State::Finalized))
    fatal("%s called after shmem_finalize; OpenSHMEM calls are allowed only between shmem_init and shmem_finalize",
          call);
  fatal("%s called before shmem_init; call shmem_init (or shmem_init_thread) first", call);
}

int active_set_member(int start, int log_stride, int size, const char* call) {
  auto& r = rt(call);
  if (start < 0 || log_stride < 0 || log_stride > 30 || size < 1 ||
      start + static_cast<long long>(size - 1) * (1LL << log_stride) >= r.n_pes())
    usage_error(call, "active set (PE_start=%d, logPE_stride=%d, PE_size=%d) does not fit in %d PEs", start,
                log_stride, size, r.n_pes());
  const int index = progression_index(start, 1 << log_stride, size, r.my_pe());
  if (index < 0)
    usage_error(call, "PE %d is not in the active set (PE_start=%d, logPE_stride=%d, PE_size=%d)", r.my_pe(), start,
                log_stride, size);
  return index;
}

void wait_failed(WaitStatus st, const char* call, const void* addr, const std::string& expected,
                 const std::string& seen) {
  if (detail::t_watch || detail::t_throw)  // inside a call that reports its own errors (fatal_error)
    raise(st == WaitStatus::PeerFailed ? ErrorCode::Remote : ErrorCode::Timeout, "%s: waiting on %p for %s, saw %s: %s",
          call, addr, expected.c_str(), seen.c_str(),
          st == WaitStatus::PeerFailed ? job_failure().c_str() : "TILECOMM_TIMEOUT passed");
  if (st == WaitStatus::PeerFailed)
    fatal("%s: leaving the wait on %p (waiting for %s, saw %s) because the job failed: %s", call, addr,
          expected.c_str(), seen.c_str(), job_failure().c_str());
  fatal("%s: waited more than TILECOMM_TIMEOUT=%g s on %p for %s; it is still %s", call, wait_timeout(), addr,
        expected.c_str(), seen.c_str());
}

}  // namespace tilecomm::shmem
