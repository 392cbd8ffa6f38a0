// Shared by the fuzz targets of tests/fuzz (see README.md there).
#pragma once

#include <cstdio>
#include <cstdlib>

#include "core/config.hpp"
#include "core/log.hpp"

namespace tilecomm::fuzz {

// A broken invariant: print it and crash, so that libFuzzer keeps the input.
#define FUZZ_CHECK(cond, ...)                                    \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "fuzz invariant '%s' broken: ", #cond);    \
      fprintf(stderr, __VA_ARGS__);                              \
      fprintf(stderr, "\n");                                     \
      abort();                                                   \
    }                                                            \
  } while (0)

// The parsers log what they drop; millions of inputs would only fill the terminal.
inline void silence_logs() { log::set_level(static_cast<LogLevel>(-1)); }

}  // namespace tilecomm::fuzz
