// The PTO communication instructions (namespace pto::comm), for kernels
// started with pto::launch on the PEs of a tilecomm job.
//
//   point to point, synchronous  TPUT, TGET                    pto/comm/p2p.hpp
//   signals                      TNOTIFY, TWAIT, TTEST         pto/comm/p2p.hpp
//   ordering                     TQUIET, TBARRIER              pto/comm/p2p.hpp
//   collectives (root side)      TBROADCAST, TGATHER,
//                                TSCATTER, TREDUCE             pto/comm/collective.hpp
//   asynchronous (DMA engines)   TGET_ASYNC, TPUT_ASYNC,
//                                TPUT_ASYNC_NOTIFY, batches    pto/comm/async_common/async_inst.hpp
//   sessions and events          BuildAsyncSession, AsyncEvent pto/comm/async_common/async_event_impl.hpp
//
// Global tensors hold GM addresses as this process sees them: a peer's
// buffer is reached through the address shmem_ptr() returns for it.
#pragma once

#include "pto/common/pto_tile.hpp"
#include "pto/comm/comm_types.hpp"
#include "pto/comm/p2p.hpp"
#include "pto/comm/collective.hpp"
#include "pto/comm/async_common/async_event_impl.hpp"
#include "pto/comm/async_common/async_inst.hpp"
