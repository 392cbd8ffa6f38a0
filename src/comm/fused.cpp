// The fused operators of <tilecomm/ops.hpp>: kernels on the communicator,
// synchronised with the orchestration helpers of seed 001, one launch per
// round (a launch owns one ping-pong partition of every window).
//
// NOTE [fused operators] None of them builds the gathered or the unreduced
// matrix in private memory and then moves it, as the unfused composition
// does:
// - AllGatherAdd and AllGatherMatmul stage this rank's shard in its window
//   (AllGatherMatmul tile by tile, each tile multiplied while it is still
//   in the cache and announced to the peers at once), then add or multiply
//   every rank's shard where it lies, in the peer's window (NOTE [shard
//   order]): the gather costs one staging copy of 1/size() of the data.
//   When every rank's input is the same symmetric object (shmem_malloc;
//   found on the plan's first run with one exchange, NOTE [first run]),
//   nothing is staged: each rank announces its shard at once and the
//   peers read it in their mapping of the owner's copy, so the gather
//   costs nothing but the flags.
//   Half-precision shards travel as they are; each reader widens a tile at
//   a time into its workspace for the BLAS (2 PEs, bf16 256x1024x32:
//   0.90 of unfused against 0.98 when the owner staged fp32, which the
//   peers then read twice the bytes of).
// - AllGatherMatmul moves the weights instead where they are the smaller
//   operand (ops::Moves, chosen when planning): each rank stages its x2 once
//   per call, copies every rank's x2 side by side into its workspace, and
//   multiplies its own shard by all of them in one product of size()*n
//   columns, into its window; each rank then takes its n columns of every
//   rank's product into y, adding its bias. No shard is staged or read by
//   another CPU, and the BLAS reads each shard once instead of every rank
//   reading every shard: with small n the product is bound by reading x1,
//   so it gets faster too. Same arithmetic (the same dot products, the
//   bias added to each), so exact inputs give the same bits in both forms.
//   Measured (AMD EPYC Zen 4, 2 PEs, fp32, medians of 19 interleaved
//   repetitions, us per call, weights against shards): private x1 423 /
//   486 (256x1024x32), 447 / 600 (512x1024x16), 820 / 954 (1024x512x32),
//   616 / 1373 (1024x1024x8); symmetric x1, where the shards form stages
//   nothing, 423 / 440, 445 / 511, 809 / 855, 528 / 904.
// - MatmulReduceScatter and MatmulAllReduce compute the local product
//   straight into the window, block by destination rank (the next rank's
//   first, their own last), and tell each destination after every row tile;
//   each rank reduces its block out of every window (in rank order, so the
//   bits do not depend on who computes) as the tiles arrive, while the
//   peers are still computing, and adds the bias to each summed tile while
//   it is in the cache. (The bias used to join rank 0's product, the BLAS
//   adding the product to rows filled with it. That made rank 0 the last
//   to finish and the others wait: 2 PEs, MatmulAllReduce fp32
//   2048x32x256, rank 0 computed for 600-640 us against 400-420 and a call
//   took 810-890 us against 640-665 with the bias in the sums.)
//   MatmulAllReduce then publishes the reduced block in a second area of
//   the window, where every rank copies it from. On two ranks each rank sums both blocks itself,
//   straight into y, instead (one-shot): it reads what the two-phase form
//   reads, writes y once rather than the published block and then y, and
//   waits for one round of flags fewer (fp32, 2 PEs, 2048x32x256,
//   1024x64x512 and 512x32x1024, medians of 38 interleaved repetitions:
//   0.88-0.96 of the two-phase time). On more ranks every rank would read
//   every product, n/2 times the two-phase form's reads.
// - The reducing operators move the operands instead where x1's rows and x2
//   are smaller than the product rows, k * (m + rounds * size() * n) <
//   m * n (x2 is staged again in each round of the window), as in the MC2
//   shapes, whose k is one rank's share of the inner dimension
//   (ops::Moves, chosen when planning; operands_round). Each rank stages
//   x2 and its x1 (the owner widens half precision once) and computes its
//   own slice of the sum: for each rank in rank order, that rank's rows of
//   the slice times its x2, tile by tile, each product added to the tile's
//   sum by the BLAS (beta = 1), so exact inputs give the bits of the
//   products form. (Each product used to go to a scratch tile, added in a
//   second pass: 2 PEs, fp32, the fused call took 1.05-1.15 times as long,
//   5 alternations.) No product row crosses to another CPU;
//   MatmulAllReduce then gathers the summed slices as before. The flops
//   are the same. Measured (AMD EPYC Zen 4, fp32 with
//   bias, medians of 15 interleaved repetitions of 10 calls, two runs,
//   operands / products): 2 PEs 0.50-0.89 (MatmulReduceScatter 4096x32x256,
//   1024x32x1024, 2048x16x512) and 0.72-0.93 (MatmulAllReduce 1024x64x512,
//   2048x32x256, 512x32x1024); 4 PEs 0.61-0.84 and 0.78-0.94.
// Every launch ends with the post-sync of seed 001 (each reader tells each
// owner it is done), so a window partition is reused only once nobody reads it.
//
// Tiles (MatmulOptions::tiles): the row tiles of each block, the unit that
// a record announces. The cost model: a tile of at least half the L2
// cache of product (AllGatherMatmul: of x1 shard; below that the record
// and wait and the smaller BLAS call cost more than the earlier start
// gains), at most kMaxTiles per block. Measured: on an earlier host,
// AllGatherMatmul, 2 PEs, 256 KiB tiles against one tile per shard: 0.82
// against 0.89 of unfused (fp32 1024x512x32), 0.80 against 0.85
// (512x1024x16), medians of 5 interleaved runs. On a Zen 5 (1 MiB L2),
// medians of 38 interleaved repetitions, 512 KiB tiles against 256 KiB:
// 0.98-0.99 of the time at 2 PEs (fp32 256x1024x32, 512x1024x16,
// 1024x512x32, twice each; 1024x512x32 once 1.003), 0.97-0.98 at 4 PEs;
// 128 KiB tiles cost 1.02-1.08.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <type_traits>

#include "coll/algorithm.hpp"
#include "comm/access.hpp"
#include "comm/blas.hpp"
#include "comm/ops_plan.hpp"
#include "core/copy.hpp"
#include "core/error.hpp"
#include "tilecomm/orchestration.hpp"

