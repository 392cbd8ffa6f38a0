// Binomial-tree broadcast: members are numbered from the root (rel = member
// - root, modulo n); member rel > 0 pulls the data from its parent, rel
// without its highest set bit, once the parent raised its arrive word (its
// copy is complete), then raises its own for its children, rel + 2^k for
// every 2^k > rel. No member's buffer is read by more than log2(n) others,
// where pull has n - 1 readers on the root's: the form for many members,
// and the inter-host step of a broadcast across hosts, in log2(hosts)
// rounds. Each member waits for its children's reports before it returns,
// so its dest stays valid while they read it.
#include "coll/algorithm.hpp"

#include <bit>

namespace tilecomm::coll {

void tree_broadcast(Group& g) {
  const Args& a = g.args;
  const int n = g.size();
  const unsigned rel = static_cast<unsigned>((g.me() - a.root + n) % n);
  const std::size_t bytes = a.count * a.elem;
  const bool stream = streaming(bytes);
  if (rel == 0) {
    if (a.root_dest && a.dest != a.source) copy(a.dest, a.source, bytes, stream);
  } else {
    const unsigned parent_rel = rel - std::bit_floor(rel);
    const int parent = static_cast<int>((parent_rel + a.root) % n);
    g.wait_arrival(parent);
    // The root serves its source (its dest may not hold the data), the others their dest.
    g.get(a.dest, parent_rel == 0 ? a.source : a.dest, bytes, parent, stream);
    g.report_done(parent);
  }
  g.arrive();
  int children = 0;
  for (unsigned step = rel ? std::bit_floor(rel) << 1 : 1; rel + step < static_cast<unsigned>(n); step <<= 1)
    ++children;
  g.wait_readers(children);
}

}  // namespace tilecomm::coll
