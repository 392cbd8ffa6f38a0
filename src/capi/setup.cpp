// Setup, exit, queries and symmetric memory management.
#include <shmemx.h>

#include <cstring>

#include "capi/capi.hpp"
#include "core/log.hpp"
#include "shmem/launch.hpp"

using namespace tilecomm;
using namespace tilecomm::capi;

extern "C" {

void shmem_init(void) { shmem::initialize(SHMEM_THREAD_SINGLE, nullptr, "shmem_init"); }

int shmem_init_thread(int requested, int* provided) {
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
    usage_error("shmem_init_thread", "requested thread level %d is not one of SHMEM_THREAD_SINGLE..MULTIPLE",
                requested);
  // Every level up to SHMEM_THREAD_MULTIPLE is provided as requested: the
  // transports are thread-safe and internal state is locked.
  int rc = shmem::initialize(requested, nullptr, "shmem_init_thread");
  if (provided) *provided = shmem::g_thread_level;
  return rc;
}

void shmem_query_thread(int* provided) {
  shmem::rt("shmem_query_thread");
  if (provided) *provided = shmem::g_thread_level;
}

void shmem_finalize(void) { shmem::finalize(); }

void shmem_global_exit(int status) {
  if (shmem::g_state.load() != static_cast<int>(shmem::State::Ready)) {
    fflush(nullptr);
    _exit(status);
  }
  shmem::g_runtime->global_exit(status);
}

// The library's shmem_pcontrol accepts every level (0 off, 1 on, 2 on with
// flushing, others tool-defined) and does nothing: a profiling tool that
// intercepts the API defines its own (OpenSHMEM 1.5, profiling interface).
void shmem_pcontrol(int level, ...) { (void)level; }

int shmem_my_pe(void) { return shmem::rt("shmem_my_pe").my_pe(); }
int shmem_n_pes(void) { return shmem::rt("shmem_n_pes").n_pes(); }

int shmem_pe_accessible(int pe) {
  auto& r = shmem::rt("shmem_pe_accessible");
  return pe >= 0 && pe < r.n_pes();  // on this host through shared memory, else UCX
}

int shmem_addr_accessible(const void* addr, int pe) {
  auto& r = shmem::rt("shmem_addr_accessible");
  return pe >= 0 && pe < r.n_pes() && r.shm().is_symmetric(addr);
}

void* shmem_ptr(const void* dest, int pe) {
  auto& r = shmem::rt("shmem_ptr");
  if (pe < 0 || pe >= r.n_pes()) return nullptr;
  return r.shm().translate(dest, pe);
}

void shmem_info_get_version(int* major, int* minor) {
  if (major) *major = SHMEM_MAJOR_VERSION;
  if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) {
  if (name) {
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
  }
}

// ---- symmetric memory ------------------------------------------------------------

void* shmem_malloc(size_t size) { return shmem::rt("shmem_malloc").allocate("shmem_malloc", size, 16, false); }

void* shmem_malloc_with_hints(size_t size, long hints) {
  // Every hint (atomics-remote, signal-remote) is served by the same memory.
  (void)hints;
  return shmem::rt("shmem_malloc_with_hints").allocate("shmem_malloc_with_hints", size, 16, false);
}

void* shmem_calloc(size_t count, size_t size) {
  auto& r = shmem::rt("shmem_calloc");
  size_t bytes;  // 0 when count or size is 0: no action and NULL, as for shmem_malloc
  if (__builtin_mul_overflow(count, size, &bytes))
    usage_error("shmem_calloc", "count %zu times size %zu overflows size_t", count, size);
  return r.allocate("shmem_calloc", bytes, 16, true);
}

void* shmem_align(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    usage_error("shmem_align", "alignment %zu is not a power of two", alignment);
  if (alignment > memory::Segment::kBaseAlign)
    usage_error("shmem_align", "alignment %zu is larger than the %zu bytes supported", alignment,
                memory::Segment::kBaseAlign);
  return shmem::rt("shmem_align").allocate("shmem_align", size, alignment, false);
}

// realloc(NULL, n) is shmem_malloc(n) (so realloc(NULL, 0) does nothing);
// realloc(p, 0) frees p as shmem_free does and returns NULL.
void* shmem_realloc(void* ptr, size_t size) {
  auto& r = shmem::rt("shmem_realloc");
  if (!ptr) return r.allocate("shmem_realloc", size, 16, false);
  if (size == 0) {
    r.release("shmem_realloc", ptr);
    return nullptr;
  }
  return r.reallocate("shmem_realloc", ptr, size);
}

void shmem_free(void* ptr) {
  auto& r = shmem::rt("shmem_free");
  if (ptr) r.release("shmem_free", ptr);  // a null pointer: no action, no barrier
}

// ---- deprecated names ------------------------------------------------------------

void start_pes(int npes) {
  (void)npes;  // the specification ignores the argument
  shmem_init();
}
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
void* shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void* ptr) { shmem_free(ptr); }
void* shrealloc(void* ptr, size_t size) { return shmem_realloc(ptr, size); }
void* shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
// Cache management: memory is coherent on every host tilecomm runs on.
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

// ---- unique-ID launch --------------------------------------------------------------

int shmemx_get_uniqueid(shmemx_uniqueid_t* uid) {
  if (!uid) return 1;
  try {
    std::string text = shmem::make_uniqueid();
    memset(uid, 0, sizeof *uid);
    memcpy(uid->internal, text.data(), std::min(text.size(), sizeof uid->internal - 1));
    return 0;
  } catch (const Error& e) {
    TC_LOG(Error, "bootstrap", "shmemx_get_uniqueid: %s", e.what());
    return 1;
  }
}

int shmemx_set_attr_uniqueid_args(int my_pe, int n_pes, const shmemx_uniqueid_t* uid, shmemx_init_attr_t* attr) {
  if (!uid || !attr || n_pes < 1 || my_pe < 0 || my_pe >= n_pes) {
    TC_LOG(Error, "init", "shmemx_set_attr_uniqueid_args: need 0 <= my_pe (%d) < n_pes (%d) and non-NULL uid and attr",
           my_pe, n_pes);
    return 1;
  }
  memset(attr, 0, sizeof *attr);
  attr->my_pe = my_pe;
  attr->n_pes = n_pes;
  attr->uid = *uid;
  attr->thread_level = SHMEM_THREAD_SINGLE;
  return 0;
}

int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t* attr) {
  if (!(flags & SHMEMX_INIT_WITH_UNIQUEID) || !attr) {
    TC_LOG(Error, "init", "shmemx_init_attr: flags 0x%x: pass SHMEMX_INIT_WITH_UNIQUEID and an attr filled by "
           "shmemx_set_attr_uniqueid_args", flags);
    return 1;
  }
  shmem::LaunchInfo launch;
  launch.my_pe = attr->my_pe;
  launch.n_pes = attr->n_pes;
  launch.rendezvous.assign(attr->uid.internal, strnlen(attr->uid.internal, sizeof attr->uid.internal));
  return shmem::initialize(attr->thread_level, &launch, "shmemx_init_attr");
}

}  // extern "C"
