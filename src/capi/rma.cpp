// RMA: put, get, their non-blocking and strided forms, and put-with-signal.
//
// Every operation takes the route TILECOMM_TRANSPORTS gives the peer. On the
// default, MTE (shared memory), every operation is complete when it returns,
// so the _nbi forms are the blocking ones and shmem_quiet orders them with a
// full fence (see transport/shm/shm_transport.hpp, NOTE [ordering]). Routed
// to SDMA, puts and gets are posted to this PE's engine: _nbi forms return
// once the copy is queued and shmem_quiet waits for it; blocking forms wait
// for their copy; strided forms, single elements (p/g) and put-with-signal
// still use MTE. Routed to UCX, every operation goes through UCX: puts
// return once the source may be reused and are delivered at shmem_quiet,
// gets once the data is here; _nbi forms return once UCX has them and
// complete at shmem_quiet; iget fetches the span that holds its elements,
// or posts them one by one and completes them at once (iget_routed; NOTE
// [ucx cards]).
#include "capi/capi.hpp"

#include <algorithm>
#include <vector>

using namespace tilecomm;
using namespace tilecomm::capi;

namespace {

/// The world PE of `pe` when its route is not MTE (so a transport moves the
/// bytes), else -1.
inline int routed(shmem_ctx_t ctx, int pe, const char* call) {
  if (TC_LIKELY(!g_runtime->routed())) return -1;
  int w = shmem::world_pe(ctx, pe, call);
  return g_runtime->route(w) != shmem::Route::Mte ? w : -1;
}
/// The same for the operations that only UCX takes over from MTE.
inline int ucx_routed(shmem_ctx_t ctx, int pe, const char* call) {
  int w = routed(ctx, pe, call);
  return w >= 0 && g_runtime->route(w) == shmem::Route::Ucx ? w : -1;
}

/// A put or get through the transport of world PE `w`'s route (or the SDMA
/// engine: shmemx_sdma_*), already checked by target(). Blocking forms
/// (`wait`) return once the source may be reused or the data is here, which
/// for the engine means its copy is done; the others complete at quiet.
void routed_rma(bool put, int w, void* dest, const void* src, std::size_t bytes, bool wait, const char* call,
                bool engine = false) {
  try {
    transport::Transport& t = engine ? g_runtime->dma() : g_runtime->transport(w);
    if (put) wait ? t.put(w, dest, src, bytes) : t.put_nbi(w, dest, src, bytes);
    else wait ? t.get(w, dest, src, bytes) : t.get_nbi(w, dest, src, bytes);
    if (wait && (engine || g_runtime->route(w) == shmem::Route::Sdma)) t.quiet();
  } catch (const Error& e) {
    fatal_error(call, e);
  }
}

/// Blocking put (nbi = false) or put_nbi: MTE (memcpy into the peer's
/// mapping, complete on return) unless the peer is routed elsewhere.
template <bool nbi = false>
inline void put_bytes(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* call) {
  if (bytes == 0) return void(shmem::rt(call));
  char* r = target(ctx, dest, bytes, pe, call);
  if (int w = routed(ctx, pe, call); w >= 0) return routed_rma(true, w, dest, src, bytes, !nbi, call);
  copy_bytes(r, src, bytes);
}

template <bool nbi = false>
inline void get_bytes(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* call) {
  if (bytes == 0) return void(shmem::rt(call));
  const char* r = target(ctx, src, bytes, pe, call);
  if (int w = routed(ctx, pe, call); w >= 0) return routed_rma(false, w, dest, src, bytes, !nbi, call);
  copy_bytes(dest, r, bytes);
}

/// p and g: one element through the mapping (MTE) unless routed to UCX; an
/// SDMA engine round trip would only add latency to a single load or store.
template <class T>
inline void put_one(shmem_ctx_t ctx, T* dest, T value, int pe, const char* call) {
  char* r = target(ctx, dest, sizeof(T), pe, call);
  if (int w = ucx_routed(ctx, pe, call); w >= 0) return routed_rma(true, w, dest, &value, sizeof(T), true, call);
  memcpy(r, &value, sizeof(T));
}
template <class T>
inline T get_one(shmem_ctx_t ctx, const T* source, int pe, const char* call) {
  T v;
  const char* r = target(ctx, source, sizeof(T), pe, call);
  if (int w = ucx_routed(ctx, pe, call); w >= 0) routed_rma(false, w, &v, source, sizeof(T), true, call);
  else memcpy(&v, r, sizeof(T));
  return v;
}

inline void put_bytes_nbi(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* call) {
  put_bytes<true>(ctx, dest, src, bytes, pe, call);
}
inline void get_bytes_nbi(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* call) {
  get_bytes<true>(ctx, dest, src, bytes, pe, call);
}

/// Strided transfers, element by element (through UCX: one operation each).
template <std::size_t kBytes>
void iput(shmem_ctx_t ctx, void* dest, const void* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n, int pe,
          const char* call) {
  if (n == 0) return;
  if (dst < 1 || sst < 1) usage_error(call, "strides must be positive (dst=%td, sst=%td)", dst, sst);
  char* r = target(ctx, dest, ((n - 1) * dst + 1) * kBytes, pe, call);
  auto* s = static_cast<const char*>(src);
  const int w = ucx_routed(ctx, pe, call);
  for (std::size_t i = 0; i < n; ++i) {
    if (w >= 0) routed_rma(true, w, static_cast<char*>(dest) + i * dst * kBytes, s + i * sst * kBytes, kBytes, true,
                           call);
    else memcpy(r + i * dst * kBytes, s + i * sst * kBytes, kBytes);
  }
}

/// iget from a PE reached through UCX. Over TCP every message costs about
/// as much as 8 KiB of data, so where elements lie at most kNearStride
/// bytes apart the span that holds them is fetched, in gets of up to
/// kSpanPiece bytes, and strided here; elements further apart are fetched
/// one by one, all posted before one quiet completes them.
constexpr std::size_t kNearStride = 4096, kSpanPiece = std::size_t{1} << 20;
template <std::size_t kBytes>
void iget_routed(int w, char* d, const char* s, std::size_t dst, std::size_t sst, std::size_t n, const char* call) {
  const std::size_t step = sst * kBytes;
  try {
    transport::Transport& t = g_runtime->transport(w);
    if (step <= kNearStride) {
      const std::size_t per = std::max<std::size_t>(1, kSpanPiece / step);  // elements per get
      std::vector<char> span;
      for (std::size_t i = 0; i < n; i += per) {
        const std::size_t m = std::min(per, n - i);
        span.resize((m - 1) * step + kBytes);
        t.get(w, span.data(), s + i * step, span.size());
        for (std::size_t j = 0; j < m; ++j) memcpy(d + (i + j) * dst * kBytes, span.data() + j * step, kBytes);
      }
      return;
    }
    for (std::size_t i = 0; i < n; ++i) t.get_nbi(w, d + i * dst * kBytes, s + i * step, kBytes);
    t.quiet();
  } catch (const Error& e) {
    fatal_error(call, e);
  }
}

template <std::size_t kBytes>
void iget(shmem_ctx_t ctx, void* dest, const void* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n, int pe,
          const char* call) {
  if (n == 0) return;
  if (dst < 1 || sst < 1) usage_error(call, "strides must be positive (dst=%td, sst=%td)", dst, sst);
  const char* r = target(ctx, src, ((n - 1) * sst + 1) * kBytes, pe, call);
  auto* d = static_cast<char*>(dest);
  if (int w = ucx_routed(ctx, pe, call); w >= 0)
    return iget_routed<kBytes>(w, d, static_cast<const char*>(src), dst, sst, n, call);
  for (std::size_t i = 0; i < n; ++i) memcpy(d + i * dst * kBytes, r + i * sst * kBytes, kBytes);
}

inline void put_signal(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                       std::uint64_t signal, int sig_op, int pe, const char* call) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    usage_error(call, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
  char* r = target(ctx, dest, bytes, pe, call);
  auto* s = reinterpret_cast<std::uint64_t*>(target(ctx, sig, sizeof *sig, pe, call));
  if (int w = ucx_routed(ctx, pe, call); w >= 0) {
    try {
      g_runtime->transport(w).put_signal(w, dest, src, bytes, sig, signal, sig_op == SHMEM_SIGNAL_ADD);
    } catch (const Error& e) {
      fatal_error(call, e);
    }
    return;
  }
  copy_bytes(r, src, bytes);
  transport::ShmTransport::store_fence();  // the data is visible before the signal
  std::atomic_ref<std::uint64_t> a(*s);
  if (sig_op == SHMEM_SIGNAL_ADD) a.fetch_add(signal, std::memory_order_release);
  else a.store(signal, std::memory_order_release);
}

}  // namespace

