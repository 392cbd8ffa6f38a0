// The communicator face (seed 002's TileXR communicator, seed 001's HCCL
// window): a group of ranks, one window per rank that every other rank of
// the host maps, a flat kernel descriptor, and launches that draw a fresh
// magic each.
//
//   tilecomm::Comm comm = tilecomm::Comm::world();      // or from_team, init_rank
//   comm.launch(comm.size(), kernel, input, output, count);
//     // kernel(const tilecomm::CommArgs& args, input, output, count) runs on
//     // comm.size() blocks of every rank; args.magic is the launch's tag
//
// Windows (the one description; the operators' docs refer here): each rank
// owns a data region (CommOptions::window_bytes, 200 MiB by default: HCCL's
// buffer; a multiple of 128 bytes, at least 128) and a flag region
// (flag_bytes, 4 MiB; at least 64 KiB), each cut in two ping-pong
// partitions. Who uses what:
// - a launch (a custom kernel, and each round of a fused operator of
//   <tilecomm/ops.hpp>) uses partition magic % 2 of both regions, so a rank
//   that runs one launch ahead writes the other partition, never the one a
//   slow peer still reads (kernels end with a post-sync, so no rank gets
//   two launches ahead: <tilecomm/orchestration.hpp>). CommArgs::data(rank)
//   / flags(rank) are this launch's partitions, partitionBytes() long;
// - a collective operator of <tilecomm/ops.hpp> runs between launches and
//   uses the whole data region (the collective library synchronises it).
// Data that do not fit go in rounds; a window too small for one element or
// row of a call is refused when planning, naming the size needed.
//
// Errors: every failure throws tilecomm::Error (a code and a message naming
// the values and what to change); the C API (<tilecomm/comm.h>) returns the
// code and keeps the message for tilecomm_comm_last_error().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include <shmem.h>
#include <shmemx.h>

#include "pto/kernel.hpp"
#include "tilecomm/error.hpp"

namespace tilecomm {

namespace comm {
struct Access;
}

/// Ranks a communicator may have: the size of the descriptor's peer tables
/// (TileXR's TILEXR_MAX_RANK_SIZE).
constexpr int kCommMaxRanks = 128;

/// The kernel descriptor (TileXR's CommArgs): plain data, the same layout on
/// every rank, handed to kernels by reference. Peer bases of ranks on other
/// hosts are null (not load/store reachable).
struct CommArgs {
  int rank = 0;            // in the communicator
  int localRank = 0;       // among the ranks of this host
  int rankSize = 0;
  int localRankSize = 0;
  std::uint32_t magic = 0;  // this launch's tag (Comm::launch draws it)
  std::uint64_t windowBytes = 0;  // data region per rank (two partitions)
  std::uint64_t flagBytes = 0;    // flag region per rank (two partitions)
  std::uint8_t* peerMems[kCommMaxRanks] = {};   // each rank's data region, mapped here
  std::uint8_t* peerFlags[kCommMaxRanks] = {};  // each rank's flag region, mapped here
  /// rankSize x rankSize, row-major: sendCountMatrix[i * rankSize + j] is
  /// what rank i sends to rank j (all-to-all-v); filled by the caller.
  std::uint64_t sendCountMatrix[kCommMaxRanks * kCommMaxRanks] = {};

  /// Bytes of one data partition, and this launch's partition of `r`'s data region.
  std::uint64_t partitionBytes() const { return windowBytes / 2; }
  template <class T = std::uint8_t>
  T* data(int r) const {
    return reinterpret_cast<T*>(peerMems[r] + (magic % 2) * partitionBytes());
  }
  /// This launch's partition of `r`'s flag region, as 64-bit flag words.
  std::uint64_t* flags(int r) const {
    return reinterpret_cast<std::uint64_t*>(peerFlags[r] + (magic % 2) * (flagBytes / 2));
  }
};

/// Sizes of a communicator's windows, per rank, both split in two partitions; 0 takes the default below.
struct CommOptions {
  std::size_t window_bytes = std::size_t{200} << 20;
  std::size_t flag_bytes = std::size_t{4} << 20;
};

/// A window: one rank's regions as mapped here.
struct Window {
  std::uint8_t* data = nullptr;
  std::size_t data_bytes = 0;
  std::uint8_t* flags = nullptr;
  std::size_t flag_bytes = 0;
};

using UniqueId = shmemx_uniqueid_t;

class Comm {
 public:
  /// Every PE of the job (collective over SHMEM_TEAM_WORLD).
  static Comm world(const CommOptions& opts = {});
  /// The members of `team` (collective over the team; any team, split_strided
  /// and split_2d ones included).
  static Comm from_team(shmem_team_t team, const CommOptions& opts = {});
  /// TileXR's GetUniqueId: one process draws it and hands it to every rank.
  static UniqueId unique_id();
  /// TileXR's CommInitRank: rank `rank` of `nranks` joins through `id`
  /// (starting tilecomm's runtime if this process has not), then world().
  static Comm init_rank(int nranks, const UniqueId& id, int rank, const CommOptions& opts = {});

  Comm(Comm&&) noexcept;
  Comm& operator=(Comm&&) noexcept;
  /// Destroys a communicator that is still alive, like destroy(); an error
  /// there is logged as a warning, never thrown or fatal, so that a rank
  /// unwinding an error neither hangs its peers nor ends its process.
  ~Comm();
  /// Collective: unmaps the peers' windows and frees this rank's, once
  /// every rank stopped using them. Later calls on this object throw.
  /// Releases them here without waiting where shmem_finalize already ran
  /// or an operator call of this rank failed; throws (having released them)
  /// where a peer failed, left without destroying it or runs a call this
  /// rank never made (NOTE [call board] in src/comm/board.hpp).
  void destroy();

  int rank() const;
  int size() const;
  int local_rank() const;
  int local_size() const;
  /// Rank `r`'s window as mapped here (both partitions).
  Window window(int r) const;
  /// The kernel descriptor; args().magic is the latest launch's.
  const CommArgs& args() const;
  CommArgs& args();
  /// Draws the next magic (launch() does). Every rank draws the same
  /// sequence as long as every rank makes the same launch and NextMagic
  /// calls, in the same order.
  std::uint32_t NextMagic();
  /// The shmem team of the members (for the collective library).
  shmem_team_t team() const;

  /// Draws a magic, then runs kernel(args(), kernel_args...) on `blocks`
  /// blocks; every block may use the orchestration helpers. Collective: every
  /// rank launches the same kernels in the same order.
  template <class Kernel, class... Args>
  void launch(int blocks, Kernel&& kernel, Args&&... kernel_args) {
    begin_launch();
    const CommArgs& a = args();
    pto::launch(
        blocks,
        [&](auto&&... xs) {
          BlockScope scope(a);
          std::invoke(kernel, a, xs...);
        },
        kernel_args...);
  }

  struct Impl;

  /// Binds the orchestration helpers of the calling block to a descriptor
  /// for one launch (launch() does it for every block).
  class BlockScope {
   public:
    explicit BlockScope(const CommArgs& args);
    ~BlockScope();
    BlockScope(const BlockScope&) = delete;
    BlockScope& operator=(const BlockScope&) = delete;
  };

 private:
  friend struct comm::Access;
  explicit Comm(std::unique_ptr<Impl> impl);
  void release() noexcept;
  void begin_launch();
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tilecomm