namespace tilecomm::ops {

namespace {

using Kind = Executor::Kind;
constexpr int kMaxTiles = 16;

// ---- element helpers -------------------------------------------------------------

float half_to_float(DataType t, std::uint16_t h) { return t == DataType::Fp16 ? fp16_to_float(h) : bf16_to_float(h); }
std::uint16_t float_to_half(DataType t, float f) { return t == DataType::Fp16 ? float_to_fp16(f) : float_to_bf16(f); }

// n elements of the caller's type into the compute type (W: fp32 for half
// precision, widened) and back (rounded once); other types are copied.
// (bf16 loops apart: its conversions are inline and vectorise.)
void widen(DataType t, void* dst, const void* src, std::size_t n) {
  if (!is_half(t)) return copy_bytes(dst, src, n * size_of(t));
  const auto* s = static_cast<const std::uint16_t*>(src);
  auto* d = static_cast<float*>(dst);
  if (t == DataType::Bf16)
    for (std::size_t i = 0; i < n; ++i) d[i] = bf16_to_float(s[i]);
  else
    for (std::size_t i = 0; i < n; ++i) d[i] = fp16_to_float(s[i]);
}
void narrow(DataType t, void* dst, const void* src, std::size_t n) {
  if (!is_half(t)) return copy_bytes(dst, src, n * size_of(t));
  const auto* s = static_cast<const float*>(src);
  auto* d = static_cast<std::uint16_t*>(dst);
  if (t == DataType::Bf16)
    for (std::size_t i = 0; i < n; ++i) d[i] = float_to_bf16(s[i]);
  else
    for (std::size_t i = 0; i < n; ++i) d[i] = float_to_fp16(s[i]);
}

// dst[i] = a[i] + b[i]: integers wrap, half precision adds in fp32 and rounds once.
template <class T>
void add_typed(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<T*>(dst);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  using A = typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<decltype(+T{})>,
                                        std::type_identity<T>>::type;
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(static_cast<A>(x[i]) + static_cast<A>(y[i]));
}

void add(DataType t, void* dst, const void* a, const void* b, std::size_t n) {
  switch (t) {
    case DataType::Int8: return add_typed<std::int8_t>(dst, a, b, n);
    case DataType::Int16: return add_typed<std::int16_t>(dst, a, b, n);
    case DataType::Int32: return add_typed<std::int32_t>(dst, a, b, n);
    case DataType::Int64: return add_typed<std::int64_t>(dst, a, b, n);
    case DataType::Uint8: return add_typed<std::uint8_t>(dst, a, b, n);
    case DataType::Uint16: return add_typed<std::uint16_t>(dst, a, b, n);
    case DataType::Uint32: return add_typed<std::uint32_t>(dst, a, b, n);
    case DataType::Uint64: return add_typed<std::uint64_t>(dst, a, b, n);
    case DataType::Fp32: return add_typed<float>(dst, a, b, n);
    case DataType::Fp64: return add_typed<double>(dst, a, b, n);
    case DataType::Fp16: case DataType::Bf16: {
      auto* d = static_cast<std::uint16_t*>(dst);
      auto* x = static_cast<const std::uint16_t*>(a);
      auto* y = static_cast<const std::uint16_t*>(b);
      for (std::size_t i = 0; i < n; ++i) d[i] = float_to_half(t, half_to_float(t, x[i]) + half_to_float(t, y[i]));
      return;
    }
  }
}

// NOTE [shard order] The gathering operators take their own shard first,
// while it is still in this CPU's cache from the staging, then the peers'
// in the order me+1, me+2, ... (TileXR's order), and tell each owner as
// soon as they are done with its shard (RecordNv1) rather than all at the
// end. Reading the peers' shards first instead measured slower on 2 PEs
// (AllGatherMatmul fp32 0.96-1.0 of unfused against 0.88-0.93, same run).

// Each reader tells each owner it is done; then nobody reads my window.
void post_sync(const CommArgs& a) {
  for (int r = 0; r < a.rankSize; ++r)
    if (r != a.rank) orch::RecordNv1(r, a.magic);
  orch::Wait1vN(a.magic);
}

// One round of an operator as a launch on its communicator; a failure
// (a peer died, TILECOMM_TIMEOUT) names the operator the caller called.
template <class Round>
void launch_round(Plan& ex, Round&& round) {
  try {
    ex.comm->launch(1, round);
  } catch (const Error& e) {
    throw Error(e.code(), std::string(call_of(ex.kind)) + ": " + e.what());
  }
}

// Rows [first, last) of tile t of a block of `rows` rows cut in `tiles`.
std::size_t tile_row(std::size_t rows, int t, int tiles) { return rows * t / tiles; }

// The smallest tile of the cost model: half the L2 cache (256 KiB where its size is unknown).
std::size_t tile_bytes() {
  const std::size_t l2 = l2_cache_bytes();
  return l2 ? l2 / 2 : std::size_t{256} << 10;
}

int tiles_for(std::size_t block_bytes, int forced) {
  if (forced > 0) return forced;
  return static_cast<int>(std::clamp<std::size_t>(block_bytes / tile_bytes(), 1, kMaxTiles));
}

// ---- the matmul operators' buffers -----------------------------------------------

// Wire (window) and compute type: fp32 for fp16, bf16 and fp32; fp64.
template <class W>
struct Matmul {
  const Plan& ex;
  const W* x2;         // k x n, in W (the caller's, or converted in the workspace)
  const W* bias;       // n, in W, or null
  W* x1_tile;          // half precision: a tile of x1 rows converted
  W* y_tile;           // half precision: a tile of the product before rounding
  W* x2_all;           // Moves::Weights: every rank's x2 side by side, k x size()*n
  bool streaming;      // the staging stores (NOTE [staging stores] in ops.cpp)
};

std::size_t wire_size(DataType t) { return t == DataType::Fp64 ? 8 : 4; }

// Workspace layout: for half precision x2, bias, an x1 tile and a y tile
// (fp32); for Moves::Weights every rank's x2.
struct Layout {
  std::size_t x2 = 0, bias = 0, x1_tile = 0, y_tile = 0, x2_all = 0, total = 0;
};

Layout layout(const Plan& ex, std::size_t tile_rows) {
  Layout l;
  const MatmulShape& s = ex.shape;
  auto area = [&](std::size_t elems) {
    const std::size_t at = l.total;
    l.total += align_up(elems * wire_size(ex.dtype));
    return at;
  };
  if (ex.moves == Moves::Weights) l.x2_all = area(s.k * s.n * ex.comm->size());
  if (!is_half(ex.dtype)) return l;
  l.x2 = area(s.k * s.n);
  l.bias = area(s.n);
  l.x1_tile = area(tile_rows * s.k);
  l.y_tile = area(tile_rows * s.n);
  return l;
}

// Rows per round and block, and tiles per block, for a window partition.
struct Rounds {
  std::size_t rows = 0;  // per rank (AllGatherMatmul) or per destination block (the others)
  int tiles = 1;
};

// Rows that fit in a partition after its first `reserved` bytes, at
// `row_bytes` per row (every block's row of a round).
std::size_t rows_fitting(const CommArgs& a, std::size_t row_bytes, std::size_t reserved = 0) {
  if (a.partitionBytes() <= reserved) return 0;
  return row_bytes == 0 ? SIZE_MAX : (a.partitionBytes() - reserved) / row_bytes;
}

// MatmulAllReduce on two ranks: each rank sums both blocks straight into y,
// publishing nothing (NOTE [fused operators]).
bool is_one_shot(const Plan& ex, const CommArgs& a) {
  return ex.kind == Kind::MatmulAllReduce && ex.moves == Moves::Products && a.rankSize == 2;
}

// Moves::Weights and Operands: the window area that holds this rank's x2 (compute type).
std::size_t x2_bytes(const Plan& ex) { return align_up(ex.shape.k * ex.shape.n * wire_size(ex.dtype)); }

Rounds rounds_for(const Plan& ex, const CommArgs& a) {
  const MatmulShape& s = ex.shape;
  const std::size_t n = a.rankSize;
  Rounds r;
  std::size_t block_rows, row_bytes;
  const std::size_t w = wire_size(ex.dtype);
  if (ex.moves == Moves::Weights) {
    // my x2, then this round's product rows for every rank (weights_round)
    block_rows = s.m;
    row_bytes = s.k * size_of(ex.dtype);  // the tile unit: rows of x1 multiplied
    r.rows = std::min<std::size_t>(block_rows, rows_fitting(a, n * s.n * w, x2_bytes(ex)));
  } else if (ex.kind == Kind::AllGatherMatmul) {
    block_rows = s.m;  // each rank's shard
    row_bytes = s.k * size_of(ex.dtype);  // shards travel in the caller's type
    r.rows = std::min<std::size_t>(block_rows, rows_fitting(a, row_bytes));
  } else {
    block_rows = ex.kind == Kind::MatmulReduceScatter ? s.m / n : (s.m + n - 1) / n;  // the largest slice
    row_bytes = s.n * w;
    const bool published = ex.kind == Kind::MatmulAllReduce && !is_one_shot(ex, a);  // the reduced block's area
    if (ex.moves == Moves::Operands)  // my x2, this round's x1 rows for every slice, my sums (operands_round)
      r.rows = rows_fitting(a, n * s.k * w + (published ? row_bytes : 0), x2_bytes(ex));
    else
      r.rows = rows_fitting(a, (n + published) * row_bytes);
    r.rows = std::min<std::size_t>(block_rows, r.rows);
  }
  r.tiles = tiles_for(r.rows * row_bytes, ex.tiles);
  r.tiles = static_cast<int>(std::min<std::size_t>(r.tiles, std::max<std::size_t>(r.rows, 1)));  // no empty tiles
  return r;
}

// ---- AllGatherAdd ------------------------------------------------------------------

// Rank r's shard from element or row `at` on (`unit` bytes each): in its
// window, or in its copy of a symmetric input (NOTE [fused operators]). My
// own I read in my input where no output overlaps it: the staging just
// read it, so it is in my cache, whatever stores the staging used.
const std::uint8_t* shard_of(const CommArgs& a, const Plan& ex, int r, std::uint64_t at, std::size_t unit) {
  if (ex.symmetric_input) return rank_copy(ex, ex.symmetric_input, r) + at * unit;
  if (r == a.rank && ex.input_apart) return static_cast<const std::uint8_t*>(ex.input) + at * unit;
  return a.data(r);
}

void gather_add_round(const CommArgs& a, const Plan& ex, std::uint64_t at, std::uint64_t len, bool streaming) {
  const int n = a.rankSize, me = a.rank;
  const std::size_t e = size_of(ex.dtype);
  const auto* b = static_cast<const std::uint8_t*>(ex.input2);
  auto* c = static_cast<std::uint8_t*>(ex.output);
  if (!ex.symmetric_input) stage(a.data(me), static_cast<const std::uint8_t*>(ex.input) + at * e, len * e, streaming);
  orch::Record1vN(a.magic);
  for (int step = 0; step < n; ++step) {  // NOTE [shard order]
    const int r = (me + step) % n;
    if (r != me) orch::WaitNv1(r, a.magic);
    const std::size_t off = (r * ex.count + at) * e;
    add(ex.dtype, c + off, shard_of(a, ex, r, at, e), b + off, len);
    if (r != me) orch::RecordNv1(r, a.magic);
  }
  orch::Wait1vN(a.magic);
}

void run_gather_add(Plan& ex, bool streaming) {
  const std::uint64_t per_round = ex.rows;  // as planned (NOTE [bound plans])
  for (std::uint64_t at = 0; at < ex.count; at += per_round) {
    const std::uint64_t len = std::min(per_round, ex.count - at);
    launch_round(ex, [&](const CommArgs& a) { gather_add_round(a, ex, at, len, streaming); });
  }
}

// ---- AllGatherMatmul --------------------------------------------------------------

// y rows [row, row + rows) = src @ x2 + bias, src in W with row stride k.
template <class W>
void multiply_rows(const Matmul<W>& mm, const W* src, std::size_t row, std::size_t rows) {
  const Plan& ex = mm.ex;
  const MatmulShape& s = ex.shape;
  const bool half = is_half(ex.dtype);
  W* dst = half ? mm.y_tile : static_cast<W*>(ex.output) + row * s.n;
  if (mm.bias)
    for (std::size_t i = 0; i < rows; ++i) std::memcpy(dst + i * s.n, mm.bias, s.n * sizeof(W));
  blas::gemm(rows, s.k, s.n, src, s.k, mm.x2, s.n, mm.bias ? W(1) : W(0), dst, s.n);
  if (half) narrow(ex.dtype, static_cast<std::uint16_t*>(ex.output) + row * s.n, dst, rows * s.n);
}

template <class W>
void gather_matmul_round(const CommArgs& a, const Matmul<W>& mm, std::uint64_t at, std::uint64_t len, int tiles) {
  const Plan& ex = mm.ex;
  const MatmulShape& s = ex.shape;
  const int n = a.rankSize, me = a.rank;
  const std::size_t e = size_of(ex.dtype);
  const auto* x1 = static_cast<const std::uint8_t*>(ex.input) + at * s.k * e;
  if (ex.symmetric_input)  // nothing to stage: every tile of my shard is ready
    for (int t = 0; t < tiles; ++t) orch::Record1vN(a.magic);
  for (int step = 0; step < n; ++step) {  // NOTE [shard order]
    const int r = (me + step) % n;
    const std::uint8_t* const shard = shard_of(a, ex, r, at, s.k * e);
    for (int t = 0; t < tiles; ++t) {
      const std::size_t r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles);
      const std::size_t row = r * s.m + at + r0;  // in y and gather_out
      const std::size_t bytes = (r1 - r0) * s.k * e;
      const std::uint8_t* const tile = shard + r0 * s.k * e;
      if (r == me) {  // stage my tile, announce it, and multiply it while it is in the cache
        if (!ex.symmetric_input) {
          stage(a.data(me) + r0 * s.k * e, x1 + r0 * s.k * e, bytes, mm.streaming);
          orch::Record1vN(a.magic);
        }
      } else {
        orch::WaitNv1(r, a.magic);
      }
      const W* rows = reinterpret_cast<const W*>(tile);
      if (is_half(ex.dtype)) {  // widened by each reader, a tile at a time (NOTE [fused operators])
        widen(ex.dtype, mm.x1_tile, tile, (r1 - r0) * s.k);
        rows = mm.x1_tile;
      }
      multiply_rows(mm, rows, row, r1 - r0);
      if (ex.gather_out) copy_bytes(static_cast<std::uint8_t*>(ex.gather_out) + row * s.k * e, tile, bytes);
    }
    if (r != me) orch::RecordNv1(r, a.magic);
  }
  orch::Wait1vN(a.magic);
}

// Moves::Weights: y rows [row, row + rows) = this rank's n columns of a
// product (row stride ld) + bias; through the y tile for half precision.
template <class W>
void take_columns(const Matmul<W>& mm, const W* src, std::size_t ld, std::size_t row, std::size_t rows) {
  const Plan& ex = mm.ex;
  const std::size_t n = ex.shape.n;
  const bool half = is_half(ex.dtype);
  for (std::size_t i = 0; i < rows; ++i, src += ld) {
    W* dst = half ? mm.y_tile : static_cast<W*>(ex.output) + (row + i) * n;
    if (mm.bias)
      for (std::size_t j = 0; j < n; ++j) dst[j] = src[j] + mm.bias[j];
    else
      std::memcpy(dst, src, n * sizeof(W));
    if (half) narrow(ex.dtype, static_cast<std::uint16_t*>(ex.output) + (row + i) * n, dst, n);
  }
}

// Moves::Weights (NOTE [fused operators]): my rows [at, at + len) times
// every rank's x2 side by side, one product of size()*n columns into my
// window after my x2; then each rank takes its n columns of every rank's
// product, its own first. The first round of a call gathers the x2s into
// the workspace; later rounds reuse them.
template <class W>
void weights_round(const CommArgs& a, const Matmul<W>& mm, std::uint64_t at, std::uint64_t len, int tiles) {
  const Plan& ex = mm.ex;
  const MatmulShape& s = ex.shape;
  const int n = a.rankSize, me = a.rank;
  const std::size_t wide = n * s.n;
  auto product = [&](int r) { return reinterpret_cast<W*>(a.data(r) + x2_bytes(ex)); };
  auto place = [&](int r, const W* x2) {  // as columns [r*n, r*n + n) of x2_all
    for (std::size_t j = 0; j < s.k; ++j) std::memcpy(mm.x2_all + j * wide + r * s.n, x2 + j * s.n, s.n * sizeof(W));
  };
  if (at == 0) {
    stage(a.data(me), mm.x2, s.k * s.n * sizeof(W), mm.streaming);
    orch::Record1vN(a.magic);
    place(me, mm.x2);
    for (int step = 1; step < n; ++step) {
      const int r = (me + step) % n;
      orch::WaitNv1(r, a.magic);
      place(r, a.data<W>(r));
    }
  }
  for (int t = 0; t < tiles; ++t) {
    const std::size_t r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles);
    const W* x1 = static_cast<const W*>(ex.input) + (at + r0) * s.k;
    if (is_half(ex.dtype)) {
      widen(ex.dtype, mm.x1_tile, static_cast<const std::uint16_t*>(ex.input) + (at + r0) * s.k, (r1 - r0) * s.k);
      x1 = mm.x1_tile;
    }
    blas::gemm(r1 - r0, s.k, wide, x1, s.k, mm.x2_all, wide, W(0), product(me) + r0 * wide, wide);
    orch::Record1vN(a.magic);
  }
  for (int step = 0; step < n; ++step) {
    const int r = (me + step) % n;
    for (int t = 0; t < tiles; ++t) {
      const std::size_t r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles);
      if (r != me) orch::WaitNv1(r, a.magic);
      take_columns(mm, product(r) + r0 * wide + me * s.n, wide, r * s.m + at + r0, r1 - r0);
    }
    if (r != me) orch::RecordNv1(r, a.magic);
  }
  orch::Wait1vN(a.magic);
}

