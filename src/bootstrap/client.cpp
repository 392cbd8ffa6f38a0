#include "bootstrap/client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"

namespace tilecomm::bootstrap {

Client::Client(const Rendezvous& where, int rank, int size, double timeout_s)
    : rank_(rank), size_(size), where_(where.to_string()) {
  where_ = where_.substr(0, where_.rfind('/'));  // never log the cookie
  double deadline = detail::now_seconds() + timeout_s;
  for (;;) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) raise(ErrorCode::System, "bootstrap: socket: %s", errno_text(errno).c_str());
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = where.addr;
    sa.sin_port = htons(where.port);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) break;
    int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (detail::now_seconds() > deadline)
      raise(ErrorCode::Transport, "PE %d cannot reach the rendezvous server at %s: %s (is the job's launcher, "
            "or the process that made the unique ID, still running?)", rank, where_.c_str(), errno_text(err).c_str());
    usleep(20000);
  }
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  HelloBody hello{};
  memcpy(hello.cookie, where.cookie, kCookieBytes);
  hello.rank = rank;
  hello.size = size;
  hello.pid = getpid();
  gethostname(hello.host, sizeof hello.host - 1);
  MsgHeader h{};
  std::vector<char> body;
  const int got = send_msg(fd_, Msg::Hello, &hello, sizeof hello)
                      ? recv_msg(fd_, h, body, static_cast<int>(timeout_s * 1000)) : -1;
  if (got == 0) {
    ::close(fd_);
    raise(ErrorCode::Timeout, "PE %d: the rendezvous server at %s did not answer Hello within %g s "
          "(TILECOMM_BOOTSTRAP_TIMEOUT)", rank, where_.c_str(), timeout_s);
  }
  if (got < 0) {
    ::close(fd_);
    raise(ErrorCode::Transport, "PE %d: the rendezvous server at %s closed the connection during Hello: a "
          "wrong cookie (the unique ID is not this rendezvous's), or the Hello did not reach it in time", rank,
          where_.c_str());
  }
  ServerMsg reply = decode_server_msg(h, body);
  if (reply.kind == ServerMsg::Welcome) return;
  ::close(fd_);
  if (reply.kind == ServerMsg::Reject)
    raise(ErrorCode::InvalidUsage, "PE %d was refused by the rendezvous server at %s: %s", rank, where_.c_str(),
          reply.text.c_str());
  raise(ErrorCode::Remote, "PE %d: the rendezvous server at %s answered Hello with %s, expected a Welcome (is "
        "the unique ID or TILECOMM_UNIQUEID the address of a tilecomm rendezvous of this version?)", rank,
        where_.c_str(), describe(h).c_str());
}

Client::~Client() {
  finalizing_ = true;
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  if (watcher_.joinable()) watcher_.join();
  if (fd_ >= 0) ::close(fd_);
}

Client::Group Client::gather(std::string_view key, const void* mine, std::size_t len, std::uint32_t want,
                             double timeout_s) {
  {
    const std::string body = gather_body(key, want, mine, len);
    std::lock_guard<std::mutex> lock(send_mutex_);
    if (!send_msg(fd_, Msg::Allgather, body.data(), body.size()))
      raise(ErrorCode::Transport, "PE %d lost the rendezvous server at %s", rank_, where_.c_str());
  }
  double deadline = detail::now_seconds() + timeout_s;
  for (;;) {
    MsgHeader h{};
    std::vector<char> body;
    int ms = static_cast<int>((deadline - detail::now_seconds()) * 1000);
    int r = recv_msg(fd_, h, body, ms > 0 ? ms : 0);
    if (r == 0)
      raise(ErrorCode::Timeout, "PE %d waited %g s at shmem_init for the other PEs of a %d-PE job to join at %s "
            "(TILECOMM_BOOTSTRAP_TIMEOUT); did every PE start?", rank_, timeout_s, size_, where_.c_str());
    if (r < 0) raise(ErrorCode::Remote, "PE %d lost the rendezvous server at %s during init (its host died: "
                     "tcrun, the process that made the unique ID, or PE 0 of a job mpirun or srun started)", rank_, where_.c_str());
    ServerMsg m = decode_server_msg(h, body, GatherShape{len, want, size_});
    switch (m.kind) {
      case ServerMsg::AllgatherResult:
        return Group{m.group.members, m.group.first_other, std::vector<int>(m.pes.begin(), m.pes.end()),
                     std::vector<char>(m.text.begin(), m.text.end()), std::move(m.runs)};
      case ServerMsg::Abort:
        raise(ErrorCode::Remote, "the job was aborted during init: %s", m.text.c_str());
      case ServerMsg::GlobalExit:
        fflush(stdout);
        _exit(m.status);
      case ServerMsg::Invalid:
        raise(ErrorCode::Remote, "PE %d got %s from the rendezvous server at %s during a bootstrap allgather", rank_,
              m.text.c_str(), where_.c_str());
      default:
        break;
    }
  }
}

