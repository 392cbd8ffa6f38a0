// A PE's side of the wire: what the client (src/bootstrap/client.cpp) makes
// of bytes from the server. They go through a socket into recv_msg, the
// client's reader, and every message through decode_server_msg.
//
// Input: two bytes, the blob size of the allgather the client made (low 15
// bits, little endian) and whether it asked for a list (bit 15), one byte,
// the job size (0 counts as 1), then the server's bytes. Invariants:
// recv_msg and the server's FrameReader split the stream into the same
// messages, and a message that decodes as valid has the length its type
// requires.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bootstrap/wire.hpp"
#include "fuzz_common.hpp"

using namespace tilecomm;
using namespace tilecomm::bootstrap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static bool once = (fuzz::silence_logs(), true);
  (void)once;
  if (size < 3) return 0;
  const unsigned shape_bits = data[0] | data[1] << 8;  // blob size in the low 14 bits, GatherWant in the top 2
  const GatherShape shape{shape_bits & 0x3fff, shape_bits >> 14, data[2] ? data[2] : 1};
  const char* bytes = reinterpret_cast<const char*>(data + 3);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 0;
  ssize_t sent = send(sv[0], bytes, size - 3, MSG_DONTWAIT | MSG_NOSIGNAL);
  ::close(sv[0]);  // the server is gone after these bytes: recv_msg sees EOF, never waits
  FrameReader reader;
  if (sent > 0) reader.append(bytes, static_cast<std::size_t>(sent));
  MsgHeader h{}, fh{};
  std::vector<char> body, fbody;
  while (recv_msg(sv[1], h, body, 0) == 1) {
    FUZZ_CHECK(reader.next(fh, fbody, kMaxPayload) == 1 && fh.type == h.type && fbody == body,
               "recv_msg read a message of type %u, %zu bytes that FrameReader does not", h.type, body.size());
    ServerMsg m = decode_server_msg(h, body, shape);
    switch (m.kind) {
      case ServerMsg::Welcome: FUZZ_CHECK(body.empty(), "Welcome with %zu bytes", body.size()); break;
      case ServerMsg::AllgatherResult: {
        const std::size_t members = static_cast<std::size_t>(m.group.members);
        const bool list = shape.want & kGatherList, map = shape.want & kGatherMap;
        FUZZ_CHECK(m.group.members >= 1 && m.group.members <= shape.size &&
                       body.size() == sizeof(GatherResultHead) + (list ? members * (4 + shape.blob) : 0) +
                                          (map ? 4 + m.runs.size() * sizeof(GatherRun) : 0) &&
                       m.pes.size() == (list ? members : 0) && m.text.size() == (list ? members * shape.blob : 0) &&
                       (map ? !m.runs.empty() && m.runs.size() <= static_cast<std::size_t>(shape.size) : m.runs.empty()),
                   "a result of %zu bytes for %d PEs", body.size(), m.group.members);
        for (std::size_t k = 1; k < m.pes.size(); ++k) FUZZ_CHECK(m.pes[k - 1] < m.pes[k], "PEs not ascending");
        for (std::size_t k = 0; k < m.runs.size(); ++k)
          FUZZ_CHECK(m.runs[k].start < shape.size && m.runs[k].group <= m.runs[k].start &&
                         (k ? m.runs[k - 1].start < m.runs[k].start : m.runs[k].start == 0),
                     "run %zu (start %d, group %d) is not a run of the job in order", k, m.runs[k].start, m.runs[k].group);
        break;
      }
      case ServerMsg::GlobalExit: FUZZ_CHECK(body.size() == 8, "GlobalExit of %zu bytes", body.size()); break;
      case ServerMsg::LookupResult:
        FUZZ_CHECK(body.size() >= 4 && m.text.size() == body.size() - 4, "a card of %zu bytes in %zu", m.text.size(),
                   body.size());
        break;
      case ServerMsg::Reject:
      case ServerMsg::Abort: FUZZ_CHECK(m.text.size() <= body.size(), "text longer than its message"); break;
      case ServerMsg::Invalid: FUZZ_CHECK(!m.text.empty(), "an invalid message without a description"); break;
    }
  }
  ::close(sv[1]);
  return 0;
}