// ---- MatmulReduceScatter and MatmulAllReduce ----------------------------------------

// First row of rank k's slice of the m product rows.
std::size_t slice_row(const MatmulShape& s, int k, int n) { return s.m * k / n; }

// Rows of rank k's slice in the round from row `at` on, of `rows` rows at most.
std::size_t round_rows(const MatmulShape& s, int k, int n, std::uint64_t at, std::uint64_t rows) {
  const std::size_t len = slice_row(s, k + 1, n) - slice_row(s, k, n);
  return len > at ? std::min<std::size_t>(rows, len - at) : 0;
}

// rows x n values += the bias, on every row.
template <class W>
void add_bias(W* values, const W* bias, std::size_t rows, std::size_t n) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < n; ++j) values[i * n + j] += bias[j];
}

template <class W>
void matmul_reduce_round(const CommArgs& a, const Matmul<W>& mm, std::uint64_t at, std::uint64_t rows, int tiles) {
  const Plan& ex = mm.ex;
  const MatmulShape& s = ex.shape;
  const int n = a.rankSize, me = a.rank;
  const std::size_t e = size_of(ex.dtype);
  const bool all = ex.kind == Kind::MatmulAllReduce, half = is_half(ex.dtype);
  const bool one_shot = is_one_shot(ex, a);
  constexpr coll::DType kSumType = coll::dtype_of<W>();
  // Rows of this round in rank k's block, and where the block and the reduced result lie in a window.
  auto block_rows = [&](int k) { return round_rows(s, k, n, at, rows); };
  auto block = [&](int owner, int k) { return a.data<W>(owner) + k * rows * s.n; };
  auto result = [&](int owner) { return a.data<W>(owner) + n * rows * s.n; };
  // Rows [r0, r1) of block k summed over the ranks in rank order, + bias, into acc.
  auto sum_tile = [&](int k, std::size_t r0, std::size_t r1, W* acc) {
    const std::size_t cells = (r1 - r0) * s.n;
    if (n == 1) std::memcpy(acc, block(0, k) + r0 * s.n, cells * sizeof(W));
    for (int r = 1; r < n; ++r)
      coll::reduce2(kSumType, coll::Op::Sum, acc, r == 1 ? block(0, k) + r0 * s.n : acc, block(r, k) + r0 * s.n, cells);
    if (mm.bias) add_bias(acc, mm.bias, r1 - r0, s.n);
  };
  // ... into y from row `row` on (through the y tile for half precision).
  auto sum_into_y = [&](int k, std::size_t r0, std::size_t r1, std::size_t row) {
    W* acc = half ? mm.y_tile : static_cast<W*>(ex.output) + row * s.n;
    sum_tile(k, r0, r1, acc);
    if (half) narrow(ex.dtype, static_cast<std::uint16_t*>(ex.output) + row * s.n, acc, (r1 - r0) * s.n);
  };

  // My product, block by destination, the next rank's first and mine last.
  for (int step = 1; step <= n; ++step) {
    const int d = (me + step) % n;
    const std::size_t len = block_rows(d);
    for (int t = 0; t < tiles; ++t) {
      const std::size_t r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles);
      const std::size_t row = slice_row(s, d, n) + at + r0;
      const W* x1 = mm.x1_tile;
      if (half) widen(ex.dtype, mm.x1_tile, static_cast<const std::uint16_t*>(ex.input) + row * s.k, (r1 - r0) * s.k);
      else x1 = static_cast<const W*>(ex.input) + row * s.k;
      blas::gemm(r1 - r0, s.k, s.n, x1, s.k, mm.x2, s.n, W(0), block(me, d) + r0 * s.n, s.n);
      if (one_shot) orch::Record1vN(a.magic);
      else if (d != me) orch::Record(d, a.magic);
    }
  }

  if (one_shot) {  // both blocks, in the order the peer computed them: mine, then its own
    const int peer = 1 - me;
    for (int k : {me, peer})
      for (int t = 0; t < tiles; ++t) {
        const std::size_t len = block_rows(k), r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles);
        orch::WaitNv1(peer, a.magic);
        sum_into_y(k, r0, r1, slice_row(s, k, n) + at + r0);
      }
    return post_sync(a);
  }

  // My block, tile by tile as the peers' tiles arrive.
  const std::size_t len = block_rows(me);
  for (int t = 0; t < tiles; ++t) {
    const std::size_t r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles);
    for (int r = 0; r < n; ++r)
      if (r != me) orch::Wait(r, a.magic);
    if (all) {
      sum_tile(me, r0, r1, result(me) + r0 * s.n);
      orch::Record1vN(a.magic);
    } else {
      sum_into_y(me, r0, r1, at + r0);
    }
  }

  if (all) {  // every rank's reduced block, from its window
    for (int step = 0; step < n; ++step) {
      const int r = (me + step) % n;
      const std::size_t len_r = block_rows(r);
      for (int t = 0; t < tiles; ++t) {
        const std::size_t r0 = tile_row(len_r, t, tiles), r1 = tile_row(len_r, t + 1, tiles), cells = (r1 - r0) * s.n;
        if (r != me) orch::WaitNv1(r, a.magic);
        const std::size_t row = slice_row(s, r, n) + at + r0;
        narrow(ex.dtype, static_cast<std::uint8_t*>(ex.output) + row * s.n * e, result(r) + r0 * s.n, cells);
      }
    }
  }
  post_sync(a);
}

