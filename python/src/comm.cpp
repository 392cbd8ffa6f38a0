// The communicator and its operators for Python (tilecomm.Comm wraps this).
//
// Operators take NumPy arrays (tilecomm.comm turns CPU tensors into array
// views, bfloat16 ones as their uint16 bits with the type said), run the
// one-call forms of <tilecomm/ops.hpp> (a repeated signature pays its
// planning once) with the GIL released, and, with async_op, start the call
// on the communicator's worker thread (ops::Start) and return a Request
// that keeps the arrays alive until it finished.
//
// Communicators are destroyed collectively: by destroy(), by finalize()
// (every one still alive, in the order they were made), never by the
// garbage collector, which may run at another point on every rank.
#include <tilecomm/comm.hpp>
#include <tilecomm/ops.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <vector>

#include "binding.hpp"

namespace tilecomm::python {

namespace {

using ops::DataType;
using ops::ReduceOp;

/// A communicator until destroy() or finalize; the Python object (PyComm) may go first (NOTE at the top).
struct Alive {
  std::optional<Comm> comm;
  const char* ended_by = nullptr;  // "destroy()" or "finalize"
};
std::vector<std::shared_ptr<Alive>> g_comms;  // alive, in the order they were made

struct PyComm {
  std::shared_ptr<Alive> alive;

  Comm& get(const char* call) {
    if (!alive->comm)
      raise(ErrorCode::InvalidUsage, "Comm.%s: the communicator was destroyed by %s; make a new one%s", call,
            alive->ended_by, alive->ended_by[0] == 'f' ? " after init" : "");
    return *alive->comm;
  }
  void destroy() { end(alive, "destroy()"); }

  static void end(std::shared_ptr<Alive> a, const char* by) {  // by value: erasing it from g_comms must not free it
    std::erase(g_comms, a);
    if (!a->comm) return;
    a->ended_by = by;
    Comm c = std::move(*a->comm);
    a->comm.reset();
    WaitingCall call;
    c.destroy();
  }
};

/// A started call and the Python objects it uses.
struct PyRequest {
  ops::Request request;
  py::list keep;
  bool done = false;

  bool test() {
    if (!done) {
      Call call;
      done = request.test();
    }
    if (done) keep = py::list();
    return done;
  }
  void wait() {
    if (!done) {
      WaitingCall call;
      request.wait();
      done = true;
    }
    keep = py::list();
  }
};

DataType data_type(const Array& a, int said, const char* arg) {
  if (said >= 0) return static_cast<DataType>(said);
  switch (a.elem) {
    case Elem::Int8: return DataType::Int8;
    case Elem::Int16: return DataType::Int16;
    case Elem::Int32: return DataType::Int32;
    case Elem::Int64: return DataType::Int64;
    case Elem::Uint8: return DataType::Uint8;
    case Elem::Uint16: return DataType::Uint16;
    case Elem::Uint32: return DataType::Uint32;
    case Elem::Uint64: return DataType::Uint64;
    case Elem::Fp16: return DataType::Fp16;
    case Elem::Bf16: return DataType::Bf16;
    case Elem::Fp32: return DataType::Fp32;
    case Elem::Fp64: return DataType::Fp64;
    case Elem::Complex64:
    case Elem::Complex128: break;
  }
  throw py::type_error(strprintf("argument '%s': the operators take integer and float arrays, not %s", arg,
                                 name_of(a.elem)));
}

/// The arguments of one operator call, checked: element types alike, counts as the operator needs.
struct Args {
  static constexpr std::size_t kMaxArrays = 5;
  Args(const char* op_, int said_) : op(op_), said(said_) {}
  const char* op;
  int said;  // a DataType the caller states (bfloat16), or -1
  std::array<Array, kMaxArrays> arrays;
  std::array<py::handle, kMaxArrays> objects;  // borrowed: the caller's arguments live through a blocking call
  std::size_t n = 0;
  DataType dtype{};

