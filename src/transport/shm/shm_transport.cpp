#include "transport/shm/shm_transport.hpp"

#include "core/error.hpp"

namespace tilecomm::transport {

ShmTransport::ShmTransport(int my_pe, int n_pes) : my_pe_(my_pe), n_pes_(n_pes) {
  for (auto& p : peers_) p.assign(n_pes, nullptr);
}

ShmTransport::~ShmTransport() {
  for (int s = 0; s < kSegments; ++s)
    for (int pe = 0; pe < n_pes_; ++pe)
      if (pe != my_pe_) memory::Segment::unmap_peer(peers_[s][pe], local_[s].size);
}

memory::SegmentKey ShmTransport::register_segment(int id, const memory::Segment& seg) {
  local_[id].base = reinterpret_cast<std::uintptr_t>(seg.base());
  local_[id].size = seg.size();
  peers_[id][my_pe_] = seg.base();
  return seg.key();
}

void ShmTransport::attach(int pe, int id, const memory::SegmentKey& key) {
  if (pe == my_pe_ || key.size == 0) return;
  if (key.size != local_[id].size)
    raise(ErrorCode::InvalidUsage, "PE %d's symmetric segment %d has %llu bytes, PE %d's has %zu: every PE must run "
          "the same executable with the same SHMEM_SYMMETRIC_SIZE", pe, id,
          static_cast<unsigned long long>(key.size), my_pe_, local_[id].size);
  peers_[id][pe] = static_cast<char*>(memory::Segment::map_peer(key, pe));
}

namespace {
template <class T>
T apply(AtomicOp op, T* p, T v, T cmp) {
  std::atomic_ref<T> a(*p);
  switch (op) {
    case AtomicOp::Fetch: return a.load();
    case AtomicOp::Set: a.store(v); return 0;
    case AtomicOp::Swap: return a.exchange(v);
    case AtomicOp::CompareSwap: a.compare_exchange_strong(cmp, v); return cmp;
    case AtomicOp::Add:
    case AtomicOp::Notify: a.fetch_add(v); return 0;
    case AtomicOp::FetchAdd: return a.fetch_add(v);
    case AtomicOp::And: a.fetch_and(v); return 0;
    case AtomicOp::FetchAnd: return a.fetch_and(v);
    case AtomicOp::Or: a.fetch_or(v); return 0;
    case AtomicOp::FetchOr: return a.fetch_or(v);
    case AtomicOp::Xor: a.fetch_xor(v); return 0;
    case AtomicOp::FetchXor: return a.fetch_xor(v);
  }
  return 0;
}
}  // namespace

std::uint64_t ShmTransport::atomic(int pe, AtomicOp op, void* dst, std::size_t width, std::uint64_t operand,
                                   std::uint64_t compare) {
  char* p = translate(dst, pe);
  if (width == 4)
    return apply<std::uint32_t>(op, reinterpret_cast<std::uint32_t*>(p), static_cast<std::uint32_t>(operand),
                                static_cast<std::uint32_t>(compare));
  return apply<std::uint64_t>(op, reinterpret_cast<std::uint64_t*>(p), operand, compare);
}

void ShmTransport::put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig,
                              std::uint64_t signal, bool add) {
  copy_bytes(translate(dst, pe), src, n);
  store_fence();
  std::atomic_ref<std::uint64_t> s(*reinterpret_cast<std::uint64_t*>(translate(sig, pe)));
  if (add) s.fetch_add(signal, std::memory_order_release);
  else s.store(signal, std::memory_order_release);
}

}  // namespace tilecomm::transport
