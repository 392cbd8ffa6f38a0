// Global and static variables are symmetric (OpenSHMEM 1.5 section 3,
// "Symmetric data objects"): remote put, get and AMOs on variables in .data
// (initialized) and .bss (zero-initialized), file-scope statics, function
// statics, a large static array, and variables of every alignment.
#include <cstring>

#include "api_test.hpp"

using namespace api;

// ---- the objects under test ------------------------------------------------------------

int g_data_int = 4242;                        // .data: initialized global
long g_data_array[5] = {1, 2, 3, 5, 8};      // .data array
long g_bss_long;                              // .bss: zero-initialized global
double g_bss_doubles[64];                     // .bss array
static int s_data_int = -77;                  // file-scope static in .data
static unsigned long s_bss_counter;           // file-scope static in .bss
static char s_bss_char;                       // alignment 1
static short s_bss_short;                     // alignment 2
static long double s_bss_ldouble;             // alignment 16
static uint64_t s_signal;                     // a signal word
constexpr size_t kBigLongs = size_t{1} << 20;  // 8 MiB of longs
static long s_big[kBigLongs];                 // a large static array in .bss
struct Record {
  char tag;
  int count;
  double weight;
  long history[7];
};
Record g_record = {'r', 3, 0.5, {0}};         // a struct in .data

namespace {

long* function_static() {
  static long counter_in_function;  // a static local: symmetric as well
  return &counter_in_function;
}

}  // namespace

// ---- tests -------------------------------------------------------------------------

TEST(Globals, InitialValuesSurviveInitialization) {
  // shmem_init makes the data segment symmetric; initialized values are kept.
  EXPECT_EQ(g_data_int, 4242);
  EXPECT_EQ(s_data_int, -77);
  EXPECT_EQ(g_data_array[4], 8);
  EXPECT_EQ(g_record.tag, 'r');
  EXPECT_EQ(g_record.weight, 0.5);
  // And every PE's copy holds them.
  EXPECT_EQ(shmem_int_g(&g_data_int, right()), 4242);
  EXPECT_EQ(shmem_int_g(&s_data_int, left()), -77);
  long arr[5] = {};
  shmem_long_get(arr, g_data_array, 5, right());
  static const long fib[5] = {1, 2, 3, 5, 8};
  EXPECT_TRUE(all_equal(arr, 5, [](size_t i) { return fib[i]; }));
  barrier();
}

TEST(Globals, AccessibleAndShmemPtr) {
  const void* objs[] = {&g_data_int, g_data_array, &g_bss_long, g_bss_doubles, &s_data_int, &s_bss_counter,
                        &s_bss_char, &s_bss_short, &s_bss_ldouble, &s_big[0], &s_big[kBigLongs - 1],
                        &g_record, function_static()};
  for (int pe = 0; pe < npes(); ++pe) {
    for (size_t k = 0; k < sizeof objs / sizeof objs[0]; ++k) {
      EXPECT_EQ(shmem_addr_accessible(objs[k], pe), 1) << "object " << k << ", PE " << pe;
      EXPECT_EQ(shmem_ptr(objs[k], pe) != nullptr, same_host(pe)) << "object " << k << ", PE " << pe;
    }
  }
}

TEST(Globals, PutGetOnDataAndBss) {
  barrier();
  shmem_int_p(&g_data_int, 100 + me(), right());
  shmem_long_p(&g_bss_long, 200 + me(), right());
  shmem_int_p(&s_data_int, -300 - me(), right());
  double d[64];
  for (int i = 0; i < 64; ++i) d[i] = me() + i / 4.0;
  shmem_double_put(g_bss_doubles, d, 64, right());
  barrier();
  EXPECT_EQ(g_data_int, 100 + left());
  EXPECT_EQ(g_bss_long, 200 + left());
  EXPECT_EQ(s_data_int, -300 - left());
  EXPECT_TRUE(all_equal(g_bss_doubles, 64, [](size_t i) { return left() + static_cast<double>(i) / 4.0; }));
  // get from the right neighbour: its copies hold what I put.
  EXPECT_EQ(shmem_int_g(&g_data_int, right()), 100 + me());
  EXPECT_EQ(shmem_long_g(&g_bss_long, right()), 200 + me());
  barrier();
}

TEST(Globals, EveryAlignment) {
  barrier();
  shmem_char_p(&s_bss_char, static_cast<char>('a' + me()), right());
  shmem_short_p(&s_bss_short, static_cast<short>(-1000 - me()), right());
  shmem_longdouble_p(&s_bss_ldouble, 1.0L / 3 + me(), right());
  barrier();
  EXPECT_EQ(s_bss_char, static_cast<char>('a' + left()));
  EXPECT_EQ(s_bss_short, static_cast<short>(-1000 - left()));
  EXPECT_EQ(s_bss_ldouble, 1.0L / 3 + left());
  EXPECT_EQ(shmem_longdouble_g(&s_bss_ldouble, right()), 1.0L / 3 + me());
  barrier();
}