  const Array& add(py::handle obj, const char* arg, bool writable) {
    if (n == kMaxArrays) std::abort();  // a new operator with more arrays: raise kMaxArrays
    objects[n] = obj;
    arrays[n] = array_arg(obj, arg, writable);
    const Array& a = arrays[n++];
    if (n == 1) {
      dtype = data_type(a, said, arg);
    } else if (a.elem != arrays[0].elem) {
      throw py::type_error(strprintf("%s: argument '%s' holds %s, the first argument %s; every array of a call has "
                                     "one type",
                                     op, arg, name_of(a.elem), name_of(arrays[0].elem)));
    }
    return a;
  }
  /// An optional array (None: null).
  void* maybe(py::handle obj, const char* arg, bool writable, std::size_t count) {
    if (obj.is_none()) return nullptr;
    return need(add(obj, arg, writable), arg, count).data;
  }
  const Array& need(const Array& a, const char* arg, std::size_t count) const {
    if (a.count != count)
      throw py::value_error(strprintf("%s: argument '%s' has %zu elements; the call needs %zu", op, arg, a.count,
                                      count));
    return a;
  }
  /// Checks that x (`a`) splits into equal blocks, one per rank.
  void split(const Array& a, std::size_t ranks) const {
    if (a.count % ranks)
      throw py::value_error(strprintf("%s: argument 'x' has %zu elements, not a multiple of the %zu ranks", op,
                                      a.count, ranks));
  }
  /// New references to the arrays, which a started call keeps until it finished.
  py::list keep(py::handle extra = {}) const {
    py::list l;
    for (std::size_t i = 0; i < n; ++i) l.append(objects[i]);
    if (extra) l.append(extra);
    return l;
  }
};

/// Runs `body` now, or on the communicator's worker thread with async_op.
template <class Body>
py::object run(PyComm& self, bool async_op, const Args& args, Body&& body, py::handle extra = {}) {
  Comm& comm = self.get(args.op);
  if (!async_op) {
    WaitingCall call;
    body();
    return py::none();
  }
  PyRequest r;
  r.keep = args.keep(extra);
  {
    WaitingCall call;
    r.request = ops::Start(comm, std::function<void()>(std::forward<Body>(body)));
  }
  return py::cast(std::move(r));
}

ReduceOp reduce_op(int op) {
  if (op < 0 || op > static_cast<int>(ReduceOp::Avg))
    throw py::value_error(strprintf("argument 'op': %d is not a ReduceOp (SUM, PROD, MAX, MIN, AVG)", op));
  return static_cast<ReduceOp>(op);
}

}  // namespace

void comm_before_finalize() {
  while (!g_comms.empty()) PyComm::end(g_comms.front(), "finalize");
}

void bind_comm(py::module_& m) {
  py::class_<PyRequest>(m, "Request", "A call started with async_op=True")
      .def("test", &PyRequest::test, "Whether the call finished; raises its error")
      .def("wait", &PyRequest::wait, "Waits until the call finished; raises its error")
      .def_property_readonly("done", [](const PyRequest& r) { return r.done; });

  using py::arg;
  const auto no = py::arg("async_op") = false;
  const auto dt = py::arg("dtype") = -1;
  py::class_<PyComm>(m, "Comm", "The communicator (tilecomm.Comm)")
      .def(py::init([](py::object team, std::size_t window_bytes, std::size_t flag_bytes) {
             CommOptions opts;
             if (window_bytes) opts.window_bytes = window_bytes;
             if (flag_bytes) opts.flag_bytes = flag_bytes;
             shmem_team_t t = team.is_none() ? SHMEM_TEAM_WORLD : team.cast<const Team&>().get("team");
             auto c = std::make_unique<PyComm>(PyComm{std::make_shared<Alive>()});
             {
               WaitingCall call;
               c->alive->comm.emplace(Comm::from_team(t, opts));
             }
             g_comms.push_back(c->alive);
             return c;
           }),
           arg("team") = py::none(), arg("window_bytes") = 0, arg("flag_bytes") = 0)
      .def("destroy", &PyComm::destroy)
      .def_property_readonly("rank", [](PyComm& c) { return c.get("rank").rank(); })
      .def_property_readonly("size", [](PyComm& c) { return c.get("size").size(); })
      .def_property_readonly("local_rank", [](PyComm& c) { return c.get("local_rank").local_rank(); })
      .def_property_readonly("local_size", [](PyComm& c) { return c.get("local_size").local_size(); })
      .def_property_readonly("alive", [](const PyComm& c) { return c.alive->comm.has_value(); })
      .def(
          "all_gather",
          [](PyComm& self, py::handle in, py::handle out, int said, bool async_op) {
            Args a{"all_gather", said};
            const Array& i = a.add(in, "x", false);
            const std::size_t n = self.get(a.op).size();
            void* o = a.need(a.add(out, "out", true), "out", n * i.count).data;
            return run(self, async_op, a, [&c = *self.alive->comm, i, o, dt = a.dtype] {
              ops::AllGather(c, i.data, o, i.count, dt);
            });
          },
          arg("x"), arg("out"), dt, no)
      .def(
          "reduce_scatter",
          [](PyComm& self, py::handle in, py::handle out, int op, int said, bool async_op) {
            Args a{"reduce_scatter", said};
            const Array& i = a.add(in, "x", false);
            const std::size_t n = self.get(a.op).size();
            a.split(i, n);
            void* o = a.need(a.add(out, "out", true), "out", i.count / n).data;
            return run(self, async_op, a, [&c = *self.alive->comm, i, o, n, dt = a.dtype, op = reduce_op(op)] {
              ops::ReduceScatter(c, i.data, o, i.count / n, dt, op);
            });
          },
          arg("x"), arg("out"), arg("op"), dt, no)
      .def(
          "all_reduce",
          [](PyComm& self, py::handle in, py::handle out, int op, int said, bool async_op) {
            Args a{"all_reduce", said};
            const Array& i = a.add(in, "x", false);
            void* o = a.need(a.add(out, "out", true), "out", i.count).data;
            return run(self, async_op, a, [&c = *self.alive->comm, i, o, dt = a.dtype, op = reduce_op(op)] {
              ops::AllReduce(c, i.data, o, i.count, dt, op);
            });
          },
          arg("x"), arg("out"), arg("op"), dt, no)
      .def(
          "reduce",
          [](PyComm& self, py::handle in, py::handle out, int op, int root, int said, bool async_op) {
            Args a{"reduce", said};
            const Array& i = a.add(in, "x", false);
            void* o = a.maybe(out, "out", true, i.count);
            return run(self, async_op, a, [&c = *self.alive->comm, i, o, root, dt = a.dtype, op = reduce_op(op)] {
              ops::Reduce(c, i.data, o, i.count, dt, op, root);
            });
          },
          arg("x"), arg("out"), arg("op"), arg("root"), dt, no)
      .def(
          "broadcast",
          [](PyComm& self, py::handle in, py::handle out, int root, int said, bool async_op) {
            Args a{"broadcast", said};
            const Array& o = a.add(out, "out", true);
            const void* i = a.maybe(in, "x", false, o.count);
            return run(self, async_op, a, [&c = *self.alive->comm, i, o, root, dt = a.dtype] {
              ops::Broadcast(c, i, o.data, o.count, dt, root);
            });
          },
          arg("x"), arg("out"), arg("root"), dt, no)
      .def(
          "all_to_all",
          [](PyComm& self, py::handle in, py::handle out, int said, bool async_op) {
            Args a{"all_to_all", said};
            const Array& i = a.add(in, "x", false);
            const std::size_t n = self.get(a.op).size();
            a.split(i, n);
            void* o = a.need(a.add(out, "out", true), "out", i.count).data;
            return run(self, async_op, a, [&c = *self.alive->comm, i, o, n, dt = a.dtype] {
              ops::AllToAll(c, i.data, o, i.count / n, dt);
            });
          },
          arg("x"), arg("out"), dt, no)
      .def(
          "all_to_all_v",
          [](PyComm& self, py::handle in, py::handle out, py::array_t<std::uint64_t, py::array::c_style> counts,
             int said, bool async_op) {
            Args a{"all_to_all_v", said};
            const std::size_t n = self.get(a.op).size(), me = self.alive->comm->rank();
            if (static_cast<std::size_t>(counts.size()) != n * n)
              throw py::value_error(strprintf("all_to_all_v: argument 'counts' has %zu elements; it is the %zu x "
                                              "%zu matrix of what each rank sends each rank",
                                              static_cast<std::size_t>(counts.size()), n, n));
            std::vector<std::uint64_t> matrix(counts.data(), counts.data() + n * n);
            std::uint64_t sent = 0, received = 0;
            for (std::size_t r = 0; r < n; ++r) {
              sent += matrix[me * n + r];
              received += matrix[r * n + me];
            }
            const Array& i = a.need(a.add(in, "x", false), "x", sent);
            void* o = a.need(a.add(out, "out", true), "out", received).data;
            return run(
                self, async_op, a,
                [&c = *self.alive->comm, i, o, matrix = std::move(matrix), dt = a.dtype] {
                  ops::AllToAllV(c, i.data, o, matrix.data(), dt);
                },
                counts);
          },
          arg("x"), arg("out"), arg("counts"), dt, no)
      .def(
          "all_gather_add",
          [](PyComm& self, py::handle x, py::handle y, py::handle out, int said, bool async_op) {
            Args a{"all_gather_add", said};
            const Array& i = a.add(x, "a", false);
            const std::size_t n = self.get(a.op).size();
            const void* b = a.need(a.add(y, "b", false), "b", n * i.count).data;
            void* o = a.need(a.add(out, "out", true), "out", n * i.count).data;
            return run(self, async_op, a, [&c = *self.alive->comm, i, b, o, dt = a.dtype] {
              ops::AllGatherAdd(c, i.data, b, o, i.count, dt);
            });
          },
          arg("a"), arg("b"), arg("out"), dt, no)
      .def(
          "matmul_op",
          [](PyComm& self, const std::string& which, py::handle x1, py::handle x2, py::handle bias, py::handle y,
             py::handle gather_out, std::uint64_t m, std::uint64_t k, std::uint64_t n, int tiles, int moves,
             int said, bool async_op) {
            Args a{which.c_str(), said};
            const std::size_t size = self.get(a.op).size();
            const ops::MatmulShape shape{m, k, n};
            const ops::MatmulOptions options{tiles, static_cast<ops::Moves>(moves)};
            const void* p1 = a.need(a.add(x1, "x1", false), "x1", m * k).data;
            const void* p2 = a.need(a.add(x2, "x2", false), "x2", k * n).data;
            const void* pb = a.maybe(bias, "bias", false, n);
            if (which == "all_gather_matmul") {
              void* py_ = a.need(a.add(y, "out", true), "out", size * m * n).data;
              void* pg = a.maybe(gather_out, "gather_out", true, size * m * k);
              return run(self, async_op, a, [&c = *self.alive->comm, p1, p2, pb, py_, pg, shape, options, dt = a.dtype] {
                ops::AllGatherMatmul(c, p1, p2, pb, py_, pg, shape, dt, options);
              });
            }
            if (which == "matmul_reduce_scatter") {
              void* py_ = a.need(a.add(y, "out", true), "out", m / size * n).data;
              return run(self, async_op, a, [&c = *self.alive->comm, p1, p2, pb, py_, shape, options, dt = a.dtype] {
                ops::MatmulReduceScatter(c, p1, p2, pb, py_, shape, dt, options);
              });
            }
            void* py_ = a.need(a.add(y, "out", true), "out", m * n).data;
            return run(self, async_op, a, [&c = *self.alive->comm, p1, p2, pb, py_, shape, options, dt = a.dtype] {
              ops::MatmulAllReduce(c, p1, p2, pb, py_, shape, dt, options);
            });
          },
          arg("which"), arg("x1"), arg("x2"), arg("bias"), arg("out"), arg("gather_out"), arg("m"), arg("k"),
          arg("n"), arg("tiles") = 0, arg("moves") = 0, dt, no)
      .def_static(
          "matmul",
          [](py::handle x1, py::handle x2, py::handle bias, py::handle y, std::uint64_t m, std::uint64_t k,
             std::uint64_t n, int said) {
            Args a{"matmul", said};
            const void* p1 = a.need(a.add(x1, "x1", false), "x1", m * k).data;
            const void* p2 = a.need(a.add(x2, "x2", false), "x2", k * n).data;
            const void* pb = a.maybe(bias, "bias", false, n);
            void* py_ = a.need(a.add(y, "out", true), "out", m * n).data;
            WaitingCall call;
            ops::Matmul(p1, p2, pb, py_, ops::MatmulShape{m, k, n}, a.dtype);
          },
          arg("x1"), arg("x2"), arg("bias"), arg("out"), arg("m"), arg("k"), arg("n"), dt);
}

}  // namespace tilecomm::python
