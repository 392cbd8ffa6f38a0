// Copies of the collective algorithms (NOTE [streaming copies]).
#include "coll/algorithm.hpp"
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

void copy(void* dst, const void* src, std::size_t n, bool stream) {
  if (stream && n >= 4096) copy_streaming(dst, src, n);
  else if (dst != src) copy_bytes(dst, src, n);  // NOTE [copy aliasing] (core/copy.hpp)
}

}  // namespace tilecomm::coll
