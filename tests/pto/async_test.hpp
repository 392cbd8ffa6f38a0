// Helpers of the asynchronous-instruction tests (test_pto_async*.cpp, one
// program): flat 1-D views, value patterns, kernel-side checks gathered
// into a Report, refusals with their reasons, this PE's SDMA workspace, and
// the engine hold (NOTE [engine hold] in transport/dma/engine.hpp) that
// lets a test stop the copy engine at a known point instead of timing it.
//
// Kernels never assert: a failed check inside a block goes into a Report,
// which the host expects to be empty once the launch has returned.
#pragma once

#include <pto/comm/async/sdma/sdma_workspace_manager.hpp>
#include <pto/comm/async/urma/urma_workspace_manager.hpp>
#include <pto/comm/pto_comm_inst.hpp>

#include <mutex>
#include <string>
#include <vector>

#include "api_test.hpp"
#include "transport/dma/engine.hpp"

namespace async_test {

using namespace api;
using namespace pto;
using namespace pto::comm;

constexpr std::size_t kMiB = 1024 * 1024;

using Shape5 = Shape<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
using Stride5 = Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>;
template <class T>
using GT = GlobalTensor<T, Shape5, Stride5, Layout::ND>;
using Scratch = Tile<TileType::Vec, std::uint8_t, 1, sdma::UB_ALIGN_SIZE>;

/// A flat 1-D view of n elements at p (packed strides).
template <class T>
GT<T> flat(T* p, std::size_t n) {
  const int e = static_cast<int>(n);
  return GT<T>(p, Shape5(1, 1, 1, 1, e), Stride5(e, e, e, e, 1));
}

/// PE `pe`'s copy of the symmetric object at p, as this process reaches it.
template <class T>
T* at(T* p, int pe) {
  return static_cast<T*>(shmem_ptr(p, pe));
}

template <class T>
void fill(T* p, std::size_t n, int pe, int salt, std::size_t from = 0) {
  for (std::size_t i = 0; i < n; ++i) p[i] = value<T>(pe, from + i, salt);
}
/// The values fill(.., pe, salt, from) writes, for all_equal.
template <class T>
auto pattern(int pe, int salt, std::size_t from = 0) {
  return [=](std::size_t i) { return value<T>(pe, from + i, salt); };
}

/// The failed checks of a kernel's blocks, with the session's reason; read
/// by the host once the launch has returned (the blocks have ended).
struct Report {
  void check(const ::testing::AssertionResult& ok, int line, const char* what, const AsyncSession* s) {
    if (ok) return;
    std::string msg = "line " + std::to_string(line) + ", block " + std::to_string(GetBlockIdx()) + ": " + what;
    if (*ok.message()) msg += ": " + std::string(ok.message());
    if (s) msg += std::string(" [lastError: ") + s->lastError() + "]";
    std::lock_guard<std::mutex> lock(mutex);
    text += msg + "\n";
  }
  std::mutex mutex;
  std::string text;
};
#define KCHECK(report, cond, session) (report).check(::testing::AssertionResult(cond), __LINE__, #cond, session)

/// Runs kernel(report) on `blocks` blocks; expects no exception and no failed check.
template <class Kernel>
void run(int blocks, Kernel&& kernel) {
  Report report;
  try {
    launch(blocks, [&] { kernel(report); });
  } catch (const std::exception& e) {
    ADD_FAILURE() << "PE " << me() << ": the kernel threw: " << e.what();
  }
  EXPECT_EQ(report.text, "") << "PE " << me() << ": checks that failed inside the kernel";
}

/// A call's outcome seen inside a kernel, for the host to check.
struct Outcome {
  bool ok = true;
  std::string error;
};
inline Outcome outcome(bool ok, const AsyncSession& s) { return {ok, s.lastError()}; }
/// The call was refused, and its reason holds `needle`.
inline ::testing::AssertionResult Refused(const Outcome& o, const char* needle) {
  if (!o.ok && o.error.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "PE " << me() << ": expected a refusal mentioning \"" << needle << "\"; got "
                                       << (o.ok ? "success" : "a refusal") << ", lastError \"" << o.error << "\"";
}

/// The call was refused with exactly `text` as its reason.
inline ::testing::AssertionResult RefusedWith(const Outcome& o, const std::string& text) {
  if (!o.ok && o.error == text) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "PE " << me() << ": expected a refusal with lastError \"" << text
                                       << "\"; got " << (o.ok ? "success" : "a refusal") << ", lastError \""
                                       << o.error << "\"";
}

/// This PE's SDMA workspace, for one test.
struct Sdma {
  sdma::SdmaWorkspaceManager mgr;
  Sdma() { EXPECT_TRUE(mgr.Init()) << mgr.LastError(); }
  std::uint8_t* ws() const { return static_cast<std::uint8_t*>(mgr.GetWorkspaceAddr()); }
};

/// Builds an SDMA session for the calling block, its scratch tile at UB 0.
inline bool sdma_session(std::uint8_t* ws, AsyncSession& s, sdma::SdmaBaseConfig cfg = {sdma::kDefaultSdmaBlockBytes, 0, 1},
                  std::uint32_t group = sdma::kAutoChannelGroupIdx) {
  Scratch scratch;
  TASSIGN(scratch, 0);
  return BuildAsyncSession<DmaEngine::SDMA>(scratch, ws, s, 0, cfg, group);
}

/// Holds the engine threads in `mask` (bit i = thread i) for a scope: they
/// run what was published before, then nothing more; released at the end.
struct EngineHold {
  explicit EngineHold(std::uint32_t mask = ~0u) { set(mask); }
  ~EngineHold() {
    try {
      set(0);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  static void set(std::uint32_t mask) { tilecomm::transport::dma::Engine::instance().hold(mask); }
};

}  // namespace async_test
