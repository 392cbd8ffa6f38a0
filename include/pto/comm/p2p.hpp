// Point-to-point PTO instructions: synchronous data movement through UB
// staging tiles, signals, and ordering.
//
//   TPUT(dst, src, tile [, atomicType], events...)      local src -> remote dst
//   TPUT<atomicType>(dst, src, ping, pong, events...)
//   TGET(dst, src, tile, events...)                     remote src -> local dst
//   TGET(dst, src, ping, pong, events...)
//   TNOTIFY(signal, value, NotifyOp, events...)         remote int32: Set / AtomicAdd
//   TWAIT(signal, cmpValue, WaitCmp, events...)         block until every local flag passes
//   TTEST(signal, cmpValue, WaitCmp, events...) -> bool one look
//   TQUIET(), TBARRIER()                                tilecomm extensions (below)
//
// Data instructions: the data really moves GM -> UB tile -> GM, one chunk
// of the tile's valid rows x valid columns at a time (NOTE [2-D sliding] in
// detail/tile_walk.hpp), and is complete when the instruction returns
// (RecordEvent). Both tensors must have the same extents; each side uses
// its own strides. The remote side is a peer's buffer as this process maps
// it (shmem_ptr). With AtomicType::AtomicAdd, TPUT adds element-wise into
// the destination atomically, so any number of PEs may add into one buffer.
// Trailing `events` (anything with Wait()) are waited on first.
//
// Checks: element types, layouts, the Vec tile type (compile time); a tile
// that is not placed (TASSIGN), overlapping ping and pong tiles, a static
// valid row / column that does not divide the extents, and tensors without
// an address throw tilecomm::Error (InvalidUsage) naming the instruction.
//
// NOTE [signal ordering] TNOTIFY first orders this block's earlier stores
// (a store fence), then stores with release or adds atomically; TWAIT and
// TTEST read with acquire. So data a block moved with TPUT before a TNOTIFY
// is visible to a block that saw the notification through TWAIT/TTEST.
// Stores of *other* blocks are not covered: SyncAll (or TQUIET on each of
// them) first. TWAIT never gives up silently: when the job fails, or
// TILECOMM_TIMEOUT passes, it throws tilecomm::Error (Remote / Timeout)
// naming the signal, the comparison, the expected and the seen value; it
// also stops when another block of the same launch failed.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pto/common/constants.hpp"
#include "pto/common/pto_tensor.hpp"
#include "pto/common/pto_tile.hpp"
#include "pto/comm/comm_types.hpp"
#include "pto/comm/detail/signal_wait.hpp"
#include "pto/comm/detail/tile_walk.hpp"
#include "pto/kernel.hpp"

