/* The communicator's C API from C (<tilecomm/comm.h>): every one-call
 * operator on exact integer data (signed and unsigned, every reduce
 * operation, avg included; the matmuls on small integer-valued floats, so
 * every product and sum is exact), the errors (a value that is no
 * enumerator, NULL buffers, a destroyed handle, misused launches and
 * helpers), and C kernels launched by tilecomm_comm_launch: seed 001's
 * AllGather through the windows with the fan-in helpers, a ring with the
 * pairwise ones, and kernels whose helpers fail.
 *
 * Compiled as strict C11 (no extensions). Each entry point is collective
 * over the communicator it is given, returns the number of failed checks
 * and prints every failure with the rank; test_comm_c.cpp calls them from
 * GoogleTest tests. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tilecomm/comm.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "comm_c_api.c must be compiled as C11"
#endif

static int g_fails;
static int g_me; /* this rank, for the messages */

#define CHECK(cond, ...)                                                                              \
  do {                                                                                                \
    if (!(cond)) {                                                                                    \
      ++g_fails;                                                                                      \
      fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", g_me, __FILE__, __LINE__, #cond);       \
      fprintf(stderr, __VA_ARGS__);                                                                   \
      fputc('\n', stderr);                                                                            \
    }                                                                                                 \
  } while (0)

/* A call that must succeed. */
#define OK(call) CHECK((call) == TILECOMM_SUCCESS, "%s", tilecomm_comm_last_error())

/* A call that must fail with `code`, its message holding `part`. */
#define FAILS(call, code, part)                                                                        \
  do {                                                                                                 \
    const tilecomm_result_t rc_ = (call);                                                              \
    CHECK(rc_ == (code), "returned %d, want %d (%s)", (int)rc_, (int)(code), tilecomm_comm_last_error()); \
    CHECK(strstr(tilecomm_comm_last_error(), (part)) != NULL, "message \"%s\" lacks \"%s\"",            \
          tilecomm_comm_last_error(), (part));                                                         \
  } while (0)

/* got[i] == (T)(want) for i in [0, n), `want` an expression of i; reports the first wrong element. */
#define EXPECT_ALL(T, got, n, want, what)                                                              \
  do {                                                                                                 \
    long bad_ = 0, first_ = -1;                                                                        \
    double got_ = 0, want_ = 0;                                                                        \
    for (long i = 0; i < (long)(n); ++i) {                                                             \
      const T w_ = (T)(want);                                                                          \
      if ((got)[i] != w_) {                                                                            \
        if (first_ < 0) first_ = i, got_ = (double)(got)[i], want_ = (double)w_;                       \
        ++bad_;                                                                                        \
      }                                                                                                \
    }                                                                                                  \
    CHECK(bad_ == 0, "%s: %ld of %ld elements wrong; first %ld: %.17g, want %.17g", (what), bad_,      \
          (long)(n), first_, got_, want_);                                                             \
  } while (0)

static void *alloc(size_t bytes) {
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p) {
    fprintf(stderr, "[rank %d] out of memory (%zu bytes)\n", g_me, bytes);
    abort();
  }
  return p;
}

static void start(tilecomm_comm_t c, int *me, int *n) {
  g_fails = 0;
  *me = *n = -1;
  OK(tilecomm_comm_rank(c, me));
  OK(tilecomm_comm_size(c, n));
  g_me = *me;
}

/* ---- collective operators ------------------------------------------------------ */

/* Values with negative and positive elements, and unsigned ones past the signed range. */
static int32_t gval(int r, long i) { return (int32_t)(r * 1000 + i % 1000 - 500); }
static int64_t hval(int r, long j) { return (int64_t)r * 1000003 - 7 + j; }
static uint32_t uval(int r, long j) { return (uint32_t)r * 2654435761u + (uint32_t)j * 40503u; }
static int32_t xval(int r, long i) { return (int32_t)((r * 7 + i * 3) % 23 - 11); }
static int32_t pval(int r, long i) { return (r + i) % 3 == 0 ? -1 : (r + i) % 3 == 1 ? 1 : 2; }
static uint64_t wval(int r, long i) { return 0xF000000000000000ull + (uint64_t)r * 0x100000001ull + (uint64_t)i; }
static uint16_t aval(int r, long i) { return (uint16_t)(65000 + r * 100 + i % 50); }
static uint8_t bval(int r, long i) { return (uint8_t)(200 + r * 7 + i); }
static int32_t tval(int s, int d, long i) { return (int32_t)(s * 100000 + d * 1000 + i % 1000); }
static uint64_t vcount(int s, int d, uint64_t count) { return (uint64_t)((s + 2 * d) % 4) * count / 2; }
static uint64_t vval(int s, int d, uint64_t j) { return 0x8000000000000000ull + (uint64_t)s * 1000000 + (uint64_t)d * 1000 + j; }

static void allgathers(tilecomm_comm_t c, int me, int n, long count) {
  int32_t *in = alloc(count * 4), *out = alloc(n * count * 4);
  for (long i = 0; i < count; ++i) in[i] = gval(me, i);
  OK(tilecomm_allgather(c, in, out, count, TILECOMM_INT32));
  EXPECT_ALL(int32_t, out, n * count, gval((int)(i / count), i % count), "allgather int32");
  uint8_t *in8 = alloc(count), *out8 = alloc(n * count);
  for (long i = 0; i < count; ++i) in8[i] = (uint8_t)(me * 31 + i);
  OK(tilecomm_allgather(c, in8, out8, count, TILECOMM_UINT8));
  EXPECT_ALL(uint8_t, out8, n * count, (i / count) * 31 + i % count, "allgather uint8");
  free(in), free(out), free(in8), free(out8);
}

static void reduce_scatters(tilecomm_comm_t c, int me, int n, long count) {
  int64_t *in = alloc(n * count * 8), *out = alloc(count * 8), *want = alloc(count * 8);
  for (long j = 0; j < n * count; ++j) in[j] = hval(me, j);
  for (long i = 0; i < count; ++i)
    for (int r = 0; r < n; ++r) want[i] += hval(r, me * count + i);
  OK(tilecomm_reduce_scatter(c, in, out, count, TILECOMM_INT64, TILECOMM_SUM));
  EXPECT_ALL(int64_t, out, count, want[i], "reduce_scatter int64 sum");
  uint32_t *uin = alloc(n * count * 4), *uout = alloc(count * 4), *uwant = alloc(count * 4);
  for (long j = 0; j < n * count; ++j) uin[j] = uval(me, j);
  for (long i = 0; i < count; ++i)
    for (int r = 0; r < n; ++r)
      if (uval(r, me * count + i) > uwant[i]) uwant[i] = uval(r, me * count + i);
  OK(tilecomm_reduce_scatter(c, uin, uout, count, TILECOMM_UINT32, TILECOMM_MAX));
  EXPECT_ALL(uint32_t, uout, count, uwant[i], "reduce_scatter uint32 max");
  free(in), free(out), free(want), free(uin), free(uout), free(uwant);
}

static void allreduces(tilecomm_comm_t c, int me, int n, long count) {
  int32_t *in = alloc(count * 4), *out = alloc(count * 4), *want = alloc(count * 4);
  const tilecomm_reduce_op_t ops[] = {TILECOMM_SUM, TILECOMM_PROD, TILECOMM_MAX, TILECOMM_MIN, TILECOMM_AVG};
  const char *names[] = {"allreduce int32 sum", "allreduce int32 prod", "allreduce int32 max", "allreduce int32 min",
                         "allreduce int32 avg"};
  for (int o = 0; o < 5; ++o) {
    for (long i = 0; i < count; ++i) {
      in[i] = ops[o] == TILECOMM_PROD ? pval(me, i) : xval(me, i);
      int32_t w = ops[o] == TILECOMM_PROD ? 1 : ops[o] == TILECOMM_SUM || ops[o] == TILECOMM_AVG ? 0 : xval(0, i);
      for (int r = 0; r < n; ++r) {
        const int32_t x = xval(r, i);
        if (ops[o] == TILECOMM_PROD) w *= pval(r, i);
        else if (ops[o] == TILECOMM_MAX) w = x > w ? x : w;
        else if (ops[o] == TILECOMM_MIN) w = x < w ? x : w;
        else w += x;
      }
      want[i] = ops[o] == TILECOMM_AVG ? w / n : w; /* C divides toward zero, as avg does */
    }
    OK(tilecomm_allreduce(c, in, out, count, TILECOMM_INT32, ops[o]));
    EXPECT_ALL(int32_t, out, count, want[i], names[o]);
  }
  /* uint64: a sum past 2^64 wraps. */
  uint64_t *win = alloc(count * 8), *wout = alloc(count * 8);
  for (long i = 0; i < count; ++i) win[i] = wval(me, i);
  OK(tilecomm_allreduce(c, win, wout, count, TILECOMM_UINT64, TILECOMM_SUM));
  {
    uint64_t w0 = 0;
    for (int r = 0; r < n; ++r) w0 += wval(r, 0);
    EXPECT_ALL(uint64_t, wout, count, w0 + (uint64_t)n * (uint64_t)i, "allreduce uint64 sum");
  }
  /* uint16 avg: the sum wraps at 2^16, then is divided. */
  uint16_t *ain = alloc(count * 2), *aout = alloc(count * 2), *awant = alloc(count * 2);
  for (long i = 0; i < count; ++i) {
    uint16_t s = 0;
    for (int r = 0; r < n; ++r) s = (uint16_t)(s + aval(r, i));
    ain[i] = aval(me, i);
    awant[i] = (uint16_t)(s / n);
  }
  OK(tilecomm_allreduce(c, ain, aout, count, TILECOMM_UINT16, TILECOMM_AVG));
  EXPECT_ALL(uint16_t, aout, count, awant[i], "allreduce uint16 avg");
  /* uint8 min: values past 255 wrap to small ones. */
  uint8_t *bin = alloc(count), *bout = alloc(count);
  for (long i = 0; i < count; ++i) bin[i] = bval(me, i);
  OK(tilecomm_allreduce(c, bin, bout, count, TILECOMM_UINT8, TILECOMM_MIN));
  for (long i = 0; i < count; ++i) {
    uint8_t m = 255;
    for (int r = 0; r < n; ++r) m = bval(r, i) < m ? bval(r, i) : m;
    want[i] = m;
  }
  EXPECT_ALL(uint8_t, bout, count, want[i], "allreduce uint8 min");
  free(in), free(out), free(want), free(win), free(wout), free(ain), free(aout), free(awant), free(bin), free(bout);
}

static void reduces(tilecomm_comm_t c, int me, int n, long count) {
  /* int32 sum to the last rank; the others pass no output. */
  const int root = n - 1;
  int32_t *in = alloc(count * 4), *out = alloc(count * 4);
  for (long i = 0; i < count; ++i) in[i] = xval(me, i);
  OK(tilecomm_reduce(c, in, me == root ? out : NULL, count, TILECOMM_INT32, TILECOMM_SUM, root));
  if (me == root) {
    long bad = 0;
    for (long i = 0; i < count; ++i) {
      int32_t w = 0;
      for (int r = 0; r < n; ++r) w += xval(r, i);
      bad += out[i] != w;
    }
    CHECK(bad == 0, "reduce int32 sum at root %d: %ld wrong", root, bad);
  }
  /* uint64 max to rank 0; the others' outputs stay as they were. */
  uint64_t *win = alloc(count * 8), *wout = alloc(count * 8);
  for (long i = 0; i < count; ++i) win[i] = wval(me, i) ^ (uint64_t)(me % 3) << 62, wout[i] = 12345;
  OK(tilecomm_reduce(c, win, wout, count, TILECOMM_UINT64, TILECOMM_MAX, 0));
  if (me == 0) {
    long bad = 0;
    for (long i = 0; i < count; ++i) {
      uint64_t w = 0;
      for (int r = 0; r < n; ++r) {
        const uint64_t x = wval(r, i) ^ (uint64_t)(r % 3) << 62;
        w = x > w ? x : w;
      }
      bad += wout[i] != w;
    }
    CHECK(bad == 0, "reduce uint64 max at root 0: %ld wrong", bad);
  } else {
    EXPECT_ALL(uint64_t, wout, count, 12345, "reduce: a rank that is not the root keeps its output");
  }
  free(in), free(out), free(win), free(wout);
}

static void broadcasts(tilecomm_comm_t c, int me, int n, long count) {
  /* int64 from the last rank; the others pass no input. */
  const int root = n - 1;
  int64_t *in = alloc(count * 8), *out = alloc(count * 8);
  for (long i = 0; i < count; ++i) in[i] = (int64_t)i * i - 3;
  OK(tilecomm_broadcast(c, me == root ? in : NULL, out, count, TILECOMM_INT64, root));
  EXPECT_ALL(int64_t, out, count, (int64_t)i * i - 3, "broadcast int64");
  /* uint16 from rank 0, in place there. */
  uint16_t *buf = alloc(count * 2);
  for (long i = 0; i < count; ++i) buf[i] = me == 0 ? (uint16_t)(65535 - i) : 7;
  OK(tilecomm_broadcast(c, buf, buf, count, TILECOMM_UINT16, 0));
  EXPECT_ALL(uint16_t, buf, count, 65535 - i, "broadcast uint16 in place");
  free(in), free(out), free(buf);
}

static void alltoalls(tilecomm_comm_t c, int me, int n, long count) {
  int32_t *in = alloc(n * count * 4), *out = alloc(n * count * 4);
  for (int d = 0; d < n; ++d)
    for (long i = 0; i < count; ++i) in[d * count + i] = tval(me, d, i);
  OK(tilecomm_alltoall(c, in, out, count, TILECOMM_INT32));
  EXPECT_ALL(int32_t, out, n * count, tval((int)(i / count), me, i % count), "alltoall int32");
  /* alltoallv, uint64: blocks of 0 to 1.5 * count elements. */
  uint64_t *counts = alloc((size_t)n * n * 8);
  uint64_t sent = 0, got = 0, at = 0;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) counts[s * n + d] = vcount(s, d, (uint64_t)count);
  for (int k = 0; k < n; ++k) sent += counts[me * n + k], got += counts[k * n + me];
  uint64_t *vin = alloc(sent * 8), *vout = alloc(got * 8), *vwant = alloc(got * 8);
  for (int d = 0; d < n; ++d)
    for (uint64_t j = 0; j < counts[me * n + d]; ++j) vin[at++] = vval(me, d, j);
  at = 0;
  for (int s = 0; s < n; ++s)
    for (uint64_t j = 0; j < counts[s * n + me]; ++j) vwant[at++] = vval(s, me, j);
  OK(tilecomm_alltoallv(c, vin, vout, counts, TILECOMM_UINT64));
  EXPECT_ALL(uint64_t, vout, got, vwant[i], "alltoallv uint64");
  free(in), free(out), free(counts), free(vin), free(vout), free(vwant);
}

