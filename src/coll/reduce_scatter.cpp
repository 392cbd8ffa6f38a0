// Reduce-scatter by pulling: member k's dest gets slice k (count elements)
// of the element-wise reduction of every member's source (members x count
// elements). Each member reduces its slice straight out of all members'
// sources, in member order (so the result's bits do not depend on which
// member computes it), a chunk at a time, then tells each peer it is done
// with its source. The first half of rsag (rsag.cpp), without the gather.
#include "coll/algorithm.hpp"

namespace tilecomm::coll {

void pull_reduce_scatter(Group& g) {
  const Args& a = g.args;
  const int n = g.size(), me = g.me();
  const std::size_t chunk = std::max<std::size_t>(1, (64 << 10) / a.elem);  // views stage this much at most
  g.arrive();
  g.wait_all_arrived();
  const auto* source = static_cast<const char*>(a.source) + me * a.count * a.elem;
  char* dest = static_cast<char*>(a.dest);
  for (std::size_t i = 0; i < a.count; i += chunk) {
    const std::size_t len = std::min(chunk, a.count - i), off = i * a.elem, bytes = len * a.elem;
    reduce2(a.dtype, a.op, dest + off, g.view(source + off, bytes, 0, 0), g.view(source + off, bytes, 1, 1), len);
    for (int k = 2; k < n; ++k) reduce2(a.dtype, a.op, dest + off, dest + off, g.view(source + off, bytes, k), len);
  }
  for (int k = 0; k < n; ++k)
    if (k != me) g.report_done(k);
  g.wait_readers(n - 1);
}

}  // namespace tilecomm::coll
