/* The helper PE program of the failure tests: run under tcrun, it plays one
 * scenario chosen by argv[1]; further arguments are ignored (the tests
 * append a unique marker so that they can find leftover processes).
 *
 * Every PE first prints "helper: PE <k> pid <pid>" (k from TILECOMM_RANK, or
 * the launcher's PMI_RANK or PMIX_RANK, so also before shmem_init) and flushes, so that a test knows the pids.
 * A line containing "UNEXPECTED" means a call returned that must not have;
 * such a PE exits with status 99. */
#define _GNU_SOURCE
#include <shmem.h>
#include <shmemx.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stranger.hpp"

static long never;         /* nobody writes it: a wait on it ends only when the job fails */
static long announced[1024]; /* PE k sets element k on the PE that fails, before it blocks */
static long lock_var;      /* the lock of the lock scenarios */
static long put_target;    /* a symmetric put target */

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

static void unexpected(const char *what) {
  say("UNEXPECTED: %s\n", what);
  fprintf(stderr, "UNEXPECTED: %s\n", what);
  fflush(stderr);
  _exit(99);
}

/* This PE's number as its launcher set it: tcrun, MPICH's hydra or PMIx. */
static int env_rank(void) {
  const char *names[] = {"TILECOMM_RANK", "PMI_RANK", "PMIX_RANK"};
  for (int i = 0; i < 3; ++i)
    if (getenv(names[i])) return atoi(getenv(names[i]));
  return -1;
}

/* Blocks in shmem_long_wait_until on a variable nobody changes. */
static void wait_forever(void) {
  shmem_long_wait_until(&never, SHMEM_CMP_EQ, 1);
  unexpected("shmem_long_wait_until on a variable nobody writes returned");
}

/* This PE tells `target` it is about to block. A put, not an atomic: a put
 * is done once sent, while an atomic over UCX waits for the target's reply,
 * which a target that dies right after seeing the announcement may never
 * send (the announcing PE would then fail in the atomic, not where the
 * scenario has it block). */
static void announce(int target) {
  if (shmem_n_pes() > 1024) unexpected("more PEs than the announcement slots (1024)");
  shmem_long_p(&announced[shmem_my_pe()], 1, target);
}

/* On the PE every other PE announces itself to: returns once all have. */
static void await_announcements(void) {
  for (int k = 0; k < shmem_n_pes(); ++k)
    if (k != shmem_my_pe()) shmem_long_wait_until(&announced[k], SHMEM_CMP_EQ, 1);
}

/* Every PE but `failing` announces itself on `failing` and blocks in
 * shmem_long_wait_until; `failing` returns once all have announced
 * themselves, i.e. once they are in the wait or about to call it, with no
 * other blocking call in between. */
static void others_wait_forever(int failing) {
  if (shmem_my_pe() != failing) {
    announce(failing);
    wait_forever();
  }
  await_announcements();
}

static void barrier_forever(void) {
  shmem_barrier_all();
  unexpected("shmem_barrier_all returned although a PE never reached it");
}

static int finish(void) {
  shmem_finalize();
  return 0;
}

/* ---- scenarios --------------------------------------------------------------------- */

/* 1, 2: PE 1 dies by SIGKILL while the others are in a barrier / a wait. */
static int kill_in_barrier(void) {
  shmem_init();
  shmem_barrier_all();
  if (shmem_my_pe() == 1) raise(SIGKILL);
  barrier_forever();
  return 0;
}

static int kill_in_wait(void) {
  shmem_init();
  others_wait_forever(1);
  raise(SIGKILL);
  return 0;
}

/* A PE that is busy outside tilecomm when a peer dies: it must be ended anyway. */
static int kill_while_busy(void) {
  shmem_init();
  shmem_barrier_all();
  if (shmem_my_pe() == 1) raise(SIGKILL);
  for (;;) pause();
  return 0;
}

/* 3: PE 1 dies before shmem_init, or right after it. */
static int kill_before_init(void) {
  if (env_rank() == 1) raise(SIGKILL);
  shmem_init();
  barrier_forever();
  return 0;
}

