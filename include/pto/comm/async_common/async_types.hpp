// Asynchronous DMA: engines, sessions and events.
//
// A session binds a kernel block to one channel group of a DMA workspace.
// Operations submitted on a session (TGET_ASYNC, TPUT_ASYNC, ...) run on the
// PE's copy engine while the block goes on; each returns an AsyncEvent.
//
// NOTE [quiet semantics] Completion is per session and in order:
// event.Test(session) is true once that operation *and every earlier one of
// the session* are complete; event.Wait(session) returns once every operation
// issued on the session so far is complete (a quiet), so one Wait on the last
// event drains a whole batch. At most 64 operations are in flight per
// session: the 65th submission waits for the oldest to complete
// (backpressure), it never fails and never overwrites.
//
// Errors: a submission that cannot be performed returns an invalid event
// (handle 0). As in the seed API, Wait and Test on an invalid event return
// true (there is nothing to wait for), so 0 alone cannot be told from "done":
// the reason is therefore kept in the session (session.lastError()) and
// logged at warn level. Wait returns false when the job failed (a PE died)
// while the session had operations outstanding, or TILECOMM_TIMEOUT passed;
// lastError() then says why. Wait and Test must be given the session that
// issued the event: another session (another channel group, or the same
// group rebuilt) returns false and names both. A session whose workspace
// was finalized (its manager's Finalize() or destructor) before the call is
// refused with an error naming the workspace and never touches the freed
// memory; finalizing a workspace while another thread is inside a call on
// one of its sessions is not supported (as on the device).
#pragma once

#include <cstddef>
#include <cstdint>

#include "pto/common/constants.hpp"

namespace pto::comm {

enum class DmaEngine : std::uint8_t { SDMA = 0, URMA = 1 };

enum class AsyncPutMode : std::uint8_t {
  IMMEDIATE = 0,  // the engine may start at once
  DEFER = 1,      // staged; SubmitAsyncPutBatch hands the whole batch to the engine
};

namespace sdma {
inline constexpr std::uint32_t UB_ALIGN_SIZE = 256;                 // recommended scratch tile bytes
inline constexpr std::uint32_t kUbAlignSize = UB_ALIGN_SIZE;
inline constexpr std::uint64_t kDefaultSdmaBlockBytes = 1024 * 1024;  // entry size a transfer is cut into
inline constexpr std::uint32_t kAutoChannelGroupIdx = 0xffffffffu;    // = the block index
inline constexpr std::uint32_t kMaxChannelGroups = 48;               // per workspace
inline constexpr std::uint32_t kMaxQueueNum = 8;                     // per channel group

/// {block_bytes, comm_block_offset, queue_num}
struct SdmaBaseConfig {
  std::uint64_t block_bytes;        // largest entry; bigger transfers are cut and dealt over the queues
  std::uint64_t comm_block_offset;  // bytes added to every source and destination address
  std::uint32_t queue_num;          // submission queues of the channel group (1-8)
};
using sdma_base_config_t = SdmaBaseConfig;
}  // namespace sdma

class AsyncSession;

/// What an asynchronous instruction returns.
struct AsyncEvent {
  std::uint64_t handle = 0;  // 0: invalid (see session.lastError())
  DmaEngine engine = DmaEngine::SDMA;
  std::uint64_t session = 0;  // AsyncSession::id() of the session that issued it

  bool valid() const { return handle != 0; }
  /// Quiet: returns when every operation of the session is complete.
  bool Wait(const AsyncSession& session) const;
  /// True when this operation and every earlier one of the session are complete.
  bool Test(const AsyncSession& session) const;
};

/// A trivially copyable handle on one channel group of a workspace.
class AsyncSession {
 public:
  bool valid() const { return group_ != nullptr; }
  DmaEngine engine() const { return engine_; }
  std::uint32_t channelGroup() const { return group_idx_; }
  std::uint32_t syncId() const { return sync_id_; }
  /// Unique in the process for every successful BuildAsyncSession (0: not built).
  std::uint64_t id() const { return id_; }
  /// Why the last call on this session failed, "" if it did not. For a
  /// session that could not be built: why BuildAsyncSession returned false.
  const char* lastError() const;

  // Filled by BuildAsyncSession; not for kernels.
  void* group_ = nullptr;
  void* workspace_ = nullptr;
  DmaEngine engine_ = DmaEngine::SDMA;
  std::uint32_t group_idx_ = 0;
  std::uint32_t sync_id_ = 0;
  void* scratch_ = nullptr;  // UB scratch: receives the completion records Wait/Test read
  std::uint64_t comm_block_offset_ = 0;
  std::uint64_t id_ = 0;
  std::uint64_t workspace_id_ = 0;  // the workspace registry's name for workspace_ (alive or finalized)
};

}  // namespace pto::comm

// ---- the library side of the instructions (not for kernels) -----------------------
namespace tilecomm::async {

using pto::comm::AsyncSession;
using pto::comm::DmaEngine;

struct BuildArgs {
  DmaEngine engine;
  void* workspace;
  std::uint32_t group;      // channel group, kAutoChannelGroupIdx = the block index
  std::uint32_t sync_id;
  std::uint64_t block_bytes;
  std::uint64_t comm_block_offset;
  std::uint32_t queue_num;
  std::int32_t dest_rank;   // URMA: the remote PE, -1 = given per operation; SDMA: -1
  void* scratch;            // SDMA: the scratch tile's UB address
  std::size_t scratch_bytes;
  bool scratch_is_vec;
};
bool build_session(AsyncSession& session, const BuildArgs& args);

/// One transfer: `bytes` from src to dst. `remote_is_dst` tells which side is
/// the peer's (the put direction). notify: int32 signal written after the data.
struct Transfer {
  void* dst;
  const void* src;
  std::size_t bytes;
  bool remote_is_dst;
  std::int32_t peer = -1;  // URMA sessions without a bound peer: the remote PE
  std::int32_t* signal = nullptr;
  std::int32_t signal_value = 0;
  bool signal_add = false;
  bool defer = false;
  const char* call = "";
};
std::uint64_t submit(const AsyncSession& session, const Transfer& t);
/// Hands the deferred operations of the session to the engine; returns the
/// handle of the last one (0 and a reason on failure).
std::uint64_t submit_batch(const AsyncSession& session);
/// `issuer`: the id() of the session the event came from, 0 = any (TQUIET).
bool wait(const AsyncSession& session, std::uint64_t handle, std::uint64_t issuer);
bool test(const AsyncSession& session, std::uint64_t handle, std::uint64_t issuer);
/// Records why `call` returns an invalid event; logs it; returns 0.
std::uint64_t reject(const AsyncSession& session, const char* call, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char* last_error(const AsyncSession& session);

}  // namespace tilecomm::async

namespace pto::comm {
inline bool AsyncEvent::Wait(const AsyncSession& s) const { return tilecomm::async::wait(s, handle, session); }
inline bool AsyncEvent::Test(const AsyncSession& s) const { return tilecomm::async::test(s, handle, session); }
inline const char* AsyncSession::lastError() const { return tilecomm::async::last_error(*this); }
}  // namespace pto::comm
