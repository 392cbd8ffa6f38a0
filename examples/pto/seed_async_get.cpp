// Runs the seed's TGET_ASYNC kernels on every PE of a tilecomm job and checks
// the data they fetched:  tcrun -n 4 ./pto-seed-async-get
//
//   SimpleGet      1024 floats from the next PE, through the SDMA engine
//   BatchGet       npes blocks of 1024 from the next PE, one Wait for all
//   SimpleGetUrma  1024 floats from the previous PE, through URMA (the peer
//                  is named by rank, the buffer by its symmetric address)
#include <shmem.h>

#include <cstdio>
#include <cstdlib>
#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/async/urma/urma_workspace_manager.hpp>

#include "seed_kernels.hpp"

namespace {

float pattern(int pe, int i) { return static_cast<float>(pe * 100000 + i); }

int check(const char* name, const float* got, int count, int src_pe, int me) {
  for (int i = 0; i < count; ++i)
    if (got[i] != pattern(src_pe, i)) {
      fprintf(stderr, "PE %d: %s: element %d is %g, expected %g (from PE %d)\n", me, name, i, got[i],
              pattern(src_pe, i), src_pe);
      return 1;
    }
  return 0;
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  const int count = 1024 * n;
  auto* src = static_cast<float*>(shmem_malloc(count * sizeof(float)));
  auto* dst = static_cast<float*>(shmem_malloc((count + 1024) * sizeof(float)));  // + URMA source
  for (int i = 0; i < count; ++i) src[i] = pattern(me, i);
  shmem_barrier_all();

  int failures = 0;
  try {
    comm::sdma::SdmaWorkspaceManager sdma;
    comm::urma::UrmaWorkspaceManager urma;
    if (!sdma.Init() || !urma.Init(me, n, dst, (count + 1024) * sizeof(float))) {
      fprintf(stderr, "PE %d: workspace: %s%s\n", me, sdma.LastError(), urma.LastError());
      shmem_global_exit(1);
    }
    auto* sdma_ws = static_cast<uint8_t*>(sdma.GetWorkspaceAddr());
    auto* urma_ws = static_cast<uint8_t*>(urma.GetWorkspaceAddr());
    auto* peer_src = static_cast<float*>(shmem_ptr(src, next));

    launch(1, SimpleGet<float>, dst, peer_src, sdma_ws);
    failures += check("SimpleGet", dst, 1024, next, me);

    launch(1, BatchGet<float>, dst, peer_src, sdma_ws, n);
    failures += check("BatchGet", dst, count, next, me);

    // URMA reads the peer's copy of a symmetric address inside the registered
    // window (dst's allocation), so the source goes to the window's tail first.
    for (int i = 0; i < 1024; ++i) dst[count + i] = pattern(me, i);
    shmem_barrier_all();
    launch(1, SimpleGetUrma<float>, dst, dst + count, urma_ws, static_cast<uint32_t>(prev));
    failures += check("SimpleGetUrma", dst, 1024, prev, me);
  } catch (const std::exception& e) {
    fprintf(stderr, "PE %d: %s\n", me, e.what());
    failures += 1;
  }
  shmem_barrier_all();
  if (me == 0 && failures == 0) printf("seed TGET_ASYNC kernels: SimpleGet, BatchGet, SimpleGetUrma verified on %d PEs\n", n);
  shmem_free(dst);
  shmem_free(src);
  shmem_finalize();
  return failures == 0 ? 0 : 1;
}
