// The helper PE program of the PTO failure tests (test_pto_failure.cpp): run
// under tcrun, it plays the scenario named by argv[1]; further arguments are
// ignored (the runner appends a marker to find leftover processes).
//
// As in tc_fail_pe, every PE first prints "helper: PE <k> pid <pid>" and
// flushes. A line holding "UNEXPECTED" means something happened that must
// not; such a PE exits with kUnexpected at once.
#include <shmem.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/async/urma/urma_workspace_manager.hpp>
#include <pto/comm/pto_comm_inst.hpp>

#include "core/wait.hpp"  // tilecomm::job_failed(): what PE 0 waits for before it measures Wait

namespace {

using namespace pto;
using namespace pto::comm;

constexpr int kUnexpected = 3;
constexpr int kWaitFailedOk = 42;  // the survivor saw what it had to and left by itself

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

[[noreturn]] void unexpected(const std::string& what) {
  say("UNEXPECTED: %s\n", what.c_str());
  fprintf(stderr, "UNEXPECTED: %s\n", what.c_str());
  fflush(stderr);
  _exit(kUnexpected);
}

int env_rank() {
  const char* r = getenv("TILECOMM_RANK");
  return r ? atoi(r) : -1;
}

// ---- scenarios ---------------------------------------------------------------------

/// PE 1 waits for a flag, then dies by SIGKILL. PE 0, inside a kernel,
/// posts kOps TGET_ASYNCs of 1 MiB from PE 1's buffer on an SDMA session
/// without waiting, sets PE 1's flag, waits (bounded) until it knows that
/// the job failed, and then calls Wait on the last event: Wait must return
/// false within 5 s, with a lastError() that names the failure. With
/// `other_host`, each PE is a host of its own (TILECOMM_HOST_ID) and the
/// gets go through a URMA session, whose engine reaches PE 1 over UCX.
int wait_after_peer_killed(bool other_host) {
  constexpr int kOps = 64;
  constexpr std::size_t kBytes = 1 << 20;
  if (other_host) setenv("TILECOMM_HOST_ID", std::to_string(env_rank()).c_str(), 1);
  shmem_init();
  const int me = shmem_my_pe();
  if (shmem_n_pes() != 2) unexpected("this scenario runs on exactly 2 PEs");
  auto* go = static_cast<int*>(shmem_calloc(1, sizeof(int)));
  auto* buf = static_cast<std::uint8_t*>(shmem_malloc(2 * kBytes));  // URMA's window: [source | destination]
  if (!go || !buf) unexpected("symmetric allocation failed");
  memset(buf, 0x5a, kBytes);
  shmem_barrier_all();
  if (me == 1) {
    shmem_int_wait_until(go, SHMEM_CMP_EQ, 1);
    raise(SIGKILL);
    unexpected("PE 1 survived SIGKILL");
  }

  sdma::SdmaWorkspaceManager sdma;
  urma::UrmaWorkspaceManager urma;
  if (other_host ? !urma.Init(0, 2, buf, 2 * kBytes) : !sdma.Init())
    unexpected(std::string("WorkspaceManager::Init: ") + (other_host ? urma.LastError() : sdma.LastError()));
  std::vector<std::uint8_t> private_dst(kBytes);
  std::uint8_t* local = other_host ? buf + kBytes : private_dst.data();
  struct {
    std::string problem;  // "" unless a step before the Wait went wrong
    bool waited = true;
    double wait_s = 0;
    std::string error;
  } seen;
  launch(1, [&] {
    using Shape5 = Shape<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
    using Stride5 = Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
    using GT = GlobalTensor<std::uint8_t, Shape5, Stride5, Layout::ND>;
    const int n = static_cast<int>(kBytes);
    GT dst(local, Shape5(1, 1, 1, 1, n), Stride5(n, n, n, n, 1));
    // URMA names the remote side by this PE's own symmetric address.
    GT src(other_host ? buf : static_cast<std::uint8_t*>(shmem_ptr(buf, 1)), Shape5(1, 1, 1, 1, n),
           Stride5(n, n, n, n, 1));
    Tile<TileType::Vec, std::uint8_t, 1, sdma::UB_ALIGN_SIZE> scratch;
    TASSIGN(scratch, 0);
    AsyncSession session;
    const bool built =
        other_host ? BuildAsyncSession<DmaEngine::URMA>(static_cast<std::uint8_t*>(urma.GetWorkspaceAddr()), 1, session)
                   : BuildAsyncSession<DmaEngine::SDMA>(scratch, static_cast<std::uint8_t*>(sdma.GetWorkspaceAddr()),
                                                        session);
    if (!built) {
      seen.problem = std::string("BuildAsyncSession: ") + session.lastError();
      return;
    }
    AsyncEvent last;
    for (int k = 0; k < kOps; ++k) {
      last = other_host ? TGET_ASYNC<DmaEngine::URMA>(dst, src, session) : TGET_ASYNC(dst, src, session);
      if (!last.valid()) {
        seen.problem = std::string("TGET_ASYNC: ") + session.lastError();
        return;
      }
    }
    // PE 1 dies once it sees this. A put, not an atomic set: over UCX a set
    // is a swap whose reply PE 1 may never send once it has the value.
    shmem_int_p(go, 1, 1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!tilecomm::job_failed()) {
      if (std::chrono::steady_clock::now() > give_up) {
        seen.problem = "tilecomm::job_failed() was not true within 30 s of PE 1's death";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const auto t0 = std::chrono::steady_clock::now();
    seen.waited = last.Wait(session);
    seen.wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    seen.error = session.lastError();
  });
  if (!seen.problem.empty()) unexpected(seen.problem);
  say("helper: Wait returned %s after %.3f s; lastError: %s\n", seen.waited ? "true" : "false", seen.wait_s,
      seen.error.c_str());
  if (seen.waited) unexpected("Wait returned true although PE 1 died with operations outstanding");
  if (seen.error.find("failed") == std::string::npos) unexpected("lastError() does not name the failure");
  if (seen.wait_s >= 5.0) unexpected("Wait took 5 s or more to report the failure");
  say("WAIT-FAILED-OK\n");
  // The job has failed: leave at once, as tilecomm's own failing waits do
  // (no shmem_finalize, which is collective).
  fflush(stderr);
  _exit(kWaitFailedOk);
}

/// PE 1 dies by SIGKILL right after a barrier; PE 0, inside a kernel, waits
/// with TWAIT for a signal nobody sets. The TWAIT must throw (and launch
/// report it) with exactly the expected text: TWAIT, the signal, its shape,
/// the expected and the seen value, and the failure, which the rendezvous
/// server (PE 1's connection closed) or tcrun (PE 1's exit status) reports,
/// whichever is first.
int twait_after_peer_killed() {
  shmem_init();
  const int me = shmem_my_pe();
  if (shmem_n_pes() != 2) unexpected("this scenario runs on exactly 2 PEs");
  auto* flag = static_cast<std::int32_t*>(shmem_calloc(2, sizeof(std::int32_t)));
  if (!flag) unexpected("symmetric allocation failed");
  std::int32_t* pid1 = flag + 1;  // PE 1's pid, for PE 0's expected text
  if (me == 1) shmem_int_p(pid1, static_cast<int>(getpid()), 0);
  shmem_barrier_all();
  if (me == 1) {
    raise(SIGKILL);
    unexpected("PE 1 survived SIGKILL");
  }
  std::string error;
  try {
    launch(1, [&] {
      Signal sig(flag);
      TWAIT(sig, 7, WaitCmp::EQ);
    });
  } catch (const tilecomm::Error& e) {
    error = e.what();
  }
  say("helper: launch reported: %s\n", error.c_str());
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char head[512];
  snprintf(head, sizeof head, "kernel failed in block 0 of 1: TWAIT: the signal at %p (shape (1,1,1,1,1) stride "
           "(1,1,1,1,1)) is waited on until every element is == 7 (WaitCmp::EQ); element [0,0,0,0,0] at %p is still "
           "0; leaving the wait because the job failed: PE 1 (pid %d", static_cast<void*>(flag),
           static_cast<void*>(flag), *pid1);
  const std::string by_server = std::string(head) + " on " + host +
                                ") left the job without shmem_finalize (it exited or was killed)";
  const std::string by_tcrun = std::string(head) + ") was killed by signal 9 (Killed)";
  if (error != by_server && error != by_tcrun)
    unexpected("the error is not the expected text:\n  " + by_server + "\nor\n  " + by_tcrun);
  say("TWAIT-FAILED-OK\n");
  fflush(stderr);
  _exit(kWaitFailedOk);
}

}  // namespace

int main(int argc, char** argv) {
  say("helper: PE %d pid %d\n", env_rank(), static_cast<int>(getpid()));
  const std::string s = argc > 1 ? argv[1] : "";
  if (s == "wait-after-peer-killed") return wait_after_peer_killed(false);
  if (s == "urma-wait-after-remote-peer-killed") return wait_after_peer_killed(true);
  if (s == "twait-after-peer-killed") return twait_after_peer_killed();
  fprintf(stderr, "helper: unknown scenario '%s'\n", s.c_str());
  return 98;
}
