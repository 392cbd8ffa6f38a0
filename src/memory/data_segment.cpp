#include "memory/data_segment.hpp"

#include <link.h>
#include <unistd.h>


#include "core/error.hpp"

namespace tilecomm::memory {
namespace {

struct Found {
  AddressRange range;
  char* relro_end = nullptr;
  bool done = false;
};

int visit(dl_phdr_info* info, size_t, void* arg) {
  auto* f = static_cast<Found*>(arg);
  if (f->done) return 0;
  f->done = true;  // the first object is the executable
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    char* start = reinterpret_cast<char*>(info->dlpi_addr + ph.p_vaddr);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W)) {
      f->range.begin = start;
      f->range.end = start + ph.p_memsz;
    } else if (ph.p_type == PT_GNU_RELRO) {
      f->relro_end = start + ph.p_memsz;
    }
  }
  return 1;
}

}  // namespace

AddressRange find_executable_data() {
  Found f;
  dl_iterate_phdr(visit, &f);
  if (!f.range.begin) return {};
  const std::size_t page = page_size();
  auto down = [page](char* p) { return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(p) / page * page); };
  auto up = [page](char* p) { return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + page - 1) / page * page); };
  AddressRange r{down(f.range.begin), up(f.range.end)};
  // RELRO pages become read-only after relocation; leave them alone.
  if (f.relro_end && f.relro_end > r.begin && f.relro_end <= r.end) r.begin = up(f.relro_end);
  if (r.begin >= r.end) return {};
  return r;
}

Segment make_data_symmetric(const AddressRange& range) {
  return Segment::create("tilecomm-data", range.size(), range.begin);
}

}  // namespace tilecomm::memory