static int kill_after_init(void) {
  shmem_init();
  if (shmem_my_pe() == 1) raise(SIGKILL);
  barrier_forever();
  return 0;
}

/* 4: PE 2 calls exit(3) without shmem_finalize while the others wait / are in a barrier. */
static int exit_in_wait(void) {
  shmem_init();
  others_wait_forever(2);
  exit(3);
}

static int exit_in_barrier(void) {
  shmem_init();
  shmem_barrier_all();
  if (shmem_my_pe() == 2) exit(3);
  barrier_forever();
  return 0;
}

/* Every PE finalizes; PE 2 then returns 3 from main. */
static int exit_after_finalize(void) {
  shmem_init();
  shmem_barrier_all();
  int me = shmem_my_pe();
  shmem_finalize();
  return me == 2 ? 3 : 0;
}

/* 5: argv[2] = the PE that takes the lock and dies holding it; the others
 * announce themselves on the holder (announce) and then block in
 * shmem_set_lock. The holder dies once every other PE has announced itself. */
static int lock_holder_dies(int holder) {
  shmem_init();
  const int me = shmem_my_pe();
  if (me == holder) shmem_set_lock(&lock_var);
  shmem_barrier_all(); /* the holder has the lock */
  if (me == holder) {
    await_announcements();
    say("helper: PE %d holds the lock and dies\n", me);
    raise(SIGKILL);
  }
  announce(holder);
  shmem_set_lock(&lock_var);
  unexpected("shmem_set_lock returned although the holder died with the lock");
  return 0;
}

/* 6: PE 0 waits with TILECOMM_TIMEOUT on a variable nobody changes; the other
 * PEs run without a timeout and wait in a barrier. */
static int timeout_wait(void) {
  if (env_rank() != 0) unsetenv("TILECOMM_TIMEOUT");
  shmem_init();
  if (shmem_my_pe() == 0) {
    say("helper: PE 0 waits on %p\n", (void *)&never);
    shmem_long_wait_until(&never, SHMEM_CMP_EQ, 42);
    unexpected("shmem_long_wait_until returned past TILECOMM_TIMEOUT");
  }
  barrier_forever();
  return 0;
}

/* 7: usage errors. */
static int before_init(void) {
  int me = shmem_my_pe();
  say("UNEXPECTED: shmem_my_pe returned %d before shmem_init\n", me);
  return 99;
}

static int put_before_init(void) {
  shmem_long_p(&put_target, 1, 0);
  unexpected("shmem_long_p returned before shmem_init");
  return 0;
}

static int after_finalize(void) {
  shmem_init();
  shmem_finalize();
  shmem_barrier_all();
  unexpected("shmem_barrier_all returned after shmem_finalize");
  return 0;
}

static int pe_out_of_range(int target) {
  shmem_init();
  if (shmem_my_pe() == 0) {
    shmem_long_p(&put_target, 7, target);
    unexpected("shmem_long_p to a PE out of range returned");
  }
  barrier_forever();
  return 0;
}

static int non_symmetric(void) {
  shmem_init();
  if (shmem_my_pe() == 0) {
    long on_stack[4] = {0, 0, 0, 0};
    long src[4] = {1, 2, 3, 4};
    say("helper: PE 0 puts to the stack address %p\n", (void *)on_stack);
    shmem_long_put(on_stack, src, 4, 1);
    unexpected("shmem_long_put to a stack variable returned");
  }
  barrier_forever();
  return 0;
}

/* A put that starts in the symmetric heap and runs past its end: stopped
 * before a byte moves (the source is far shorter than the count says). */
static int past_end(void) {
  shmem_init();
  long *dest = shmem_malloc(4 * sizeof(long));
  if (shmem_my_pe() == 0) {
    long src[4] = {1, 2, 3, 4};
    say("helper: PE 0 puts past the end from %p\n", (void *)dest);
    shmem_long_put(dest, src, (size_t)1 << 40, 1);
    unexpected("shmem_long_put past the end of the heap returned");
  }
  barrier_forever();
  return 0;
}

