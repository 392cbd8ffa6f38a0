/* The PE program of the many-hosts smoke test (test_four_hosts.sh): init,
 * a ring of puts, an fcollect and a sum over every PE of the job, each
 * checked exactly; then PE 0 reports the job's init time (the slowest PE's
 * shmem_init) and the UCX endpoints the PEs made, which exist only towards
 * the peers a PE talked to (NOTE [ucx cards]): test_four_hosts.sh says
 * which those are. A failed check exits 1 naming it. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ring;
static long mine, all[1024];
static long init_us, max_init_us, eps, sum_eps, min_eps, max_eps, one = 1, pes_sum;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(int ok, const char *what, long got, long want) {
  if (ok) return;
  fprintf(stderr, "hosts_smoke: PE %d: %s: got %ld, expected %ld\n", shmem_my_pe(), what, got, want);
  exit(1);
}

int main(void) {
  const double t0 = now();
  shmem_init();
  init_us = (long)((now() - t0) * 1e6);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  check(n <= 1024, "PEs in the job (this program holds 1024)", n, 1024);

  shmem_long_p(&ring, me + 1, (me + 1) % n);
  shmem_barrier_all();
  check(ring == (me + n - 1) % n + 1, "the ring put from the previous PE", ring, (me + n - 1) % n + 1);

  mine = 3L * me + 1;
  shmem_long_fcollect(SHMEM_TEAM_WORLD, all, &mine, 1);
  for (int pe = 0; pe < n; ++pe) check(all[pe] == 3L * pe + 1, "fcollect element", all[pe], 3L * pe + 1);
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &pes_sum, &one, 1);
  check(pes_sum == n, "sum of one per PE", pes_sum, n);

  for (int pe = 0; pe < n; ++pe) {
    uint64_t ops = 0, bytes = 0;
    if (shmemx_transport_traffic("ucx", pe, &ops, &bytes) == 0 && ops > 0) ++eps;
  }
  shmem_long_max_reduce(SHMEM_TEAM_WORLD, &max_init_us, &init_us, 1);
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_eps, &eps, 1);
  shmem_long_min_reduce(SHMEM_TEAM_WORLD, &min_eps, &eps, 1);
  shmem_long_max_reduce(SHMEM_TEAM_WORLD, &max_eps, &eps, 1);
  const int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  if (me == 0)
    printf("hosts_smoke: %d PEs (%d on PE 0's host): init %.2f s (slowest PE); UCX endpoints per PE: "
           "min %ld, mean %.1f, max %ld; checks passed\n",
           n, shared, max_init_us / 1e6, min_eps, (double)sum_eps / n, max_eps);
  shmem_finalize();
  return 0;
}
