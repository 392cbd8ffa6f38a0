// A batch of puts as a peer sends it over UCX (NOTE [ucx coalescing]): the
// first input byte is the job's size, the rest the batch, applied to a
// 4 KiB symmetric region at address 0x10000.
// Invariants: apply returns the sender's PE, inside the job, or throws
// tilecomm::Error (no crash); every write lands inside the region (the
// target hands out no other memory, and ASan sees the region's bounds).
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "fuzz_common.hpp"
#include "transport/ucx/ucx_transport.hpp"

using namespace tilecomm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static bool once = (fuzz::silence_logs(), true);
  (void)once;
  if (size == 0 || size - 1 > transport::ucx_batch::kBytes) return 0;  // the sender never sends more
  constexpr std::uint64_t kBase = 0x10000;
  std::vector<unsigned char> region(4096);
  const int n_pes = data[0];
  try {
    const int pe = transport::ucx_batch::apply(data + 1, size - 1, n_pes, [&](std::uint64_t addr, std::size_t n) {
      const bool inside = addr >= kBase && addr - kBase <= region.size() && n <= region.size() - (addr - kBase);
      return inside ? static_cast<void*>(region.data() + (addr - kBase)) : nullptr;
    });
    FUZZ_CHECK(pe >= 0 && pe < n_pes, "apply returned PE %d of a job of %d", pe, n_pes);
  } catch (const Error&) {
  }
  return 0;
}
