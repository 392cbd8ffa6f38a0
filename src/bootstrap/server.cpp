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
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"

namespace tilecomm::bootstrap {
namespace {

int listen_on(std::uint32_t addr, std::uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) raise(ErrorCode::System, "rendezvous server: socket: %s", errno_text(errno).c_str());
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = addr;
  sa.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 1024) != 0) {
    int err = errno;
    ::close(fd);
    char ip[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    raise(ErrorCode::System, "rendezvous server: cannot listen on %s: %s (set TILECOMM_BOOTSTRAP_ADDR to an address "
          "of this host)", ip, errno_text(err).c_str());
  }
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  port = ntohs(sa.sin_port);
  return fd;
}

}  // namespace

Server::Server(std::uint32_t addr, const JobOptions& opt)
    : rendezvous_(Rendezvous::with_random_cookie(addr, 0)),
      job_(rendezvous_.cookie, opt, [this](int pe, int pid) {
        std::function<void(int, int)> cb;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          cb = peer_lost_;
        }
        if (cb) cb(pe, pid);
      }) {
  listen_fd_ = listen_on(addr, rendezvous_.port);
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(listen_fd_);
    raise(ErrorCode::System, "rendezvous server: pipe: %s", errno_text(errno).c_str());
  }
  thread_ = std::thread([this] { run(); });
}

Server::~Server() {
  stop_ = true;
  wake();
  if (thread_.joinable()) thread_.join();
  for (int fd : job_.ids()) ::close(fd);
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void Server::wake() {
  char b = 1;
  ssize_t ignored = ::write(wake_[1], &b, 1);
  (void)ignored;
}

void Server::abort_job(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!abort_reason_.empty()) return;
    abort_reason_ = reason;
  }
  wake();
}

void Server::set_job_size(int n) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_size_ = n;
  }
  wake();
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

void Server::close_conn(int fd) {
  job_.closed(fd);
  ::close(fd);
}

void Server::read(int fd) {
  // What is there, without waiting: a peer that sends half a message must not stall the server.
  char chunk[65536];
  ssize_t got = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (got <= 0) return close_conn(fd);
  job_.receive(fd, chunk, static_cast<std::size_t>(got));
}

void Server::flush(int fd) {
  Job::Output* o = job_.output(fd);
  if (!o) return;
  while (!o->empty()) {
    std::string_view next = o->next();
    ssize_t sent = ::send(fd, next.data(), next.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && errno == EAGAIN) break;  // the rest goes when poll says POLLOUT
    if (sent < 0) return close_conn(fd);
    o->consume(static_cast<std::size_t>(sent));
  }
  // A dropped connection gets one try at its last words (a Reject), then it
  // is closed. What it sent and nobody read is drained first: closing a
  // socket with unread input resets the connection, and the peer could lose
  // the Reject that says why.
  if (o->drop) {
    char sink[4096];
    while (::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
    close_conn(fd);
  }
}

void Server::accept_all(double now) {
  // Connections beyond the Hello cap stay in the listen backlog until some
  // pending ones have said Hello (or were dropped): none is refused for it.
  while (job_.accepting()) {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len, SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char ip[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    if (!job_.add(fd, strprintf("%s:%u", ip, ntohs(sa.sin_port)), now)) ::close(fd);
  }
}

void Server::run() {
  std::vector<pollfd> fds;
  while (!stop_) {
    fds.clear();
    fds.push_back({listen_fd_, static_cast<short>(job_.accepting() ? POLLIN : 0), 0});
    fds.push_back({wake_[0], POLLIN, 0});
    for (int fd : job_.ids())
      fds.push_back({fd, static_cast<short>(POLLIN | (job_.output(fd)->empty() ? 0 : POLLOUT)), 0});
    int r = ::poll(fds.data(), fds.size(), 500);
    if (r < 0 && errno != EINTR) break;
    if (fds[1].revents) {
      char buf[64];
      while (::read(wake_[0], buf, sizeof buf) > 0) {
      }
      std::string reason;
      int size = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        reason = abort_reason_;
        size = job_size_;
      }
      if (size) job_.set_size(size);
      if (!reason.empty()) job_.abort(reason);
    }
    for (std::size_t i = 2; i < fds.size(); ++i)
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read(fds[i].fd);
    double now = detail::now_seconds();
    job_.expire(now);
    if (fds[0].revents) accept_all(now);
    for (int fd : job_.ids()) flush(fd);
    global_exit_status_ = job_.global_exit_status();
    all_finalized_ = job_.all_finalized();
    rejected_ = job_.rejected();
    pending_ = job_.pending();
  }
}

}  // namespace tilecomm::bootstrap