int comm_c_operators(tilecomm_comm_t c, long count) {
  int me, n;
  start(c, &me, &n);
  if (me < 0 || n < 1) return g_fails + 1;
  allgathers(c, me, n, count);
  reduce_scatters(c, me, n, count);
  allreduces(c, me, n, count);
  reduces(c, me, n, count);
  broadcasts(c, me, n, count);
  alltoalls(c, me, n, count);
  return g_fails;
}

/* ---- fused operators -------------------------------------------------------------- */

/* Small integers: every product and sum below is exact in fp16, bf16, fp32 and fp64. */
static int x1val(int r, uint64_t i, uint64_t k) { return (int)((r + 2 * i + k) % 5) - 2; }
static int x2val(uint64_t k, uint64_t j) { return (int)((k * 3 + j) % 4) - 1; }
static int biasval(uint64_t j) { return (int)j - 2; }

/* The exact product row i of rank r's x1 by x2, element j. */
static int product(int r, uint64_t i, uint64_t j, uint64_t kk) {
  int s = 0;
  for (uint64_t k = 0; k < kk; ++k) s += x1val(r, i, k) * x2val(k, j);
  return s;
}

/* bf16 bits of a small integer (exactly representable: the low half of the fp32 bits is zero). */
static uint16_t bf16_of(int v) {
  const float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return (uint16_t)(x >> 16);
}

