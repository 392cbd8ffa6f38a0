#include "bootstrap/wire.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "core/error.hpp"

namespace tilecomm::bootstrap {

const char* msg_name(std::uint32_t type) {
  static const char* const kNames[] = {"Hello", "Welcome", "Reject", "Allgather",
                                       "AllgatherResult", "Finalize", "Abort", "GlobalExit",
                                       "Publish", "Lookup", "LookupResult"};
  return type >= 1 && type <= std::size(kNames) ? kNames[type - 1] : "unknown";
}

std::string describe(const MsgHeader& hdr) {
  return strprintf("a message of type %u (%s) with %u payload bytes", hdr.type, msg_name(hdr.type), hdr.len);
}

std::string Rendezvous::to_string() const {
  char ip[INET_ADDRSTRLEN] = {};
  in_addr a{addr};
  inet_ntop(AF_INET, &a, ip, sizeof ip);
  std::string s = strprintf("tcp://%s:%u/", ip, port);
  for (auto b : cookie) s += strprintf("%02x", b);
  return s;
}

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

Rendezvous Rendezvous::parse(const std::string& text, const char* what) {
  auto bad = [&](const char* problem) {
    raise(ErrorCode::InvalidUsage, "%s '%s' is not a tilecomm rendezvous (tcp://IPv4:port/32-hex-digit cookie): %s",
          what, text.c_str(), problem);
  };
  const std::string scheme = "tcp://";
  if (text.compare(0, scheme.size(), scheme) != 0) bad("it does not start with tcp://");
  std::size_t colon = text.find(':', scheme.size());
  std::size_t slash = colon == std::string::npos ? colon : text.find('/', colon);
  if (slash == std::string::npos) bad("no ':port/' after the address");
  std::string ip = text.substr(scheme.size(), colon - scheme.size());
  std::string port = text.substr(colon + 1, slash - colon - 1);
  std::string hex = text.substr(slash + 1);
  Rendezvous r;
  in_addr a{};
  if (ip.size() >= INET_ADDRSTRLEN || ip.find('\0') != std::string::npos || inet_pton(AF_INET, ip.c_str(), &a) != 1)
    bad("the address is not dotted IPv4");
  if (port.empty() || port.size() > 5 || port[0] == '0' || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535)
    bad("the port is not a number from 1 to 65535");
  if (hex.size() != 2 * kCookieBytes) bad("the cookie is not 32 hex digits");
  for (std::size_t i = 0; i < kCookieBytes; ++i) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) bad("the cookie is not 32 lowercase hex digits");
    r.cookie[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  r.addr = a.s_addr;
  r.port = static_cast<std::uint16_t>(std::stoul(port));
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

bool cookie_equal(const std::uint8_t* a, const std::uint8_t* b) {
  volatile std::uint8_t diff = 0;
  for (std::size_t i = 0; i < kCookieBytes; ++i) diff = diff | (a[i] ^ b[i]);
  return diff == 0;
}

void FrameReader::append(const char* p, std::size_t n) {
  if (start_ > 0 && start_ == buf_.size()) {
    buf_.clear();
    start_ = 0;
  }
  buf_.insert(buf_.end(), p, p + n);
}

int FrameReader::next(MsgHeader& hdr, std::vector<char>& body, std::uint32_t max_len) {
  if (buffered() < sizeof hdr) return 0;
  memcpy(&hdr, buf_.data() + start_, sizeof hdr);
  if (hdr.len > max_len) return -1;
  if (buffered() < sizeof hdr + hdr.len) return 0;
  const char* p = buf_.data() + start_ + sizeof hdr;
  body.assign(p, p + hdr.len);
  start_ += sizeof hdr + hdr.len;
  // Keep the buffer from growing: drop what was handed out once it dominates.
  if (start_ > 65536 && start_ * 2 > buf_.size()) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<long>(start_));
    start_ = 0;
  }
  return 1;
}

std::string encode(Msg type, const void* payload, std::size_t len) {
  MsgHeader h{static_cast<std::uint32_t>(type), static_cast<std::uint32_t>(len)};
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  if (len) out.append(static_cast<const char*>(payload), len);
  return out;
}

std::string gather_body(std::string_view key, std::uint32_t want, const void* blob, std::size_t len) {
  GatherHead head{static_cast<std::uint32_t>(key.size()), want};
  std::string out(reinterpret_cast<const char*>(&head), sizeof head);
  out.append(key);
  if (len) out.append(static_cast<const char*>(blob), len);
  return out;
}

std::optional<GatherRequest> decode_gather(const std::vector<char>& body) {
  GatherHead head;
  if (body.size() < sizeof head) return std::nullopt;
  memcpy(&head, body.data(), sizeof head);
  if (head.key_len > kMaxGatherKey || head.want > (kGatherList | kGatherMap) || body.size() - sizeof head < head.key_len)
    return std::nullopt;
  GatherRequest r;
  r.want = head.want;
  auto key = body.begin() + sizeof head;
  r.key.assign(key, key + head.key_len);
  r.blob.assign(key + head.key_len, body.end());
  return r;
}

std::optional<HelloBody> decode_hello(const std::vector<char>& body) {
  if (body.size() != sizeof(HelloBody)) return std::nullopt;
  HelloBody hello;
  memcpy(&hello, body.data(), sizeof hello);
  hello.host[sizeof hello.host - 1] = '\0';
  return hello;
}

std::optional<std::int32_t> decode_int32(const std::vector<char>& body) {
  if (body.size() != sizeof(std::int32_t)) return std::nullopt;
  std::int32_t status;
  memcpy(&status, body.data(), sizeof status);
  return status;
}

