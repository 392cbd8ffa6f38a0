/* The communicator's C API (<tilecomm/comm.h>) from an installed tilecomm
 * (tests/install/check_install.sh): a communicator of every PE, its
 * descriptor's numbers and each rank's window through the peers' mappings,
 * checked. Prints one line on rank 0; exits 1 when a value is wrong. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <tilecomm/comm.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    if ((call) != TILECOMM_SUCCESS) {                                                      \
      fprintf(stderr, "%s: %s\n", #call, tilecomm_comm_last_error());                      \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

int main(void) {
  shmem_init();
  tilecomm_comm_options_t opts = {1 << 20, 0};
  tilecomm_comm_t comm;
  CHECK(tilecomm_comm_init_all(&opts, &comm));
  int rank, size;
  CHECK(tilecomm_comm_rank(comm, &rank));
  CHECK(tilecomm_comm_size(comm, &size));
  void *data, *flags;
  size_t data_bytes, flag_bytes;
  CHECK(tilecomm_comm_window(comm, rank, &data, &data_bytes, &flags, &flag_bytes));
  int mark = 1000 + rank;
  memcpy(data, &mark, sizeof mark);
  shmem_barrier_all();
  int bad = rank != shmem_my_pe() || size != shmem_n_pes() || data_bytes != opts.window_bytes;
  for (int r = 0; r < size; ++r) {
    CHECK(tilecomm_comm_window(comm, r, &data, &data_bytes, &flags, &flag_bytes));
    memcpy(&mark, data, sizeof mark);
    if (mark != 1000 + r) {
      fprintf(stderr, "rank %d: rank %d's window holds %d\n", rank, r, mark);
      bad = 1;
    }
  }
  shmem_barrier_all();
  CHECK(tilecomm_comm_destroy(comm));
  if (rank == 0 && !bad) printf("face comm.h: ok on %d ranks\n", size);
  shmem_finalize();
  return bad;
}
