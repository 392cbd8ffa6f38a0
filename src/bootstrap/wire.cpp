#include "bootstrap/wire.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace tilecomm::bootstrap {

std::string Rendezvous::to_string() const {
  char ip[INET_ADDRSTRLEN] = {};
  in_addr a{addr};
  inet_ntop(AF_INET, &a, ip, sizeof ip);
  std::string s = strprintf("tcp://%s:%u/", ip, port);
  for (auto b : cookie) s += strprintf("%02x", b);
  return s;
}

Rendezvous Rendezvous::parse(const std::string& text, const char* what) {
  Rendezvous r;
  char ip[64] = {};
  unsigned port = 0;
  char hex[2 * kCookieBytes + 1] = {};
  int consumed = 0;
  if (sscanf(text.c_str(), "tcp://%63[0-9.]:%u/%32[0-9a-f]%n", ip, &port, hex, &consumed) != 3 ||
      consumed != static_cast<int>(text.size()) || strlen(hex) != 2 * kCookieBytes || port == 0 ||
      port > 65535) {
    raise(ErrorCode::InvalidUsage, "%s '%s' is not a tilecomm rendezvous (tcp://IPv4:port/32-hex-digit cookie)",
          what, text.c_str());
  }
  in_addr a{};
  if (inet_pton(AF_INET, ip, &a) != 1)
    raise(ErrorCode::InvalidUsage, "%s '%s': '%s' is not an IPv4 address", what, text.c_str(), ip);
  r.addr = a.s_addr;
  r.port = static_cast<std::uint16_t>(port);
  for (std::size_t i = 0; i < kCookieBytes; ++i) {
    unsigned v = 0;
    sscanf(hex + 2 * i, "%2x", &v);
    r.cookie[i] = static_cast<std::uint8_t>(v);
  }
  return r;
}

Rendezvous Rendezvous::with_random_cookie(std::uint32_t addr, std::uint16_t port) {
  Rendezvous r;
  r.addr = addr;
  r.port = port;
  std::size_t got = 0;
  while (got < kCookieBytes) {
    ssize_t n = getrandom(r.cookie + got, kCookieBytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) raise(ErrorCode::System, "getrandom for the job cookie failed: %s", errno_text(errno).c_str());
    got += static_cast<std::size_t>(n);
  }
  return r;
}

namespace {
bool write_all(int fd, const void* p, std::size_t n) {
  auto* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Reads exactly n bytes, polling with the remaining time. 1 ok, 0 timeout, -1 EOF/error.
int read_all(int fd, void* p, std::size_t n, int timeout_ms) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return 0;
    ssize_t got = ::recv(fd, c, n, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return -1;
    c += got;
    n -= static_cast<std::size_t>(got);
  }
  return 1;
}
}  // namespace

bool send_msg(int fd, Msg type, const void* payload, std::size_t len) {
  MsgHeader h{static_cast<std::uint32_t>(type), static_cast<std::uint32_t>(len)};
  // Header and payload in one buffer: one send, so messages written by two
  // threads under the caller's lock never interleave and small ones go out whole.
  std::vector<char> buf(reinterpret_cast<const char*>(&h), reinterpret_cast<const char*>(&h) + sizeof h);
  if (len) buf.insert(buf.end(), static_cast<const char*>(payload), static_cast<const char*>(payload) + len);
  return write_all(fd, buf.data(), buf.size());
}

int recv_msg(int fd, MsgHeader& hdr, std::vector<char>& payload, int timeout_ms) {
  int r = read_all(fd, &hdr, sizeof hdr, timeout_ms);
  if (r <= 0) return r;
  if (hdr.len > kMaxPayload) {
    errno = EPROTO;
    return -1;
  }
  payload.resize(hdr.len);
  // Once a header has arrived the rest follows at once; a peer that stalls
  // mid-message for 10 s is treated as broken.
  if (hdr.len && read_all(fd, payload.data(), hdr.len, 10000) != 1) return -1;
  return 1;
}

}  // namespace tilecomm::bootstrap
