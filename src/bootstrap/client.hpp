// A PE's connection to the rendezvous server.
//
// During init the calling thread uses it for gathers. After init a
// watcher thread owns the reading side: an Abort from the server (a peer
// failed) or a lost connection sets the job's failure state, so every wait
// in this PE returns; a GlobalExit ends this process with the given status;
// the answer to a card lookup is handed to the thread that asked.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/wire.hpp"

namespace tilecomm::bootstrap {

class Client {
 public:
  /// Connects and introduces this PE; waits up to timeout_s for the server.
  /// Throws tilecomm::Error naming the address on failure or rejection.
  Client(const Rendezvous& where, int rank, int size, double timeout_s);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// What a gather returned: my group (NOTE [keyed gathers] in wire.hpp).
  struct Group {
    int members = 0;          // PEs that gave my key, me included
    int first_other = -1;     // the smallest PE that gave another key, or -1
    std::vector<int> pes;     // listed: the members, ascending
    std::vector<char> blobs;  // listed: their blobs, in that order
    std::vector<GatherRun> runs;  // mapped: every PE's group, as runs
  };
  /// Every PE contributes `len` bytes under `key` (the same `len` and `want`
  /// on every PE); returns the group of the PEs that gave my key, with their
  /// PE numbers and blobs if `want` has kGatherList, and every group's runs
  /// if it has kGatherMap. Waits up to timeout_s; throws naming what was
  /// awaited.
  Group gather(std::string_view key, const void* mine, std::size_t len, std::uint32_t want, double timeout_s);

  /// Publishes this PE's card (NOTE [ucx cards]); before init's last gather,
  /// so that every card is there when init returns on any PE.
  void publish(const std::string& card);
  /// PE `pe`'s card (empty if it published none), asked of the server; needs
  /// the watcher. Waits up to timeout_s, progressing like every wait.
  std::string lookup(int pe, double timeout_s);

  /// Starts the watcher thread (after the last gather of init).
  /// abort_grace_s: how long a PE that is not inside a tilecomm wait is given
  /// to notice a failure before the watcher ends the process.
  void start_watcher(double abort_grace_s);
  /// Says Finalize and stops the watcher; the disconnect that follows is clean.
  void finalize();
  /// Asks the server to end every PE with `status`; does not return.
  [[noreturn]] void global_exit(int status);

 private:
  void watch(double grace);
  void on_abort(const std::string& reason, double grace);

  int fd_ = -1;
  int rank_;
  int size_;
  std::string where_;
  std::mutex send_mutex_;
  std::atomic<bool> finalizing_{false};
  std::mutex answers_mutex_;
  std::map<int, std::string> answers_;  // lookups answered, not yet taken
  std::thread watcher_;
};

}  // namespace tilecomm::bootstrap
