#include "shmem/launch.hpp"

#include <arpa/inet.h>
#include <sched.h>
#include <shmem.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "bootstrap/launcher.hpp"
#include "bootstrap/server.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"
#include "transport/dma/engine.hpp"

extern "C" {
tilecomm_ctx tilecomm_ctx_default;
tilecomm_team tilecomm_team_world;
tilecomm_team tilecomm_team_shared;
}

namespace tilecomm::shmem {
namespace {

// NOTE [oversubscribed waits] With more PEs than CPUs the PE a wait waits
// for is usually not running, and every poll spent spinning delays it: so
// such waits yield at their first poll. Measured on an AMD EPYC (Zen 4, 2
// vCPUs), tilecomm-perf, us per call at 8 B, three alternations of no
// spin against 50 polls (the earlier default): 3 PEs fcollect 1.8-2.2
// against 3.8-4.4, reduce 1.8-2.9 against 3.7-4.0, alltoall 1.8-2.1
// against 3.7; 8 PEs 6.8-8.2 against 11-32, 7.3-9.0 against 11-15,
// 6.8-8.0 against 11-15; 4 PEs 2.6-3.9 against 3.2-6.6. At 64 KiB no spin
// was 10-40% faster at 3 PEs and the same or faster at 8. 500 polls cost 5
// times as much. TILECOMM_SPIN still sets the polls.
constexpr std::uint64_t kOversubscribedSpin = 0;
std::mutex g_init_mutex;
bootstrap::Server* g_uid_server = nullptr;  // in the process that made the unique ID
pid_t g_uid_server_pid = 0;  // that process; a fork()ed child holds a copy without the server thread
bool g_atexit_registered = false;

void print_info(const Config& cfg) {
  printf("tilecomm %s (OpenSHMEM %d.%d)\n", TILECOMM_VERSION_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
  for (const auto& row : cfg.describe())
    printf("  %-28s = %-12s %s%s\n", row.name, row.value.c_str(), row.help, row.set ? " [set]" : "");
  fflush(stdout);
}

void setup_predefined(Runtime& rt) {
  tilecomm_team_world = tilecomm_team{};
  tilecomm_team_world.start = 0;
  tilecomm_team_world.stride = 1;
  tilecomm_team_world.size = rt.n_pes();
  tilecomm_team_world.my_pe = rt.my_pe();
  tilecomm_team_world.slot = 0;
  tilecomm_team_world.predefined = true;
  // TEAM_SHARED: the PEs of this host (NOTE [host groups]), with a slot of
  // its own. A team is a progression of world PEs; a host whose PEs are not
  // one (an uneven placement) gets one-PE teams, which the specification
  // allows (every PE of the host computes the same).
  tilecomm_team_shared = tilecomm_team_world;
  tilecomm_team_shared.slot = 1;
  if (rt.spans_hosts()) {
    std::vector<int> mine;
    for (int pe = 0; pe < rt.n_pes(); ++pe)
      if (rt.local(pe)) mine.push_back(pe);
    bool progression = mine.size() > 1;
    for (std::size_t i = 2; i < mine.size() && progression; ++i)
      progression = mine[i] - mine[i - 1] == mine[1] - mine[0];
    tilecomm_team& t = tilecomm_team_shared;
    t.start = progression ? mine[0] : rt.my_pe();
    t.stride = progression ? mine[1] - mine[0] : 1;
    t.size = progression ? static_cast<int>(mine.size()) : 1;
    t.my_pe = t.team_pe(rt.my_pe());
  }
  tilecomm_ctx_default = tilecomm_ctx{&tilecomm_team_world, 0};
}

// TILECOMM_BOOTSTRAP_ADDR, the address the rendezvous server listens on.
in_addr rendezvous_addr(const Config& cfg) {
  in_addr a{};
  if (inet_pton(AF_INET, cfg.bootstrap_addr.c_str(), &a) != 1)
    raise(ErrorCode::InvalidUsage, "TILECOMM_BOOTSTRAP_ADDR='%s' is not an IPv4 address", cfg.bootstrap_addr.c_str());
  return a;
}

// Starts the job's rendezvous server in this process (a unique ID, or PE 0
// of a job a launcher started: NOTE [launchers]) and returns its address.
std::string start_rendezvous(const Config& cfg) {
  const in_addr a = rendezvous_addr(cfg);
  if (g_uid_server && g_uid_server_pid == getpid())
    raise(ErrorCode::InvalidUsage, "this process made a unique ID already; one job per process");
  g_uid_server = new bootstrap::Server(a.s_addr);
  g_uid_server_pid = getpid();
  return g_uid_server->rendezvous().to_string();
}

// This PE's number, the job size and the rendezvous, from the launcher that
// started the process (NOTE [launchers] in src/bootstrap/launcher.cpp).
LaunchInfo from_launcher(const Config& cfg) {
  LaunchInfo launch;
  const bootstrap::Launcher launcher = bootstrap::detect_launcher(cfg.bootstrap);
  if (launcher == bootstrap::Launcher::Tcrun) {
    launch.my_pe = static_cast<int>(cfg.rank);
    launch.n_pes = static_cast<int>(cfg.size);
    launch.rendezvous = cfg.uniqueid;
  } else if (launcher != bootstrap::Launcher::Singleton) {
    rendezvous_addr(cfg);  // checked on every PE, so that a bad one fails them all alike
    const auto session = bootstrap::open_launcher(launcher, cfg.bootstrap_timeout);
    launch.my_pe = session->rank();
    launch.n_pes = session->size();
    const std::string mine = launch.my_pe == 0 && launch.n_pes > 1 ? start_rendezvous(cfg) : "";
    if (launch.n_pes > 1) launch.rendezvous = session->share_from_rank0("tilecomm-rendezvous", mine);
    session->finalize();
  }
  return launch;
}

}  // namespace

tilecomm_team* world_team() { return &tilecomm_team_world; }

int initialize(int thread_level, const LaunchInfo* explicit_launch, const char* call) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_state.load() == static_cast<int>(State::Ready)) return 0;
  if (g_state.load() == static_cast<int>(State::Finalized))
    fatal("%s: the runtime was finalized already; OpenSHMEM cannot be initialized twice in one process", call);
  try {
    Config cfg = Config::load();
    log::set_level(cfg.log_level);
    configure_waits(cfg.spin, cfg.timeout);
    const LaunchInfo launch = explicit_launch ? *explicit_launch : from_launcher(cfg);
    if (launch.n_pes < 1 || launch.my_pe < 0 || launch.my_pe >= launch.n_pes)
      raise(ErrorCode::InvalidUsage, "PE %d of %d is not a valid launch (need 0 <= PE < number of PEs)", launch.my_pe,
            launch.n_pes);
    // This process hosts the unique ID's rendezvous: its launch gives the job size.
    if (g_uid_server && g_uid_server_pid == getpid()) g_uid_server->set_job_size(launch.n_pes);
    g_runtime = new Runtime(cfg, launch);
    // More PEs than CPUs: a spinning PE only delays the peer it waits for,
    // so yield at once unless the user chose otherwise (NOTE [oversubscribed waits]).
    if (g_runtime->oversubscribed())
      configure_waits(getenv("TILECOMM_SPIN") ? cfg.spin : kOversubscribedSpin, cfg.timeout, /*oversubscribed=*/true);
    g_thread_level = thread_level;
    setup_predefined(*g_runtime);
    g_state.store(static_cast<int>(State::Ready));
    if (!g_atexit_registered) {
      g_atexit_registered = true;
      // exit(0) finalizes implicitly (collective); a failing exit leaves at once,
      // so that the peers are told instead of waiting for it in a barrier.
      on_exit([](int status, void*) { if (status == 0) finalize(); }, nullptr);
    }
    if (cfg.info && launch.my_pe == 0) print_info(cfg);
    TC_LOG(Debug, "init", "PE %d of %d ready (heap %s, %s)", launch.my_pe, launch.n_pes,
           format_size(cfg.symmetric_size).c_str(),
           g_runtime->oversubscribed() ? "oversubscribed: more PEs than CPUs" : "at most one PE per CPU");
  } catch (const Error& e) {
    fatal_error(call, e);
  }
  return 0;
}