// Moves::Operands (NOTE [fused operators]): each rank computes its slice
// of the sum from every rank's operands. It stages x2 and, for every
// slice, this round's rows of x1 (in the compute type) into its window;
// then, tile by tile, it multiplies its slice's rows of each rank's x1 by
// that rank's x2, adding the products in rank order (the BLAS adds each
// to the sum, beta = 1), and adds the bias. MatmulAllReduce publishes each
// summed tile in the window, where the other ranks copy it into y from:
// summed there in place, or, where the staging stores stream, summed in y
// (or the half-precision tile) and streamed to the window.
template <class W>
void operands_round(const CommArgs& a, const Matmul<W>& mm, std::uint64_t at, std::uint64_t rows, int tiles) {
  const Plan& ex = mm.ex;
  const MatmulShape& s = ex.shape;
  const int n = a.rankSize, me = a.rank;
  const std::size_t e = size_of(ex.dtype);
  const bool all = ex.kind == Kind::MatmulAllReduce, half = is_half(ex.dtype);
  auto x2_of = [&](int r) { return reinterpret_cast<const W*>(a.data(r)); };
  auto x1_of = [&](int r, int k) { return reinterpret_cast<W*>(a.data(r) + x2_bytes(ex)) + k * rows * s.k; };
  auto sums_of = [&](int r) { return x1_of(r, n); };  // after the x1 rows
  auto y_row = [&](std::size_t row) { return static_cast<std::uint8_t*>(ex.output) + row * s.n * e; };

  stage(a.data(me), mm.x2, s.k * s.n * sizeof(W), mm.streaming);
  for (int k = 0; k < n; ++k) {
    const std::size_t row = slice_row(s, k, n) + at, cells = round_rows(s, k, n, at, rows) * s.k;
    if (half) widen(ex.dtype, x1_of(me, k), static_cast<const std::uint16_t*>(ex.input) + row * s.k, cells);
    else stage(x1_of(me, k), static_cast<const W*>(ex.input) + row * s.k, cells * sizeof(W), mm.streaming);
  }
  orch::Record1vN(a.magic);
  for (int r = 0; r < n; ++r)
    if (r != me) orch::WaitNv1(r, a.magic);

  const std::size_t len = round_rows(s, me, n, at, rows);
  for (int t = 0; t < tiles; ++t) {
    const std::size_t r0 = tile_row(len, t, tiles), r1 = tile_row(len, t + 1, tiles), cells = (r1 - r0) * s.n;
    const std::size_t row = (all ? slice_row(s, me, n) : 0) + at + r0;  // in y
    // MatmulAllReduce with streaming stores sums outside the window, then
    // streams the sums there for the peers (NOTE [staging stores]).
    const bool in_window = all && !mm.streaming;
    W* acc = in_window ? sums_of(me) + r0 * s.n : half ? mm.y_tile : reinterpret_cast<W*>(y_row(row));
    for (int r = 0; r < n && r1 > r0; ++r)  // each product added to the sum by the BLAS itself
      blas::gemm(r1 - r0, s.k, s.n, x1_of(r, me) + r0 * s.k, s.k, x2_of(r), s.n, W(r == 0 ? 0 : 1), acc, s.n);
    if (mm.bias) add_bias(acc, mm.bias, r1 - r0, s.n);
    if (all && !in_window) stage(sums_of(me) + r0 * s.n, acc, cells * sizeof(W), true);
    if (all) orch::Record1vN(a.magic);
    if (in_window || half) narrow(ex.dtype, y_row(row), acc, cells);
  }

  if (all) {  // the other ranks' sums, from their windows
    for (int step = 1; step < n; ++step) {
      const int r = (me + step) % n;
      const std::size_t len_r = round_rows(s, r, n, at, rows);
      for (int t = 0; t < tiles; ++t) {
        const std::size_t r0 = tile_row(len_r, t, tiles), r1 = tile_row(len_r, t + 1, tiles);
        orch::WaitNv1(r, a.magic);
        narrow(ex.dtype, y_row(slice_row(s, r, n) + at + r0), sums_of(r) + r0 * s.n, (r1 - r0) * s.n);
      }
    }
  }
  post_sync(a);
}

