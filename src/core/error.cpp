#include "core/error.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "core/log.hpp"
#include "core/wait.hpp"

namespace tilecomm {

constinit thread_local int detail::t_throw __attribute__((tls_model("initial-exec"))) = 0;

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidUsage: return "invalid usage";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::Transport: return "transport error";
    case ErrorCode::Remote: return "remote failure";
    case ErrorCode::System: return "system error";
  }
  return "error";
}

std::string vstrprintf(const char* fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? n : 0, '\0');
  if (n > 0) vsnprintf(out.data(), n + 1, fmt, ap);
  return out;
}

std::string strprintf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrprintf(fmt, ap);
  va_end(ap);
  return s;
}

void raise(ErrorCode code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrprintf(fmt, ap);
  va_end(ap);
  throw Error(code, s);
}

void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrprintf(fmt, ap);
  va_end(ap);
  log::write(LogLevel::Error, "fatal", "%s", s.c_str());
  fflush(stdout);
  fflush(stderr);
  _exit(1);
}

void fatal_error(const char* context, const Error& e) {
  // Inside a communicator's call (a WaitWatch is installed), the call reports
  // its own errors: the error goes up to the caller, named by the call; so
  // does a ThrowErrors scope.
  if (detail::t_watch || detail::t_throw) {
    const std::string what = e.what();
    throw Error(e.code(), what.rfind(context, 0) == 0 ? what : std::string(context) + ": " + what);
  }
  fatal("%s: %s: %s", context, to_string(e.code()), e.what());
}

std::string errno_text(int err) {
  char buf[128];
  return strerror_r(err, buf, sizeof buf);
}

}  // namespace tilecomm
