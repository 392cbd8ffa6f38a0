// Symmetric memory management and accessibility (OpenSHMEM 1.5 sections
// 9.2.3-9.2.5 and 9.3): shmem_malloc, calloc, align, realloc, free,
// malloc_with_hints, shmem_ptr, shmem_addr_accessible, shmem_pe_accessible.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "api_test.hpp"

using namespace api;

namespace {

int g_global_int = 7;  // .data: symmetric
long g_global_bss;     // .bss: symmetric

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Writes `pattern` for PE `pe` into p[0..n) on the right neighbour and
// checks (after a barrier) that the left neighbour's pattern arrived here.
template <class T>
void check_ring_put(T* p, std::size_t n, int salt) {
  std::vector<T> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = value<T>(me(), i, salt);
  barrier();
  shmem_putmem(p, src.data(), n * sizeof(T), right());
  barrier();
  EXPECT_TRUE(all_equal(p, n, [&](std::size_t i) { return value<T>(left(), i, salt); }));
  barrier();
}

}  // namespace

TEST(Memory, MallocIsUsableFromEveryPe) {
  const std::size_t n = 1000;
  long* p = static_cast<long*>(shmem_malloc(n * sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) {
    EXPECT_EQ(addr(p) % alignof(std::max_align_t), 0u) << "shmem_malloc is aligned for any use";
    check_ring_put(p, n, 1);
  }
  shmem_free(p);
}

TEST(Memory, MallocReturnsDistinctNonOverlappingBlocks) {
  const std::size_t sizes[] = {1, 8, 15, 16, 17, 100, 4096, 4097, 65536, 1 << 20};
  constexpr std::size_t k = sizeof sizes / sizeof sizes[0];
  unsigned char* blocks[k];
  for (std::size_t i = 0; i < k; ++i) {
    blocks[i] = static_cast<unsigned char*>(shmem_malloc(sizes[i]));
    EXPECT_NE(blocks[i], nullptr) << sizes[i];
  }
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j)
      if (i != j && blocks[i] && blocks[j]) {
        EXPECT_TRUE(blocks[i] + sizes[i] <= blocks[j] || blocks[j] + sizes[j] <= blocks[i])
            << "blocks " << i << " and " << j << " overlap";
      }
  // Fill every block locally, then verify from the neighbour: no block
  // clobbered another.
  for (std::size_t i = 0; i < k; ++i)
    if (blocks[i]) memset(blocks[i], static_cast<int>(i * 16 + me() % 16), sizes[i]);
  barrier();
  for (std::size_t i = 0; i < k; ++i) {
    if (!blocks[i]) continue;
    std::vector<unsigned char> got(sizes[i]), want(sizes[i], static_cast<unsigned char>(i * 16 + right() % 16));
    shmem_getmem(got.data(), blocks[i], sizes[i], right());
    EXPECT_TRUE(bytes_equal(got.data(), want.data(), sizes[i])) << "block " << i;
  }
  barrier();
  // Free in an order different from allocation.
  for (std::size_t i = 0; i < k; i += 2) shmem_free(blocks[i]);
  for (std::size_t i = 1; i < k; i += 2) shmem_free(blocks[i]);
}

TEST(Memory, SameSequenceGivesSameHeapOffsetsOnEveryPe) {
  // Virtual addresses may differ between PEs; offsets between symmetric
  // objects may not: the same allocation sequence yields corresponding
  // objects, which shmem_ptr exposes.
  char* a = static_cast<char*>(shmem_malloc(100));
  char* b = static_cast<char*>(shmem_malloc(3000));
  char* c = static_cast<char*>(shmem_align(4096, 10));
  EXPECT_TRUE(a && b && c);
  if (a && b && c) {
    for (int pe = 0; pe < npes(); ++pe) {
      char* ra = static_cast<char*>(shmem_ptr(a, pe));
      char* rb = static_cast<char*>(shmem_ptr(b, pe));
      char* rc = static_cast<char*>(shmem_ptr(c, pe));
      EXPECT_EQ(ra && rb && rc, same_host(pe)) << "PE " << pe << ": shmem_ptr reaches the PEs of this host";
      if (ra && rb && rc) {
        EXPECT_EQ(rb - ra, b - a) << "PE " << pe;
        EXPECT_EQ(rc - ra, c - a) << "PE " << pe;
      }
    }
    // And a put to b on the neighbour lands in the neighbour's b.
    b[0] = static_cast<char>(-1);
    barrier();
    char v = static_cast<char>(me() + 1);
    shmem_putmem(b, &v, 1, right());
    barrier();
    EXPECT_EQ(b[0], static_cast<char>(left() + 1));
    barrier();
  }
  shmem_free(c);
  shmem_free(b);
  shmem_free(a);
}

