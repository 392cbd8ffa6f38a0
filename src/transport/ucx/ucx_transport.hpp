// The UCX transport: puts, gets and AMOs through UCX (Debian's libucx),
// for PEs that do not share memory (another host), or for every PE when
// TILECOMM_TRANSPORTS lists ucx first (tests and comparison on one host).
//
// NOTE [ucx cards] At init this PE maps its symmetric segments with
// ucp_mem_map once and writes a card: its worker address, then each
// segment's base, size and packed remote key (about 240 bytes). The card is
// published to the rendezvous server before init's last gather, and
// nothing else is done per peer at init. The first operation to a peer
// looks its card up (one request to the server), makes the endpoint and
// unpacks the keys into a per-peer slot that starts empty; the card is not
// kept. So init costs one message per PE whatever the job size, and a PE
// holds state only for the peers it talks to (docs/ARCHITECTURE.md has the
// numbers at 16k PEs).
//
// Completion: put() returns when the source may be reused (UCX's local
// completion, or the bytes copied into the peer's batch of small puts:
// NOTE [ucx coalescing]), get() and the fetching AMOs when the value has
// arrived; puts and non-fetching AMOs are delivered at quiet() (every batch
// acknowledged, then a worker flush).
// put_nbi() and get_nbi() return once UCX has the operation, whose request
// is handed back to UCX at once (ucp_request_free: it completes on its own):
// quiet()'s flush completes them, gets included, and reports a failure of
// any of them. So a batch of gets costs one round trip, not one each.
// fence() is ucp_worker_fence. Over TCP a peer's data lands only while the
// target calls into UCX, so the runtime makes every wait loop progress the
// worker (core/wait.hpp). The worker is thread-safe (UCS_THREAD_MODE_MULTI):
// any thread may wait, and so progress, at any time. A PE that computes for
// long without calling tilecomm would stall its peers' gets and AMOs; with
// TILECOMM_UCX_PROGRESS_THREAD=1 a thread of its own sleeps in poll() on the
// worker's event descriptor (ucp_worker_arm) and progresses it when UCX has
// news: no interval sleep, no spinning while nothing happens.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transport/transport.hpp"

namespace tilecomm::transport {

// The wire format of a batch of puts (NOTE [ucx coalescing]): a Head, then
// per put a Record and its bytes, padded to 8; at most kBytes in all.
namespace ucx_batch {
struct Head {
  std::int32_t pe;  // the sender
  std::uint32_t magic;
};
struct Record {
  std::uint64_t addr;  // in the target's address space
  std::uint64_t bytes;
};
inline constexpr std::uint32_t kMagic = 0x7c0a1e5c;
inline constexpr std::size_t kBytes = 16 << 10;
constexpr std::size_t pad8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }
/// The bytes a put of `n` bytes takes in a batch.
constexpr std::size_t record_bytes(std::size_t n) { return sizeof(Record) + pad8(n); }
/// The largest put a batch holds (TILECOMM_UCX_COALESCE's bound).
inline constexpr std::size_t kMaxPut = kBytes - sizeof(Head) - sizeof(Record);

/// Starts a batch from PE `pe` in `b` (kBytes); returns the bytes used.
std::size_t start(char* b, int pe);
/// Appends a put of `n` bytes from `src` to `addr`; the caller checked
/// that record_bytes(n) fits. Returns the bytes used.
std::size_t append(char* b, std::size_t used, std::uint64_t addr, const void* src, std::size_t n);
/// Applies a batch received from a peer of a job of `n_pes` PEs: each put's
/// bytes go to target(addr, bytes), which returns where, or nullptr for a
/// range outside this PE's symmetric segments. Returns the sender's PE;
/// throws, naming the fault, on a malformed batch (nothing after the fault
/// is applied).
int apply(const void* data, std::size_t length, int n_pes,
          const std::function<void*(std::uint64_t addr, std::size_t bytes)>& target);
/// Whether a put through an endpoint needs the target's CPU anyway, from
/// the endpoint's lanes as ucp_ep_print_info prints them: true when no lane
/// carries RMA (an "rma" or "rma_bw" slot) on a transport other than TCP
/// (UCX then emulates puts with messages, or TCP does); false when one does
/// (RDMA, a kernel copy) or no lane is recognised (UCX's own put is then
/// the safe choice).
bool puts_emulated(std::string_view lanes);
}  // namespace ucx_batch

class UcxTransport final : public Transport {
 public:
  static constexpr int kSegments = 2;

  /// With `progress_thread`, a thread of this PE progresses the worker when
  /// UCX has news, so that peers' operations land while the PE computes.
  /// Puts of up to `coalesce` bytes (at most ucx_batch::kMaxPut) travel in
  /// batches per peer (NOTE [ucx coalescing]); 0 sends each on its own.
  UcxTransport(int my_pe, int n_pes, bool progress_thread, std::size_t coalesce);
  ~UcxTransport() override;

  std::string_view name() const noexcept override { return "ucx"; }
  Capabilities capabilities() const noexcept override { return {false, true, true}; }
  bool reachable(int pe) const noexcept override;

  /// Maps the segment with UCX; the key peers need is in card(), not in the
  /// returned SegmentKey (empty).
  memory::SegmentKey register_segment(int id, const memory::Segment& seg) override;
  /// Nothing to do: peers are reached through their cards (set_card_lookup).
  void attach(int, int, const memory::SegmentKey&) override {}

  /// This PE's card (NOTE [ucx cards]), complete once every segment is registered.
  std::string card() const;
  /// Where a peer's card comes from, on the first operation to it (the
  /// rendezvous server); it returns an empty card for a PE that has none.
  void set_card_lookup(std::function<std::string(int pe)> lookup);

  void put(int pe, void* dst, const void* src, std::size_t n) override;
  void get(int pe, void* dst, const void* src, std::size_t n) override;
  void put_nbi(int pe, void* dst, const void* src, std::size_t n) override;
  void get_nbi(int pe, void* dst, const void* src, std::size_t n) override;
  std::uint64_t atomic(int pe, AtomicOp op, void* dst, std::size_t width, std::uint64_t operand,
                       std::uint64_t compare) override;
  void put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig, std::uint64_t signal,
                  bool add) override;
  void fence() override;
  void quiet() override;
  void progress() override;

  /// The job is finishing (after its last barrier): peers that leave are no news.
  void closing();
  /// Endpoints made so far (peers this PE has talked to).
  int endpoints() const noexcept;
  /// Operations (puts, gets, AMOs) and their bytes sent to PE `pe` so far.
  struct Traffic {
    std::uint64_t ops = 0, bytes = 0;
  };
  Traffic traffic(int pe) const noexcept;
  /// "UCX 1.13.1", for tilecomm-info.
  static std::string version();

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace tilecomm::transport
