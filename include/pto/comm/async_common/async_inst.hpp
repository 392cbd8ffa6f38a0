// Asynchronous transfers through a DMA engine (see async_types.hpp for the
// session, event and quiet semantics).
//
//   TGET_ASYNC(dst, src, session [, peer], events...)   remote src -> local dst
//   TPUT_ASYNC(dst, src, session [, mode], events...)   local src -> remote dst
//   TPUT_ASYNC_NOTIFY(dst, src, signal, value, op, session [, peer], events...)
//       the put, then the remote int32 `signal` set to / increased by `value`
//       once the payload is visible; the event covers both
//   TPUT_ASYNC(..., AsyncPutMode::DEFER) stages a put (invalid placeholder
//   event); SubmitAsyncPutBatch(session) hands every staged put to the engine
//   at once and returns one event for the batch. TPUT_ASYNC_DEFER and
//   TPUT_ASYNC_SUBMIT are the same two steps under their other names.
//
// Operands: both tensors flat, contiguous, logically 1-D (at most one
// dimension above 1, with stride 1: GlobalTensor::IsFlat1D), the same
// element type and layout (checked at compile time), dst at least as long
// as src; bytes moved = src elements.
// SDMA: the remote tensor holds the peer buffer's address in this process
// (shmem_ptr). URMA: it holds the symmetric address of this PE's own copy,
// and the engine reaches the session's (or the operation's) peer.
// Anything else returns an invalid event with the reason in lastError().
// Trailing `events` (anything with Wait()) are waited for before submission.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "pto/common/pto_tensor.hpp"
#include "pto/comm/comm_types.hpp"

