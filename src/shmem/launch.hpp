// Starting and ending the runtime: the one place that creates and destroys
// the process's Runtime, for shmem_init, shmemx_init_attr and finalize.
#pragma once

#include <string>

#include "shmem/runtime.hpp"

namespace tilecomm::shmem {

/// Creates the runtime unless it exists. `explicit_launch` (unique-ID init)
/// overrides the environment that tcrun sets. Returns 0, or ends the process
/// with a message on failure.
int initialize(int thread_level, const LaunchInfo* explicit_launch, const char* call);
/// Collective end of the runtime; idempotent; also runs from atexit.
void finalize();
/// Registers a function that finalize() calls first (the communicators mark
/// themselves left: NOTE [call board] in src/comm/board.hpp).
void at_finalize(void (*hook)());
/// A new unique ID: starts the rendezvous server in this process.
std::string make_uniqueid();

tilecomm_team* world_team();

}  // namespace tilecomm::shmem
