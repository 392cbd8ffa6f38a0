// The rendezvous server: where the PEs of one job meet.
//
// It runs in a thread of tcrun, or of the process that called
// shmemx_get_uniqueid. PEs connect over TCP and present the job's cookie;
// a connection that does not is dropped and logged, and the job goes on.
// The server then provides the few collectives that init needs (allgather,
// which doubles as a barrier) and watches the job: when a PE's connection
// closes before it said Finalize, every other PE is sent an Abort naming it.
//
// The rules of the job live in Job (job.hpp); this class only moves bytes.
// Its thread never blocks on one peer: sockets are read and written without
// waiting, and what a peer does not read yet waits in its output buffer.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "bootstrap/job.hpp"
#include "bootstrap/wire.hpp"

namespace tilecomm::bootstrap {

class Server {
 public:
  /// Listens on `addr` (IPv4, network order) at an ephemeral port and starts
  /// the server thread. `opt.size` is the job size when the launcher knows
  /// it (tcrun -n). Throws tilecomm::Error when the socket cannot be made.
  explicit Server(std::uint32_t addr, const JobOptions& opt = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  const Rendezvous& rendezvous() const { return rendezvous_; }

  /// The job size, once the launcher knows it (a unique-ID job whose host
  /// process is a PE); PEs that joined with another size abort the job.
  void set_job_size(int n);
  /// Sends Abort(reason) to every connected PE (once per job; later calls are ignored).
  void abort_job(const std::string& reason);
  /// The status given to shmem_global_exit, or -1 if nobody called it.
  int global_exit_status() const { return global_exit_status_.load(); }
  /// True once every PE of the job has said Finalize.
  bool all_finalized() const { return all_finalized_.load(); }
  /// Number of connections dropped before a valid Hello (wrong cookie, bad
  /// first message, no Hello in time, closed before its Hello).
  int rejected() const { return rejected_.load(); }
  /// Accepted connections that have not said Hello yet.
  int pending() const { return pending_.load(); }
  /// Waits up to timeout_s for all_finalized(); true if it happened.
  bool wait_all_finalized(double timeout_s) const;

  /// Called (from the server thread) when a PE leaves without Finalize.
  void on_peer_lost(std::function<void(int pe, int pid)> cb);

 private:
  void run();
  void accept_all(double now);
  void read(int fd);
  void flush(int fd);
  void close_conn(int fd);
  void wake();

  Rendezvous rendezvous_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  Job job_;                 // the server thread's only
  std::mutex mutex_;        // the fields below up to peer_lost_
  std::string abort_reason_;
  int job_size_ = 0;
  std::function<void(int, int)> peer_lost_;
  std::atomic<int> global_exit_status_{-1};
  std::atomic<bool> all_finalized_{false};
  std::atomic<int> rejected_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tilecomm::bootstrap
