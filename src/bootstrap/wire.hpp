// The rendezvous wire protocol between PEs and the bootstrap server.
//
// Every message is a MsgHeader followed by `len` payload bytes, on a TCP
// stream. A PE's first message must be Hello carrying the job's 128-bit
// cookie; the server drops a connection that presents anything else.
//
// Everything that turns bytes from another process into values is here, in
// pure functions (FrameReader, decode_*, Rendezvous::parse), so that the
// server, the client and the fuzz targets in tests/fuzz/ share one decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilecomm::bootstrap {

enum class Msg : std::uint32_t {
  Hello = 1,        // PE -> server: HelloBody
  Welcome,          // server -> PE: empty
  Reject,           // server -> PE: text; the server closes the connection
  Allgather,        // PE -> server: GatherHead, key, blob (NOTE [keyed gathers])
  AllgatherResult,  // server -> PE: GatherResultHead, then (when listed) its group's PEs and blobs
  Finalize,         // PE -> server: this PE finalized; its disconnect is clean
  Abort,            // server -> PE: text naming the failed PE
  GlobalExit,       // PE -> server: int32 status; server -> PE: int32 status, int32 pe
  Publish,          // PE -> server: this PE's card (once, during init: NOTE [ucx cards])
  Lookup,           // PE -> server: int32 pe, whose card this PE needs
  LookupResult,     // server -> PE: int32 pe, then its card (empty: it published none)
};

/// "Hello", "Abort"... or "unknown" for a type outside the protocol.
const char* msg_name(std::uint32_t type);

constexpr std::uint32_t kMaxPayload = 64u << 20;  // also bounds an allgather result (n * (4 + blob))
constexpr std::uint32_t kMaxCard = 16u << 10;     // a published card (a UCX card is about 240 bytes)
constexpr std::int32_t kMaxPes = 1 << 16;         // bounds the job size a Hello or a launcher may give
constexpr std::size_t kCookieBytes = 16;

struct MsgHeader {
  std::uint32_t type;
  std::uint32_t len;
};

/// "a message of type 5 (AllgatherResult) with 3 payload bytes", for errors.
std::string describe(const MsgHeader& hdr);

struct HelloBody {
  std::uint8_t cookie[kCookieBytes];
  std::int32_t rank;
  std::int32_t size;
  std::int32_t pid;
  char host[64];
};

// NOTE [keyed gathers] An Allgather names a key, and the PEs that give the
// same key in a round form a group: each PE learns how many PEs its group
// has and the smallest PE outside it (-1: none), and, when it asks for the
// list, its group's PE numbers and blobs in PE order. Init gathers its
// records by host key, so a PE receives its host's records and no other
// (nothing per PE of the job: docs/ARCHITECTURE.md, "Starting a job"), and
// checks that every PE agrees on a setting by giving the setting as the key
// without a list: agreement is a group of every PE. A PE may also ask for
// the map of every group: the job's PEs as runs of consecutive PEs of one
// group, each run naming its group by the group's first PE. Init asks for
// it with the host keys, so each PE knows every PE's host in as many runs
// as the PE order changes host (one per host when PEs are placed host by
// host), and teams learn their hosts from it without a word exchanged.
// Every PE of a round gives a blob of the same size and the same choices.
enum GatherWant : std::uint32_t {
  kGatherCount = 0,  // my group's size and the first PE outside it
  kGatherList = 1,   // and my group's PEs and blobs
  kGatherMap = 2,    // and the runs of every group (with or without the list)
};
struct GatherHead {
  std::uint32_t key_len;
  std::uint32_t want;  // GatherWant bits
};
struct GatherResultHead {
  std::int32_t members;      // PEs in my group, me included
  std::int32_t first_other;  // the smallest PE outside my group, or -1
  std::uint32_t want;        // what the round asked for (GatherWant bits)
  std::uint32_t blob;        // the round's blob size
};
// A map follows the list as an int32 count of runs, then the runs.
struct GatherRun {
  std::int32_t start;  // its first PE; the first run starts at PE 0, each later one after the last
  std::int32_t group;  // the first PE of the group its PEs are in
};
constexpr std::uint32_t kMaxGatherKey = 256;

