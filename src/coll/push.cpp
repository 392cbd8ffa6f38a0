// Push and put algorithms, the choice for teams that span hosts (NOTE
// [pushed words]): each sender sends its data to the readers and raises its
// word there; a reader waits on its own memory. Push sends small data into
// the readers' scratch slots (one one-way trip per call, where a pull pays a
// round trip per poll of the owner's arrival and another for the bytes);
// put sends straight into the readers' destinations once each has said it
// is ready (two one-way trips, one copy of each byte). The members still
// raise their arrive words: the slot rule (claim_scratch) reads them.
#include "coll/algorithm.hpp"

namespace tilecomm::coll {

namespace {

// My data for member k (my block for alltoall, all of it otherwise) into its slot.
template <class Block>
void push_all(Group& g, std::size_t bytes, Block block) {
  const int n = g.size(), me = g.me();
  g.arrive();
  g.claim_scratch();
  for (int i = 1; i < n; ++i) {
    const int k = (me + i) % n;
    g.push(k, g.scratch() + push_offset(bytes, me, k), block(k), bytes);
  }
}

const char* pushed_to_me(Group& g, std::size_t bytes, int from) { return g.scratch() + push_offset(bytes, from, g.me()); }

// Every member tells every other that its dest is ready, then puts its block
// for member k (from block(k)) at offset `at` of k's dest as k gets ready,
// and waits for the others' blocks.
template <class Block>
void put_all(Group& g, std::size_t bytes, std::size_t at, Block block) {
  const int n = g.size(), me = g.me();
  g.arrive();
  for (int i = 1; i < n; ++i) g.ready((me + i) % n);
  g.each_ready([&](int k) { g.push(k, static_cast<char*>(g.args.dest) + at, block(k), bytes); });
  g.each_push([](int) {});
}

}  // namespace

void push_broadcast(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  g.arrive();
  if (g.me() == a.root) {
    g.claim_scratch();
    for (int i = 1; i < g.size(); ++i) g.push((a.root + i) % g.size(), g.scratch(), a.source, bytes);
    if (a.root_dest) copy(a.dest, a.source, bytes, false);
    return;
  }
  g.wait_push(a.root);
  copy(a.dest, g.scratch(), bytes, false);
}

void push_fcollect(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  char* dest = static_cast<char*>(a.dest);
  push_all(g, bytes, [&](int) { return a.source; });
  copy(dest + g.me() * bytes, a.source, bytes, false);
  g.each_push([&](int k) { copy(dest + k * bytes, pushed_to_me(g, bytes, k), bytes, false); });
}

void push_alltoall(Group& g) {
  const Args& a = g.args;
  const std::size_t block = a.count * a.elem;
  const auto* source = static_cast<const char*>(a.source);
  char* dest = static_cast<char*>(a.dest);
  push_all(g, block, [&](int k) { return source + k * block; });
  copy(dest + g.me() * block, source + g.me() * block, block, false);
  g.each_push([&](int k) { copy(dest + k * block, pushed_to_me(g, block, k), block, false); });
}

void push_reduce(Group& g) {
  const Args& a = g.args;
  const int me = g.me();
  const std::size_t bytes = a.count * a.elem;
  push_all(g, bytes, [&](int) { return a.source; });
  // In place, the first reduction overwrites my source before members after
  // the second read it: keep a copy of my part then.
  std::vector<char> kept;
  const char* mine = static_cast<const char*>(a.source);
  if (a.dest == a.source && me > 1) {
    kept.assign(mine, mine + bytes);
    mine = kept.data();
  }
  g.each_push([](int) {});
  auto part = [&](int k) { return k == me ? mine : pushed_to_me(g, bytes, k); };
  // Every member reduces in member order, so all get the same bits.
  reduce2(a.dtype, a.op, a.dest, part(0), part(1), a.count);
  for (int k = 2; k < g.size(); ++k) reduce2(a.dtype, a.op, a.dest, a.dest, part(k), a.count);
}

void put_broadcast(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  g.arrive();
  if (g.me() == a.root) {
    if (a.root_dest && a.dest != a.source) copy(a.dest, a.source, bytes, streaming(bytes));
    g.each_ready([&](int k) { g.push(k, a.dest, a.source, bytes); });
    return;
  }
  g.ready(a.root);
  g.wait_push(a.root);
}

void put_gather(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  copy(static_cast<char*>(a.dest) + g.me() * bytes, a.source, bytes, streaming(bytes * g.size()));
  put_all(g, bytes, g.me() * bytes, [&](int) { return a.source; });
}

void put_alltoall(Group& g) {
  const Args& a = g.args;
  const std::size_t block = a.count * a.elem;
  const auto* source = static_cast<const char*>(a.source);
  copy(static_cast<char*>(a.dest) + g.me() * block, source + g.me() * block, block, streaming(block * g.size()));
  put_all(g, block, g.me() * block, [&](int k) { return source + k * block; });
}

}  // namespace tilecomm::coll