namespace {
std::vector<void (*)()> g_finalize_hooks;  // guarded by g_init_mutex
}  // namespace

void at_finalize(void (*hook)()) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  g_finalize_hooks.push_back(hook);
}

void finalize() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_state.load() != static_cast<int>(State::Ready)) return;
  for (auto hook : g_finalize_hooks) hook();
  Runtime& rt = *g_runtime;
  rt.quiet("shmem_finalize");
  transport::dma::Engine::instance().quiesce();  // its copies touch symmetric memory
  rt.finalize(tilecomm_team_world);
  g_state.store(static_cast<int>(State::Finalized));
  if (g_uid_server && g_uid_server_pid != getpid()) g_uid_server = nullptr;  // forked: not ours
  if (g_uid_server) {
    // This process hosts the rendezvous: stay until every PE has finalized.
    if (!g_uid_server->wait_all_finalized(rt.config().bootstrap_timeout))
      TC_LOG(Warn, "bootstrap", "not every PE finalized within %g s; closing the rendezvous server",
             rt.config().bootstrap_timeout);
    delete g_uid_server;
    g_uid_server = nullptr;
  }
  delete g_runtime;
  g_runtime = nullptr;
}

std::string make_uniqueid() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  Config cfg = Config::load();
  log::set_level(cfg.log_level);
  return start_rendezvous(cfg);
}

}  // namespace tilecomm::shmem
