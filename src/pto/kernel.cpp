// Kernel launch on a CPU host: one thread per block, per-block UB scratch,
// a barrier across the blocks, and failure propagation (see pto/kernel.hpp).
#include <pto/kernel.hpp>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/wait.hpp"

namespace tilecomm::kernel {
namespace {

constexpr int kMaxBlocks = 256;

struct Launch {
  int blocks = 1;
  // First failure.
  std::mutex mutex;
  std::atomic<bool> failed{false};
  int failed_block = -1;
  ErrorCode code = ErrorCode::InvalidUsage;
  std::string failure;
  // SyncAll: a counter of arrivals and a generation.
  std::atomic<int> arrived{0};
  std::atomic<std::uint64_t> generation{0};

  void fail(int block, const std::string& what, ErrorCode c = ErrorCode::InvalidUsage) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failed_block < 0) failed_block = block, failure = what, code = c;
    failed.store(true, std::memory_order_release);
  }
};

thread_local const Block* t_block = nullptr;

/// One UB buffer per block, kept by the launching thread between launches.
struct UbPool {
  std::size_t size = 0;
  std::vector<std::unique_ptr<std::uint8_t, decltype(&std::free)>> buffers;

  std::uint8_t* get(int i, std::size_t bytes) {
    if (bytes != size) buffers.clear(), size = bytes;
    while (static_cast<int>(buffers.size()) <= i) {
      void* p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (!p) raise(ErrorCode::System, "launch: cannot allocate %zu bytes of UB for block %d", bytes, i);
      buffers.emplace_back(static_cast<std::uint8_t*>(p), &std::free);
    }
    return buffers[i].get();
  }
};

void run_one(Launch& l, const Block& b, void (*body)(void*), void* arg) {
  t_block = &b;
  try {
    body(arg);
  } catch (const Error& e) {
    l.fail(b.idx, e.what(), e.code());
  } catch (const std::exception& e) {
    l.fail(b.idx, e.what());
  } catch (...) {
    l.fail(b.idx, "an exception that is not a std::exception");
  }
  t_block = nullptr;
}

Launch& current_launch() { return *static_cast<Launch*>(t_block->launch); }

}  // namespace

const Block* current_block() noexcept { return t_block; }

std::size_t ub_size() {
  const Config& cfg = process_config();
  if (cfg.ub_size != 0) return cfg.ub_size;
  return cfg.soc == SocProfile::A5 ? 256 * 1024 : 192 * 1024;
}

void run_blocks(int blocks, void (*body)(void*), void* arg) {
  if (blocks < 1 || blocks > kMaxBlocks)
    raise(ErrorCode::InvalidUsage, "launch: %d blocks requested; a kernel runs on 1 to %d blocks", blocks,
          kMaxBlocks);
  if (t_block)
    raise(ErrorCode::InvalidUsage, "launch: called from inside a kernel (block %d); launch kernels from host code",
          t_block->idx);
  thread_local UbPool pool;
  const std::size_t ub = ub_size();
  Launch l;
  l.blocks = blocks;
  std::vector<Block> info(blocks);
  for (int i = 0; i < blocks; ++i) info[i] = Block{i, blocks, pool.get(i, ub), ub, &l};

  std::vector<std::thread> threads;
  threads.reserve(blocks - 1);
  for (int i = 1; i < blocks; ++i) {
    try {
      threads.emplace_back(run_one, std::ref(l), std::cref(info[i]), body, arg);
    } catch (const std::system_error& e) {
      l.fail(i, std::string("cannot start the block's thread: ") + e.what());
      break;
    }
  }
  if (!l.failed.load()) run_one(l, info[0], body, arg);
  for (auto& t : threads) t.join();
  if (l.failed_block >= 0) {
    raise(l.code, "kernel failed in block %d of %d: %s", l.failed_block, blocks,
          l.failure.c_str());
  }
}

void check_launch() {
  if (!t_block) return;
  Launch& l = current_launch();
  if (TC_UNLIKELY(l.failed.load(std::memory_order_acquire))) {
    std::lock_guard<std::mutex> lock(l.mutex);
    raise(ErrorCode::Remote, "block %d stopped because block %d failed: %s", t_block->idx, l.failed_block,
          l.failure.c_str());
  }
}

void sync_blocks() {
  if (!t_block || t_block->num == 1) return;
  Launch& l = current_launch();
  std::uint64_t gen = l.generation.load(std::memory_order_acquire);
  if (l.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == l.blocks) {
    l.arrived.store(0, std::memory_order_relaxed);
    l.generation.store(gen + 1, std::memory_order_release);
    return;
  }
  WaitStatus st = wait_for([&] {
    return l.generation.load(std::memory_order_acquire) != gen || l.failed.load(std::memory_order_relaxed);
  });
  check_launch();
  if (st != WaitStatus::Done)
    raise(st == WaitStatus::TimedOut ? ErrorCode::Timeout : ErrorCode::Remote,
          "SyncAll in block %d of %d: %s", t_block->idx, l.blocks,
          st == WaitStatus::TimedOut ? "TILECOMM_TIMEOUT passed while waiting for the other blocks"
                                     : job_failure().c_str());
}

std::uint8_t* ub_place(std::size_t offset, std::size_t bytes, const char* what) {
  if (!t_block)
    raise(ErrorCode::InvalidUsage, "TASSIGN(%s, 0x%zx) outside a kernel: tiles live in a block's UB; "
          "call it from a kernel started with pto::launch", what, offset);
  if (offset % pto::kUbAlign != 0)
    raise(ErrorCode::InvalidUsage, "TASSIGN(%s, 0x%zx) in block %d: the offset is not a multiple of %u bytes",
          what, offset, t_block->idx, pto::kUbAlign);
  if (offset > t_block->ub_size || bytes > t_block->ub_size - offset)
    raise(ErrorCode::InvalidUsage, "TASSIGN(%s, 0x%zx) in block %d: the tile's %zu bytes end at 0x%zx, past the "
          "UB limit 0x%zx (%zu bytes; TILECOMM_UB_SIZE / TILECOMM_SOC)", what, offset, t_block->idx, bytes,
          offset + bytes, t_block->ub_size, t_block->ub_size);
  return t_block->ub + offset;
}

}  // namespace tilecomm::kernel
