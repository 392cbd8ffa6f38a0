// The call board of a communicator (NOTE [call board] in board.hpp).
#include "comm/board.hpp"

#include <cstring>

#include "core/error.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm::comm {

namespace {

constexpr const char* kStateNames[] = {"idle", "agreeing on a new plan", "running a new plan", "running",
                                       "destroying the communicator", "in shmem_finalize", "failed"};

const char* name_of(State s) { return kStateNames[static_cast<int>(s)]; }

// A call that began with the exchange of a new plan (Agreeing, Agreed), or without it.
bool exchanges(State s) { return s == State::Agreeing || s == State::Agreed; }
bool in_call(State s) { return s == State::Agreeing || s == State::Agreed || s == State::Running; }

double comm_timeout() { return shmem::g_runtime ? shmem::g_runtime->config().comm_timeout : 0; }

// A peer's call may have failed because the job failed (a PE died): this
// rank hears of that too, within milliseconds, and its wait then names the
// cause. So a failed peer ends a wait only once it has been seen failed for
// this long.
constexpr double kFailedGrace = 0.5;

// "; rank r <how><what r does><end>" for every other rank that `absent` picks, for a timeout's message.
template <class Absent>
std::string absent_ranks(const Board& board, Absent&& absent, const char* how, const char* end = "") {
  std::string list;
  for (int r = 0; r < board.size(); ++r) {
    Board::Seen p;
    if (r != board.rank() && board.read(r, p) && absent(p))
      list += strprintf("; rank %d %s%s%s", r, how, board.what(r).c_str(), end);
  }
  return list;
}

// Whether the peer seen failed (at *since, set at the first sighting) has been so for kFailedGrace.
bool failed_long_enough(double& since) {
  const double now = detail::now_seconds();
  if (since == 0) since = now;
  return now - since >= kFailedGrace;
}

}  // namespace

void Board::attach(int rank, int size, Line* const* lines) {
  rank_ = rank;
  size_ = size;
  lines_ = lines;
  publish();
}

void Board::publish() {
  Line& l = *lines_[rank_];
  const std::uint64_t v = l.version.load(std::memory_order_relaxed);
  l.version.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  l.seq_state.store(seq_ << 8 | static_cast<std::uint64_t>(state_), std::memory_order_relaxed);
  std::uint64_t words[6];
  std::memcpy(words, &sig_, sizeof words);
  for (int i = 0; i < 6; ++i) l.sig[i].store(words[i], std::memory_order_relaxed);
  l.version.store(v + 2, std::memory_order_release);
}

std::uint64_t Board::start(const Signature& sig, State state) {
  ++seq_;
  sig_ = sig;
  state_ = state;
  stale_ = true;
  return seq_;
}

void Board::set(State state) {
  if (state_ == state) return;
  state_ = state;
  stale_ = true;
  if (!in_call(state)) publish_if_stale();  // leaving a call: the peers must know at once
}

void Board::publish_if_stale() {
  if (!stale_) return;
  stale_ = false;
  publish();
}

bool Board::read(int r, Seen& out) const {
  const Line& l = *lines_[r];
  const std::uint64_t v = l.version.load(std::memory_order_acquire);
  if (v & 1) return false;
  const std::uint64_t ss = l.seq_state.load(std::memory_order_relaxed);
  std::uint64_t words[6];
  for (int i = 0; i < 6; ++i) words[i] = l.sig[i].load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (l.version.load(std::memory_order_relaxed) != v) return false;
  out.seq = ss >> 8;
  out.state = static_cast<State>(ss & 0xff);
  std::memcpy(&out.sig, words, sizeof words);
  return true;
}

std::string Board::what(int r) const {
  Seen s;
  if (!read(r, s)) return "changing its state";
  if (s.seq == 0) return strprintf("%s, before any call", in_call(s.state) ? "idle" : name_of(s.state));
  if (in_call(s.state))  // a call that returned leaves its line as it is
    return strprintf("in or past its call #%llu, %s", static_cast<unsigned long long>(s.seq),
                     describe(s.sig).c_str());
  return strprintf("%s after call #%llu (%s)", name_of(s.state), static_cast<unsigned long long>(s.seq),
                   describe(s.sig).c_str());
}

// ---- an operator call -------------------------------------------------------------

CallScope::CallScope(Board& board, const Signature& sig, State state, const char* call)
    : board_(board), call_(call), outer_(detail::t_watch) {
  board_.start(sig, state);
  detail::t_watch = this;
}

// A call that ends well leaves its line as it is (one write to it per call,
// not two): "in call #N" after the call means the same to a peer as "idle
// after call #N", as a peer that waits in call N sees it finished.
CallScope::~CallScope() { detail::t_watch = outer_; }

