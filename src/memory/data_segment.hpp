// Symmetric global and static variables.
//
// OpenSHMEM makes the program's global and static variables symmetric. The
// writable data segment of the executable (.data and .bss, after the RELRO
// part) is moved onto a shared Segment at init: its bytes are copied into a
// memfd which is then mapped over the same addresses. Peers map that memfd
// elsewhere and translate by offset, so executables built as PIE (different
// addresses in every process) work too. Only the executable is covered, not
// shared libraries, as the specification requires.
#pragma once

#include <cstddef>

#include "memory/segment.hpp"

namespace tilecomm::memory {

struct AddressRange {
  char* begin = nullptr;
  char* end = nullptr;
  std::size_t size() const { return static_cast<std::size_t>(end - begin); }
  bool contains(const void* p) const { return p >= begin && p < end; }
};

/// The executable's writable data, page aligned, without its RELRO part.
AddressRange find_executable_data();

/// Moves `range` onto a new shared Segment in place. Must run while no other
/// thread writes global variables (shmem_init). Throws on failure.
Segment make_data_symmetric(const AddressRange& range);

}  // namespace tilecomm::memory
