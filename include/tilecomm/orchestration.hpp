// Orchestration helpers for communicator kernels (seed 001: HCCL-style custom
// collectives on vector cores), with the guide's names and meaning. Use them
// inside a kernel run by tilecomm::Comm::launch, which binds each block to
// the communicator's descriptor; `tag` is the launch's magic
// (args.magic).
//
// Flags. Every rank's flag region holds, per ping-pong partition, one flag
// per peer for pairwise sync, one one-to-all flag, one fan-in flag per peer
// and one inner flag per block. A flag holds magic << 32 | value. A record
// adds one to the flag's value for this launch (atomically, so several
// blocks of a rank may record the same flag: their records add up); the
// n-th wait of a block on a flag in a launch passes once the flag carries
// the launch's magic and a value of at least n. Flags are never reset: a
// flag of an earlier launch carries an older magic and never satisfies a
// wait. A flag that carries a later magic means its writer ran two launches
// ahead into the same partition, so what this launch reads may be gone: the
// wait throws, naming the flag. Kernels that read peers' windows end with a
// post-sync (each reader records back to the writer, who waits), as seed
// 001's AllGather does; then no rank is ever more than one launch ahead.
//
// Sync helpers (peer = the other rank; the forms without a peer take
// GetBlockIdx() as the peer, as the seed's AllGather does):
//   Record(peer, tag)   I reached this point: tell `peer` (its flag for me).
//   Wait(peer, tag)     Wait until `peer` recorded for me as often as I waited.
//   Record1vN(tag)      One writer, all readers: raise my one-to-all flag.
//   WaitNv1([peer,] tag)  Wait for `peer`'s one-to-all flag.
//   RecordNv1([peer,] tag) Fan-in: tell `peer` (its fan-in flag for me).
//   Wait1vN(tag)        Wait until every other rank recorded a fan-in to me.
//   SetInnerFlag(tag, value) / WaitRankInnerFlag(tag, value, rank)
//                       Block-to-block: my block's inner flag; wait until every
//                       block of `rank` (mine included) set value or more.
//   PipeBarrier<PIPE_ALL>()  Orders everything this block did before it
//                       (a full memory fence: a CPU has no separate pipes).
//   CpGM2GM(dst, src, count[, op])  Copies count elements of any alignment;
//                       with AtomicOp::Add/Max/Min each element is combined
//                       into dst atomically (SetAtomicAdd/SetAtomicMax/...).
// Waits throw tilecomm::Error naming the helper, the peer, the tag and the
// flag's value when the job fails, TILECOMM_TIMEOUT passes or a sibling
// block of the launch failed; Comm::launch then throws.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tilecomm/comm.hpp"

namespace tilecomm::orch {

enum PipeType { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };
enum class AtomicOp { None, Add, Max, Min };

namespace detail {
enum class Flag { Pair, One2N, FanIn, Inner };
void record(Flag f, int peer, std::uint32_t tag, const char* call);
void wait(Flag f, int peer, std::uint32_t tag, const char* call);
void wait_fan_in(std::uint32_t tag);
void set_inner(std::uint32_t tag, std::uint32_t value);
void wait_inner(std::uint32_t tag, std::uint32_t value, int rank);
int block_peer(const char* call);

template <class T>
void combine(T* dst, const T* src, std::int64_t count, AtomicOp op) {
  for (std::int64_t i = 0; i < count; ++i) {
    std::atomic_ref<T> d(dst[i]);
    const T v = src[i];
    if constexpr (std::is_integral_v<T>) {
      if (op == AtomicOp::Add) {
        d.fetch_add(v, std::memory_order_relaxed);
        continue;
      }
    }
    T cur = d.load(std::memory_order_relaxed);
    for (;;) {
      T next = op == AtomicOp::Add ? static_cast<T>(cur + v) : op == AtomicOp::Max ? (v > cur ? v : cur)
                                                                                     : (v < cur ? v : cur);
      if (next == cur && op != AtomicOp::Add) break;
      if (d.compare_exchange_weak(cur, next, std::memory_order_relaxed)) break;
    }
  }
}
}  // namespace detail

inline void Record(int peer, std::uint32_t tag) { detail::record(detail::Flag::Pair, peer, tag, "Record"); }
inline void Wait(int peer, std::uint32_t tag) { detail::wait(detail::Flag::Pair, peer, tag, "Wait"); }
inline void Record1vN(std::uint32_t tag) { detail::record(detail::Flag::One2N, -1, tag, "Record1vN"); }
inline void WaitNv1(int peer, std::uint32_t tag) { detail::wait(detail::Flag::One2N, peer, tag, "WaitNv1"); }
inline void WaitNv1(std::uint32_t tag) { WaitNv1(detail::block_peer("WaitNv1"), tag); }
inline void RecordNv1(int peer, std::uint32_t tag) { detail::record(detail::Flag::FanIn, peer, tag, "RecordNv1"); }
inline void RecordNv1(std::uint32_t tag) { RecordNv1(detail::block_peer("RecordNv1"), tag); }
inline void Wait1vN(std::uint32_t tag) { detail::wait_fan_in(tag); }
inline void SetInnerFlag(std::uint32_t tag, std::uint32_t value) { detail::set_inner(tag, value); }
inline void WaitRankInnerFlag(std::uint32_t tag, std::uint32_t value, int rank) {
  detail::wait_inner(tag, value, rank);
}

template <int pipe = PIPE_ALL>
inline void PipeBarrier() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

/// Copies `count` elements from src to dst (any alignment, any length); with
/// an atomic op, combines each into dst atomically instead.
template <class T>
void CpGM2GM(T* dst, const T* src, std::int64_t count, AtomicOp op = AtomicOp::None) {
  static_assert(std::is_trivially_copyable_v<T>, "CpGM2GM copies plain element types");
  if (count <= 0) return;
  if (op == AtomicOp::None) std::memmove(dst, src, static_cast<std::size_t>(count) * sizeof(T));
  else detail::combine(dst, src, count, op);
}

}  // namespace tilecomm::orch
