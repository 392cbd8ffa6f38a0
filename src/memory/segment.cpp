#include "memory/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/error.hpp"

namespace tilecomm::memory {

std::size_t page_size() {
  static const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}

namespace {

// Reads the page with plain loads that sanitizers do not check: the pages
// being moved may hold a sanitizer's poisoned redzones between globals.
__attribute__((no_sanitize("address", "thread"))) bool page_is_zero(const char* p, std::size_t len) {
  auto* w = reinterpret_cast<const volatile std::uint64_t*>(p);
  for (std::size_t i = 0; i < len / sizeof(std::uint64_t); ++i)
    if (w[i] != 0) return false;
  return true;
}

// Copies [addr, addr+len) into the file with raw system calls (not the
// libc wrappers a sanitizer intercepts), skipping zero pages.
void copy_into(int fd, const char* addr, std::size_t len, const char* name) {
  const std::size_t page = page_size();
  for (std::size_t off = 0; off < len; off += page) {
    if (page_is_zero(addr + off, page)) continue;
    long w = syscall(SYS_pwrite64, fd, addr + off, page, static_cast<off_t>(off));
    if (w != static_cast<long>(page))
      raise(ErrorCode::System, "cannot copy %s into shared memory: %s", name, errno_text(errno).c_str());
  }
}

}  // namespace

Segment Segment::create(const char* name, std::size_t size, void* fixed_addr) {
  Segment s;
  s.size_ = round_up(size ? size : 1, page_size());
  s.fd_ = memfd_create(name, MFD_CLOEXEC);
  if (s.fd_ < 0) raise(ErrorCode::System, "memfd_create(%s): %s", name, errno_text(errno).c_str());
  fchmod(s.fd_, 0600);
  if (ftruncate(s.fd_, static_cast<off_t>(s.size_)) != 0)
    raise(ErrorCode::System, "cannot size shared segment %s to %zu bytes: %s", name, s.size_, errno_text(errno).c_str());
  if (fixed_addr) copy_into(s.fd_, static_cast<const char*>(fixed_addr), s.size_, name);
  void* where = fixed_addr;
  if (!where) {
    // Reserve address space and place the segment at a kBaseAlign boundary,
    // so that an offset aligned within the segment is an aligned address.
    void* r = mmap(nullptr, s.size_ + kBaseAlign, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
      raise(ErrorCode::System, "cannot reserve %zu bytes of address space for %s: %s", s.size_ + kBaseAlign, name,
            errno_text(errno).c_str());
    auto start = reinterpret_cast<std::uintptr_t>(r);
    auto aligned = round_up(start, kBaseAlign);
    if (aligned > start) munmap(r, aligned - start);
    std::size_t tail = start + s.size_ + kBaseAlign - (aligned + s.size_);
    if (tail) munmap(reinterpret_cast<void*>(aligned + s.size_), tail);
    where = reinterpret_cast<void*>(aligned);
  }
  void* p = mmap(where, s.size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s.fd_, 0);
  if (p == MAP_FAILED)
    raise(ErrorCode::System, "cannot map shared segment %s (%zu bytes): %s", name, s.size_, errno_text(errno).c_str());
  s.base_ = static_cast<char*>(p);
  s.owns_mapping_ = fixed_addr == nullptr;
  return s;
}

Segment& Segment::operator=(Segment&& o) noexcept {
  std::swap(fd_, o.fd_);
  std::swap(base_, o.base_);
  std::swap(size_, o.size_);
  std::swap(owns_mapping_, o.owns_mapping_);
  return *this;
}

Segment::~Segment() {
  // A fixed mapping replaced part of the program image; it stays mapped for
  // the life of the process.
  if (base_ && owns_mapping_) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
}

SegmentKey Segment::key() const {
  struct stat st {};
  if (fstat(fd_, &st) != 0) raise(ErrorCode::System, "cannot stat a shared segment: %s", errno_text(errno).c_str());
  return SegmentKey{static_cast<std::int32_t>(getpid()), fd_, size_, st.st_dev, st.st_ino};
}

int Segment::back(std::size_t offset, std::size_t len) const {
  if (len == 0) return 0;
  std::size_t start = offset / page_size() * page_size();
  std::size_t end = round_up(offset + len, page_size());
  for (;;) {
    if (fallocate(fd_, 0, static_cast<off_t>(start), static_cast<off_t>(end - start)) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

void* Segment::map_peer(const SegmentKey& key, int peer_pe) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", key.pid, key.fd);
  // PEs that share a host key (NOTE [host key] in shmem/runtime.cpp) but
  // not a PID namespace see other processes at that pid, or none.
  const char* hint = "PEs that do not share memory (other machines, containers or PID namespaces) need different "
                     "TILECOMM_HOST_ID values";
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    raise(ErrorCode::System, "cannot open PE %d's shared segment %s: %s (PEs of one host must run as the same user, "
          "with /proc not mounted hidepid; %s)", peer_pe, path, errno_text(errno).c_str(), hint);
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_dev != key.dev || st.st_ino != key.inode) {
    close(fd);
    raise(ErrorCode::System, "%s is not PE %d's shared segment (device %llu inode %llu, expected %llu and %llu): PE %d "
          "runs in another PID namespace or on another machine; %s", path, peer_pe,
          static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino),
          static_cast<unsigned long long>(key.dev), static_cast<unsigned long long>(key.inode), peer_pe, hint);
  }
  void* p = mmap(nullptr, key.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  close(fd);
  if (p == MAP_FAILED)
    raise(ErrorCode::System, "cannot map PE %d's shared segment (%llu bytes): %s", peer_pe,
          static_cast<unsigned long long>(key.size), errno_text(err).c_str());
  return p;
}

void Segment::unmap_peer(void* base, std::size_t size) {
  if (base) munmap(base, size);
}

}  // namespace tilecomm::memory
