// Copies of the collective algorithms (NOTE [streaming copies]).
#include <unistd.h>

#include "coll/algorithm.hpp"
#include "core/config.hpp"

namespace tilecomm::coll {

// NOTE [streaming copies] A call that moves more bytes than the caches
// hold gains nothing from leaving its destination in them: a plain copy
// first reads every destination line (read for ownership) and later writes
// it back, a streaming (non-temporal) store writes it once. Below that
// size the plain copy wins, since the next call finds its destination in
// the cache. Where the two cross depends on the CPU's caches. Measured
// with 2 PEs, each copying n bytes from itself and n from its peer:
// - AMD EPYC, Zen 3 (512 KiB L2, 32 MiB L3): n = 16 MiB 4.9 ms streaming
//   against 9.6 with memcpy, n = 4 MiB 0.98 against 1.30 ms; an fcollect
//   of 2 MiB per PE (4 MiB written) cost 389 us streaming.
// - AMD EPYC, Zen 5 (1 MiB L2), tilecomm-perf, medians of 6 interleaved
//   runs: fcollect and alltoall of n = 4 MiB 253 and 243 us streaming
//   against 218 and 224 without; n = 8 MiB 558 and 580 against 738 and 807.
// So streaming starts to pay between 4 and 8 MiB written per PE on the one
// and between 8 and 16 MiB on the other: 16 times the L2 cache falls in
// both ranges (stream_bytes(); TILECOMM_COLL_STREAM overrides it). Two
// hosts are a small sample: check the rule on each new kind of host.
std::size_t stream_bytes(const Config& cfg) {
  if (cfg.coll_stream) return cfg.coll_stream;
  static const std::size_t automatic = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? 16 * static_cast<std::size_t>(l2) : std::size_t{8} << 20;
  }();
  return automatic;
}

void copy(void* dst, const void* src, std::size_t n, bool stream) {
  if (stream && n >= 4096) copy_streaming(dst, src, n);
  else if (dst != src) copy_bytes(dst, src, n);  // NOTE [copy aliasing] (core/copy.hpp)
}

}  // namespace tilecomm::coll
