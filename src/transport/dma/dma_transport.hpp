// The SDMA transport: the SHMEM layer's puts and gets through this PE's
// copy engine (the same engine PTO sessions use).
//
// It moves bytes between the mappings of the PEs of this host on an engine
// thread, so a put_nbi returns at once and overlaps with the caller's work;
// the explicit engine calls (shmemx_sdma_*) reach PEs of other hosts too,
// through UCX from the engine thread (NOTE [remote copies] in engine.hpp). Operations run in
// order on one channel group; quiet() waits for all of them; fence() is a
// quiet, because the engine's copies are not ordered with the caller's own
// loads and stores (MTE) otherwise. No remote atomics (capabilities say so);
// put_signal() is the copy, a quiet, and the signal update through shm.
#pragma once

#include <mutex>

#include "transport/dma/channel.hpp"
#include "transport/shm/shm_transport.hpp"

namespace tilecomm::transport {

class DmaTransport final : public Transport {
 public:
  explicit DmaTransport(ShmTransport& shm, int my_pe);
  ~DmaTransport() override;

  std::string_view name() const noexcept override { return "sdma"; }
  Capabilities capabilities() const noexcept override { return {false, false, true}; }
  bool reachable(int pe) const noexcept override { return shm_.reachable(pe); }

  memory::SegmentKey register_segment(int, const memory::Segment& seg) override { return seg.key(); }
  void attach(int, int, const memory::SegmentKey&) override {}  // shm maps the peers

  void put(int pe, void* dst, const void* src, std::size_t n) override;
  void get(int pe, void* dst, const void* src, std::size_t n) override;
  std::uint64_t atomic(int pe, AtomicOp op, void* dst, std::size_t width, std::uint64_t operand,
                       std::uint64_t compare) override;
  void put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig, std::uint64_t signal,
                  bool add) override;
  void fence() override { quiet(); }
  void quiet() override;
  void progress() override {}

  /// Waits for every operation issued so far; Done, or why it stopped.
  dma::Completion drain();

 private:
  void post(const dma::Op& op);

  ShmTransport& shm_;
  std::mutex mutex_;  // SHMEM_THREAD_MULTIPLE: one channel group, one poster at a time
  dma::Workspace* ws_ = nullptr;
};

}  // namespace tilecomm::transport
