// The communicator's C API (<tilecomm/comm.h>): handles over tilecomm::Comm,
// errors as codes plus a per-thread message.
#include "tilecomm/comm.h"

#include <mutex>
#include <set>
#include <string>

#include "tilecomm/comm.hpp"

// A handle is never freed, so that a destroyed handle can never come back
// to life as the address of a new one: destroy releases the communicator
// and keeps the few bytes of the handle in g_dead.
struct tilecomm_comm {
  tilecomm::Comm comm;
};

namespace {

thread_local std::string t_last_error;
std::mutex g_live_mutex;                // guards g_live, and a handle while a call uses it
std::set<const tilecomm_comm*> g_live;  // handles created and not yet destroyed
// Destroyed handles, kept (never destroyed, so still reachable at exit) so
// that no new handle reuses their address.
std::set<const tilecomm_comm*>& g_dead = *new std::set<const tilecomm_comm*>;

tilecomm_result_t code_of(tilecomm::ErrorCode c) {
  switch (c) {
    case tilecomm::ErrorCode::InvalidUsage: return TILECOMM_ERROR_INVALID_USAGE;
    case tilecomm::ErrorCode::Timeout: return TILECOMM_ERROR_TIMEOUT;
    case tilecomm::ErrorCode::Transport: return TILECOMM_ERROR_TRANSPORT;
    case tilecomm::ErrorCode::Remote: return TILECOMM_ERROR_REMOTE;
    case tilecomm::ErrorCode::System: return TILECOMM_ERROR_SYSTEM;
  }
  return TILECOMM_ERROR_SYSTEM;
}

// Runs body, turning an Error into its code and message.
template <class Body>
tilecomm_result_t guarded(const char* call, Body&& body) {
  try {
    body();
    t_last_error.clear();
    return TILECOMM_SUCCESS;
  } catch (const tilecomm::Error& e) {
    t_last_error = std::string(call) + ": " + e.what();
    return code_of(e.code());
  } catch (const std::exception& e) {
    t_last_error = std::string(call) + ": " + e.what();
    return TILECOMM_ERROR_SYSTEM;
  }
}

tilecomm_result_t usage(const char* call, const std::string& what) {
  t_last_error = std::string(call) + ": " + what;
  return TILECOMM_ERROR_INVALID_USAGE;
}

tilecomm::CommOptions options_of(const tilecomm_comm_options_t* o) {
  tilecomm::CommOptions opts;
  if (o && o->window_bytes) opts.window_bytes = o->window_bytes;
  if (o && o->flag_bytes) opts.flag_bytes = o->flag_bytes;
  return opts;
}

template <class Make>
tilecomm_result_t create(const char* call, tilecomm_comm_t* out, Make&& make) {
  if (!out) return usage(call, "the output handle pointer is NULL");
  *out = nullptr;
  return guarded(call, [&] {
    auto* h = new tilecomm_comm{make()};
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.insert(h);
    *out = h;
  });
}

// Runs body(comm) on a live handle with a non-null output; the handle
// cannot be destroyed meanwhile.
template <class Out, class Body>
tilecomm_result_t query(const char* call, tilecomm_comm_t h, Out* out, Body&& body) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  if (!g_live.count(h)) return usage(call, "the communicator handle is not live (destroyed, or never created)");
  if (!out) return usage(call, "the output pointer is NULL");
  return guarded(call, [&] { *out = body(h->comm); });
}

}  // namespace

extern "C" {

tilecomm_result_t tilecomm_comm_init_all(const tilecomm_comm_options_t* options, tilecomm_comm_t* comm) {
  return create("tilecomm_comm_init_all", comm, [&] { return tilecomm::Comm::world(options_of(options)); });
}

tilecomm_result_t tilecomm_comm_init_team(shmem_team_t team, const tilecomm_comm_options_t* options,
                                          tilecomm_comm_t* comm) {
  return create("tilecomm_comm_init_team", comm, [&] { return tilecomm::Comm::from_team(team, options_of(options)); });
}

tilecomm_result_t tilecomm_comm_get_unique_id(shmemx_uniqueid_t* id) {
  if (!id) return usage("tilecomm_comm_get_unique_id", "the output pointer is NULL");
  return guarded("tilecomm_comm_get_unique_id", [&] { *id = tilecomm::Comm::unique_id(); });
}

tilecomm_result_t tilecomm_comm_init_rank(int nranks, const shmemx_uniqueid_t* id, int rank,
                                          const tilecomm_comm_options_t* options, tilecomm_comm_t* comm) {
  if (!id) return usage("tilecomm_comm_init_rank", "the unique ID pointer is NULL");
  return create("tilecomm_comm_init_rank", comm,
                [&] { return tilecomm::Comm::init_rank(nranks, *id, rank, options_of(options)); });
}

tilecomm_result_t tilecomm_comm_destroy(tilecomm_comm_t h) {
  constexpr const char* call = "tilecomm_comm_destroy";
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    if (!g_live.erase(h)) return usage(call, "the communicator handle is not live (destroyed, or never created)");
    g_dead.insert(h);
  }
  return guarded(call, [&] { h->comm.destroy(); });  // the handle stays in g_dead
}

tilecomm_result_t tilecomm_comm_rank(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_rank", h, v, [](const tilecomm::Comm& c) { return c.rank(); });
}
tilecomm_result_t tilecomm_comm_size(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_size", h, v, [](const tilecomm::Comm& c) { return c.size(); });
}
tilecomm_result_t tilecomm_comm_local_rank(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_local_rank", h, v, [](const tilecomm::Comm& c) { return c.local_rank(); });
}
tilecomm_result_t tilecomm_comm_local_size(tilecomm_comm_t h, int* v) {
  return query("tilecomm_comm_local_size", h, v, [](const tilecomm::Comm& c) { return c.local_size(); });
}
tilecomm_result_t tilecomm_comm_next_magic(tilecomm_comm_t h, unsigned int* v) {
  return query("tilecomm_comm_next_magic", h, v, [](tilecomm::Comm& c) { return c.NextMagic(); });
}

tilecomm_result_t tilecomm_comm_window(tilecomm_comm_t h, int rank, void** data, size_t* data_bytes, void** flags,
                                       size_t* flag_bytes) {
  constexpr const char* call = "tilecomm_comm_window";
  // Any output may be NULL: the caller does not want that value.
  tilecomm::Window w;
  tilecomm_result_t rc = query(call, h, &w, [&](const tilecomm::Comm& c) { return c.window(rank); });
  if (rc != TILECOMM_SUCCESS) return rc;
  if (data) *data = w.data;
  if (data_bytes) *data_bytes = w.data_bytes;
  if (flags) *flags = w.flags;
  if (flag_bytes) *flag_bytes = w.flag_bytes;
  return rc;
}

const char* tilecomm_comm_last_error(void) { return t_last_error.c_str(); }

}  // extern "C"
