// tilecomm-info: the version, build options, configuration and transports.
#include <shmem.h>

#include <cstdio>
#include <cstring>

#include "coll/coll.hpp"
#include "comm/blas.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "transport/ucx/ucx_transport.hpp"

int main(int argc, char** argv) {
  bool brief = argc > 1 && strcmp(argv[1], "--version") == 0;
  printf("tilecomm %s (OpenSHMEM %d.%d API)\n", TILECOMM_VERSION_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
  if (brief) return 0;
  printf("\nbuild\n");
  printf("  compiler     %s\n", __VERSION__);
#ifdef NDEBUG
  printf("  build type   release (argument checks on, trace logging compiled out)\n");
#else
  printf("  build type   debug (argument checks on, trace logging available)\n");
#endif
  printf("  C++ standard %ld\n", __cplusplus);
  printf("  BLAS         %s (fused matmul operators)\n", tilecomm::ops::blas::describe().c_str());
#ifdef TILECOMM_PYTHON_PACKAGE
  printf("  Python       %s\n", TILECOMM_PYTHON_PACKAGE);
#else
  printf("  Python       the package was not built in this build (configuring says why)\n");
#endif
  printf("\ntransports\n");
  printf("  shm          shared memory (memfd segments mapped by every PE of the host): available\n");
  printf("  sdma         this PE's copy engine thread, between PEs of one host: available\n");
  printf("  ucx          %s, started for PEs of other hosts or when TILECOMM_TRANSPORTS lists ucx\n"
         "               (UCX_TLS chooses its transports; TCP sends in 64 KiB segments unless\n"
         "               UCX_TCP_TX_SEG_SIZE or UCX_TCP_RX_SEG_SIZE is set; over TCP, puts of up\n"
         "               to TILECOMM_UCX_COALESCE bytes made while one to that PE is in flight\n"
         "               travel in batches of %zu KiB per PE)\n",
         tilecomm::transport::UcxTransport::version().c_str(), tilecomm::transport::ucx_batch::kBytes >> 10);
  printf("\ncollectives: algorithms in the order automatic selection tries them\n");
  try {
    printf("%s", tilecomm::coll::selection_table().c_str());
  } catch (const tilecomm::Error& e) {
    fprintf(stderr, "tilecomm-info: %s\n", e.what());
    return 1;
  }
  printf("\nconfiguration (environment variables; current value first)\n");
  try {
    for (const auto& row : tilecomm::Config::load().describe()) {
      printf("  %s = %s%s\n", row.name, row.value.c_str(), row.set ? "  (set)" : "");
      printf("      %s [%s, default %s]\n", row.help, row.type, row.def);
    }
  } catch (const tilecomm::Error& e) {
    fprintf(stderr, "tilecomm-info: %s\n", e.what());
    return 1;
  }
  return 0;
}
