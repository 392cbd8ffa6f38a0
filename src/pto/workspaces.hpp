// The live DMA workspaces of this process (made by the workspace managers).
#pragma once

#include "transport/dma/workspace.hpp"

namespace tilecomm::async {

/// The workspace at `p`, or nullptr if `p` is not one that is alive: a
/// kernel's workspace argument is checked here before it is dereferenced.
transport::dma::Workspace* find_workspace(const void* p);

}  // namespace tilecomm::async
