// See stranger.hpp. The message layout comes from the library's own wire
// header, so that a "wrong cookie" Hello differs from a real one in the
// cookie only.
#include "stranger.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/wire.hpp"

namespace wire = tilecomm::bootstrap;

namespace {

struct Where {
  std::string ip;
  unsigned port = 0;
  std::string cookie_hex;
};

bool parse(const char* text, Where& w) {
  char ip[64] = {}, hex[65] = {};
  unsigned port = 0;
  int used = 0;
  if (!text || sscanf(text, "tcp://%63[0-9.]:%u/%64[0-9a-f]%n", ip, &port, hex, &used) != 3) return false;
  if (static_cast<size_t>(used) != strlen(text) || strlen(hex) != 2 * wire::kCookieBytes) return false;
  w.ip = ip;
  w.port = port;
  w.cookie_hex = hex;
  return true;
}

void say(char* why, size_t len, const char* fmt, ...) {
  if (!why || !len) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
}

bool send_all(int fd, const void* p, size_t n) {
  auto* c = static_cast<const char*>(p);
  while (n) {
    ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

extern "C" int tc_tamper_cookie(const char* uid_text, char* out, size_t out_len) {
  Where w;
  if (!parse(uid_text, w) || strlen(uid_text) + 1 > out_len) return 1;
  strcpy(out, uid_text);
  char* c = out + strlen(out) - 2 * wire::kCookieBytes;  // first hex digit of the cookie
  *c = *c == '0' ? '1' : '0';
  return 0;
}

extern "C" int tc_stranger(const char* uid_text, const char* mode, char* why, size_t why_len) {
  Where w;
  if (!parse(uid_text, w)) {
    say(why, why_len, "'%s' is not a rendezvous text", uid_text ? uid_text : "(null)");
    return 1;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(w.port));
  inet_pton(AF_INET, w.ip.c_str(), &sa.sin_addr);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    say(why, why_len, "cannot connect to %s:%u: %s", w.ip.c_str(), w.port, strerror(errno));
    if (fd >= 0) ::close(fd);
    return 1;
  }
  std::string m = mode;
  std::vector<char> msg;
  auto add = [&msg](const void* p, size_t n) {
    msg.insert(msg.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
  };
  if (m == "wrong-cookie" || m == "wrong-size") {
    wire::HelloBody hello{};
    for (size_t i = 0; i < wire::kCookieBytes; ++i) {
      unsigned v = 0;
      sscanf(w.cookie_hex.c_str() + 2 * i, "%2x", &v);
      hello.cookie[i] = static_cast<uint8_t>(v);
    }
    if (m == "wrong-cookie") hello.cookie[0] ^= 0x5a;  // the job's cookie, but for one byte
    hello.rank = 0;
    hello.size = m == "wrong-cookie" ? 1 : 1000;
    hello.pid = static_cast<int32_t>(getpid());
    snprintf(hello.host, sizeof hello.host, "stranger");
    wire::MsgHeader h{static_cast<uint32_t>(wire::Msg::Hello), static_cast<uint32_t>(sizeof hello)};
    add(&h, sizeof h);
    add(&hello, sizeof hello);
  } else if (m == "garbage") {
    const char http[] = "GET / HTTP/1.0\r\nHost: tilecomm\r\n\r\n";
    add(http, sizeof http - 1);
  } else if (m == "not-hello") {
    std::int32_t blob = 12345;
    wire::MsgHeader h{static_cast<uint32_t>(wire::Msg::Allgather), static_cast<uint32_t>(sizeof blob)};
    add(&h, sizeof h);
    add(&blob, sizeof blob);
  } else if (m == "close") {
    ::close(fd);
    say(why, why_len, "connected and closed at once");
    return 0;
  } else {
    ::close(fd);
    say(why, why_len, "unknown stranger mode '%s'", mode);
    return 1;
  }
  if (!send_all(fd, msg.data(), msg.size())) {
    // The server may drop us before the whole message is out: that is a drop too.
    ::close(fd);
    say(why, why_len, "%s: the server closed the connection while the stranger was sending", mode);
    return 0;
  }
  // Wait for the server to close the connection (read returns 0 or an error).
  for (int waited_ms = 0; waited_ms < 30000;) {
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, 100);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      waited_ms += 100;
      continue;
    }
    char buf[256];
    ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got > 0) continue;  // the server may answer before it closes; read on
    ::close(fd);
    say(why, why_len, "%s: the server closed the connection", mode);
    return 0;
  }
  ::close(fd);
  say(why, why_len, "%s: the server kept the connection open for 30 s", mode);
  return 1;
}
