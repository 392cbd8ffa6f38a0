/* mpi_coll: the collective benchmarks of tilecomm-perf (tools/perf/perf.c,
 * perf_coll.c) measured through MPI, so that bench/compare-coll can set
 * OpenMPI and MPICH beside tilecomm and OSHMEM.
 *
 * Portable MPI-1 C; build it with each MPI's wrapper (mpicc.openmpi,
 * mpicc.mpich). The metrics and their names are those of tilecomm-perf:
 *
 *   fcollect   MPI_Allgather, MPI_BYTE               size = bytes per rank
 *   broadcast  MPI_Bcast, MPI_BYTE, root 0           size = bytes
 *   reduce     MPI_Allreduce, MPI_LONG, MPI_SUM      size = bytes of the vector
 *   alltoall   MPI_Alltoall, MPI_BYTE                size = bytes per peer
 *   collect    MPI_Allgatherv, MPI_BYTE              size = bytes of odd ranks, even
 *                                                    ranks half (collect_share())
 *
 * over MPI_COMM_WORLD, sizes 8 B to --max-size in powers of two, each one
 * reported as NAME (us per call), NAME_algbw and NAME_busbw (GB/s; the
 * convention of tools/perf/perf_coll.h).
 *
 * Method (the same as tilecomm-perf's): a round is a barrier, n calls back to
 * back with no barrier in between, and a closing barrier; rank 0 times it
 * with CLOCK_MONOTONIC from the end of the first barrier to the end of the
 * last. Rounds first calibrate (the faster of two rounds at each n, growing n
 * until a round lasts --rep-ms / 8), then --reps rounds of about --rep-ms are
 * timed and the median of (round time / n) is reported. The received data is
 * checked after every size.
 *
 * Output from rank 0: a table, or with --csv "metric,size,value,unit" lines
 * after a header of those names. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include "../tools/perf/perf_coll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../tools/perf/bench_common.h"

#define MIN_SIZE 8
#define MAX_REPS 51
#define MAX_ITERS 1000000L

static struct {
  int csv, quick, reps;
  const char *only;
  double rep_seconds;
  size_t max_size;
} opt;

static int me, npes;
static char *sendbuf, *recvbuf; /* npes * limit bytes each; every long of sendbuf holds me + 1 */

struct metric {
  const char *name;
  enum coll_op op;
  const char *what;
};

static const struct metric metrics[] = {
    {"fcollect", COLL_FCOLLECT, "MPI_Allgather, MPI_BYTE"},
    {"broadcast", COLL_BROADCAST, "MPI_Bcast, MPI_BYTE, root 0"},
    {"reduce", COLL_REDUCE, "MPI_Allreduce, MPI_LONG, MPI_SUM"},
    {"alltoall", COLL_ALLTOALL, "MPI_Alltoall, MPI_BYTE"},
    {"collect", COLL_COLLECT, "MPI_Allgatherv, MPI_BYTE"},
};
#define NMETRICS ((int)(sizeof metrics / sizeof metrics[0]))

static void usage(FILE *to) {
  fprintf(to, "usage: mpi_coll [--csv] [--quick] [--only NAME[,NAME...]] [--reps N] [--rep-ms MS] [--max-size B]\n"
              "  --csv           print metric,size,value,unit lines instead of a table\n"
              "  --quick         fewer and shorter repetitions (a smoke run)\n"
              "  --only LIST     fcollect broadcast reduce alltoall collect, or the family coll (default: all)\n"
              "  --reps N        timed repetitions per result, median reported (default 5, quick 3)\n"
              "  --rep-ms MS     target length of one repetition (default 20, quick 3)\n"
              "  --max-size B    largest size, K or M suffix (default 64M; --coll-max-size is the same)\n");
}

static int selected(const struct metric *m) {
  return !opt.only || list_has(opt.only, "coll") || list_has(opt.only, m->name);
}

/* Returns 0 to run, 1 after --help, 2 after a usage error (rank 0 prints). */
static int parse_args(int argc, char **argv) {
  opt.max_size = (size_t)64 << 20;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (!strcmp(a, "--csv")) opt.csv = 1;
    else if (!strcmp(a, "--quick")) opt.quick = 1;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (me == 0) usage(stdout);
      return 1;
    } else if (!strncmp(a, "--only=", 7)) opt.only = a + 7;
    else if (val && !strcmp(a, "--only")) opt.only = val, ++i;
    else if (val && !strcmp(a, "--reps")) opt.reps = atoi(val), ++i, bad = opt.reps < 1 || opt.reps > MAX_REPS;
    else if (val && !strcmp(a, "--rep-ms")) opt.rep_seconds = atof(val) / 1e3, ++i, bad = !(opt.rep_seconds > 0);
    else if (val && (!strcmp(a, "--max-size") || !strcmp(a, "--coll-max-size")))
      opt.max_size = parse_size(val), ++i, bad = opt.max_size < MIN_SIZE;
    else {
      if (me == 0) {
        fprintf(stderr, "mpi_coll: unknown or incomplete option '%s'\n", a);
        usage(stderr);
      }
      return 2;
    }
    if (bad) {
      if (me == 0) fprintf(stderr, "mpi_coll: bad value '%s' for %s\n", val, a);
      return 2;
    }
  }
  for (const char *p = opt.only; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    int ok = len == 4 && !strncmp(p, "coll", 4);
    for (int i = 0; i < NMETRICS && !ok; ++i) ok = strlen(metrics[i].name) == len && !strncmp(p, metrics[i].name, len);
    if (!ok) {
      if (me == 0) fprintf(stderr, "mpi_coll: --only: unknown metric '%.*s'\n", (int)len, p);
      return 2;
    }
    p = e ? e + 1 : "";
  }
  if (!opt.reps) opt.reps = opt.quick ? 3 : 5;
  if (opt.rep_seconds == 0) opt.rep_seconds = opt.quick ? 0.003 : 0.020;
  return 0;
}


