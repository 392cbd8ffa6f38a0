// The kernel model on a CPU host: a kernel runs on B blocks of one PE.
//
//   pto::launch(blocks, kernel, args...);
//
// runs kernel(args...) on `blocks` concurrent blocks of the calling PE (one
// thread each; block 0 on the calling thread) and returns when every block
// has returned. Inside a kernel, GetBlockIdx()/GetBlockNum() (or the seeds'
// get_block_idx()/get_block_num()) tell which block this is, SyncAll() is a
// barrier across the blocks of this launch, and each block owns a private UB
// scratch area (TILECOMM_UB_SIZE bytes, 192 KiB by default as on A2/A3) into
// which TASSIGN places tiles.
//
// Failure: an exception thrown by a block (a tilecomm::Error from an
// instruction, or any std::exception) makes the other blocks' SyncAll and
// waits throw too, and launch() throws a tilecomm::Error naming the first
// block that failed and its message, once every block has returned.
//
// Outside a kernel the calling thread behaves as block 0 of 1 without UB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>
#include <utility>

#include "pto/common/constants.hpp"

namespace tilecomm::kernel {

/// What a block knows about itself; valid for the duration of the launch.
struct Block {
  int idx = 0;
  int num = 1;
  std::uint8_t* ub = nullptr;  // this block's UB scratch
  std::size_t ub_size = 0;
  void* launch = nullptr;      // the launch this block belongs to
};

/// The calling thread's block, or nullptr outside a kernel.
const Block* current_block() noexcept;
/// Runs body(arg) on `blocks` blocks; throws tilecomm::Error (see above).
void run_blocks(int blocks, void (*body)(void*), void* arg);
/// Barrier across the blocks of the current launch (no-op outside one).
void sync_blocks();
/// Throws if another block of the current launch has failed, so that a
/// block waiting for a peer or a sibling stops instead of waiting forever.
void check_launch();
/// Bytes of UB per block that the next launch will give (TILECOMM_UB_SIZE).
std::size_t ub_size();
/// UB address for `bytes` at `offset` of this block's UB, checked: throws an
/// InvalidUsage error naming `what`, the offset, the size and the limit.
std::uint8_t* ub_place(std::size_t offset, std::size_t bytes, const char* what);

}  // namespace tilecomm::kernel

namespace pto {

/// Runs kernel(args...) on `blocks` blocks of this PE; see the file comment.
template <class Kernel, class... Args>
void launch(int blocks, Kernel&& kernel, Args&&... args) {
  auto call = [&] { std::invoke(kernel, args...); };
  tilecomm::kernel::run_blocks(
      blocks, [](void* p) { (*static_cast<decltype(call)*>(p))(); }, &call);
}

inline std::int64_t GetBlockIdx() {
  const auto* b = tilecomm::kernel::current_block();
  return b ? b->idx : 0;
}
inline std::int64_t GetBlockNum() {
  const auto* b = tilecomm::kernel::current_block();
  return b ? b->num : 1;
}
inline std::int64_t get_block_idx() { return GetBlockIdx(); }
inline std::int64_t get_block_num() { return GetBlockNum(); }

/// Barrier across the blocks of the current launch.
inline void SyncAll() { tilecomm::kernel::sync_blocks(); }

}  // namespace pto
