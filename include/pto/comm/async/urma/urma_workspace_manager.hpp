// UrmaWorkspaceManager: host-side owner of a URMA workspace of this PE.
//
//   pto::comm::urma::UrmaWorkspaceManager mgr;
//   mgr.Init(shmem_my_pe(), shmem_n_pes(), window, windowBytes);
//   kernel: BuildAsyncSession<DmaEngine::URMA>(ws, peer, session)
//
// URMA (user-level RDMA) addresses peers by rank and symmetric address: an
// operation's remote side is the symmetric address of this PE's own copy,
// and the engine reaches the same offset on the session's peer. Every source
// and destination range must lie inside the registered window, which must be
// symmetric memory (shmem_malloc) of the same address on every PE. Inside one
// host the engine reaches the peer through mapped memory; between hosts this
// is the path the UCX transport takes. Init is local (no collective call):
// every PE registers the same window.
#pragma once

#include <cstdint>
#include <string>

#include "pto/comm/async/workspace_abi.hpp"

namespace pto::comm::urma {

class UrmaWorkspaceManager : public tilecomm::async::WorkspaceOwner {
 public:
  /// rankId/rankCount must be this PE and the job size (shmem_my_pe(),
  /// shmem_n_pes()); [symmetricAddr, +symmetricSize) the window.
  bool Init(std::uint32_t rankId, std::uint32_t rankCount, void* symmetricAddr, std::uint64_t symmetricSize);
  /// The seed's form: `comm` (an HCCL communicator there) is not used, the
  /// tilecomm job is the communicator.
  bool Init(void* comm, std::uint32_t rankId, std::uint32_t rankCount, void* symmetricAddr,
            std::uint64_t symmetricSize) {
    (void)comm;
    return Init(rankId, rankCount, symmetricAddr, symmetricSize);
  }
};

}  // namespace pto::comm::urma

namespace tilecomm::async {
/// Checks the rank arguments of UrmaWorkspaceManager::Init; "" if they are right.
std::string check_urma_ranks(std::uint32_t rank_id, std::uint32_t rank_count);
}  // namespace tilecomm::async

inline bool pto::comm::urma::UrmaWorkspaceManager::Init(std::uint32_t rankId, std::uint32_t rankCount,
                                                         void* symmetricAddr, std::uint64_t symmetricSize) {
  if (ws_) return true;
  error_ = tilecomm::async::check_urma_ranks(rankId, rankCount);
  return error_.empty() && make(DmaEngine::URMA, symmetricAddr, symmetricSize);
}