template <class W>
void run_matmul(Plan& ex, void* workspace, bool streaming) {
  const CommArgs& args = ex.comm->args();
  const MatmulShape& s = ex.shape;
  const Rounds plan{ex.rows, ex.tiles};  // as planned (NOTE [bound plans])
  const Layout l = layout(ex, (plan.rows + plan.tiles - 1) / plan.tiles);
  auto* ws = static_cast<std::uint8_t*>(workspace);
  Matmul<W> mm{ex, static_cast<const W*>(ex.input2), static_cast<const W*>(ex.bias), nullptr, nullptr, nullptr, streaming};
  if (ex.moves == Moves::Weights) mm.x2_all = reinterpret_cast<W*>(ws + l.x2_all);
  if (is_half(ex.dtype)) {  // x2 and the bias once in fp32, for every round
    widen(ex.dtype, ws + l.x2, ex.input2, s.k * s.n);
    if (ex.bias) widen(ex.dtype, ws + l.bias, ex.bias, s.n);
    mm.x2 = reinterpret_cast<const W*>(ws + l.x2);
    mm.bias = ex.bias ? reinterpret_cast<const W*>(ws + l.bias) : nullptr;
    mm.x1_tile = reinterpret_cast<W*>(ws + l.x1_tile);
    mm.y_tile = reinterpret_cast<W*>(ws + l.y_tile);
  }
  const std::size_t total = ex.kind == Kind::AllGatherMatmul ? s.m
                            : ex.kind == Kind::MatmulReduceScatter ? s.m / args.rankSize
                                                                   : (s.m + args.rankSize - 1) / args.rankSize;
  for (std::size_t at = 0; at < total; at += plan.rows) {
    const std::size_t rows = std::min(plan.rows, total - at);
    launch_round(ex, [&](const CommArgs& a) {
      if (ex.moves == Moves::Weights) weights_round(a, mm, at, rows, plan.tiles);
      else if (ex.moves == Moves::Operands) operands_round(a, mm, at, plan.rows, plan.tiles);
      else if (ex.kind == Kind::AllGatherMatmul) gather_matmul_round(a, mm, at, rows, plan.tiles);
      else matmul_reduce_round(a, mm, at, plan.rows, plan.tiles);
    });
  }
}

