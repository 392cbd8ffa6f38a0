// Symmetric memory for Python: allocations of the symmetric heap, the
// registry that checks array arguments against them, and how they are freed.
//
// NOTE [freeing arrays]: shmem_free is collective, and every PE must free the
// same allocations in the same order, or later allocations stop being
// symmetric. Python frees an object when its last reference goes, which
// need not happen at the same point on every PE (a cycle waits for the
// garbage collector), so an allocation is never freed from a destructor:
// - shmem.free(array) frees it, collectively, at once;
// - an allocation whose last array went away is only marked dropped. Every
//   collective allocation call (alloc, free, collect) first lets the PEs
//   agree, by an AND over a bitmap of allocation serial numbers, on the
//   allocations dropped on every PE, and frees those, in serial order.
//   Serial numbers name the same allocation on every PE because
//   allocations are collective;
// - finalize copies every allocation still referenced to private memory
//   mapped at the same address, so an array that outlives the job keeps
//   its values and never faults; tilecomm calls on it raise.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "binding.hpp"

namespace tilecomm::python {

namespace {

struct Allocation {
  std::uint64_t serial = 0;
  std::size_t bytes = 0;
  bool dropped = false;  // its last Python reference went away
};

enum class HeapState { Running, Finalized };

struct Heap {
  std::map<std::uintptr_t, Allocation> live;  // by base address
  std::uint64_t next_serial = 0;
  HeapState state = HeapState::Running;
  std::vector<std::pair<char*, std::vector<char>>> kept;  // finalize: the contents of referenced allocations
};
Heap g_heap;

/// The memory of one allocation, as Python sees it: a flat byte buffer
/// (shmem.empty and friends view it through numpy.frombuffer).
class Memory {
 public:
  Memory(char* base, std::size_t bytes, std::uint64_t serial) : base_(base), bytes_(bytes), serial_(serial) {}
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory() {
    auto it = g_heap.live.find(reinterpret_cast<std::uintptr_t>(base_));
    if (it != g_heap.live.end() && it->second.serial == serial_) it->second.dropped = true;
  }
  char* base() const { return base_; }
  std::size_t bytes() const { return bytes_; }

