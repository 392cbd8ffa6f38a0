/* tilecomm-perf: point-to-point, barrier and collective micro-benchmarks for
 * OpenSHMEM.
 *
 * Portable C (this file and perf_coll.c): it builds against tilecomm (tccc)
 * and against any OpenSHMEM 1.4 library such as OpenMPI's OSHMEM (oshcc).
 * Apart from the collectives it only uses the OpenSHMEM 1.4 API; the
 * collectives use the 1.5 team forms where the library declares 1.5 and the
 * 1.4 forms otherwise (perf_coll.c).
 *
 * Measured between PE 0 (the initiator) and PE 1 (the target); any other PE
 * waits in shmem_barrier_all. The barrier and the collectives use every PE.
 *
 *   put_lat     shmem_putmem + shmem_quiet, per operation            us
 *   get_lat     shmem_getmem, per operation                          us
 *   put_bw      N x shmem_putmem back to back, then one shmem_quiet  MB/s (1 MB = 1e6 B)
 *   get_bw      N x shmem_getmem back to back, then one shmem_quiet  MB/s
 *   amo_fadd    shmem_long_atomic_fetch_add                          us
 *   amo_cswap   shmem_long_atomic_compare_swap (each one succeeds)   us
 *   amo_inc     shmem_long_atomic_inc + shmem_quiet (no fetch)       us
 *   signal_rtt  FULL round trip: PE 0 shmem_long_p's a flag to PE 1
 *               and waits on its own flag; PE 1 waits, then echoes   us
 *   barrier     shmem_barrier_all over all PEs ("size" = PE count)   us
 *   fcollect, broadcast (root 0), reduce (sum of longs), alltoall,
 *               collect: one collective over all PEs per iteration, back
 *               to back, no barrier in between; "size" = bytes per PE
 *               (alltoall: per peer; collect: on odd PEs, half on even
 *               ones), 8 B to --coll-max-size in powers of two. Each gives
 *               three rows: NAME (us per call), NAME_algbw and NAME_busbw
 *               (GB/s, 1 GB = 1e9 B, nccl-tests convention: perf_coll.h).
 *               Only run when --only names them (family "coll"); the
 *               deprecated 1.4 forms are fcollect64, broadcast64,
 *               sum_to_all, alltoall64 and collect64 (family
 *               "coll_deprecated").
 *   async       (tilecomm build only) the PTO DMA instructions against
 *               memcpy, and compute/transfer overlap: see perf_async.cpp
 *   ops         (tilecomm build only, when named) the communicator's
 *               operators against the OpenSHMEM collectives: perf_ops.cpp
 *   fused       (tilecomm build only, when named) the fused operators
 *               against the same work unfused: perf_fused.cpp
 *
 * Method: every measurement is a series of rounds. In a round, PE 0 tells
 * every PE the iteration count, all PEs meet in a barrier, the participants
 * run the kernel while PE 0 times it with CLOCK_MONOTONIC, and all meet again.
 * The first rounds calibrate (and warm up: caches, page faults, connections)
 * until a round lasts long enough to be timed reliably, and warm-up rounds
 * at the timed count raise it while they are much shorter than --rep-ms
 * (a slow start ends calibration early); then --reps rounds
 * of about --rep-ms milliseconds each are timed and the median is reported
 * (the table also shows the minimum and maximum of the repetitions).
 * A collective round stops PE 0's clock after the closing barrier, so that it
 * covers every PE's last call; that barrier is amortised over the round's
 * iterations (a round lasts about --rep-ms).
 *
 * Output is printed by PE 0 only: a table, or with --csv the lines
 * "metric,size,value,unit" after a header of those names. */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include "perf_coll.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_common.h"

#define MAX_SIZE_DEFAULT ((size_t)16 << 20) /* 16 MiB */
#define COLL_MAX_SIZE_DEFAULT ((size_t)64 << 20) /* 64 MiB per PE */
#define MIN_SIZE 8
#define MAX_REPS 51
#define LINE 16 /* longs between control words: 128 bytes, no false sharing */

/* ---- options ------------------------------------------------------------- */

