// A workspace manager at namespace scope: its destructor finalizes the
// workspace during static destruction, after main has returned and after
// shmem_finalize, in any order with the library's own static objects (the
// copy engine among them). The program uses the workspace once, exits
// normally, and must do so cleanly, under AddressSanitizer too.
#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/pto_comm_inst.hpp>
#include <shmem.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using namespace pto;
using namespace pto::comm;

sdma::SdmaWorkspaceManager g_manager;  // finalized by its destructor at exit

int fail(const char* what, const char* why) {
  fprintf(stderr, "static_manager: PE %d: %s: %s\n", shmem_my_pe(), what, why);
  return 1;
}

}  // namespace

int main() {
  constexpr int kN = 4096;
  shmem_init();
  if (!g_manager.Init()) return fail("SdmaWorkspaceManager::Init", g_manager.LastError());
  auto* src = static_cast<int*>(shmem_malloc(kN * sizeof(int)));
  auto* dst = static_cast<int*>(shmem_malloc(kN * sizeof(int)));
  const int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
  for (int i = 0; i < kN; ++i) src[i] = me * 100000 + i;
  shmem_barrier_all();
  std::string error;
  launch(1, [&] {
    using Shape5 = Shape<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
    using Stride5 = Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
    using GT = GlobalTensor<int, Shape5, Stride5, Layout::ND>;
    GT d(dst, Shape5(1, 1, 1, 1, kN), Stride5(1, 1, 1, 1, 1));
    GT r(static_cast<int*>(shmem_ptr(src, right)), Shape5(1, 1, 1, 1, kN), Stride5(1, 1, 1, 1, 1));
    Tile<TileType::Vec, std::uint8_t, 1, sdma::UB_ALIGN_SIZE> scratch;
    TASSIGN(scratch, 0);
    AsyncSession s;
    if (!BuildAsyncSession<DmaEngine::SDMA>(scratch, static_cast<std::uint8_t*>(g_manager.GetWorkspaceAddr()), s) ||
        !TGET_ASYNC(d, r, s).Wait(s))
      error = s.lastError();
  });
  if (!error.empty()) return fail("TGET_ASYNC", error.c_str());
  for (int i = 0; i < kN; ++i)
    if (dst[i] != right * 100000 + i) return fail("TGET_ASYNC", "wrong data");
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
  shmem_finalize();
  return 0;  // g_manager's destructor runs after this
}
