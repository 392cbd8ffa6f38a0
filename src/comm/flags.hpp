// The layout of a communicator's flag partition (<tilecomm/orchestration.hpp>):
// 64-bit flags, one per 64-byte line.
#pragma once

#include <cstddef>

#include "tilecomm/comm.hpp"

namespace tilecomm::comm {

constexpr int kLineWords = 8;
constexpr int kInnerBlocks = 255;  // blocks of a launch that may use the inner flags
constexpr int kPairLine = 0;                                 // + peer: that peer's Record to me
constexpr int kOne2NLine = kPairLine + kCommMaxRanks;        // my Record1vN
constexpr int kFanInLine = kOne2NLine + 1;                   // + peer: that peer's RecordNv1 to me
constexpr int kInnerLine = kFanInLine + kCommMaxRanks;       // + block: my block's inner flag
constexpr int kLines = kInnerLine + kInnerBlocks;
constexpr std::size_t kFlagPartitionBytes = std::size_t{kLines} * kLineWords * 8;
static_assert(kFlagPartitionBytes == 32 << 10);

}  // namespace tilecomm::comm
