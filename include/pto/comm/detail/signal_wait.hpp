// The library side of the signal and ordering instructions (TNOTIFY, TWAIT,
// TTEST, TQUIET, TBARRIER): what does not depend on a template argument is
// compiled once, in src/pto/signal.cpp. Not for kernels: use the
// instructions of pto/comm/p2p.hpp.
#pragma once

#include <cstdint>

#include "pto/comm/comm_types.hpp"

namespace tilecomm::signal {

/// A signal tensor reduced to what the wait needs: its int32 elements are at
/// base + sum(i_d * stride[d]) for i_d < shape[d].
struct SignalView {
  std::int32_t* base = nullptr;
  std::int64_t shape[5] = {1, 1, 1, 1, 1};
  std::int64_t stride[5] = {1, 1, 1, 1, 1};
};

/// Where the first element that does not satisfy the comparison is.
struct Unsatisfied {
  std::int64_t index[5] = {0, 0, 0, 0, 0};
  const std::int32_t* address = nullptr;
  std::int32_t seen = 0;
};

/// Checks a signal view's shape and the alignment of its base; throws
/// InvalidUsage naming `call` when they are unusable.
void check_view(const SignalView& s, const char* call);

/// One pass over the elements (acquire loads): true when every element
/// satisfies `element <cmp> value`; otherwise false and, when `first` is
/// given, where the first one that does not is and what it holds.
bool test(const SignalView& s, std::int32_t value, pto::comm::WaitCmp cmp, Unsatisfied* first = nullptr);

/// Blocks until test() is true. Throws tilecomm::Error when the job fails
/// (Remote) or TILECOMM_TIMEOUT passes (Timeout), naming `call`, the signal,
/// the comparison, the expected and the seen value; stops (Remote) when
/// another block of the same launch failed.
void wait(const SignalView& s, std::int32_t value, pto::comm::WaitCmp cmp, const char* call);

/// TNOTIFY on one int32: a store fence, then a release store of `value`
/// (Set) or an atomic add of `value` (AtomicAdd). Throws InvalidUsage when
/// `signal` is null or not 4-byte aligned.
void notify(std::int32_t* signal, std::int32_t value, pto::comm::NotifyOp op);

/// Every earlier store and atomic of this PE is visible to every PE before
/// any later load or store (shmem_quiet).
void quiet();

/// shmem_barrier_all of the job (quiet, then all PEs meet); throws
/// InvalidUsage when OpenSHMEM is not initialized.
void barrier_all(const char* call);

}  // namespace tilecomm::signal
