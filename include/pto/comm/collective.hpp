// Collective PTO instructions, root side: the root moves every member's
// data through its own UB tiles.
//
//   TBROADCAST(pg, src, tile | ping, pong, events...)   tensors[k] = src, every k (root too)
//   TGATHER(pg, dst, tile | ping, pong, events...)      dst rows [r*H, (r+1)*H) = tensors[r]
//   TSCATTER(pg, src, tile | ping, pong, events...)     tensors[r] = src rows [r*H, (r+1)*H)
//   TREDUCE(pg, dst, acc, recv | ping, pong, op, events...)   dst = op over r of tensors[r]
//
// pg is a ParallelGroup: tensors[r] is rank r's buffer as the root reaches
// it (shmem_ptr), all of one shape and element type; H is DIM_3 of that
// shape. Only the root calls these; the other ranks keep their buffers
// valid, and synchronising before (data ready) and after (root done) is the
// caller's job (TNOTIFY / TWAIT, or TBARRIER). Gather and scatter
// concatenate along DIM_3 in rank order: the local tensor has the members'
// DIM_0, DIM_1, DIM_2 and DIM_4 extents and at least nranks*H rows of DIM_3
// (extra rows are left alone). TREDUCE loads tensors[root] into acc, then
// combines the other ranks in ascending rank order (Sum, Max, Min), so float
// results are reproducible bit for bit; shapes come from tensors[root].
// Chunking is the 2-D sliding of TPUT (detail/tile_walk.hpp); ping-pong
// forms alternate their two tiles chunk by chunk and give the same result.
// Every instruction is complete on return (RecordEvent).
//
// The engine parameter: CollEngine::AIV (the vector cores, the default) is
// what a CPU host has; CollEngine::CCU (A5 hardware) is rejected at compile
// time. Errors are tilecomm::Error (InvalidUsage) naming the instruction.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "pto/common/constants.hpp"
#include "pto/common/pto_tile.hpp"
#include "pto/comm/comm_types.hpp"
#include "pto/comm/detail/tile_walk.hpp"

