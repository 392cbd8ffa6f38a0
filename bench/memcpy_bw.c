/* memcpy_bw: this host's yardsticks, which bench/compare-coll and
 * bench/compare-fused print above their tables.
 *
 *   memcpy_bw [BYTES]   (default 64 MiB, K or M suffix)
 *
 * 1. memcpy bandwidth on one core. Copies BYTES between two private buffers
 *    (faulted in first) in rounds of about 50 ms, 7 timed rounds after a
 *    warm-up, and prints the median as "memcpy,BYTES,VALUE,GB/s" with GB/s =
 *    bytes copied / time / 1e9 (each byte is read once and written once).
 *    Well beyond the caches at the default size, it bounds what one core can
 *    move through memory.
 * 2. The round trip of a cache line between the first two CPUs this process
 *    may run on (two threads pinned, each waiting for the other's store),
 *    sampled RTT_SAMPLES times 100 ms apart, printed as
 *    "rtt,SAMPLES,MIN,MEDIAN,MAX,ns". Every collective between two CPUs
 *    pays it; on virtual machines whose vCPUs the hypervisor moves between
 *    cores, it changes from one second to the next, and so do the
 *    collectives' times (bench/README.md, "A host that changes state").
 *    Not printed with fewer than two CPUs. */
#define _GNU_SOURCE

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../tools/perf/bench_common.h"

#define ROUNDS 7
#define RTT_SAMPLES 20
#define RTT_TRIPS 20000

static _Alignas(64) atomic_long ball;

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The other end: returns each odd value as the next even one. */
static void *echo(void *cpu) {
  (void)pin(*(int *)cpu); /* unpinned, it still answers: the caller waits for every trip */
  for (long i = 0; i < RTT_TRIPS; ++i) {
    while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1) {
    }
    atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

/* Nanoseconds per round trip between cpus[0] and cpus[1], or -1. */
static double round_trip(int cpus[2]) {
  pthread_t other;
  atomic_store(&ball, 0);
  if (pthread_create(&other, NULL, echo, &cpus[1])) return -1;
  double t0 = now();
  for (long i = 0; i < RTT_TRIPS; ++i) {
    atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2) {
    }
  }
  double t = now() - t0;
  pthread_join(other, NULL);
  return t / RTT_TRIPS * 1e9;
}

static void print_round_trips(void) {
  cpu_set_t allowed;
  int cpus[2], found = 0;
  if (sched_getaffinity(0, sizeof allowed, &allowed)) return;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  if (found < 2 || pin(cpus[0])) return;
  double ns[RTT_SAMPLES];
  for (int i = 0; i < RTT_SAMPLES; ++i) {
    if ((ns[i] = round_trip(cpus)) < 0) return;
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  qsort(ns, RTT_SAMPLES, sizeof ns[0], cmp_double);
  printf("rtt,%d,%.0f,%.0f,%.0f,ns\n", RTT_SAMPLES, ns[0], ns[RTT_SAMPLES / 2], ns[RTT_SAMPLES - 1]);
}


int main(int argc, char **argv) {
  size_t bytes = (size_t)64 << 20;
  if (argc > 1 && (bytes = parse_size(argv[1])) == 0) {
    fprintf(stderr, "usage: memcpy_bw [BYTES]\n");
    return 2;
  }
  void *a = NULL, *b = NULL;
  if (posix_memalign(&a, 4096, bytes) || posix_memalign(&b, 4096, bytes)) {
    fprintf(stderr, "memcpy_bw: out of memory for 2 x %zu bytes\n", bytes);
    return 1;
  }
  memset(a, 1, bytes);
  memset(b, 2, bytes);

  /* Calibrate: copies per round so that a round lasts about 50 ms. */
  double t0 = now();
  memcpy(b, a, bytes);
  double once = now() - t0;
  long n = once > 0 ? (long)(0.05 / once) : 1000;
  if (n < 1) n = 1;

  double gbs[ROUNDS];
  volatile unsigned char sink = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    t0 = now();
    for (long i = 0; i < n; ++i) {
      memcpy(i % 2 ? a : b, i % 2 ? b : a, bytes);
      sink ^= ((unsigned char *)(i % 2 ? a : b))[i % bytes];
    }
    double t = now() - t0;
    gbs[r] = (double)bytes * (double)n / (t > 0 ? t : 1e-9) / 1e9;
  }
  qsort(gbs, ROUNDS, sizeof gbs[0], cmp_double);
  printf("memcpy,%zu,%.3f,GB/s\n", bytes, gbs[ROUNDS / 2]);
  free(a);
  free(b);
  print_round_trips();
  return 0;
}
