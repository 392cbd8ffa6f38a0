// Sleeping on a 32-bit word: the Linux futex, with a timeout.
//
// Used where a thread may wait long enough that spinning would steal a CPU
// from the thread it waits for (the SDMA engine and its waiters). Callers
// re-check their condition after every return: wake-ups may be spurious.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace tilecomm {

/// Sleeps while *word == expected, at most `timeout_ns` nanoseconds.
inline void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, long timeout_ns) {
  timespec ts{timeout_ns / 1000000000L, timeout_ns % 1000000000L};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
}

/// Wakes every thread sleeping on `word`.
inline void futex_wake_all(std::atomic<std::uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace tilecomm
