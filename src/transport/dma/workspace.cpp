#include "transport/dma/workspace.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <new>

#include "core/error.hpp"
#include "transport/dma/channel.hpp"
#include "transport/dma/engine.hpp"

namespace tilecomm::transport::dma {

Workspace* Workspace::create(EngineKind kind, std::uint32_t groups, int pe) {
  const std::size_t bytes = size_for(groups);
  // Anonymous memory: only the pages the queues touch are ever committed.
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    raise(ErrorCode::System, "cannot map %zu bytes for a DMA workspace: %s", bytes, errno_text(errno).c_str());
  auto* ws = new (mem) Workspace();
  for (std::uint32_t g = 0; g < groups; ++g) new (&ws->group[g]) ChannelGroup();
  ws->kind = kind;
  ws->groups = groups;
  ws->pe = pe;
  ws->bytes = bytes;
  try {
    Engine::instance().attach(ws);
  } catch (...) {
    munmap(mem, bytes);
    throw;
  }
  return ws;
}

bool Workspace::destroy(Workspace* ws) {
  bool clean = true;
  for (std::uint32_t g = 0; g < ws->groups; ++g) {
    ChannelGroup& grp = ws->group[g];
    if (grp.published > grp.completed()) clean &= wait_complete(grp, grp.published) == Completion::Done;
  }
  Engine::instance().detach(ws);
  const std::size_t bytes = ws->bytes;
  for (std::uint32_t g = 0; g < ws->groups; ++g) ws->group[g].~ChannelGroup();
  ws->~Workspace();
  munmap(ws, bytes);
  return clean;
}

}  // namespace tilecomm::transport::dma