TEST(Memory, CallocIsZeroedEvenWhenReusingFreedMemory) {
  const std::size_t count = 3000;
  // Dirty a block, free it, then calloc the same size: first-fit (or any
  // allocator) is likely to hand the same bytes back; they must be zero.
  unsigned char* dirty = static_cast<unsigned char*>(shmem_malloc(count * sizeof(int)));
  EXPECT_NE(dirty, nullptr);
  if (dirty) memset(dirty, 0xAB, count * sizeof(int));
  shmem_free(dirty);
  int* p = static_cast<int*>(shmem_calloc(count, sizeof(int)));
  EXPECT_NE(p, nullptr);
  if (p) {
    EXPECT_TRUE(all_equal(p, count, [](std::size_t) { return 0; }));
    // The neighbour's copy is zero too, as soon as calloc returned there.
    std::vector<int> got(count, -1);
    shmem_int_get(got.data(), p, count, right());
    EXPECT_TRUE(all_equal(got.data(), count, [](std::size_t) { return 0; }));
    barrier();
    check_ring_put(p, count, 2);
  }
  shmem_free(p);
}

TEST(Memory, CallocOfZeroElementsOrZeroSizeReturnsNull) {
  // OpenSHMEM 1.5, shmem_calloc: "If the allocation does not succeed, or
  // either count or size is 0, the return value is a null pointer."
  void* a = shmem_calloc(0, 8);
  EXPECT_EQ(a, nullptr) << "shmem_calloc(0, 8)";
  void* b = shmem_calloc(8, 0);
  EXPECT_EQ(b, nullptr) << "shmem_calloc(8, 0)";
  shmem_free(b);
  shmem_free(a);
  // The heap still works afterwards.
  long* p = static_cast<long*>(shmem_calloc(4, sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) check_ring_put(p, 4, 3);
  shmem_free(p);
}

TEST(Memory, AlignHonoursEveryPowerOfTwo) {
  // Up to 16 MiB: an allocator that aligns offsets inside a heap whose base
  // is less aligned than that gets it wrong for the larger ones.
  for (std::size_t align = 1; align <= (std::size_t{1} << 24); align <<= 1) {
    // An odd-sized block first, so that the next one does not start aligned by luck.
    void* pad = shmem_malloc(24);
    const std::size_t bytes = align <= 65536 ? 3 * align + 8 : 4096 + 8;
    char* p = static_cast<char*>(shmem_align(align, bytes));
    EXPECT_NE(p, nullptr) << "alignment " << align;
    if (p) {
      EXPECT_EQ(addr(p) % align, 0u) << "alignment " << align << ": shmem_align returned " << static_cast<void*>(p);
      // The whole block is usable remotely.
      std::vector<char> src(bytes, static_cast<char>(me() + 3));
      barrier();
      shmem_putmem(p, src.data(), bytes, right());
      barrier();
      std::vector<char> want(bytes, static_cast<char>(left() + 3));
      EXPECT_TRUE(bytes_equal(p, want.data(), bytes)) << "alignment " << align;
      barrier();
    }
    shmem_free(p);
    shmem_free(pad);
  }
}

TEST(Memory, Align4096Pages) {
  // Several page-aligned blocks in a row, each a page apart at least.
  void* blocks[4];
  for (auto& b : blocks) {
    b = shmem_align(4096, 4096);
    EXPECT_NE(b, nullptr);
    if (b) { EXPECT_EQ(addr(b) % 4096, 0u); }
  }
  for (auto& b : blocks)
    if (b) check_ring_put(static_cast<std::uint64_t*>(b), 4096 / 8, 4);
  for (auto& b : blocks) shmem_free(b);
}

TEST(Memory, ReallocGrowKeepsContents) {
  const std::size_t n0 = 100, n1 = 100000;
  long* p = static_cast<long*>(shmem_malloc(n0 * sizeof(long)));
  // A block right behind p, so that growing cannot happen in place.
  long* blocker = static_cast<long*>(shmem_malloc(64));
  EXPECT_TRUE(p && blocker);
  if (p && blocker) {
    for (std::size_t i = 0; i < n0; ++i) p[i] = value<long>(me(), i, 5);
    long* q = static_cast<long*>(shmem_realloc(p, n1 * sizeof(long)));
    EXPECT_NE(q, nullptr);
    if (q) {
      p = q;
      EXPECT_TRUE(all_equal(p, n0, [](std::size_t i) { return value<long>(me(), i, 5); }))
          << "contents kept up to the old size";
      // The neighbour's copy was kept too (checked through a get), and the
      // grown block is symmetric as a whole.
      std::vector<long> got(n0);
      shmem_long_get(got.data(), p, n0, right());
      EXPECT_TRUE(all_equal(got.data(), n0, [](std::size_t i) { return value<long>(right(), i, 5); }));
      barrier();
      check_ring_put(p, n1, 6);
    }
  }
  shmem_free(blocker);
  shmem_free(p);
}

TEST(Memory, ReallocGrowInPlaceKeepsContents) {
  // Nothing behind the block: it may grow in place; contents are kept either way.
  long* p = static_cast<long*>(shmem_malloc(16 * sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) {
    for (int i = 0; i < 16; ++i) p[i] = value<long>(me(), i, 7);
    long* q = static_cast<long*>(shmem_realloc(p, 4096 * sizeof(long)));
    EXPECT_NE(q, nullptr);
    if (q) {
      p = q;
      EXPECT_TRUE(all_equal(p, 16, [](std::size_t i) { return value<long>(me(), i, 7); }));
      barrier();
      check_ring_put(p, 4096, 8);
    }
  }
  shmem_free(p);
}

TEST(Memory, ReallocShrinkKeepsPrefix) {
  const std::size_t n0 = 5000, n1 = 300;
  int* p = static_cast<int*>(shmem_malloc(n0 * sizeof(int)));
  EXPECT_NE(p, nullptr);
  if (p) {
    for (std::size_t i = 0; i < n0; ++i) p[i] = value<int>(me(), i, 9);
    int* q = static_cast<int*>(shmem_realloc(p, n1 * sizeof(int)));
    EXPECT_NE(q, nullptr);
    if (q) {
      p = q;
      EXPECT_TRUE(all_equal(p, n1, [](std::size_t i) { return value<int>(me(), i, 9); }));
      std::vector<int> got(n1);
      shmem_int_get(got.data(), p, n1, left());
      EXPECT_TRUE(all_equal(got.data(), n1, [](std::size_t i) { return value<int>(left(), i, 9); }));
      barrier();
      // The freed tail is reusable: a new allocation fits and works.
      int* r = static_cast<int*>(shmem_malloc((n0 - n1) * sizeof(int) / 2));
      EXPECT_NE(r, nullptr);
      if (r) check_ring_put(r, (n0 - n1) / 2, 10);
      shmem_free(r);
      check_ring_put(p, n1, 11);
    }
  }
  shmem_free(p);
}

TEST(Memory, ReallocOfNullIsMalloc) {
  double* p = static_cast<double*>(shmem_realloc(nullptr, 256 * sizeof(double)));
  EXPECT_NE(p, nullptr);
  if (p) check_ring_put(p, 256, 12);
  shmem_free(p);
}

TEST(Memory, ReallocToZeroFrees) {
  // "If size is 0 and ptr is not a null pointer, the block is freed."
  // Repeating it many times must not exhaust the heap, and the pointer
  // returned is NULL (there is no space to point to).
  for (int i = 0; i < 200; ++i) {
    void* p = shmem_malloc(1 << 20);
    EXPECT_NE(p, nullptr);
    void* q = shmem_realloc(p, 0);
    EXPECT_EQ(q, nullptr) << "iteration " << i;
    if (q) shmem_free(q);
  }
}

TEST(Memory, FreeOfNullIsANoOp) {
  shmem_free(nullptr);
  shfree(nullptr);
  long* p = static_cast<long*>(shmem_calloc(8, sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) check_ring_put(p, 8, 13);
  shmem_free(nullptr);
  shmem_free(p);
}

TEST(Memory, ZeroBytesAndNullFreeAreNoActions) {
  // OpenSHMEM 1.5: an allocation of 0 bytes performs no action and returns
  // NULL, and shmem_free(NULL) performs no action: none of them synchronises.
  // Only the even PEs make these calls; if any of them were collective the
  // allocations below would be paired with them and the job would stop.
  if (me() % 2 == 0) {
    EXPECT_EQ(shmem_malloc(0), nullptr);
    EXPECT_EQ(shmem_align(64, 0), nullptr);
    EXPECT_EQ(shmem_calloc(0, sizeof(long)), nullptr);
    EXPECT_EQ(shmem_calloc(4, 0), nullptr);
    EXPECT_EQ(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE), nullptr);
    EXPECT_EQ(shmem_realloc(nullptr, 0), nullptr);
    EXPECT_EQ(shmalloc(0), nullptr);
    shmem_free(nullptr);
  }
  long* p = static_cast<long*>(shmem_malloc(16 * sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) check_ring_put(p, 16, 15);
  // realloc to 0 bytes frees the block as shmem_free does and returns NULL.
  EXPECT_EQ(shmem_realloc(p, 0), nullptr);
  long* q = static_cast<long*>(shmem_malloc(16 * sizeof(long)));
  EXPECT_NE(q, nullptr);
  if (q) check_ring_put(q, 16, 16);
  shmem_free(q);
}

TEST(Memory, MallocWithHints) {
  const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                        SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
  for (long h : hints) {
    long* p = static_cast<long*>(shmem_malloc_with_hints(64 * sizeof(long), h));
    EXPECT_NE(p, nullptr) << "hints " << h;
    if (p) {
      EXPECT_EQ(addr(p) % alignof(std::max_align_t), 0u);
      p[0] = 0;
      barrier();
      // AMOs, the use the hints announce, from every PE to PE 0.
      shmem_long_atomic_add(p, me() + 1, 0);
      barrier();
      EXPECT_EQ(shmem_long_atomic_fetch(p, 0), static_cast<long>(npes()) * (npes() + 1) / 2) << "hints " << h;
      barrier();
      check_ring_put(p, 64, 14);
    }
    shmem_free(p);
  }
}

TEST(Memory, MallocWithHintsOfZeroBytesReturnsNull) {
  // OpenSHMEM 1.5, shmem_malloc_with_hints: "When the size is zero, the
  // shmem_malloc_with_hints routine performs no action and returns a null
  // pointer."
  void* p = shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE);
  EXPECT_EQ(p, nullptr);
  barrier();
  if (p) shmem_free(p);
}

TEST(Memory, FailedAllocationReturnsNullEverywhereAndHeapSurvives) {
  // Far more than any symmetric heap: NULL on every PE, and nothing lost.
  void* huge = shmem_malloc(std::size_t{1} << 50);
  EXPECT_EQ(huge, nullptr);
  void* huge_aligned = shmem_align(4096, std::size_t{1} << 50);
  EXPECT_EQ(huge_aligned, nullptr);
  long* p = static_cast<long*>(shmem_malloc(32 * sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) {
    // Growing beyond the heap fails and leaves the block as it was.
    for (int i = 0; i < 32; ++i) p[i] = value<long>(me(), i, 15);
    void* q = shmem_realloc(p, std::size_t{1} << 50);
    EXPECT_EQ(q, nullptr);
    EXPECT_TRUE(all_equal(p, 32, [](std::size_t i) { return value<long>(me(), i, 15); }));
    barrier();
    check_ring_put(p, 32, 16);
  }
  shmem_free(p);
}

TEST(Memory, ManyAllocationsAndFreesReuseTheHeap) {
  // 320 rounds of 1 MiB: more than the default heap (256 MiB) holds at
  // once, so freed memory must be reused.
  for (int i = 0; i < 320; ++i) {
    char* p = static_cast<char*>(shmem_malloc(1 << 20));
    EXPECT_NE(p, nullptr) << "round " << i;
    if (!p) break;  // every PE agrees on the outcome, so all leave together
    if (i % 100 == 0) {
      p[(1 << 20) - 1] = static_cast<char>(me());
      barrier();
      EXPECT_EQ(shmem_char_g(p + (1 << 20) - 1, right()), static_cast<char>(right()));
      barrier();
    }
    shmem_free(p);
  }
}

TEST(Memory, LargeAllocation) {
  const std::size_t bytes = std::size_t{32} << 20;
  char* p = static_cast<char*>(shmem_malloc(bytes));
  EXPECT_NE(p, nullptr);
  if (p) {
    // Touch every page locally, then check a sample remotely.
    for (std::size_t off = 0; off < bytes; off += 4096) p[off] = static_cast<char>((off >> 12) + me());
    barrier();
    std::size_t bad = 0;
    for (std::size_t off = 0; off < bytes; off += bytes / 64)
      bad += shmem_char_g(p + off, right()) != static_cast<char>((off >> 12) + right());
    EXPECT_EQ(bad, 0u);
    barrier();
  }
  shmem_free(p);
}

TEST(Memory, ShmemPtrReachesThisHostsPesAndWritesAreVisible) {
  long* p = static_cast<long*>(shmem_calloc(npes(), sizeof(long)));
  EXPECT_NE(p, nullptr);
  if (p) {
    EXPECT_EQ(shmem_ptr(p, me()), static_cast<void*>(p)) << "shmem_ptr to the calling PE is the address itself";
    // Every PE stores its number into slot `me` of every PE of its host
    // through shmem_ptr (NULL towards other hosts).
    for (int pe = 0; pe < npes(); ++pe) {
      long* r = static_cast<long*>(shmem_ptr(p, pe));
      EXPECT_EQ(r != nullptr, same_host(pe)) << "PE " << pe;
      if (r) r[me()] = 1000 + me();
    }
    barrier();
    EXPECT_TRUE(all_equal(p, npes(), [](std::size_t i) {
      return same_host(static_cast<int>(i)) ? 1000L + static_cast<long>(i) : 0L;
    }));
    barrier();
    // And loads through shmem_ptr see what the owner stored.
    p[0] = 5000 + me();
    barrier();
    long* r = static_cast<long*>(shmem_ptr(p, right()));
    if (r) { EXPECT_EQ(r[0], 5000 + right()); }
    barrier();
  }
  shmem_free(p);
}

TEST(Memory, ShmemPtrOfGlobalsAndNonSymmetricAddresses) {
  for (int pe = 0; pe < npes(); ++pe) {
    EXPECT_EQ(shmem_ptr(&g_global_int, pe) != nullptr, same_host(pe)) << "PE " << pe;
    EXPECT_EQ(shmem_ptr(&g_global_bss, pe) != nullptr, same_host(pe)) << "PE " << pe;
  }
  EXPECT_EQ(shmem_ptr(&g_global_int, me()), static_cast<void*>(&g_global_int));
  int on_stack = 0;
  std::vector<int> on_heap(4);
  for (int pe = 0; pe < npes(); ++pe) {
    EXPECT_EQ(shmem_ptr(&on_stack, pe), nullptr) << "a stack variable is not symmetric";
    EXPECT_EQ(shmem_ptr(on_heap.data(), pe), nullptr) << "private heap memory is not symmetric";
  }
  EXPECT_EQ(shmem_ptr(&g_global_int, -1), nullptr);
  EXPECT_EQ(shmem_ptr(&g_global_int, npes()), nullptr);
}

TEST(Memory, AddrAccessible) {
  int* p = static_cast<int*>(shmem_malloc(64));
  EXPECT_NE(p, nullptr);
  int on_stack = 0;
  std::vector<int> on_heap(4);
  for (int pe = 0; pe < npes(); ++pe) {
    if (p) { EXPECT_EQ(shmem_addr_accessible(p, pe), 1) << "PE " << pe; }
    if (p) { EXPECT_EQ(shmem_addr_accessible(p + 15, pe), 1) << "PE " << pe << ": last int of the block"; }
    EXPECT_EQ(shmem_addr_accessible(&g_global_int, pe), 1) << "PE " << pe;
    EXPECT_EQ(shmem_addr_accessible(&g_global_bss, pe), 1) << "PE " << pe;
    EXPECT_EQ(shmem_addr_accessible(&on_stack, pe), 0) << "PE " << pe;
    EXPECT_EQ(shmem_addr_accessible(on_heap.data(), pe), 0) << "PE " << pe;
  }
  EXPECT_EQ(shmem_addr_accessible(p, -1), 0);
  EXPECT_EQ(shmem_addr_accessible(p, npes()), 0);
  shmem_free(p);
}

TEST(Memory, PeAccessibleForEveryPe) {
  for (int pe = 0; pe < npes(); ++pe) EXPECT_EQ(shmem_pe_accessible(pe), 1);
  EXPECT_EQ(shmem_pe_accessible(npes()), 0);
}

TEST(Memory, FreeIsCollectiveAndReusesTheSameOffsets) {
  // Allocate, free, allocate the same size: the two blocks of a PE may or may
  // not coincide, but whatever happens happens identically on every PE.
  char* a = static_cast<char*>(shmem_malloc(512));
  char* anchor = static_cast<char*>(shmem_malloc(16));
  shmem_free(a);
  char* b = static_cast<char*>(shmem_malloc(512));
  EXPECT_TRUE(anchor && b);
  if (anchor && b) {
    std::ptrdiff_t mine = b - anchor;
    for (int pe = 0; pe < npes(); ++pe) {
      char* rb = static_cast<char*>(shmem_ptr(b, pe));
      char* ra = static_cast<char*>(shmem_ptr(anchor, pe));
      if (ra && rb) { EXPECT_EQ(rb - ra, mine) << "PE " << pe; }
    }
  }
  shmem_free(b);
  shmem_free(anchor);
}
