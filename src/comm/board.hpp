// What each rank of a communicator is doing, where the others can see it.
//
// NOTE [call board] Each rank keeps one 64-byte line in its window segment,
// after the flag region, which every rank of the host maps: how many
// operator calls it started on the communicator, what it does now (idle,
// agreeing on a new plan, running a call, destroying the communicator, in
// shmem_finalize, failed) and the signature of its call. A call only notes
// that locally; the line is written when the rank waits past the spin of a
// wait (it then reads the others' lines too) and when it leaves the
// communicator or fails, so a call that never waits long writes nothing
// shared (an 8-byte operator call measured 7% slower with one line write
// per call: 2 PEs, AMD EPYC Zen 3). A rank that waits inside a call looks
// at the lines of its peers every few polls (a WaitWatch, core/wait.hpp)
// and ends the call with an error naming both calls where a peer can never
// join it (a peer's line may be older than its state, never newer, so a
// peer that does not wait is only missed, never misnamed):
// - a peer whose call number is this one's but whose signature differs (a
//   different operator, count, type, root, shape or form);
// - a peer that left the communicator (destroying it, in shmem_finalize)
//   before starting this call;
// - a peer whose call failed (seen so for half a second: a job failure
//   behind it reaches this rank too, and names the cause);
// and with a timeout naming the peers that have not arrived, and what they
// did last, after TILECOMM_COMM_TIMEOUT. Nobody reads or writes a line
// while nobody waits long. A peer may run ahead legitimately (it finished
// its part of this call), so a later call number is never by itself an
// error.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "core/wait.hpp"

namespace tilecomm::comm {

/// The whole of an operator call that every rank must agree on: exchanged
/// on a plan's first run and shown on the board. Plain data, 48 bytes.
struct Signature {
  std::uint8_t kind = 0, dtype = 0, op = 0, moves = 0;
  std::uint8_t flags = 0;  // kHasBias | kHasGatherOut
  std::uint8_t pad[3] = {};
  std::int32_t root = 0, tiles = 0;
  std::uint64_t count = 0, k = 0, n = 0;  // count (or m), and the matmul's k and n
  std::uint64_t matrix = 0;                // AllToAllV: a hash of the count matrix
  static constexpr std::uint8_t kHasBias = 1, kHasGatherOut = 2;
  bool operator==(const Signature&) const = default;
};
static_assert(sizeof(Signature) == 48);

/// "AllGatherMatmul(m=4, k=64, n=32, fp32, shards, 2 tiles, bias)", for messages
/// (defined with the operators, which know the names).
std::string describe(const Signature& s);

/// Agreeing: in the first run of a plan, before its exchange; Agreed: after
/// it; Running: a plan run before.
enum class State : std::uint8_t { Idle, Agreeing, Agreed, Running, Destroying, Finalizing, Failed };

/// One rank's line (NOTE [call board]); `version` is odd while the owner writes.
struct alignas(64) Line {
  std::atomic<std::uint64_t> version{0};
  std::atomic<std::uint64_t> seq_state{0};  // calls started << 8 | State
  std::atomic<std::uint64_t> sig[6] = {};
};
static_assert(sizeof(Line) == 64);

/// The lines of a communicator's ranks as this rank sees them.
class Board {
 public:
  void attach(int rank, int size, Line* const* lines);
  /// Starts call number ++calls() with `sig` in `state` (Agreeing or
  /// Running), noted here; written to the line by publish_if_stale().
  std::uint64_t start(const Signature& sig, State state);
  /// The current call's state (noted), or Idle, Destroying, Finalizing,
  /// Failed (written at once).
  void set(State state);
  /// Writes what start() and set() noted, if not yet written.
  void publish_if_stale();
  State state() const { return state_; }
  std::uint64_t calls() const { return seq_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  struct Seen {
    std::uint64_t seq = 0;
    State state = State::Idle;
    Signature sig;
  };
  /// Rank r's line, read consistently (false while its owner writes it).
  bool read(int r, Seen& out) const;
  /// What rank r does, in words: "idle after call #3 (AllReduce(...))".
  std::string what(int r) const;

 private:
  void publish();
  int rank_ = 0, size_ = 0;
  Line* const* lines_ = nullptr;  // [size_], mine at rank_
  std::uint64_t seq_ = 0;
  State state_ = State::Idle;
  Signature sig_;
  bool stale_ = false;  // the line is older than seq_, state_, sig_
};

/// An operator call on the board: starts it (installing itself as the
/// thread's WaitWatch, so that waits inside the call watch the peers and
/// errors inside it throw: core/error.cpp). A call that returns leaves its
/// line as it is; failed() marks an error leaving the call: Failed, or Idle
/// where agreed() said every rank found that error alike (the communicator
/// then stays usable). Run a call through as_call() (ops_plan.hpp).
class CallScope final : public WaitWatch {
 public:
  CallScope(Board& board, const Signature& sig, State state, const char* call);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
  void agreeing_done() { board_.set(State::Agreed); }
  void agreed() { agreed_ = true; }
  void failed() { board_.set(agreed_ ? State::Idle : State::Failed); }
  void check(double waited) override;

 private:
  Board& board_;
  const char* call_;
  WaitWatch* outer_;
  bool agreed_ = false;
  double failed_seen_ = 0;  // when a failed peer was first seen
};

/// The watch of a rank that destroys its communicator (Board state
/// Destroying): a peer that failed, or left without destroying it, or runs
/// a call this rank never made, ends the destruction's wait.
class DestroyScope final : public WaitWatch {
 public:
  explicit DestroyScope(Board& board);
  ~DestroyScope();
  void check(double waited) override;

 private:
  Board& board_;
  WaitWatch* outer_;
  double failed_seen_ = 0;  // when a failed peer was first seen
};

}  // namespace tilecomm::comm