namespace pto::comm {

namespace detail {

/// TPUT and TGET: dst <- src (or dst += src) through the staging tile(s).
template <AtomicType atomic, class Dst, class Src, class TileT>
void put_get(const char* call, Dst& dst, Src& src, Staging<TileT>& staging) {
  check_types<Dst, Src, TileT>();
  check_tensor(call, "destination", dst);
  check_tensor(call, "source", src);
  const Region r = region_of(src);
  if (!(region_of(dst) == r))
    usage_error(std::string(call) + ": the destination has " + tensor_text(dst) + " but the source has " +
                tensor_text(src) + "; both tensors must have the same extents");
  if constexpr (atomic == AtomicType::AtomicAdd) check_atomic_target(call, dst);
  move_region<atomic>(call, side_of(dst), side_of(src), r, staging);
}

template <class G>
tilecomm::signal::SignalView signal_view(G& g) {
  static_assert(std::is_same_v<typename G::RawDType, std::int32_t>, "signals are int32_t tensors");
  tilecomm::signal::SignalView v;
  v.base = const_cast<std::int32_t*>(g.data());
  for (int d = 0; d < 5; ++d) v.shape[d] = g.GetShape(d), v.stride[d] = g.GetStride(d);
  return v;
}

}  // namespace detail

// ---- TPUT ------------------------------------------------------------------------------------

/// local src -> staging tile -> remote dst (dst += src with AtomicAdd).
template <AtomicType atomicType = AtomicType::AtomicNone, typename GlobalDstData, typename GlobalSrcData,
          typename TileData, WaitableEvent... WaitEvents>
PTO_INST RecordEvent TPUT(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& stagingTileData,
                          WaitEvents&... events) {
  WaitAllEvents(events...);
  detail::Staging<TileData> staging("TPUT", "staging tile", stagingTileData);
  detail::put_get<atomicType>("TPUT", dstGlobalData, srcGlobalData, staging);
  return {};
}

/// The atomic type given at run time: AtomicAdd adds, anything else stores.
template <typename GlobalDstData, typename GlobalSrcData, typename TileData, WaitableEvent... WaitEvents>
PTO_INST RecordEvent TPUT(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& stagingTileData,
                          AtomicType atomicType, WaitEvents&... events) {
  WaitAllEvents(events...);
  if (atomicType == AtomicType::AtomicAdd)
    return TPUT<AtomicType::AtomicAdd>(dstGlobalData, srcGlobalData, stagingTileData);
  return TPUT<AtomicType::AtomicNone>(dstGlobalData, srcGlobalData, stagingTileData);
}

/// Ping-pong: chunks alternate between the two tiles (which must not overlap).
template <AtomicType atomicType = AtomicType::AtomicNone, typename GlobalDstData, typename GlobalSrcData,
          typename TileData, WaitableEvent... WaitEvents>
PTO_INST RecordEvent TPUT(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& pingTile,
                          TileData& pongTile, WaitEvents&... events) {
  WaitAllEvents(events...);
  detail::Staging<TileData> staging("TPUT", pingTile, pongTile);
  detail::put_get<atomicType>("TPUT", dstGlobalData, srcGlobalData, staging);
  return {};
}

// ---- TGET ------------------------------------------------------------------------------------

/// remote src -> staging tile -> local dst.
template <typename GlobalDstData, typename GlobalSrcData, typename TileData, WaitableEvent... WaitEvents>
PTO_INST RecordEvent TGET(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& stagingTileData,
                          WaitEvents&... events) {
  WaitAllEvents(events...);
  detail::Staging<TileData> staging("TGET", "staging tile", stagingTileData);
  detail::put_get<AtomicType::AtomicNone>("TGET", dstGlobalData, srcGlobalData, staging);
  return {};
}

template <typename GlobalDstData, typename GlobalSrcData, typename TileData, WaitableEvent... WaitEvents>
PTO_INST RecordEvent TGET(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& pingTile,
                          TileData& pongTile, WaitEvents&... events) {
  WaitAllEvents(events...);
  detail::Staging<TileData> staging("TGET", pingTile, pongTile);
  detail::put_get<AtomicType::AtomicNone>("TGET", dstGlobalData, srcGlobalData, staging);
  return {};
}

// ---- signals ---------------------------------------------------------------------------------

/// Sets (NotifyOp::Set) or atomically adds to (NotifyOp::AtomicAdd) the
/// int32 at dstSignalData.data(), usually a peer's flag (shmem_ptr). Only
/// that first element is written. See NOTE [signal ordering].
template <typename GlobalSignalData, WaitableEvent... WaitEvents>
PTO_INST void TNOTIFY(GlobalSignalData& dstSignalData, std::int32_t value, NotifyOp op, WaitEvents&... events) {
  static_assert(std::is_same_v<typename GlobalSignalData::RawDType, std::int32_t>, "signals are int32_t tensors");
  WaitAllEvents(events...);
  tilecomm::signal::notify(const_cast<std::int32_t*>(dstSignalData.data()), value, op);
}

/// Blocks until every element of the (local) signal tensor satisfies
/// `element <cmp> cmpValue`; throws instead of hanging (see the file comment).
template <typename GlobalSignalData, WaitableEvent... WaitEvents>
PTO_INST void TWAIT(GlobalSignalData& signalData, std::int32_t cmpValue, WaitCmp cmp, WaitEvents&... events) {
  WaitAllEvents(events...);
  tilecomm::signal::wait(detail::signal_view(signalData), cmpValue, cmp, "TWAIT");
}

/// One look: true when every element satisfies `element <cmp> cmpValue`.
template <typename GlobalSignalData, WaitableEvent... WaitEvents>
PTO_INST bool TTEST(GlobalSignalData& signalData, std::int32_t cmpValue, WaitCmp cmp, WaitEvents&... events) {
  WaitAllEvents(events...);
  const tilecomm::signal::SignalView v = detail::signal_view(signalData);
  tilecomm::signal::check_view(v, "TTEST");
  return tilecomm::signal::test(v, cmpValue, cmp);
}

// ---- ordering (tilecomm extensions) --------------------------------------------------------

/// tilecomm extension (no mainline PTO instruction): every store, put and
/// atomic this PE issued before is visible to every PE before any later load
/// or store of the caller (shmem_quiet; a full fence on the shm transport).
/// Asynchronous operations are not covered: wait on their events
/// (AsyncEvent::Wait, or TQUIET(session)).
PTO_INST void TQUIET() { tilecomm::signal::quiet(); }

/// tilecomm extension: a barrier across all PEs of the job, with quiet
/// semantics (shmem_barrier_all). In a kernel every block of the launch must
/// call it: the blocks meet (SyncAll), block 0 runs shmem_barrier_all, and
/// the blocks meet again, so every block's earlier stores are visible to
/// every PE when any block returns. From host code it is shmem_barrier_all.
PTO_INST void TBARRIER() {
  SyncAll();
  if (GetBlockIdx() == 0) tilecomm::signal::barrier_all("TBARRIER");
  SyncAll();
}

}  // namespace pto::comm
