/* The deprecated untyped C function shmem_wait_until(long *, int, long),
 * called by name: in C the name is also the type-generic macro, which the
 * parentheses bypass. Used by test_deprecated.cpp. */
#include <shmem.h>

void deprecated_c_wait_until(long *ivar, int cmp, long value) { (shmem_wait_until)(ivar, cmp, value); }

/* shmem_wait(long *, long): the oldest form, waits while *ivar == value. */
void deprecated_c_wait(long *ivar, long value) { shmem_wait(ivar, value); }
