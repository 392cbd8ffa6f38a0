/* The communicator's unique-ID launch through the C API (<tilecomm/comm.h>:
 * tilecomm_comm_get_unique_id, tilecomm_comm_init_rank), without tcrun:
 *
 *   tc_comm_uid_c N [ignored...]
 *
 * The same job as tc_comm_uid (comm_uid_launch.cpp): N forked processes,
 * none of which has started tilecomm; rank 0 draws the unique ID and hands
 * it to the others through a pipe; every rank calls tilecomm_comm_init_rank
 * and checks rank, size, local rank and size, every rank's window, and the
 * windows' contents (its own written, a sync on SHMEM_TEAM_WORLD -- the C API
 * has no query for the communicator's team, whose members are the world's
 * here -- its right neighbour's read back exactly); then it destroys the communicator,
 * calls shmem_finalize and exits 0.
 *
 * A rank that finds something wrong prints "comm-uid: rank k: <what>" on
 * stderr and exits non-zero; the parent prints
 * "uid: PE k pid P exited with status S" per rank and exits 0 when every
 * rank exited 0. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tilecomm/comm.h>

enum { kWindow = 4096, kFlags = 64 << 10, kItems = kWindow / 8 };

static int g_n;

static void fail(int rank, const char *what, long long got, long long want) {
  fprintf(stderr, "comm-uid: rank %d: %s (got %lld, expected %lld; last error: %s)\n", rank, what, got, want,
          tilecomm_comm_last_error());
  fflush(stderr);
  _exit(90);
}

static void expect_eq(int rank, const char *what, long long got, long long want) {
  if (got != want) fail(rank, what, got, want);
}

static int64_t item(int rank, int i) { return (int64_t)rank << 32 | (0x5a00 + i); }

static int rank_main(int rank, int uid_read, int uid_write) {
  shmemx_uniqueid_t id = SHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0) {
    expect_eq(rank, "tilecomm_comm_get_unique_id", tilecomm_comm_get_unique_id(&id), TILECOMM_SUCCESS);
    for (int i = 1; i < g_n; ++i)
      if (write(uid_write, &id, sizeof id) != (ssize_t)sizeof id) fail(rank, "write of the ID", -1, sizeof id);
  } else {
    close(uid_write); /* a rank 0 that died before writing ends the read */
    /* sizeof id <= PIPE_BUF: every read gets one whole ID. */
    if (read(uid_read, &id, sizeof id) != (ssize_t)sizeof id) fail(rank, "read of the ID", -1, sizeof id);
  }

  const tilecomm_comm_options_t opts = {kWindow, kFlags};
  tilecomm_comm_t comm = NULL;
  expect_eq(rank, "tilecomm_comm_init_rank", tilecomm_comm_init_rank(g_n, &id, rank, &opts, &comm), TILECOMM_SUCCESS);
  if (!comm) fail(rank, "tilecomm_comm_init_rank left the handle NULL", 0, 1);
  int v = -1;
  expect_eq(rank, "tilecomm_comm_rank", tilecomm_comm_rank(comm, &v), TILECOMM_SUCCESS);
  expect_eq(rank, "rank", v, rank);
  expect_eq(rank, "tilecomm_comm_size", tilecomm_comm_size(comm, &v), TILECOMM_SUCCESS);
  expect_eq(rank, "size", v, g_n);
  expect_eq(rank, "tilecomm_comm_local_rank", tilecomm_comm_local_rank(comm, &v), TILECOMM_SUCCESS);
  expect_eq(rank, "local rank", v, rank);
  expect_eq(rank, "tilecomm_comm_local_size", tilecomm_comm_local_size(comm, &v), TILECOMM_SUCCESS);
  expect_eq(rank, "local size", v, g_n);
  expect_eq(rank, "shmem_my_pe", shmem_my_pe(), rank);
  expect_eq(rank, "shmem_n_pes", shmem_n_pes(), g_n);

  void *data[64], *flags[64];
  for (int r = 0; r < g_n; ++r) {
    size_t db = 0, fb = 0;
    expect_eq(rank, "tilecomm_comm_window", tilecomm_comm_window(comm, r, &data[r], &db, &flags[r], &fb),
              TILECOMM_SUCCESS);
    expect_eq(rank, "a window is mapped", data[r] != NULL && flags[r] != NULL, 1);
    expect_eq(rank, "window data bytes", (long long)db, kWindow);
    expect_eq(rank, "window flag bytes", (long long)fb, kFlags);
    expect_eq(rank, "the flags follow the data", (char *)flags[r] - (char *)data[r], kWindow);
  }

  /* Into my own window; then my right neighbour's, as it wrote it. */
  int64_t *mine = data[rank];
  for (int i = 0; i < kItems; ++i) mine[i] = item(rank, i);
  uint64_t *my_flags = flags[rank];
  my_flags[0] = 0xf1a90000u + rank;
  my_flags[kFlags / 8 - 1] = 0xe0d00000u + rank;
  /* The C API has no query for the communicator's team; its members are the world's here. */
  expect_eq(rank, "shmem_team_sync", shmem_team_sync(SHMEM_TEAM_WORLD), 0);
  const int right = (rank + 1) % g_n;
  const int64_t *theirs = data[right];
  for (int i = 0; i < kItems; ++i) expect_eq(rank, "an element of the right rank's window", theirs[i], item(right, i));
  const uint64_t *their_flags = flags[right];
  expect_eq(rank, "the first flag word of the right rank", (long long)their_flags[0], 0xf1a90000u + right);
  expect_eq(rank, "the last flag word of the right rank", (long long)their_flags[kFlags / 8 - 1],
            0xe0d00000u + right);

  expect_eq(rank, "tilecomm_comm_destroy", tilecomm_comm_destroy(comm), TILECOMM_SUCCESS);
  shmem_finalize();
  return 0;
}

static void describe(int status, char *buf, size_t size) {
  if (WIFEXITED(status)) snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
  else snprintf(buf, size, "wait status 0x%x", status);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  g_n = argc > 1 ? atoi(argv[1]) : 0;
  if (g_n < 1 || g_n > 64) {
    fprintf(stderr, "usage: %s N (1..64) [ignored...]\n", argv[0]);
    return 2;
  }
  int uid_pipe[2];
  if (pipe(uid_pipe) != 0) {
    perror("comm-uid: pipe");
    return 1;
  }
  /* The parent starts nothing of tilecomm (and no thread): the children are plain forks. */
  pid_t pids[64];
  for (int r = 0; r < g_n; ++r) {
    fflush(stdout);
    fflush(stderr);
    pids[r] = fork();
    if (pids[r] < 0) {
      perror("comm-uid: fork");
      return 1;
    }
    if (pids[r] == 0) exit(rank_main(r, uid_pipe[0], uid_pipe[1]));
  }
  close(uid_pipe[0]);
  close(uid_pipe[1]);
  int failed = 0;
  for (int r = 0; r < g_n; ++r) {
    int st = 0;
    while (waitpid(pids[r], &st, 0) < 0) {
    }
    char how[64];
    describe(st, how, sizeof how);
    printf("uid: PE %d pid %d %s\n", r, (int)pids[r], how);
    failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  return failed == 0 ? 0 : 1;
}
