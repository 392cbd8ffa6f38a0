/* memcpy_bw: this host's memcpy bandwidth on one core, the yardstick that
 * bench/compare-coll prints beside the collectives' bus bandwidths.
 *
 *   memcpy_bw [BYTES]   (default 64 MiB, K or M suffix)
 *
 * Copies BYTES between two private buffers (faulted in first) in rounds of
 * about 50 ms, 7 timed rounds after a warm-up, and prints the median as
 * "memcpy,BYTES,VALUE,GB/s" with GB/s = bytes copied / time / 1e9 (each byte
 * is read once and written once). Well beyond the caches at the default
 * size, it bounds what one core can move through memory. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../tools/perf/bench_common.h"

#define ROUNDS 7


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
  return 0;
}