extern "C" {

#define TC_RMA(TYPE, NAME)                                                                                        \
  void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {          \
    put_bytes(ctx, dest, source, nelems * sizeof(TYPE), pe, __func__);                                             \
  }                                                                                                               \
  void shmem_##NAME##_put(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                               \
    put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(TYPE), pe, __func__);                               \
  }                                                                                                               \
  void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {      \
    put_bytes_nbi(ctx, dest, source, nelems * sizeof(TYPE), pe, __func__);                                             \
  }                                                                                                               \
  void shmem_##NAME##_put_nbi(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                           \
    put_bytes_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(TYPE), pe, __func__);                               \
  }                                                                                                               \
  void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {          \
    get_bytes(ctx, dest, source, nelems * sizeof(TYPE), pe, __func__);                                             \
  }                                                                                                               \
  void shmem_##NAME##_get(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                               \
    get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(TYPE), pe, __func__);                               \
  }                                                                                                               \
  void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {      \
    get_bytes_nbi(ctx, dest, source, nelems * sizeof(TYPE), pe, __func__);                                             \
  }                                                                                                               \
  void shmem_##NAME##_get_nbi(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                           \
    get_bytes_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(TYPE), pe, __func__);                               \
  }                                                                                                               \
  void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                                   \
    put_one(ctx, dest, value, pe, __func__);                                                                      \
  }                                                                                                               \
  void shmem_##NAME##_p(TYPE* dest, TYPE value, int pe) { put_one(SHMEM_CTX_DEFAULT, dest, value, pe, __func__); } \
  TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE* source, int pe) {                                       \
    return get_one(ctx, source, pe, __func__);                                                                    \
  }                                                                                                               \
  TYPE shmem_##NAME##_g(const TYPE* source, int pe) { return get_one(SHMEM_CTX_DEFAULT, source, pe, __func__); }  \
  void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst,    \
                               size_t nelems, int pe) {                                                           \
    iput<sizeof(TYPE)>(ctx, dest, source, dst, sst, nelems, pe, __func__);                                         \
  }                                                                                                               \
  void shmem_##NAME##_iput(TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    iput<sizeof(TYPE)>(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe, __func__);                           \
  }                                                                                                               \
  void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst,    \
                               size_t nelems, int pe) {                                                           \
    iget<sizeof(TYPE)>(ctx, dest, source, dst, sst, nelems, pe, __func__);                                         \
  }                                                                                                               \
  void shmem_##NAME##_iget(TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    iget<sizeof(TYPE)>(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe, __func__);                           \
  }                                                                                                               \
  void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems,             \
                                     uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                   \
    put_signal(ctx, dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, __func__);                  \
  }                                                                                                               \
  void shmem_##NAME##_put_signal(TYPE* dest, const TYPE* source, size_t nelems, uint64_t* sig_addr,              \
                                 uint64_t signal, int sig_op, int pe) {                                           \
    put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, __func__);    \
  }                                                                                                               \
  void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems,         \
                                         uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {               \
    put_signal(ctx, dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, __func__);                  \
  }                                                                                                               \
  void shmem_##NAME##_put_signal_nbi(TYPE* dest, const TYPE* source, size_t nelems, uint64_t* sig_addr,          \
                                     uint64_t signal, int sig_op, int pe) {                                       \
    put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, __func__);    \
  }
