// The PMI-1 launcher's side of a session (MPICH's hydra, NOTE [launchers]):
// the bytes a PE reads on PMI_FD. The first input byte picks the PE (0 or
// 1 of 2), the rest is everything the launcher answers, in order; the PE
// runs init, the rendezvous exchange and finalize against it on a socket
// whose other end is closed after the input.
// Invariants: the session completes or throws tilecomm::Error (no crash, no
// wait: the closed end ends every read); a completed exchange returns a
// value that holds no space and no newline (one field of one reply line).
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "bootstrap/launcher.hpp"
#include "core/error.hpp"
#include "fuzz_common.hpp"

using namespace tilecomm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static bool once = (fuzz::silence_logs(), true);
  (void)once;
  if (size == 0 || size > 65536) return 0;  // the socket buffers hold every answer and command
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) abort();
  const int rank = data[0] & 1;
  if (size > 1 && write(sv[1], data + 1, size - 1) != static_cast<ssize_t>(size - 1)) abort();
  shutdown(sv[1], SHUT_WR);
  try {
    auto pmi = bootstrap::open_pmi(sv[0], rank, 2, 5.0);
    const std::string value = pmi->share_from_rank0("tilecomm-rendezvous", "tcp://127.0.0.1:4000/00ff");
    FUZZ_CHECK(value.find_first_of(" \n") == std::string::npos, "the exchange returned '%s'", value.c_str());
    pmi->finalize();
  } catch (const Error&) {
  }
  close(sv[0]);
  close(sv[1]);
  return 0;
}
