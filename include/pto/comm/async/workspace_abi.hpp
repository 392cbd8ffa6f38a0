// The library side of the workspace managers (not for applications).
#pragma once

#include <cstdint>
#include <string>

#include "pto/comm/async_common/async_types.hpp"

namespace tilecomm::async {

/// Makes a DMA workspace of this PE (shmem must be initialized) and attaches
/// it to the PE's engine; nullptr and `error` set on failure. URMA: operations
/// must stay inside [window, window + window_bytes) of symmetric memory.
void* create_workspace(pto::comm::DmaEngine kind, void* window, std::uint64_t window_bytes, std::string& error);
/// Waits for the workspace's operations in flight, detaches and frees it.
void destroy_workspace(void* workspace);

/// What both workspace managers are: the owner of one workspace.
class WorkspaceOwner {
 public:
  WorkspaceOwner() = default;
  ~WorkspaceOwner() { Finalize(); }
  WorkspaceOwner(const WorkspaceOwner&) = delete;
  WorkspaceOwner& operator=(const WorkspaceOwner&) = delete;

  /// Waits for operations in flight, then frees the workspace; safe to repeat.
  void Finalize() {
    if (ws_) destroy_workspace(ws_);
    ws_ = nullptr;
  }
  /// The kernel argument `__gm__ uint8_t* workspace`; nullptr before Init.
  void* GetWorkspaceAddr() const { return ws_; }
  /// Why Init returned false.
  const char* LastError() const { return error_.c_str(); }

 protected:
  bool make(pto::comm::DmaEngine kind, void* window, std::uint64_t window_bytes) {
    if (!ws_) ws_ = create_workspace(kind, window, window_bytes, error_);
    return ws_ != nullptr;
  }
  void* ws_ = nullptr;
  std::string error_;
};

}  // namespace tilecomm::async
