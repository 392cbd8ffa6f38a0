/* The helper PE program of the collective failure tests: run under tcrun, it
 * plays the scenario argv[1] names with the collective argv[2] names.
 *
 *   kill-in KIND       PE 1 dies (SIGKILL) while the others are inside the
 *                      collective KIND: broadcast, collect, fcollect,
 *                      alltoall, alltoalls, reduce, fcollect64 (active set)
 *   kill-in-hosts KIND the same on two hosts (TILECOMM_HOST_ID: PEs 0-1 and
 *                      2-3, UCX over TCP between them), after one call of
 *                      KIND that completes: PE 1 dies once it saw the
 *                      others leave that call
 *   mismatch WHAT      (run with TILECOMM_CHECK=1) PE 1 makes a call that
 *                      differs from PE 0's in WHAT: root, nelems, op, type,
 *                      routine, active-set-nelems
 *   settings -         PE 1 sets TILECOMM_COLL_REDUCE=rsag before shmem_init
 *   transports -       PE 1 lists ucx in TILECOMM_TRANSPORTS, PE 0 does not
 *
 * Every PE first prints "helper: PE <k> pid <pid>", as fail_pe.c does; a
 * line containing "UNEXPECTED" means a call returned that must not have. */
#define _GNU_SOURCE
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 64
static long src[N * 8], dst[N * 8];
static int isrc[N], idst[N];
static long psync[SHMEM_COLLECT_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];

static void unexpected(const char *what) {
  printf("UNEXPECTED: %s\n", what);
  fprintf(stderr, "UNEXPECTED: %s\n", what);
  fflush(stdout);
  fflush(stderr);
  _exit(99);
}

/* One collective of kind `kind` on all PEs. */
static void collective(const char *kind) {
  shmem_team_t w = SHMEM_TEAM_WORLD;
  /* the root is PE 1, which dies: a root does not wait for its readers */
  if (!strcmp(kind, "broadcast")) shmem_long_broadcast(w, dst, src, N, 1);
  else if (!strcmp(kind, "collect")) shmem_long_collect(w, dst, src, N);
  else if (!strcmp(kind, "fcollect")) shmem_long_fcollect(w, dst, src, N);
  else if (!strcmp(kind, "alltoall")) shmem_long_alltoall(w, dst, src, 4);
  else if (!strcmp(kind, "alltoalls")) shmem_long_alltoalls(w, dst, src, 1, 1, 4);
  else if (!strcmp(kind, "reduce")) shmem_long_sum_reduce(w, dst, src, N);
  else if (!strcmp(kind, "fcollect64")) shmem_fcollect64(dst, src, N, 0, 0, shmem_n_pes(), psync);
  else {
    fprintf(stderr, "helper: unknown collective '%s'\n", kind);
    exit(2);
  }
}

static int kill_in(const char *kind) {
  shmem_init();
  shmem_barrier_all();
  if (shmem_my_pe() == 1) raise(SIGKILL);
  collective(kind);
  collective(kind); /* PE 1 never makes either call; no survivor may get past them */
  unexpected("a collective returned although a PE of the team never called it");
  return 0;
}

/* Two hosts of two PEs: the collectives of WORLD go host by host. */
static int kill_in_hosts(const char *kind) {
  const char *rank = getenv("TILECOMM_RANK");
  setenv("TILECOMM_HOST_ID", rank && atoi(rank) >= 2 ? "h1" : "h0", 1);
  setenv("UCX_TLS", "tcp", 1);
  static long passed;
  shmem_init();
  collective(kind);
  /* PE 1 dies once it has seen every other PE leave the first call. It asks
   * them (they answer from inside the second call): nothing they sent it is
   * in flight when it dies, as a barrier's last flag or an atomic's reply
   * to another host could be. */
  if (shmem_my_pe() == 1) {
    for (int pe = 0; pe < shmem_n_pes(); ++pe)
      while (pe != 1 && shmem_long_atomic_fetch(&passed, pe) == 0) {
      }
    raise(SIGKILL);
  }
  shmem_long_atomic_set(&passed, 1, shmem_my_pe());
  collective(kind);
  collective(kind);
  unexpected("a collective returned although a PE of the team never called it");
  return 0;
}

/* PE 0 makes the reference call; PE 1 differs in `what`; others match PE 0. */
static int mismatch(const char *what) {
  shmem_init();
  int odd = shmem_my_pe() == 1;
  shmem_team_t w = SHMEM_TEAM_WORLD;
  if (!strcmp(what, "root")) shmem_long_broadcast(w, dst, src, N, odd ? 1 : 0);
  else if (!strcmp(what, "nelems")) shmem_long_fcollect(w, dst, src, odd ? N - 1 : N);
  else if (!strcmp(what, "op")) {
    if (odd) shmem_long_max_reduce(w, dst, src, N);
    else shmem_long_sum_reduce(w, dst, src, N);
  } else if (!strcmp(what, "type")) {
    if (odd) shmem_int_sum_reduce(w, idst, isrc, N);
    else shmem_long_sum_reduce(w, dst, src, N);
  } else if (!strcmp(what, "routine")) {
    if (odd) shmem_long_broadcast(w, dst, src, N, 0);
    else shmem_long_fcollect(w, dst, src, N);
  } else if (!strcmp(what, "active-set-nelems")) {
    shmem_long_sum_to_all(dst, src, odd ? N - 2 : N, 0, 0, shmem_n_pes(), pwrk, psync);
  } else {
    fprintf(stderr, "helper: unknown mismatch '%s'\n", what);
    exit(2);
  }
  unexpected("a mismatched collective returned under TILECOMM_CHECK=1");
  return 0;
}

int main(int argc, char **argv) {
  const char *rank = getenv("TILECOMM_RANK");
  printf("helper: PE %d pid %d\n", rank ? atoi(rank) : -1, (int)getpid());
  fflush(stdout);
  if (argc < 3) {
    fprintf(stderr, "usage: tc_fail_coll kill-in KIND | mismatch WHAT\n");
    return 2;
  }
  if (!strcmp(argv[1], "kill-in")) return kill_in(argv[2]);
  if (!strcmp(argv[1], "kill-in-hosts")) return kill_in_hosts(argv[2]);
  if (!strcmp(argv[1], "mismatch")) return mismatch(argv[2]);
  if (!strcmp(argv[1], "settings")) {
    if (rank && atoi(rank) == 1) setenv("TILECOMM_COLL_REDUCE", "rsag", 1);
    shmem_init();
    unexpected("shmem_init returned although the PEs' collective settings differ");
  }
  if (!strcmp(argv[1], "transports")) {
    if (rank && atoi(rank) == 1) setenv("TILECOMM_TRANSPORTS", "ucx,mte", 1), setenv("UCX_TLS", "tcp", 1);
    shmem_init();
    unexpected("shmem_init returned although one PE of a one-host job lists ucx and the other does not");
  }
  fprintf(stderr, "helper: unknown scenario '%s'\n", argv[1]);
  return 2;
}