TEST(Globals, StructMembers) {
  barrier();
  Record mine = {static_cast<char>('A' + me()), me(), me() * 1.5, {}};
  for (int i = 0; i < 7; ++i) mine.history[i] = me() * 100 + i;
  shmem_putmem(&g_record, &mine, sizeof mine, right());
  barrier();
  EXPECT_EQ(g_record.tag, static_cast<char>('A' + left()));
  EXPECT_EQ(g_record.count, left());
  EXPECT_EQ(g_record.weight, left() * 1.5);
  EXPECT_TRUE(all_equal(g_record.history, 7, [](size_t i) { return left() * 100L + static_cast<long>(i); }));
  barrier();
  // Update one member with an AMO.
  shmem_int_atomic_add(&g_record.count, 1, 0);
  barrier();
  if (me() == 0) {
    EXPECT_EQ(g_record.count, left() + npes());
  }
  barrier();
}

TEST(Globals, AmosOnStatics) {
  s_bss_counter = 0;
  *function_static() = 0;
  barrier();
  for (int k = 0; k < 10; ++k) shmem_ulong_atomic_inc(&s_bss_counter, 0);
  shmem_long_atomic_add(function_static(), me() + 1, npes() - 1);
  barrier();
  EXPECT_EQ(shmem_ulong_atomic_fetch(&s_bss_counter, 0), 10ul * npes());
  EXPECT_EQ(shmem_long_atomic_fetch(function_static(), npes() - 1),
            static_cast<long>(npes()) * (npes() + 1) / 2);
  // compare_swap contest on a global.
  barrier();
  if (me() == 0) g_bss_long = -1;
  barrier();
  long old = shmem_long_atomic_compare_swap(&g_bss_long, -1, me(), 0);
  barrier();
  const long winner = shmem_long_atomic_fetch(&g_bss_long, 0);
  if (old == -1) {
    EXPECT_EQ(winner, me());
  } else {
    EXPECT_EQ(old, winner);
  }
  barrier();
}

TEST(Globals, LargeStaticArray) {
  // 8 MiB in .bss: the whole array to the right neighbour, then spot
  // checks with get, then a strided put into it.
  const size_t n = kBigLongs;
  std::vector<long> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<long>(i * 3 + me());
  barrier();
  shmem_long_put(s_big, src.data(), n, right());
  barrier();
  EXPECT_TRUE(all_equal(s_big, n, [](size_t i) { return static_cast<long>(i * 3 + left()); }));
  long sample[4];
  const size_t at[4] = {0, 4095, n / 2 + 1, n - 1};
  for (int k = 0; k < 4; ++k) sample[k] = shmem_long_g(&s_big[at[k]], right());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(sample[k], static_cast<long>(at[k] * 3 + me())) << at[k];
  barrier();
  long tiny[16];
  for (int i = 0; i < 16; ++i) tiny[i] = -1 - i - 100 * me();
  shmem_long_iput(s_big + 1, tiny, 65536, 1, 16, right());
  barrier();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(s_big[1 + 65536 * i], -1 - i - 100 * left()) << i;
  EXPECT_EQ(s_big[2], static_cast<long>(2 * 3 + left())) << "untouched between strides";
  barrier();
}

TEST(Globals, SignalOnAGlobal) {
  s_signal = 0;
  barrier();
  const long three = 3;
  shmem_long_put_signal(&g_bss_long, &three, 1, &s_signal, 10 + me(), SHMEM_SIGNAL_SET, right());
  EXPECT_EQ(shmem_signal_wait_until(&s_signal, SHMEM_CMP_EQ, 10 + left()), 10u + left());
  EXPECT_EQ(g_bss_long, 3);
  barrier();
}

TEST(Globals, WaitOnAGlobal) {
  g_data_int = 0;
  barrier();
  shmem_int_atomic_set(&g_data_int, 1 + me(), right());
  shmem_int_wait_until(&g_data_int, SHMEM_CMP_EQ, 1 + left());
  EXPECT_EQ(g_data_int, 1 + left());
  barrier();
}

TEST(Globals, HeapAndGlobalsTogether) {
  // Copy between a heap block and a global on another PE, both directions.
  Sym<long> heap(5);
  if (!heap.ok()) return;
  for (int i = 0; i < 5; ++i) heap[i] = 1000 * me() + i;
  barrier();
  shmem_long_put(g_data_array, heap.get(), 5, right());  // local heap -> remote global
  barrier();
  EXPECT_TRUE(all_equal(g_data_array, 5, [](size_t i) { return 1000L * left() + static_cast<long>(i); }));
  barrier();
  shmem_long_put(heap.get(), g_data_array, 5, left());  // local global -> remote heap
  barrier();
  // My right neighbour sent me its g_data_array, which holds its left's (= my) values.
  EXPECT_TRUE(all_equal(heap.get(), 5, [](size_t i) { return 1000L * me() + static_cast<long>(i); }));
  barrier();
}
