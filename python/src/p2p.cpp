// Point-to-point messages for the torch backend (send, recv, isend, irecv):
// mailboxes of the symmetric heap.
//
// NOTE [mailboxes]: every PE holds, for each PE of the job, one slot of
// kSlot bytes with a header (tag, message bytes) and a signal word `posted`;
// and for each peer a word `acked`. A message goes in chunks of up to kSlot
// bytes, one at a time: the sender waits until the receiver acknowledged
// the previous chunk (acked), puts the header, a fence, then the chunk with
// put-with-signal (posted = the chunk's number); the receiver waits for
// posted, copies the chunk out and acknowledges it with an atomic set in
// the sender's acked word. So a send returns once its last chunk is in the
// peer's slot, and messages between two PEs arrive in the order they were
// sent (whatever their process group): a recv whose tag or size is not the
// next message's raises, naming both. Sends run on one thread, receives on
// another (both in order), so isend and irecv progress while the caller
// computes and a rank's sends never wait behind its receives: the runtime
// runs at SHMEM_THREAD_MULTIPLE for this. The slots are allocated once, by
// the first process group (the default one, on every rank), and shared by
// the subgroups, which name peers by their world PE.
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "binding.hpp"

namespace tilecomm::python {

namespace {

constexpr std::size_t kSlot = std::size_t{1} << 20;

struct Header {
  std::int64_t tag;
  std::uint64_t bytes;
};

/// A queued call: done and its error, under the queue's lock.
struct Task {
  std::function<void()> body;
  bool done = false;
  std::exception_ptr error;
};

/// One thread running tasks in the order they were queued.
class Lane {
 public:
  Lane() : thread_([this] { run(); }) {}
  ~Lane() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  std::shared_ptr<Task> post(std::function<void()> body) {
    auto t = std::make_shared<Task>();
    t->body = std::move(body);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(t);
    }
    cv_.notify_all();
    return t;
  }
  bool test(Task& t) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (t.done && t.error) std::rethrow_exception(std::exchange(t.error, nullptr));
    return t.done;
  }
  void wait(Task& t) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return t.done; });
    if (t.error) std::rethrow_exception(std::exchange(t.error, nullptr));
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      auto t = queue_.front();
      lock.unlock();
      std::exception_ptr error;
      try {
        ThrowErrors errors;
        t->body();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      queue_.pop_front();
      t->done = true;
      t->error = error;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Task>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is made
};

/// The job's mailboxes (NOTE [mailboxes]); one per process.
class Mailboxes {
 public:
  Mailboxes() : n_(shmem_n_pes()), me_(shmem_my_pe()), sent_(n_), received_(n_) {
    auto* words = static_cast<std::uint64_t*>(shmem_calloc(2 * n_, sizeof(std::uint64_t)));
    headers_ = static_cast<Header*>(shmem_calloc(n_, sizeof(Header)));
    slots_ = static_cast<char*>(shmem_malloc(n_ * kSlot));
    if (!words || !headers_ || !slots_)
      raise(ErrorCode::System, "the torch backend's mailboxes need %zu bytes of the symmetric heap; raise "
            "SHMEM_SYMMETRIC_SIZE", n_ * (kSlot + sizeof(Header) + 2 * sizeof(std::uint64_t)));
    posted_ = words;
    acked_ = words + n_;
  }

  void send(const char* data, std::size_t bytes, int dst, std::int64_t tag) {
    const Header h{tag, bytes};
    std::size_t off = 0;
    do {
      const std::size_t len = std::min(kSlot, bytes - off);
      const std::uint64_t seq = ++sent_[dst];
      shmem_uint64_wait_until(&acked_[dst], SHMEM_CMP_GE, seq - 1);
      shmem_putmem(&headers_[me_], &h, sizeof h, dst);
      shmem_fence();
      shmem_putmem_signal(slots_ + me_ * kSlot, data + off, len, &posted_[me_], seq, SHMEM_SIGNAL_SET, dst);
      off += len;
    } while (off < bytes);
    shmem_quiet();
  }

