// The one-call and non-blocking forms of the operators (<tilecomm/ops.hpp>).
//
// NOTE [one-call operators] A one-call operator plans the call (the
// two-phase planner's checks, all local arithmetic), then looks its
// signature up among the plans the communicator keeps: on a hit it runs the
// kept plan with this call's buffers, so a repeated call pays its planning
// and its first-run exchange once. The key is the signature only (never a
// buffer address, which may differ between ranks), so every rank that
// makes the same calls hits and misses alike, and the first runs, where the
// ranks agree (NOTE [first run]), happen together. For the same reason the
// kept plans never read a symmetric input in place: whether every rank
// passes the same symmetric object can change from call to call, so they
// stage (Plan::staged_only). At most kKeptPlans signatures are kept, the
// least recently used going first; that order too is the same on every
// rank.
//
// NOTE [non-blocking calls] Start() queues a call on the communicator's
// worker thread, started with the first one, and returns a Request. The
// worker runs the calls in the order they were started; an operator called
// on the communicator from another thread first waits until every started
// call finished (Extras::settle), so each rank's calls keep their program
// order, and the ranks' orders match where the programs do. A failed call's
// error is kept in its Request for test() and wait().
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <list>
#include <mutex>
#include <thread>

#include "comm/access.hpp"
#include "comm/ops_plan.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace tilecomm::ops {

struct Request::State {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::exception_ptr error;
};

namespace {

constexpr std::size_t kKeptPlans = 64;

struct Kept {
  Executor ex;
  std::vector<std::uint8_t> workspace;
};

}  // namespace

// What the operators keep with a communicator (comm::Extras).
class CommState final : public comm::Extras {
 public:
  ~CommState() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    if (worker_.joinable()) worker_.join();  // runs what is queued first
  }

  void settle() override {
    if (std::this_thread::get_id() == worker_id_) return;
    std::unique_lock<std::mutex> lock(mutex_);
    idle_cv_.wait(lock, [&] { return pending_ == 0; });
  }

  // The kept plan of `fresh`'s signature, made from it on a miss (NOTE [one-call operators]).
  Kept& plan_for(Executor&& fresh) {
    Plan& f = *fresh.plan();
    for (auto it = plans_.begin(); it != plans_.end(); ++it) {
      Plan& p = *it->ex.plan();
      if (!(p.sig == f.sig) || p.kind != f.kind || p.counts != f.counts) continue;  // the matrix, not its hash
      p.comm = f.comm;  // the same communicator (the same serial), maybe moved since
      p.input = f.input;
      p.output = f.output;
      p.input2 = f.input2;
      p.bias = f.bias;
      p.gather_out = f.gather_out;
      plans_.splice(plans_.begin(), plans_, it);
      return plans_.front();
    }
    if (plans_.size() == kKeptPlans) plans_.pop_back();
    f.staged_only = true;
    plans_.push_front(Kept{std::move(fresh), std::vector<std::uint8_t>(f.workspace)});
    return plans_.front();
  }

  void forget(const Kept& kept) {
    plans_.remove_if([&](const Kept& k) { return &k == &kept; });
  }

  Request start(std::function<void()> call) {
    Request r;
    r.state_ = std::make_shared<Request::State>();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!worker_.joinable()) {
        worker_ = std::thread([this] { work(); });
        worker_id_ = worker_.get_id();
      }
      queue_.emplace_back(std::move(call), r.state_);
      ++pending_;
    }
    work_cv_.notify_one();
    return r;
  }

 private:
  void work() {
    for (;;) {
      std::pair<std::function<void()>, std::shared_ptr<Request::State>> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      std::exception_ptr error;
      try {
        job.first();
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(job.second->mutex);
        job.second->done = true;
        job.second->error = error;
      }
      job.second->done_cv.notify_all();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      idle_cv_.notify_all();
    }
  }

  std::list<Kept> plans_;  // most recently used first
  std::mutex mutex_;       // guards the queue and pending_
  std::condition_variable work_cv_, idle_cv_;
  std::deque<std::pair<std::function<void()>, std::shared_ptr<Request::State>>> queue_;
  std::size_t pending_ = 0;  // queued or running
  bool stopping_ = false;
  std::thread worker_;
  std::thread::id worker_id_;
};

namespace {

CommState& state_of(Comm& comm) {
  std::unique_ptr<comm::Extras>& x = comm::Access::extras(comm);  // throws for a destroyed communicator
  if (!x) x = std::make_unique<CommState>();
  return static_cast<CommState&>(*x);
}

// Plans with `planner` (a GetWorkspaceSize call on an executor), then runs
// the kept plan of that signature with `run` (the matching operator).
template <class Planner, class Runner>
void one_call(Comm& comm, Planner&& planner, Runner&& run) {
  CommState& state = state_of(comm);
  state.settle();
  Executor fresh;
  planner(&fresh);
  Kept& kept = state.plan_for(std::move(fresh));
  try {
    run(kept.workspace.data(), kept.workspace.size(), &kept.ex);
  } catch (...) {
    // A plan whose first run failed is not kept: after a mismatch every
    // rank kept another signature, and the kept plans must stay alike.
    if (!kept.ex.plan()->resolved) state.forget(kept);
    throw;
  }
}

}  // namespace

