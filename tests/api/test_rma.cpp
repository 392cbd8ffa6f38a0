// Remote memory access (OpenSHMEM 1.5 section 9.5): put, get, their _nbi,
// single-element (p/g) and strided (iput/iget) forms, for every type of the
// standard RMA types table, for the sized (8..128) and untyped (mem) forms,
// each without a context, with SHMEM_CTX_DEFAULT and with a created context.
#include <shmemx.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "api_test.hpp"

using namespace api;

namespace {

// ---- typed RMA: one traits struct per row of the RMA types table -------------

#define RMA_TRAITS(TYPE, NAME)                                          \
  struct Rma_##NAME {                                                   \
    using T = TYPE;                                                     \
    static constexpr auto put = shmem_##NAME##_put;                     \
    static constexpr auto put_nbi = shmem_##NAME##_put_nbi;             \
    static constexpr auto get = shmem_##NAME##_get;                     \
    static constexpr auto get_nbi = shmem_##NAME##_get_nbi;             \
    static constexpr auto p = shmem_##NAME##_p;                         \
    static constexpr auto g = shmem_##NAME##_g;                         \
    static constexpr auto iput = shmem_##NAME##_iput;                   \
    static constexpr auto iget = shmem_##NAME##_iget;                   \
    static constexpr auto ctx_put = shmem_ctx_##NAME##_put;             \
    static constexpr auto ctx_put_nbi = shmem_ctx_##NAME##_put_nbi;     \
    static constexpr auto ctx_get = shmem_ctx_##NAME##_get;             \
    static constexpr auto ctx_get_nbi = shmem_ctx_##NAME##_get_nbi;     \
    static constexpr auto ctx_p = shmem_ctx_##NAME##_p;                 \
    static constexpr auto ctx_g = shmem_ctx_##NAME##_g;                 \
    static constexpr auto ctx_iput = shmem_ctx_##NAME##_iput;           \
    static constexpr auto ctx_iget = shmem_ctx_##NAME##_iget;           \
  };
SHMEMI_RMA_TYPES(RMA_TRAITS)
#undef RMA_TRAITS

// The calls of one traits struct, without a context.
template <class Tr>
struct PlainOps {
  using T = typename Tr::T;
  const char* name() const { return "no ctx"; }
  void put(T* d, const T* s, size_t n, int pe) { Tr::put(d, s, n, pe); }
  void put_nbi(T* d, const T* s, size_t n, int pe) { Tr::put_nbi(d, s, n, pe); }
  void get(T* d, const T* s, size_t n, int pe) { Tr::get(d, s, n, pe); }
  void get_nbi(T* d, const T* s, size_t n, int pe) { Tr::get_nbi(d, s, n, pe); }
  void p(T* d, T v, int pe) { Tr::p(d, v, pe); }
  T g(const T* s, int pe) { return Tr::g(s, pe); }
  void iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { Tr::iput(d, s, dst, sst, n, pe); }
  void iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { Tr::iget(d, s, dst, sst, n, pe); }
  void quiet() { shmem_quiet(); }
};

// The same calls through the ctx_ forms.
template <class Tr>
struct CtxOps {
  using T = typename Tr::T;
  shmem_ctx_t ctx;
  const char* name() const { return ctx == SHMEM_CTX_DEFAULT ? "SHMEM_CTX_DEFAULT" : "created ctx"; }
  void put(T* d, const T* s, size_t n, int pe) { Tr::ctx_put(ctx, d, s, n, pe); }
  void put_nbi(T* d, const T* s, size_t n, int pe) { Tr::ctx_put_nbi(ctx, d, s, n, pe); }
  void get(T* d, const T* s, size_t n, int pe) { Tr::ctx_get(ctx, d, s, n, pe); }
  void get_nbi(T* d, const T* s, size_t n, int pe) { Tr::ctx_get_nbi(ctx, d, s, n, pe); }
  void p(T* d, T v, int pe) { Tr::ctx_p(ctx, d, v, pe); }
  T g(const T* s, int pe) { return Tr::ctx_g(ctx, s, pe); }
  void iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
    Tr::ctx_iput(ctx, d, s, dst, sst, n, pe);
  }
  void iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
    Tr::ctx_iget(ctx, d, s, dst, sst, n, pe);
  }
  void quiet() { shmem_ctx_quiet(ctx); }
};

