// The communicator's unique-ID launch in C++ (TileXR's GetUniqueId and
// CommInitRank: tilecomm::Comm::unique_id, Comm::init_rank), without tcrun:
//
//   tc_comm_uid N [ignored...]
//
// forks N processes, the ranks 0..N-1 of a fresh job; none has started
// tilecomm. Rank 0 draws the unique ID (so it hosts the rendezvous) and hands
// it to the others through a pipe, as a TileXR program broadcasts it; every
// rank then calls Comm::init_rank(N, id, rank) and checks, with exact values:
// rank(), size(), local_rank() and local_size() (one host: the same as rank
// and size), every rank's window as mapped here (sizes, the flag region right
// after the data region), and the windows themselves: each rank writes a
// pattern into its own data and flag regions, syncs on the communicator's
// team, and reads its right neighbour's. Then it destroys the communicator,
// calls shmem_finalize and exits 0.
//
// A rank that finds something wrong prints "comm-uid: rank k: <what>" on
// stderr and exits non-zero. The parent prints one line per rank,
// "uid: PE k pid P exited with status S" (or "killed by signal S"), the
// format of tc_fail_uid that the fixture parses, and exits 0 when every rank
// exited 0.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tilecomm/comm.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int g_n = 0;

[[noreturn]] void fail(int rank, const std::string& what) {
  std::fprintf(stderr, "comm-uid: rank %d: %s\n", rank, what.c_str());
  std::fflush(stderr);
  _exit(90);
}

void expect_eq(int rank, const char* what, long long got, long long want) {
  if (got != want) fail(rank, std::string(what) + " is " + std::to_string(got) + ", expected " + std::to_string(want));
}

constexpr std::size_t kWindow = 4096, kFlags = std::size_t{64} << 10;

std::int64_t item(int rank, int i) { return std::int64_t{rank} << 32 | (0x5a00 + i); }

int rank_main(int rank, int uid_read, int uid_write) {
  tilecomm::UniqueId id{};
  if (rank == 0) {
    try {
      id = tilecomm::Comm::unique_id();
    } catch (const tilecomm::Error& e) {
      fail(rank, std::string("Comm::unique_id threw: ") + e.what());
    }
    for (int i = 1; i < g_n; ++i)
      if (write(uid_write, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) fail(rank, "write of the ID failed");
  } else {
    close(uid_write);  // a rank 0 that died before writing ends the read
    // sizeof id <= PIPE_BUF: every read gets one whole ID.
    if (read(uid_read, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) fail(rank, "read of the ID failed");
  }

  tilecomm::CommOptions opts;
  opts.window_bytes = kWindow;
  opts.flag_bytes = kFlags;
  tilecomm::Comm comm = [&] {
    try {
      return tilecomm::Comm::init_rank(g_n, id, rank, opts);
    } catch (const tilecomm::Error& e) {
      fail(rank, std::string("Comm::init_rank threw: ") + e.what());
    }
  }();
  expect_eq(rank, "rank()", comm.rank(), rank);
  expect_eq(rank, "size()", comm.size(), g_n);
  expect_eq(rank, "local_rank()", comm.local_rank(), rank);
  expect_eq(rank, "local_size()", comm.local_size(), g_n);
  expect_eq(rank, "shmem_my_pe()", shmem_my_pe(), rank);
  expect_eq(rank, "shmem_n_pes()", shmem_n_pes(), g_n);
  for (int r = 0; r < g_n; ++r) {
    const tilecomm::Window w = comm.window(r);
    if (!w.data || !w.flags) fail(rank, "window " + std::to_string(r) + " is not mapped");
    expect_eq(rank, "window data_bytes", static_cast<long long>(w.data_bytes), kWindow);
    expect_eq(rank, "window flag_bytes", static_cast<long long>(w.flag_bytes), kFlags);
    if (w.flags != w.data + kWindow) fail(rank, "window " + std::to_string(r) + ": flags do not follow the data");
  }

  // Into my own window; then my right neighbour's, as it wrote it.
  constexpr int kItems = kWindow / sizeof(std::int64_t);
  auto* mine = reinterpret_cast<std::int64_t*>(comm.window(rank).data);
  for (int i = 0; i < kItems; ++i) mine[i] = item(rank, i);
  auto* my_flags = reinterpret_cast<std::uint64_t*>(comm.window(rank).flags);
  my_flags[0] = 0xf1a90000u + rank;
  my_flags[kFlags / 8 - 1] = 0xe0d00000u + rank;
  shmem_team_sync(comm.team());
  const int right = (rank + 1) % g_n;
  const auto* theirs = reinterpret_cast<const std::int64_t*>(comm.window(right).data);
  for (int i = 0; i < kItems; ++i)
    if (theirs[i] != item(right, i))
      fail(rank, "element " + std::to_string(i) + " of rank " + std::to_string(right) + "'s window is " +
                     std::to_string(theirs[i]) + ", expected " + std::to_string(item(right, i)));
  const auto* their_flags = reinterpret_cast<const std::uint64_t*>(comm.window(right).flags);
  expect_eq(rank, "the first flag word of the right rank", static_cast<long long>(their_flags[0]), 0xf1a90000u + right);
  expect_eq(rank, "the last flag word of the right rank", static_cast<long long>(their_flags[kFlags / 8 - 1]),
            0xe0d00000u + right);

  try {
    comm.destroy();
  } catch (const tilecomm::Error& e) {
    fail(rank, std::string("destroy threw: ") + e.what());
  }
  shmem_finalize();
  return 0;
}

std::string describe(int status) {
  char buf[64];
  if (WIFEXITED(status)) std::snprintf(buf, sizeof buf, "exited with status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) std::snprintf(buf, sizeof buf, "killed by signal %d", WTERMSIG(status));
  else std::snprintf(buf, sizeof buf, "wait status 0x%x", status);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  g_n = argc > 1 ? std::atoi(argv[1]) : 0;
  if (g_n < 1 || g_n > 64) {
    std::fprintf(stderr, "usage: %s N (1..64) [ignored...]\n", argv[0]);
    return 2;
  }
  int uid_pipe[2];
  if (pipe(uid_pipe) != 0) {
    std::perror("comm-uid: pipe");
    return 1;
  }
  // The parent starts nothing of tilecomm (and no thread): the children are plain forks.
  std::vector<pid_t> pids(g_n, -1);
  for (int r = 0; r < g_n; ++r) {
    std::fflush(stdout);
    std::fflush(stderr);
    pids[r] = fork();
    if (pids[r] < 0) {
      std::perror("comm-uid: fork");
      return 1;
    }
    if (pids[r] == 0) std::exit(rank_main(r, uid_pipe[0], uid_pipe[1]));
  }
  close(uid_pipe[0]);
  close(uid_pipe[1]);
  int failed = 0;
  for (int r = 0; r < g_n; ++r) {
    int st = 0;
    while (waitpid(pids[r], &st, 0) < 0) {
    }
    std::printf("uid: PE %d pid %d %s\n", r, static_cast<int>(pids[r]), describe(st).c_str());
    failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  return failed == 0 ? 0 : 1;
}
