// Scratch algorithms: each member copies its data into its scratch slot
// (NOTE [scratch slots]) and raises its arrive word; the others copy or
// reduce straight out of that slot. One synchronisation per call and the
// source is free at once, for the price of a second copy: the choice for
// small calls, where the synchronisation costs more than the bytes. Data
// of up to 56 bytes per member (a broadcast's: 120) go in the call's
// tagged record instead, where every member is mapped (NOTE [tagged lines]).
#include "coll/algorithm.hpp"

namespace tilecomm::coll {

namespace {
std::size_t bytes_of(const Args& a) { return a.count * a.elem; }
// My n bytes of this call into my tagged record or my scratch slot, once it is free.
void publish(Group& g, const void* src, std::size_t n, bool line) {
  if (line) {
    g.claim_line(n);
    g.write_line(src, n);
  } else {
    g.claim_scratch();
    std::memcpy(g.scratch(), src, n);
  }
}
}  // namespace

void scratch_broadcast(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = bytes_of(a);
  const bool line = g.fits_line(bytes, true);
  if (g.me() == a.root) {
    publish(g, a.source, bytes, line);
    g.arrive();
    if (a.root_dest && a.dest != a.source) std::memcpy(a.dest, a.source, bytes);
    return;
  }
  g.arrive();
  if (line) {
    g.line_ring(bytes);
    g.wait_line(a.root);
    std::memcpy(a.dest, g.line_of(a.root), bytes);
    return;
  }
  g.wait_arrival(a.root);
  g.get(a.dest, g.scratch(), bytes, a.root);
}

void scratch_fcollect(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = bytes_of(a);
  char* dest = static_cast<char*>(a.dest);
  const bool line = g.fits_line(bytes);
  publish(g, a.source, bytes, line);
  g.arrive();
  std::memmove(dest + g.me() * bytes, a.source, bytes);
  if (line) g.each_line([&](int k) { std::memcpy(dest + k * bytes, g.line_of(k), bytes); });
  else g.each_arrival([&](int k) { g.get(dest + k * bytes, g.scratch(), bytes, k); });
}

void scratch_alltoall(Group& g) {
  const Args& a = g.args;
  const std::size_t block = bytes_of(a);
  char* dest = static_cast<char*>(a.dest);
  const bool line = g.fits_line(block * g.size());
  publish(g, a.source, block * g.size(), line);
  g.arrive();
  std::memcpy(dest + g.me() * block, static_cast<const char*>(a.source) + g.me() * block, block);
  if (line) g.each_line([&](int k) { std::memcpy(dest + k * block, g.line_of(k) + g.me() * block, block); });
  else g.each_arrival([&](int k) { g.get(dest + k * block, g.scratch() + g.me() * block, block, k); });
}

void scratch_reduce(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = bytes_of(a);
  const bool line = g.fits_line(bytes);
  publish(g, a.source, bytes, line);
  g.arrive();
  if (line) g.each_line([](int) {});
  else g.wait_all_arrived();
  // Every member reduces in member order, so all get the same bits. My part
  // comes from my source, not from the copy I published: a peer's read may
  // have taken those lines from this CPU's cache, and reading them back is
  // a trip between CPUs (2 PEs, AMD EPYC: 8 B 0.39-0.46 against 0.51-0.56
  // us, 64-256 B 0.52-0.62 against 0.58-0.70). In place, dest holds a
  // partial result by the time members 2 on add theirs: they read the copy.
  auto part = [&](int k, int buffer) -> const char* {
    if (k == g.me() && (a.dest != a.source || k < 2)) return static_cast<const char*>(a.source);
    return line ? g.line_of(k) : g.view(g.scratch(), bytes, k, buffer);
  };
  reduce2(a.dtype, a.op, a.dest, part(0, 0), part(1, 1), a.count);
  for (int k = 2; k < g.size(); ++k) reduce2(a.dtype, a.op, a.dest, a.dest, part(k, 0), a.count);
}

}  // namespace tilecomm::coll
