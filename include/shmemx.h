/* tilecomm extensions to OpenSHMEM.
 *
 * Starting a job from any launcher with a unique ID (the pattern of
 * cann/shmem and NVSHMEM): one process calls shmemx_get_uniqueid, the
 * application hands the bytes to every PE (an MPI broadcast, a file, an
 * environment variable...), and every PE calls shmemx_init_attr with its PE
 * number, the number of PEs and that ID. The process that made the ID hosts
 * the rendezvous server and must stay alive until every PE has finalized.
 * The ID holds the server's address (TILECOMM_BOOTSTRAP_ADDR) and a random
 * 128-bit cookie; connections without the cookie are dropped. */
#ifndef TILECOMM_SHMEMX_H
#define TILECOMM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char internal[128];
} shmemx_uniqueid_t;
#define SHMEMX_UNIQUEID_INITIALIZER {{0}}

typedef struct {
  int my_pe;
  int n_pes;
  shmemx_uniqueid_t uid;
  int thread_level; /* requested SHMEM_THREAD_* level */
  int reserved[15]; /* zero; room for future fields */
} shmemx_init_attr_t;

#define SHMEMX_INIT_WITH_UNIQUEID (1u << 0)

/* Makes a new unique ID and starts its rendezvous server in this process.
 * Returns 0, or non-zero (with a logged reason) on failure. */
int shmemx_get_uniqueid(shmemx_uniqueid_t *uid);
/* Fills attr for shmemx_init_attr; returns 0, or non-zero on bad arguments. */
int shmemx_set_attr_uniqueid_args(int my_pe, int n_pes, const shmemx_uniqueid_t *uid, shmemx_init_attr_t *attr);
/* shmem_init with explicit launch data; returns 0 or non-zero. */
int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr);

/* Explicit copy engine: the put or get runs on this PE's SDMA engine thread,
 * whatever TILECOMM_TRANSPORTS says, and the call returns once it is queued.
 * shmemx_sdma_quiet (and shmem_quiet) waits until every such copy is done.
 * dest/source follow shmem_putmem_nbi / shmem_getmem_nbi. */
void shmemx_sdma_put_nbi(void *dest, const void *source, size_t nbytes, int pe);
void shmemx_sdma_get_nbi(void *dest, const void *source, size_t nbytes, int pe);
void shmemx_sdma_quiet(void);

/* Traffic this PE has sent to PE pe (a PE of the job) through transport
 * `name` since init: operations (puts, gets, AMOs) and their bytes. Counted
 * for "ucx" (NULL or another name returns -1); returns 0, or -1 when the
 * transport is not counted or was not started (TILECOMM_TRANSPORTS does not
 * list it) or pe is out of range. Shows which route the operations took. */
int shmemx_transport_traffic(const char *name, int pe, uint64_t *ops, uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* TILECOMM_SHMEMX_H */