/* ---- kernels and checks ------------------------------------------------------ */

/* Where block b of recvbuf starts (bytes) and how long it is: `size`, or
 * rank b's collect_share(). */
static size_t block_at(enum coll_op op, size_t size, int b, size_t *len) {
  *len = op == COLL_COLLECT ? collect_share(b, size) : size;
  return op == COLL_COLLECT ? collect_at(b, size) : (size_t)b * size;
}

static void kernel(enum coll_op op, size_t size, long n) {
  const int count = (int)size;
  static int *counts, *displs;
  if (op == COLL_COLLECT && !counts) {
    counts = malloc(sizeof *counts * (size_t)npes);
    displs = malloc(sizeof *displs * (size_t)npes);
    if (!counts || !displs) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (op == COLL_COLLECT)
    for (int b = 0; b < npes; ++b) {
      size_t len;
      displs[b] = (int)block_at(op, size, b, &len);
      counts[b] = (int)len;
    }
  for (long i = 0; i < n; ++i) {
    switch (op) {
    case COLL_FCOLLECT:
      MPI_Allgather(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case COLL_BROADCAST: /* the root sends its sendbuf, the others receive into recvbuf */
      MPI_Bcast(me == 0 ? sendbuf : recvbuf, count, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case COLL_REDUCE:
      MPI_Allreduce(sendbuf, recvbuf, count / (int)sizeof(long), MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      break;
    case COLL_COLLECT:
      MPI_Allgatherv(sendbuf, counts[me], MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
      break;
    default:
      MPI_Alltoall(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, MPI_COMM_WORLD);
      break;
    }
  }
}

/* The blocks of recvbuf that this rank receives; block b holds b + 1 when
 * per_block, else `value`. */
static int blocks_of(enum coll_op op, int *per_block, long *value) {
  *per_block = op == COLL_FCOLLECT || op == COLL_ALLTOALL || op == COLL_COLLECT;
  *value = op == COLL_REDUCE ? (long)npes * (npes + 1) / 2 : 1;
  if (op == COLL_BROADCAST) return me == 0 ? 0 : 1;
  return *per_block ? npes : 1;
}

static void poison(enum coll_op op, size_t size) {
  int per_block;
  long value;
  int blocks = blocks_of(op, &per_block, &value);
  long *d = (long *)recvbuf;
  for (int b = 0; b < blocks; ++b) {
    size_t len, at = block_at(op, size, b, &len) / sizeof(long);
    d[at] = d[at + len / sizeof(long) - 1] = -7;
  }
}

static int check(const struct metric *m, size_t size) {
  int per_block;
  long value;
  int blocks = blocks_of(m->op, &per_block, &value);
  const long *d = (const long *)recvbuf;
  for (int b = 0; b < blocks; ++b) {
    long want = per_block ? b + 1 : value;
    size_t len, at = block_at(m->op, size, b, &len) / sizeof(long), last = at + len / sizeof(long) - 1;
    if (d[at] != want || d[last] != want) {
      fprintf(stderr, "mpi_coll: rank %d: %s of %zu bytes: block %d holds %ld..%ld, expected %ld\n", me, m->name, size,
              b, d[at], d[last], want);
      return 1;
    }
  }
  return 0;
}

/* ---- measurement --------------------------------------------------------------- */

static double round_of(enum coll_op op, size_t size, long n) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  kernel(op, size, n);
  MPI_Barrier(MPI_COMM_WORLD);
  return me == 0 ? now() - t0 : 0;
}

static long agree(long v) { /* rank 0's value, on every rank */
  MPI_Bcast(&v, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return v;
}

struct result {
  double median, min, max;
  long iters;
};

static struct result measure(enum coll_op op, size_t size) {
  const double target = opt.rep_seconds, calib = target / 8;
  long n = 1;
  double t = 0;
  static int settled; /* untimed rounds before the run's first measurement, as perf.c's */
  for (double spent = 0; !settled; spent += round_of(op, size, 1))
    settled = (int)agree(spent >= 25 * target);
  for (;;) {
    t = round_of(op, size, n);
    double t2 = round_of(op, size, n);
    if (t2 < t) t = t2;
    long next = 0;
    if (me == 0 && t < calib && n < MAX_ITERS) {
      double grow = t > 0 ? calib / t * 1.5 : 100;
      grow = grow < 2 ? 2 : grow > 100 ? 100 : grow;
      double nn = (double)n * grow;
      next = nn > (double)MAX_ITERS ? MAX_ITERS : (long)nn;
    }
    next = agree(next);
    if (!next) break;
    n = next;
  }
  long reps_n = 0;
  if (me == 0) {
    double per_op = t / (double)n, nn = per_op > 0 ? target / per_op : (double)MAX_ITERS;
    long min_iters = opt.quick ? 1 : 3;
    reps_n = nn > (double)MAX_ITERS ? MAX_ITERS : nn < (double)min_iters ? min_iters : (long)nn;
  }
  reps_n = agree(reps_n);
  round_of(op, size, reps_n); /* one more warm-up at the timed count */
  double v[MAX_REPS];
  for (int r = 0; r < opt.reps; ++r) {
    double tr = round_of(op, size, reps_n);
    v[r] = (tr > 0 ? tr : 1e-9) / (double)reps_n * 1e6;
  }
  struct result res = {0, 0, 0, reps_n};
  if (me == 0) {
    qsort(v, (size_t)opt.reps, sizeof *v, cmp_double);
    int k = opt.reps;
    res.median = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    res.min = v[0];
    res.max = v[k - 1];
  }
  return res;
}

/* ---- output ---------------------------------------------------------------------- */

static void print_row(const struct metric *m, size_t size, const struct result *r) {
  double bytes, factor;
  coll_bandwidth(m->op, size, npes, &bytes, &factor);
  const double algbw = bytes / (r->median * 1e-6) / 1e9;
  if (opt.csv) {
    printf("%s,%zu,%.6g,us\n%s_algbw,%zu,%.6g,GB/s\n%s_busbw,%zu,%.6g,GB/s\n", m->name, size, r->median, m->name, size,
           algbw, m->name, size, algbw * factor);
  } else {
    char s[32];
    if (size >= (1u << 20) && size % (1u << 20) == 0) snprintf(s, sizeof s, "%zu MiB", size >> 20);
    else if (size >= 1024 && size % 1024 == 0) snprintf(s, sizeof s, "%zu KiB", size >> 10);
    else snprintf(s, sizeof s, "%zu B", size);
    printf("%-11s %-34s %9s %12.3f %12.3f %12.3f %9.3f %9.3f %10ld\n", m->name, m->what, s, r->median, r->min, r->max,
           algbw, algbw * factor, r->iters);
  }
  fflush(stdout);
}

static void print_header(void) {
  if (opt.csv) {
    printf("metric,size,value,unit\n");
  } else {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl) *nl = 0;
    printf("# MPI collectives: %s, %d ranks\n", version, npes);
    printf("# size = bytes per rank (alltoall: per peer); time per call in us, median of %d repetitions of ~%.0f ms;\n"
           "# algbw and busbw in GB/s (1e9 B/s) from the median time, nccl-tests convention\n",
           opt.reps, opt.rep_seconds * 1e3);
    printf("%-11s %-34s %9s %12s %12s %12s %9s %9s %10s\n", "metric", "operation", "size", "us median", "min", "max",
           "algbw", "busbw", "iters/rep");
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &npes);
  int rc = parse_args(argc, argv);
  if (rc) {
    MPI_Finalize();
    return rc == 1 ? 0 : rc;
  }
  size_t limit = MIN_SIZE;
  while (limit * 2 <= opt.max_size) limit *= 2;
  if (limit > (size_t)0x7fffffff) limit = (size_t)1 << 30; /* MPI counts are ints */
  const size_t span = (size_t)npes * limit;
  void *s = NULL, *r = NULL;
  if (posix_memalign(&s, 4096, span) || posix_memalign(&r, 4096, span)) {
    fprintf(stderr, "mpi_coll: rank %d: out of memory for 2 x %zu bytes\n", me, span);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  sendbuf = s, recvbuf = r;
  for (size_t i = 0; i < span / sizeof(long); ++i) ((long *)sendbuf)[i] = me + 1;
  memset(recvbuf, 0, span); /* fault the pages in */

  if (me == 0) print_header();
  int bad = 0;
  for (int i = 0; i < NMETRICS; ++i) {
    const struct metric *m = &metrics[i];
    if (!selected(m)) continue;
    for (size_t size = MIN_SIZE; size <= limit; size *= 2) {
      poison(m->op, size);
      struct result res = measure(m->op, size);
      bad |= check(m, size);
      if (me == 0) print_row(m, size, &res);
    }
  }
  int any_bad = 0;
  MPI_Reduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0 && any_bad) fprintf(stderr, "mpi_coll: data checks failed; the numbers above are not valid\n");
  free(sendbuf);
  free(recvbuf);
  MPI_Finalize();
  return me == 0 && any_bad ? 1 : 0;
}
