// The rendezvous server: where the PEs of one job meet.
//
// It runs in a thread of tcrun, or of the process that called
// shmemx_get_uniqueid. PEs connect over TCP and present the job's cookie;
// a connection that does not is dropped and logged, and the job goes on.
// The server then provides the few collectives that init needs (allgather,
// which doubles as a barrier) and watches the job: when a PE's connection
// closes before it said Finalize, every other PE is sent an Abort naming it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/wire.hpp"

namespace tilecomm::bootstrap {

class Server {
 public:
  /// Listens on `addr` (IPv4, network order) at an ephemeral port and starts
  /// the server thread. Throws tilecomm::Error when the socket cannot be made.
  explicit Server(std::uint32_t addr);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  const Rendezvous& rendezvous() const { return rendezvous_; }

  /// Sends Abort(reason) to every connected PE (once per job; later calls are ignored).
  void abort_job(const std::string& reason);
  /// The status given to shmem_global_exit, or -1 if nobody called it.
  int global_exit_status() const { return global_exit_status_.load(); }
  /// True once every PE of the job has said Finalize.
  bool all_finalized() const { return all_finalized_.load(); }
  /// Number of connections dropped for a wrong cookie or a bad first message.
  int rejected() const { return rejected_.load(); }
  /// Waits up to timeout_s for all_finalized(); true if it happened.
  bool wait_all_finalized(double timeout_s) const;

  /// Called (from the server thread) when a PE leaves without Finalize.
  void on_peer_lost(std::function<void(int pe, int pid)> cb);

 private:
  struct Conn;
  void run();
  void handle(Conn& c);
  void process(Conn& c, const MsgHeader& h, const std::vector<char>& body);
  void lost(Conn& c);
  void drop(Conn& c, const char* why);
  void broadcast(Msg type, const void* payload, std::size_t len);

  Rendezvous rendezvous_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> by_rank_;
  int size_ = 0;
  std::vector<char> gather_;
  std::size_t gather_blob_ = 0;
  int gathered_ = 0;
  int finalized_ = 0;
  bool aborted_ = false;
  std::mutex mutex_;  // abort_reason_, peer_lost_
  std::string abort_reason_;
  std::function<void(int, int)> peer_lost_;
  std::atomic<int> global_exit_status_{-1};
  std::atomic<bool> all_finalized_{false};
  std::atomic<int> rejected_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tilecomm::bootstrap