// Every typed RMA call once, ring pattern: each PE writes to its right
// neighbour and reads from it. Values carry the writer's PE number and a
// salt, so a stale or misplaced element is caught.
template <class T, class Ops>
void rma_sequence(Ops ops, int salt) {
  const int l = left(), r = right(), self = me();
  constexpr size_t N = 61;  // odd, not a multiple of any vector width
  Sym<T> src(N), dst(3 * N);
  if (!src.ok() || !dst.ok()) return;  // every PE saw the same failure
  const std::string where = std::string(" [") + ops.name() + "]";
  auto from = [](int pe, int s) { return [pe, s](size_t i) { return value<T>(pe, i, s); }; };

  for (size_t i = 0; i < N; ++i) src[i] = value<T>(self, i, salt);
  barrier();

  // put: right neighbour's dst gets my src.
  ops.put(dst.get(), src.get(), N, r);
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, from(l, salt))) << "put" << where;
  EXPECT_TRUE(all_equal(dst.get() + N, 2 * N, [](size_t) { return T{}; })) << "put wrote past nelems" << where;

  // get: my private buffer gets the right neighbour's src.
  std::vector<T> local(3 * N, T{});
  ops.get(local.data(), src.get(), N, r);
  EXPECT_TRUE(all_equal(local.data(), N, from(r, salt))) << "get" << where;
  EXPECT_TRUE(all_equal(local.data() + N, 2 * N, [](size_t) { return T{}; })) << "get wrote past nelems" << where;
  barrier();

  // put_nbi from a private buffer, completed by quiet.
  for (size_t i = 0; i < N; ++i) local[i] = value<T>(self, i, salt + 1);
  ops.put_nbi(dst.get(), local.data(), N, r);
  ops.quiet();
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, from(l, salt + 1))) << "put_nbi" << where;

  // get_nbi, completed by quiet.
  std::fill(local.begin(), local.end(), T{});
  ops.get_nbi(local.data(), src.get(), N, r);
  ops.quiet();
  EXPECT_TRUE(all_equal(local.data(), N, from(r, salt))) << "get_nbi" << where;
  barrier();

  // p, element by element.
  for (size_t i = 0; i < N; ++i) ops.p(dst.get() + i, value<T>(self, i, salt + 2), r);
  ops.quiet();
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, from(l, salt + 2))) << "p" << where;

  // g, element by element.
  for (size_t i = 0; i < N; ++i) local[i] = ops.g(src.get() + i, r);
  EXPECT_TRUE(all_equal(local.data(), N, from(r, salt))) << "g" << where;

  // iput: every 2nd element of src to every 3rd element of the right's dst.
  for (size_t i = 0; i < 3 * N; ++i) dst[i] = T{};
  barrier();
  const size_t kp = N / 2;  // src indices 0..2(kp-1), dst indices 0..3(kp-1)
  ops.iput(dst.get(), src.get(), 3, 2, kp, r);
  ops.quiet();
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), 3 * N, [&](size_t j) {
    return (j % 3 == 0 && j / 3 < kp) ? value<T>(l, 2 * (j / 3), salt) : T{};
  })) << "iput (dst stride 3, src stride 2)" << where;

  // iget: every 3rd element of the right's src to every 2nd local element.
  std::fill(local.begin(), local.end(), T{});
  const size_t kg = N / 3;
  ops.iget(local.data(), src.get(), 2, 3, kg, r);
  EXPECT_TRUE(all_equal(local.data(), 3 * N, [&](size_t j) {
    return (j % 2 == 0 && j / 2 < kg) ? value<T>(r, 3 * (j / 2), salt) : T{};
  })) << "iget (dst stride 2, src stride 3)" << where;

  // Unit strides behave as put/get.
  barrier();
  ops.iput(dst.get(), src.get(), 1, 1, N, r);
  ops.quiet();
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, from(l, salt))) << "iput unit strides" << where;
  std::fill(local.begin(), local.end(), T{});
  ops.iget(local.data(), src.get(), 1, 1, N, r);
  EXPECT_TRUE(all_equal(local.data(), N, from(r, salt))) << "iget unit strides" << where;
  barrier();

  // Zero elements: nothing moves.
  for (size_t i = 0; i < N; ++i) dst[i] = value<T>(self, i, salt + 3);
  barrier();
  ops.put(dst.get(), src.get(), 0, r);
  ops.put_nbi(dst.get(), src.get(), 0, r);
  ops.iput(dst.get(), src.get(), 1, 1, 0, r);
  ops.quiet();
  std::fill(local.begin(), local.end(), T{});
  ops.get(local.data(), src.get(), 0, r);
  ops.get_nbi(local.data(), src.get(), 0, r);
  ops.iget(local.data(), src.get(), 1, 1, 0, r);
  ops.quiet();
  EXPECT_TRUE(all_equal(local.data(), N, [](size_t) { return T{}; })) << "zero-length get" << where;
  barrier();
  EXPECT_TRUE(all_equal(dst.get(), N, from(self, salt + 3))) << "zero-length put" << where;

  // The calling PE as the target.
  barrier();
  ops.put(dst.get(), src.get(), N, self);
  ops.quiet();
  EXPECT_TRUE(all_equal(dst.get(), N, from(self, salt))) << "put to self" << where;
  ops.p(dst.get(), value<T>(self, 0, salt + 4), self);
  ops.quiet();
  EXPECT_EQ(ops.g(dst.get(), self), value<T>(self, 0, salt + 4)) << "p/g to self" << where;
  barrier();
}

