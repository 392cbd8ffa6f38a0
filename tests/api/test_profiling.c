/* The profiling interface, as a tool uses it: this program defines its own
 * shmem_long_p, shmem_barrier_all and shmem_int_atomic_fetch_add, which
 * count their calls and forward to pshmem_NAME. Built twice, against the
 * shared and the static library; every PE checks that its wrappers ran
 * exactly as often as the program called them (directly and through the
 * C11 generic macros) and that the data moved. Exit status 0 on success.
 * Also includes the deprecated <mpp/...> headers. */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <pshmem.h>
#include <stdio.h>

static long g_p_calls, g_barrier_calls, g_fadd_calls;
static int g_fails;

void shmem_long_p(long *dest, long value, int pe) {
  ++g_p_calls;
  pshmem_long_p(dest, value, pe);
}

void shmem_barrier_all(void) {
  ++g_barrier_calls;
  pshmem_barrier_all();
}

int shmem_int_atomic_fetch_add(int *dest, int value, int pe) {
  ++g_fadd_calls;
  return pshmem_int_atomic_fetch_add(dest, value, pe);
}

#define CHECK(cond)                                                                                 \
  do {                                                                                              \
    if (!(cond)) {                                                                                  \
      ++g_fails;                                                                                    \
      fprintf(stderr, "[PE %d] %s:%d: check failed: %s\n", shmem_my_pe(), __FILE__, __LINE__, #cond); \
    }                                                                                               \
  } while (0)

static long g_ring; /* symmetric */
static int g_sum;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  long round;
  int old;

  shmem_pcontrol(0);
  shmem_pcontrol(1);
  shmem_pcontrol(2);
  shmem_pcontrol(7, "tool-defined", 1.5);
  pshmem_pcontrol(1);

  for (round = 0; round < 3; ++round) {
    shmem_long_p(&g_ring, 1000 * round + me, right);
    shmem_barrier_all();
    CHECK(g_ring == 1000 * round + left);
    shmem_barrier_all();
  }
  shmem_p(&g_ring, 5000L + me, right); /* the generic macro calls shmem_long_p */
  shmem_barrier_all();
  CHECK(g_ring == 5000L + left);
  shmem_barrier_all();
  pshmem_long_p(&g_ring, 6000L + me, right); /* the library directly: not counted */
  pshmem_barrier_all();
  CHECK(g_ring == 6000L + left);

  old = shmem_int_atomic_fetch_add(&g_sum, me + 1, 0);
  CHECK(old >= 0 && old < n * (n + 1) / 2);
  shmem_barrier_all();
  old = shmem_atomic_fetch_add(&g_sum, 1000, 0); /* the generic macro */
  CHECK(old >= n * (n + 1) / 2 && old < n * (n + 1) / 2 + 1000 * n);
  shmem_barrier_all();
  if (me == 0) CHECK(g_sum == n * (n + 1) / 2 + 1000 * n);

  CHECK(g_p_calls == 4);
  CHECK(g_barrier_calls == 10);
  CHECK(g_fadd_calls == 2);
  if (g_fails == 0 && me == 0) printf("profiling wrappers ran on %d PEs\n", n);
  shmem_finalize();
  return g_fails ? 1 : 0;
}