void CallScope::check(double waited) {
  board_.publish_if_stale();
  const std::uint64_t s = board_.calls();
  const State mine = board_.state();
  Board::Seen me;
  board_.read(board_.rank(), me);
  // Formatted only for an error: a check runs every few polls of a wait.
  auto this_call = [&] {
    return strprintf("this rank (%d) waits in call #%llu, %s", board_.rank(), static_cast<unsigned long long>(s),
                     describe(me.sig).c_str());
  };
  for (int r = 0; r < board_.size(); ++r) {
    Board::Seen p;
    if (r == board_.rank() || !board_.read(r, p)) continue;
    if (p.state == State::Failed && failed_long_enough(failed_seen_))
      raise(ErrorCode::Remote, "%s: rank %d failed in its call #%llu (%s); %s", call_, r,
            static_cast<unsigned long long>(p.seq), describe(p.sig).c_str(), this_call().c_str());
    if (p.seq < s && (p.state == State::Destroying || p.state == State::Finalizing))
      raise(ErrorCode::InvalidUsage, "%s: rank %d is %s after %llu calls, without making the call %s; every rank "
            "must make the same operator calls on a communicator before destroying it or finalizing", call_, r,
            name_of(p.state), static_cast<unsigned long long>(p.seq), this_call().c_str());
    if (p.seq != s || !in_call(p.state)) continue;
    // Both in a first run's exchange: the exchange names a mismatch to every rank alike.
    if (exchanges(p.state) && exchanges(mine)) continue;
    if (!(p.sig == me.sig))
      raise(ErrorCode::InvalidUsage, "%s: rank %d's call #%llu is %s but %s; every rank must make the same operator "
            "calls in the same order with the same arguments", call_, r, static_cast<unsigned long long>(s),
            describe(p.sig).c_str(), this_call().c_str());
    if (exchanges(p.state) != exchanges(mine))
      raise(ErrorCode::InvalidUsage, "%s: rank %d runs call #%llu with %s plan but %s with %s; a plan's first run is "
            "where the ranks agree, so every rank must make a new plan (GetWorkspaceSize) where any does",
            call_, r, static_cast<unsigned long long>(s), exchanges(p.state) ? "a new" : "an earlier",
            this_call().c_str(), exchanges(mine) ? "a new one" : "an earlier one");
  }
  const double limit = comm_timeout();
  if (limit > 0 && waited > limit) {
    const std::string absent =
        absent_ranks(board_, [&](const Board::Seen& p) { return p.seq < s; },
                     "has not been seen in this call (its line, written when it last waited: ", ")");
    raise(ErrorCode::Timeout, "%s: %s and has waited %.0f s (TILECOMM_COMM_TIMEOUT=%g)%s%s", call_, this_call().c_str(),
          waited, limit, absent.empty() ? "; every rank has started this call, one of them is stuck in it" : "",
          absent.c_str());
  }
}

// ---- destroying the communicator ---------------------------------------------------

DestroyScope::DestroyScope(Board& board) : board_(board), outer_(detail::t_watch) {
  board_.set(State::Destroying);
  detail::t_watch = this;
}

DestroyScope::~DestroyScope() { detail::t_watch = outer_; }

void DestroyScope::check(double waited) {
  board_.publish_if_stale();
  const std::uint64_t s = board_.calls();
  for (int r = 0; r < board_.size(); ++r) {
    Board::Seen p;
    if (r == board_.rank() || !board_.read(r, p)) continue;
    if (p.state == State::Failed && failed_long_enough(failed_seen_))
      raise(ErrorCode::Remote, "rank %d failed in its call #%llu (%s), so it cannot take part in the destruction",
            r, static_cast<unsigned long long>(p.seq), describe(p.sig).c_str());
    if (p.state == State::Finalizing)
      raise(ErrorCode::InvalidUsage, "rank %d is in shmem_finalize without destroying the communicator; destroy "
            "communicators on every rank before shmem_finalize, or on none", r);
    if (in_call(p.state) && p.seq > s)
      raise(ErrorCode::InvalidUsage, "rank %d is in call #%llu (%s), but this rank (%d) destroys the communicator "
            "after %llu calls; every rank must make the same operator calls before destroying it", r,
            static_cast<unsigned long long>(p.seq), describe(p.sig).c_str(), board_.rank(),
            static_cast<unsigned long long>(s));
  }
  const double limit = comm_timeout();
  if (limit > 0 && waited > limit) {
    const std::string absent =
        absent_ranks(board_, [](const Board::Seen& p) { return p.state != State::Destroying; }, "is ");
    raise(ErrorCode::Timeout, "this rank (%d) has waited %.0f s (TILECOMM_COMM_TIMEOUT=%g) for the others to "
          "destroy the communicator%s", board_.rank(), waited, limit, absent.c_str());
  }
}

}  // namespace tilecomm::comm