static struct {
  int csv;
  int quick;
  const char *only; /* comma-separated metric names or families; NULL = all */
  int reps;
  double rep_seconds;
  size_t max_size;
  size_t coll_max_size;
} opt;

static int me, npes;

#ifdef TILECOMM_PERF_ASYNC
int tc_perf_async(int quick, int csv, int reps); /* perf_async.cpp */
int tc_perf_ops(int quick, int csv, int reps, size_t max_size); /* perf_ops.cpp */
int tc_perf_fused(int quick, int csv, int reps); /* perf_fused.cpp */
#endif

static void usage(FILE *to) {
  fprintf(to,
          "usage: perf [--csv] [--quick] [--only METRIC[,METRIC...]] [--reps N] [--rep-ms MS]\n"
          "            [--max-size BYTES] [--coll-max-size BYTES]\n"
          "  --csv           print metric,size,value,unit lines instead of a table\n"
          "  --quick         fewer and shorter repetitions (a smoke run)\n"
          "  --only LIST     run only these metrics; a family name selects its members\n"
          "                  metrics: put_lat get_lat put_bw get_bw amo_fadd amo_cswap amo_inc\n"
          "                           signal_rtt barrier\n"
          "                           fcollect broadcast reduce alltoall collect (only when named)\n"
          "                           fcollect64 broadcast64 sum_to_all alltoall64 collect64 (the deprecated forms)\n"
          "                  families: lat bw put get amo signal coll coll_deprecated\n"
#ifdef TILECOMM_PERF_ASYNC
          "                  async: the PTO DMA instructions vs memcpy, and overlap (runs on 1 PE too)\n"
          "                  ops: the communicator's operators vs the OpenSHMEM collectives (only when named)\n"
          "                  fused: the fused operators vs the same work unfused (only when named;\n"
          "                         run with OPENBLAS_NUM_THREADS=1)\n"
#endif
          "  --reps N        timed repetitions per result, median reported (default 5, quick 3)\n"
          "  --rep-ms MS     target length of one repetition (default 20, quick 3)\n"
          "  --max-size B    largest message for put/get, with optional K or M suffix (default 16M)\n"
          "  --coll-max-size B  largest per-PE size of the collectives (default 64M; lowered to what\n"
          "                  the symmetric heap holds: about (2 x PEs + 1) x B, see SHMEM_SYMMETRIC_SIZE;\n"
          "                  OpenMPI's OSHMEM reads SHMEM_SYMMETRIC_HEAP_SIZE instead)\n"
          "Run with at least 2 PEs (the barrier and the collectives also run on 1).\n");
}

/* Returns 0 to run, 1 after --help, or 2 after a usage error (PE 0 prints). */
static int parse_args(int argc, char **argv) {
  opt.max_size = MAX_SIZE_DEFAULT;
  opt.coll_max_size = COLL_MAX_SIZE_DEFAULT;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bad_value = 0;
    if (!strcmp(a, "--csv")) {
      opt.csv = 1;
    } else if (!strcmp(a, "--quick")) {
      opt.quick = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (me == 0) usage(stdout);
      return 1;
    } else if (!strncmp(a, "--only=", 7)) {
      opt.only = a + 7;
    } else if (val && !strcmp(a, "--only")) {
      opt.only = val, ++i;
    } else if (val && !strcmp(a, "--reps")) {
      opt.reps = atoi(val), ++i;
      bad_value = opt.reps < 1 || opt.reps > MAX_REPS;
    } else if (val && !strcmp(a, "--rep-ms")) {
      opt.rep_seconds = atof(val) / 1000.0, ++i;
      bad_value = !(opt.rep_seconds > 0);
    } else if (val && !strcmp(a, "--max-size")) {
      opt.max_size = parse_size(val), ++i;
      bad_value = opt.max_size < MIN_SIZE;
    } else if (val && !strcmp(a, "--coll-max-size")) {
      opt.coll_max_size = parse_size(val), ++i;
      bad_value = opt.coll_max_size < MIN_SIZE;
    } else {
      if (me == 0) {
        fprintf(stderr, "perf: unknown or incomplete option '%s'\n", a);
        usage(stderr);
      }
      return 2;
    }
    if (bad_value) {
      if (me == 0) fprintf(stderr, "perf: bad value '%s' for %s\n", val, a);
      return 2;
    }
  }
  if (!opt.reps) opt.reps = opt.quick ? 3 : 5;
  if (opt.rep_seconds == 0) opt.rep_seconds = opt.quick ? 0.003 : 0.020;
  return 0;
}

