// PTO on a CPU host: the qualifiers and enumerations tile code is written with.
//
// On the accelerator these qualifiers place code and data (AI core code,
// global memory). On a host every block is a thread of the PE's process and
// global memory (GM) is the process's memory, so they expand to nothing (or
// to `inline` where a header defines functions).
#pragma once

#include <cstdint>

#ifndef __gm__
#define __gm__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef AICORE
#define AICORE
#endif
#ifndef PTO_INST
#define PTO_INST inline
#endif
#ifndef PTO_INTERNAL
#define PTO_INTERNAL inline
#endif

namespace pto {

/// A dimension whose extent is given at run time.
inline constexpr int DYNAMIC = -1;

/// Memory layout of a global tensor.
enum class Layout { ND, DN, NZ };

/// Where a tile lives. Communication instructions use Vec (UB) tiles.
enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight };

/// Element order inside a tile, and the fractal (box) layout.
enum class BLayout { RowMajor = 0, ColMajor = 1 };
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };

/// Atomic mode of the write side of a TPUT.
enum class AtomicType : std::uint8_t { AtomicNone = 0, AtomicAdd = 1 };

/// Dimension numbers of GlobalTensor::GetShape / GetStride.
namespace GlobalTensorDim {
inline constexpr int DIM_0 = 0, DIM_1 = 1, DIM_2 = 2, DIM_3 = 3, DIM_4 = 4, TOTAL_DIM = 5;
}

/// What the synchronous instructions return: they are complete on return,
/// so waiting on it does nothing. Any type with Wait() can be passed as a
/// trailing event to an instruction, which waits on it first.
struct RecordEvent {
  void Wait() const {}
};

/// An event an instruction waits on before it starts: anything with Wait().
template <class E>
concept WaitableEvent = requires(E& e) { e.Wait(); };

template <WaitableEvent... E>
inline void WaitAllEvents(E&... events) {
  (events.Wait(), ...);
}

/// Alignment of tile placement in UB, in bytes (one UB block).
inline constexpr std::uint32_t kUbAlign = 32;

}  // namespace pto