template <class Tr>
void run_typed_rma() {
  using T = typename Tr::T;
  rma_sequence<T>(PlainOps<Tr>{}, 1);
  rma_sequence<T>(CtxOps<Tr>{SHMEM_CTX_DEFAULT}, 11);
  Ctx ctx(SHMEM_CTX_PRIVATE);
  if (ctx.ok()) rma_sequence<T>(CtxOps<Tr>{ctx.get()}, 21);
  Ctx serialized(SHMEM_CTX_SERIALIZED);
  if (serialized.ok()) rma_sequence<T>(CtxOps<Tr>{serialized.get()}, 31);
}

// All-to-all: every PE writes its block into slot `me` on every PE.
template <class Tr>
void run_all_to_all() {
  using T = typename Tr::T;
  const int n = npes(), self = me();
  constexpr size_t B = 17;
  Sym<T> dst(B * n);
  if (!dst.ok()) return;
  std::vector<T> src(B);
  for (size_t i = 0; i < B; ++i) src[i] = value<T>(self, i, 40);
  barrier();
  for (int k = 0; k < n; ++k) Tr::put(dst.get() + self * B, src.data(), B, (self + k) % n);
  barrier();
  for (int pe = 0; pe < n; ++pe)
    EXPECT_TRUE(all_equal(dst.get() + pe * B, B, [pe](size_t i) { return value<T>(pe, i, 40); })) << "slot " << pe;
  // And gather it back with get from every PE: PE pe's slot `self` holds my block.
  std::vector<T> got(B);
  for (int pe = 0; pe < n; ++pe) {
    Tr::get(got.data(), dst.get() + self * B, B, pe);
    EXPECT_TRUE(all_equal(got.data(), B, [self](size_t i) { return value<T>(self, i, 40); })) << "from PE " << pe;
  }
  barrier();
}

}  // namespace

