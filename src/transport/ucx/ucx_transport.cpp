#include "transport/ucx/ucx_transport.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"

namespace tilecomm::transport {

namespace {

// NOTE [ucx loading] UCX is loaded (dlopen of libucp.so.0) when a job first
// needs it, not linked: a job on one host never loads it, and UCX's memory
// hooks (libucm patches mmap and madvise in the whole process when it loads)
// stay out of every process that does not use UCX, tcrun included.
#define TC_UCX_FUNCTIONS(X)                                                                                     \
  X(ucp_am_send_nbx) X(ucp_atomic_op_nbx) X(ucp_cleanup) X(ucp_config_modify) X(ucp_config_read) X(ucp_config_release)               \
  X(ucp_ep_close_nbx) X(ucp_ep_create) X(ucp_ep_print_info) X(ucp_ep_rkey_unpack) X(ucp_get_nbx) X(ucp_get_version)                   \
  X(ucp_init_version) X(ucp_mem_map) X(ucp_mem_unmap)                                                             \
  X(ucp_put_nbx) X(ucp_request_check_status) X(ucp_request_free) X(ucp_rkey_buffer_release) X(ucp_rkey_destroy)    \
  X(ucp_rkey_pack) X(ucp_worker_arm) X(ucp_worker_create) X(ucp_worker_destroy) X(ucp_worker_fence)                \
  X(ucp_worker_flush_nbx) X(ucp_worker_get_address) X(ucp_worker_get_efd) X(ucp_worker_progress)                  \
  X(ucp_worker_release_address) X(ucp_worker_set_am_recv_handler) X(ucp_worker_signal) X(ucs_status_string)

struct Api {
#define TC_UCX_MEMBER(f) decltype(&::f) f = nullptr;
  TC_UCX_FUNCTIONS(TC_UCX_MEMBER)
#undef TC_UCX_MEMBER
};

// The UCX functions, loaded on first use; raises when UCX is missing.
const Api& ucx() {
  static const Api api = [] {
    void* lib = dlopen("libucp.so.0", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
      raise(ErrorCode::System, "UCX transport: cannot load libucp.so.0 (%s); install Debian's libucx0, which a job "
            "needs when it spans hosts or TILECOMM_TRANSPORTS lists ucx", dlerror());
    Api a;
#define TC_UCX_LOAD(f)                                                                                          \
  a.f = reinterpret_cast<decltype(a.f)>(dlsym(lib, #f));                                                        \
  if (!a.f) raise(ErrorCode::System, "UCX transport: libucp.so.0 has no %s; tilecomm needs UCX 1.13 or later", #f);
    TC_UCX_FUNCTIONS(TC_UCX_LOAD)
#undef TC_UCX_LOAD
    return a;
  }();
  return api;
}

// One peer's connection, made on first use (NOTE [ucx cards]).
struct Peer {
  ucp_ep_h ep = nullptr;
  ucp_rkey_h rkey[UcxTransport::kSegments] = {};
  std::uint64_t base[UcxTransport::kSegments] = {};  // the peer's segment bases
  int pe = -1;
  const std::atomic<bool>* closing = nullptr;   // the job is finishing: peers leave
  std::atomic<std::uint64_t> ops{0}, bytes{0};  // sent to this peer (traffic())
  // Small puts not sent yet (NOTE [ucx coalescing]): whether puts to this
  // peer are batched, `batch` owned by whoever holds batch_mutex, batches
  // taken out to send and acknowledged so far.
  bool batch_puts = false;
  std::mutex batch_mutex;
  std::atomic<char*> batch{nullptr};
  std::size_t batch_used = 0;
  std::atomic<bool> touched{false};  // in State::touched
  std::atomic<std::uint64_t> sent{0}, acked{0};

  void count(std::size_t n) {
    ops.fetch_add(1, std::memory_order_relaxed);
    bytes.fetch_add(n, std::memory_order_relaxed);
  }
};

struct LocalSegment {
  std::uintptr_t base = 0;
  std::size_t size = 0;
  ucp_mem_h mem = nullptr;
  std::string rkey;  // packed
};

void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
std::uint64_t take_u64(std::string_view& s) {
  std::uint64_t v = 0;
  if (s.size() < sizeof v) raise(ErrorCode::Transport, "UCX transport: a peer's card is truncated");
  std::memcpy(&v, s.data(), sizeof v);
  s.remove_prefix(sizeof v);
  return v;
}
std::string_view take_bytes(std::string_view& s) {
  const std::uint64_t n = take_u64(s);
  if (s.size() < n) raise(ErrorCode::Transport, "UCX transport: a peer's card is truncated");
  std::string_view b = s.substr(0, n);
  s.remove_prefix(n);
  return b;
}

[[noreturn]] void ucx_failed(const char* what, ucs_status_t st) {
  raise(ErrorCode::Transport, "UCX transport: %s failed: %s; UCX_LOG_LEVEL=info shows UCX's view, and UCX_TLS "
        "chooses its transports (for example UCX_TLS=tcp)", what, ucx().ucs_status_string(st));
}

// NOTE [ucx coalescing] Over TCP, UCX emulates a put with an active message
// that the target answers with an acknowledgement: each small put costs a
// send on both sides, so a stream of small puts runs at the rate of system
// calls whatever the size. Puts of up to TILECOMM_UCX_COALESCE bytes (blocking
// or _nbi: both need only the source reusable on return) are instead copied
// into a batch per peer, a message of our own (kBatchAm) that the target's
// handler applies record by record and acknowledges with one kAckAm message.
// Only where puts need the target's CPU anyway: a peer whose endpoint has an
// RMA lane on a transport other than TCP (RDMA, a kernel copy: the put lands
// without the target's help) gets every put through ucp_put_nbx
// (ucx_batch::puts_emulated reads the lanes UCX chose).
// A put leaves at once when no batch to its peer awaits acknowledgement, as
// TCP's Nagle rule sends a first segment at once: an isolated put, or one
// followed by computation, costs and arrives as without batches. Puts that
// follow while one is in flight join the next batch, which leaves when it is
// full, before any other operation to its peer, at fence (before UCX's fence,
// which orders active messages as it orders puts), and whenever this PE
// progresses UCX, which every wait of tilecomm does: so a burst of puts
// followed by computation without tilecomm calls has its tail sent at the
// next call; with TILECOMM_UCX_PROGRESS_THREAD=1 a new batch wakes the
// progress thread, which sends it with the puts that joined it meanwhile.
// quiet sends every batch and waits until each peer acknowledged all it was
// sent. Threads: a batch is listed as dirty when it starts, under its peer's
// mutex, and is sent under that mutex; a drain of the list holds the flag
// that it is not empty until it has sent what it took. So whichever thread
// sends a batch, a thread's fence, quiet or next operation to that peer
// finds UCX holding every batch its puts went into.
// A PE holds a batch only for a peer with unsent puts: no memory per peer
// otherwise.
constexpr unsigned kBatchAm = 0x7c01, kAckAm = 0x7c02;
using ucx_batch::kBytes;

struct Ack {
  std::int32_t pe;  // the target that applied the batches
  std::uint32_t batches;
};
static_assert(sizeof(ucx_batch::Head) == 8 && sizeof(ucx_batch::Record) == 16 && sizeof(Ack) == 8);

}  // namespace

std::size_t ucx_batch::start(char* b, int pe) {
  const Head head{pe, kMagic};
  std::memcpy(b, &head, sizeof head);
  return sizeof head;
}

std::size_t ucx_batch::append(char* b, std::size_t used, std::uint64_t addr, const void* src, std::size_t n) {
  const Record r{addr, n};
  std::memcpy(b + used, &r, sizeof r);
  std::memcpy(b + used + sizeof r, src, n);
  return used + record_bytes(n);
}

int ucx_batch::apply(const void* data, std::size_t length, int n_pes,
                     const std::function<void*(std::uint64_t addr, std::size_t n)>& target) {
  const auto* p = static_cast<const char*>(data);
  Head head;
  if (length < sizeof head) raise(ErrorCode::Transport, "UCX transport: a batch of puts of %zu bytes is truncated", length);
  std::memcpy(&head, p, sizeof head);
  if (head.magic != kMagic || head.pe < 0 || head.pe >= n_pes)
    raise(ErrorCode::Transport, "UCX transport: a batch of puts carries a bad header (PE %d of %d, magic %#x)",
          head.pe, n_pes, head.magic);
  for (std::size_t at = sizeof head; at < length;) {
    Record r;
    if (length - at < sizeof r)
      raise(ErrorCode::Transport, "UCX transport: PE %d's batch of puts is truncated at byte %zu of %zu", head.pe, at,
            length);
    std::memcpy(&r, p + at, sizeof r);
    at += sizeof r;
    if (r.bytes == 0 || r.bytes > length - at || pad8(r.bytes) > length - at)
      raise(ErrorCode::Transport, "UCX transport: PE %d's batch of puts holds a put of %llu bytes at byte %zu of %zu",
            head.pe, static_cast<unsigned long long>(r.bytes), at, length);
    void* dst = target(r.addr, r.bytes);
    if (!dst)
      raise(ErrorCode::Transport, "UCX transport: PE %d put %llu bytes at %#llx, outside this PE's symmetric "
            "segments", head.pe, static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.addr));
    std::memcpy(dst, p + at, r.bytes);
    at += pad8(r.bytes);
  }
  return head.pe;
}

bool ucx_batch::puts_emulated(std::string_view lanes) {
  bool any_lane = false;
  for (std::size_t at = 0; at < lanes.size();) {
    std::size_t end = lanes.find('\n', at);
    if (end == std::string_view::npos) end = lanes.size();
    const std::string_view line = lanes.substr(at, end - at);
    at = end + 1;
    // "lane[0]:  0:tcp/lo.0 md[0] -> ... am am_bw#0 wireup": the lane's
    // transport is between the index's ':' and the '/' before the device.
    const std::size_t lane = line.find("lane[");
    const std::size_t index = lane == std::string_view::npos ? lane : line.find(':', lane);
    const std::size_t colon = index == std::string_view::npos ? index : line.find(':', index + 1);
    const std::size_t slash = colon == std::string_view::npos ? colon : line.find('/', colon);
    if (slash == std::string_view::npos) continue;
    any_lane = true;
    const bool rma = line.find(" rma#") != std::string_view::npos || line.find(" rma_bw#") != std::string_view::npos;
    if (rma && line.substr(colon + 1, slash - colon - 1) != "tcp") return false;
  }
  return any_lane;
}

namespace {

// What ucp_ep_print_info says of `ep`: its lanes and what each is for.
std::string lanes(ucp_ep_h ep) {
  char* text = nullptr;
  std::size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  if (!f) return {};
  ucx().ucp_ep_print_info(ep, f);
  std::fclose(f);
  std::string s(text ? text : "", size);
  std::free(text);
  return s;
}

}  // namespace

struct UcxTransport::State {
  int my_pe = 0, n_pes = 0;
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  std::string address;  // this worker's, packed
  LocalSegment segments[kSegments];
  std::function<std::string(int)> lookup;  // a peer's card (NOTE [ucx cards])
  std::vector<std::atomic<Peer*>> peers;
  std::mutex connect_mutex;
  std::atomic<int> endpoints{0};
  std::atomic<bool> closing{false};
  // NOTE [ucx quiet] An operation that completes before the target has it
  // (a put, a posted atomic, an _nbi get) counts `posted` once it is in the worker;
  // quiet flushes the worker only when a flush that started after the last
  // such post has not completed yet (`flushed` holds the count the last
  // completed flush covered). A flush costs a round trip over TCP even when
  // nothing is outstanding but barrier flags (AtomicOp::Notify), which a
  // barrier_all (quiet, then barrier) would otherwise pay each time. Counts,
  // not a flag: with several threads (the copy engine's among them) one
  // thread's flush must not hide another's post made while it ran.
  std::atomic<std::uint64_t> posted{0}, flushed{0};
  std::thread progress_thread;  // TILECOMM_UCX_PROGRESS_THREAD=1
  std::atomic<bool> stopping{false};
  // NOTE [ucx coalescing]: puts of up to `coalesce` bytes go into batches;
  // peers with a batch to send (`dirty`), peers ever sent one (`touched`),
  // batches sent and acknowledged in all, acknowledgements to send.
  std::size_t coalesce = 0;
  std::mutex drain_mutex, dirty_mutex, touched_mutex, ack_mutex;  // drain before dirty; batch before dirty, touched
  std::vector<Peer*> dirty, touched;
  std::atomic<bool> any_dirty{false}, any_acks{false};
  std::atomic<std::uint64_t> batches_sent{0}, batches_acked{0};
  std::atomic<int> batch_failed_pe{-1};  // the first batch UCX refused to send, and why
  std::atomic<ucs_status_t> batch_failed_status{UCS_OK};
  struct AckDue {
    ucp_ep_h ep;  // UCX's reply endpoint to the sender of the batches
    std::uint32_t batches;
  };
  std::vector<AckDue> acks;

  // Progresses the worker, unless the job failed: then a request from a
  // peer that already left may be waiting, and UCX ends the process when
  // it cannot send the reply, before this PE's own message names the
  // failure (an atomic's reply, seen with UCX 1.13). Then sends the batches
  // of puts and the acknowledgements that wait (NOTE [ucx coalescing]).
  unsigned progress() {
    if (job_failed()) return 0;
    const unsigned n = ucx().ucp_worker_progress(worker);
    send_batches();
    if (any_acks.load(std::memory_order_acquire)) send_acks();
    return n;
  }

  // Sends `buf` (malloc'ed, `n` bytes) as active message `id` on `ep` and
  // frees it once UCX is done with it; returns UCX's refusal, if any (this
  // runs inside waits' progress, which must not throw).
  ucs_status_t send_owned(ucp_ep_h ep, unsigned id, void* buf, std::size_t n) {
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    // The handler gets the whole message at once, and a batch's handler an
    // endpoint to acknowledge it on (making one there could wait for the
    // rendezvous inside a wait's progress).
    prm.flags = UCP_AM_SEND_FLAG_EAGER | (id == kBatchAm ? UCP_AM_SEND_FLAG_REPLY : 0);
    // A send that fails (its peer gone) is seen by quiet, which waits for
    // an acknowledgement that does not come while the job's failure is known.
    prm.cb.send = [](void* req, ucs_status_t, void* owned) {
      std::free(owned);
      ucx().ucp_request_free(req);
    };
    prm.user_data = buf;
    ucs_status_ptr_t req = ucx().ucp_am_send_nbx(ep, id, nullptr, 0, buf, n, &prm);
    if (req != nullptr && !UCS_PTR_IS_ERR(req)) return UCS_OK;  // the callback frees buf
    std::free(buf);  // sent at once (no callback), or refused
    return UCS_PTR_STATUS(req);
  }

  // A put of `n` (at most `coalesce`) bytes into `p`'s batch; a full batch
  // leaves first, and a batch to a peer with none in flight leaves at once.
  void coalesce_put(Peer& p, std::uint64_t raddr, const void* src, std::size_t n) {
    // About to start a batch while one is in flight: has its acknowledgement come?
    if (!p.batch.load(std::memory_order_acquire) && p.acked.load(std::memory_order_acquire) != p.sent.load()) progress();
    bool out = false, started = false;
    {
      std::lock_guard<std::mutex> lock(p.batch_mutex);
      char* b = p.batch.load(std::memory_order_relaxed);
      if (b && p.batch_used + ucx_batch::record_bytes(n) > kBytes) {
        send_locked(p);
        out = true;
        b = nullptr;
      }
      if (!b) {
        b = static_cast<char*>(std::malloc(kBytes));
        if (!b) raise(ErrorCode::System, "UCX transport: no memory for a batch of puts (%zu bytes)", kBytes);
        p.batch_used = ucx_batch::start(b, my_pe);
        p.batch.store(b, std::memory_order_relaxed);
        started = true;
      }
      p.batch_used = ucx_batch::append(b, p.batch_used, raddr, src, n);
      if (started && !out && p.acked.load(std::memory_order_acquire) == p.sent.load(std::memory_order_relaxed)) {
        send_locked(p);
        out = true;
      } else if (started) {  // listed before another thread can add to it
        std::lock_guard<std::mutex> d(dirty_mutex);
        dirty.push_back(&p);
        any_dirty.store(true, std::memory_order_release);
      }
    }
    if (started && !out && progress_thread.joinable()) ucx().ucp_worker_signal(worker);  // it sends the batch
    if (out) check_batches();
  }

  // Sends `p`'s batch, if it has one; the caller holds p.batch_mutex, so
  // that whoever takes that mutex next finds the batch in UCX's hands.
  void send_locked(Peer& p) {
    char* b = p.batch.exchange(nullptr, std::memory_order_relaxed);
    if (!b) return;
    if (!p.touched.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(touched_mutex);
      touched.push_back(&p);
      p.touched.store(true, std::memory_order_release);
    }
    p.sent.fetch_add(1, std::memory_order_acq_rel);  // before its acknowledgement can arrive
    batches_sent.fetch_add(1, std::memory_order_acq_rel);
    if (const ucs_status_t st = send_owned(p.ep, kBatchAm, b, p.batch_used); st != UCS_OK) {
      int none = -1;
      if (batch_failed_pe.compare_exchange_strong(none, p.pe)) batch_failed_status.store(st);
    }
  }
  // Before another operation to `p`: sends its batch (or waits while
  // another thread sends it), and raises the first refusal of a batch, if any.
  // A peer whose puts are not batched (RDMA) never has one: no lock.
  void send_batch_first(Peer& p) {
    if (p.batch_puts) {
      std::lock_guard<std::mutex> lock(p.batch_mutex);
      send_locked(p);
    }
    check_batches();
  }
  // Raises the first refusal of a batch, if any.
  void check_batches() {
    if (const int pe = batch_failed_pe.load(std::memory_order_acquire); pe >= 0)
      failed_op(pe, "a batch of puts", batch_failed_status.load());
  }
  // Sends every batch, those another thread is sending included: any_dirty
  // stays set until a drain has sent what it took.
  void send_batches() {
    if (!any_dirty.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> drain(drain_mutex);
    std::vector<Peer*> list;
    {
      std::lock_guard<std::mutex> lock(dirty_mutex);
      list.swap(dirty);
    }
    for (Peer* p : list) {
      std::lock_guard<std::mutex> lock(p->batch_mutex);
      send_locked(*p);
    }
    std::lock_guard<std::mutex> lock(dirty_mutex);
    any_dirty.store(!dirty.empty(), std::memory_order_release);
  }

  // The active-message handlers: a peer's batch of puts (applied, then
  // acknowledged from progress(), outside UCX's callback), and a peer's
  // acknowledgement of ours.
  static ucs_status_t on_batch(void* arg, const void*, std::size_t, void* data, std::size_t length,
                               const ucp_am_recv_param_t* param) {
    State& s = *static_cast<State*>(arg);
    try {
      if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
        raise(ErrorCode::Transport, "UCX transport: a batch of puts of %zu bytes arrived by rendezvous or without a "
              "reply endpoint", length);
      ucx_batch::apply(data, length, s.n_pes, [&s](std::uint64_t addr, std::size_t n) -> void* {
        for (const LocalSegment& seg : s.segments)
          if (addr - seg.base < seg.size && n <= seg.size - (addr - seg.base)) return reinterpret_cast<void*>(addr);
        return nullptr;
      });
      std::lock_guard<std::mutex> lock(s.ack_mutex);
      if (!s.acks.empty() && s.acks.back().ep == param->reply_ep) ++s.acks.back().batches;
      else s.acks.push_back(AckDue{param->reply_ep, 1});
      s.any_acks.store(true, std::memory_order_release);
    } catch (const Error& e) {
      fatal("%s", e.what());  // a peer that sends what no tilecomm PE sends: nothing here can be trusted
    }
    return UCS_OK;
  }
  static ucs_status_t on_ack(void* arg, const void*, std::size_t, void* data, std::size_t length,
                             const ucp_am_recv_param_t*) {
    State& s = *static_cast<State*>(arg);
    Ack a{};
    if (length == sizeof a) std::memcpy(&a, data, sizeof a);
    Peer* p = length == sizeof a && a.pe >= 0 && a.pe < s.n_pes ? s.peers[a.pe].load(std::memory_order_acquire)
                                                                 : nullptr;
    if (!p || a.batches == 0 || p->acked.load(std::memory_order_relaxed) + a.batches > p->sent.load())
      fatal("UCX transport: a bad acknowledgement of puts (%zu bytes, PE %d, %u batches)", length, a.pe, a.batches);
    p->acked.fetch_add(a.batches, std::memory_order_acq_rel);
    s.batches_acked.fetch_add(a.batches, std::memory_order_acq_rel);
    return UCS_OK;
  }
  void send_acks() {
    std::vector<AckDue> list;
    {
      std::lock_guard<std::mutex> lock(ack_mutex);
      list.swap(acks);
      any_acks.store(false, std::memory_order_relaxed);
    }
    for (const AckDue& a : list) {
      auto* buf = static_cast<Ack*>(std::malloc(sizeof(Ack)));
      if (!buf) fatal("UCX transport: no memory for an acknowledgement of puts");
      *buf = Ack{my_pe, a.batches};
      (void)send_owned(a.ep, kAckAm, buf, sizeof *buf);  // refused: the sender's quiet names the failure
    }
  }

  // Waits until every batch sent so far is acknowledged.
  void wait_batches() {
    send_batches();
    check_batches();
    if (batches_acked.load(std::memory_order_acquire) >= batches_sent.load(std::memory_order_acquire)) return;
    std::vector<std::pair<Peer*, std::uint64_t>> want;
    {
      std::lock_guard<std::mutex> lock(touched_mutex);
      for (Peer* p : touched)
        if (const std::uint64_t n = p->sent.load(std::memory_order_acquire); p->acked.load() < n) want.emplace_back(p, n);
    }
    for (auto [p, n] : want)
      wait(p->pe, "quiet (the acknowledgement of a batch of puts)", [this, p = p, n = n] {
        return p->acked.load(std::memory_order_acquire) >= n || batch_failed_pe.load(std::memory_order_relaxed) >= 0;
      });
    check_batches();
  }

  // The progress thread: progresses the worker while it has work, then arms
  // it and sleeps in poll() on its event descriptor until UCX has news (an
  // incoming request, a completion) or ucx().ucp_worker_signal() wakes it to stop.
  void progress_events(int efd) {
    for (;;) {
      while (progress() != 0) {
      }
      if (stopping.load(std::memory_order_acquire) || job_failed()) return;
      const ucs_status_t st = ucx().ucp_worker_arm(worker);
      if (st == UCS_ERR_BUSY) continue;  // news arrived while arming
      if (st != UCS_OK)
        fatal("UCX transport: the progress thread cannot arm the worker (ucp_worker_arm): %s; unset "
              "TILECOMM_UCX_PROGRESS_THREAD", ucx().ucs_status_string(st));
      pollfd fd{efd, POLLIN, 0};
      if (poll(&fd, 1, -1) < 0 && errno != EINTR)
        fatal("UCX transport: the progress thread's poll() failed: %s", std::strerror(errno));
    }
  }

  // The peer of PE `pe`, connected on first use.
  Peer& peer(int pe) {
    if (Peer* p = peers[pe].load(std::memory_order_acquire)) return *p;
    std::lock_guard<std::mutex> lock(connect_mutex);
    if (Peer* p = peers[pe].load(std::memory_order_relaxed)) return *p;
    const std::string looked_up = lookup ? lookup(pe) : std::string();
    if (looked_up.empty())
      raise(ErrorCode::Transport, "UCX transport: PE %d has no card (it did not start UCX: TILECOMM_TRANSPORTS "
            "must list ucx on every PE)", pe);
    auto p = std::make_unique<Peer>();
    p->pe = pe;
    p->closing = &closing;
    std::string_view card = looked_up;
    std::string_view addr = take_bytes(card);
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t*>(addr.data());
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = [](void* arg, ucp_ep_h, ucs_status_t st) {
      const Peer& peer = *static_cast<Peer*>(arg);
      if (!peer.closing->load(std::memory_order_acquire))
        TC_LOG(Warn, "ucx", "the connection to PE %d broke: %s", peer.pe, ucx().ucs_status_string(st));
    };
    ep.err_handler.arg = p.get();
    if (ucs_status_t st = ucx().ucp_ep_create(worker, &ep, &p->ep); st != UCS_OK)
      ucx_failed(strprintf("connecting to PE %d (ucp_ep_create)", pe).c_str(), st);
    if (coalesce > 0) {  // NOTE [ucx coalescing]
      const std::string l = lanes(p->ep);
      p->batch_puts = ucx_batch::puts_emulated(l);
      TC_LOG(Debug, "ucx", "PE %d: small puts %s; UCX's lanes:\n%s", pe,
             p->batch_puts ? "travel in batches" : "go through ucp_put_nbx", l.c_str());
    }
    for (int s = 0; s < kSegments; ++s) {
      p->base[s] = take_u64(card);
      take_u64(card);  // size: the same as ours (symmetric)
      std::string_view key = take_bytes(card);
      if (key.empty()) continue;
      if (ucs_status_t st = ucx().ucp_ep_rkey_unpack(p->ep, key.data(), &p->rkey[s]); st != UCS_OK)
        ucx_failed(strprintf("unpacking PE %d's key of segment %d (ucp_ep_rkey_unpack)", pe, s).c_str(), st);
    }
    endpoints.fetch_add(1, std::memory_order_relaxed);
    Peer* raw = p.release();
    peers[pe].store(raw, std::memory_order_release);
    return *raw;
  }

  // The peer's address of my symmetric address `addr` ([addr, addr + n)
  // inside one segment), and the key that reaches it.
  std::pair<std::uint64_t, ucp_rkey_h> remote(Peer& p, const void* addr, std::size_t n, int pe) {
    auto a = reinterpret_cast<std::uintptr_t>(addr);
    for (int s = 0; s < kSegments; ++s) {
      const std::uintptr_t off = a - segments[s].base;
      if (off < segments[s].size && n <= segments[s].size - off && p.rkey[s]) return {p.base[s] + off, p.rkey[s]};
    }
    raise(ErrorCode::InvalidUsage, "UCX transport: [%p, +%zu bytes) is not inside one symmetric segment that PE %d "
          "registered", addr, n, pe);
  }

  // A put of `n` bytes from `src` to the peer's copy of my symmetric `dst`,
  // or a get of `n` bytes from the peer's copy of my symmetric `src` to `dst`;
  // waits for the request (local completion) unless `nbi`, when quiet's
  // flush completes it. Small puts join the peer's batch; anything else
  // sends the batch first.
  void rma(bool put, int pe, void* dst, const void* src, std::size_t n, bool nbi) {
    if (n == 0) return;
    Peer& p = peer(pe);
    const void* sym = put ? dst : src;
    auto [raddr, rkey] = remote(p, sym, n, pe);
    p.count(n);
    if (put && p.batch_puts && n <= coalesce) return coalesce_put(p, raddr, src, n);  // NOTE [ucx coalescing]
    send_batch_first(p);
    ucp_request_param_t prm{};
    ucs_status_ptr_t req =
        put ? ucx().ucp_put_nbx(p.ep, src, n, raddr, rkey, &prm) : ucx().ucp_get_nbx(p.ep, dst, n, raddr, rkey, &prm);
    if (put || nbi) posted.fetch_add(1, std::memory_order_acq_rel);  // NOTE [ucx quiet]
    const char* what = put ? "a put" : "a get";
    if (!nbi) return finish(req, pe, what);
    if (UCS_PTR_IS_ERR(req)) failed_op(pe, what, UCS_PTR_STATUS(req));
    if (req) ucx().ucp_request_free(req);  // UCX completes it; quiet's flush waits for that
  }

  // Waits until `done()` for an operation on PE `pe` (`what`), progressing
  // the worker; throws if the job fails or TILECOMM_TIMEOUT passes first.
  template <class Done>
  void wait(int pe, const char* what, Done&& done) {
    // wait_for spins, then yields the CPU (the peer that must answer may
    // need it: an oversubscribed host), and sees failures and the timeout.
    // It progresses this worker on every poll when the runtime installed
    // its progress hook (detail::g_progress); a second progress here would
    // only delay each look.
    const bool hooked = detail::g_progress.load(std::memory_order_relaxed) != nullptr;
    const WaitStatus ws = wait_for([&] {
      if (!hooked) progress();
      return done();
    });
    if (ws != WaitStatus::Done)
      raise(ws == WaitStatus::TimedOut ? ErrorCode::Timeout : ErrorCode::Remote,
            "UCX transport: %s on PE %d did not complete: %s", what, pe,
            ws == WaitStatus::TimedOut ? "TILECOMM_TIMEOUT passed" : job_failure().c_str());
  }

  // Waits for a request of an operation on PE `pe` (`what`); throws if it
  // failed or the job did.
  void finish(ucs_status_ptr_t req, int pe, const char* what) {
    if (req == nullptr) return;
    if (UCS_PTR_IS_ERR(req)) failed_op(pe, what, UCS_PTR_STATUS(req));
    ucs_status_t st = UCS_INPROGRESS;
    try {
      wait(pe, what, [&] { return (st = ucx().ucp_request_check_status(req)) != UCS_INPROGRESS; });
    } catch (...) {
      ucx().ucp_request_free(req);
      throw;
    }
    ucx().ucp_request_free(req);
    if (st != UCS_OK) failed_op(pe, what, st);
  }

  // An operation failed. When the peer is gone, the rendezvous soon says how
  // it ended (killed, exited without finalizing) and marks the job failed:
  // wait up to kVerdictSeconds for that, so the message names the cause,
  // as every wait's does; without a verdict the peer's host or network is
  // what broke.
  [[noreturn]] void failed_op(int pe, const char* what, ucs_status_t st) {
    constexpr int kVerdictSeconds = 5;
    const bool gone = st == UCS_ERR_CONNECTION_RESET || st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_UNREACHABLE;
    for (int i = 0; gone && !job_failed() && i < kVerdictSeconds * 100; ++i) usleep(10000);
    if (job_failed())
      raise(ErrorCode::Remote, "UCX transport: %s on PE %d failed (%s) because the job failed: %s", what, pe,
            ucx().ucs_status_string(st), job_failure().c_str());
    raise(ErrorCode::Remote, "UCX transport: %s on PE %d failed: %s%s", what, pe, ucx().ucs_status_string(st),
          gone ? " (the PE's process, its host or the network to it is gone)" : "");
  }
};

UcxTransport::UcxTransport(int my_pe, int n_pes, bool progress_thread, std::size_t coalesce)
    : s_(std::make_unique<State>()) {
  if (coalesce > ucx_batch::kMaxPut)
    raise(ErrorCode::InvalidUsage, "UCX transport: TILECOMM_UCX_COALESCE is %zu bytes, more than the %zu a batch of "
          "puts holds; set it to at most that, or 0 to send every put on its own", coalesce, ucx_batch::kMaxPut);
  s_->my_pe = my_pe;
  s_->n_pes = n_pes;
  s_->coalesce = coalesce;
  s_->peers = std::vector<std::atomic<Peer*>>(n_pes);
  ucp_config_t* config = nullptr;
  if (ucs_status_t st = ucx().ucp_config_read(nullptr, nullptr, &config); st != UCS_OK)
    ucx_failed("reading UCX's configuration (ucp_config_read)", st);
  // NOTE [ucx tcp segment] UCX's TCP transport sends a zero-copy put, or the
  // reply to a get, in pieces of its send segment, 8 KiB by default, each
  // one a header and a system call on both sides. One-sided bulk transfers
  // want the largest piece the receiving side accepts: the receive segment,
  // 64 KiB by default. Between two hosts of this machine that took 16 MiB
  // puts and gets from 0.7 to 2-3.5 GB/s, with small messages unchanged.
  // UCX offers the key to every transport and only TCP has one of this name.
  // A user who sets either segment size keeps UCX's rule and their choice.
  if (!std::getenv("UCX_TCP_TX_SEG_SIZE") && !std::getenv("UCX_TCP_RX_SEG_SIZE"))
    if (ucs_status_t st = ucx().ucp_config_modify(config, "TX_SEG_SIZE", "64K"); st != UCS_OK)
      ucx_failed("setting UCX's TCP send segment to 64K (ucp_config_modify TX_SEG_SIZE)", st);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                    (progress_thread ? UCP_FEATURE_WAKEUP : 0);
  params.mt_workers_shared = 1;
  ucs_status_t st = ucx().ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &s_->context);
  ucx().ucp_config_release(config);
  if (st != UCS_OK) ucx_failed("starting UCX (ucp_init)", st);
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_MULTI;
  if (st = ucx().ucp_worker_create(s_->context, &wp, &s_->worker); st != UCS_OK)
    ucx_failed("creating a UCX worker (ucp_worker_create)", st);
  for (auto [id, cb] : {std::pair{kBatchAm, &State::on_batch}, std::pair{kAckAm, &State::on_ack}}) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                    UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = id;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = cb;
    hp.arg = s_.get();
    if (st = ucx().ucp_worker_set_am_recv_handler(s_->worker, &hp); st != UCS_OK)
      ucx_failed("installing the handler of batches of puts (ucp_worker_set_am_recv_handler)", st);
  }
  ucp_address_t* address = nullptr;
  std::size_t len = 0;
  if (st = ucx().ucp_worker_get_address(s_->worker, &address, &len); st != UCS_OK)
    ucx_failed("reading the UCX worker's address (ucp_worker_get_address)", st);
  s_->address.assign(reinterpret_cast<const char*>(address), len);
  ucx().ucp_worker_release_address(s_->worker, address);
  if (progress_thread) {
    int efd = -1;
    if (st = ucx().ucp_worker_get_efd(s_->worker, &efd); st != UCS_OK)
      ucx_failed("reading the worker's event descriptor for the progress thread (ucp_worker_get_efd)", st);
    s_->progress_thread = std::thread([this, efd] { s_->progress_events(efd); });
  }
}

UcxTransport::~UcxTransport() {
  if (s_->progress_thread.joinable()) {
    s_->stopping.store(true, std::memory_order_release);
    ucx().ucp_worker_signal(s_->worker);
    s_->progress_thread.join();
  }
  // Peers may have exited already: force-close, which sends nothing.
  for (auto& slot : s_->peers) {
    Peer* p = slot.load();
    if (!p) continue;
    for (ucp_rkey_h k : p->rkey)
      if (k) ucx().ucp_rkey_destroy(k);
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t req = ucx().ucp_ep_close_nbx(p->ep, &prm);
    if (req && !UCS_PTR_IS_ERR(req)) {
      (void)wait_for([&] {
        ucx().ucp_worker_progress(s_->worker);
        return ucx().ucp_request_check_status(req) != UCS_INPROGRESS;
      });
      ucx().ucp_request_free(req);
    }
    std::free(p->batch.load());  // puts never sent: the job is ending
    delete p;
  }
  for (LocalSegment& seg : s_->segments)
    if (seg.mem) ucx().ucp_mem_unmap(s_->context, seg.mem);
  if (s_->worker) ucx().ucp_worker_destroy(s_->worker);
  if (s_->context) ucx().ucp_cleanup(s_->context);
}

bool UcxTransport::reachable(int pe) const noexcept { return pe >= 0 && pe < s_->n_pes; }

memory::SegmentKey UcxTransport::register_segment(int id, const memory::Segment& seg) {
  if (id < 0 || id >= kSegments) raise(ErrorCode::InvalidUsage, "UCX transport: no segment %d", id);
  LocalSegment& l = s_->segments[id];
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = seg.base();
  mp.length = seg.size();
  if (ucs_status_t st = ucx().ucp_mem_map(s_->context, &mp, &l.mem); st != UCS_OK)
    ucx_failed(strprintf("registering %zu bytes of symmetric memory (ucp_mem_map)", seg.size()).c_str(), st);
  void* packed = nullptr;
  std::size_t len = 0;
  if (ucs_status_t st = ucx().ucp_rkey_pack(s_->context, l.mem, &packed, &len); st != UCS_OK)
    ucx_failed("packing a remote key (ucp_rkey_pack)", st);
  l.rkey.assign(static_cast<const char*>(packed), len);
  ucx().ucp_rkey_buffer_release(packed);
  l.base = reinterpret_cast<std::uintptr_t>(seg.base());
  l.size = seg.size();
  return {};
}

std::string UcxTransport::card() const {
  std::string c;
  put_u64(c, s_->address.size());
  c += s_->address;
  for (const LocalSegment& l : s_->segments) {
    put_u64(c, l.base);
    put_u64(c, l.size);
    put_u64(c, l.rkey.size());
    c += l.rkey;
  }
  return c;
}

void UcxTransport::set_card_lookup(std::function<std::string(int)> lookup) { s_->lookup = std::move(lookup); }

void UcxTransport::put(int pe, void* dst, const void* src, std::size_t n) { s_->rma(true, pe, dst, src, n, false); }

void UcxTransport::get(int pe, void* dst, const void* src, std::size_t n) { s_->rma(false, pe, dst, src, n, false); }

void UcxTransport::put_nbi(int pe, void* dst, const void* src, std::size_t n) { s_->rma(true, pe, dst, src, n, true); }

void UcxTransport::get_nbi(int pe, void* dst, const void* src, std::size_t n) { s_->rma(false, pe, dst, src, n, true); }

std::uint64_t UcxTransport::atomic(int pe, AtomicOp op, void* dst, std::size_t width, std::uint64_t operand,
                                   std::uint64_t compare) {
  if (width != 4 && width != 8)
    raise(ErrorCode::InvalidUsage, "UCX transport: atomics are 4 or 8 bytes wide, not %zu", width);
  Peer& p = s_->peer(pe);
  auto [raddr, rkey] = s_->remote(p, dst, width, pe);
  s_->send_batch_first(p);
  ucp_atomic_op_t uop = UCP_ATOMIC_OP_ADD;
  bool fetch = true;
  switch (op) {
    case AtomicOp::Fetch: operand = 0; break;  // add 0, fetching
    case AtomicOp::Set: uop = UCP_ATOMIC_OP_SWAP; break;
    case AtomicOp::Swap: uop = UCP_ATOMIC_OP_SWAP; break;
    case AtomicOp::CompareSwap: uop = UCP_ATOMIC_OP_CSWAP; break;
    case AtomicOp::Add:
    case AtomicOp::Notify: fetch = false; break;
    case AtomicOp::FetchAdd: break;
    case AtomicOp::And: fetch = false; [[fallthrough]];
    case AtomicOp::FetchAnd: uop = UCP_ATOMIC_OP_AND; break;
    case AtomicOp::Or: fetch = false; [[fallthrough]];
    case AtomicOp::FetchOr: uop = UCP_ATOMIC_OP_OR; break;
    case AtomicOp::Xor: fetch = false; [[fallthrough]];
    case AtomicOp::FetchXor: uop = UCP_ATOMIC_OP_XOR; break;
  }
  // Operands in the width's own type (little-endian: the low bytes).
  std::uint64_t x = op == AtomicOp::CompareSwap ? compare : operand;
  std::uint64_t reply = op == AtomicOp::CompareSwap ? operand : 0;
  ucp_request_param_t prm{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  prm.datatype = ucp_dt_make_contig(width);
  if (fetch) {
    prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    prm.reply_buffer = &reply;
  }
  p.count(width);
  ucs_status_ptr_t req = ucx().ucp_atomic_op_nbx(p.ep, uop, &x, 1, raddr, rkey, &prm);
  if (!fetch && op != AtomicOp::Notify) s_->posted.fetch_add(1, std::memory_order_acq_rel);
  s_->finish(req, pe, "an atomic operation");
  return width == 4 ? reply & 0xffffffffu : reply;
}

void UcxTransport::put_signal(int pe, void* dst, const void* src, std::size_t n, std::uint64_t* sig,
                              std::uint64_t signal, bool add) {
  put(pe, dst, src, n);
  fence();  // the data is delivered before the signal
  atomic(pe, add ? AtomicOp::Add : AtomicOp::Set, sig, sizeof *sig, signal, 0);
}

void UcxTransport::fence() {
  s_->send_batches();  // NOTE [ucx coalescing]
  s_->check_batches();
  if (ucs_status_t st = ucx().ucp_worker_fence(s_->worker); st != UCS_OK) ucx_failed("fence (ucp_worker_fence)", st);
}

void UcxTransport::quiet() {
  s_->wait_batches();  // NOTE [ucx coalescing]
  const std::uint64_t posted = s_->posted.load(std::memory_order_acquire);  // NOTE [ucx quiet]
  if (s_->flushed.load(std::memory_order_acquire) >= posted) return;
  ucp_request_param_t prm{};
  s_->finish(ucx().ucp_worker_flush_nbx(s_->worker, &prm), s_->my_pe, "quiet (a flush of every operation to the peers)");
  std::uint64_t done = s_->flushed.load(std::memory_order_relaxed);
  while (done < posted && !s_->flushed.compare_exchange_weak(done, posted, std::memory_order_acq_rel)) {
  }
}

void UcxTransport::progress() { s_->progress(); }

void UcxTransport::closing() { s_->closing.store(true, std::memory_order_release); }

int UcxTransport::endpoints() const noexcept { return s_->endpoints.load(std::memory_order_relaxed); }

UcxTransport::Traffic UcxTransport::traffic(int pe) const noexcept {
  if (!reachable(pe)) return {};
  const Peer* p = s_->peers[pe].load(std::memory_order_acquire);
  return p ? Traffic{p->ops.load(std::memory_order_relaxed), p->bytes.load(std::memory_order_relaxed)} : Traffic{};
}

std::string UcxTransport::version() {
  unsigned major = 0, minor = 0, release = 0;
  ucx().ucp_get_version(&major, &minor, &release);
  return strprintf("UCX %u.%u.%u", major, minor, release);
}

}  // namespace tilecomm::transport
