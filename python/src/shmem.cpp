// OpenSHMEM 1.5 on NumPy arrays (tilecomm.shmem; names follow shmem4py).
//
// Each bound function checks its arguments (binding.hpp: array_arg,
// symmetric_arg), picks the C type of the arrays' element type (dispatch,
// below) and calls the typed interface of <shmem.h> through its C++
// overloads, or a sized one (putmem, iput32, broadcastmem...) where the
// element type does not matter. An element type the operation does not take
// raises TypeError naming the argument and the types it takes.
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <complex>
#include <string>
#include <tuple>
#include <vector>

#include "binding.hpp"

namespace tilecomm::python {

namespace {

// ---- element types ----------------------------------------------------------------

template <class... Ts>
struct Types {};
template <class... A, class... B>
constexpr Types<A..., B...> operator+(Types<A...>, Types<B...>) {
  return {};
}
template <class T>
struct Tag {
  using type = T;
};
struct Fp16Bits;  // no C type: only moved as bytes
struct Bf16Bits;

/// The C type of each Elem, in Elem's order.
using ByElem = Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, Fp16Bits, Bf16Bits,
                     float, double, std::complex<float>, std::complex<double>>;
template <class T, class... Ts>
constexpr Elem index_in(Types<Ts...>) {
  int i = 0, at = -1;
  ((std::is_same_v<T, Ts> ? at = i : 0, ++i), ...);
  return static_cast<Elem>(at);
}
template <class T>
constexpr Elem elem_v = index_in<T>(ByElem{});

// The type tables of the specification, for the element types NumPy has.
constexpr Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t> kInts;
constexpr auto kReals = kInts + Types<float, double>{};
constexpr auto kNumbers = kReals + Types<std::complex<float>, std::complex<double>>{};
constexpr Types<int32_t, int64_t, uint32_t, uint64_t> kAmo;  // standard and bitwise AMOs (tables 6, 8)
constexpr auto kAmoExt = kAmo + Types<float, double>{};      // fetch, set, swap (table 7)
constexpr Types<int16_t, int32_t, int64_t, uint16_t, uint32_t, uint64_t> kSync;  // table 10

template <class... Ts>
[[noreturn]] void refuse(const char* call, const char* arg, Elem e, Types<Ts...>) {
  std::string allowed;
  ((allowed += (allowed.empty() ? "" : ", ") + std::string(name_of(elem_v<Ts>))), ...);
  throw py::type_error(
      strprintf("%s: argument '%s' has element type %s; %s takes %s", call, arg, name_of(e), call, allowed.c_str()));
}

/// f(Tag<T>{}) for the C type T of `e`, one of `allowed`; TypeError naming `arg` otherwise.
template <class... Ts, class F>
auto dispatch(Types<Ts...> allowed, Elem e, const char* call, const char* arg, F&& f) {
  using R = std::common_type_t<decltype(f(Tag<Ts>{}))...>;
  if constexpr (std::is_void_v<R>) {
    if (!((e == elem_v<Ts> && (f(Tag<Ts>{}), true)) || ...)) refuse(call, arg, e, allowed);
  } else {
    std::optional<R> r;
    if (!((e == elem_v<Ts> && (r.emplace(f(Tag<Ts>{})), true)) || ...)) refuse(call, arg, e, allowed);
    return std::move(*r);
  }
}

/// A Python number as T: TypeError naming `arg` when it is not one T holds
/// (an int for integers, in range; any real or complex number for the others).
template <class T>
T value_arg(py::handle v, const char* call, const char* arg) {
  py::object index;  // a NumPy integer as a Python int (pybind11 takes unsigned ones only so)
  if (std::is_integral_v<T> && !PyLong_Check(v.ptr()) && PyIndex_Check(v.ptr())) {
    index = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!index) throw py::error_already_set();
    v = index;
  }
  py::detail::make_caster<T> c;
  if (!c.load(v, !std::is_integral_v<T>))
    throw py::type_error(strprintf("%s: argument '%s' (%s %s) is not a value of the element type %s", call, arg,
                                   Py_TYPE(v.ptr())->tp_name, std::string(py::repr(v)).c_str(), name_of(elem_v<T>)));
  return py::detail::cast_op<T>(std::move(c));
}

/// Lifts an overload set of <shmem.h> (its C++ generic interface) into a callable.
#define TC_LIFT(fn) [](auto... a) { return fn(a...); }

template <bool Waits>
using Scope = std::conditional_t<Waits, WaitingCall, Call>;

// ---- arguments ------------------------------------------------------------------------

/// A communication context as Python holds it (tilecomm.shmem.Ctx).
struct Ctx {
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  bool predefined = false;
  shmem_ctx_t get() const {
    if (ctx == SHMEM_CTX_INVALID)
      throw py::value_error("argument 'ctx': the context was destroyed (or is CTX_INVALID)");
    return ctx;
  }
};

/// A Ctx or Team argument; None is the default one. Taken as a handle: pybind11's
/// conversion of None to a pointer costs a second overload pass (~0.5 us).
template <class T>
const T& handle_arg(py::handle h, const char* arg) {
  py::detail::make_caster<T> c;
  if (!c.load(h, false))
    throw py::type_error(strprintf("argument '%s' must be a tilecomm.shmem.%s or None, not %s", arg,
                                   std::is_same_v<T, Ctx> ? "Ctx" : "Team", Py_TYPE(h.ptr())->tp_name));
  return py::detail::cast_op<const T&>(c);
}
shmem_ctx_t ctx_of(py::handle c) { return c.is_none() ? SHMEM_CTX_DEFAULT : handle_arg<Ctx>(c, "ctx").get(); }
shmem_team_t team_of(py::handle t, const char* arg = "team") {
  return t.is_none() ? SHMEM_TEAM_WORLD : handle_arg<Team>(t, arg).get(arg);
}

void same_type(const char* call, const Array& a, const char* an, const Array& b, const char* bn) {
  if (a.elem != b.elem)
    throw py::type_error(strprintf("%s: argument '%s' has element type %s and argument '%s' %s; they must match", call,
                                   an, name_of(a.elem), bn, name_of(b.elem)));
}

/// Elements a run of n with stride st spans, and the elements of a count-long array such a run reaches.
std::size_t span(std::size_t n, std::size_t st) { return n ? (n - 1) * st + 1 : 0; }
std::size_t reach(std::size_t count, std::size_t st) { return count ? (count - 1) / st + 1 : 0; }

void require_len(const char* call, const Array& a, const char* arg, std::size_t need) {
  if (a.count < need)
    throw py::value_error(
        strprintf("%s: argument '%s' has %zu elements; the call needs %zu", call, arg, a.count, need));
}

std::size_t stride_arg(std::ptrdiff_t st, const char* call, const char* arg) {
  if (st < 1) throw py::value_error(strprintf("%s: stride '%s' is %td; it must be at least 1", call, arg, st));
  return static_cast<std::size_t>(st);
}

/// A count argument: None is `otherwise`.
std::size_t size_arg(py::handle size, std::size_t otherwise, const char* call) {
  if (size.is_none()) return otherwise;
  py::detail::make_caster<std::size_t> c;
  if (!c.load(size, false))
    throw py::type_error(strprintf("%s: argument 'size' (%s) must be a count of elements (an int >= 0) or None", call,
                                   std::string(py::repr(size)).c_str()));
  return c;
}

/// `size` elements (default: all `source` reaches), checked against both arrays.
std::size_t transfer_size(const char* call, py::handle size, const Array& t, const Array& s, std::size_t tst = 1,
                          std::size_t sst = 1, const char* tn = "target", const char* sn = "source") {
  same_type(call, t, tn, s, sn);
  std::size_t n = size_arg(size, reach(s.count, sst), call);
  require_len(call, s, sn, span(n, sst));
  require_len(call, t, tn, span(n, tst));
  return n;
}

/// The element an AMO, wait or lock addresses: the first of `obj`.
Array first_elem(py::handle obj, const char* call, const char* arg, bool writable) {
  Array a = symmetric_arg(obj, arg, writable);
  if (a.count == 0) throw py::value_error(strprintf("%s: argument '%s' is empty; pass a 1-element array", call, arg));
  a.count = 1;
  return a;
}

template <class T>
T* first_as(py::handle obj, const char* call, const char* arg, bool writable) {
  Array a = first_elem(obj, call, arg, writable);
  if (a.elem != elem_v<T>) refuse(call, arg, a.elem, Types<T>{});
  return reinterpret_cast<T*>(a.data);
}

/// A comparison: a CMP_* int, or '==', '!=', '>', '>=', '<', '<=', 'eq', 'ne', 'gt', 'ge', 'lt', 'le'.
int cmp_arg(py::handle cmp, const char* call) {
  if (py::isinstance<py::str>(cmp)) {
    static const std::pair<const char*, int> kNames[] = {
        {"==", SHMEM_CMP_EQ}, {"!=", SHMEM_CMP_NE}, {">", SHMEM_CMP_GT},  {">=", SHMEM_CMP_GE},
        {"<", SHMEM_CMP_LT},  {"<=", SHMEM_CMP_LE}, {"eq", SHMEM_CMP_EQ}, {"ne", SHMEM_CMP_NE},
        {"gt", SHMEM_CMP_GT}, {"ge", SHMEM_CMP_GE}, {"lt", SHMEM_CMP_LT}, {"le", SHMEM_CMP_LE}};
    std::string s = cmp.cast<std::string>();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    for (auto [name, v] : kNames)
      if (s == name) return v;
  } else if (py::isinstance<py::int_>(cmp)) {
    int v = cmp.cast<int>();
    if (v >= SHMEM_CMP_EQ && v <= SHMEM_CMP_LE) return v;
  }
  throw py::value_error(
      strprintf("%s: argument 'cmp' (%s) is not a comparison: use CMP_EQ/NE/GT/GE/LT/LE or "
                "'==', '!=', '>', '>=', '<', '<='",
                call, std::string(py::repr(cmp)).c_str()));
}

/// A contiguous array of `n` T from any sequence (values, status), kept alive by the holder.
template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> seq_arg(py::handle obj, std::size_t n, const char* call,
                                                                  const char* arg) {
  auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(obj);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(strprintf("%s: argument '%s' is not a sequence of numbers", call, arg));
  }
  if (static_cast<std::size_t>(a.size()) < n)
    throw py::value_error(strprintf("%s: argument '%s' has %zd elements; the call needs %zu", call, arg, a.size(), n));
  return a;
}