#define RMA_TEST(TYPE, NAME) \
  TEST(RmaTyped, NAME) { run_typed_rma<Rma_##NAME>(); }
SHMEMI_RMA_TYPES(RMA_TEST)
#undef RMA_TEST

#define RMA_ALL_TO_ALL_TEST(TYPE, NAME) \
  TEST(RmaAllToAll, NAME) { run_all_to_all<Rma_##NAME>(); }
SHMEMI_RMA_TYPES(RMA_ALL_TO_ALL_TEST)
#undef RMA_ALL_TO_ALL_TEST

// ---- sized and untyped RMA ---------------------------------------------------------

namespace {

struct SizedFns {
  size_t bytes;  // element size
  void (*put)(void*, const void*, size_t, int);
  void (*put_nbi)(void*, const void*, size_t, int);
  void (*get)(void*, const void*, size_t, int);
  void (*get_nbi)(void*, const void*, size_t, int);
  void (*iput)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);  // NULL for mem
  void (*iget)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*ctx_put)(shmem_ctx_t, void*, const void*, size_t, int);
  void (*ctx_put_nbi)(shmem_ctx_t, void*, const void*, size_t, int);
  void (*ctx_get)(shmem_ctx_t, void*, const void*, size_t, int);
  void (*ctx_get_nbi)(shmem_ctx_t, void*, const void*, size_t, int);
  void (*ctx_iput)(shmem_ctx_t, void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*ctx_iget)(shmem_ctx_t, void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
};

#define SIZED_FNS(BITS)                                                                                        \
  SizedFns sized_##BITS() {                                                                                    \
    return SizedFns{BITS / 8,          shmem_put##BITS,         shmem_put##BITS##_nbi,   shmem_get##BITS,      \
                    shmem_get##BITS##_nbi, shmem_iput##BITS,     shmem_iget##BITS,        shmem_ctx_put##BITS, \
                    shmem_ctx_put##BITS##_nbi, shmem_ctx_get##BITS, shmem_ctx_get##BITS##_nbi,                 \
                    shmem_ctx_iput##BITS, shmem_ctx_iget##BITS};                                               \
  }
SHMEMI_SIZES(SIZED_FNS)
#undef SIZED_FNS

SizedFns untyped_mem() {
  return SizedFns{1,       shmem_putmem,     shmem_putmem_nbi, shmem_getmem,     shmem_getmem_nbi,
                  nullptr, nullptr,          shmem_ctx_putmem, shmem_ctx_putmem_nbi, shmem_ctx_getmem,
                  shmem_ctx_getmem_nbi, nullptr, nullptr};
}

unsigned char byte_of(int pe, size_t elem, size_t b, size_t bytes, int salt) {
  return static_cast<unsigned char>((pe * 53 + elem * 7 + b * 31 + salt * 13 + bytes) % 251 + 1);
}

// The sized sequence; ctx == SHMEM_CTX_INVALID means the forms without a ctx.
void sized_sequence(const SizedFns& f, shmem_ctx_t ctx, int salt) {
  const size_t E = f.bytes;
  const int l = left(), r = right(), self = me();
  constexpr size_t N = 45;
  Sym<unsigned char> src(N * E), dst(3 * N * E);
  if (!src.ok() || !dst.ok()) return;
  const bool c = ctx != SHMEM_CTX_INVALID;
  auto put = [&](void* d, const void* s, size_t n, int pe) { c ? f.ctx_put(ctx, d, s, n, pe) : f.put(d, s, n, pe); };
  auto put_nbi = [&](void* d, const void* s, size_t n, int pe) {
    c ? f.ctx_put_nbi(ctx, d, s, n, pe) : f.put_nbi(d, s, n, pe);
  };
  auto get = [&](void* d, const void* s, size_t n, int pe) { c ? f.ctx_get(ctx, d, s, n, pe) : f.get(d, s, n, pe); };
  auto get_nbi = [&](void* d, const void* s, size_t n, int pe) {
    c ? f.ctx_get_nbi(ctx, d, s, n, pe) : f.get_nbi(d, s, n, pe);
  };
  auto quiet = [&] { c ? shmem_ctx_quiet(ctx) : shmem_quiet(); };
  auto expected = [&](int pe, int s, size_t elems) {
    std::vector<unsigned char> v(elems * E);
    for (size_t i = 0; i < elems; ++i)
      for (size_t b = 0; b < E; ++b) v[i * E + b] = byte_of(pe, i, b, E, s);
    return v;
  };
  const std::string where = " [" + std::to_string(E * 8) + " bits, " + (c ? "ctx" : "no ctx") + "]";

  auto mine = expected(self, salt, N);
  memcpy(src.get(), mine.data(), N * E);
  barrier();

  put(dst.get(), src.get(), N, r);
  barrier();
  auto want = expected(l, salt, N);
  EXPECT_TRUE(bytes_equal(dst.get(), want.data(), N * E)) << "put" << where;
  std::vector<unsigned char> zeros(2 * N * E, 0);
  EXPECT_TRUE(bytes_equal(dst.get() + N * E, zeros.data(), 2 * N * E)) << "put wrote past nelems" << where;

  std::vector<unsigned char> local(3 * N * E, 0);
  get(local.data(), src.get(), N, r);
  auto from_r = expected(r, salt, N);
  EXPECT_TRUE(bytes_equal(local.data(), from_r.data(), N * E)) << "get" << where;
  EXPECT_TRUE(bytes_equal(local.data() + N * E, zeros.data(), 2 * N * E)) << "get wrote past nelems" << where;
  barrier();

  auto mine2 = expected(self, salt + 1, N);
  put_nbi(dst.get(), mine2.data(), N, r);
  quiet();
  barrier();
  auto want2 = expected(l, salt + 1, N);
  EXPECT_TRUE(bytes_equal(dst.get(), want2.data(), N * E)) << "put_nbi" << where;

  std::fill(local.begin(), local.end(), 0);
  get_nbi(local.data(), src.get(), N, r);
  quiet();
  EXPECT_TRUE(bytes_equal(local.data(), from_r.data(), N * E)) << "get_nbi" << where;
  barrier();

  if (f.iput) {
    auto iput = [&](void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {
      c ? f.ctx_iput(ctx, d, s, ds, ss, n, pe) : f.iput(d, s, ds, ss, n, pe);
    };
    auto iget = [&](void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {
      c ? f.ctx_iget(ctx, d, s, ds, ss, n, pe) : f.iget(d, s, ds, ss, n, pe);
    };
    memset(dst.get(), 0, 3 * N * E);
    barrier();
    const size_t kp = N / 2;
    iput(dst.get(), src.get(), 3, 2, kp, r);
    quiet();
    barrier();
    std::vector<unsigned char> w(3 * N * E, 0);
    for (size_t k = 0; k < kp; ++k) memcpy(&w[3 * k * E], &want[2 * k * E], E);
    EXPECT_TRUE(bytes_equal(dst.get(), w.data(), 3 * N * E)) << "iput" << where;

    std::fill(local.begin(), local.end(), 0);
    const size_t kg = N / 3;
    iget(local.data(), src.get(), 2, 3, kg, r);
    std::fill(w.begin(), w.end(), 0);
    for (size_t k = 0; k < kg; ++k) memcpy(&w[2 * k * E], &from_r[3 * k * E], E);
    EXPECT_TRUE(bytes_equal(local.data(), w.data(), 3 * N * E)) << "iget" << where;
    barrier();
  }
}

}  // namespace

#define SIZED_TEST(BITS)                            \
  TEST(RmaSized, Bits##BITS) {                      \
    SizedFns f = sized_##BITS();                    \
    sized_sequence(f, SHMEM_CTX_INVALID, 1);        \
    sized_sequence(f, SHMEM_CTX_DEFAULT, 2);        \
    Ctx ctx;                                        \
    if (ctx.ok()) sized_sequence(f, ctx.get(), 3);  \
  }
SHMEMI_SIZES(SIZED_TEST)
#undef SIZED_TEST

TEST(RmaSized, Mem) {
  SizedFns f = untyped_mem();
  sized_sequence(f, SHMEM_CTX_INVALID, 4);
  sized_sequence(f, SHMEM_CTX_DEFAULT, 5);
  Ctx ctx;
  if (ctx.ok()) sized_sequence(f, ctx.get(), 6);
}

TEST(RmaSized, SizedFormsMoveTheSameBytesAsTypedForms) {
  // put32 of int32_t data equals shmem_int32_put; put64 of doubles equals
  // shmem_double_put; put128 moves 16-byte elements (long double size).
  constexpr size_t N = 9;
  Sym<std::int32_t> a(N);
  Sym<double> b(N);
  Sym<long double> c(N);
  std::int32_t sa[N];
  double sb[N];
  long double sc[N];
  for (size_t i = 0; i < N; ++i) {
    sa[i] = value<std::int32_t>(me(), i, 50);
    sb[i] = value<double>(me(), i, 51);
    sc[i] = value<long double>(me(), i, 52);
  }
  barrier();
  shmem_put32(a.get(), sa, N, right());
  shmem_put64(b.get(), sb, N, right());
  static_assert(sizeof(long double) == 16, "x86-64 long double occupies 128 bits");
  shmem_put128(c.get(), sc, N, right());
  barrier();
  EXPECT_TRUE(all_equal(a.get(), N, [](size_t i) { return value<std::int32_t>(left(), i, 50); }));
  EXPECT_TRUE(all_equal(b.get(), N, [](size_t i) { return value<double>(left(), i, 51); }));
  EXPECT_TRUE(all_equal(c.get(), N, [](size_t i) { return value<long double>(left(), i, 52); }));
  barrier();
}

// ---- large transfers -------------------------------------------------------------

TEST(RmaLarge, PutmemAndGetmemOfManyMegabytes) {
  // Large copies take other paths (`rep movsb`, or memcpy's non-temporal
  // stores); the data must still be complete after the barrier.
  const size_t bytes = size_t{6} << 20;
  Sym<unsigned char> buf(bytes);
  if (buf.ok()) {
    std::vector<unsigned char> src(bytes), want(bytes);
    for (size_t i = 0; i < bytes; ++i) {
      src[i] = static_cast<unsigned char>((i * 131 + me() * 7) >> 3);
      want[i] = static_cast<unsigned char>((i * 131 + left() * 7) >> 3);
    }
    shmem_putmem(buf.get(), src.data(), bytes, right());
    barrier();
    EXPECT_TRUE(bytes_equal(buf.get(), want.data(), bytes)) << "putmem";
    std::vector<unsigned char> got(bytes, 0), want_r(bytes);
    for (size_t i = 0; i < bytes; ++i) want_r[i] = static_cast<unsigned char>((i * 131 + me() * 7) >> 3);
    // The right neighbour's buffer holds what I put there.
    shmem_getmem(got.data(), buf.get(), bytes, right());
    EXPECT_TRUE(bytes_equal(got.data(), want_r.data(), bytes)) << "getmem";
    std::fill(got.begin(), got.end(), 0);
    shmem_getmem_nbi(got.data(), buf.get(), bytes, right());
    shmem_quiet();
    EXPECT_TRUE(bytes_equal(got.data(), want_r.data(), bytes)) << "getmem_nbi";
    barrier();
    // Now the other way round: I put my pattern into my left neighbour, so my
    // buffer receives my right neighbour's pattern.
    shmem_putmem_nbi(buf.get(), want_r.data(), bytes, left());
    shmem_quiet();
    barrier();
    std::vector<unsigned char> mine(bytes);
    for (size_t i = 0; i < bytes; ++i) mine[i] = static_cast<unsigned char>((i * 131 + right() * 7) >> 3);
    EXPECT_TRUE(bytes_equal(buf.get(), mine.data(), bytes)) << "putmem_nbi";
    barrier();
  }
}

// Many _nbi operations in flight at once, to every PE, completed by one
// quiet (through UCX they are only posted until then): chunks of varying
// length from every PE's buffer into one private buffer, then the same
// chunks put back into every PE's second buffer from a private one that is
// left untouched until the quiet.
TEST(RmaNbi, ManyInFlightToEveryPe) {
  constexpr size_t kChunks = 300, kMax = 40;  // chunk c: 1 + c % kMax longs
  auto at = [](size_t c) { return c * kMax; };
  auto len = [](size_t c) { return 1 + c % kMax; };
  auto word = [](int pe, size_t i) { return static_cast<long>(pe) << 32 | static_cast<long>(i * 7 + 1); };
  const int n = npes();
  Sym<long> src(kChunks * kMax), dst(kChunks * kMax);
  if (!src.ok() || !dst.ok()) return;
  for (size_t i = 0; i < kChunks * kMax; ++i) {
    src[i] = word(me(), i);
    dst[i] = -1;
  }
  barrier();
  std::vector<long> got(kChunks * kMax, -1);
  for (size_t c = 0; c < kChunks; ++c)
    shmem_long_get_nbi(got.data() + at(c), src.get() + at(c), len(c), static_cast<int>((me() + c) % n));
  shmem_quiet();
  int wrong = 0;
  for (size_t c = 0; c < kChunks; ++c)
    for (size_t i = at(c); i < at(c) + kMax; ++i)
      wrong += got[i] != (i < at(c) + len(c) ? word(static_cast<int>((me() + c) % n), i) : -1);
  EXPECT_EQ(wrong, 0) << "get_nbi of " << kChunks << " chunks from every PE";
  // Chunk c goes back to the PE it came from: every PE receives its own words.
  for (size_t c = 0; c < kChunks; ++c)
    shmem_long_put_nbi(dst.get() + at(c), got.data() + at(c), len(c), static_cast<int>((me() + c) % n));
  shmem_quiet();
  barrier();
  wrong = 0;
  for (size_t c = 0; c < kChunks; ++c)
    for (size_t i = at(c); i < at(c) + kMax; ++i) wrong += dst[i] != (i < at(c) + len(c) ? word(me(), i) : -1);
  EXPECT_EQ(wrong, 0) << "put_nbi of " << kChunks << " chunks to every PE";
  barrier();
}

// iget over a long span (through UCX: several gets of the span, each
// strided here) and of elements far apart (one get each, completed
// together): every element from its place, none of the gaps.
TEST(RmaStrided, LongSpansAndFarApartElements) {
  struct Case {
    size_t n;
    ptrdiff_t sst, dst;
  };
  const Case cases[] = {{100003, 3, 2}, {41, 1000, 3}, {1, 7, 1}};
  auto word = [](int pe, size_t i) { return static_cast<long>(pe) << 40 | static_cast<long>(i); };
  for (const Case& c : cases) {
    const size_t span = (c.n - 1) * c.sst + 1;
    Sym<long> src(span);
    if (!src.ok()) return;
    for (size_t i = 0; i < span; ++i) src[i] = word(me(), i);
    barrier();
    std::vector<long> got((c.n - 1) * c.dst + 1 + 1, -1);
    shmem_long_iget(got.data(), src.get(), c.dst, c.sst, c.n, right());
    int wrong = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const bool element = i % c.dst == 0 && i / c.dst < c.n;
      wrong += got[i] != (element ? word(right(), i / c.dst * c.sst) : -1);
    }
    EXPECT_EQ(wrong, 0) << "iget of " << c.n << " elements, source stride " << c.sst << ", dest stride " << c.dst;
    barrier();
  }
}

TEST(RmaLarge, UnalignedOffsetsAndLengths) {
  // Every combination of misaligned destination, source and length.
  const size_t cap = 4096;
  Sym<unsigned char> buf(cap + 64);
  if (buf.ok()) {
    std::vector<unsigned char> src(cap + 64);
    for (size_t dof = 0; dof < 9; dof += 3)
      for (size_t sof = 0; sof < 9; sof += 4)
        for (size_t len : {1ul, 7ul, 63ul, 64ul, 65ul, 1000ul, 4095ul}) {
          memset(buf.get(), 0, cap + 64);
          for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i + me() + dof + len);
          barrier();
          shmem_putmem(buf.get() + dof, src.data() + sof, len, right());
          barrier();
          std::vector<unsigned char> want(cap + 64, 0);
          for (size_t i = 0; i < len; ++i) want[dof + i] = static_cast<unsigned char>(sof + i + left() + dof + len);
          EXPECT_TRUE(bytes_equal(buf.get(), want.data(), cap + 64))
              << "dest offset " << dof << ", source offset " << sof << ", length " << len;
          std::vector<unsigned char> got(cap + 64, 0), want_g(cap + 64, 0);
          shmem_getmem(got.data() + sof, buf.get() + dof, len, right());
          for (size_t i = 0; i < len; ++i) want_g[sof + i] = static_cast<unsigned char>(sof + i + me() + dof + len);
          EXPECT_TRUE(bytes_equal(got.data(), want_g.data(), cap + 64))
              << "getmem: dest offset " << sof << ", source offset " << dof << ", length " << len;
          barrier();
        }
  }
}

// ---- routes ----------------------------------------------------------------------

// Operations to a PE of this host take the transport TILECOMM_TRANSPORTS
// lists first; to a PE of another host (no shmem_ptr) they take UCX, which
// counts exactly what it carried (shmemx_transport_traffic).
TEST(RmaRoute, OperationsTakeTheConfiguredTransport) {
  const char* env = getenv("TILECOMM_TRANSPORTS");
  const std::string routes = env ? env : "";
  Sym<long> buf(8);
  bool listed = routes.find("ucx") != std::string::npos;  // UCX started
  for (int pe = 0; pe < npes(); ++pe) listed |= shmem_ptr(buf.get(), pe) == nullptr;
  const bool via_ucx = (routes.rfind("ucx", 0) == 0 && right() != me()) ||  // own memory: loads and stores
                       shmem_ptr(buf.get(), right()) == nullptr;
  uint64_t ops0 = 0, bytes0 = 0;
  shmem_long_p(buf.get(), 1, right());  // makes the endpoint when routed to UCX
  shmem_quiet();
  const int rc = shmemx_transport_traffic("ucx", right(), &ops0, &bytes0);
  EXPECT_EQ(shmemx_transport_traffic("sdma", right(), &ops0, &bytes0), -1);
  EXPECT_EQ(shmemx_transport_traffic("ucx", npes(), &ops0, &bytes0), -1);
  EXPECT_EQ(rc, listed ? 0 : -1);
  if (listed && rc == 0) {
    uint64_t ops = 0, bytes = 0;
    shmemx_transport_traffic("ucx", right(), &ops0, &bytes0);
    long src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, got[8] = {};
    shmem_long_put(buf.get(), src, 8, right());                  // 1 op, 64 bytes
    shmem_long_get(got, buf.get(), 8, right());                  // 1 op, 64 bytes
    shmem_long_iput(buf.get(), src, 2, 1, 3, right());           // 3 ops, 24 bytes
    (void)shmem_long_atomic_fetch_add(buf.get(), 1, right());    // 1 op, 8 bytes
    shmem_quiet();
    EXPECT_EQ(shmemx_transport_traffic("ucx", right(), &ops, &bytes), 0);
    EXPECT_EQ(ops - ops0, via_ucx ? 6u : 0u);
    EXPECT_EQ(bytes - bytes0, via_ucx ? 160u : 0u);
    EXPECT_TRUE(std::equal(got, got + 8, src));
  }
  barrier();
}
