// Logging: one family, filtered by level, every line prefixed with
// host:pid:pe and the subsystem. Trace messages compile out of release builds.
#pragma once

#include "core/config.hpp"

namespace tilecomm::log {

/// Set once at init from the configuration; before that, Warn.
void set_level(LogLevel level);
/// This process's PE number for the prefix (-1 before it is known).
void set_pe(int pe);
bool enabled(LogLevel level);
void write(LogLevel level, const char* subsys, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace tilecomm::log

#define TC_LOG(level, subsys, ...)                                              \
  do {                                                                          \
    if (::tilecomm::log::enabled(::tilecomm::LogLevel::level))                  \
      ::tilecomm::log::write(::tilecomm::LogLevel::level, subsys, __VA_ARGS__); \
  } while (0)

#ifdef NDEBUG
#define TC_TRACE(subsys, ...) \
  do {                        \
  } while (0)
#else
#define TC_TRACE(subsys, ...) TC_LOG(Trace, subsys, __VA_ARGS__)
#endif
