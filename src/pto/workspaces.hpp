// The live DMA workspaces of this process (made by the workspace managers).
#pragma once

#include "transport/dma/workspace.hpp"

namespace tilecomm::async {

/// The workspace at `p`, or nullptr if `p` is not one that is alive: a
/// kernel's workspace argument is checked here before it is dereferenced.
transport::dma::Workspace* find_workspace(const void* p);

/// Waits until every operation published on group `g` up to `seq` is complete.
enum class Completion { Done, PeerFailed, TimedOut };
Completion wait_complete(transport::dma::ChannelGroup& g, std::uint64_t seq);

}  // namespace tilecomm::async