static void allgather_adds(tilecomm_comm_t c, int me, int n) {
  const long count = 37;
  int32_t *a = alloc(count * 4), *b = alloc(n * count * 4), *out = alloc(n * count * 4);
  for (long i = 0; i < count; ++i) a[i] = me * 10 + (int32_t)(i % 10) - 3;
  for (long j = 0; j < n * count; ++j) b[j] = (int32_t)((j * 3 + me) % 19);
  OK(tilecomm_allgather_add(c, a, b, out, count, TILECOMM_INT32));
  EXPECT_ALL(int32_t, out, n * count, (i / count) * 10 + (i % count) % 10 - 3 + (i * 3 + me) % 19,
             "allgather_add int32");
  /* uint16: sums past 65535 wrap. */
  uint16_t *ua = alloc(count * 2), *ub = alloc(n * count * 2), *uc = alloc(n * count * 2);
  for (long i = 0; i < count; ++i) ua[i] = (uint16_t)(65530 + i % 10);
  for (long j = 0; j < n * count; ++j) ub[j] = (uint16_t)(10 + j % 5);
  OK(tilecomm_allgather_add(c, ua, ub, uc, count, TILECOMM_UINT16));
  EXPECT_ALL(uint16_t, uc, n * count, 65530 + (i % count) % 10 + 10 + i % 5, "allgather_add uint16");
  free(a), free(b), free(out), free(ua), free(ub), free(uc);
}

