// DMA workspaces: creation, the registry of live ones, destruction.
#include <pto/comm/async/urma/urma_workspace_manager.hpp>

#include <atomic>
#include <mutex>

#include "core/error.hpp"
#include "core/log.hpp"
#include "pto/workspaces.hpp"
#include "shmem/runtime.hpp"
#include "transport/dma/workspace.hpp"

namespace tilecomm::async {
namespace {
using transport::dma::EngineKind;
using transport::dma::Workspace;

constexpr std::uint64_t kSlots = 64;  // the engine's limit of attached workspaces
// A workspace's id is serial * kSlots + slot, never reused; a free slot's id is 0.
constinit std::mutex g_mutex;
constinit Workspace* g_live[kSlots] = {};
constinit std::atomic<std::uint64_t> g_ids[kSlots] = {};
constinit std::uint64_t g_serial = 0;

bool runtime_ready() {
  return shmem::g_state.load() == static_cast<int>(shmem::State::Ready) && shmem::g_runtime != nullptr;
}
}  // namespace

LiveWorkspace find_workspace(const void* p) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (std::uint64_t s = 0; s < kSlots; ++s)
    if (p && g_live[s] == p) return {g_live[s], g_ids[s].load(std::memory_order_relaxed)};
  return {};
}

bool workspace_alive(std::uint64_t id) {
  return id != 0 && g_ids[id % kSlots].load(std::memory_order_acquire) == id;
}

std::string check_urma_ranks(std::uint32_t rank_id, std::uint32_t rank_count) {
  if (!runtime_ready()) return "UrmaWorkspaceManager::Init: call shmem_init first (the engine belongs to the PE)";
  auto& rt = *shmem::g_runtime;
  if (rank_id != static_cast<std::uint32_t>(rt.my_pe()) || rank_count != static_cast<std::uint32_t>(rt.n_pes()))
    return strprintf("UrmaWorkspaceManager::Init: rankId %u / rankCount %u do not describe this PE: it is PE %d of "
                     "%d (pass shmem_my_pe(), shmem_n_pes())", rank_id, rank_count, rt.my_pe(), rt.n_pes());
  return "";
}

void* create_workspace(pto::comm::DmaEngine kind, void* window, std::uint64_t window_bytes, std::string& error) {
  const char* who = kind == pto::comm::DmaEngine::SDMA ? "SdmaWorkspaceManager::Init" : "UrmaWorkspaceManager::Init";
  if (!runtime_ready()) {
    error = strprintf("%s: call shmem_init first (the engine belongs to the PE)", who);
    TC_LOG(Error, "pto", "%s", error.c_str());
    return nullptr;
  }
  auto& rt = *shmem::g_runtime;
  if (kind == pto::comm::DmaEngine::URMA) {
    std::size_t room = rt.shm().room(window);
    if (window_bytes == 0 || room < window_bytes) {
      error = strprintf("%s: the window [%p, +%llu bytes) is not inside one symmetric segment of this PE (it has "
                        "%zu bytes there); register memory from shmem_malloc", who, window,
                        static_cast<unsigned long long>(window_bytes), room);
      TC_LOG(Error, "pto", "%s", error.c_str());
      return nullptr;
    }
  }
  Workspace* ws = nullptr;
  try {
    ws = Workspace::create(kind == pto::comm::DmaEngine::SDMA ? EngineKind::Sdma : EngineKind::Urma,
                           pto::comm::sdma::kMaxChannelGroups, rt.my_pe());
  } catch (const Error& e) {
    error = strprintf("%s: %s", who, e.what());
    TC_LOG(Error, "pto", "%s", error.c_str());
    return nullptr;
  }
  ws->window = reinterpret_cast<std::uintptr_t>(window);
  ws->window_bytes = window_bytes;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (std::uint64_t s = 0; s < kSlots; ++s) {
    if (g_live[s]) continue;
    g_live[s] = ws;
    g_ids[s].store(++g_serial * kSlots + s, std::memory_order_release);
    error.clear();
    return ws;
  }
  Workspace::destroy(ws);  // not reached: the engine refuses more than kSlots workspaces first
  error = strprintf("%s: %llu workspaces are alive; Finalize() one first", who, static_cast<unsigned long long>(kSlots));
  return nullptr;
}

void destroy_workspace(void* p) {
  Workspace* ws = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (std::uint64_t s = 0; s < kSlots; ++s) {
      if (!p || g_live[s] != p) continue;
      ws = g_live[s];
      g_live[s] = nullptr;
      g_ids[s].store(0, std::memory_order_release);  // sessions on it are refused from now on
    }
  }
  if (!ws) return;
  if (!Workspace::destroy(ws))
    TC_LOG(Warn, "pto", "workspace %p freed with operations unfinished (the job failed or TILECOMM_TIMEOUT passed)", p);
}

}  // namespace tilecomm::async
