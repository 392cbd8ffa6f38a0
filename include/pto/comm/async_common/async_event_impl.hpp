// BuildAsyncSession: binds a session to a channel group of a DMA workspace.
//
// SDMA: BuildAsyncSession<DmaEngine::SDMA>(scratchTile, workspace, session,
//         syncId = 0, {block_bytes, comm_block_offset, queue_num}, channelGroupIdx = auto)
//   workspace  SdmaWorkspaceManager::GetWorkspaceAddr() of this PE
//   scratchTile a placed Vec tile of at least 8 bytes; it receives the
//              completion record each Wait/Test reads (control data, never payload)
//   channelGroupIdx  default: the block index; groups are independent (each
//              has its own queues), so blocks never share one by default
// URMA: BuildAsyncSession<DmaEngine::URMA>(workspace, destRankId, session)
//   workspace  UrmaWorkspaceManager::GetWorkspaceAddr(); the session's
//              operations address the symmetric window registered there, on
//              PE destRankId; BuildAsyncSession<URMA>(workspace, session)
//              leaves the peer to each operation (the `peer` argument)
//
// Returns false, with the reason in session.lastError() and the log, when the
// arguments are invalid or the channel group still has operations in flight
// (complete them with Wait before rebuilding).
#pragma once

#include <cstdint>
#include <type_traits>

#include "pto/common/pto_tile.hpp"
#include "pto/comm/async_common/async_types.hpp"

namespace pto::comm {

template <DmaEngine engine = DmaEngine::SDMA, typename ScratchTile,
          typename = std::enable_if_t<is_tile_v<ScratchTile>>>
PTO_INTERNAL bool BuildAsyncSession(ScratchTile& scratchTile, __gm__ std::uint8_t* workspace, AsyncSession& session,
                                    std::uint32_t syncId = 0,
                                    const sdma::SdmaBaseConfig& baseConfig = {sdma::kDefaultSdmaBlockBytes, 0, 1},
                                    std::uint32_t channelGroupIdx = sdma::kAutoChannelGroupIdx) {
  static_assert(engine == DmaEngine::SDMA,
                "this form builds SDMA sessions; URMA: BuildAsyncSession<DmaEngine::URMA>(workspace, destRankId, session)");
  tilecomm::async::BuildArgs a{};
  a.engine = engine;
  a.workspace = workspace;
  a.group = channelGroupIdx;
  a.sync_id = syncId;
  a.block_bytes = baseConfig.block_bytes;
  a.comm_block_offset = baseConfig.comm_block_offset;
  a.queue_num = baseConfig.queue_num;
  a.dest_rank = -1;
  a.scratch = scratchTile.data();
  a.scratch_bytes = ScratchTile::Bytes;
  a.scratch_is_vec = ScratchTile::Loc == TileType::Vec;
  return tilecomm::async::build_session(session, a);
}

namespace detail {
/// URMA sessions: one queue, the peer bound (dest_rank >= 0) or per operation (-1).
inline bool build_urma(__gm__ std::uint8_t* workspace, std::int32_t dest_rank, AsyncSession& session) {
  tilecomm::async::BuildArgs a{};
  a.engine = DmaEngine::URMA;
  a.workspace = workspace;
  a.group = sdma::kAutoChannelGroupIdx;
  a.block_bytes = sdma::kDefaultSdmaBlockBytes;
  a.queue_num = 1;
  a.dest_rank = dest_rank;
  return tilecomm::async::build_session(session, a);
}
}  // namespace detail

template <DmaEngine engine>
PTO_INTERNAL bool BuildAsyncSession(__gm__ std::uint8_t* workspace, std::uint32_t destRankId, AsyncSession& session) {
  static_assert(engine == DmaEngine::URMA, "this form builds URMA sessions");
  // A rank beyond int32 is reported as out of range, like any other bad rank.
  return detail::build_urma(workspace, destRankId > 0x7fffffffu ? -2 : static_cast<std::int32_t>(destRankId), session);
}

template <DmaEngine engine>
PTO_INTERNAL bool BuildAsyncSession(__gm__ std::uint8_t* workspace, AsyncSession& session) {
  static_assert(engine == DmaEngine::URMA, "this form builds URMA sessions");
  return detail::build_urma(workspace, -1, session);
}

}  // namespace pto::comm
