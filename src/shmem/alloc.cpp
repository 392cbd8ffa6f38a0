// Collective symmetric allocation.
//
// Every PE runs the same deterministic allocator, so the same sequence of
// calls yields the same offsets everywhere. Each call is checked: a PE
// publishes (sequence number, operation, size, alignment, result) in its
// control block, a barrier follows, and every PE compares its record with
// PE 0's. A PE whose program called a different allocation, or whose
// allocation failed, is reported and the call fails on every PE together.
#include <cstring>

#include "core/log.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm::shmem {
namespace {

enum Op : std::uint64_t { kMalloc = 1, kFree, kRealloc };
const char* op_name(std::uint64_t op) {
  return op == kMalloc ? "allocation" : op == kFree ? "shmem_free" : op == kRealloc ? "shmem_realloc" : "?";
}

}  // namespace

// Publishes my record, synchronizes, and checks everybody's. Returns true if
// every PE made the same call and succeeded.
static bool agree(Runtime& rt, tilecomm_team& world, const ControlBlock::AllocRecord& mine, const char* call) {
  rt.control().alloc = mine;
  rt.team_sync(world, call);
  bool ok = true;
  for (int pe = 0; pe < rt.n_pes(); ++pe) {
    ControlBlock::AllocRecord other;
    rt.read(pe, &other, &rt.control().alloc, sizeof other, call);
    if (other.seq != mine.seq || other.op != mine.op || other.size != mine.size || other.align != mine.align ||
        (other.status == 0 && mine.status == 0 && other.offset != mine.offset)) {
      fatal("%s: symmetric allocation mismatch: this PE's call #%llu is %s(size=%llu, align=%llu) but PE %d's is "
            "%s(size=%llu, align=%llu); every PE must make the same sequence of shmem_malloc/free/realloc calls",
            call, static_cast<unsigned long long>(mine.seq), op_name(mine.op),
            static_cast<unsigned long long>(mine.size), static_cast<unsigned long long>(mine.align), pe,
            op_name(other.op), static_cast<unsigned long long>(other.size),
            static_cast<unsigned long long>(other.align));
    }
    if (other.status != 0) {
      if (pe == rt.my_pe() || ok)
        TC_LOG(Error, "memory", "%s(%llu bytes) failed on PE %d: %s", call,
               static_cast<unsigned long long>(other.size), pe,
               other.status == ENOMEM ? "the symmetric heap is full" : errno_text(static_cast<int>(other.status)).c_str());
      ok = false;
    }
  }
  // The records may be overwritten by the next call only after all have read them.
  rt.team_sync(world, call);
  return ok;
}

extern tilecomm_team* world_team();

void* Runtime::allocate(const char* call, std::size_t size, std::size_t align, bool zero) {
  if (size == 0) return nullptr;  // no action, no barrier
  std::lock_guard<std::mutex> lock(alloc_mutex_);
  ControlBlock::AllocRecord rec{++alloc_seq_, kMalloc, size, align, 0, 0};
  std::size_t off = alloc_.allocate(size, align);
  if (off == memory::HeapAllocator::kFailed) {
    rec.status = ENOMEM;
    TC_LOG(Error, "memory", "%s: cannot allocate %zu bytes (alignment %zu): symmetric heap of %zu bytes has %zu "
           "free, largest free block %zu; raise SHMEM_SYMMETRIC_SIZE (now %s)", call, size, align, alloc_.capacity(),
           alloc_.free_bytes(), alloc_.largest_free(), format_size(cfg_.symmetric_size).c_str());
  } else {
    rec.offset = off;
    if (int err = heap_.back(off, size)) {
      rec.status = err;
      TC_LOG(Error, "memory", "%s: cannot back %zu bytes of shared memory: %s (is the host out of memory?)", call,
             size, errno_text(err).c_str());
    }
  }
  // Zero before the closing barrier: once a peer returns it may put here.
  if (zero && rec.status == 0) memset(heap_.base() + off, 0, size);
  if (!agree(*this, *world_team(), rec, call)) {
    if (rec.status == 0) alloc_.release(off);
    return nullptr;
  }
  return heap_.base() + off;
}

void Runtime::release(const char* call, void* ptr) {
  std::lock_guard<std::mutex> lock(alloc_mutex_);
  std::size_t off = heap_offset(ptr);
  if (ptr < heap_.base() || off >= heap_.size() || alloc_.block_size(off) == 0)
    usage_error(call, "%p was not returned by shmem_malloc (or was freed already)", ptr);
  ControlBlock::AllocRecord rec{++alloc_seq_, kFree, alloc_.block_size(off), 0, off, 0};
  agree(*this, *world_team(), rec, call);
  alloc_.release(off);
}

void* Runtime::reallocate(const char* call, void* ptr, std::size_t size) {
  std::unique_lock<std::mutex> lock(alloc_mutex_);
  std::size_t off = heap_offset(ptr);
  std::size_t old = alloc_.block_size(off);
  if (ptr < heap_.base() || off >= heap_.size() || old == 0)
    usage_error(call, "%p was not returned by shmem_malloc (or was freed already)", ptr);
  ControlBlock::AllocRecord rec{++alloc_seq_, kRealloc, size, 0, off, 0};
  if (alloc_.resize_in_place(off, size)) {
    if (int err = heap_.back(off, size)) rec.status = err;
    if (agree(*this, *world_team(), rec, call)) return ptr;
    alloc_.resize_in_place(off, old);
    return nullptr;
  }
  // Move: a new block, copy, free the old one. The same decision is taken on
  // every PE because the allocators are identical.
  std::size_t noff = alloc_.allocate(size, 16);
  if (noff == memory::HeapAllocator::kFailed) rec.status = ENOMEM;
  else if (int err = heap_.back(noff, size)) rec.status = err;
  rec.offset = noff;
  if (!agree(*this, *world_team(), rec, call)) {
    if (rec.status == 0) alloc_.release(noff);
    return nullptr;
  }
  memmove(heap_.base() + noff, heap_.base() + off, old < size ? old : size);
  alloc_.release(off);
  // No peer may write into the new block before this PE has moved its data.
  team_sync(*world_team(), call);
  return heap_.base() + noff;
}

}  // namespace tilecomm::shmem