SHMEMI_RMA_TYPES(TC_RMA)
#undef TC_RMA

// Sized and untyped forms: element size BITS/8 (mem: 1 byte).
#define TC_SIZED(SUFFIX, BYTES)                                                                                   \
  void shmem_ctx_put##SUFFIX(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {           \
    put_bytes(ctx, dest, source, nelems * BYTES, pe, __func__);                                                    \
  }                                                                                                               \
  void shmem_put##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {                                \
    put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems * BYTES, pe, __func__);                                      \
  }                                                                                                               \
  void shmem_ctx_put##SUFFIX##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {     \
    put_bytes_nbi(ctx, dest, source, nelems * BYTES, pe, __func__);                                                    \
  }                                                                                                               \
  void shmem_put##SUFFIX##_nbi(void* dest, const void* source, size_t nelems, int pe) {                          \
    put_bytes_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems * BYTES, pe, __func__);                                      \
  }                                                                                                               \
  void shmem_ctx_get##SUFFIX(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {           \
    get_bytes(ctx, dest, source, nelems * BYTES, pe, __func__);                                                    \
  }                                                                                                               \
  void shmem_get##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {                                \
    get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems * BYTES, pe, __func__);                                      \
  }                                                                                                               \
  void shmem_ctx_get##SUFFIX##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {     \
    get_bytes_nbi(ctx, dest, source, nelems * BYTES, pe, __func__);                                                    \
  }                                                                                                               \
  void shmem_get##SUFFIX##_nbi(void* dest, const void* source, size_t nelems, int pe) {                          \
    get_bytes_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems * BYTES, pe, __func__);                                      \
  }                                                                                                               \
  void shmem_ctx_put##SUFFIX##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,            \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                  \
    put_signal(ctx, dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe, __func__);                         \
  }                                                                                                               \
  void shmem_put##SUFFIX##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,             \
                                  uint64_t signal, int sig_op, int pe) {                                          \
    put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe, __func__);           \
  }                                                                                                               \
  void shmem_ctx_put##SUFFIX##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,        \
                                          uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {              \
    put_signal(ctx, dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe, __func__);                         \
  }                                                                                                               \
  void shmem_put##SUFFIX##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,         \
                                      uint64_t signal, int sig_op, int pe) {                                      \
    put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe, __func__);           \
  }
