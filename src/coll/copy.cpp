// Copies of the collective algorithms (NOTE [streaming copies]), and the
// choice of stores for what peers read next (NOTE [publishing stores]).
#include "coll/algorithm.hpp"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "core/config.hpp"
#include "core/copy.hpp"

namespace tilecomm::coll {

// NOTE [streaming copies] A call that moves more bytes than the caches
// hold gains nothing from leaving its destination in them. A copy with
// vector stores first reads every destination line (read for ownership)
// and later writes it back; a streaming (non-temporal) store writes it
// once, and so does `rep movsb` (NOTE [string copies], core/copy.cpp),
// which keeps the lines in the caches. Measured with 2 PEs, each copying
// n bytes from itself and n from its peer:
// - AMD EPYC, Zen 3 (512 KiB L2, 32 MiB L3), memcpy's vector stores:
//   n = 16 MiB 4.9 ms streaming against 9.6, n = 4 MiB 0.98 against 1.30;
//   an fcollect of 2 MiB per PE (4 MiB written) cost 389 us streaming.
// - AMD EPYC, Zen 5 (1 MiB L2), tilecomm-perf, medians of 6 interleaved
//   runs, memcpy's vector stores: fcollect and alltoall of n = 4 MiB 253
//   and 243 us streaming against 218 and 224; n = 8 MiB 558 and 580
//   against 738 and 807. So streaming paid from between 4 and 8 MiB
//   written per PE on the one and 8 and 16 MiB on the other: 16 times
//   the L2 cache.
// - The same Zen 5 with `rep movsb`, medians of 4-5 interleaved runs,
//   streaming from 16 MiB written against not: fcollect n = 8, 16, 32 MiB
//   580, 1400, 2970 us against 516, 1341, 2774; alltoall 581, 1428, 2893
//   against 546, 1246, 2947; n = 64 MiB fcollect 7046 against 5832,
//   alltoall 9174 against 5550; broadcast n = 16, 32, 64 MiB 536, 1509,
//   3297 against 500, 1271, 2854. At 4 PEs on the 2 CPUs: fcollect n =
//   8-32 MiB 0.81-0.89 times the streaming cost, alltoall 0.83-1.26. A
//   later alternation against the memcpy build, which streams, had them
//   from 8% slower to 18% faster at 8-32 MiB (NOTE [string copies]).
// So where the CPU has fast string moves, the library does not stream
// (up to 128 MiB written per PE, the largest measured); elsewhere it
// streams from 16 times the L2 cache (8 MiB where that size is unknown).
// TILECOMM_COLL_STREAM overrides both. A few hosts are a small sample:
// check the rule on each new kind of CPU.
std::size_t stream_bytes(const Config& cfg) {
  if (cfg.coll_stream) return cfg.coll_stream;
  static const std::size_t automatic = [] {
    if (fast_strings()) return kNeverStream;
    const std::size_t l2 = l2_cache_bytes();
    return l2 ? 16 * l2 : std::size_t{8} << 20;
  }();
  return automatic;
}

// NOTE [publishing stores] A copy that the peers read next (an operator's
// staged input, a reduced slice of rsag) is read on other CPUs. With ordinary
// stores its lines wait, modified, in this CPU's cache and every peer's read
// takes them from there; with streaming (non-temporal) stores they go to
// memory and the peers read them from there. Which costs less depends on how
// the CPUs reach each other's caches, and on a virtual machine that changes
// while the job runs: on a 2-vCPU AMD EPYC (Zen 4) KVM guest, one process
// copying a block that another then copies out, us per block, ordinary /
// streaming, in three states a few seconds apart (the cache-line round trip
// read 60-90, 115-325 and 340-370 ns in such states):
//   8 KiB:  0.30 / 2.0,  0.75 / 1.6,  3.5 / 1.9
//   64 KiB: 2.5 / 8.4,   9-11 / 6.6-7.9,  34 / 6.9
//   1 MiB:  47 / 84,     98-123 / 75-80,  490 / 78
// Streaming costs about the same in every state (the memory's bandwidth);
// ordinary stores win by up to 3 times in the fast state and lose by up to 6
// in the slow one. No fixed rule is right, so each thread measures: per kind
// of call and bit width of the bytes it publishes (StoreRecord), its first
// four calls alternate ordinary and streaming stores and the kind with the
// faster best is kept; then every `interval` calls one call tries the other
// kind, which takes over if it ran in under 0.9 of the kept kind's average
// (and the interval restarts at 16 calls), or else the interval grows
// fourfold, up to 1024 calls, so that a steady host pays for a probe in at
// most one call of 1024. A call's time is its whole run on this rank, which
// waits for the peers' reads of what it published. Below 4 KiB (where
// coll::copy never streams) the copy uses ordinary stores. The choice changes
// only where the bytes land, never the result, so the ranks need not agree.
// TILECOMM_PUBLISH_STORES=cached or streaming forces one kind.
// Measured for rsag (an OpenSHMEM sum reduction of floats, 2 PEs,
// tilecomm-perf): in the slow state 128 KiB, 256 KiB, 1 MiB and 4 MiB per
// PE took 10-11, 18-19, 61-63 and 241-250 us streaming against 35-37, 66-71,
// 169-174 and 590-623 ordinary, and 10-11, 18-19, 61 and 241-246 chosen
// automatically; in the fast state 1 MiB took 46 us ordinary against 76-85.
void StoreRecord::add(bool streaming, double t) {
  if (warm < 4) {
    double& c = cost[streaming];
    c = c == 0 ? t : std::min(c, t);
    if (++warm == 4) kept = cost[1] < cost[0];
  } else if (streaming != kept) {  // a probe
    cost[streaming] = t;
    if (t < 0.9 * cost[kept]) {
      kept = streaming;
      interval = kFirstInterval;
    } else {
      interval = std::min(4 * interval, kLastInterval);
    }
    until_probe = interval;
  } else {
    cost[kept] += (t - cost[kept]) / 4;
    if (until_probe) --until_probe;
  }
}

PublishStores::PublishStores(std::uint32_t kind, std::uint64_t bytes) {
  const StoreKind forced = shmem::g_runtime->config().publish_stores;
  if (forced != StoreKind::Auto) {
    streaming_ = forced == StoreKind::Streaming;
    return;
  }
  if (bytes < 4096) return;
  thread_local std::unordered_map<std::uint64_t, StoreRecord> records;
  record_ = &records[std::uint64_t{kind} << 8 | static_cast<std::uint64_t>(std::bit_width(bytes))];
  streaming_ = record_->next();
  start_ = std::chrono::steady_clock::now();
}

void PublishStores::done() {
  if (record_) record_->add(streaming_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

void copy(void* dst, const void* src, std::size_t n, bool stream) {
  if (stream && n >= 4096) copy_streaming(dst, src, n);
  else if (dst != src) copy_bytes(dst, src, n);  // NOTE [copy aliasing] (core/copy.hpp)
}

}  // namespace tilecomm::coll
