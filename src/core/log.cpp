#include "core/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace tilecomm::log {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warn)};
std::atomic<int> g_pe{-1};
const char* const kNames[] = {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
}  // namespace

void set_level(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
void set_pe(int pe) { g_pe.store(pe, std::memory_order_relaxed); }
bool enabled(LogLevel level) { return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed); }

void write(LogLevel level, const char* subsys, const char* fmt, ...) {
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  char line[2048];
  int pe = g_pe.load(std::memory_order_relaxed);
  int n;
  if (pe >= 0)
    n = snprintf(line, sizeof line, "tilecomm[%s:%d:PE %d] %s %s: ", host, getpid(), pe,
                 kNames[static_cast<int>(level)], subsys);
  else
    n = snprintf(line, sizeof line, "tilecomm[%s:%d] %s %s: ", host, getpid(),
                 kNames[static_cast<int>(level)], subsys);
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
  va_end(ap);
  if (n > static_cast<int>(sizeof line) - 2) n = sizeof line - 2;
  line[n++] = '\n';
  // One write(2) per line so that lines of concurrent PEs do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line, n);
  (void)ignored;
}

}  // namespace tilecomm::log
