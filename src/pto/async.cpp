// Asynchronous sessions: building, submission into the channel group's
// queues, backpressure, quiet and completion tests (see
// pto/comm/async_common/async_types.hpp for the contract and
// transport/dma/workspace.hpp for the queue protocol).
#include <pto/comm/async_common/async_types.hpp>
#include <pto/kernel.hpp>

#include <atomic>
#include <cstdarg>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"
#include "pto/workspaces.hpp"
#include "shmem/runtime.hpp"
#include "transport/dma/channel.hpp"

namespace tilecomm::async {
namespace {
using pto::comm::DmaEngine;
using transport::dma::ChannelGroup;
using transport::dma::Completion;
using transport::dma::EngineKind;
using transport::dma::kMaxQueues;
using transport::dma::Op;
using transport::dma::Workspace;
using transport::dma::post;
using transport::dma::publish;
using transport::dma::to_text;
using transport::dma::wait_complete;

thread_local std::string t_error;  // for sessions that are not built or whose workspace is gone
thread_local std::uint64_t t_thread = 0;    // this thread's identity for the session ownership check
std::atomic<std::uint64_t> g_threads{0};   // ... handed out once each: a later thread never gets an old one
std::atomic<std::uint64_t> g_sessions{0};  // AsyncSession::id()

/// The session's channel group, or nullptr if it is not built or its
/// workspace was finalized (the group's memory is unmapped then).
ChannelGroup* group_of(const AsyncSession& s) {
  return s.group_ && workspace_alive(s.workspace_id_) ? static_cast<ChannelGroup*>(s.group_) : nullptr;
}

void vset_error(const AsyncSession& s, const char* call, const char* fmt, va_list ap) {
  std::string msg = std::string(call) + ": " + vstrprintf(fmt, ap);
  if (ChannelGroup* g = group_of(s)) snprintf(g->error, sizeof g->error, "%s", msg.c_str());
  else t_error = msg;
  TC_LOG(Warn, "pto", "%s", msg.c_str());
}

/// A session belongs to the thread (block) that built it: a call from any
/// other thread is refused. This is the seed's rule "do not use one session
/// from several execution flows", made deterministic to detect.
std::uint64_t my_token() {
  if (t_thread == 0) t_thread = g_threads.fetch_add(1, std::memory_order_relaxed) + 1;
  return t_thread;
}
bool owned(const ChannelGroup& g) { return g.owner.load(std::memory_order_relaxed) == my_token(); }
const char* kForeign = "the session belongs to the thread (kernel block) that built it; this call comes from another "
                       "thread: build one session per block, on its own channel group";

bool runtime_ready() {
  return shmem::g_state.load(std::memory_order_acquire) == static_cast<int>(shmem::State::Ready);
}

}  // namespace

std::uint64_t reject(const AsyncSession& s, const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset_error(s, call, fmt, ap);
  va_end(ap);
  return 0;
}

namespace {
/// The channel group of a session the calling thread may use, or nullptr
/// with the reason recorded.
ChannelGroup* usable(const AsyncSession& s, const char* call) {
  if (!s.group_) return reject(s, call, "the session is not built (BuildAsyncSession was not called or returned false)"), nullptr;
  if (!workspace_alive(s.workspace_id_))
    return reject(s, call, "the session's workspace %p (channel group %u) was finalized: its workspace manager's "
                  "Finalize() or destructor freed it; build a new session on a live workspace", s.workspace_,
                  s.group_idx_), nullptr;
  auto* g = static_cast<ChannelGroup*>(s.group_);
  if (!owned(*g)) return reject(s, call, "%s", kForeign), nullptr;
  return g;
}

/// Whether the event of session `issuer` may be waited for with `s`.
bool same_session(const AsyncSession& s, const char* call, std::uint64_t handle, std::uint64_t issuer) {
  if (issuer == 0 || issuer == s.id()) return true;
  return reject(s, call, "event %llu was issued by session #%llu, not by this session #%llu (channel group %u): "
                "wait for an event with the session that issued it", static_cast<unsigned long long>(handle),
                static_cast<unsigned long long>(issuer), static_cast<unsigned long long>(s.id()), s.channelGroup()),
         false;
}
}  // namespace

const char* last_error(const AsyncSession& s) {
  if (ChannelGroup* g = group_of(s)) return g->error;
  return t_error.c_str();
}

bool build_session(AsyncSession& s, const BuildArgs& a) {
  s = AsyncSession{};
  const char* call = "BuildAsyncSession";
  const bool sdma = a.engine == DmaEngine::SDMA;
  if (!runtime_ready()) return reject(s, call, "shmem is not initialized (call shmem_init before launching kernels)");
  const LiveWorkspace live = find_workspace(a.workspace);
  Workspace* ws = live.ws;
  if (!ws)
    return reject(s, call, "workspace %p is not a live workspace of this PE: pass GetWorkspaceAddr() of an %s that "
                  "Init() succeeded on and that is not finalized", a.workspace,
                  sdma ? "SdmaWorkspaceManager" : "UrmaWorkspaceManager");
  if ((ws->kind == EngineKind::Sdma) != sdma)
    return reject(s, call, "workspace %p was made by %s but the session is for %s", a.workspace,
                  ws->kind == EngineKind::Sdma ? "SdmaWorkspaceManager" : "UrmaWorkspaceManager",
                  sdma ? "SDMA" : "URMA");
  if (sdma) {
    if (!a.scratch_is_vec) return reject(s, call, "the scratch tile must be a Vec (UB) tile");
    if (a.scratch_bytes < sizeof(std::uint64_t))
      return reject(s, call, "the scratch tile has %zu bytes; it needs at least 8", a.scratch_bytes);
    if (!a.scratch) return reject(s, call, "the scratch tile is not placed: TASSIGN it into UB first");
    if (a.sync_id > 7) return reject(s, call, "syncId %u is out of range 0-7", a.sync_id);
  } else {
    int n = shmem::g_runtime->n_pes();
    if (a.dest_rank < -1 || a.dest_rank >= n)
      return reject(s, call, "destRankId %d is out of range: the job has PEs 0..%d", a.dest_rank, n - 1);
  }
  if (a.queue_num < 1 || a.queue_num > kMaxQueues)
    return reject(s, call, "queue_num %u is out of range 1-%d", a.queue_num, kMaxQueues);
  if (a.block_bytes == 0) return reject(s, call, "block_bytes is 0; give the largest entry in bytes (default 1 MiB)");
  std::uint32_t idx = a.group;
  if (idx == pto::comm::sdma::kAutoChannelGroupIdx) idx = static_cast<std::uint32_t>(pto::GetBlockIdx());
  if (idx >= ws->groups)
    return reject(s, call, "channel group %u is out of range: the workspace has groups 0..%u (with more blocks than "
                  "that, pass channelGroupIdx explicitly)", idx, ws->groups - 1);
  ChannelGroup& g = ws->group[idx];
  if (g.issued > g.published || !g.complete(g.issued))
    return reject(s, call, "channel group %u still has operations in flight (issued %llu, complete %llu); Wait on "
                  "the last event of its session before rebuilding it", idx,
                  static_cast<unsigned long long>(g.issued), static_cast<unsigned long long>(g.completed()));
  // Every queue starts complete up to the group's last operation.
  for (auto& q : g.queues) q.done.store(g.issued, std::memory_order_relaxed);
  g.queue_num_.store(a.queue_num, std::memory_order_relaxed);
  g.block_bytes = a.block_bytes;
  g.peer = sdma ? -1 : a.dest_rank;
  g.next_queue = 0;
  g.waited = g.issued;
  g.error[0] = '\0';
  g.owner.store(my_token(), std::memory_order_relaxed);
  g.active.store(1, std::memory_order_release);

  s.group_ = &g;
  s.workspace_ = ws;
  s.engine_ = a.engine;
  s.group_idx_ = idx;
  s.sync_id_ = a.sync_id;
  s.scratch_ = a.scratch;
  s.comm_block_offset_ = a.comm_block_offset;
  s.id_ = g_sessions.fetch_add(1, std::memory_order_relaxed) + 1;
  s.workspace_id_ = live.id;
  return true;
}

namespace {

/// The address the engine uses for the remote side of `t`, checked; nullptr
/// and an error otherwise. A URMA peer on another host is reached through
/// UCX (NOTE [remote copies] in transport/dma/engine.hpp): `pe` is set to it
/// and the address stays this PE's own symmetric one.
char* remote_address(const AsyncSession& s, ChannelGroup& g, const Transfer& t, void* addr, std::size_t bytes,
                     const char* what, std::int32_t& pe) {
  auto& shm = shmem::g_runtime->shm();
  if (s.engine() == DmaEngine::SDMA) {
    auto o = shm.owner(addr);
    if (o.pe < 0)
      return reject(s, t.call, "the %s %p is not in any PE's symmetric memory as mapped in this process; pass the "
                    "address shmem_ptr() returns for the peer's buffer", what, addr), nullptr;
    if (o.room < bytes)
      return reject(s, t.call, "the %s [%p, +%zu bytes) runs %zu bytes past the end of PE %d's symmetric segment",
                    what, addr, bytes, bytes - o.room, o.pe), nullptr;
    return static_cast<char*>(addr);
  }
  const auto* ws = static_cast<const Workspace*>(s.workspace_);
  int peer = g.peer >= 0 ? g.peer : t.peer;
  if (peer < 0 || peer >= shmem::g_runtime->n_pes())
    return reject(s, t.call, "%s: no peer: the session has no destRankId and the operation's peer %d is not a PE "
                  "of the job (0..%d)", what, t.peer, shmem::g_runtime->n_pes() - 1), nullptr;
  std::uintptr_t off = reinterpret_cast<std::uintptr_t>(addr) - ws->window;
  if (off >= ws->window_bytes || bytes > ws->window_bytes - off)
    return reject(s, t.call, "the %s [%p, +%zu bytes) is outside the window [%p, +%zu bytes) registered with "
                  "UrmaWorkspaceManager::Init", what, addr, bytes, reinterpret_cast<void*>(ws->window),
                  ws->window_bytes), nullptr;
  if (!shmem::g_runtime->local(peer)) {
    pe = peer;
    return static_cast<char*>(addr);
  }
  return shm.translate(addr, peer);
}

/// Checks the local side: inside its segment if it is symmetric memory (URMA: inside the window).
bool local_ok(const AsyncSession& s, const Transfer& t, const void* addr, std::size_t bytes, const char* what) {
  if (s.engine() == DmaEngine::URMA) {
    const auto* ws = static_cast<const Workspace*>(s.workspace_);
    std::uintptr_t off = reinterpret_cast<std::uintptr_t>(addr) - ws->window;
    if (off >= ws->window_bytes || bytes > ws->window_bytes - off)
      return reject(s, t.call, "the %s [%p, +%zu bytes) is outside the window [%p, +%zu bytes) registered with "
                    "UrmaWorkspaceManager::Init", what, addr, bytes, reinterpret_cast<void*>(ws->window),
                    ws->window_bytes), false;
    return true;
  }
  auto o = shmem::g_runtime->shm().owner(addr);
  if (o.pe >= 0 && o.room < bytes)
    return reject(s, t.call, "the %s [%p, +%zu bytes) runs %zu bytes past the end of PE %d's symmetric segment",
                  what, addr, bytes, bytes - o.room, o.pe), false;
  return true;
}

}  // namespace

std::uint64_t submit(const AsyncSession& s, const Transfer& t) {
  ChannelGroup* gp = usable(s, t.call);
  if (!gp) return 0;
  ChannelGroup& g = *gp;
  if (!runtime_ready()) return reject(s, t.call, "shmem is finalized");
  if (job_failed()) return reject(s, t.call, "the job failed: %s", job_failure().c_str());
  if (!t.dst || !t.src) return reject(s, t.call, "the %s address is null", t.dst ? "source" : "destination");
  char* dst = static_cast<char*>(t.dst) + s.comm_block_offset_;
  const char* src = static_cast<const char*>(t.src) + s.comm_block_offset_;
  std::int32_t pe = -1;  // another host's PE (URMA), or -1
  if (t.remote_is_dst) {
    dst = remote_address(s, g, t, dst, t.bytes, "destination", pe);
    if (!dst || !local_ok(s, t, src, t.bytes, "source")) return 0;
  } else {
    src = remote_address(s, g, t, const_cast<char*>(src), t.bytes, "source", pe);
    if (!src || !local_ok(s, t, dst, t.bytes, "destination")) return 0;
  }
  std::int32_t* signal = nullptr;
  if (t.signal) {
    if (reinterpret_cast<std::uintptr_t>(t.signal) % alignof(std::int32_t) != 0)
      return reject(s, t.call, "the signal %p is not 4-byte aligned", static_cast<void*>(t.signal));
    signal = reinterpret_cast<std::int32_t*>(remote_address(s, g, t, t.signal, sizeof(std::int32_t), "signal", pe));
    if (!signal) return 0;
  }

  Completion why = Completion::Done;
  const Op op{dst, src, t.bytes, signal, t.signal_value, t.signal_add, pe, t.remote_is_dst};
  std::uint64_t seq = post(g, op, t.defer, why);
  if (seq == 0)
    return reject(s, t.call, "%s%s%s while waiting for room in the queues of channel group %u (at most %d operations "
                  "in flight, %u entries per queue); the operation was not submitted", to_text(why),
                  why == Completion::PeerFailed ? ": " : "", why == Completion::PeerFailed ? job_failure().c_str() : "",
                  s.channelGroup(), transport::dma::kMaxOutstanding, transport::dma::kRingEntries);
  return seq;
}

std::uint64_t submit_batch(const AsyncSession& s) {
  ChannelGroup* g = usable(s, "SubmitAsyncPutBatch");
  if (!g) return 0;
  if (g->issued == g->published)
    return reject(s, "SubmitAsyncPutBatch", "no deferred put is staged on this session (TPUT_ASYNC with "
                  "AsyncPutMode::DEFER stages one)");
  publish(*g);
  return g->issued;
}

bool wait(const AsyncSession& s, std::uint64_t handle, std::uint64_t issuer) {
  if (handle == 0) return true;  // an invalid event: nothing to wait for (see lastError())
  ChannelGroup* gp = usable(s, "AsyncEvent::Wait");
  if (!gp || !same_session(s, "AsyncEvent::Wait", handle, issuer)) return false;
  ChannelGroup& g = *gp;
  if (handle != UINT64_MAX && handle > g.issued)
    return reject(s, "AsyncEvent::Wait", "event %llu was not issued on this session (channel group %u has issued "
                  "%llu operations); was the session rebuilt on another group?",
                  static_cast<unsigned long long>(handle), s.channelGroup(),
                  static_cast<unsigned long long>(g.issued)), false;
  publish(g);
  const std::uint64_t target = g.issued;  // quiet: everything issued so far
  Completion c = wait_complete(g, target);
  if (c == Completion::Done && job_failed() && target > g.waited) c = Completion::PeerFailed;
  if (c != Completion::Done) {
    reject(s, "AsyncEvent::Wait", "%s while %llu operations of channel group %u were outstanding (%llu complete)%s%s",
           to_text(c), static_cast<unsigned long long>(target - g.waited), s.channelGroup(),
           static_cast<unsigned long long>(g.completed() - g.waited), c == Completion::PeerFailed ? ": " : "",
           c == Completion::PeerFailed ? job_failure().c_str() : "");
    return false;
  }
  g.waited = target;
  if (s.scratch_) std::memcpy(s.scratch_, &target, sizeof target);
  return true;
}

bool test(const AsyncSession& s, std::uint64_t handle, std::uint64_t issuer) {
  if (handle == 0) return true;
  ChannelGroup* gp = usable(s, "AsyncEvent::Test");
  if (!gp || !same_session(s, "AsyncEvent::Test", handle, issuer)) return false;
  ChannelGroup& g = *gp;
  if (handle > g.issued)
    return reject(s, "AsyncEvent::Test", "event %llu was not issued on this session (issued %llu)",
                  static_cast<unsigned long long>(handle), static_cast<unsigned long long>(g.issued)), false;
  if (job_failed() && handle > g.waited)
    return reject(s, "AsyncEvent::Test", "the job failed while operations were outstanding: %s",
                  job_failure().c_str()), false;
  std::uint64_t done = g.completed();
  if (s.scratch_) std::memcpy(s.scratch_, &done, sizeof done);
  if (done < handle) return false;
  if (handle > g.waited) g.waited = handle;
  return true;
}

}  // namespace tilecomm::async
