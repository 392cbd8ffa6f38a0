// The Python face's shared pieces: array arguments, the symmetric heap's
// check, and how a binding calls the library.
//
// Every function bound to Python runs its library calls inside a Call
// (below): errors the runtime would end the process with become Python
// exceptions, and a call that may wait releases the GIL. Arguments are
// checked before the library sees them; a wrong one raises TypeError (not
// an array, wrong element type) or ValueError (not contiguous, read-only,
// not symmetric, sizes that do not match), naming the argument.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/error.hpp"

namespace tilecomm::python {

namespace py = pybind11;

/// Element types crossing the binding: NumPy's, and bfloat16, which NumPy
/// lacks (a torch bfloat16 tensor arrives as its uint16 bits, with Bf16 said).
enum class Elem : std::uint8_t {
  Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Fp16, Bf16, Fp32, Fp64, Complex64, Complex128
};
const char* name_of(Elem e);
std::size_t size_of(Elem e);
/// The element type of a NumPy dtype; TypeError naming `arg` if the binding has none for it.
Elem elem_of(const py::dtype& dt, const char* arg);

/// An array argument: a C-contiguous numpy.ndarray (a 0-d array is one element).
struct Array {
  char* data = nullptr;
  std::size_t count = 0;  // elements
  Elem elem = Elem::Uint8;
  std::size_t bytes() const { return count * size_of(elem); }
};
/// `obj` as an Array: TypeError unless it is a numpy.ndarray, ValueError
/// unless it is C-contiguous and, when `writable`, writeable.
Array array_arg(py::handle obj, const char* arg, bool writable);
/// Checks that [p, p + bytes) lies in one live allocation of the symmetric
/// heap (heap.cpp); ValueError naming `arg` otherwise: not symmetric, freed,
/// or running past its allocation's end.
void require_symmetric(const void* p, std::size_t bytes, const char* arg);
/// array_arg + require_symmetric.
Array symmetric_arg(py::handle obj, const char* arg, bool writable);

/// A team as Python holds it (tilecomm.shmem.Team): TEAM_WORLD and
/// TEAM_SHARED are not owned; split teams are, until destroy().
struct Team {
  shmem_team_t team = SHMEM_TEAM_INVALID;
  bool predefined = false;
  shmem_team_t get(const char* arg) const;  // ValueError if destroyed
};

/// The scope of one bound call: the runtime throws instead of ending the
/// process; a call that may wait is a WaitingCall, which also releases the
/// GIL so that other Python threads run meanwhile.
struct Call {
  ThrowErrors errors;
};
struct WaitingCall {
  ThrowErrors errors;
  py::gil_scoped_release nogil;
};

/// Whether shmem_init ran and shmem_finalize did not; raises tilecomm.Error
/// naming `call` when not.
void require_initialised(const char* call);

// The parts of the module (each file binds its own).
void bind_errors(py::module_& m);
void bind_heap(py::module_& m);
void bind_shmem(py::module_& m);
void bind_comm(py::module_& m);
void bind_p2p(py::module_& m);

/// Called by finalize() before shmem_finalize: the communicators release
/// their windows, live arrays are moved to private memory (heap.cpp).
void before_finalize();
void after_finalize();
void comm_before_finalize();
void p2p_before_finalize();
void heap_before_finalize();
void heap_after_finalize();

}  // namespace tilecomm::python
