/* Deprecated header location that the OpenSHMEM specification still
 * lists: <mpp/shmem.h> is <shmem.h>. */
#ifndef TILECOMM_MPP_SHMEM_H
#define TILECOMM_MPP_SHMEM_H
#include <shmem.h>
#endif
