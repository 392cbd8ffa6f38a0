/* The deprecated untyped shmem_wait_until(long *, int, long). It is defined
 * in C because in C++ <shmem.h> offers the generic overload of that name.
 *
 * Like every routine it is weak with a pshmem_ alias (scripts/gen-pshmem.sh),
 * spelled out here rather than through the generated block: that block
 * declares every routine weak, which would make this file's call of
 * shmem_long_wait_until a weak reference, and a weak reference does not pull
 * sync.cpp's object out of libtilecomm.a (tests/unit/check_capi_refs.sh). */
#include <shmem.h>

void(shmem_wait_until)(long *ivar, int cmp, long cmp_value) __attribute__((weak));
void(shmem_wait_until)(long *ivar, int cmp, long cmp_value) { shmem_long_wait_until(ivar, cmp, cmp_value); }
void pshmem_wait_until(long *ivar, int cmp, long cmp_value) __attribute__((alias("shmem_wait_until")));