[[noreturn]] void refused(const char* call, int rc) {
  raise(ErrorCode::InvalidUsage, "%s: the library returned %d (failure)", call, rc);
}
void check_rc(const char* call, int rc) {
  if (rc != 0) refused(call, rc);
}

// ---- RMA ------------------------------------------------------------------------------

using MemFn = void (*)(shmem_ctx_t, void*, const void*, std::size_t, int);

/// put, get and their _nbi forms: the remote side (target of a put, source of a get) is symmetric.
template <bool Waits>
auto rma(const char* call, MemFn fn, bool put) {
  return [=](py::handle target, py::handle source, int pe, py::handle size, py::handle ctx) {
    Array t = put ? symmetric_arg(target, "target", true) : array_arg(target, "target", true);
    Array s = put ? array_arg(source, "source", false) : symmetric_arg(source, "source", false);
    std::size_t bytes = transfer_size(call, size, t, s) * size_of(t.elem);
    shmem_ctx_t c = ctx_of(ctx);
    Scope<Waits> scope;
    fn(c, t.data, s.data, bytes, pe);
  };
}

using StridedFn = void (*)(shmem_ctx_t, void*, const void*, std::ptrdiff_t, std::ptrdiff_t, std::size_t, int);
constexpr StridedFn kIput[] = {shmem_ctx_iput8, shmem_ctx_iput16, shmem_ctx_iput32, shmem_ctx_iput64,
                               shmem_ctx_iput128};
constexpr StridedFn kIget[] = {shmem_ctx_iget8, shmem_ctx_iget16, shmem_ctx_iget32, shmem_ctx_iget64,
                               shmem_ctx_iget128};

auto strided(const char* call, const StridedFn* fns, bool put) {
  return [=](py::handle target, py::handle source, std::ptrdiff_t tst, std::ptrdiff_t sst, py::handle size, int pe,
             py::handle ctx) {
    Array t = put ? symmetric_arg(target, "target", true) : array_arg(target, "target", true);
    Array s = put ? array_arg(source, "source", false) : symmetric_arg(source, "source", false);
    std::size_t n = transfer_size(call, size, t, s, stride_arg(tst, call, "tst"), stride_arg(sst, call, "sst"));
    shmem_ctx_t c = ctx_of(ctx);
    StridedFn fn = fns[__builtin_ctzl(size_of(t.elem))];
    WaitingCall scope;
    fn(c, t.data, s.data, tst, sst, n, pe);
  };
}

using SignalFn = void (*)(shmem_ctx_t, void*, const void*, std::size_t, uint64_t*, uint64_t, int, int);

auto put_signal(const char* call, SignalFn fn) {
  return [=](py::handle dest, py::handle source, py::handle sig_addr, uint64_t signal, int sig_op, int pe,
             py::handle size, py::handle ctx) {
    Array d = symmetric_arg(dest, "dest", true);
    Array s = array_arg(source, "source", false);
    std::size_t bytes = transfer_size(call, size, d, s, 1, 1, "dest") * size_of(d.elem);
    auto* sig = first_as<uint64_t>(sig_addr, call, "sig_addr", true);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
      throw py::value_error(strprintf("%s: argument 'sig_op' is %d; use SIGNAL_SET or SIGNAL_ADD", call, sig_op));
    shmem_ctx_t c = ctx_of(ctx);
    WaitingCall scope;
    fn(c, d.data, s.data, bytes, sig, signal, sig_op, pe);
  };
}

