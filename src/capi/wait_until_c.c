/* The deprecated untyped shmem_wait_until(long *, int, long). It is defined
 * in C because in C++ <shmem.h> offers the generic overload of that name. */
#include <shmem.h>

#include "capi/pshmem_aliases.h" /* weak shmem_wait_until, pshmem_wait_until */

void(shmem_wait_until)(long *ivar, int cmp, long cmp_value) { shmem_long_wait_until(ivar, cmp, cmp_value); }
