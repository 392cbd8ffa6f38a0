/* The tilecomm demo: a 4-PE OpenSHMEM program that exercises put/get,
 * atomics, signals, teams and two collectives, checks every result, and
 * says what it did.
 * Run: tcrun -n 4 ./tilecomm-demo */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;          /* a global variable: symmetric too */
static uint64_t ready_signal; /* a signal word */

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "demo: PE %d: check failed: ", me);         \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      shmem_global_exit(1);                                       \
    }                                                             \
  } while (0)

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  const int count = 1024;

  /* 1. put: every PE writes its PE number into its right neighbour's buffer. */
  int *buf = shmem_malloc(count * sizeof(int));
  int *mine = malloc(count * sizeof(int));
  for (int i = 0; i < count; ++i) mine[i] = me * 100000 + i;
  shmem_int_put(buf, mine, count, (me + 1) % n);
  shmem_barrier_all();
  int left = (me + n - 1) % n;
  for (int i = 0; i < count; ++i) CHECK(buf[i] == left * 100000 + i, "buf[%d] = %d", i, buf[i]);

  /* 2. get: read the left neighbour's buffer back (it holds left-1's data). */
  int *got = malloc(count * sizeof(int));
  shmem_int_get(got, buf, count, left);
  int left2 = (left + n - 1) % n;
  for (int i = 0; i < count; ++i) CHECK(got[i] == left2 * 100000 + i, "got[%d] = %d", i, got[i]);

  /* 3. atomics: everybody adds (PE+1) to a global counter on PE 0. */
  shmem_long_atomic_add(&counter, me + 1, 0);
  shmem_barrier_all();
  long expected = (long)n * (n + 1) / 2;
  if (me == 0) CHECK(counter == expected, "counter = %ld, expected %ld", counter, expected);

  /* 4. signals: PE 0 sends a block to every other PE with put-with-signal. */
  long *block = shmem_calloc(8, sizeof(long));
  if (me == 0) {
    long payload[8] = {1, 1, 2, 3, 5, 8, 13, 21};
    for (int pe = 1; pe < n; ++pe)
      shmem_long_put_signal(block, payload, 8, &ready_signal, 1, SHMEM_SIGNAL_ADD, pe);
  } else {
    shmem_signal_wait_until(&ready_signal, SHMEM_CMP_EQ, 1);
    CHECK(block[7] == 21 && block[0] == 1, "block = %ld..%ld", block[0], block[7]);
  }

  /* 5. teams: the even PEs form a team and sum their PE numbers by AMO. */
  shmem_team_t evens;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens);
  static long team_sum;
  if (evens != SHMEM_TEAM_INVALID) {
    int root = shmem_team_translate_pe(evens, 0, SHMEM_TEAM_WORLD);
    shmem_long_atomic_add(&team_sum, me, root);
    shmem_team_sync(evens);
    if (shmem_team_my_pe(evens) == 0) {
      long want = 0;
      for (int pe = 0; pe < n; pe += 2) want += pe;
      CHECK(team_sum == want, "team sum = %ld, expected %ld", team_sum, want);
      printf("demo: team of %d even PEs summed their PE numbers: %ld\n", shmem_team_n_pes(evens), team_sum);
    }
    shmem_team_destroy(evens);
  }

  /* 6. collectives: a sum over every PE, and every PE's number gathered on every PE. */
  int *mine_sym = shmem_malloc(count * sizeof(int)), *sums = shmem_malloc(count * sizeof(int));
  int *pes = shmem_malloc(n * sizeof(int));
  static int my_number; /* the source of a collective is symmetric too */
  my_number = me;
  for (int i = 0; i < count; ++i) mine_sym[i] = me + i;
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, sums, mine_sym, count);
  shmem_int_fcollect(SHMEM_TEAM_WORLD, pes, &my_number, 1);
  for (int i = 0; i < count; ++i) CHECK(sums[i] == n * (n - 1) / 2 + n * i, "sums[%d] = %d", i, sums[i]);
  for (int pe = 0; pe < n; ++pe) CHECK(pes[pe] == pe, "pes[%d] = %d", pe, pes[pe]);

  shmem_barrier_all();
  if (me == 0) {
    printf("demo: %d PEs: put and get of %d ints, atomic counter = %ld, signals delivered, sum reduction of %d ints "
           "and fcollect of the PE numbers: all checked\n",
           n, count, counter, count);
  }
  shmem_free(pes);
  shmem_free(sums);
  shmem_free(mine_sym);
  shmem_free(block);
  shmem_free(buf);
  free(mine);
  free(got);
  shmem_finalize();
  return 0;
}