// ---- planning ----------------------------------------------------------------------

bool is_float(DataType t) { return is_half(t) || t == DataType::Fp32 || t == DataType::Fp64; }

Plan& start_plan(Executor* executor, Kind kind, Comm& comm, DataType dtype) {
  const char* call = call_of(kind);
  if (!executor) raise(ErrorCode::InvalidUsage, "%sGetWorkspaceSize: the executor pointer is null", call);
  Plan& ex = executor->reset();
  check_type(dtype, kind);
  ex.serial = comm::Access::serial(comm);  // throws for a destroyed communicator
  ex.kind = kind;
  ex.comm = &comm;
  ex.dtype = dtype;
  return ex;
}

// Runs a planner, then signs the plan; if it throws, the executor is left
// unplanned, so that a failed plan cannot be run.
template <class Planner>
std::uint64_t planning(Executor* ex, Planner&& planner) {
  try {
    const std::uint64_t workspace = planner();
    sign(*ex->plan());
    return workspace;
  } catch (...) {
    if (ex) ex->reset();
    throw;
  }
}

// Bytes of `a` x `b` elements of `e` bytes, refused where they overflow 64 bits.
std::uint64_t bytes_of(std::uint64_t a, std::uint64_t b, std::size_t e, Kind kind, const char* what) {
  std::uint64_t ab, bytes;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, e, &bytes))
    raise(ErrorCode::InvalidUsage, "%s: %s of %llu x %llu elements overflows 64 bits", call_of(kind), what,
          static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
  return bytes;
}

// NOTE [fused aliasing] A fused operator's output may share bytes with an
// input only where every round keeps it right, as for the collective
// operators (NOTE [aliased buffers] in ops.cpp): AllGatherAdd's c may hold
// a exactly in one rank's slot (a == c + j * count) and b in place (b ==
// c); AllGatherMatmul's gather_out may hold x1 in one rank's slot (x1 ==
// gather_out + j * m * k). A round writes of each slot only the rows this
// rank staged already (its own first). Any other overlap of an output with
// an input or with the other output (y and gather_out) is refused: a
// product reads its operands while it writes y.
struct Buffer {
  const void* p;
  std::uint64_t bytes;
  const char* name;
};
void check_buffers(Kind kind, std::initializer_list<Buffer> outputs, std::initializer_list<Buffer> inputs,
                   std::uint64_t slot = 0, const char* slot_input = nullptr) {
  for (const Buffer& b : inputs) check_range(b.p, b.bytes, b.name, kind);
  for (const Buffer& b : outputs) check_range(b.p, b.bytes, b.name, kind);
  auto at = [](const Buffer& b) { return reinterpret_cast<std::uint64_t>(b.p); };
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    if (!o->p) continue;
    for (const Buffer& i : inputs) {
      if (!i.p || !overlap(at(*o), o->bytes, at(i), i.bytes)) continue;
      const bool in_slot = o == outputs.begin() && slot_input && std::strcmp(i.name, slot_input) == 0 &&
                           at(i) >= at(*o) && (at(i) - at(*o)) % slot == 0 && i.bytes == slot;
      const bool in_place = kind == Kind::AllGatherAdd && std::strcmp(i.name, "b") == 0 && i.p == o->p;
      if (in_slot || in_place) continue;
      raise(ErrorCode::InvalidUsage, "%s: %s [%p, +%llu bytes) overlaps %s [%p, +%llu bytes); pass disjoint buffers%s",
            call_of(kind), o->name, o->p, static_cast<unsigned long long>(o->bytes), i.name, i.p,
            static_cast<unsigned long long>(i.bytes),
            kind == Kind::AllGatherAdd               ? ", or a == c + j * count for a rank j, or b == c"
            : slot_input && o == outputs.begin() ? ", or x1 == gather_out + j * m * k for a rank j"
                                                 : "");
    }
    for (auto p = std::next(o); p != outputs.end(); ++p)
      if (p->p && overlap(at(*o), o->bytes, at(*p), p->bytes))
        raise(ErrorCode::InvalidUsage, "%s: %s and %s overlap; pass disjoint buffers", call_of(kind), o->name, p->name);
  }
}

void need(bool ok, Kind kind, const char* what) {
  if (!ok) raise(ErrorCode::InvalidUsage, "%s: %s", call_of(kind), what);
}