static void allgather_matmuls(tilecomm_comm_t c, int me, int n) {
  const tilecomm_matmul_shape_t s = {3, 4, 5};
  float *x1 = alloc(s.m * s.k * 4), *x2 = alloc(s.k * s.n * 4), *bias = alloc(s.n * 4);
  float *y = alloc(n * s.m * s.n * 4), *g = alloc(n * s.m * s.k * 4);
  for (uint64_t i = 0; i < s.m; ++i)
    for (uint64_t k = 0; k < s.k; ++k) x1[i * s.k + k] = (float)x1val(me, i, k);
  for (uint64_t k = 0; k < s.k; ++k)
    for (uint64_t j = 0; j < s.n; ++j) x2[k * s.n + j] = (float)x2val(k, j);
  for (uint64_t j = 0; j < s.n; ++j) bias[j] = (float)biasval(j);
  OK(tilecomm_allgather_matmul(c, x1, x2, bias, y, g, s, TILECOMM_FP32));
  /* y row R = r * m + i */
  EXPECT_ALL(float, y, n * s.m * s.n,
             product((int)(i / s.n / s.m), i / s.n % s.m, i % s.n, s.k) + biasval(i % s.n), "allgather_matmul fp32");
  EXPECT_ALL(float, g, n * s.m * s.k, x1val((int)(i / s.k / s.m), i / s.k % s.m, i % s.k),
             "allgather_matmul gather_out");
  /* No bias, no gather_out. */
  OK(tilecomm_allgather_matmul(c, x1, x2, NULL, y, NULL, s, TILECOMM_FP32));
  EXPECT_ALL(float, y, n * s.m * s.n, product((int)(i / s.n / s.m), i / s.n % s.m, i % s.n, s.k),
             "allgather_matmul fp32 without bias");
  free(x1), free(x2), free(bias), free(y), free(g);
}

static void matmul_reduce_scatters(tilecomm_comm_t c, int me, int n) {
  const tilecomm_matmul_shape_t s = {2 * (uint64_t)n, 3, 4};
  const uint64_t rows = s.m / (uint64_t)n;
  double *x1 = alloc(s.m * s.k * 8), *x2 = alloc(s.k * s.n * 8), *bias = alloc(s.n * 8), *y = alloc(rows * s.n * 8);
  for (uint64_t i = 0; i < s.m; ++i)
    for (uint64_t k = 0; k < s.k; ++k) x1[i * s.k + k] = x1val(me, i, k);
  for (uint64_t k = 0; k < s.k; ++k)
    for (uint64_t j = 0; j < s.n; ++j) x2[k * s.n + j] = x2val(k, j);
  for (uint64_t j = 0; j < s.n; ++j) bias[j] = biasval(j) + 0.5; /* halves are exact too */
  OK(tilecomm_matmul_reduce_scatter(c, x1, x2, bias, y, s, TILECOMM_FP64));
  long bad = 0;
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < s.n; ++j) {
      double w = biasval(j) + 0.5;
      for (int r = 0; r < n; ++r) w += product(r, me * rows + i, j, s.k);
      bad += y[i * s.n + j] != w;
    }
  CHECK(bad == 0, "matmul_reduce_scatter fp64: %ld of %llu wrong", bad, (unsigned long long)(rows * s.n));
  free(x1), free(x2), free(bias), free(y);
}

