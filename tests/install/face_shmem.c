/* The OpenSHMEM face from an installed tilecomm (tests/install/check_install.sh):
 * a put around the ring, an atomic add on PE 0 and a sum reduction, each
 * checked. Prints one line on PE 0; exits 1 when a value is wrong. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int *box = shmem_calloc(4, sizeof(int));
  shmem_int_p(&box[0], me, (me + 1) % n);           /* box[0] of the right PE: my number */
  shmem_int_atomic_add(&box[1], me + 1, 0);         /* box[1] of PE 0: 1 + 2 + ... + n */
  box[2] = me;
  shmem_barrier_all();
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &box[3], &box[2], 1);
  int bad = box[0] != (me + n - 1) % n || box[3] != n * (n - 1) / 2 || (me == 0 && box[1] != n * (n + 1) / 2);
  if (bad) fprintf(stderr, "PE %d: got %d %d %d\n", me, box[0], box[1], box[3]);
  if (me == 0 && !bad) printf("face shmem: ok on %d PEs (tilecomm %s)\n", n, TILECOMM_VERSION_STRING);
  shmem_free(box);
  shmem_finalize();
  return bad;
}
