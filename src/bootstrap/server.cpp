#include "bootstrap/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"

namespace tilecomm::bootstrap {

struct Server::Conn {
  int fd = -1;
  int rank = -1;  // -1 until a valid Hello
  int pid = 0;
  std::string host;
  std::string peer;  // "ip:port" of the connection
  double hello_deadline = 0;
  std::vector<char> in;  // bytes received, not yet a whole message
  bool finalized = false;
  bool gathered = false;
};

Server::Server(std::uint32_t addr) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) raise(ErrorCode::System, "rendezvous server: socket: %s", errno_text(errno).c_str());
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = addr;
  sa.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(listen_fd_, 1024) != 0) {
    int err = errno;
    ::close(listen_fd_);
    char ip[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    raise(ErrorCode::System, "rendezvous server: cannot listen on %s: %s (set TILECOMM_BOOTSTRAP_ADDR to an address of this host)",
          ip, errno_text(err).c_str());
  }
  socklen_t len = sizeof sa;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  rendezvous_ = Rendezvous::with_random_cookie(addr, ntohs(sa.sin_port));
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    raise(ErrorCode::System, "rendezvous server: pipe: %s", errno_text(errno).c_str());
  thread_ = std::thread([this] { run(); });
}

Server::~Server() {
  stop_ = true;
  char b = 0;
  ssize_t ignored = ::write(wake_[1], &b, 1);
  (void)ignored;
  if (thread_.joinable()) thread_.join();
  for (auto& c : conns_) ::close(c->fd);
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void Server::abort_job(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!abort_reason_.empty()) return;
    abort_reason_ = reason;
  }
  char b = 1;
  ssize_t ignored = ::write(wake_[1], &b, 1);
  (void)ignored;
}

void Server::on_peer_lost(std::function<void(int, int)> cb) {
  std::lock_guard<std::mutex> lock(mutex_);
  peer_lost_ = std::move(cb);
}

bool Server::wait_all_finalized(double timeout_s) const {
  double end = detail::now_seconds() + timeout_s;
  while (!all_finalized_.load()) {
    if (detail::now_seconds() > end) return false;
    usleep(1000);
  }
  return true;
}

void Server::broadcast(Msg type, const void* payload, std::size_t len) {
  for (auto& c : conns_)
    if (c->rank >= 0) send_msg(c->fd, type, payload, len);
}

void Server::drop(Conn& c, const char* why) {
  if (c.rank < 0) {
    ++rejected_;
    TC_LOG(Warn, "bootstrap", "dropped a connection from %s: %s", c.peer.c_str(), why);
  }
  ::close(c.fd);
  c.fd = -1;
}

void Server::run() {
  std::vector<pollfd> fds;
  while (!stop_) {
    fds.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({wake_[0], POLLIN, 0});
    for (auto& c : conns_) fds.push_back({c->fd, POLLIN, 0});
    int r = ::poll(fds.data(), fds.size(), 500);
    if (r < 0 && errno != EINTR) break;
    if (fds[1].revents) {
      char buf[64];
      while (::read(wake_[0], buf, sizeof buf) > 0) {
      }
      std::string reason;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        reason = abort_reason_;
      }
      if (!reason.empty() && !aborted_) {
        aborted_ = true;
        broadcast(Msg::Abort, reason.data(), reason.size());
      }
    }
    // Existing connections first (their indices match fds[2..]).
    std::size_t n = conns_.size();
    for (std::size_t i = 0; i < n; ++i)
      if (fds[2 + i].revents) handle(*conns_[i]);
    double now = detail::now_seconds();
    for (auto& c : conns_)
      if (c->fd >= 0 && c->rank < 0 && now > c->hello_deadline) drop(*c, "no Hello within 10 s");
    std::erase_if(conns_, [](const std::unique_ptr<Conn>& c) { return c->fd < 0; });
    if (fds[0].revents) {
      sockaddr_in sa{};
      socklen_t len = sizeof sa;
      int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len, SOCK_CLOEXEC);
      if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto c = std::make_unique<Conn>();
        c->fd = fd;
        char ip[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        c->peer = strprintf("%s:%u", ip, ntohs(sa.sin_port));
        c->hello_deadline = now + 10;
        conns_.push_back(std::move(c));
      }
    }
  }
}

void Server::handle(Conn& c) {
  // Read what is there without blocking: a stranger that sends half a
  // message must not stall the server.
  char chunk[65536];
  ssize_t got = ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (got <= 0) return lost(c);
  c.in.insert(c.in.end(), chunk, chunk + got);
  while (c.fd >= 0 && c.in.size() >= sizeof(MsgHeader)) {
    MsgHeader h;
    memcpy(&h, c.in.data(), sizeof h);
    // Before Hello only a Hello-sized message is acceptable.
    if (h.len > kMaxPayload || (c.rank < 0 && (h.type != static_cast<std::uint32_t>(Msg::Hello) ||
                                                h.len != sizeof(HelloBody))))
      return drop(c, "first message is not a Hello");
    if (c.in.size() < sizeof h + h.len) return;
    std::vector<char> body(c.in.begin() + sizeof h, c.in.begin() + static_cast<long>(sizeof h + h.len));
    c.in.erase(c.in.begin(), c.in.begin() + static_cast<long>(sizeof h + h.len));
    process(c, h, body);
  }
}

