// Scratch algorithms: each member copies its data into its scratch slot
// (NOTE [scratch slots]) and raises its arrive word; the others copy or
// reduce straight out of that slot. One synchronisation per call and the
// source is free at once, for the price of a second copy: the choice for
// small calls, where the synchronisation costs more than the bytes.
#include "coll/algorithm.hpp"

namespace tilecomm::coll {

namespace {
std::size_t bytes_of(const Args& a) { return a.count * a.elem; }
}  // namespace

void scratch_broadcast(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = bytes_of(a);
  if (g.me() == a.root) {
    g.claim_scratch();
    std::memcpy(g.scratch(), a.source, bytes);
    g.arrive();
    if (a.root_dest && a.dest != a.source) std::memcpy(a.dest, a.source, bytes);
    return;
  }
  g.arrive();
  g.wait_arrival(a.root);
  g.get(a.dest, g.scratch(), bytes, a.root);
}

void scratch_fcollect(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = bytes_of(a);
  char* dest = static_cast<char*>(a.dest);
  g.claim_scratch();
  std::memcpy(g.scratch(), a.source, bytes);
  g.arrive();
  std::memmove(dest + g.me() * bytes, a.source, bytes);
  g.each_arrival([&](int k) { g.get(dest + k * bytes, g.scratch(), bytes, k); });
}

void scratch_alltoall(Group& g) {
  const Args& a = g.args;
  const std::size_t block = bytes_of(a);
  char* dest = static_cast<char*>(a.dest);
  g.claim_scratch();
  std::memcpy(g.scratch(), a.source, block * g.size());
  g.arrive();
  std::memcpy(dest + g.me() * block, static_cast<const char*>(a.source) + g.me() * block, block);
  g.each_arrival([&](int k) { g.get(dest + k * block, g.scratch() + g.me() * block, block, k); });
}

void scratch_reduce(Group& g) {
  const Args& a = g.args;
  g.claim_scratch();
  const std::size_t bytes = bytes_of(a);
  std::memcpy(g.scratch(), a.source, bytes);
  g.arrive();
  g.wait_all_arrived();
  // Every member reduces in member order, so all get the same bits.
  reduce2(a.dtype, a.op, a.dest, g.view(g.scratch(), bytes, 0, 0), g.view(g.scratch(), bytes, 1, 1), a.count);
  for (int k = 2; k < g.size(); ++k) reduce2(a.dtype, a.op, a.dest, a.dest, g.view(g.scratch(), bytes, k), a.count);
}

}  // namespace tilecomm::coll
