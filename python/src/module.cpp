// The extension module tilecomm._tilecomm: start and end of the runtime,
// and the parts bound by the other files of python/src (binding.hpp).
#include <shmemx.h>
#include <tilecomm/version.h>

#include <cstring>

#include "binding.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm::python {

void before_finalize() {
  p2p_before_finalize();
  comm_before_finalize();
  heap_before_finalize();
}

void after_finalize() { heap_after_finalize(); }

namespace {

shmem::State state() { return static_cast<shmem::State>(shmem::g_state.load()); }

void finalize() {
  if (state() != shmem::State::Ready) return;  // finalize twice, or never started: nothing to do
  {
    Call call;
    before_finalize();
  }
  {
    WaitingCall call;
    shmem_finalize();
  }
  after_finalize();
}

int init(int thread_level) {
  int provided = SHMEM_THREAD_SINGLE;
  WaitingCall call;
  if (shmem_init_thread(thread_level, &provided) != 0)
    raise(ErrorCode::InvalidUsage, "shmem_init_thread(%d) failed; the log above says why", thread_level);
  return provided;
}

}  // namespace

void require_initialised(const char* call) {
  if (state() == shmem::State::Finalized) raise(ErrorCode::InvalidUsage, "%s called after finalize", call);
  if (state() != shmem::State::Ready)
    raise(ErrorCode::InvalidUsage, "%s called before init; call tilecomm.shmem.init() first", call);
}

}  // namespace tilecomm::python

using namespace tilecomm::python;

PYBIND11_MODULE(_tilecomm, m) {
  m.doc() = "tilecomm's library for Python (use the package tilecomm, which wraps it)";
  m.attr("__version__") = TILECOMM_VERSION_STRING;
  bind_errors(m);
  bind_heap(m);
  bind_shmem(m);
  bind_comm(m);
  bind_p2p(m);

  m.def("init", &init, py::arg("thread_level") = static_cast<int>(SHMEM_THREAD_SINGLE),
        "shmem_init_thread: starts this PE (the launcher's environment says which); returns the thread level "
        "provided");
  m.def(
      "init_unique_id",
      [](int rank, int nranks, py::bytes id, int thread_level) {
        std::string raw = id;
        shmemx_init_attr_t attr{};
        if (raw.size() != sizeof attr.uid.internal)
          throw py::value_error(tilecomm::strprintf("init_unique_id: the ID has %zu bytes, not %zu; pass what "
                                                    "unique_id() returned",
                                                    raw.size(), sizeof attr.uid.internal));
        shmemx_uniqueid_t uid;
        std::memcpy(uid.internal, raw.data(), raw.size());
        if (shmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr) != 0)
          throw py::value_error(tilecomm::strprintf("init_unique_id: rank %d of %d is not a rank", rank, nranks));
        attr.thread_level = thread_level;
        WaitingCall call;
        if (shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr) != 0)
          tilecomm::raise(tilecomm::ErrorCode::InvalidUsage,
                          "init_unique_id: joining rank %d of %d failed; the log above says why", rank, nranks);
      },
      py::arg("rank"), py::arg("nranks"), py::arg("id"), py::arg("thread_level") = static_cast<int>(SHMEM_THREAD_SINGLE),
      "Starts this PE as `rank` of `nranks` through a unique ID (one process made it with unique_id())");
  m.def(
      "unique_id",
      [] {
        shmemx_uniqueid_t uid;
        {
          Call call;
          if (shmemx_get_uniqueid(&uid) != 0)
            tilecomm::raise(tilecomm::ErrorCode::System, "unique_id: making an ID failed; the log above says why");
        }
        return py::bytes(uid.internal, sizeof uid.internal);
      },
      "A new unique ID; this process hosts its rendezvous and must live until every PE has finalized");
  m.def("finalize", &finalize,
        "Collective: destroys the communicators still alive, keeps referenced arrays as private memory, and ends "
        "this PE (shmem_finalize); a second call does nothing");
  m.def("initialized", [] { return state() == tilecomm::shmem::State::Ready; }, "Between init and finalize");
  m.def("finalized", [] { return state() == tilecomm::shmem::State::Finalized; });
}