// ---- AMOs -------------------------------------------------------------------------------

template <class, class T>
using As = T;
struct Value {
  static constexpr const char* name = "value";
};
struct Cond {
  static constexpr const char* name = "cond";
};

/// AMOs with the operands Operand... (Python numbers of target's type):
/// op(ctx, target, operands..., pe), and the _nbi forms op(ctx, fetch, target, operands..., pe).
template <class... Operand>
struct AmoDef {
  template <class Allowed, class Op>
  static auto blocking(const char* call, const char* arg, Allowed allowed, Op op, bool writes) {
    return [=](py::handle target, As<Operand, py::handle>... operands, int pe, py::handle ctx) {
      Array t = first_elem(target, call, arg, writes);
      shmem_ctx_t c = ctx_of(ctx);
      return dispatch(allowed, t.elem, call, arg, [&](auto tag) -> py::object {
        using T = typename decltype(tag)::type;
        std::tuple<As<Operand, T>...> v{value_arg<T>(operands, call, Operand::name)...};
        auto run = [&] {
          return std::apply([&](auto... x) { return op(c, reinterpret_cast<T*>(t.data), x..., pe); }, v);
        };
        if constexpr (std::is_void_v<decltype(run())>) {
          WaitingCall scope;
          run();
          return py::none();
        } else {
          T r;
          {
            WaitingCall scope;
            r = run();
          }
          return py::cast(r);
        }
      });
    };
  }

  template <class Allowed, class Op>
  static auto nbi(const char* call, const char* arg, Allowed allowed, Op op, bool writes) {
    return [=](py::handle fetch, py::handle target, As<Operand, py::handle>... operands, int pe, py::handle ctx) {
      Array f = array_arg(fetch, "fetch", true);
      Array t = first_elem(target, call, arg, writes);
      same_type(call, f, "fetch", t, arg);
      require_len(call, f, "fetch", 1);
      shmem_ctx_t c = ctx_of(ctx);
      dispatch(allowed, t.elem, call, arg, [&](auto tag) {
        using T = typename decltype(tag)::type;
        std::tuple<As<Operand, T>...> v{value_arg<T>(operands, call, Operand::name)...};
        Call scope;
        std::apply([&](auto... x) { op(c, reinterpret_cast<T*>(f.data), reinterpret_cast<T*>(t.data), x..., pe); }, v);
      });
    };
  }
};

// ---- point-to-point synchronization -------------------------------------------------------

enum class Set { All, Any, Some };

/// wait_until_{all,any,some}[_vector] and test_{all,any,some}[_vector]: op(ivars, n, [indices,] status, cmp, value(s)).
template <Set S, bool Vector, bool Waits, class Op>
auto sync_set(const char* call, Op op) {
  return [=](py::handle ivars, py::handle cmp, py::handle value, py::handle status) -> py::object {
    Array a = symmetric_arg(ivars, "ivars", false);
    const int c = cmp_arg(cmp, call);
    std::optional<py::array_t<int, py::array::c_style | py::array::forcecast>> st;
    if (!status.is_none()) st = seq_arg<int>(status, a.count, call, "status");
    const int* sp = st ? st->data() : nullptr;
    return dispatch(kSync, a.elem, call, "ivars", [&](auto tag) -> py::object {
      using T = typename decltype(tag)::type;
      T* p = reinterpret_cast<T*>(a.data);
      auto operand = [&] {
        if constexpr (Vector)
          return seq_arg<T>(value, a.count, call, "cmp_values");
        else
          return value_arg<T>(value, call, "value");
      }();
      auto v = [&] {
        if constexpr (Vector)
          return operand.mutable_data();
        else
          return operand;
      }();
      std::vector<std::size_t> indices(S == Set::Some ? a.count : 0);
      std::size_t r = 0;
      {
        Scope<Waits> scope;
        if constexpr (S == Set::Some)
          r = op(p, a.count, indices.data(), sp, c, v);
        else if constexpr (std::is_void_v<decltype(op(p, a.count, sp, c, v))>)
          op(p, a.count, sp, c, v);
        else
          r = static_cast<std::size_t>(op(p, a.count, sp, c, v));
      }
      if constexpr (S == Set::All) {
        return Waits ? py::object(py::none()) : py::object(py::bool_(r != 0));
      } else if constexpr (S == Set::Any) {
        return r < a.count ? py::object(py::int_(r)) : py::object(py::none());
      } else {
        indices.resize(r);
        return py::cast(indices);
      }
    });
  };
}

// ---- collectives --------------------------------------------------------------------------

/// and_reduce ... prod_reduce: op(team, target, source, n) on the types `allowed`.
template <class Allowed, class Op>
auto reduction(const char* call, Allowed allowed, Op op) {
  return [=](py::handle target, py::handle source, py::handle size, py::handle team) {
    Array t = symmetric_arg(target, "target", true);
    Array s = symmetric_arg(source, "source", false);
    std::size_t n = transfer_size(call, size, t, s);
    shmem_team_t tm = team_of(team);
    dispatch(allowed, t.elem, call, "target", [&](auto tag) {
      using T = typename decltype(tag)::type;
      int rc;
      {
        WaitingCall scope;
        rc = op(tm, reinterpret_cast<T*>(t.data), reinterpret_cast<const T*>(s.data), n);
      }
      check_rc(call, rc);
    });
  };
}

int team_size(shmem_team_t team) {
  Call scope;
  return shmem_team_n_pes(team);
}

/// fcollect and alltoall: target (and, for alltoall, source) hold `per` times the team's size.
using CollFn = int (*)(shmem_team_t, void*, const void*, std::size_t);
auto gather(const char* call, CollFn fn, bool split_source) {
  return [=](py::handle target, py::handle source, py::handle size, py::handle team) {
    Array t = symmetric_arg(target, "target", true);
    Array s = symmetric_arg(source, "source", false);
    same_type(call, t, "target", s, "source");
    shmem_team_t tm = team_of(team);
    const std::size_t npes = static_cast<std::size_t>(team_size(tm));
    std::size_t n = size_arg(size, split_source ? s.count / npes : s.count, call);
    require_len(call, s, "source", split_source ? n * npes : n);
    require_len(call, t, "target", n * npes);
    int rc;
    {
      WaitingCall scope;
      rc = fn(tm, t.data, s.data, n * size_of(t.elem));
    }
    check_rc(call, rc);
  };
}

// ---- teams and contexts -------------------------------------------------------------------

