#include "transport/dma/dma_transport.hpp"

#include "core/error.hpp"
#include "core/wait.hpp"

namespace tilecomm::transport {

DmaTransport::DmaTransport(ShmTransport& shm, int my_pe)
    : shm_(shm), ws_(dma::Workspace::create(dma::EngineKind::Sdma, 1, my_pe)) {
  dma::ChannelGroup& g = ws_->group[0];
  g.queue_num_.store(1, std::memory_order_relaxed);
  g.block_bytes = 1u << 20;
  g.active.store(1, std::memory_order_release);
}

DmaTransport::~DmaTransport() { dma::Workspace::destroy(ws_); }

void DmaTransport::post(const dma::Op& op) {
  dma::Completion why = dma::Completion::Done;
  if (dma::post(ws_->group[0], op, false, why) == 0)
    raise(why == dma::Completion::TimedOut ? ErrorCode::Timeout : ErrorCode::Remote,
          "SDMA transport: no room in the engine's queue: %s %s", dma::to_text(why), job_failure().c_str());
}

// A PE of another host: the engine reaches it through UCX (NOTE [remote
// copies] in engine.hpp), at this PE's own symmetric address.
void DmaTransport::put(int pe, void* dst, const void* src, std::size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* from = static_cast<const char*>(src);
  if (shm_.reachable(pe)) post({shm_.translate(dst, pe), from, n});
  else post({.dst = static_cast<char*>(dst), .src = from, .bytes = n, .pe = pe, .put = true});
}

void DmaTransport::get(int pe, void* dst, const void* src, std::size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto* to = static_cast<char*>(dst);
  if (shm_.reachable(pe)) post({to, shm_.translate(src, pe), n});
  else post({.dst = to, .src = static_cast<const char*>(src), .bytes = n, .pe = pe, .put = false});
}

std::uint64_t DmaTransport::atomic(int, AtomicOp, void*, std::size_t, std::uint64_t, std::uint64_t) {
  raise(ErrorCode::InvalidUsage, "the SDMA transport has no remote atomics (capabilities().remote_atomics is false); "
        "route atomics through shm");
}

void DmaTransport::put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig,
                              std::uint64_t signal, bool add) {
  put(pe, dst, src, n);
  quiet();
  shm_.atomic(pe, add ? AtomicOp::Add : AtomicOp::Set, sig, sizeof *sig, signal, 0);
}

dma::Completion DmaTransport::drain() {
  std::lock_guard<std::mutex> lock(mutex_);
  dma::ChannelGroup& g = ws_->group[0];
  return dma::wait_complete(g, g.issued);
}

void DmaTransport::quiet() {
  dma::Completion c = drain();
  if (c != dma::Completion::Done)
    raise(c == dma::Completion::TimedOut ? ErrorCode::Timeout : ErrorCode::Remote,
          "SDMA transport: quiet did not complete: %s %s", dma::to_text(c), job_failure().c_str());
  ShmTransport::full_fence();
}

}  // namespace tilecomm::transport
