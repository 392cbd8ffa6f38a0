// Seed 001's AllGather orchestration, as a communicator kernel. The body
// between the markers is the seed's snippet, unchanged; the lines above it
// give the snippet's names their meaning:
//   rank                the calling rank; each block serves peer GetBlockIdx()
//   tag                 the launch's magic
//   cclGMSelf/Other     this launch's window partition of this rank and of
//                       the peer (the HCCL buffer)
//   inputGM, count      this round's slice of the input
//   outputGM            this round's output: rank r's slice lands at
//                       outputGM + r * count, which RoundOutput places
//                       r * stride elements apart in the caller's buffer (for
//                       inputs larger than the window, gathered in rounds).
#pragma once

#include <tilecomm/comm.hpp>
#include <tilecomm/orchestration.hpp>

#include <algorithm>
#include <cstdint>

namespace seed001 {

using namespace tilecomm::orch;
using pto::GetBlockIdx;

/// outputGM + r * count -> base + r * stride (count elements are this round's slice).
template <class T>
struct RoundOutput {
  T* base;
  std::int64_t count, stride;
  T* operator+(std::int64_t at) const { return count ? base + at / count * stride + at % count : base; }
};

template <class T>
void AllGatherKernel(const tilecomm::CommArgs& args, const T* input, T* output, std::int64_t count,
                     std::int64_t stride) {
  const int rank = args.rank;
  const std::uint32_t tag = args.magic;
  T* cclGMSelf = args.data<T>(rank);
  T* cclGMOther = args.data<T>(static_cast<int>(GetBlockIdx()));
  const T* inputGM = input;
  RoundOutput<T> outputGM{output, count, stride};

  // ---- seed 001, unchanged ----
  if (GetBlockIdx() != rank) {
      // Perform inter-rank synchronization. Each core waits for the data to be ready on other ranks.
      WaitNv1(tag);
      PipeBarrier<PIPE_ALL>();
      // Read the data of the peer rank to the output memory of the local rank.
      CpGM2GM(outputGM + GetBlockIdx() * count, cclGMOther, count);
      // Perform post-sync with the remote rank whose rank ID is GetBlockIdx().
      Record(GetBlockIdx(), tag);
      Wait(GetBlockIdx(), tag);
  } else {
      // Copy the data from the input memory of the local rank to the transit memory for other ranks to read.
      CpGM2GM(cclGMSelf, inputGM, count);
      PipeBarrier<PIPE_ALL>();
      // Perform inter-rank synchronization to notify other ranks to read data.
      Record1vN(tag);
      // Copy the data from the transit memory of the current rank to the user output memory.
      CpGM2GM(outputGM + count * rank, cclGMSelf, count);
  }
  // ---- end of seed 001 ----
}

/// AllGather of `count` elements per rank from `input` into `output`
/// (size() * count elements, rank r's at r * count), one launch per round
/// of at most a window partition, as seed 001 describes for inputs larger
/// than the HCCL buffer. Returns the number of launches.
template <class T>
int AllGather(tilecomm::Comm& comm, const T* input, T* output, std::int64_t count) {
  const std::int64_t per_round =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(comm.args().partitionBytes() / sizeof(T)));
  int launches = 0;
  for (std::int64_t at = 0; at < count; at += per_round, ++launches) {
    const std::int64_t n = std::min(per_round, count - at);
    comm.launch(comm.size(), AllGatherKernel<T>, input + at, output + at, n, count);
  }
  return launches;
}

}  // namespace seed001
