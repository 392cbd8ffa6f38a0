// The rendezvous wire protocol between PEs and the bootstrap server.
//
// Every message is a MsgHeader followed by `len` payload bytes, on a TCP
// stream. A PE's first message must be Hello carrying the job's 128-bit
// cookie; the server drops a connection that presents anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tilecomm::bootstrap {

enum class Msg : std::uint32_t {
  Hello = 1,        // PE -> server: HelloBody
  Welcome,          // server -> PE: empty
  Reject,           // server -> PE: text; the server closes the connection
  Allgather,        // PE -> server: this PE's blob (equal sizes on every PE)
  AllgatherResult,  // server -> PE: the n blobs, in PE order
  Finalize,         // PE -> server: this PE finalized; its disconnect is clean
  Abort,            // server -> PE: text naming the failed PE
  GlobalExit,       // PE -> server: int32 status; server -> PE: int32 status, int32 pe
};

constexpr std::uint32_t kMaxPayload = 64u << 20;
constexpr std::size_t kCookieBytes = 16;

struct MsgHeader {
  std::uint32_t type;
  std::uint32_t len;
};

struct HelloBody {
  std::uint8_t cookie[kCookieBytes];
  std::int32_t rank;
  std::int32_t size;
  std::int32_t pid;
  char host[64];
};

/// Where and how to meet: an IPv4 address, a port and the cookie.
struct Rendezvous {
  std::uint32_t addr = 0;  // network byte order
  std::uint16_t port = 0;  // host byte order
  std::uint8_t cookie[kCookieBytes] = {};

  /// "tcp://127.0.0.1:4555/<32 hex digits>"
  std::string to_string() const;
  /// Parses to_string()'s form; throws InvalidUsage naming `what` on anything else.
  static Rendezvous parse(const std::string& text, const char* what);
  static Rendezvous with_random_cookie(std::uint32_t addr, std::uint16_t port);
};

/// Blocking helpers over a socket; false on EOF or error (errno kept).
bool send_msg(int fd, Msg type, const void* payload, std::size_t len);
/// Reads one whole message; waits at most timeout_ms (-1 = forever).
/// Returns 1 on a message, 0 on timeout, -1 on EOF or error.
int recv_msg(int fd, MsgHeader& hdr, std::vector<char>& payload, int timeout_ms);

}  // namespace tilecomm::bootstrap
