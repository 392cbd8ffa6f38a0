// The rendezvous server's side of the wire: what Job (src/bootstrap/job.hpp)
// makes of bytes from up to four connections at once.
//
// Input: one byte for the job size (1-4, or 0 = learnt from the first Hello),
// then records [op][n][n bytes]:
//   op % 8 in 0..3  the n bytes arrive on connection op % 8
//   4               connection n % 4 closes (a new one takes its place)
//   5               time passes: overdue Hellos expire
//   6               the launcher gives the job size n % 6
//   7               the launcher aborts the job
// The cookie is kCookie below, so seeds can hold valid Hellos
// (tests/fuzz/make_corpus.py). Invariants: everything the server sends
// decodes as a valid message for a PE, an allgather result holds its
// group's PEs and one blob each (or only the group's size), at most one loss is reported per PE, and the count of connections
// waiting for a Hello stays within 0..max_pending.
#include <cstdint>
#include <cstring>
#include <vector>

#include "bootstrap/job.hpp"
#include "bootstrap/wire.hpp"
#include "fuzz_common.hpp"

using namespace tilecomm;
using namespace tilecomm::bootstrap;

namespace {

const std::uint8_t kCookie[kCookieBytes] = {'t', 'i', 'l', 'e', 'c', 'o', 'm', 'm',
                                            '-', 'f', 'u', 'z', 'z', '-', 'c', 'k'};  // "tilecomm-fuzz-ck"

// What a PE would make of the server's bytes.
void check_output(Job::Output& out, int job_size) {
  FrameReader reader;
  for (; !out.empty(); out.consume(out.next().size())) reader.append(out.next().data(), out.next().size());
  MsgHeader h;
  std::vector<char> body;
  int r;
  while ((r = reader.next(h, body, kMaxPayload)) == 1) {
    // An allgather result: a group of 1 to job_size PEs, saying what its
    // round asked for (NOTE [keyed gathers]); the decoder checks the rest.
    GatherShape shape{0, kGatherCount, job_size};
    GatherResultHead g{};
    if (static_cast<Msg>(h.type) == Msg::AllgatherResult && body.size() >= sizeof g) {
      memcpy(&g, body.data(), sizeof g);
      FUZZ_CHECK(g.members >= 1 && g.members <= job_size, "an allgather result for %d PEs in a job of %d", g.members,
                 job_size);
      shape.blob = g.blob;
      shape.want = g.want;
    }
    ServerMsg m = decode_server_msg(h, body, shape);
    FUZZ_CHECK(m.kind != ServerMsg::Invalid, "the server sent %s", m.text.c_str());
  }
  FUZZ_CHECK(r == 0 && reader.buffered() == 0, "the server sent %zu bytes of a partial message", reader.buffered());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static bool once = (fuzz::silence_logs(), true);
  (void)once;
  if (size < 1) return 0;
  JobOptions opt;
  opt.size = data[0] % 5;
  opt.max_pending = 3;
  opt.hello_timeout_s = 1;
  int lost = 0;
  Job job(kCookie, opt, [&lost](int, int) { ++lost; });
  int next_id = 0;
  double now = 0;
  int slot[4];
  for (int& s : slot) {
    s = next_id++;
    job.add(s, "fuzz", now);
  }
  auto settle = [&] {
    for (int id : job.ids()) {
      Job::Output* o = job.output(id);
      check_output(*o, job.size());
      if (o->drop) job.closed(id);
    }
    for (int& s : slot)
      if (!job.output(s)) {
        s = next_id++;
        job.add(s, "fuzz", now);
      }
  };
  std::size_t i = 1;
  while (i + 2 <= size) {
    std::uint8_t op = data[i] % 8, n = data[i + 1];
    i += 2;
    std::size_t len = std::min<std::size_t>(n, size - i);
    if (op < 4) {
      job.receive(slot[op], reinterpret_cast<const char*>(data + i), len);
      i += len;
    } else if (op == 4) {
      job.closed(slot[n % 4]);
    } else if (op == 5) {
      now += 2;
      job.expire(now);
    } else if (op == 6) {
      job.set_size(n % 6);
    } else {
      job.abort("fuzz abort");
    }
    settle();
    FUZZ_CHECK(job.pending() >= 0 && job.pending() <= opt.max_pending, "%d connections wait for a Hello (cap %d)",
               job.pending(), opt.max_pending);
  }
  FUZZ_CHECK(lost <= job.size(), "%d losses reported in a job of %d PEs", lost, job.size());
  return 0;
}
