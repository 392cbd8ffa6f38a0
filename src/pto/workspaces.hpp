// The live DMA workspaces of this process (made by the workspace managers).
//
// The registry is a fixed table of trivially destructible atomics, so it is
// valid for the whole life of the process: a workspace manager at namespace
// scope may Finalize() during static destruction. Each workspace gets an id
// that is never reused; a session keeps it and asks workspace_alive() before
// it touches the workspace's memory, which Finalize() unmaps.
#pragma once

#include <cstdint>

#include "transport/dma/workspace.hpp"

namespace tilecomm::async {

struct LiveWorkspace {
  transport::dma::Workspace* ws = nullptr;
  std::uint64_t id = 0;
};

/// The workspace at `p` and its id, or {nullptr, 0} if `p` is not one that
/// is alive: a kernel's workspace argument is checked here before it is
/// dereferenced.
LiveWorkspace find_workspace(const void* p);
/// Whether the workspace named `id` is still alive (one atomic load).
bool workspace_alive(std::uint64_t id);

}  // namespace tilecomm::async