#define TC_SIZED_BITS(BITS) TC_SIZED(BITS, (BITS / 8))
SHMEMI_SIZES(TC_SIZED_BITS)
TC_SIZED(mem, 1)
#undef TC_SIZED_BITS
#undef TC_SIZED

#define TC_STRIDED(BITS)                                                                                          \
  void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                            size_t nelems, int pe) {                                                              \
    iput<BITS / 8>(ctx, dest, source, dst, sst, nelems, pe, __func__);                                             \
  }                                                                                                               \
  void shmem_iput##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {   \
    iput<BITS / 8>(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe, __func__);                               \
  }                                                                                                               \
  void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                            size_t nelems, int pe) {                                                              \
    iget<BITS / 8>(ctx, dest, source, dst, sst, nelems, pe, __func__);                                             \
  }                                                                                                               \
  void shmem_iget##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {   \
    iget<BITS / 8>(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe, __func__);                               \
  }
SHMEMI_SIZES(TC_STRIDED)
#undef TC_STRIDED

// ---- explicit engine (cann/shmem's shmemx_sdma_* spirit) ---------------------------

void shmemx_sdma_put_nbi(void* dest, const void* source, size_t nbytes, int pe) {
  if (nbytes == 0) return void(shmem::rt(__func__));
  (void)target(SHMEM_CTX_DEFAULT, dest, nbytes, pe, __func__);
  routed_rma(true, pe, dest, source, nbytes, false, __func__, true);  // the default context's team is the world
}
void shmemx_sdma_get_nbi(void* dest, const void* source, size_t nbytes, int pe) {
  if (nbytes == 0) return void(shmem::rt(__func__));
  (void)target(SHMEM_CTX_DEFAULT, source, nbytes, pe, __func__);
  routed_rma(false, pe, dest, source, nbytes, false, __func__, true);
}
int shmemx_transport_traffic(const char* name, int pe, uint64_t* ops, uint64_t* bytes) {
  auto& r = shmem::rt(__func__);
  transport::UcxTransport* ucx = r.ucx();
  if (!name || strcmp(name, "ucx") != 0 || !ucx || pe < 0 || pe >= r.n_pes()) return -1;
  const auto t = ucx->traffic(pe);
  if (ops) *ops = t.ops;
  if (bytes) *bytes = t.bytes;
  return 0;
}

void shmemx_sdma_quiet(void) {
  auto& r = shmem::rt(__func__);
  try {
    r.dma().quiet();
  } catch (const Error& e) {
    fatal_error(__func__, e);
  }
}

}  // extern "C"