/* ---- statistics (the clock: bench_common.h) ------------------------------------ */

static double median(double *v, int n) { /* sorts v */
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- shared state ------------------------------------------------------------ */

static long *ctl;         /* symmetric control words, one per 128-byte line */
#define CTL_ITERS (ctl[0 * LINE]) /* this round's iteration count, written by PE 0 */
#define CTL_SIGNAL (ctl[1 * LINE]) /* my ping-pong flag, written by the partner */
#define CTL_AMO (ctl[2 * LINE])    /* the AMO target on PE 1 */
#define CTL_ERROR (ctl[3 * LINE])  /* set on PE 0 when a check fails elsewhere */
static char *sym_buf;    /* symmetric: put destination, get source (max_size bytes) */
static char *local_buf;  /* private: put source, get destination */
static long signal_seq;  /* ping-pong sequence number, the same on PE 0 and PE 1 */
static long amo_expect;  /* PE 0: the value CTL_AMO on PE 1 holds (only PE 0 changes it) */
static volatile long sink;

/* ---- kernels ----------------------------------------------------------------- *
 * A kernel runs n iterations on this PE. It is called on every PE; each one
 * does its part or nothing. PE 0's call is the one that is timed. */

static void k_put_lat(size_t size, long n) {
  if (me != 0) return;
  for (long i = 0; i < n; ++i) {
    shmem_putmem(sym_buf, local_buf, size, 1);
    shmem_quiet();
  }
}

static void k_get_lat(size_t size, long n) {
  if (me != 0) return;
  for (long i = 0; i < n; ++i) shmem_getmem(local_buf, sym_buf, size, 1);
}

static void k_put_bw(size_t size, long n) {
  if (me != 0) return;
  for (long i = 0; i < n; ++i) shmem_putmem(sym_buf, local_buf, size, 1);
  shmem_quiet();
}

static void k_get_bw(size_t size, long n) {
  if (me != 0) return;
  for (long i = 0; i < n; ++i) shmem_getmem(local_buf, sym_buf, size, 1);
  shmem_quiet();
}

static void k_amo_fadd(size_t size, long n) {
  (void)size;
  if (me != 0) return;
  long acc = 0;
  for (long i = 0; i < n; ++i) acc += shmem_long_atomic_fetch_add(&CTL_AMO, 1, 1);
  amo_expect += n;
  sink = acc;
}

static void k_amo_cswap(size_t size, long n) {
  (void)size;
  if (me != 0) return;
  long old = amo_expect; /* each swap succeeds, and depends on the previous one */
  for (long i = 0; i < n; ++i) old = shmem_long_atomic_compare_swap(&CTL_AMO, old, old + 1, 1) + 1;
  amo_expect = old;
}

static void k_amo_inc(size_t size, long n) {
  (void)size;
  if (me != 0) return;
  for (long i = 0; i < n; ++i) {
    shmem_long_atomic_inc(&CTL_AMO, 1);
    shmem_quiet();
  }
  amo_expect += n;
}

static void k_signal_rtt(size_t size, long n) {
  (void)size;
  if (me == 0) {
    for (long i = 0; i < n; ++i) {
      long s = ++signal_seq;
      shmem_long_p(&CTL_SIGNAL, s, 1);
      shmem_long_wait_until(&CTL_SIGNAL, SHMEM_CMP_GE, s);
    }
  } else if (me == 1) {
    for (long i = 0; i < n; ++i) {
      long s = ++signal_seq;
      shmem_long_wait_until(&CTL_SIGNAL, SHMEM_CMP_GE, s);
      shmem_long_p(&CTL_SIGNAL, s, 0);
    }
  }
}

static void k_barrier(size_t size, long n) {
  (void)size;
  for (long i = 0; i < n; ++i) shmem_barrier_all();
}

/* ---- metrics ------------------------------------------------------------------ */

enum kind { LATENCY, BANDWIDTH, COLLECTIVE }; /* a collective: us per call, and two bandwidths */

struct metric {
  const char *name;
  const char *family; /* comma-separated families it belongs to */
  const char *what;
  enum kind kind;
  int sized;      /* over the message sizes; otherwise one result */
  int all_pes;    /* runs on every PE (barrier); otherwise needs PE 0 and 1 */
  void (*kernel)(size_t, long);
  long max_iters; /* per round */
  enum coll_op coll; /* COLLECTIVE: which one (its `what` is coll_what[coll]) */
  int deprecated;    /* COLLECTIVE: the 1.4 form, also on a 1.5 library */
};

static const struct metric metrics[] = {
    {"put_lat", "lat,put", "shmem_putmem + shmem_quiet", LATENCY, 1, 0, k_put_lat, 10000000},
    {"get_lat", "lat,get", "shmem_getmem", LATENCY, 1, 0, k_get_lat, 10000000},
    {"put_bw", "bw,put", "N x shmem_putmem, then shmem_quiet", BANDWIDTH, 1, 0, k_put_bw, 10000000},
    {"get_bw", "bw,get", "N x shmem_getmem, then shmem_quiet", BANDWIDTH, 1, 0, k_get_bw, 10000000},
    {"amo_fadd", "amo,lat", "shmem_long_atomic_fetch_add", LATENCY, 0, 0, k_amo_fadd, 10000000},
    {"amo_cswap", "amo,lat", "shmem_long_atomic_compare_swap", LATENCY, 0, 0, k_amo_cswap, 10000000},
    {"amo_inc", "amo,lat", "shmem_long_atomic_inc + shmem_quiet", LATENCY, 0, 0, k_amo_inc, 10000000},
    {"signal_rtt", "signal,lat", "long_p + wait_until, echoed: FULL round trip", LATENCY, 0, 0, k_signal_rtt,
     1000000},
    {"barrier", "", "shmem_barrier_all, all PEs (size = PEs)", LATENCY, 0, 1, k_barrier, 1000000},
    {"fcollect", "coll", NULL, COLLECTIVE, 1, 1, k_fcollect, 1000000, COLL_FCOLLECT, 0},
    {"broadcast", "coll", NULL, COLLECTIVE, 1, 1, k_broadcast, 1000000, COLL_BROADCAST, 0},
    {"reduce", "coll", NULL, COLLECTIVE, 1, 1, k_reduce, 1000000, COLL_REDUCE, 0},
    {"alltoall", "coll", NULL, COLLECTIVE, 1, 1, k_alltoall, 1000000, COLL_ALLTOALL, 0},
    {"collect", "coll", NULL, COLLECTIVE, 1, 1, k_collect, 1000000, COLL_COLLECT, 0},
    {"fcollect64", "coll_deprecated", NULL, COLLECTIVE, 1, 1, k_fcollect64, 1000000, COLL_FCOLLECT, 1},
    {"broadcast64", "coll_deprecated", NULL, COLLECTIVE, 1, 1, k_broadcast64, 1000000, COLL_BROADCAST, 1},
    {"sum_to_all", "coll_deprecated", NULL, COLLECTIVE, 1, 1, k_sum_to_all, 1000000, COLL_REDUCE, 1},
    {"alltoall64", "coll_deprecated", NULL, COLLECTIVE, 1, 1, k_alltoall64, 1000000, COLL_ALLTOALL, 1},
    {"collect64", "coll_deprecated", NULL, COLLECTIVE, 1, 1, k_collect64, 1000000, COLL_COLLECT, 1},
};
#define NMETRICS ((int)(sizeof metrics / sizeof metrics[0]))

static int selected(const struct metric *m) {
  if (!opt.only) return m->kind != COLLECTIVE; /* collectives only when named: the default run stays short */
  if (list_has(opt.only, m->name)) return 1;
  for (const char *p = m->family; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char fam[32];
    if (len < sizeof fam) {
      memcpy(fam, p, len);
      fam[len] = 0;
      if (list_has(opt.only, fam)) return 1;
    }
    p = e ? e + 1 : "";
  }
  return 0;
}

static int only_is_valid(void) {
  if (!opt.only) return 1;
  static const char *const families[] = {"lat", "bw", "put", "get", "amo",
                                         "signal", "async", "ops", "fused", "coll", "coll_deprecated"};
  for (const char *p = opt.only; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    int ok = 0;
    for (int i = 0; i < NMETRICS && !ok; ++i) ok = strlen(metrics[i].name) == len && !strncmp(p, metrics[i].name, len);
    for (int i = 0; i < (int)(sizeof families / sizeof families[0]) && !ok; ++i) ok = strlen(families[i]) == len && !strncmp(p, families[i], len);
    if (!ok) {
      if (me == 0) fprintf(stderr, "perf: --only: unknown metric '%.*s'\n", (int)len, p);
      return 0;
    }
    p = e ? e + 1 : "";
  }
  return 1;
}

/* ---- the round protocol ------------------------------------------------------- */

/* One round on every PE: everybody meets, the kernel runs n iterations
 * (n is the same on every PE), everybody meets again. Returns the kernel's
 * duration on PE 0 (0 elsewhere). */
static double round_of(const struct metric *m, size_t size, long n) {
  shmem_barrier_all();
  double t0 = now();
  m->kernel(size, n);
  double t = now() - t0;
  shmem_barrier_all();
  if (m->kind == COLLECTIVE) t = now() - t0; /* until every PE finished its last call */
  return me == 0 ? t : 0;
}

/* PE 0's value of v, on every PE. measure() is collective: every PE calls it
 * with the same arguments and loops the same number of times, because PE 0
 * decides when calibration ends and how long a repetition is, and tells the
 * others through CTL_ITERS. */
static long agree(long v) {
  if (me == 0)
    for (int pe = 1; pe < npes; ++pe) shmem_long_p(&CTL_ITERS, v, pe);
  shmem_barrier_all();
  v = me == 0 ? v : CTL_ITERS;
  shmem_barrier_all(); /* nobody overwrites CTL_ITERS before everyone read it */
  return v;
}

struct result {
  double median, min, max;
  long iters;
};

static struct result measure(const struct metric *m, size_t size) {
  const double target = opt.rep_seconds;
  const double calib = target / 8; /* a calibration round this long is good enough */
  long n = 1;
  double t = 0;
  /* The run's first measurement starts after untimed rounds of about 25
   * repetitions' length: without them, the first size of a run measured up
   * to 2.5 times slow now and then, for every implementation alike. */
  static int settled;
  for (double spent = 0; !settled; spent += round_of(m, size, 1))
    settled = (int)agree(spent >= 25 * target);
  /* Calibration and warm-up: grow n until a round lasts `calib`. */
  for (;;) {
    t = round_of(m, size, n);
    if (m->kind == COLLECTIVE) { /* the faster of two rounds: one slow first call ends no calibration */
      double t2 = round_of(m, size, n);
      if (t2 < t) t = t2;
    }
    long next = 0; /* 0: done */
    if (me == 0 && t < calib && n < m->max_iters) {
      double grow = t > 0 ? calib / t * 1.5 : 100;
      if (grow < 2) grow = 2;
      if (grow > 100) grow = 100;
      double nn = (double)n * grow;
      next = nn > (double)m->max_iters ? m->max_iters : (long)nn;
    }
    next = agree(next);
    if (!next) break;
    n = next;
  }
  long reps_n = 0;
  if (me == 0) {
    double per_op = t / (double)n;
    double nn = per_op > 0 ? target / per_op : (double)m->max_iters;
    long min_iters = opt.quick ? 1 : 3;
    reps_n = nn > (double)m->max_iters ? m->max_iters : nn < (double)min_iters ? min_iters : (long)nn;
  }
  reps_n = agree(reps_n);
  /* Warm-up at the timed count, which it corrects while a round is much
   * shorter than a repetition: a slow start (connections still forming,
   * a descheduled PE) can end calibration at a handful of iterations. */
  for (int k = 0; k < 4; ++k) {
    double tw = round_of(m, size, reps_n);
    long better = 0;
    if (me == 0 && tw < target / 2 && reps_n < m->max_iters) {
      double nn = (double)reps_n * target / (tw > 0 ? tw : target / 100);
      better = nn > (double)m->max_iters ? m->max_iters : (long)nn;
    }
    better = agree(better);
    if (!better) break;
    reps_n = better;
  }

  double v[MAX_REPS];
  for (int r = 0; r < opt.reps; ++r) {
    double tr = round_of(m, size, reps_n);
    if (me == 0) {
      if (tr <= 0) tr = 1e-9;
      v[r] = m->kind != BANDWIDTH ? tr / (double)reps_n * 1e6 : (double)size * (double)reps_n / tr / 1e6;
    }
  }
  struct result res = {0, 0, 0, reps_n};
  if (me == 0) {
    res.median = median(v, opt.reps);
    res.min = v[0];
    res.max = v[opt.reps - 1];
  }
  return res;
}

/* Checks that put and get move the right bytes at this size (PE 1 checks
 * the put, PE 0 the get); a benchmark that copies nothing is fast but useless. */
static void verify(size_t size) {
  if (npes < 2) return;
  unsigned char tag = (unsigned char)(size * 7 + 1);
  if (me == 0) {
    local_buf[0] = (char)tag;
    local_buf[size - 1] = (char)(tag ^ 0x5a);
    shmem_putmem(sym_buf, local_buf, size, 1);
  }
  shmem_barrier_all();
  if (me == 1) {
    if ((unsigned char)sym_buf[0] != tag || (unsigned char)sym_buf[size - 1] != (unsigned char)(tag ^ 0x5a)) {
      fprintf(stderr, "perf: PE 1: shmem_putmem of %zu bytes delivered wrong data\n", size);
      shmem_long_p(&CTL_ERROR, 1, 0);
    }
    sym_buf[0] = (char)(tag ^ 0x33);
    sym_buf[size - 1] = (char)(tag ^ 0x44);
  }
  shmem_barrier_all();
  if (me == 0) {
    memset(local_buf, 0, size < 64 ? size : 64);
    local_buf[size - 1] = 0;
    shmem_getmem(local_buf, sym_buf, size, 1);
    if ((unsigned char)local_buf[0] != (unsigned char)(tag ^ 0x33) ||
        (unsigned char)local_buf[size - 1] != (unsigned char)(tag ^ 0x44)) {
      fprintf(stderr, "perf: PE 0: shmem_getmem of %zu bytes returned wrong data\n", size);
      CTL_ERROR = 1;
    }
  }
  shmem_barrier_all();
}

/* ---- output ------------------------------------------------------------------- */

static const char *unit_of(const struct metric *m) { return m->kind == LATENCY ? "us" : "MB/s"; }

static const char *human_size(size_t s, char *buf, size_t len) {
  if (s >= (1u << 20) && s % (1u << 20) == 0) snprintf(buf, len, "%zu MiB", s >> 20);
  else if (s >= 1024 && s % 1024 == 0) snprintf(buf, len, "%zu KiB", s >> 10);
  else snprintf(buf, len, "%zu B", s);
  return buf;
}

static void print_header(void) {
  if (opt.csv) {
    printf("metric,size,value,unit\n");
  } else {
    char name[SHMEM_MAX_NAME_LEN + 1] = {0};
    int major = 0, minor = 0;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    printf("# OpenSHMEM perf: %s (API %d.%d), %d PEs; PE 0 -> PE 1\n", name, major, minor, npes);
    printf("# each value: median of %d repetitions of ~%.0f ms (min and max shown); "
           "1 MB/s = 1e6 bytes/s\n",
           opt.reps, opt.rep_seconds * 1e3);
    int point_to_point = 0; /* the collectives print a header of their own */
    for (int i = 0; i < NMETRICS; ++i) point_to_point |= selected(&metrics[i]) && metrics[i].kind != COLLECTIVE;
    if (point_to_point)
      printf("%-11s %-46s %9s %12s %12s %12s %-5s %10s\n", "metric", "operation", "size", "median", "min", "max",
             "unit", "iters/rep");
  }
  fflush(stdout);
}

static void print_row(const struct metric *m, size_t size, const struct result *r) {
  if (opt.csv) {
    printf("%s,%zu,%.6g,%s\n", m->name, size, r->median, unit_of(m));
  } else {
    char sbuf[32];
    const char *s = !strcmp(m->name, "barrier") ? (snprintf(sbuf, sizeof sbuf, "%zu PEs", size), sbuf)
                                                : human_size(size, sbuf, sizeof sbuf);
    const char *fmt = m->kind == LATENCY ? "%-11s %-46s %9s %12.3f %12.3f %12.3f %-5s %10ld\n"
                                         : "%-11s %-46s %9s %12.1f %12.1f %12.1f %-5s %10ld\n";
    printf(fmt, m->name, m->what, s, r->median, r->min, r->max, unit_of(m), r->iters);
  }
  fflush(stdout);
}

/* A collective at one size: CSV rows NAME (us), NAME_algbw and NAME_busbw (GB/s);
 * in the table one line, after a header of its own before the first one. */
static void print_coll_row(const struct metric *m, size_t size, const struct result *r) {
  double bytes, factor;
  coll_bandwidth(m->coll, size, npes, &bytes, &factor);
  const double algbw = bytes / (r->median * 1e-6) / 1e9;
  if (opt.csv) {
    printf("%s,%zu,%.6g,us\n", m->name, size, r->median);
    printf("%s_algbw,%zu,%.6g,GB/s\n", m->name, size, algbw);
    printf("%s_busbw,%zu,%.6g,GB/s\n", m->name, size, algbw * factor);
  } else {
    static int header_done;
    if (!header_done) {
      header_done = 1;
      printf("# collectives over %d PEs, size = bytes per PE (alltoall: per peer; collect: odd PEs, even\n"
             "# PEs half of it); time per call in us;\n"
             "# algbw and busbw in GB/s (1e9 B/s) from the median time, nccl-tests convention\n",
             npes);
      printf("%-11s %-46s %9s %12s %12s %12s %9s %9s %10s\n", "metric", "operation", "size", "us median", "min",
             "max", "algbw", "busbw", "iters/rep");
    }
    char sbuf[32];
    const char *what = m->deprecated ? coll_what_deprecated[m->coll] : coll_what[m->coll];
    printf("%-11s %-46s %9s %12.3f %12.3f %12.3f %9.3f %9.3f %10ld\n", m->name, what,
           human_size(size, sbuf, sizeof sbuf), r->median, r->min, r->max, algbw, algbw * factor, r->iters);
  }
  fflush(stdout);
}

/* ---- main ----------------------------------------------------------------------- */

int main(int argc, char **argv) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();

  int rc = parse_args(argc, argv);
  if (rc == 0 && !only_is_valid()) rc = 2;
  int need_pair = 0;
  for (int i = 0; i < NMETRICS && rc == 0; ++i)
    if (selected(&metrics[i]) && !metrics[i].all_pes) need_pair = 1;
#ifdef TILECOMM_PERF_ASYNC
  const int run_async = !opt.only || list_has(opt.only, "async");
  const int run_ops = opt.only && list_has(opt.only, "ops");
  const int run_fused = opt.only && list_has(opt.only, "fused");
#endif
  if (rc == 0 && need_pair && npes < 2) {
    if (me == 0) fprintf(stderr, "perf: needs at least 2 PEs (only '--only barrier' runs on 1)\n");
    rc = 2;
  }
  if (rc) {
    shmem_finalize();
    return rc == 1 ? 0 : rc;
  }

  size_t max_size = opt.max_size;
  ctl = shmem_align(4096, 4 * LINE * sizeof(long));
  sym_buf = shmem_align(4096, max_size);
  if (!ctl || !sym_buf) {
    if (me == 0) fprintf(stderr, "perf: shmem_align of %zu bytes failed (SHMEM_SYMMETRIC_SIZE too small?)\n", max_size);
    shmem_global_exit(1);
  }
  void *lb = NULL;
  if (posix_memalign(&lb, 4096, max_size) != 0) {
    fprintf(stderr, "perf: PE %d: out of memory\n", me);
    shmem_global_exit(1);
  }
  local_buf = lb;
  memset(local_buf, 1, max_size); /* fault the pages in */
  memset(sym_buf, 2, max_size);
  memset(ctl, 0, 4 * LINE * sizeof(long));
  shmem_barrier_all();

  int run_coll = 0;
  for (int i = 0; i < NMETRICS; ++i) run_coll |= selected(&metrics[i]) && metrics[i].kind == COLLECTIVE;
  size_t coll_limit = run_coll ? coll_setup(me, npes, opt.coll_max_size) : 0;
  if (run_coll && coll_limit < MIN_SIZE) {
    if (me == 0) fprintf(stderr, "perf: no room for the collectives' buffers (SHMEM_SYMMETRIC_SIZE too small?)\n");
    shmem_global_exit(1);
  }
  if (run_coll && me == 0 && coll_limit * 2 <= opt.coll_max_size)
    fprintf(stderr, "perf: the collectives stop at %zu bytes per PE: the symmetric heap holds no more "
                    "(raise SHMEM_SYMMETRIC_SIZE; OpenMPI's OSHMEM: SHMEM_SYMMETRIC_HEAP_SIZE)\n", coll_limit);

  if (me == 0) print_header();

  for (int i = 0; i < NMETRICS; ++i) {
    const struct metric *m = &metrics[i];
    if (!selected(m)) continue;
    if (m->kind == COLLECTIVE) {
      for (size_t size = MIN_SIZE; size <= coll_limit; size *= 2) {
        coll_poison(m->coll, size);
        struct result r = measure(m, size);
        if (coll_check(m->coll, m->deprecated, size)) {
          if (me == 0) CTL_ERROR = 1;
          else shmem_long_p(&CTL_ERROR, 1, 0);
        }
        if (me == 0) print_coll_row(m, size, &r);
      }
    } else if (m->sized) {
      for (size_t size = MIN_SIZE;; size *= 4) {
        if (size > max_size) size = max_size;
        verify(size);
        struct result r = measure(m, size);
        if (me == 0) print_row(m, size, &r);
        if (size == max_size) break;
      }
    } else {
      struct result r = measure(m, m->all_pes ? (size_t)npes : sizeof(long));
      if (me == 0) print_row(m, m->all_pes ? (size_t)npes : sizeof(long), &r);
    }
  }

#ifdef TILECOMM_PERF_ASYNC
  if (run_async && tc_perf_async(opt.quick, opt.csv, opt.reps) != 0) CTL_ERROR = 1;
  if (run_ops && tc_perf_ops(opt.quick, opt.csv, opt.reps, coll_limit ? coll_limit : opt.coll_max_size) != 0)
    CTL_ERROR = 1;
  if (run_fused && tc_perf_fused(opt.quick, opt.csv, opt.reps) != 0) CTL_ERROR = 1;
#endif

  if (me == 0 && npes >= 2) {
    long seen = shmem_long_atomic_fetch(&CTL_AMO, 1);
    if (seen != amo_expect) {
      fprintf(stderr, "perf: PE 0: the AMO target holds %ld, expected %ld\n", seen, amo_expect);
      CTL_ERROR = 1;
    }
  }
  shmem_barrier_all();
  int failed = me == 0 && CTL_ERROR != 0;
  if (failed) fprintf(stderr, "perf: data checks failed; the numbers above are not valid\n");
  free(local_buf);
  if (run_coll) coll_teardown();
  shmem_free(sym_buf);
  shmem_free(ctl);
  shmem_finalize();
  return failed ? 1 : 0;
}
