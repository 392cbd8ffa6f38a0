// SdmaWorkspaceManager: host-side owner of an SDMA workspace of this PE.
//
//   pto::comm::sdma::SdmaWorkspaceManager mgr;
//   if (!mgr.Init()) { /* mgr.LastError() says why */ }
//   auto* ws = static_cast<uint8_t*>(mgr.GetWorkspaceAddr());  // kernel argument
//   pto::launch(blocks, kernel, ..., ws);
//   mgr.Finalize();  // also done by the destructor
//
// The workspace holds 48 channel groups, each with its own submission queues
// and completion records; the PE's SDMA engine threads run them. Init needs
// shmem_init (the engine belongs to the PE). Finalize waits for operations
// still in flight before it frees the workspace.
#pragma once

#include "pto/comm/async/workspace_abi.hpp"

namespace pto::comm::sdma {

class SdmaWorkspaceManager : public tilecomm::async::WorkspaceOwner {
 public:
  /// Creates the workspace; true if it exists (Init is idempotent).
  bool Init() { return make(DmaEngine::SDMA, nullptr, 0); }
};

}  // namespace pto::comm::sdma