namespace pto::comm {

namespace detail {

/// "shape (1,1,2,4,128) stride (1024,1024,512,128,1)", for messages.
template <class Tensor>
std::string shape_text(const Tensor& t) {
  std::string s = "shape (";
  for (int d = 0; d < 5; ++d) s += std::to_string(t.GetShape(d)) + (d < 4 ? "," : ") stride (");
  for (int d = 0; d < 5; ++d) s += std::to_string(t.GetStride(d)) + (d < 4 ? "," : ")");
  return s;
}

template <class Dst, class Src>
void check_operand_types() {
  static_assert(std::is_same_v<typename Dst::RawDType, typename Src::RawDType>,
                "asynchronous transfers need the same element type (RawDType) on both sides");
  static_assert(Dst::layout == Src::layout, "asynchronous transfers need the same layout on both sides");
}

/// The event of operation `handle` of `session` (0: invalid).
inline AsyncEvent event_of(std::uint64_t handle, const AsyncSession& session, DmaEngine engine) {
  return {handle, engine, handle ? session.id() : 0};
}

/// Submits one transfer after checking the tensors; handle or 0.
template <DmaEngine engine, class Dst, class Src>
std::uint64_t submit(Dst& dst, Src& src, const AsyncSession& session, const char* call, bool remote_is_dst,
                     std::int32_t peer, bool defer, std::int32_t* signal = nullptr, std::int32_t value = 0,
                     bool add = false) {
  check_operand_types<Dst, Src>();
  if (session.valid() && session.engine() != engine)
    return tilecomm::async::reject(session, call, "the session was built for %s but the instruction names %s",
                                   session.engine() == DmaEngine::SDMA ? "SDMA" : "URMA",
                                   engine == DmaEngine::SDMA ? "SDMA" : "URMA");
  if (!src.IsFlat1D() || !dst.IsFlat1D()) {
    std::string text = src.IsFlat1D() ? shape_text(dst) : shape_text(src);
    return tilecomm::async::reject(session, call,
                                   "the %s tensor is not flat contiguous 1-D: %s; at most one dimension may "
                                   "exceed 1, and its stride must be 1",
                                   src.IsFlat1D() ? "destination" : "source", text.c_str());
  }
  if (dst.Numel() < src.Numel())
    return tilecomm::async::reject(session, call, "the destination has %zu elements, fewer than the source's %zu",
                                   dst.Numel(), src.Numel());
  tilecomm::async::Transfer t{};
  t.dst = const_cast<std::remove_const_t<typename Dst::RawDType>*>(dst.data());
  t.src = src.data();
  t.bytes = src.Numel() * sizeof(typename Src::RawDType);
  t.remote_is_dst = remote_is_dst;
  t.peer = peer;
  t.signal = signal;
  t.signal_value = value;
  t.signal_add = add;
  t.defer = defer;
  t.call = call;
  return tilecomm::async::submit(session, t);
}

}  // namespace detail

// ---- TGET_ASYNC ------------------------------------------------------------------------

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TGET_ASYNC(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, const AsyncSession& session,
                               WaitEvents&... events) {
  WaitAllEvents(events...);
  return detail::event_of(detail::submit<engine>(dstGlobalData, srcGlobalData, session, "TGET_ASYNC", false, -1, false),
                          session, engine);
}

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TGET_ASYNC(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, const AsyncSession& session,
                               std::uint32_t peer, WaitEvents&... events) {
  WaitAllEvents(events...);
  return detail::event_of(detail::submit<engine>(dstGlobalData, srcGlobalData, session, "TGET_ASYNC", false,
                                                 static_cast<std::int32_t>(peer), false),
                          session, engine);
}

// ---- TPUT_ASYNC ------------------------------------------------------------------------

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TPUT_ASYNC(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, const AsyncSession& session,
                               AsyncPutMode mode, WaitEvents&... events) {
  WaitAllEvents(events...);
  std::uint64_t h = detail::submit<engine>(dstGlobalData, srcGlobalData, session, "TPUT_ASYNC", true, -1,
                                           mode == AsyncPutMode::DEFER);
  return detail::event_of(mode == AsyncPutMode::DEFER ? 0 : h, session, engine);
}

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TPUT_ASYNC(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, const AsyncSession& session,
                               WaitEvents&... events) {
  return TPUT_ASYNC<engine>(dstGlobalData, srcGlobalData, session, AsyncPutMode::IMMEDIATE, events...);
}

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TPUT_ASYNC(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, const AsyncSession& session,
                               std::uint32_t peer, AsyncPutMode mode = AsyncPutMode::IMMEDIATE, WaitEvents&... events) {
  WaitAllEvents(events...);
  std::uint64_t h = detail::submit<engine>(dstGlobalData, srcGlobalData, session, "TPUT_ASYNC", true,
                                           static_cast<std::int32_t>(peer), mode == AsyncPutMode::DEFER);
  return detail::event_of(mode == AsyncPutMode::DEFER ? 0 : h, session, engine);
}

template <DmaEngine engine = DmaEngine::SDMA>
PTO_INTERNAL AsyncEvent SubmitAsyncPutBatch(const AsyncSession& session) {
  return detail::event_of(tilecomm::async::submit_batch(session), session, engine);
}

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData>
PTO_INST void TPUT_ASYNC_DEFER(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData,
                               const AsyncSession& session) {
  (void)TPUT_ASYNC<engine>(dstGlobalData, srcGlobalData, session, AsyncPutMode::DEFER);
}

template <DmaEngine engine = DmaEngine::SDMA>
PTO_INST AsyncEvent TPUT_ASYNC_SUBMIT(const AsyncSession& session) {
  return SubmitAsyncPutBatch<engine>(session);
}

// ---- TPUT_ASYNC_NOTIFY -----------------------------------------------------------------

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          typename GlobalSignalData, WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TPUT_ASYNC_NOTIFY(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData,
                                      GlobalSignalData& dstSignalData, std::int32_t signalValue, NotifyOp notifyOp,
                                      const AsyncSession& session, std::uint32_t peer, WaitEvents&... events) {
  static_assert(std::is_same_v<typename GlobalSignalData::RawDType, std::int32_t>, "signals are int32_t");
  WaitAllEvents(events...);
  return detail::event_of(detail::submit<engine>(dstGlobalData, srcGlobalData, session, "TPUT_ASYNC_NOTIFY", true,
                                                 static_cast<std::int32_t>(peer), false, dstSignalData.data(),
                                                 signalValue, notifyOp == NotifyOp::AtomicAdd),
                          session, engine);
}

template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData,
          typename GlobalSignalData, WaitableEvent... WaitEvents>
PTO_INST AsyncEvent TPUT_ASYNC_NOTIFY(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData,
                                      GlobalSignalData& dstSignalData, std::int32_t signalValue, NotifyOp notifyOp,
                                      const AsyncSession& session, WaitEvents&... events) {
  static_assert(std::is_same_v<typename GlobalSignalData::RawDType, std::int32_t>, "signals are int32_t");
  WaitAllEvents(events...);
  return detail::event_of(detail::submit<engine>(dstGlobalData, srcGlobalData, session, "TPUT_ASYNC_NOTIFY", true,
                                                 -1, false, dstSignalData.data(), signalValue,
                                                 notifyOp == NotifyOp::AtomicAdd),
                          session, engine);
}

/// Quiet on a session (tilecomm extension): every operation of the session
/// is complete on return (true), or the session failed (false, see lastError()).
PTO_INST bool TQUIET(const AsyncSession& session) { return tilecomm::async::wait(session, UINT64_MAX, 0); }

}  // namespace pto::comm
