/* The communicator's C API: the C++ tilecomm::Comm (<tilecomm/comm.hpp>)
 * behind a handle, with error codes in the manner of TileXR's. Kernels and
 * the orchestration helpers are C++ only.
 *
 * Every call returns TILECOMM_SUCCESS or an error code; the message of the
 * calling thread's last error (naming the values and what to change) is
 * tilecomm_comm_last_error(). A handle that was destroyed, or never
 * created, is TILECOMM_ERROR_INVALID_USAGE, never a crash. */
#ifndef TILECOMM_COMM_H
#define TILECOMM_COMM_H

#include <stddef.h>

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilecomm_comm *tilecomm_comm_t;

typedef enum {
  TILECOMM_SUCCESS = 0,
  TILECOMM_ERROR_INVALID_USAGE = 1, /* a wrong argument or call order */
  TILECOMM_ERROR_TIMEOUT = 2,       /* TILECOMM_TIMEOUT passed in a wait */
  TILECOMM_ERROR_TRANSPORT = 3,
  TILECOMM_ERROR_REMOTE = 4,        /* another rank failed */
  TILECOMM_ERROR_SYSTEM = 5         /* the operating system refused (memory, files) */
} tilecomm_result_t;

/* Window sizes per rank; 0 takes the default (200 MiB data, 4 MiB flags). */
typedef struct {
  size_t window_bytes;
  size_t flag_bytes;
} tilecomm_comm_options_t;

/* options may be NULL (defaults). Collective over the PEs concerned. */
tilecomm_result_t tilecomm_comm_init_all(const tilecomm_comm_options_t *options, tilecomm_comm_t *comm);
tilecomm_result_t tilecomm_comm_init_team(shmem_team_t team, const tilecomm_comm_options_t *options,
                                          tilecomm_comm_t *comm);
tilecomm_result_t tilecomm_comm_get_unique_id(shmemx_uniqueid_t *id);
tilecomm_result_t tilecomm_comm_init_rank(int nranks, const shmemx_uniqueid_t *id, int rank,
                                          const tilecomm_comm_options_t *options, tilecomm_comm_t *comm);
tilecomm_result_t tilecomm_comm_destroy(tilecomm_comm_t comm);

tilecomm_result_t tilecomm_comm_rank(tilecomm_comm_t comm, int *rank);
tilecomm_result_t tilecomm_comm_size(tilecomm_comm_t comm, int *size);
tilecomm_result_t tilecomm_comm_local_rank(tilecomm_comm_t comm, int *local_rank);
tilecomm_result_t tilecomm_comm_local_size(tilecomm_comm_t comm, int *local_size);
/* Rank `rank`'s window as mapped here (NULL and 0 for a rank on another host).
 * Any of the four output pointers may be NULL: that value is not returned. */
tilecomm_result_t tilecomm_comm_window(tilecomm_comm_t comm, int rank, void **data, size_t *data_bytes, void **flags,
                                       size_t *flag_bytes);
/* The next magic (the same sequence on every rank). */
tilecomm_result_t tilecomm_comm_next_magic(tilecomm_comm_t comm, unsigned int *magic);

/* The message of this thread's last error, or "" after a success. */
const char *tilecomm_comm_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TILECOMM_COMM_H */
