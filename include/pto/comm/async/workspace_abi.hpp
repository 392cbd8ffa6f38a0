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

}  // namespace tilecomm::async
