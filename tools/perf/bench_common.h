/* What the benchmarks share (tilecomm-perf, bench/mpi_coll.c,
 * bench/memcpy_bw.c): the clock, the median's comparison, and the parsing of
 * sizes and --only lists; one definition for all three. */
#ifndef TILECOMM_BENCH_COMMON_H
#define TILECOMM_BENCH_COMMON_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort comparison of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A size with an optional K or M suffix ("64K", "16M"), or 0 when s is not one. */
static inline size_t parse_size(const char *s) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return 0;
  if (*end == 'k' || *end == 'K') v <<= 10, ++end;
  else if (*end == 'm' || *end == 'M') v <<= 20, ++end;
  return *end ? 0 : (size_t)v;
}

/* Whether the comma-separated list holds word. */
static inline int list_has(const char *list, const char *word) {
  size_t w = strlen(word);
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == w && !strncmp(p, word, w)) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

#endif