namespace pto::comm {

namespace detail {

template <class T>
inline constexpr bool is_parallel_group_v = false;
template <class G>
inline constexpr bool is_parallel_group_v<ParallelGroup<G>> = true;

/// AIV only on a CPU host; the events of an AIV collective are WaitableEvent.
template <CollEngine engine, class... Args>
concept CollArgs = engine == CollEngine::CCU || (WaitableEvent<Args> && ...);

/// The events of an AIV collective are waited on first (a CCU call never compiles).
template <CollEngine engine, class... Args>
void wait_collective(Args&... args) {
  if constexpr (engine == CollEngine::AIV) WaitAllEvents(args...);
}

template <CollEngine engine, class PG, class Local, class TileT>
constexpr void check_collective_types() {
  static_assert(engine == CollEngine::AIV,
                "CollEngine::CCU needs the collective unit of A5 hardware, which a CPU host does not have; "
                "use CollEngine::AIV (the default)");
  static_assert(is_parallel_group_v<std::remove_cv_t<PG>>, "the first operand must be a comm::ParallelGroup");
  check_types<typename std::remove_cv_t<PG>::value_type, Local, TileT>();
}

/// The group is usable and its members share the root's extents; returns them.
template <class PG>
Region check_group(const char* call, PG& pg) {
  if (pg.nranks <= 0 || pg.tensors == nullptr)
    usage_error(std::string(call) + ": the ParallelGroup is empty (nranks = " + std::to_string(pg.nranks) +
                (pg.tensors ? "" : ", tensors = null") + "); build it with ParallelGroup(tensors, nranks, rootIdx)");
  if (pg.rootIdx < 0 || pg.rootIdx >= pg.nranks)
    usage_error(std::string(call) + ": rootIdx " + std::to_string(pg.rootIdx) + " is out of range; the group has " +
                "ranks 0.." + std::to_string(pg.nranks - 1));
  const Region root = region_of(pg.tensors[pg.rootIdx]);
  for (int r = 0; r < pg.nranks; ++r) {
    check_tensor(call, ("rank " + std::to_string(r) + "'s").c_str(), pg.tensors[r]);
    if (!(region_of(pg.tensors[r]) == root))
      usage_error(std::string(call) + ": rank " + std::to_string(r) + "'s tensor has " +
                  tensor_text(pg.tensors[r]) + " but the root's (rank " + std::to_string(pg.rootIdx) + ") has " +
                  tensor_text(pg.tensors[pg.rootIdx]) + "; all members must have the same shape");
  }
  return root;
}

/// Gather / scatter: the local tensor holds nranks members stacked along DIM_3.
template <class G>
void check_stacked(const char* call, const char* role, const G& local, const Region& member, int nranks) {
  check_tensor(call, role, local);
  const Region l = region_of(local);
  if (l.ext[0] != member.ext[0] || l.ext[1] != member.ext[1] || l.ext[2] != member.ext[2] ||
      l.ext[4] != member.ext[4] || l.ext[3] < nranks * member.ext[3])
    usage_error(std::string(call) + ": the " + role + " tensor has " + tensor_text(local) + "; for " +
                std::to_string(nranks) + " members of shape " + member.text() + " it needs extents (" +
                std::to_string(member.ext[0]) + "," + std::to_string(member.ext[1]) + "," +
                std::to_string(member.ext[2]) + ", >= " + std::to_string(nranks * member.ext[3]) + "," +
                std::to_string(member.ext[4]) + ")");
}

template <class PG, class Src, class TileT>
void broadcast(const char* call, PG& pg, Src& src, Staging<TileT>& staging) {
  const Region r = check_group(call, pg);
  check_tensor(call, "source", src);
  if (!(region_of(src) == r))
    usage_error(std::string(call) + ": the source has " + tensor_text(src) + " but the members have shape " +
                r.text() + "; they must be equal");
  const auto from = side_of(src);
  for_each_chunk(call, r, staging.first(), [&](const Chunk& c) {
    TileT& t = staging.next();
    load_chunk(t, from, r, c);
    for (int k = 0; k < pg.nranks; ++k) store_chunk<AtomicType::AtomicNone>(side_of(pg.tensors[k]), t, r, c);
  });
}

template <class PG, class Dst, class TileT>
void gather(const char* call, PG& pg, Dst& dst, Staging<TileT>& staging) {
  const Region m = check_group(call, pg);
  check_stacked(call, "destination", dst, m, pg.nranks);
  for (int r = 0; r < pg.nranks; ++r)
    move_region<AtomicType::AtomicNone>(call, side_of(dst, r * m.ext[3]), side_of(pg.tensors[r]), m, staging);
}

template <class PG, class Src, class TileT>
void scatter(const char* call, PG& pg, Src& src, Staging<TileT>& staging) {
  const Region m = check_group(call, pg);
  check_stacked(call, "source", src, m, pg.nranks);
  for (int r = 0; r < pg.nranks; ++r)
    move_region<AtomicType::AtomicNone>(call, side_of(pg.tensors[r]), side_of(src, r * m.ext[3]), m, staging);
}

/// acc = op(acc, x) on the valid part of chunk c.
template <class TileT>
void combine(TileT& acc, const TileT& x, const Chunk& c, ReduceOp op) {
  auto* a = acc.data();
  const auto* b = x.data();
  for (int i = 0; i < c.rows; ++i)
    for (int j = 0; j < c.cols; ++j) {
      const std::size_t k = tile_index<TileT>(i, j);
      switch (op) {
        case ReduceOp::Sum: a[k] = static_cast<typename TileT::DType>(a[k] + b[k]); break;
        case ReduceOp::Max: a[k] = b[k] > a[k] ? b[k] : a[k]; break;
        case ReduceOp::Min: a[k] = b[k] < a[k] ? b[k] : a[k]; break;
      }
    }
}

template <class PG, class Dst, class TileT>
void reduce(const char* call, PG& pg, Dst& dst, TileT& acc, Staging<TileT>& recv, ReduceOp op) {
  if (op != ReduceOp::Sum && op != ReduceOp::Max && op != ReduceOp::Min)
    usage_error(std::string(call) + ": ReduceOp " + std::to_string(static_cast<int>(op)) +
                " is not Sum (0), Max (1) or Min (2)");
  check_tile(call, "acc tile", acc);
  recv.check_apart_from(call, "acc tile", acc);
  if (acc.GetValidRow() != recv.first().GetValidRow() || acc.GetValidCol() != recv.first().GetValidCol())
    usage_error(std::string(call) + ": the acc tile's valid shape (" + std::to_string(acc.GetValidRow()) + " x " +
                std::to_string(acc.GetValidCol()) + ") differs from the receive tile's (" +
                std::to_string(recv.first().GetValidRow()) + " x " + std::to_string(recv.first().GetValidCol()) +
                "); give them the same valid rows and columns");
  const Region m = check_group(call, pg);
  check_tensor(call, "destination", dst);
  if (!(region_of(dst) == m))
    usage_error(std::string(call) + ": the destination has " + tensor_text(dst) + " but the members have shape " +
                m.text() + "; they must be equal");
  const int root = pg.rootIdx;
  for_each_chunk(call, m, acc, [&](const Chunk& c) {
    load_chunk(acc, side_of(pg.tensors[root]), m, c);
    for (int r = 0; r < pg.nranks; ++r) {
      if (r == root) continue;
      TileT& t = recv.next();
      load_chunk(t, side_of(pg.tensors[r]), m, c);
      combine(acc, t, c, op);
    }
    store_chunk<AtomicType::AtomicNone>(side_of(dst), acc, m, c);
  });
}

}  // namespace detail

// ---- TBROADCAST ------------------------------------------------------------------------------

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalSrcData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TBROADCAST(ParallelGroupType& parallelGroup, GlobalSrcData& srcGlobalData,
                                TileData& stagingTileData, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalSrcData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> staging("TBROADCAST", "staging tile", stagingTileData);
  detail::broadcast("TBROADCAST", parallelGroup, srcGlobalData, staging);
  return {};
}

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalSrcData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TBROADCAST(ParallelGroupType& parallelGroup, GlobalSrcData& srcGlobalData, TileData& pingTile,
                                TileData& pongTile, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalSrcData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> staging("TBROADCAST", pingTile, pongTile);
  detail::broadcast("TBROADCAST", parallelGroup, srcGlobalData, staging);
  return {};
}

// ---- TGATHER ---------------------------------------------------------------------------------

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalDstData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TGATHER(ParallelGroupType& parallelGroup, GlobalDstData& dstGlobalData,
                             TileData& stagingTileData, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalDstData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> staging("TGATHER", "staging tile", stagingTileData);
  detail::gather("TGATHER", parallelGroup, dstGlobalData, staging);
  return {};
}

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalDstData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TGATHER(ParallelGroupType& parallelGroup, GlobalDstData& dstGlobalData, TileData& pingTile,
                             TileData& pongTile, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalDstData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> staging("TGATHER", pingTile, pongTile);
  detail::gather("TGATHER", parallelGroup, dstGlobalData, staging);
  return {};
}

// ---- TSCATTER --------------------------------------------------------------------------------

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalSrcData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TSCATTER(ParallelGroupType& parallelGroup, GlobalSrcData& srcGlobalData,
                              TileData& stagingTileData, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalSrcData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> staging("TSCATTER", "staging tile", stagingTileData);
  detail::scatter("TSCATTER", parallelGroup, srcGlobalData, staging);
  return {};
}

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalSrcData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TSCATTER(ParallelGroupType& parallelGroup, GlobalSrcData& srcGlobalData, TileData& pingTile,
                              TileData& pongTile, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalSrcData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> staging("TSCATTER", pingTile, pongTile);
  detail::scatter("TSCATTER", parallelGroup, srcGlobalData, staging);
  return {};
}

// ---- TREDUCE ---------------------------------------------------------------------------------

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalDstData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TREDUCE(ParallelGroupType& parallelGroup, GlobalDstData& dstGlobalData, TileData& accTileData,
                             TileData& recvTileData, ReduceOp op, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalDstData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> recv("TREDUCE", "recv tile", recvTileData);
  detail::reduce("TREDUCE", parallelGroup, dstGlobalData, accTileData, recv, op);
  return {};
}

template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalDstData, typename TileData,
          typename... Args>
  requires detail::CollArgs<engine, Args...>
PTO_INST RecordEvent TREDUCE(ParallelGroupType& parallelGroup, GlobalDstData& dstGlobalData, TileData& accTileData,
                             TileData& pingTileData, TileData& pongTileData, ReduceOp op, Args&... args) {
  detail::check_collective_types<engine, ParallelGroupType, GlobalDstData, TileData>();
  detail::wait_collective<engine>(args...);
  detail::Staging<TileData> recv("TREDUCE", pingTileData, pongTileData);
  detail::reduce("TREDUCE", parallelGroup, dstGlobalData, accTileData, recv, op);
  return {};
}

}  // namespace pto::comm