ServerMsg decode_server_msg(const MsgHeader& hdr, const std::vector<char>& body, const GatherShape& gather) {
  ServerMsg m;
  switch (static_cast<Msg>(hdr.type)) {
    case Msg::Welcome:
      if (!body.empty()) break;
      m.kind = ServerMsg::Welcome;
      return m;
    case Msg::Reject:
    case Msg::Abort:
      m.kind = static_cast<Msg>(hdr.type) == Msg::Reject ? ServerMsg::Reject : ServerMsg::Abort;
      m.text.assign(body.begin(), std::find(body.begin(), body.end(), '\0'));
      return m;
    case Msg::AllgatherResult: {
      GatherResultHead g{};
      if (body.size() >= sizeof g) memcpy(&g, body.data(), sizeof g);
      const bool list = gather.want & kGatherList, map = gather.want & kGatherMap;
      const bool head_ok = body.size() >= sizeof g && g.members >= 1 && g.members <= gather.size &&
                           g.first_other >= -1 && g.first_other < gather.size && g.want == gather.want &&
                           g.blob == gather.blob;
      const std::size_t members = head_ok ? static_cast<std::size_t>(g.members) : 0;
      const std::size_t listed = sizeof g + (list ? members * (sizeof(std::int32_t) + gather.blob) : 0);
      std::int32_t runs = 0;
      if (map && body.size() >= listed + sizeof runs) memcpy(&runs, body.data() + listed, sizeof runs);
      const bool runs_ok = !map || (body.size() >= listed + sizeof runs && runs >= 1 && runs <= gather.size);
      const std::size_t expected = listed + (map ? sizeof runs + (runs_ok ? runs : 0) * sizeof(GatherRun) : 0);
      if (!head_ok || !runs_ok || body.size() != expected) {
        m.text = strprintf("an AllgatherResult of %zu bytes for a group of %d PEs (first outside: %d) in a job of %d, "
                           "answering %u-byte blobs asking for %u, when this PE gave %zu-byte blobs asking for %u "
                           "(GatherWant)", body.size(), g.members, g.first_other, gather.size, g.blob, g.want,
                           gather.blob, gather.want);
        return m;
      }
      m.group = g;
      if (list) {
        m.pes.resize(members);
        memcpy(m.pes.data(), body.data() + sizeof g, members * sizeof(std::int32_t));
        for (std::size_t i = 0; i < members; ++i)
          if (m.pes[i] < 0 || m.pes[i] >= gather.size || (i && m.pes[i] <= m.pes[i - 1])) {
            m.text = strprintf("an AllgatherResult whose PE list is not ascending PEs of the %d (entry %zu: %d)",
                               gather.size, i, m.pes[i]);
            m.pes.clear();
            return m;
          }
        m.text.assign(body.begin() + sizeof g + members * sizeof(std::int32_t), body.begin() + listed);
      }
      if (map) {
        m.runs.resize(runs);
        memcpy(m.runs.data(), body.data() + listed + sizeof runs, runs * sizeof(GatherRun));
        // Runs cover the job in order; a group is named by its first PE, so
        // it is a PE of a run that starts no later than this one.
        for (std::int32_t i = 0; i < runs; ++i) {
          const GatherRun& r = m.runs[i];
          const bool ok = (i == 0 ? r.start == 0 : r.start > m.runs[i - 1].start) && r.start < gather.size &&
                          r.group >= 0 && r.group <= r.start && (i == 0 || r.group != m.runs[i - 1].group);
          if (!ok) {
            m.text = strprintf("an AllgatherResult whose map of %d runs is not runs of the %d PEs in order, each "
                               "naming a PE no later than its start (run %d: start %d, group %d)",
                               runs, gather.size, i, r.start, r.group);
            m.runs.clear();
            return m;
          }
        }
      }
      m.kind = ServerMsg::AllgatherResult;
      return m;
    }
    case Msg::GlobalExit: {
      std::int32_t st[2];
      if (body.size() != sizeof st) break;
      memcpy(st, body.data(), sizeof st);
      m.kind = ServerMsg::GlobalExit;
      m.status = st[0];
      m.pe = st[1];
      return m;
    }
    case Msg::LookupResult:
      if (body.size() < sizeof m.pe) break;
      memcpy(&m.pe, body.data(), sizeof m.pe);
      m.text.assign(body.begin() + sizeof m.pe, body.end());
      m.kind = ServerMsg::LookupResult;
      return m;
    default:
      break;
  }
  m.text = describe(hdr);
  return m;
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
  // Header and payload in one buffer: one send, so messages written by two
  // threads under the caller's lock never interleave and small ones go out whole.
  std::string buf = encode(type, payload, len);
  return write_all(fd, buf.data(), buf.size());
}

int recv_msg(int fd, MsgHeader& hdr, std::vector<char>& payload, int timeout_ms, std::uint32_t max_len) {
  int r = read_all(fd, &hdr, sizeof hdr, timeout_ms);
  if (r <= 0) return r;
  if (hdr.len > max_len) {
    errno = EPROTO;
    return -1;
  }
  // Once a header has arrived the rest follows at once; a peer that stalls
  // mid-message for 10 s is treated as broken. The buffer grows with what
  // arrives, not with what the header announces.
  payload.clear();
  while (payload.size() < hdr.len) {
    std::size_t at = payload.size(), step = std::min<std::size_t>(hdr.len - at, 1u << 20);
    payload.resize(at + step);
    if (read_all(fd, payload.data() + at, step, 10000) != 1) return -1;
  }
  return 1;
}

}  // namespace tilecomm::bootstrap