/* Run with SHMEM_SYMMETRIC_SIZE=1M: a 2 MiB request fails on every PE, and
 * the heap stays usable. Exits 0 when all of that holds. */
static int heap_exhaustion(void) {
  shmem_init();
  int me = shmem_my_pe();
  size_t request = (size_t)2 << 20;
  void *big = shmem_malloc(request);
  if (big) {
    say("UNEXPECTED: PE %d: shmem_malloc(%zu) returned %p\n", me, request, big);
    return 99;
  }
  say("helper: PE %d: shmem_malloc(%zu) returned NULL\n", me, request);
  long *small = shmem_malloc(4096);
  if (!small) {
    say("UNEXPECTED: PE %d: shmem_malloc(4096) after the failed request returned NULL\n", me);
    return 99;
  }
  small[0] = me;
  shmem_barrier_all();
  long other = shmem_long_g(small, (me + 1) % shmem_n_pes());
  if (other != (me + 1) % shmem_n_pes()) {
    say("UNEXPECTED: PE %d read %ld from its neighbour's block\n", me, other);
    return 99;
  }
  shmem_barrier_all();
  shmem_free(small);
  say("helper: PE %d: heap still usable\n", me);
  return finish();
}

static int alloc_mismatch(void) {
  shmem_init();
  void *p = shmem_malloc(shmem_my_pe() == 0 ? 64 : 128);
  say("UNEXPECTED: PE %d: mismatched shmem_malloc returned %p\n", shmem_my_pe(), p);
  return 99;
}

/* A program that is fine: used with malformed environment variables. */
/* Every PE claims a host of its own (TILECOMM_HOST_ID=host<k>), then runs plain(). */
/* Every PE its own "host" (TILECOMM_HOST_ID=host<rank>): each puts its number
 * to the next PE, which must arrive over UCX; no other PE is load/store
 * reachable. UCX_TLS=tcp unless the caller chose. */
static int own_host(void) {
  char id[32];
  snprintf(id, sizeof id, "host%d", env_rank());
  setenv("TILECOMM_HOST_ID", id, 1);
  setenv("UCX_TLS", "tcp", 0);
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
  shmem_long_p(&put_target, me + 1, next);
  shmem_barrier_all();
  if (put_target != (me + n - 1) % n + 1) unexpected("the put from the previous PE did not arrive");
  for (int pe = 0; pe < n; ++pe)
    if (pe != me && shmem_ptr(&put_target, pe)) unexpected("shmem_ptr reached a PE of another host");
  uint64_t ops = 0, bytes = 0;
  if (n > 1 && (shmemx_transport_traffic("ucx", next, &ops, &bytes) != 0 || ops == 0))
    unexpected("the put to the next PE did not go through UCX");
  say("helper: PE %d of %d ran on its own host\n", me, n);
  return finish();
}

static int plain(void) {
  shmem_init();
  shmem_barrier_all();
  say("helper: PE %d of %d ran\n", shmem_my_pe(), shmem_n_pes());
  return finish();
}

/* 8: PE 1 calls shmem_global_exit(7) while PE 0 is in a barrier and any
 * further PE is busy outside tilecomm. */
static int global_exit(void) {
  shmem_init();
  shmem_barrier_all();
  int me = shmem_my_pe();
  if (me == 1) {
    shmem_global_exit(7);
    unexpected("shmem_global_exit returned");
  }
  if (me == 0) barrier_forever();
  for (;;) pause();
  return 0;
}

/* 10: output for --tag-output: two whole lines on stdout, one on stderr and a
 * last stdout line without its newline. */
static int output(void) {
  shmem_init();
  int me = shmem_my_pe();
  printf("out line one from %d\nout line two from %d\n", me, me);
  fflush(stdout);
  fprintf(stderr, "err line from %d\n", me);
  fflush(stderr);
  printf("unterminated from %d", me);
  fflush(stdout);
  return finish();
}

