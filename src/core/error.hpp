// Errors: one exception type with a code, and the job-ending fatal path.
//
// C++ layers throw tilecomm::Error. The C API cannot throw, and the
// OpenSHMEM specification gives most calls no error return, so a usage error
// there ends the job through fatal(): the message is logged with the PE, the
// process exits non-zero, and the launcher (or the rendezvous server) ends
// the other PEs naming this one.
#pragma once

#include <tilecomm/error.hpp>

#include <cstdarg>
#include <string>

namespace tilecomm {

/// printf-style std::string.
std::string strprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string vstrprintf(const char* fmt, va_list ap);

/// Throws Error(code, formatted message).
[[noreturn]] void raise(ErrorCode code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// Logs the message as an error of this PE and ends the process with
/// status 1 (no atexit handlers: a PE in trouble must not wait for peers).
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Ends the process after a caught Error, with `context` (a call name) first.
[[noreturn]] void fatal_error(const char* context, const Error& e);

namespace detail {
/// ThrowErrors scopes alive on the calling thread.
extern constinit thread_local int t_throw __attribute__((tls_model("initial-exec")));
}  // namespace detail

/// While one lives on a thread, the runtime's usage errors, failed waits
/// and fatal_error there throw tilecomm::Error instead of ending the
/// process: a face whose callers handle errors (the Python package) wraps
/// each of its calls in one. Errors that leave the runtime unusable (a
/// failed start, a broken transport) still end the process.
class ThrowErrors {
 public:
  ThrowErrors() noexcept { ++detail::t_throw; }
  ~ThrowErrors() { --detail::t_throw; }
  ThrowErrors(const ThrowErrors&) = delete;
  ThrowErrors& operator=(const ThrowErrors&) = delete;
};

/// errno text for messages.
std::string errno_text(int err);

}  // namespace tilecomm

#define TC_LIKELY(x) __builtin_expect(!!(x), 1)
#define TC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/// Checks an invariant of the caller's input; throws InvalidUsage naming both
/// operands and the source line.
#define TC_CHECK_OP(a, op, b, what)                                                   \
  do {                                                                                \
    if (TC_UNLIKELY(!((a)op(b))))                                                     \
      ::tilecomm::raise(::tilecomm::ErrorCode::InvalidUsage, "%s: %s %s %s (%lld vs %lld) [%s:%d]", \
                        what, #a, #op, #b, (long long)(a), (long long)(b), __FILE__, __LINE__); \
  } while (0)
