/* Deprecated header location that the OpenSHMEM specification still
 * lists: <mpp/shmemx.h> is <shmemx.h>. */
#ifndef TILECOMM_MPP_SHMEMX_H
#define TILECOMM_MPP_SHMEMX_H
#include <shmemx.h>
#endif
