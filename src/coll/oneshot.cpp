// One-shot reduction: every member reduces the whole vector straight out of
// all members' sources (in member order, so every member gets the same
// bits), then reports done to each. Reads n vectors per member but needs
// no second pass: for mid-sized vectors, below where rsag's division of the
// work pays for its extra synchronisation. Not in place: a member's dest is
// a peer's source.
#include "coll/algorithm.hpp"

namespace tilecomm::coll {

void oneshot_reduce(Group& g) {
  const Args& a = g.args;
  const int n = g.size();
  g.arrive();
  g.wait_all_arrived();
  // Chunks small enough that dest stays in the cache across the n passes.
  const std::size_t chunk = std::max<std::size_t>(1, (32 << 10) / a.elem);
  const auto* source = static_cast<const char*>(a.source);
  char* dest = static_cast<char*>(a.dest);
  for (std::size_t i = 0; i < a.count; i += chunk) {
    const std::size_t len = std::min(chunk, a.count - i), off = i * a.elem, bytes = len * a.elem;
    reduce2(a.dtype, a.op, dest + off, g.view(source + off, bytes, 0, 0), g.view(source + off, bytes, 1, 1), len);
    for (int k = 2; k < n; ++k) reduce2(a.dtype, a.op, dest + off, dest + off, g.view(source + off, bytes, k), len);
  }
  for (int k = 1; k < n; ++k) g.report_done((g.me() + k) % n);
  g.wait_readers(n - 1);
}

}  // namespace tilecomm::coll