/* Prints the value of each variable named by the arguments that start with TC_. */
static int print_env(int argc, char **argv) {
  shmem_init();
  for (int i = 2; i < argc; ++i) {
    if (strncmp(argv[i], "TC_", 3) != 0) continue;
    const char *v = getenv(argv[i]);
    say("helper: PE %d %s=%s\n", shmem_my_pe(), argv[i], v ? v : "(unset)");
  }
  return finish();
}

/* Says "ready" and blocks until the job is ended from outside (a signal to tcrun). */
static int ready_then_wait(void) {
  shmem_init();
  say("helper: PE %d ready\n", shmem_my_pe());
  wait_forever();
  return 0;
}

/* A stranger on tcrun's rendezvous while the job runs: PE 0 connects with a
 * wrong cookie, garbage, a non-Hello message, an empty connection and, holding
 * the cookie, a Hello with another job size; every connection must be dropped
 * and the job must go on. */
static int tcrun_stranger(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  if (me == 0) {
    const char *modes[] = {"wrong-cookie", "garbage", "not-hello", "close", "wrong-size"};
    for (int i = 0; i < 5; ++i) {
      char why[256];
      int rc = tc_stranger(getenv("TILECOMM_UNIQUEID"), modes[i], why, sizeof why);
      say("helper: stranger %s: %s (%s)\n", modes[i], rc == 0 ? "dropped" : "NOT DROPPED", why);
    }
  }
  shmem_barrier_all();
  put_target = -1;
  shmem_barrier_all();
  shmem_long_p(&put_target, me, (me + 1) % n);
  shmem_barrier_all();
  if (put_target != (me + n - 1) % n) {
    say("UNEXPECTED: PE %d got %ld\n", me, put_target);
    return 99;
  }
  say("helper: PE %d put/get after the strangers ok\n", me);
  return finish();
}

int main(int argc, char **argv) {
  say("helper: PE %d pid %d\n", env_rank(), (int)getpid());
  const char *s = argc > 1 ? argv[1] : "";
  if (!strcmp(s, "kill-in-barrier")) return kill_in_barrier();
  if (!strcmp(s, "kill-in-wait")) return kill_in_wait();
  if (!strcmp(s, "kill-while-busy")) return kill_while_busy();
  if (!strcmp(s, "kill-before-init")) return kill_before_init();
  if (!strcmp(s, "kill-after-init")) return kill_after_init();
  if (!strcmp(s, "exit-in-wait")) return exit_in_wait();
  if (!strcmp(s, "exit-in-barrier")) return exit_in_barrier();
  if (!strcmp(s, "exit-after-finalize")) return exit_after_finalize();
  if (!strcmp(s, "lock-holder-dies")) return lock_holder_dies(argc > 2 ? atoi(argv[2]) : 1);
  if (!strcmp(s, "timeout-wait")) return timeout_wait();
  if (!strcmp(s, "before-init")) return before_init();
  if (!strcmp(s, "put-before-init")) return put_before_init();
  if (!strcmp(s, "after-finalize")) return after_finalize();
  if (!strcmp(s, "pe-out-of-range")) return pe_out_of_range(argc > 2 ? atoi(argv[2]) : 5);
  if (!strcmp(s, "non-symmetric")) return non_symmetric();
  if (!strcmp(s, "past-end")) return past_end();
  if (!strcmp(s, "heap-exhaustion")) return heap_exhaustion();
  if (!strcmp(s, "alloc-mismatch")) return alloc_mismatch();
  if (!strcmp(s, "plain")) return plain();
  if (!strcmp(s, "own-host")) return own_host();
  if (!strcmp(s, "global-exit")) return global_exit();
  if (!strcmp(s, "output")) return output();
  if (!strcmp(s, "print-env")) return print_env(argc, argv);
  if (!strcmp(s, "ready-then-wait")) return ready_then_wait();
  if (!strcmp(s, "tcrun-stranger")) return tcrun_stranger();
  fprintf(stderr, "helper: unknown scenario '%s'\n", s);
  return 98;
}