static void matmul_allreduces(tilecomm_comm_t c, int me, int n) {
  const tilecomm_matmul_shape_t s = {3, 2, 3};
  float *x1 = alloc(s.m * s.k * 4), *x2 = alloc(s.k * s.n * 4), *bias = alloc(s.n * 4), *y = alloc(s.m * s.n * 4);
  for (uint64_t i = 0; i < s.m; ++i)
    for (uint64_t k = 0; k < s.k; ++k) x1[i * s.k + k] = (float)x1val(me, i, k);
  for (uint64_t k = 0; k < s.k; ++k)
    for (uint64_t j = 0; j < s.n; ++j) x2[k * s.n + j] = (float)x2val(k, j);
  for (uint64_t j = 0; j < s.n; ++j) bias[j] = (float)biasval(j);
  int *sum = alloc(s.m * s.n * sizeof(int));
  for (uint64_t i = 0; i < s.m; ++i)
    for (uint64_t j = 0; j < s.n; ++j)
      for (int r = 0; r < n; ++r) sum[i * s.n + j] += product(r, i, j, s.k);
  OK(tilecomm_matmul_allreduce(c, x1, x2, bias, y, s, TILECOMM_FP32));
  EXPECT_ALL(float, y, s.m * s.n, sum[i] + biasval(i % s.n), "matmul_allreduce fp32");
  OK(tilecomm_matmul_allreduce(c, x1, x2, NULL, y, s, TILECOMM_FP32));
  EXPECT_ALL(float, y, s.m * s.n, sum[i], "matmul_allreduce fp32 without bias");
  /* bf16, as uint16_t bits: the sums are small integers, exact there too. */
  uint16_t *h1 = alloc(s.m * s.k * 2), *h2 = alloc(s.k * s.n * 2), *hb = alloc(s.n * 2), *hy = alloc(s.m * s.n * 2);
  for (uint64_t i = 0; i < s.m * s.k; ++i) h1[i] = bf16_of((int)x1[i]);
  for (uint64_t i = 0; i < s.k * s.n; ++i) h2[i] = bf16_of((int)x2[i]);
  for (uint64_t j = 0; j < s.n; ++j) hb[j] = bf16_of(biasval(j));
  OK(tilecomm_matmul_allreduce(c, h1, h2, hb, hy, s, TILECOMM_BF16));
  EXPECT_ALL(uint16_t, hy, s.m * s.n, bf16_of(sum[i] + biasval(i % s.n)), "matmul_allreduce bf16");
  free(x1), free(x2), free(bias), free(y), free(sum), free(h1), free(h2), free(hb), free(hy);
}

int comm_c_fused(tilecomm_comm_t c) {
  int me, n;
  start(c, &me, &n);
  if (me < 0 || n < 1) return g_fails + 1;
  allgather_adds(c, me, n);
  allgather_matmuls(c, me, n);
  matmul_reduce_scatters(c, me, n);
  matmul_allreduces(c, me, n);
  return g_fails;
}

/* ---- kernels ------------------------------------------------------------------------ */

/* What every block of a kernel sees, checked against the communicator's windows. */
struct Expect {
  int rank, size, blocks;
  uint64_t data_bytes, flag_bytes; /* per partition */
  void *window[128], *flag_window[128];
};

static int args_errors(const tilecomm_kernel_args_t *a, const struct Expect *e) {
  int bad = a->rank != e->rank || a->size != e->size || a->blocks != e->blocks || a->block < 0 ||
            a->block >= a->blocks || a->local_rank != e->rank || a->local_size != e->size ||
            a->data_bytes != e->data_bytes || a->flag_bytes != e->flag_bytes;
  for (int r = 0; r < a->size; ++r) {
    bad += a->data[r] != (char *)e->window[r] + (a->magic % 2) * a->data_bytes;
    bad += (void *)a->flags[r] != (char *)e->flag_window[r] + (a->magic % 2) * a->flag_bytes;
  }
  return bad;
}

static void expect_of(tilecomm_comm_t c, int me, int n, int blocks, struct Expect *e) {
  size_t db = 0, fb = 0;
  e->rank = me, e->size = n, e->blocks = blocks;
  for (int r = 0; r < n && r < 128; ++r) OK(tilecomm_comm_window(c, r, &e->window[r], &db, &e->flag_window[r], &fb));
  e->data_bytes = db / 2, e->flag_bytes = fb / 2;
}

struct Gather {
  const struct Expect *expect;
  const int64_t *input; /* this round's slice */
  int64_t *output;      /* rank r's slice lands at output + r * stride */
  uint64_t count, stride;
  uint32_t magic[128];  /* each block's args->magic */
  int errors[128];      /* each block's failed checks and helpers */
};

/* Seed 001's AllGather with the fan-in post-sync: block `rank` writes this
 * rank's slice into its own partition and announces it (one to all); block
 * b reads rank b's partition once b announced, then tells b it is done
 * (fan-in); block `rank` returns once every peer is done, so no rank reuses
 * a partition a peer still reads. */
static void gather_kernel(const tilecomm_kernel_args_t *a, void *user) {
  struct Gather *g = user;
  const int b = a->block;
  g->magic[b] = a->magic;
  g->errors[b] = args_errors(a, g->expect);
  if (b == a->rank) {
    memcpy(a->data[a->rank], g->input, g->count * 8);
    g->errors[b] += tilecomm_record_1vn(a->magic) != TILECOMM_SUCCESS;
    memcpy(g->output + a->rank * g->stride, a->data[a->rank], g->count * 8);
    g->errors[b] += tilecomm_wait_1vn(a->magic) != TILECOMM_SUCCESS;
  } else {
    g->errors[b] += tilecomm_wait_nv1(b, a->magic) != TILECOMM_SUCCESS;
    memcpy(g->output + b * g->stride, a->data[b], g->count * 8);
    g->errors[b] += tilecomm_record_nv1(b, a->magic) != TILECOMM_SUCCESS;
  }
}

