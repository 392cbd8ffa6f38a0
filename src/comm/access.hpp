// What the operators reach inside a communicator: its call board, its number
// in this process, and the state the operators keep with it.
#pragma once

#include <cstdint>
#include <memory>

#include "comm/board.hpp"
#include "tilecomm/comm.hpp"

namespace tilecomm::comm {

/// State the operators keep with a communicator (<tilecomm/ops.hpp>'s
/// one-call plans and the worker of the non-blocking calls); released
/// before the communicator.
struct Extras {
  virtual ~Extras() = default;
  /// Returns once no non-blocking call of the communicator is queued or
  /// running (at once on the thread that runs them).
  virtual void settle() {}
};

/// What the operators reach inside a communicator.
struct Calls {
  /// A number no other communicator of this process had or will have: a
  /// plan made for one communicator is never run on another (NOTE [bound plans]).
  std::uint64_t serial = 0;
  Board board;                    // NOTE [call board]
  std::unique_ptr<Extras> extras;  // made by the first one-call or non-blocking call
};

struct Access {
  /// Throws for a destroyed or moved-from communicator.
  static Calls& calls(const Comm& c);
  static Board& board(const Comm& c) { return calls(c).board; }
  static std::uint64_t serial(const Comm& c) { return calls(c).serial; }
  static std::unique_ptr<Extras>& extras(const Comm& c) { return calls(c).extras; }
};

}  // namespace tilecomm::comm
