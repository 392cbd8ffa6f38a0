// The rendezvous server's state machine: who joined, allgather rounds
// (keyed: NOTE [keyed gathers] in wire.hpp),
// published cards and their lookups, Finalize, GlobalExit and Abort, for
// one job.
//
// It owns no socket and never blocks. The Server (server.hpp) feeds it the
// bytes and closes of each connection and sends what it queues in a
// connection's output; the fuzz target tests/fuzz/fuzz_server.cpp feeds it
// arbitrary bytes the same way.
//
// Rules a peer cannot break without being dropped, and that keep one peer
// that holds the cookie from crashing or hanging the job:
//  - the job size is the launcher's (JobOptions::size); only when the launcher
//    does not know it (a unique ID made by a process that is not a PE) does
//    the first accepted Hello set it, and set_size() then checks it;
//  - every length is checked against its bound before anything is allocated;
//  - a lookup answer is encoded once and shared, and a PE that has
//    kMaxUnread messages it did not read is dropped when it asks for more,
//    so no peer can make the server's memory grow by asking without reading;
//  - at most JobOptions::max_pending connections wait for a Hello (the
//    Server leaves further ones in the listen backlog until there is room);
//  - an admitted PE whose connection closes, or that breaks the protocol,
//    before the job finished aborts the job with a message naming it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap/wire.hpp"

namespace tilecomm::bootstrap {

struct JobOptions {
  int size = 0;                 // PEs in the job, from the launcher; 0 = not known yet
  int max_pending = 64;         // connections that may wait for a Hello at once
  double hello_timeout_s = 10;  // a connection without a Hello after this long is dropped
};

class Job {
 public:
  using LostFn = std::function<void(int pe, int pid)>;
  Job(const std::uint8_t* cookie, const JobOptions& opt, LostFn lost = {});

  /// A new connection `id` from `peer` ("ip:port"). False (and counted in
  /// rejected()) when max_pending connections already wait for a Hello:
  /// the caller closes it.
  bool add(int id, const std::string& peer, double now);
  /// Connections waiting for their Hello, and whether add() would take one more.
  int pending() const { return pending_; }
  bool accepting() const { return pending_ < opt_.max_pending; }
  /// Bytes that arrived on connection `id`.
  void receive(int id, const char* p, std::size_t n);
  /// The peer closed connection `id`, or the socket failed; it is forgotten.
  void closed(int id);
  /// Drops connections whose Hello is overdue at `now`.
  void expire(double now);
  /// The launcher's job size, when it was not known at construction.
  void set_size(int n);
  /// Sends Abort(reason) to every admitted PE, now and later (once per job).
  void abort(const std::string& reason);

  /// What the caller must do for connection `id`: send the queued messages,
  /// then close it once they are sent if `drop` is set (or at once if they
  /// cannot be). A message broadcast to every PE is queued once and shared,
  /// so an allgather result costs its size, not its size per PE.
  struct Output {
    std::deque<std::shared_ptr<const std::string>> queue;
    std::size_t sent = 0;  // bytes of queue.front() already sent
    bool drop = false;

    bool empty() const { return queue.empty(); }
    /// The bytes still to send of the first message.
    std::string_view next() const { return std::string_view(*queue.front()).substr(sent); }
    /// `n` bytes of next() were sent.
    void consume(std::size_t n) {
      sent += n;
      if (sent == queue.front()->size()) queue.pop_front(), sent = 0;
    }
    void push(std::string message) { queue.push_back(std::make_shared<const std::string>(std::move(message))); }
  };
  Output* output(int id);
  /// Every connection id, in the order they were added.
  std::vector<int> ids() const;

  bool all_finalized() const { return size_ > 0 && finalized_ == size_; }
  int global_exit_status() const { return global_exit_status_; }
  int rejected() const { return rejected_; }
  int size() const { return size_; }

 private:
  struct Conn {
    std::string peer;
    double hello_deadline = 0;
    int rank = -1;  // -1 until an accepted Hello; -2 once its PE left
    FrameReader in;
    Output io;
  };
  struct Rank {
    int conn = -1;  // connection id while connected
    bool joined = false;
    bool finalized = false;
    bool gathered = false;
    std::string gather_key;  // this round's key (NOTE [keyed gathers])
    std::shared_ptr<const std::string> answer;  // Publish: the LookupResult a Lookup of it gets (NOTE [ucx cards])
    int pid = 0;
    std::string host;
  };

  void process(int id, Conn& c, const MsgHeader& h, const std::vector<char>& body);
  void hello(int id, Conn& c, const std::vector<char>& body);
  void allgather(Conn& c, const std::vector<char>& body);
  void answer_gather();
  void reject(Conn& c, const std::string& problem);
  void drop(Conn& c, const std::string& why);
  void leave(Conn& c, const std::string& reason);
  void broadcast(Msg type, const void* payload, std::size_t len);
  bool finished() const { return all_finalized() || global_exit_status_ >= 0 || exited_; }
  std::uint32_t max_len(const Conn& c) const;
  std::uint32_t gather_blob_max() const;
  static constexpr std::size_t kMaxUnread = 1024;  // messages queued for one PE
  std::string who(int rank) const;

  std::uint8_t cookie_[kCookieBytes];
  JobOptions opt_;
  LostFn lost_;
  std::map<int, Conn> conns_;
  std::vector<int> order_;  // connection ids in arrival order
  int size_ = 0;
  std::vector<Rank> ranks_;
  std::vector<char> gather_;
  std::size_t gather_blob_ = 0;
  std::uint32_t gather_want_ = kGatherCount;
  int gathered_ = 0;
  int finalized_ = 0;
  int rejected_ = 0;
  int pending_ = 0;  // connections with rank -1 and not dropped
  int global_exit_status_ = -1;
  bool exited_ = false;
  bool aborted_ = false;
  std::string abort_reason_;
};

}  // namespace tilecomm::bootstrap