void Server::lost(Conn& c) {
  if (c.rank >= 0 && !c.finalized) {
    std::string reason = strprintf("PE %d (pid %d on %s) left the job without shmem_finalize (it exited or was killed)",
                                   c.rank, c.pid, c.host.c_str());
    by_rank_[c.rank] = nullptr;
    std::function<void(int, int)> cb;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cb = peer_lost_;
      if (abort_reason_.empty()) abort_reason_ = reason;
      reason = abort_reason_;
    }
    if (cb) cb(c.rank, c.pid);
    ::close(c.fd);
    c.fd = -1;
    if (!aborted_) {
      aborted_ = true;
      broadcast(Msg::Abort, reason.data(), reason.size());
    }
    return;
  }
  if (c.rank >= 0) by_rank_[c.rank] = nullptr;
  drop(c, "closed before Hello");
}

void Server::process(Conn& c, const MsgHeader& h, const std::vector<char>& body) {
  auto type = static_cast<Msg>(h.type);
  if (c.rank < 0) {
    // The first message must be a Hello with the job's cookie.
    if (type != Msg::Hello || body.size() != sizeof(HelloBody)) return drop(c, "first message is not a Hello");
    HelloBody hello;
    memcpy(&hello, body.data(), sizeof hello);
    if (memcmp(hello.cookie, rendezvous_.cookie, kCookieBytes) != 0) return drop(c, "wrong cookie");
    std::string problem;
    if (size_ == 0 && hello.size > 0) {
      size_ = hello.size;
      by_rank_.assign(size_, nullptr);
    }
    if (hello.size != size_)
      problem = strprintf("PE %d says the job has %d PEs, but PE(s) before it said %d", hello.rank, hello.size, size_);
    else if (hello.rank < 0 || hello.rank >= size_)
      problem = strprintf("PE number %d is out of range for a job of %d PEs", hello.rank, size_);
    else if (by_rank_[hello.rank])
      problem = strprintf("PE %d joined twice (pids %d and %d)", hello.rank, by_rank_[hello.rank]->pid, hello.pid);
    if (!problem.empty()) {
      send_msg(c.fd, Msg::Reject, problem.data(), problem.size());
      TC_LOG(Error, "bootstrap", "rejected a PE: %s", problem.c_str());
      return drop(c, problem.c_str());
    }
    c.rank = hello.rank;
    c.pid = hello.pid;
    hello.host[sizeof hello.host - 1] = '\0';
    c.host = hello.host;
    by_rank_[c.rank] = &c;
    send_msg(c.fd, Msg::Welcome, nullptr, 0);
    if (aborted_) {
      std::lock_guard<std::mutex> lock(mutex_);
      send_msg(c.fd, Msg::Abort, abort_reason_.data(), abort_reason_.size());
    }
    return;
  }
  switch (type) {
    case Msg::Allgather: {
      if (c.gathered) return drop(c, "sent two Allgather messages in one round");
      if (gathered_ == 0) {
        gather_blob_ = body.size();
        gather_.assign(gather_blob_ * size_, 0);
      }
      if (body.size() != gather_blob_) {
        std::string reason = strprintf("PEs disagree in a bootstrap allgather: PE %d sent %zu bytes, others %zu",
                                       c.rank, body.size(), gather_blob_);
        abort_job(reason);
        return;
      }
      memcpy(gather_.data() + gather_blob_ * c.rank, body.data(), body.size());
      c.gathered = true;
      if (++gathered_ == size_) {
        for (Conn* p : by_rank_) {
          if (!p) continue;
          send_msg(p->fd, Msg::AllgatherResult, gather_.data(), gather_.size());
          p->gathered = false;
        }
        gathered_ = 0;
      }
      return;
    }
    case Msg::Finalize:
      c.finalized = true;
      if (++finalized_ == size_) all_finalized_ = true;
      return;
    case Msg::GlobalExit: {
      std::int32_t out[2] = {0, c.rank};
      if (body.size() == sizeof(std::int32_t)) memcpy(&out[0], body.data(), sizeof(std::int32_t));
      global_exit_status_ = out[0];
      // Every PE, the caller included, exits when it reads this; their
      // disconnects are then expected and must not raise an abort.
      for (auto& p : conns_) p->finalized = true;
      aborted_ = true;
      broadcast(Msg::GlobalExit, out, sizeof out);
      return;
    }
    default:
      TC_LOG(Warn, "bootstrap", "PE %d sent unexpected message type %u; ignored", c.rank, h.type);
  }
}

}  // namespace tilecomm::bootstrap