static int64_t item(int r, uint64_t i, int salt) { return (int64_t)r << 40 | (int64_t)salt << 28 | (int64_t)i; }

/* Gathers `count` elements per rank in launches of at most a partition each; returns the launches. */
static int gather(tilecomm_comm_t c, int me, int n, uint64_t count, int salt) {
  struct Expect e;
  expect_of(c, me, n, n, &e);
  const uint64_t per_launch = e.data_bytes / 8;
  int64_t *in = alloc(count * 8), *out = alloc(n * count * 8);
  for (uint64_t i = 0; i < count; ++i) in[i] = item(me, i, salt);
  int launches = 0;
  uint32_t last = 0;
  for (uint64_t at = 0; at < count; at += per_launch, ++launches) {
    struct Gather g;
    memset(&g, 0, sizeof g);
    g.expect = &e;
    g.input = in + at;
    g.output = out + at;
    g.count = count - at < per_launch ? count - at : per_launch;
    g.stride = count;
    OK(tilecomm_comm_launch(c, n, gather_kernel, &g));
    for (int b = 0; b < n; ++b) {
      CHECK(g.errors[b] == 0, "gather of %llu, launch %d, block %d: %d errors", (unsigned long long)count, launches, b,
            g.errors[b]);
      CHECK(g.magic[b] == g.magic[0], "block %d saw magic %u, block 0 %u", b, g.magic[b], g.magic[0]);
    }
    CHECK(launches == 0 || g.magic[0] == last + 1, "magic %u after %u", g.magic[0], last);
    last = g.magic[0];
  }
  EXPECT_ALL(int64_t, out, n * count, item((int)(i / count), i % count, salt), "kernel allgather");
  free(in), free(out);
  return launches;
}

int comm_c_kernel_allgather(tilecomm_comm_t c) {
  int me, n;
  start(c, &me, &n);
  if (me < 0 || n < 1) return g_fails + 1;
  struct Expect e;
  expect_of(c, me, n, n, &e);
  const uint64_t per_launch = e.data_bytes / 8;
  const uint64_t counts[] = {1, 2, 7, per_launch - 1, per_launch, per_launch + 1, 3 * per_launch + 5};
  for (int k = 0; k < 7; ++k) {
    const int launches = gather(c, me, n, counts[k], k);
    CHECK((uint64_t)launches == (counts[k] + per_launch - 1) / per_launch, "%d launches for %llu elements", launches,
          (unsigned long long)counts[k]);
  }
  for (int k = 0; k < 200; ++k) gather(c, me, n, 1 + (uint64_t)k % 40, k % 4096); /* back to back */
  return g_fails;
}

struct Ring {
  int rounds;
  int64_t seen[64];
  int errors;
};

/* Block 0 of each rank writes into its right neighbour's partition, records
 * to it and waits for its left one, `rounds` times in one launch: the n-th
 * wait passes on the left neighbour's n-th record. */
static void ring_kernel(const tilecomm_kernel_args_t *a, void *user) {
  struct Ring *ring = user;
  const int right = (a->rank + 1) % a->size, left = (a->rank + a->size - 1) % a->size;
  int64_t *box = a->data[right], *mine = a->data[a->rank];
  for (int i = 0; i < ring->rounds; ++i) {
    box[i] = (int64_t)a->rank * 1000 + i;
    ring->errors += tilecomm_record(right, a->magic) != TILECOMM_SUCCESS;
    ring->errors += tilecomm_wait(left, a->magic) != TILECOMM_SUCCESS;
    ring->seen[i] = mine[i];
  }
}

int comm_c_kernel_ring(tilecomm_comm_t c) {
  int me, n;
  start(c, &me, &n);
  if (me < 0 || n < 1) return g_fails + 1;
  const int left = (me + n - 1) % n;
  for (int launch = 0; launch < 5; ++launch) {
    struct Ring ring;
    memset(&ring, 0, sizeof ring);
    ring.rounds = 64;
    OK(tilecomm_comm_launch(c, 1, ring_kernel, &ring));
    CHECK(ring.errors == 0, "launch %d: %d helpers failed", launch, ring.errors);
    EXPECT_ALL(int64_t, ring.seen, 64, (int64_t)left * 1000 + i, "ring");
  }
  return g_fails;
}

/* ---- errors -------------------------------------------------------------------------- */

static void noop_kernel(const tilecomm_kernel_args_t *a, void *user) {
  (void)a, (void)user;
}