/// The body of an Allgather; `want` is GatherWant bits.
std::string gather_body(std::string_view key, std::uint32_t want, const void* blob, std::size_t len);
struct GatherRequest {
  std::string key;
  std::uint32_t want = kGatherCount;
  std::vector<char> blob;
};
/// An Allgather body: its key at most kMaxGatherKey bytes, `want` GatherWant bits.
std::optional<GatherRequest> decode_gather(const std::vector<char>& body);

/// Where and how to meet: an IPv4 address, a port and the cookie.
struct Rendezvous {
  std::uint32_t addr = 0;  // network byte order
  std::uint16_t port = 0;  // host byte order
  std::uint8_t cookie[kCookieBytes] = {};

  /// "tcp://127.0.0.1:4555/<32 hex digits>"
  std::string to_string() const;
  /// Parses exactly to_string()'s form (dotted IPv4, a port 1-65535 without
  /// sign, spaces or leading zeros, 32 lowercase hex digits); throws
  /// InvalidUsage naming `what` on anything else.
  static Rendezvous parse(const std::string& text, const char* what);
  static Rendezvous with_random_cookie(std::uint32_t addr, std::uint16_t port);
};

/// Compares two cookies in time independent of where they differ.
bool cookie_equal(const std::uint8_t* a, const std::uint8_t* b);

/// Splits a byte stream into messages without blocking: append() what the
/// socket gave, then next() until it returns 0.
class FrameReader {
 public:
  void append(const char* p, std::size_t n);
  /// 1: a whole message is in hdr/body; 0: more bytes are needed; -1: the
  /// header announces more than max_len payload bytes (nothing is allocated).
  int next(MsgHeader& hdr, std::vector<char>& body, std::uint32_t max_len);
  std::size_t buffered() const { return buf_.size() - start_; }

 private:
  std::vector<char> buf_;
  std::size_t start_ = 0;  // bytes of buf_ already handed out
};

/// Header and payload as one byte string, ready to send.
std::string encode(Msg type, const void* payload, std::size_t len);

/// A Hello body of exactly the right size, its host name NUL-terminated.
std::optional<HelloBody> decode_hello(const std::vector<char>& body);
/// GlobalExit from a PE: one int32 status; Lookup from a PE: one int32 PE.
std::optional<std::int32_t> decode_int32(const std::vector<char>& body);

/// A message from the server as the client reads it, checked.
struct ServerMsg {
  enum Kind { Welcome, Reject, AllgatherResult, Abort, GlobalExit, LookupResult, Invalid } kind = Invalid;
  std::string text;        // Reject, Abort: the reason; LookupResult: the card; AllgatherResult: the blobs;
                           // Invalid: what was wrong
  std::int32_t status = 1;  // GlobalExit
  std::int32_t pe = -1;     // GlobalExit: who called it; LookupResult: whose card
  GatherResultHead group{};         // AllgatherResult
  std::vector<std::int32_t> pes;    // AllgatherResult, listed: the group's PEs, ascending
  std::vector<GatherRun> runs;      // AllgatherResult, mapped: every group's runs
};
/// What the client asked of an Allgather, to check its result against.
struct GatherShape {
  std::size_t blob = 0;
  std::uint32_t want = kGatherCount;
  int size = 0;  // PEs in the job
};
ServerMsg decode_server_msg(const MsgHeader& hdr, const std::vector<char>& body, const GatherShape& gather = {});

/// Blocking helpers over a socket; false on EOF or error (errno kept).
bool send_msg(int fd, Msg type, const void* payload, std::size_t len);
/// Reads one whole message of at most max_len payload bytes; waits at most
/// timeout_ms (-1 = forever). Returns 1 on a message, 0 on timeout, -1 on EOF
/// or error (EPROTO: longer than max_len).
int recv_msg(int fd, MsgHeader& hdr, std::vector<char>& payload, int timeout_ms,
             std::uint32_t max_len = kMaxPayload);

}  // namespace tilecomm::bootstrap
