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

#include <string>

#include "pto/comm/async/workspace_abi.hpp"

namespace pto::comm::sdma {

class SdmaWorkspaceManager {
 public:
  SdmaWorkspaceManager() = default;
  ~SdmaWorkspaceManager() { Finalize(); }
  SdmaWorkspaceManager(const SdmaWorkspaceManager&) = delete;
  SdmaWorkspaceManager& operator=(const SdmaWorkspaceManager&) = delete;

  /// Creates the workspace; true if it exists (Init is idempotent).
  bool Init() {
    if (!ws_) ws_ = tilecomm::async::create_workspace(DmaEngine::SDMA, nullptr, 0, error_);
    return ws_ != nullptr;
  }
  void Finalize() {
    if (ws_) tilecomm::async::destroy_workspace(ws_);
    ws_ = nullptr;
  }
  void* GetWorkspaceAddr() const { return ws_; }
  /// Why Init returned false.
  const char* LastError() const { return error_.c_str(); }

 private:
  void* ws_ = nullptr;
  std::string error_;
};

}  // namespace pto::comm::sdma