shmem_team_config_t config_arg(const py::object& config, long* mask) {
  shmem_team_config_t c{};
  *mask = 0;
  if (config.is_none()) return c;
  for (auto [k, v] : config.cast<py::dict>()) {
    if (k.cast<std::string>() != "num_contexts")
      throw py::value_error(
          strprintf("config: unknown key '%s'; the one key is 'num_contexts'", k.cast<std::string>().c_str()));
    c.num_contexts = v.cast<int>();
    *mask |= SHMEM_TEAM_NUM_CONTEXTS;
  }
  return c;
}

py::object new_team(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return py::none();
  return py::cast(Team{t, t == SHMEM_TEAM_WORLD || t == SHMEM_TEAM_SHARED});
}

Ctx create_ctx(long options, py::handle team) {
  const bool on_team = !team.is_none();
  shmem_team_t t = team_of(team);
  shmem_ctx_t c = SHMEM_CTX_INVALID;
  int rc;
  {
    Call scope;
    rc = on_team ? shmem_team_create_ctx(t, options, &c) : shmem_ctx_create(options, &c);
  }
  if (rc != 0) refused(on_team ? "Team.create_ctx" : "ctx_create", rc);
  return Ctx{c, false};
}

void destroy_ctx(Ctx& c) {
  if (c.predefined || c.ctx == SHMEM_CTX_INVALID) return;
  Call scope;
  shmem_ctx_destroy(c.ctx);
  c.ctx = SHMEM_CTX_INVALID;
}

void destroy_team(Team& t) {
  if (t.predefined || t.team == SHMEM_TEAM_INVALID) return;
  WaitingCall scope;
  shmem_team_destroy(t.team);
  t.team = SHMEM_TEAM_INVALID;
}

void bind_teams(py::module_& m) {
  using namespace py::literals;
  py::class_<Team>(m, "Team", "An OpenSHMEM team; split teams are destroyed by destroy() or leaving a with block")
      .def(
          "my_pe",
          [](const Team& t) {
            Call s;
            return shmem_team_my_pe(t.get("self"));
          },
          "This PE's number in the team")
      .def(
          "n_pes",
          [](const Team& t) {
            Call s;
            return shmem_team_n_pes(t.get("self"));
          },
          "The team's size")
      .def(
          "get_config",
          [](const Team& t) {
            shmem_team_config_t c{};
            Call s;
            check_rc("Team.get_config", shmem_team_get_config(t.get("self"), SHMEM_TEAM_NUM_CONTEXTS, &c));
            return py::dict("num_contexts"_a = c.num_contexts);
          },
          "The team's configuration: {'num_contexts': n}")
      .def(
          "translate_pe",
          [](const Team& t, std::optional<int> pe, py::handle team) {
            Call s;
            shmem_team_t src = t.get("self");
            return shmem_team_translate_pe(src, pe.value_or(shmem_team_my_pe(src)), team_of(team));
          },
          "pe"_a = py::none(), "team"_a = py::none(),
          "PE `pe` of this team (default: this PE) as numbered in `team` (default TEAM_WORLD); -1 if not a member")
      .def(
          "split_strided",
          [](const Team& t, int start, int stride, std::optional<int> size, py::object config) {
            shmem_team_t parent = t.get("self");
            if (!size) {
              const int n = team_size(parent);
              size = stride > 0 && start < n ? (n - 1 - start) / stride + 1 : 0;
            }
            long mask;
            shmem_team_config_t c = config_arg(config, &mask);
            shmem_team_t out = SHMEM_TEAM_INVALID;
            int rc;
            {
              WaitingCall s;
              rc = shmem_team_split_strided(parent, start, stride, *size, &c, mask, &out);
            }
            check_rc("Team.split_strided", rc);
            return new_team(out);
          },
          "start"_a = 0, "stride"_a = 1, "size"_a = py::none(), "config"_a = py::none(),
          "Collective over this team: the team of PEs start, start+stride, ... (size of them, default as many as "
          "fit); None on the PEs not in it")
      .def(
          "split_2d",
          [](const Team& t, int xrange, py::object xaxis_config, py::object yaxis_config) {
            long xm, ym;
            shmem_team_config_t xc = config_arg(xaxis_config, &xm), yc = config_arg(yaxis_config, &ym);
            shmem_team_t parent = t.get("self"), x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
            int rc;
            {
              WaitingCall s;
              rc = shmem_team_split_2d(parent, xrange, &xc, xm, &x, &yc, ym, &y);
            }
            check_rc("Team.split_2d", rc);
            return py::make_tuple(new_team(x), new_team(y));
          },
          "xrange"_a, "xaxis_config"_a = py::none(), "yaxis_config"_a = py::none(),
          "Collective over this team: (xteam, yteam), the row and column of this PE in a grid xrange wide")
      .def("destroy", &destroy_team, "Collective: destroys a split team (TEAM_WORLD/TEAM_SHARED: nothing)")
      .def(
          "sync",
          [](const Team& t) {
            WaitingCall s;
            check_rc("Team.sync", shmem_team_sync(t.get("self")));
          },
          "Collective: waits for every PE of the team (shmem_team_sync)")
      .def(
          "create_ctx", [](py::handle t, long options) { return create_ctx(options, t); }, "options"_a = 0,
          "A new context on this team")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](Team& t, py::args) { destroy_team(t); })
      .def("__bool__", [](const Team& t) { return t.team != SHMEM_TEAM_INVALID; })
      .def("__eq__", [](const Team& a, const Team& b) { return a.team == b.team; })
      .def("__hash__", [](const Team& t) { return std::hash<void*>()(t.team); });
  m.attr("TEAM_WORLD") = py::cast(Team{SHMEM_TEAM_WORLD, true});
  m.attr("TEAM_SHARED") = py::cast(Team{SHMEM_TEAM_SHARED, true});
  m.attr("TEAM_INVALID") = py::cast(Team{SHMEM_TEAM_INVALID, true});

  py::class_<Ctx>(m, "Ctx", "An OpenSHMEM communication context; destroy() or a with block ends it")
      .def_static("create", &create_ctx, "options"_a = 0, "team"_a = py::none(),
                  "A new context (CTX_SERIALIZED | CTX_PRIVATE | CTX_NOSTORE options) on `team` (default world)")
      .def("destroy", &destroy_ctx, "Destroys the context (CTX_DEFAULT: nothing); quiet() it first")
      .def(
          "get_team",
          [](const Ctx& c) {
            shmem_team_t t = SHMEM_TEAM_INVALID;
            Call s;
            check_rc("Ctx.get_team", shmem_ctx_get_team(c.get(), &t));
            return Team{t, true};
          },
          "The context's team (not owned: destroying it is the creator's business)")
      .def(
          "quiet",
          [](const Ctx& c) {
            WaitingCall s;
            shmem_ctx_quiet(c.get());
          },
          "Completes the context's outstanding operations")
      .def(
          "fence",
          [](const Ctx& c) {
            WaitingCall s;
            shmem_ctx_fence(c.get());
          },
          "Orders the context's operations to each PE")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](Ctx& c, py::args) { destroy_ctx(c); })
      .def("__bool__", [](const Ctx& c) { return c.ctx != SHMEM_CTX_INVALID; })
      .def("__eq__", [](const Ctx& a, const Ctx& b) { return a.ctx == b.ctx; })
      .def("__hash__", [](const Ctx& c) { return std::hash<void*>()(c.ctx); });
  m.attr("CTX_DEFAULT") = py::cast(Ctx{SHMEM_CTX_DEFAULT, true});
  m.attr("CTX_INVALID") = py::cast(Ctx{SHMEM_CTX_INVALID, true});
  m.def("ctx_create", &create_ctx, "options"_a = 0, "team"_a = py::none(),
        "A new context (options: CTX_* or-ed) on `team` (default TEAM_WORLD); Ctx.create");
}

}  // namespace