std::uint64_t plan_matmul(Executor* executor, Kind kind, Comm& comm, const void* x1, const void* x2,
                          const void* bias, void* y, void* gather_out, MatmulShape s, DataType dtype,
                          const MatmulOptions& options) {
  Plan& ex = start_plan(executor, kind, comm, dtype);
  const char* call = call_of(kind);
  const int n = comm.size();
  if (!is_float(dtype))
    raise(ErrorCode::InvalidUsage, "%s: the matrix product takes fp16, bf16, fp32 or fp64, not %s", call, name_of(dtype));
  const std::uint64_t rows = kind == Kind::AllGatherMatmul ? s.m * static_cast<std::uint64_t>(n) : s.m;  // of y
  if (s.m > INT_MAX || s.k > INT_MAX || s.n > INT_MAX || rows > INT_MAX)
    raise(ErrorCode::InvalidUsage, "%s: shape m=%llu k=%llu n=%llu: the BLAS takes dimensions below 2^31", call,
          static_cast<unsigned long long>(s.m), static_cast<unsigned long long>(s.k),
          static_cast<unsigned long long>(s.n));
  if (kind == Kind::MatmulReduceScatter && s.m % n)
    raise(ErrorCode::InvalidUsage, "%s: m=%llu rows do not split evenly over %d ranks; use a multiple of %d", call,
          static_cast<unsigned long long>(s.m), n, n);
  if (options.tiles < 0) raise(ErrorCode::InvalidUsage, "%s: MatmulOptions::tiles=%d; use 0 (automatic) or more", call, options.tiles);
  // Moves (ops.hpp): each operator's first form, or its second where what that moves is smaller and fits the window.
  const bool gathers = kind == Kind::AllGatherMatmul;
  const Moves first = gathers ? Moves::Shards : Moves::Products, second = gathers ? Moves::Weights : Moves::Operands;
  if (options.moves != Moves::Auto && options.moves != first && options.moves != second)
    raise(ErrorCode::InvalidUsage, "%s: MatmulOptions::moves=%s is not a form of this operator, whose forms are %s "
          "and %s; pick one, or auto", call, name_of(options.moves), name_of(first), name_of(second));
  if (options.moves == Moves::Weights && gather_out)
    raise(ErrorCode::InvalidUsage, "%s: Moves::Weights moves no shard, so it cannot fill gather_out; use Moves::Auto "
          "or Moves::Shards, or pass no gather_out", call);
  need(!(s.m && s.k) || x1, kind, "x1 is null");
  need(!(s.k && s.n) || x2, kind, "x2 is null");
  need(!(s.m && s.n) || y, kind, "y is null");
  {
    const std::size_t e = size_of(dtype);
    const std::uint64_t x1_bytes = bytes_of(s.m, s.k, e, kind, "x1");
    const std::uint64_t y_rows = kind == Kind::MatmulReduceScatter ? s.m / n : rows;
    const std::uint64_t gathered = bytes_of(rows, s.k, e, kind, "gather_out");
    // gather_out first: it alone may hold x1, in a slot (NOTE [fused aliasing])
    check_buffers(kind, {{gather_out, gathered, "gather_out"}, {y, bytes_of(y_rows, s.n, e, kind, "y"), "y"}},
                  {{x1, x1_bytes, "x1"}, {x2, bytes_of(s.k, s.n, e, kind, "x2"), "x2"}, {bias, s.n * e, "bias"}},
                  x1_bytes, "x1");
  }
  ex.input = x1;
  ex.input2 = x2;
  ex.bias = bias;
  ex.output = y;
  ex.gather_out = gather_out;
  ex.shape = s;
  ex.tiles = options.tiles;
  // Whether the second form moves less in `rounds` rounds of the window: the
  // weights travel once per call, the operands' x2 once per round.
  auto smaller = [&](std::uint64_t rounds) {
    return gathers ? (s.k + s.m) * s.n < s.m * s.k && !gather_out : s.k * (s.m + rounds * n * s.n) < s.m * s.n;
  };
  ex.moves = options.moves != Moves::Auto ? options.moves : n > 1 && smaller(1) ? second : first;
  Rounds r = rounds_for(ex, comm.args());
  const std::uint64_t slice = (s.m + n - 1) / n;  // the operands' rows per rank, at most
  if (options.moves == Moves::Auto && ex.moves == second && s.m &&
      (r.rows == 0 || (!gathers && !smaller((slice + r.rows - 1) / r.rows)))) {
    ex.moves = first;
    r = rounds_for(ex, comm.args());
  }
  if (r.rows == 0 && s.m)
    raise(ErrorCode::InvalidUsage, "%s: the communicator's window (CommOptions::window_bytes=%llu) cannot hold %s per "
          "rank; use a larger window", call, static_cast<unsigned long long>(comm.args().windowBytes),
          ex.moves == Moves::Weights    ? "x2 and one row of the product"
          : ex.moves == Moves::Operands ? (kind == Kind::MatmulAllReduce ? "x2, one row of x1 for each rank and one of the sum"
                                                                         : "x2 and one row of x1 for each rank")
          : gathers                     ? "one row of the x1 shard"
                                        : "one row of the product");
  ex.tiles = r.tiles;
  ex.rows = r.rows;
  ex.workspace = layout(ex, (r.rows + r.tiles - 1) / r.tiles).total;
  return ex.workspace;
}

void run_call(Plan& ex, Kind kind, void* workspace, comm::CallScope& scope);

void run_fused(Executor* executor, Kind kind, void* workspace, std::uint64_t workspace_size) {
  Plan& ex = checked(executor, kind, workspace_size);
  if (ex.workspace && !workspace)
    raise(ErrorCode::InvalidUsage, "%s: the workspace pointer is null; the plan needs %llu bytes", call_of(kind),
          static_cast<unsigned long long>(ex.workspace));
  as_call(ex, [&](comm::CallScope& scope) { run_call(ex, kind, workspace, scope); });
}

void run_call(Plan& ex, Kind kind, void* workspace, comm::CallScope& scope) {
  // NOTE [fused operators]: shards read in place, unless this rank writes over its own
  const std::uint64_t e = size_of(ex.dtype), n = static_cast<std::uint64_t>(ex.comm->size());
  const bool add = kind == Kind::AllGatherAdd;
  const bool shards = add || (kind == Kind::AllGatherMatmul && ex.moves == Moves::Shards);
  const std::uint64_t shard = !shards ? 0 : add ? ex.count * e : ex.shape.m * ex.shape.k * e;
  auto apart = [&](const void* out, std::uint64_t bytes) {
    const auto o = reinterpret_cast<std::uintptr_t>(out), in = reinterpret_cast<std::uintptr_t>(ex.input);
    return !out || o + bytes <= in || in + shard <= o;
  };
  const bool disjoint = add ? apart(ex.output, n * ex.count * e)
                            : apart(ex.output, n * ex.shape.m * ex.shape.n * e) &&
                                  apart(ex.gather_out, n * ex.shape.m * ex.shape.k * e);
  ex.input_apart = shard && disjoint;  // at every run: a one-call plan's buffers change
  if (!ex.resolved) {
    // NOTE [first run]: a = the shard's symmetric name (0: staged)
    const std::vector<Names> all = agree(ex, {symmetric_name(ex, disjoint ? ex.input : nullptr, shard), 0}, scope);
    const bool same = std::all_of(all.begin(), all.end(), [&](const Names& x) { return x.a == all[0].a; });
    ex.symmetric_input = same ? all[0].a : 0;
    ex.resolved = true;
  }
  // About what this rank copies into its window per call: its shard, or x2 and its x1 rows.
  const MatmulShape& s = ex.shape;
  const std::uint64_t staged = ex.symmetric_input ? 0
                               : kind == Kind::AllGatherAdd ? ex.count * size_of(ex.dtype)
                                                            : (s.m * s.k + s.k * s.n) * size_of(ex.dtype);
  coll::PublishStores stores(static_cast<std::uint32_t>(kind), staged);
  if (kind == Kind::AllGatherAdd) run_gather_add(ex, stores.streaming());
  else if (ex.dtype == DataType::Fp64) run_matmul<double>(ex, workspace, stores.streaming());
  else run_matmul<float>(ex, workspace, stores.streaming());
  stores.done();
}

}  // namespace