  void recv(char* data, std::size_t bytes, int src, std::int64_t tag) {
    std::size_t off = 0;
    do {
      const std::uint64_t seq = ++received_[src];
      shmem_signal_wait_until(&posted_[src], SHMEM_CMP_GE, seq);
      const Header h = headers_[src];
      if (h.tag != tag || h.bytes != bytes)
        raise(ErrorCode::InvalidUsage, "recv from PE %d: the next message from it has tag %lld and %llu bytes, this "
              "recv expects tag %lld and %zu bytes; messages between two ranks arrive in the order they were sent",
              src, static_cast<long long>(h.tag), static_cast<unsigned long long>(h.bytes),
              static_cast<long long>(tag), bytes);
      const std::size_t len = std::min(kSlot, bytes - off);
      std::memcpy(data + off, slots_ + src * kSlot, len);
      shmem_uint64_atomic_set(&acked_[me_], seq, src);
      off += len;
    } while (off < bytes);
  }

  Lane sends, receives;

 private:
  int n_, me_;
  std::vector<std::uint64_t> sent_, received_;  // chunks, per peer
  std::uint64_t* posted_ = nullptr;  // [src]: the last chunk src put in my slot
  std::uint64_t* acked_ = nullptr;   // [dst]: the last of my chunks dst copied out
  Header* headers_ = nullptr;
  char* slots_ = nullptr;
};

std::unique_ptr<Mailboxes> g_boxes;  // made by the first process group, ended before finalize

/// A process group's view: its team, and requests on the shared mailboxes.
struct Group {
  shmem_team_t team;
  int world(int r, const char* arg) const {
    const int pe = shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD);
    if (pe < 0)
      throw py::value_error(strprintf("argument '%s': %d is not a rank of the group (%d ranks)", arg, r,
                                      shmem_team_n_pes(team)));
    return pe;
  }
};

struct P2PRequest {
  Lane* lane;
  std::shared_ptr<Task> task;
  py::object keep;
  bool test() {
    Call call;
    return lane->test(*task);
  }
  void wait() {
    WaitingCall call;
    lane->wait(*task);
  }
};

}  // namespace

void p2p_before_finalize() { g_boxes.reset(); }

void bind_p2p(py::module_& m) {
  py::class_<P2PRequest>(m, "P2PRequest")
      .def("test", &P2PRequest::test)
      .def("wait", &P2PRequest::wait);
  py::class_<Group>(m, "Mailboxes", "Point-to-point messages of a process group (NOTE [mailboxes])")
      .def(py::init([](py::object team) {
             Call call;
             require_initialised("Mailboxes");
             if (!g_boxes) {
               if (!team.is_none())
                 raise(ErrorCode::InvalidUsage, "the torch backend's first process group must be the default one, "
                       "on every rank (its mailboxes serve the subgroups)");
               g_boxes = std::make_unique<Mailboxes>();
             }
             return Group{team.is_none() ? SHMEM_TEAM_WORLD : team.cast<const Team&>().get("team")};
           }),
           py::arg("team") = py::none())
      .def("send",
           [](Group& g, py::handle a, int dst, std::int64_t tag) {
             const Array x = array_arg(a, "tensor", false);
             const int pe = g.world(dst, "dst");
             auto t = g_boxes->sends.post([x, pe, tag] { g_boxes->send(x.data, x.bytes(), pe, tag); });
             return P2PRequest{&g_boxes->sends, t, py::reinterpret_borrow<py::object>(a)};
           })
      .def("recv",
           [](Group& g, py::handle a, int src, std::int64_t tag) {
             const Array x = array_arg(a, "tensor", true);
             const int pe = g.world(src, "src");
             auto t = g_boxes->receives.post([x, pe, tag] { g_boxes->recv(x.data, x.bytes(), pe, tag); });
             return P2PRequest{&g_boxes->receives, t, py::reinterpret_borrow<py::object>(a)};
           })
      .def("barrier", [](Group& g) {
        WaitingCall call;
        shmem_team_sync(g.team);
      });
}

}  // namespace tilecomm::python
