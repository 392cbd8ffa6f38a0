#include <shmem.h>
int main(void) { shmem_init(); shmem_finalize(); return 0; }