 private:
  char* base_;
  std::size_t bytes_;
  std::uint64_t serial_;  // an address freed and reused is another allocation
};

/// Frees, collectively, the allocations every PE dropped (NOTE [freeing arrays]).
void free_dropped() {
  constexpr int kWords = 64;  // serials looked at per agreement
  static std::uint64_t* scratch = nullptr;  // [lo, lo_all, bitmap, bitmap_all]
  std::uint64_t lo = UINT64_MAX;
  for (auto& [base, a] : g_heap.live)
    if (a.dropped) lo = std::min(lo, a.serial);
  if (!scratch) scratch = static_cast<std::uint64_t*>(shmem_malloc(sizeof(std::uint64_t) * (2 + 2 * kWords)));
  scratch[0] = lo;
  shmem_uint64_min_reduce(SHMEM_TEAM_WORLD, &scratch[1], &scratch[0], 1);
  lo = scratch[1];
  if (lo == UINT64_MAX) return;
  std::uint64_t* mine = scratch + 2;
  std::uint64_t* all = mine + kWords;
  std::memset(mine, 0, sizeof(std::uint64_t) * kWords);
  std::vector<std::pair<std::uint64_t, char*>> order;
  for (auto& [base, a] : g_heap.live)
    if (a.dropped && a.serial - lo < 64u * kWords) {
      mine[(a.serial - lo) / 64] |= std::uint64_t{1} << ((a.serial - lo) % 64);
      order.emplace_back(a.serial, reinterpret_cast<char*>(base));
    }
  shmem_uint64_and_reduce(SHMEM_TEAM_WORLD, all, mine, kWords);
  std::sort(order.begin(), order.end());
  for (auto [serial, base] : order)
    if (all[(serial - lo) / 64] >> ((serial - lo) % 64) & 1) {
      g_heap.live.erase(reinterpret_cast<std::uintptr_t>(base));
      shmem_free(base);
    }
}

void require_running(const char* call) {
  if (g_heap.state == HeapState::Finalized)
    throw py::value_error(strprintf("%s: tilecomm was finalized; symmetric arrays live only between init and "
                                    "finalize",
                                    call));
}

}  // namespace

void require_symmetric(const void* p, std::size_t bytes, const char* arg) {
  require_running(arg);
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto it = g_heap.live.upper_bound(addr);
  if (it == g_heap.live.begin() || addr - std::prev(it)->first >= std::max<std::size_t>(std::prev(it)->second.bytes, 1))
    throw py::value_error(strprintf("argument '%s' is not symmetric: its memory is not an array of the symmetric "
                                    "heap (make it with tilecomm.shmem.empty/zeros/ones/full/array, or "
                                    "tilecomm.torch.empty/zeros), or it was freed",
                                    arg));
  const auto& [base, a] = *std::prev(it);
  if (addr + bytes > base + a.bytes)
    throw py::value_error(strprintf("argument '%s': %zu bytes from offset %zu run past the end of its symmetric "
                                    "allocation (%zu bytes)",
                                    arg, bytes, static_cast<std::size_t>(addr - base), a.bytes));
}

void heap_before_finalize() {
  // Referenced allocations keep their contents past the unmapping (NOTE [freeing arrays]).
  for (auto& [base, a] : g_heap.live) {
    if (a.dropped) continue;
    char* p = reinterpret_cast<char*>(base);
    g_heap.kept.emplace_back(p, std::vector<char>(p, p + a.bytes));
  }
  g_heap.live.clear();
  g_heap.state = HeapState::Finalized;
}

void heap_after_finalize() {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  for (auto& [p, bytes] : g_heap.kept) {
    const auto lo = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
    const auto hi = (reinterpret_cast<std::uintptr_t>(p) + bytes.size() + page - 1) & ~(page - 1);
    for (auto at = lo; at < hi; at += page) {  // page by page: a page another allocation shares may be back already
      void* m = mmap(reinterpret_cast<void*>(at), page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (m != MAP_FAILED && m != reinterpret_cast<void*>(at)) munmap(m, page);  // an old kernel placed it elsewhere
    }
    std::memcpy(p, bytes.data(), bytes.size());
  }
  g_heap.kept.clear();
}

void bind_heap(py::module_& m) {
  py::class_<Memory>(m, "SymmetricMemory", py::buffer_protocol(),
                     "One allocation of the symmetric heap, as a flat byte buffer (tilecomm.shmem's arrays view it)")
      .def_property_readonly("address", [](const Memory& s) { return reinterpret_cast<std::uintptr_t>(s.base()); })
      .def_property_readonly("nbytes", &Memory::bytes)
      .def_buffer([](Memory& s) {
        return py::buffer_info(s.base(), 1, py::format_descriptor<std::uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(s.bytes())}, {1});
      });

  m.def(
      "alloc",
      [](std::size_t bytes, std::size_t align) {
        require_running("alloc");
        if (align == 0 || (align & (align - 1)))
          throw py::value_error(strprintf("alloc: alignment %zu is not a power of two", align));
        char* p;
        {
          WaitingCall call;
          free_dropped();
          p = static_cast<char*>(shmem_align(align, std::max<std::size_t>(bytes, 1)));
        }
        if (!p)
          throw py::value_error(strprintf("alloc: the symmetric heap has no %zu free bytes; free arrays "
                                          "(tilecomm.shmem.free) or raise SHMEM_SYMMETRIC_SIZE",
                                          bytes));
        const std::uint64_t serial = g_heap.next_serial++;
        g_heap.live[reinterpret_cast<std::uintptr_t>(p)] = Allocation{serial, bytes, false};
        return std::make_unique<Memory>(p, bytes, serial);
      },
      py::arg("nbytes"), py::arg("align") = 64,
      "Collective: a new allocation of the symmetric heap (shmem_align); frees the dropped ones first");

  m.def(
      "free",
      [](py::handle array) {
        const Array a = symmetric_arg(array, "array", false);
        auto it = g_heap.live.find(reinterpret_cast<std::uintptr_t>(a.data));
        if (it == g_heap.live.end())
          throw py::value_error("free: argument 'array' is a view inside an allocation; free the array the "
                                "allocation call returned");
        g_heap.live.erase(it);
        WaitingCall call;
        free_dropped();
        shmem_free(a.data);
      },
      py::arg("array"),
      "Collective: frees the allocation `array` starts (every PE frees the same one); later tilecomm calls on it "
      "raise");

  m.def(
      "free_dropped",
      [] {
        require_running("free_dropped");
        WaitingCall call;
        free_dropped();
      },
      "Collective: frees the allocations every PE dropped (NOTE [freeing arrays])");

  m.def("heap_live", [] {
    std::size_t n = 0, dropped = 0;
    for (auto& [base, a] : g_heap.live) (a.dropped ? dropped : n)++;
    return py::make_tuple(n, dropped);
  }, "(referenced, dropped) allocations of this PE not yet freed");
}

}  // namespace tilecomm::python
