// Exceptions, element types and array arguments (binding.hpp).
#include <tilecomm/error.hpp>

#include "binding.hpp"

namespace tilecomm::python {

namespace {
// tilecomm.Error and its kinds, made once at import (bind_errors).
PyObject* g_error = nullptr;
PyObject* g_usage = nullptr;
PyObject* g_timeout = nullptr;
PyObject* g_remote = nullptr;

PyObject* exception_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidUsage: return g_usage;
    case ErrorCode::Timeout: return g_timeout;
    case ErrorCode::Remote: return g_remote;
    case ErrorCode::Transport:
    case ErrorCode::System: break;
  }
  return g_error;
}

PyObject* new_exception(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string qualified = std::string("tilecomm.") + name;
  PyObject* e = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!e) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(e));
  return e;
}
}  // namespace

void bind_errors(py::module_& m) {
  g_error = new_exception(m, "Error", PyExc_RuntimeError,
                          "An error of tilecomm's library; the message names what failed, with the values, and what "
                          "to change.");
  auto bases = [](PyObject* a, PyObject* b) { return py::make_tuple(py::handle(a), py::handle(b)).release().ptr(); };
  g_usage = new_exception(m, "UsageError", bases(g_error, PyExc_ValueError),
                          "A call the library refused: bad arguments, a call before init or after finalize, or "
                          "ranks that disagree on a collective call.");
  g_timeout = new_exception(m, "TimeoutError", bases(g_error, PyExc_TimeoutError),
                            "A wait that outlasted TILECOMM_TIMEOUT (or a communicator's TILECOMM_COMM_TIMEOUT).");
  g_remote = new_exception(m, "RemoteError", g_error,
                           "A peer failed (ended, was killed, or raised) while this process waited for it.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(exception_for(e.code()), e.what());
    }
  });
}

const char* name_of(Elem e) {
  static constexpr const char* kNames[] = {"int8",    "int16",   "int32",    "int64",   "uint8",
                                           "uint16",  "uint32",  "uint64",   "float16", "bfloat16",
                                           "float32", "float64", "complex64", "complex128"};
  return kNames[static_cast<int>(e)];
}

std::size_t size_of(Elem e) {
  static constexpr std::size_t kSizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return kSizes[static_cast<int>(e)];
}

Elem elem_of(const py::dtype& dt, const char* arg) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  auto pick = [&](std::initializer_list<Elem> by_size) -> std::optional<Elem> {
    for (Elem e : by_size)
      if (size_of(e) == static_cast<std::size_t>(size)) return e;
    return std::nullopt;
  };
  std::optional<Elem> e;
  if (kind == 'i') e = pick({Elem::Int8, Elem::Int16, Elem::Int32, Elem::Int64});
  if (kind == 'u') e = pick({Elem::Uint8, Elem::Uint16, Elem::Uint32, Elem::Uint64});
  if (kind == 'f') e = pick({Elem::Fp16, Elem::Fp32, Elem::Fp64});
  if (kind == 'c') e = pick({Elem::Complex64, Elem::Complex128});
  if (!e)
    throw py::type_error(strprintf("argument '%s': element type %s is not supported; use an integer (int8-int64, "
                                   "uint8-uint64), float16/32/64 or complex64/128 array",
                                   arg, std::string(py::str(static_cast<const py::handle&>(dt))).c_str()));
  return *e;
}

Array array_arg(py::handle obj, const char* arg, bool writable) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(strprintf("argument '%s' must be a numpy.ndarray (or, through tilecomm.torch, a CPU tensor), "
                                   "not %s",
                                   arg, Py_TYPE(obj.ptr())->tp_name));
  auto a = py::reinterpret_borrow<py::array>(obj);
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(strprintf("argument '%s' is not contiguous (strides of a slice or transpose); pass a "
                                    "contiguous array, or use the strided form (iput/iget) for a regular stride",
                                    arg));
  if (writable && !a.writeable())
    throw py::value_error(strprintf("argument '%s' is read-only; it is written to", arg));
  Array out;
  out.data = static_cast<char*>(const_cast<void*>(a.data()));
  out.count = static_cast<std::size_t>(a.size());
  out.elem = elem_of(a.dtype(), arg);
  return out;
}

Array symmetric_arg(py::handle obj, const char* arg, bool writable) {
  Array a = array_arg(obj, arg, writable);
  require_symmetric(a.data, a.bytes(), arg);
  return a;
}

shmem_team_t Team::get(const char* arg) const {
  if (team == SHMEM_TEAM_INVALID)
    throw py::value_error(strprintf("argument '%s': the team was destroyed (or is TEAM_INVALID)", arg));
  return team;
}

}  // namespace tilecomm::python