void bind_shmem(py::module_& m) {
  using namespace py::literals;
  bind_teams(m);
  const auto pe = "pe"_a;
  const auto size = "size"_a = py::none(), ctx = "ctx"_a = py::none(), team = "team"_a = py::none();

  for (auto [name, v] : {std::pair{"CMP_EQ", SHMEM_CMP_EQ},
                         {"CMP_NE", SHMEM_CMP_NE},
                         {"CMP_GT", SHMEM_CMP_GT},
                         {"CMP_GE", SHMEM_CMP_GE},
                         {"CMP_LT", SHMEM_CMP_LT},
                         {"CMP_LE", SHMEM_CMP_LE},
                         {"SIGNAL_SET", SHMEM_SIGNAL_SET},
                         {"SIGNAL_ADD", SHMEM_SIGNAL_ADD},
                         {"THREAD_SINGLE", SHMEM_THREAD_SINGLE},
                         {"THREAD_FUNNELED", SHMEM_THREAD_FUNNELED},
                         {"THREAD_SERIALIZED", SHMEM_THREAD_SERIALIZED},
                         {"THREAD_MULTIPLE", SHMEM_THREAD_MULTIPLE},
                         {"CTX_SERIALIZED", int(SHMEM_CTX_SERIALIZED)},
                         {"CTX_PRIVATE", int(SHMEM_CTX_PRIVATE)},
                         {"CTX_NOSTORE", int(SHMEM_CTX_NOSTORE)},
                         {"MAJOR_VERSION", SHMEM_MAJOR_VERSION},
                         {"MINOR_VERSION", SHMEM_MINOR_VERSION}})
    m.attr(name) = v;
  m.attr("VENDOR_STRING") = SHMEM_VENDOR_STRING;

  // ---- setup and queries
  m.def(
      "my_pe",
      [] {
        Call s;
        return shmem_my_pe();
      },
      "This PE's number in the job");
  m.def(
      "n_pes",
      [] {
        Call s;
        return shmem_n_pes();
      },
      "The number of PEs in the job");
  m.def(
      "pe_accessible",
      [](int pe) {
        Call s;
        return shmem_pe_accessible(pe) != 0;
      },
      pe, "Whether PE `pe` is reachable by RMA and AMOs");
  m.def(
      "addr_accessible",
      [](py::handle a, int pe) {
        Array x = array_arg(a, "addr", false);
        Call s;
        return shmem_addr_accessible(x.data, pe) != 0;
      },
      "addr"_a, pe, "Whether array `addr` is symmetric and reachable on PE `pe`");
  m.def(
      "ptr",
      [](py::handle target, int pe) -> py::object {
        Array t = symmetric_arg(target, "target", false);
        void* p;
        {
          Call s;
          p = shmem_ptr(t.data, pe);
        }
        if (!p) return py::none();
        auto a = py::reinterpret_borrow<py::array>(target);
        std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim()), strides(a.strides(), a.strides() + a.ndim());
        return py::array(a.dtype(), shape, strides, p, target);
      },
      "target"_a, pe,
      "An array viewing `target` on PE `pe` by loads and stores, or None when that PE's memory is not mapped here; "
      "valid until finalize");
  m.def(
      "info_get_version",
      [] {
        int major = 0, minor = 0;
        shmem_info_get_version(&major, &minor);
        return py::make_tuple(major, minor);
      },
      "(major, minor) of the OpenSHMEM specification implemented");
  m.def(
      "info_get_name",
      [] {
        char name[SHMEM_MAX_NAME_LEN] = {};
        shmem_info_get_name(name);
        return std::string(name);
      },
      "The vendor's name of the library");
  m.def(
      "query_thread",
      [] {
        int provided = 0;
        Call s;
        shmem_query_thread(&provided);
        return provided;
      },
      "The thread level init provided");
  m.def(
      "global_exit",
      [](int status) {
        WaitingCall s;
        shmem_global_exit(status);
      },
      "status"_a = 0, "Ends every PE of the job, the job's exit status being `status`; never returns");
  m.def(
      "pcontrol", [](int level) { shmem_pcontrol(level); }, "level"_a = 1, "Profiling level (does nothing)");

  // ---- RMA
  m.def("put", rma<true>("put", shmem_ctx_putmem, true), "target"_a, "source"_a, pe, size, ctx,
        "Copies `size` elements (default all) of local `source` to symmetric `target` on PE `pe`");
  m.def("get", rma<true>("get", shmem_ctx_getmem, false), "target"_a, "source"_a, pe, size, ctx,
        "Copies `size` elements (default all) of symmetric `source` on PE `pe` to local `target`");
  m.def("put_nbi", rma<false>("put_nbi", shmem_ctx_putmem_nbi, true), "target"_a, "source"_a, pe, size, ctx,
        "put that may complete later: at quiet; `source` must not change until then");
  m.def("get_nbi", rma<false>("get_nbi", shmem_ctx_getmem_nbi, false), "target"_a, "source"_a, pe, size, ctx,
        "get that may complete later: `target` holds the data after quiet");
  m.def("iput", strided("iput", kIput, true), "target"_a, "source"_a, "tst"_a = 1, "sst"_a = 1, size, pe, ctx,
        "Strided put: source[i*sst] to target[i*tst] on PE `pe` for i < size (default: all source reaches)");
  m.def("iget", strided("iget", kIget, false), "target"_a, "source"_a, "tst"_a = 1, "sst"_a = 1, size, pe, ctx,
        "Strided get: source[i*sst] on PE `pe` to target[i*tst] for i < size (default: all source reaches)");
  m.def(
      "p",
      [](py::handle target, py::handle value, int pe, py::handle ctx) {
        Array t = first_elem(target, "p", "target", true);
        shmem_ctx_t c = ctx_of(ctx);
        dispatch(kNumbers, t.elem, "p", "target", [&](auto tag) {
          auto v = value_arg<typename decltype(tag)::type>(value, "p", "value");
          Call s;
          shmem_ctx_putmem(c, t.data, &v, sizeof v, pe);
        });
      },
      "target"_a, "value"_a, pe, ctx, "Stores `value` into target's first element on PE `pe`");
  m.def(
      "g",
      [](py::handle source, int pe, py::handle ctx) {
        Array a = first_elem(source, "g", "source", false);
        shmem_ctx_t c = ctx_of(ctx);
        return dispatch(kNumbers, a.elem, "g", "source", [&](auto tag) {
          typename decltype(tag)::type v;
          {
            WaitingCall s;
            shmem_ctx_getmem(c, &v, a.data, sizeof v, pe);
          }
          return py::cast(v);
        });
      },
      "source"_a, pe, ctx, "The value of source's first element on PE `pe`");

  // ---- AMOs: on the first element of `target` (pass a[i:i+1] for element i)
  using Amo0 = AmoDef<>;
  using Amo1 = AmoDef<Value>;
  using Amo2 = AmoDef<Cond, Value>;
  const auto tgt = "target"_a, val = "value"_a, fetch = "fetch"_a;
  m.def("atomic_fetch", Amo0::blocking("atomic_fetch", "source", kAmoExt, TC_LIFT(shmem_atomic_fetch), false),
        "source"_a, pe, ctx, "Atomically reads source's first element on PE `pe`");
  m.def("atomic_set", Amo1::blocking("atomic_set", "target", kAmoExt, TC_LIFT(shmem_atomic_set), true), tgt, val, pe,
        ctx, "Atomically stores `value` on PE `pe`");
  m.def("atomic_swap", Amo1::blocking("atomic_swap", "target", kAmoExt, TC_LIFT(shmem_atomic_swap), true), tgt, val, pe,
        ctx, "Atomically stores `value` on PE `pe`; returns the old value");
  m.def("atomic_compare_swap",
        Amo2::blocking("atomic_compare_swap", "target", kAmo, TC_LIFT(shmem_atomic_compare_swap), true), tgt, "cond"_a,
        val, pe, ctx, "Atomically stores `value` on PE `pe` if the element equals `cond`; returns the old value");
  m.def("atomic_fetch_inc", Amo0::blocking("atomic_fetch_inc", "target", kAmo, TC_LIFT(shmem_atomic_fetch_inc), true),
        tgt, pe, ctx, "Atomically adds 1 on PE `pe`; returns the old value");
  m.def("atomic_inc", Amo0::blocking("atomic_inc", "target", kAmo, TC_LIFT(shmem_atomic_inc), true), tgt, pe, ctx,
        "Atomically adds 1 on PE `pe`");
  m.def("atomic_fetch_add", Amo1::blocking("atomic_fetch_add", "target", kAmo, TC_LIFT(shmem_atomic_fetch_add), true),
        tgt, val, pe, ctx, "Atomically adds `value` on PE `pe`; returns the old value");
  m.def("atomic_add", Amo1::blocking("atomic_add", "target", kAmo, TC_LIFT(shmem_atomic_add), true), tgt, val, pe, ctx,
        "Atomically adds `value` on PE `pe`");
  m.def("atomic_fetch_and", Amo1::blocking("atomic_fetch_and", "target", kAmo, TC_LIFT(shmem_atomic_fetch_and), true),
        tgt, val, pe, ctx, "Atomic bitwise AND with `value` on PE `pe`; returns the old value");
  m.def("atomic_and", Amo1::blocking("atomic_and", "target", kAmo, TC_LIFT(shmem_atomic_and), true), tgt, val, pe, ctx,
        "Atomic bitwise AND with `value` on PE `pe`");
  m.def("atomic_fetch_or", Amo1::blocking("atomic_fetch_or", "target", kAmo, TC_LIFT(shmem_atomic_fetch_or), true), tgt,
        val, pe, ctx, "Atomic bitwise OR with `value` on PE `pe`; returns the old value");
  m.def("atomic_or", Amo1::blocking("atomic_or", "target", kAmo, TC_LIFT(shmem_atomic_or), true), tgt, val, pe, ctx,
        "Atomic bitwise OR with `value` on PE `pe`");
  m.def("atomic_fetch_xor", Amo1::blocking("atomic_fetch_xor", "target", kAmo, TC_LIFT(shmem_atomic_fetch_xor), true),
        tgt, val, pe, ctx, "Atomic bitwise XOR with `value` on PE `pe`; returns the old value");
  m.def("atomic_xor", Amo1::blocking("atomic_xor", "target", kAmo, TC_LIFT(shmem_atomic_xor), true), tgt, val, pe, ctx,
        "Atomic bitwise XOR with `value` on PE `pe`");
  m.def("atomic_fetch_nbi", Amo0::nbi("atomic_fetch_nbi", "source", kAmoExt, TC_LIFT(shmem_atomic_fetch_nbi), false),
        fetch, "source"_a, pe, ctx, "atomic_fetch into local `fetch[0]`, complete at quiet");
  m.def("atomic_swap_nbi", Amo1::nbi("atomic_swap_nbi", "target", kAmoExt, TC_LIFT(shmem_atomic_swap_nbi), true), fetch,
        tgt, val, pe, ctx, "atomic_swap, the old value to local `fetch[0]` at quiet");
  m.def("atomic_compare_swap_nbi",
        Amo2::nbi("atomic_compare_swap_nbi", "target", kAmo, TC_LIFT(shmem_atomic_compare_swap_nbi), true), fetch, tgt,
        "cond"_a, val, pe, ctx, "atomic_compare_swap, the old value to local `fetch[0]` at quiet");
  m.def("atomic_fetch_inc_nbi",
        Amo0::nbi("atomic_fetch_inc_nbi", "target", kAmo, TC_LIFT(shmem_atomic_fetch_inc_nbi), true), fetch, tgt, pe,
        ctx, "atomic_fetch_inc, the old value to local `fetch[0]` at quiet");
  m.def("atomic_fetch_add_nbi",
        Amo1::nbi("atomic_fetch_add_nbi", "target", kAmo, TC_LIFT(shmem_atomic_fetch_add_nbi), true), fetch, tgt, val,
        pe, ctx, "atomic_fetch_add, the old value to local `fetch[0]` at quiet");
  m.def("atomic_fetch_and_nbi",
        Amo1::nbi("atomic_fetch_and_nbi", "target", kAmo, TC_LIFT(shmem_atomic_fetch_and_nbi), true), fetch, tgt, val,
        pe, ctx, "atomic_fetch_and, the old value to local `fetch[0]` at quiet");
  m.def("atomic_fetch_or_nbi",
        Amo1::nbi("atomic_fetch_or_nbi", "target", kAmo, TC_LIFT(shmem_atomic_fetch_or_nbi), true), fetch, tgt, val, pe,
        ctx, "atomic_fetch_or, the old value to local `fetch[0]` at quiet");
  m.def("atomic_fetch_xor_nbi",
        Amo1::nbi("atomic_fetch_xor_nbi", "target", kAmo, TC_LIFT(shmem_atomic_fetch_xor_nbi), true), fetch, tgt, val,
        pe, ctx, "atomic_fetch_xor, the old value to local `fetch[0]` at quiet");

  // ---- signals
  const auto sig = "sig_addr"_a;
  m.def("put_signal", put_signal("put_signal", shmem_ctx_putmem_signal), "dest"_a, "source"_a, sig, "signal"_a,
        "sig_op"_a, pe, size, ctx,
        "put, then updates the uint64 `sig_addr[0]` on PE `pe` by `signal` (SIGNAL_SET or SIGNAL_ADD)");
  m.def("put_signal_nbi", put_signal("put_signal_nbi", shmem_ctx_putmem_signal_nbi), "dest"_a, "source"_a, sig,
        "signal"_a, "sig_op"_a, pe, size, ctx, "put_signal that may complete later: at quiet");
  m.def(
      "signal_fetch",
      [](py::handle a) {
        auto* p = first_as<uint64_t>(a, "signal_fetch", "sig_addr", false);
        Call s;
        return shmem_signal_fetch(p);
      },
      sig, "The value of this PE's signal `sig_addr[0]`");
  m.def(
      "signal_wait_until",
      [](py::handle a, py::handle cmp, uint64_t value) {
        auto* p = first_as<uint64_t>(a, "signal_wait_until", "sig_addr", false);
        const int c = cmp_arg(cmp, "signal_wait_until");
        WaitingCall s;
        return shmem_signal_wait_until(p, c, value);
      },
      sig, "cmp"_a, "value"_a, "Waits until `sig_addr[0] cmp value` holds; returns the signal's value");

  // ---- point-to-point synchronization: on this PE's symmetric `ivars`
  const auto iv = "ivars"_a, cmp = "cmp"_a;
  const auto status = "status"_a = py::none();
  m.def(
      "wait_until",
      [](py::handle ivar, py::handle cmp, py::handle value) {
        Array a = first_elem(ivar, "wait_until", "ivar", false);
        const int c = cmp_arg(cmp, "wait_until");
        dispatch(kSync, a.elem, "wait_until", "ivar", [&](auto tag) {
          using T = typename decltype(tag)::type;
          T v = value_arg<T>(value, "wait_until", "value");
          WaitingCall s;
          shmem_wait_until(reinterpret_cast<T*>(a.data), c, v);
        });
      },
      "ivar"_a, cmp, "value"_a, "Waits until `ivar[0] cmp value` holds");
  m.def(
      "test",
      [](py::handle ivar, py::handle cmp, py::handle value) {
        Array a = first_elem(ivar, "test", "ivar", false);
        const int c = cmp_arg(cmp, "test");
        return dispatch(kSync, a.elem, "test", "ivar", [&](auto tag) {
          using T = typename decltype(tag)::type;
          T v = value_arg<T>(value, "test", "value");
          Call s;
          return shmem_test(reinterpret_cast<T*>(a.data), c, v) != 0;
        });
      },
      "ivar"_a, cmp, "value"_a, "Whether `ivar[0] cmp value` holds");
  const auto v1 = "value"_a, vn = "cmp_values"_a;
  m.def("wait_until_all", sync_set<Set::All, false, true>("wait_until_all", TC_LIFT(shmem_wait_until_all)), iv, cmp, v1,
        status, "Waits until `ivars[i] cmp value` for every i not excluded by a nonzero status[i]");
  m.def("wait_until_any", sync_set<Set::Any, false, true>("wait_until_any", TC_LIFT(shmem_wait_until_any)), iv, cmp, v1,
        status, "Waits until `ivars[i] cmp value` for some i; returns one such i (None if all are excluded)");
  m.def("wait_until_some", sync_set<Set::Some, false, true>("wait_until_some", TC_LIFT(shmem_wait_until_some)), iv, cmp,
        v1, status, "Waits until `ivars[i] cmp value` for some i; returns the list of every such i");
  m.def("wait_until_all_vector",
        sync_set<Set::All, true, true>("wait_until_all_vector", TC_LIFT(shmem_wait_until_all_vector)), iv, cmp, vn,
        status, "wait_until_all comparing ivars[i] with cmp_values[i]");
  m.def("wait_until_any_vector",
        sync_set<Set::Any, true, true>("wait_until_any_vector", TC_LIFT(shmem_wait_until_any_vector)), iv, cmp, vn,
        status, "wait_until_any comparing ivars[i] with cmp_values[i]");
  m.def("wait_until_some_vector",
        sync_set<Set::Some, true, true>("wait_until_some_vector", TC_LIFT(shmem_wait_until_some_vector)), iv, cmp, vn,
        status, "wait_until_some comparing ivars[i] with cmp_values[i]");
  m.def("test_all", sync_set<Set::All, false, false>("test_all", TC_LIFT(shmem_test_all)), iv, cmp, v1, status,
        "Whether `ivars[i] cmp value` for every i not excluded by a nonzero status[i]");
  m.def("test_any", sync_set<Set::Any, false, false>("test_any", TC_LIFT(shmem_test_any)), iv, cmp, v1, status,
        "One i with `ivars[i] cmp value`, or None");
  m.def("test_some", sync_set<Set::Some, false, false>("test_some", TC_LIFT(shmem_test_some)), iv, cmp, v1, status,
        "The list of every i with `ivars[i] cmp value`");
  m.def("test_all_vector", sync_set<Set::All, true, false>("test_all_vector", TC_LIFT(shmem_test_all_vector)), iv, cmp,
        vn, status, "test_all comparing ivars[i] with cmp_values[i]");
  m.def("test_any_vector", sync_set<Set::Any, true, false>("test_any_vector", TC_LIFT(shmem_test_any_vector)), iv, cmp,
        vn, status, "test_any comparing ivars[i] with cmp_values[i]");
  m.def("test_some_vector", sync_set<Set::Some, true, false>("test_some_vector", TC_LIFT(shmem_test_some_vector)), iv,
        cmp, vn, status, "test_some comparing ivars[i] with cmp_values[i]");

  // ---- ordering and synchronization
  m.def(
      "quiet",
      [](py::handle c) {
        auto x = ctx_of(c);
        WaitingCall s;
        shmem_ctx_quiet(x);
      },
      ctx, "Completes this PE's outstanding puts, AMOs and nbi operations on `ctx`");
  m.def(
      "fence",
      [](py::handle c) {
        auto x = ctx_of(c);
        WaitingCall s;
        shmem_ctx_fence(x);
      },
      ctx, "Orders this PE's operations on `ctx` to each PE: those before arrive before those after");
  m.def(
      "barrier_all",
      [] {
        WaitingCall s;
        shmem_barrier_all();
      },
      "Collective: quiet, then waits for every PE");
  m.def(
      "sync_all",
      [] {
        WaitingCall s;
        shmem_sync_all();
      },
      "Collective: waits for every PE (no quiet)");
  m.def(
      "sync",
      [](py::handle t) {
        auto x = team_of(t);
        WaitingCall s;
        check_rc("sync", shmem_team_sync(x));
      },
      team, "Collective over `team` (default TEAM_WORLD): waits for its every PE");

  // ---- locks: a symmetric int64 (C long) element, zero when free
  m.def(
      "set_lock",
      [](py::handle l) {
        auto* p = first_as<long>(l, "set_lock", "lock", true);
        WaitingCall s;
        shmem_set_lock(p);
      },
      "lock"_a, "Waits for the lock and takes it");
  m.def(
      "test_lock",
      [](py::handle l) {
        auto* p = first_as<long>(l, "test_lock", "lock", true);
        Call s;
        return shmem_test_lock(p) != 0;
      },
      "lock"_a, "Takes the lock if free, returning False; True (and not taken) if another PE holds it");
  m.def(
      "clear_lock",
      [](py::handle l) {
        auto* p = first_as<long>(l, "clear_lock", "lock", true);
        WaitingCall s;
        shmem_clear_lock(p);
      },
      "lock"_a, "quiet, then releases the lock");

  // ---- collectives over `team` (default TEAM_WORLD); both arrays symmetric
  m.def(
      "broadcast",
      [](py::handle target, py::handle source, int root, py::handle size, py::handle team) {
        Array t = symmetric_arg(target, "target", true);
        Array s = symmetric_arg(source, "source", false);
        std::size_t bytes = transfer_size("broadcast", size, t, s) * size_of(t.elem);
        shmem_team_t tm = team_of(team);
        int rc;
        {
          WaitingCall sc;
          rc = shmem_broadcastmem(tm, t.data, s.data, bytes, root);
        }
        check_rc("broadcast", rc);
      },
      "target"_a, "source"_a, "root"_a, size, team,
      "Copies `size` elements of source on team PE `root` to every target");
  m.def(
      "collect",
      [](py::handle target, py::handle source, py::handle size, py::handle team) {
        Array t = symmetric_arg(target, "target", true);
        Array s = symmetric_arg(source, "source", false);
        std::size_t n = transfer_size("collect", size, t, s);
        shmem_team_t tm = team_of(team);
        int rc;
        {
          WaitingCall sc;
          rc = shmem_collectmem(tm, t.data, s.data, n * size_of(t.elem));
        }
        check_rc("collect", rc);
      },
      "target"_a, "source"_a, size, team,
      "Concatenates each PE's `size` elements (sizes may differ) in team order into every target");
  m.def("fcollect", gather("fcollect", shmem_fcollectmem, false), "target"_a, "source"_a, size, team,
        "Concatenates each PE's `size` elements (the same on all) in team order into every target");
  m.def("alltoall", gather("alltoall", shmem_alltoallmem, true), "target"_a, "source"_a, size, team,
        "Block j of `size` elements of source goes to block i of target on team PE j (i: this PE)");
  m.def(
      "alltoalls",
      [](py::handle target, py::handle source, std::ptrdiff_t tst, std::ptrdiff_t sst, py::handle size,
         py::handle team) {
        const char* call = "alltoalls";
        Array t = symmetric_arg(target, "target", true);
        Array s = symmetric_arg(source, "source", false);
        same_type(call, t, "target", s, "source");
        const std::size_t ts = stride_arg(tst, call, "tst"), ss = stride_arg(sst, call, "sst");
        shmem_team_t tm = team_of(team);
        const std::size_t npes = static_cast<std::size_t>(team_size(tm));
        std::size_t n = size_arg(size, reach(s.count, ss) / npes, call);
        require_len(call, s, "source", span(n * npes, ss));
        require_len(call, t, "target", span(n * npes, ts));
        // Data movement only: an unsigned integer of the element's width (complex128: contiguous only).
        if (size_of(t.elem) == 16 && (tst != 1 || sst != 1))
          throw py::type_error("alltoalls: 16-byte elements (complex128) move only with strides 1; use alltoall");
        const std::size_t w = std::min<std::size_t>(size_of(t.elem), 8), k = size_of(t.elem) / w;
        constexpr Types<uint8_t, uint16_t, uint32_t, uint64_t> kWords;
        const Elem word = w == 1 ? Elem::Uint8 : w == 2 ? Elem::Uint16 : w == 4 ? Elem::Uint32 : Elem::Uint64;
        dispatch(kWords, word, call, "target", [&](auto tag) {
          using T = typename decltype(tag)::type;
          int rc;
          {
            WaitingCall sc;
            rc = shmem_alltoalls(tm, reinterpret_cast<T*>(t.data), reinterpret_cast<const T*>(s.data), tst, sst, n * k);
          }
          check_rc(call, rc);
        });
      },
      "target"_a, "source"_a, "tst"_a = 1, "sst"_a = 1, size, team,
      "alltoall on the elements source[k*sst] and target[k*tst] (element strides)");

  const auto red = [&](const char* name, auto r, const char* doc) {
    m.def(name, r, "target"_a, "source"_a, "size"_a = py::none(), "team"_a = py::none(), doc);
  };
  red("and_reduce", reduction("and_reduce", kInts, TC_LIFT(shmem_and_reduce)),
      "Bitwise AND over the team's PEs, element by element (integers)");
  red("or_reduce", reduction("or_reduce", kInts, TC_LIFT(shmem_or_reduce)),
      "Bitwise OR over the team's PEs (integers)");
  red("xor_reduce", reduction("xor_reduce", kInts, TC_LIFT(shmem_xor_reduce)),
      "Bitwise XOR over the team's PEs (integers)");
  red("max_reduce", reduction("max_reduce", kReals, TC_LIFT(shmem_max_reduce)),
      "Maximum over the team's PEs (integers, floats)");
  red("min_reduce", reduction("min_reduce", kReals, TC_LIFT(shmem_min_reduce)),
      "Minimum over the team's PEs (integers, floats)");
  red("sum_reduce", reduction("sum_reduce", kNumbers, TC_LIFT(shmem_sum_reduce)),
      "Sum over the team's PEs (integers, floats, complex)");
  red("prod_reduce", reduction("prod_reduce", kNumbers, TC_LIFT(shmem_prod_reduce)),
      "Product over the team's PEs (integers, floats, complex)");
}

}  // namespace tilecomm::python