int comm_c_operator_errors(tilecomm_comm_t c) {
  int me, n;
  start(c, &me, &n);
  if (me < 0 || n < 1) return g_fails + 1;
  int32_t in[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[8 * 128];
  /* Values that are no enumerator, named; the C++ enum would wrap 256 into int8. */
  FAILS(tilecomm_allreduce(c, in, out, 4, (tilecomm_datatype_t)99, TILECOMM_SUM), TILECOMM_ERROR_INVALID_USAGE,
        "tilecomm_allreduce: data type 99 is not a tilecomm_datatype_t");
  FAILS(tilecomm_allgather(c, in, out, 4, (tilecomm_datatype_t)256), TILECOMM_ERROR_INVALID_USAGE, "data type 256");
  FAILS(tilecomm_broadcast(c, in, out, 4, (tilecomm_datatype_t)-1, 0), TILECOMM_ERROR_INVALID_USAGE, "data type -1");
  FAILS(tilecomm_reduce_scatter(c, in, out, 1, TILECOMM_INT32, (tilecomm_reduce_op_t)5), TILECOMM_ERROR_INVALID_USAGE,
        "tilecomm_reduce_scatter: reduce operation 5 is not a tilecomm_reduce_op_t");
  FAILS(tilecomm_reduce(c, in, out, 4, TILECOMM_INT32, (tilecomm_reduce_op_t)-3, 0), TILECOMM_ERROR_INVALID_USAGE,
        "reduce operation -3");
  {
    const tilecomm_matmul_shape_t s = {1, 1, 1}, rs = {(uint64_t)n, 1, 1};
    FAILS(tilecomm_matmul_allreduce(c, in, in, NULL, out, s, (tilecomm_datatype_t)12), TILECOMM_ERROR_INVALID_USAGE,
          "data type 12");
    /* A type the operator does not take is the C++ planner's error. */
    FAILS(tilecomm_allgather_matmul(c, in, in, NULL, out, NULL, s, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE,
          "int32");
    /* NULL matrices. */
    FAILS(tilecomm_matmul_allreduce(c, NULL, in, NULL, out, s, TILECOMM_FP32), TILECOMM_ERROR_INVALID_USAGE, "x1");
    FAILS(tilecomm_matmul_reduce_scatter(c, in, in, NULL, NULL, rs, TILECOMM_FP32), TILECOMM_ERROR_INVALID_USAGE,
          "null");
  }
  /* NULL buffers. */
  FAILS(tilecomm_allgather(c, in, NULL, 4, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE, "output is null");
  FAILS(tilecomm_allreduce(c, NULL, out, 4, TILECOMM_INT32, TILECOMM_SUM), TILECOMM_ERROR_INVALID_USAGE,
        "input is null");
  FAILS(tilecomm_alltoall(c, NULL, out, 1, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE, "input is null");
  FAILS(tilecomm_alltoallv(c, in, out, NULL, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE,
        "send-count matrix is null");
  FAILS(tilecomm_allgather_add(c, in, NULL, out, 4, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE, "null");
  /* Launches and helpers misused. */
  FAILS(tilecomm_comm_launch(c, 1, NULL, NULL), TILECOMM_ERROR_INVALID_USAGE,
        "tilecomm_comm_launch: the kernel is NULL");
  FAILS(tilecomm_comm_launch(c, 0, noop_kernel, NULL), TILECOMM_ERROR_INVALID_USAGE, "0 blocks requested");
  const char *outside = "called outside a kernel run by tilecomm_comm_launch";
  FAILS(tilecomm_record(0, 1), TILECOMM_ERROR_INVALID_USAGE, outside);
  FAILS(tilecomm_wait(0, 1), TILECOMM_ERROR_INVALID_USAGE, outside);
  FAILS(tilecomm_record_1vn(1), TILECOMM_ERROR_INVALID_USAGE, "tilecomm_record_1vn: called outside");
  FAILS(tilecomm_wait_nv1(0, 1), TILECOMM_ERROR_INVALID_USAGE, outside);
  FAILS(tilecomm_record_nv1(0, 1), TILECOMM_ERROR_INVALID_USAGE, outside);
  FAILS(tilecomm_wait_1vn(1), TILECOMM_ERROR_INVALID_USAGE, outside);
  /* None of it was collective: the communicator works as before, and a call of 0 elements needs no buffers. */
  OK(tilecomm_allreduce(c, NULL, NULL, 0, TILECOMM_INT32, TILECOMM_SUM));
  OK(tilecomm_allreduce(c, in, out, 8, TILECOMM_INT32, TILECOMM_SUM));
  EXPECT_ALL(int32_t, out, 8, n, "allreduce after the errors");
  CHECK(strcmp(tilecomm_comm_last_error(), "") == 0, "a success leaves \"%s\"", tilecomm_comm_last_error());
  return g_fails;
}

/* A destroyed handle (and a NULL one) is refused by every new call. */
int comm_c_destroyed_handle(const tilecomm_comm_options_t *o) {
  g_fails = 0;
  tilecomm_comm_t d = NULL;
  OK(tilecomm_comm_init_all(o, &d));
  OK(tilecomm_comm_destroy(d));
  int32_t in[4] = {0}, out[4 * 128];
  const tilecomm_matmul_shape_t s = {1, 1, 1};
  static uint64_t counts[128 * 128];
  const char *dead = "not live";
  for (int k = 0; k < 2; ++k) {
    tilecomm_comm_t h = k == 0 ? d : NULL;
    FAILS(tilecomm_allgather(h, in, out, 1, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE,
          "tilecomm_allgather: the communicator handle is not live");
    FAILS(tilecomm_reduce_scatter(h, in, out, 1, TILECOMM_INT32, TILECOMM_SUM), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_allreduce(h, in, out, 1, TILECOMM_INT32, TILECOMM_SUM), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_reduce(h, in, out, 1, TILECOMM_INT32, TILECOMM_SUM, 0), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_broadcast(h, in, out, 1, TILECOMM_INT32, 0), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_alltoall(h, in, out, 1, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_alltoallv(h, in, out, counts, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_allgather_add(h, in, in, out, 1, TILECOMM_INT32), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_allgather_matmul(h, in, in, NULL, out, NULL, s, TILECOMM_FP32), TILECOMM_ERROR_INVALID_USAGE,
          dead);
    FAILS(tilecomm_matmul_reduce_scatter(h, in, in, NULL, out, s, TILECOMM_FP32), TILECOMM_ERROR_INVALID_USAGE,
          dead);
    FAILS(tilecomm_matmul_allreduce(h, in, in, NULL, out, s, TILECOMM_FP32), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_comm_launch(h, 1, noop_kernel, NULL), TILECOMM_ERROR_INVALID_USAGE, dead);
    FAILS(tilecomm_comm_destroy(h), TILECOMM_ERROR_INVALID_USAGE, dead);
  }
  return g_fails;
}

struct Failing {
  atomic_int started; /* block 0 started */
  tilecomm_result_t first[2], second[2];
  char message[2][512];
};

/* Block 1 waits for a rank that does not exist, then tries another helper
 * (it returns the same code without acting) and returns as if all went
 * well; block 0 waits for a record nobody makes until block 1's failure
 * stops it. Block 1 fails once block 0 started (a launch starts no block
 * after one failed). */
static void failing_kernel(const tilecomm_kernel_args_t *a, void *user) {
  struct Failing *f = user;
  const int b = a->block;
  if (b == 0) atomic_store(&f->started, 1);
  if (b == 1) {
    while (!atomic_load(&f->started)) {
    }
    f->first[1] = tilecomm_wait(a->size + 5, a->magic);
    f->second[1] = tilecomm_record_1vn(a->magic);
  } else {
    f->first[0] = tilecomm_wait_nv1(a->rank, a->magic);
    f->second[0] = tilecomm_record(a->rank, a->magic);
  }
  snprintf(f->message[b], sizeof f->message[b], "%s", tilecomm_comm_last_error());
}

struct InUse {
  tilecomm_comm_t self;
  tilecomm_result_t destroy, rank;
  int rank_value;
  char message[512];
};

/* A kernel may query its communicator; destroying it from inside is refused. */
static void destroying_kernel(const tilecomm_kernel_args_t *a, void *user) {
  struct InUse *u = user;
  (void)a;
  u->destroy = tilecomm_comm_destroy(u->self);
  snprintf(u->message, sizeof u->message, "%s", tilecomm_comm_last_error());
  u->rank = tilecomm_comm_rank(u->self, &u->rank_value);
}

int comm_c_kernel_errors(tilecomm_comm_t c) {
  int me, n;
  start(c, &me, &n);
  if (me < 0 || n < 1) return g_fails + 1;
  char peer[64];
  snprintf(peer, sizeof peer, "peer %d is not a rank of this communicator", n + 5);
  for (int launch = 0; launch < 3; ++launch) {
    struct Failing f;
    memset(&f, 0, sizeof f);
    atomic_init(&f.started, 0);
    const tilecomm_result_t rc = tilecomm_comm_launch(c, 2, failing_kernel, &f);
    CHECK(rc == TILECOMM_ERROR_INVALID_USAGE, "the launch returned %d: %s", (int)rc, tilecomm_comm_last_error());
    const char *msg = tilecomm_comm_last_error();
    CHECK(strstr(msg, "tilecomm_comm_launch: kernel failed in block 1 of 2: tilecomm_wait: Wait: ") == msg,
          "message: %s", msg);
    CHECK(strstr(msg, peer) != NULL, "message: %s", msg);
    CHECK(f.first[1] == TILECOMM_ERROR_INVALID_USAGE, "block 1's wait returned %d", (int)f.first[1]);
    CHECK(f.second[1] == TILECOMM_ERROR_INVALID_USAGE, "block 1's next helper returned %d", (int)f.second[1]);
    CHECK(strstr(f.message[1], "tilecomm_record_1vn: not run: this block's kernel already failed (tilecomm_wait: ") ==
              f.message[1],
          "block 1: %s", f.message[1]);
    CHECK(f.first[0] == TILECOMM_ERROR_REMOTE, "block 0's wait returned %d", (int)f.first[0]);
    CHECK(f.second[0] == TILECOMM_ERROR_REMOTE, "block 0's next helper returned %d", (int)f.second[0]);
    CHECK(strstr(f.message[0], "block 1 failed") != NULL, "block 0: %s", f.message[0]);
  }
  struct InUse u;
  memset(&u, 0, sizeof u);
  u.self = c;
  OK(tilecomm_comm_launch(c, 1, destroying_kernel, &u));
  CHECK(u.destroy == TILECOMM_ERROR_INVALID_USAGE, "destroy inside the kernel returned %d", (int)u.destroy);
  CHECK(strstr(u.message, "tilecomm_comm_destroy: the communicator is in use by 1 ") == u.message, "%s", u.message);
  CHECK(u.rank == TILECOMM_SUCCESS && u.rank_value == me, "rank inside the kernel: %d, %d", (int)u.rank, u.rank_value);
  /* The communicator still works, with its flags in step. */
  gather(c, me, n, 100, 7);
  return g_fails;
}