// ---- requests ---------------------------------------------------------------------

bool Request::test() {
  if (!state_) raise(ErrorCode::InvalidUsage, "tilecomm::ops::Request::test: an empty request (not from Start)");
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->done && state_->error) std::rethrow_exception(std::exchange(state_->error, nullptr));
  return state_->done;
}

void Request::wait() {
  if (!state_) raise(ErrorCode::InvalidUsage, "tilecomm::ops::Request::wait: an empty request (not from Start)");
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->done_cv.wait(lock, [&] { return state_->done; });
  if (state_->error) std::rethrow_exception(std::exchange(state_->error, nullptr));
}

Request Start(Comm& comm, std::function<void()> call) {
  if (!call) raise(ErrorCode::InvalidUsage, "tilecomm::ops::Start: the call is empty");
  return state_of(comm).start(std::move(call));
}

// ---- the one-call forms -----------------------------------------------------------

void AllGather(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype) {
  one_call(comm, [&](Executor* ex) { AllGatherGetWorkspaceSize(comm, input, output, count, dtype, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { AllGather(w, n, ex); });
}

void ReduceScatter(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, ReduceOp op) {
  one_call(comm, [&](Executor* ex) { ReduceScatterGetWorkspaceSize(comm, input, output, count, dtype, op, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { ReduceScatter(w, n, ex); });
}

void AllReduce(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, ReduceOp op) {
  one_call(comm, [&](Executor* ex) { AllReduceGetWorkspaceSize(comm, input, output, count, dtype, op, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { AllReduce(w, n, ex); });
}

void Reduce(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, ReduceOp op, int root) {
  one_call(comm, [&](Executor* ex) { ReduceGetWorkspaceSize(comm, input, output, count, dtype, op, root, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { Reduce(w, n, ex); });
}

void Broadcast(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype, int root) {
  one_call(comm, [&](Executor* ex) { BroadcastGetWorkspaceSize(comm, input, output, count, dtype, root, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { Broadcast(w, n, ex); });
}

void AllToAll(Comm& comm, const void* input, void* output, std::uint64_t count, DataType dtype) {
  one_call(comm, [&](Executor* ex) { AllToAllGetWorkspaceSize(comm, input, output, count, dtype, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { AllToAll(w, n, ex); });
}

void AllToAllV(Comm& comm, const void* input, void* output, const std::uint64_t* counts, DataType dtype) {
  one_call(comm, [&](Executor* ex) { AllToAllVGetWorkspaceSize(comm, input, output, counts, dtype, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { AllToAllV(w, n, ex); });
}

void AllGatherAdd(Comm& comm, const void* a, const void* b, void* c, std::uint64_t count, DataType dtype) {
  one_call(comm, [&](Executor* ex) { AllGatherAddGetWorkspaceSize(comm, a, b, c, count, dtype, ex); },
           [](void* w, std::uint64_t n, Executor* ex) { AllGatherAdd(w, n, ex); });
}

void AllGatherMatmul(Comm& comm, const void* x1, const void* x2, const void* bias, void* y, void* gather_out,
                     MatmulShape shape, DataType dtype, const MatmulOptions& options) {
  one_call(comm,
           [&](Executor* ex) {
             AllGatherMatmulGetWorkspaceSize(comm, x1, x2, bias, y, gather_out, shape, dtype, ex, options);
           },
           [](void* w, std::uint64_t n, Executor* ex) { AllGatherMatmul(w, n, ex); });
}

void MatmulReduceScatter(Comm& comm, const void* x1, const void* x2, const void* bias, void* y, MatmulShape shape,
                         DataType dtype, const MatmulOptions& options) {
  one_call(comm,
           [&](Executor* ex) { MatmulReduceScatterGetWorkspaceSize(comm, x1, x2, bias, y, shape, dtype, ex, options); },
           [](void* w, std::uint64_t n, Executor* ex) { MatmulReduceScatter(w, n, ex); });
}

void MatmulAllReduce(Comm& comm, const void* x1, const void* x2, const void* bias, void* y, MatmulShape shape,
                     DataType dtype, const MatmulOptions& options) {
  one_call(comm,
           [&](Executor* ex) { MatmulAllReduceGetWorkspaceSize(comm, x1, x2, bias, y, shape, dtype, ex, options); },
           [](void* w, std::uint64_t n, Executor* ex) { MatmulAllReduce(w, n, ex); });
}

}  // namespace tilecomm::ops