std::uint64_t AllGatherAddGetWorkspaceSize(Comm& comm, const void* a, const void* b, void* c, std::uint64_t count,
                                           DataType dtype, Executor* executor) {
  return planning(executor, [&]() -> std::uint64_t {
    Plan& ex = start_plan(executor, Kind::AllGatherAdd, comm, dtype);
    std::uint64_t bytes;
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(comm.size()) * size_of(dtype), &bytes))
      raise(ErrorCode::InvalidUsage, "tilecomm::ops::AllGatherAdd: %llu elements of %s per rank overflow 64 bits",
            static_cast<unsigned long long>(count), name_of(dtype));
    need(!count || (a && b && c), Kind::AllGatherAdd, count && !a ? "a is null" : count && !b ? "b is null" : "c is null");
    ex.rows = comm.args().partitionBytes() / size_of(dtype);  // elements per round
    if (count && ex.rows == 0)
      raise(ErrorCode::InvalidUsage, "tilecomm::ops::AllGatherAdd: the communicator's window "
            "(CommOptions::window_bytes=%llu) cannot hold one element of %s; use a larger window",
            static_cast<unsigned long long>(comm.args().windowBytes), name_of(dtype));
    const std::uint64_t shard = count * size_of(dtype);
    check_buffers(Kind::AllGatherAdd, {{c, bytes, "c"}}, {{a, shard, "a"}, {b, bytes, "b"}}, shard, "a");
    ex.input = a;
    ex.input2 = b;
    ex.output = c;
    ex.count = count;
    return 0;
  });
}
void AllGatherAdd(void* workspace, std::uint64_t workspace_size, Executor* ex) {
  run_fused(ex, Kind::AllGatherAdd, workspace, workspace_size);
}

std::uint64_t AllGatherMatmulGetWorkspaceSize(Comm& comm, const void* x1, const void* x2, const void* bias, void* y,
                                              void* gather_out, MatmulShape shape, DataType dtype, Executor* ex,
                                              const MatmulOptions& options) {
  return planning(ex, [&] {
    return plan_matmul(ex, Kind::AllGatherMatmul, comm, x1, x2, bias, y, gather_out, shape, dtype, options);
  });
}
void AllGatherMatmul(void* workspace, std::uint64_t workspace_size, Executor* ex) {
  run_fused(ex, Kind::AllGatherMatmul, workspace, workspace_size);
}

std::uint64_t MatmulReduceScatterGetWorkspaceSize(Comm& comm, const void* x1, const void* x2, const void* bias,
                                                  void* y, MatmulShape shape, DataType dtype, Executor* ex,
                                                  const MatmulOptions& options) {
  return planning(ex, [&] {
    return plan_matmul(ex, Kind::MatmulReduceScatter, comm, x1, x2, bias, y, nullptr, shape, dtype, options);
  });
}
void MatmulReduceScatter(void* workspace, std::uint64_t workspace_size, Executor* ex) {
  run_fused(ex, Kind::MatmulReduceScatter, workspace, workspace_size);
}

std::uint64_t MatmulAllReduceGetWorkspaceSize(Comm& comm, const void* x1, const void* x2, const void* bias, void* y,
                                              MatmulShape shape, DataType dtype, Executor* ex,
                                              const MatmulOptions& options) {
  return planning(ex, [&] {
    return plan_matmul(ex, Kind::MatmulAllReduce, comm, x1, x2, bias, y, nullptr, shape, dtype, options);
  });
}
void MatmulAllReduce(void* workspace, std::uint64_t workspace_size, Executor* ex) {
  run_fused(ex, Kind::MatmulAllReduce, workspace, workspace_size);
}

void Matmul(const void* a, const void* b, const void* bias, void* c, MatmulShape s, DataType dtype) {
  if (!is_float(dtype))
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Matmul: the matrix product takes fp16, bf16, fp32 or fp64, not %s",
          name_of(dtype));
  if (s.m > INT_MAX || s.k > INT_MAX || s.n > INT_MAX)
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Matmul: the BLAS takes dimensions below 2^31");
  if ((s.m && s.k && !a) || (s.k && s.n && !b) || (s.m && s.n && !c))
    raise(ErrorCode::InvalidUsage, "tilecomm::ops::Matmul: %s is null for a %llux%llux%llu product",
          s.m && s.k && !a ? "a" : s.k && s.n && !b ? "b" : "c", static_cast<unsigned long long>(s.m),
          static_cast<unsigned long long>(s.k), static_cast<unsigned long long>(s.n));
  if (dtype == DataType::Fp64 || dtype == DataType::Fp32) {
    auto run = [&](auto* out) {
      using W = std::remove_pointer_t<decltype(out)>;
      if (bias)
        for (std::size_t i = 0; i < s.m; ++i) std::memcpy(out + i * s.n, bias, s.n * sizeof(W));
      blas::gemm(s.m, s.k, s.n, static_cast<const W*>(a), s.k, static_cast<const W*>(b), s.n, bias ? W(1) : W(0), out,
                 s.n);
    };
    if (dtype == DataType::Fp64) run(static_cast<double*>(c));
    else run(static_cast<float*>(c));
    return;
  }
  // fp32 copies, kept between calls (fresh pages would cost a fault each).
  thread_local std::vector<float> fa, fb, fc;
  fa.resize(s.m * s.k);
  fb.resize(s.k * s.n);
  fc.resize(s.m * s.n);
  widen(dtype, fa.data(), a, fa.size());
  widen(dtype, fb.data(), b, fb.size());
  if (bias && s.m) {
    widen(dtype, fc.data(), bias, s.n);
    for (std::size_t i = 1; i < s.m; ++i) std::memcpy(fc.data() + i * s.n, fc.data(), s.n * sizeof(float));
  }
  blas::gemm(s.m, s.k, s.n, fa.data(), s.k, fb.data(), s.n, bias ? 1.0f : 0.0f, fc.data(), s.n);
  narrow(dtype, c, fc.data(), fc.size());
}

}  // namespace tilecomm::ops