void Client::publish(const std::string& card) {
  std::lock_guard<std::mutex> lock(send_mutex_);
  if (!send_msg(fd_, Msg::Publish, card.data(), card.size()))
    raise(ErrorCode::Transport, "PE %d lost the rendezvous server at %s", rank_, where_.c_str());
}

std::string Client::lookup(int pe, double timeout_s) {
  if (!watcher_.joinable())
    raise(ErrorCode::InvalidUsage, "PE %d looked up PE %d's card before init finished", rank_, pe);
  const std::int32_t who = pe;
  {
    std::lock_guard<std::mutex> lock(send_mutex_);
    if (!send_msg(fd_, Msg::Lookup, &who, sizeof who))
      raise(ErrorCode::Remote, "PE %d lost the rendezvous server at %s while looking up PE %d's card", rank_,
            where_.c_str(), pe);
  }
  const double deadline = detail::now_seconds() + timeout_s;
  std::string card;
  bool late = false;
  WaitStatus st = wait_for([&] {
    std::lock_guard<std::mutex> lock(answers_mutex_);
    auto it = answers_.find(pe);
    if (it == answers_.end()) return late = detail::now_seconds() > deadline;
    card = std::move(it->second);
    answers_.erase(it);
    return true;
  });
  if (st == WaitStatus::PeerFailed)
    raise(ErrorCode::Remote, "the job failed while PE %d looked up PE %d's card: %s", rank_, pe,
          job_failure().c_str());
  if (st == WaitStatus::TimedOut || late)
    raise(ErrorCode::Timeout, "PE %d: the rendezvous server at %s did not answer a lookup of PE %d's card within "
          "%g s (TILECOMM_BOOTSTRAP_TIMEOUT)", rank_, where_.c_str(), pe, timeout_s);
  return card;
}

void Client::start_watcher(double abort_grace_s) {
  watcher_ = std::thread([this, abort_grace_s] { watch(abort_grace_s); });
}

void Client::watch(double grace) {
  for (;;) {
    MsgHeader h{};
    std::vector<char> body;
    int r = recv_msg(fd_, h, body, -1);
    if (finalizing_) return;
    if (r < 0)
      return on_abort(strprintf("lost the connection to the rendezvous server at %s (its host died: "
                                "tcrun, the process that made the unique ID, or PE 0 of a job mpirun or srun started)", where_.c_str()), grace);
    ServerMsg m = decode_server_msg(h, body);
    switch (m.kind) {
      case ServerMsg::Abort: return on_abort(m.text, grace);
      case ServerMsg::LookupResult: {
        std::lock_guard<std::mutex> lock(answers_mutex_);
        answers_[m.pe] = std::move(m.text);
        break;
      }
      case ServerMsg::GlobalExit:
        if (m.pe != rank_) TC_LOG(Info, "bootstrap", "PE %d called shmem_global_exit(%d); exiting", m.pe, m.status);
        fflush(stdout);
        fflush(stderr);
        _exit(m.status);
      default: break;
    }
  }
}

void Client::on_abort(const std::string& reason, double grace) {
  set_job_failed(reason);
  if (finalizing_) return;  // this PE is in shmem_finalize and leaving anyway
  // Waits inside tilecomm see the failure and end the process with a message
  // naming the call. A PE busy elsewhere is ended here after the grace time.
  usleep(static_cast<useconds_t>(grace * 1e6));
  fatal("the job failed and this PE did not stop within %g s: %s", grace, reason.c_str());
}

void Client::finalize() {
  // Before Finalize goes out: once the server has every Finalize it may close
  // the connection, and the watcher must take that EOF as the clean end.
  finalizing_ = true;
  {
    std::lock_guard<std::mutex> lock(send_mutex_);
    send_msg(fd_, Msg::Finalize, nullptr, 0);
  }
  ::shutdown(fd_, SHUT_RD);
  if (watcher_.joinable()) watcher_.join();
}

void Client::global_exit(int status) {
  std::int32_t st = status;
  {
    std::lock_guard<std::mutex> lock(send_mutex_);
    send_msg(fd_, Msg::GlobalExit, &st, sizeof st);
  }
  // The watcher exits when the server echoes the request to every PE; if the
  // server is gone, exit anyway after a moment.
  for (int i = 0; i < 200; ++i) usleep(10000);
  fflush(stdout);
  _exit(status);
}

}  // namespace tilecomm::bootstrap
