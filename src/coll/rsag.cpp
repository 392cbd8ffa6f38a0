// Reduce-scatter then allgather, pipelined by chunks. The vector is cut in
// one slice per member; each member reduces its slice straight out of all
// members' sources (in member order) and publishes its progress after every
// chunk on its progress word; meanwhile it copies the other slices out of
// their owners' dests as their chunks complete. Each member reads about two
// vectors' worth and writes one, whatever the member count: the choice for
// large vectors. In place works: a member overwrites its copy of a peer's
// slice only after the peer has reduced that chunk, that is after it read it.
// A private dest (Args::dest_private, with Args::source_scratch): no peer
// may read it, so each member also writes its reduced chunk over its own
// slice of its source, which only it reads, and the peers copy from there.
// What the peers read, the reduced chunks, is written with the stores
// PublishStores chooses (NOTE [publishing stores]): with streaming stores
// each chunk is reduced aside, in the cache, and then streamed out.
#include "coll/algorithm.hpp"

#include <memory>

namespace tilecomm::coll {

void rsag_reduce(Group& g) {
  const Args& a = g.args;
  const int n = g.size(), me = g.me();
  const std::size_t chunk = std::max<std::size_t>(1, (64 << 10) / a.elem);
  const bool in_place = a.dest == a.source;
  const bool via_source = a.dest_private && a.source_scratch;  // the only private dest can_serve admits
  const bool stream = streaming(a.count * a.elem);
  auto slice = [&](int k) { return a.count * k / n; };  // first element of member k's slice
  PublishStores published(kPublishedByLibrary + static_cast<std::uint32_t>(Kind::Reduce),
                          (slice(me + 1) - slice(me)) * a.elem);
  // In place, my dest is my source: accumulate a chunk aside, so that my
  // own source chunk is read before it is overwritten.
  const bool reduce_aside = in_place || (published.streaming() && !via_source);
  g.arrive();
  g.wait_all_arrived();

  const auto* source = static_cast<const char*>(a.source);
  char* dest = static_cast<char*>(a.dest);
  std::unique_ptr<char[]> aside(reduce_aside ? new char[std::min(chunk, slice(me + 1) - slice(me)) * a.elem] : nullptr);
  std::atomic<std::uint64_t>& progress = g.word(kProgress);
  const std::uint64_t base = g.tag() << kProgressShift;
  std::uint64_t done_chunks = 0;
  for (std::size_t i = slice(me); i < slice(me + 1); i += chunk) {
    const std::size_t len = std::min(chunk, slice(me + 1) - i), off = i * a.elem, bytes = len * a.elem;
    char* acc = reduce_aside ? aside.get() : dest + off;
    reduce2(a.dtype, a.op, acc, g.view(source + off, bytes, 0, 0), g.view(source + off, bytes, 1, 1), len);
    for (int k = 2; k < n; ++k) reduce2(a.dtype, a.op, acc, acc, g.view(source + off, bytes, k), len);
    if (via_source) copy(const_cast<char*>(source) + off, acc, bytes, published.streaming());
    else if (reduce_aside) copy(dest + off, acc, bytes, published.streaming());
    progress.store(base | ++done_chunks, std::memory_order_release);
  }

  for (int step = 1; step < n; ++step) {
    const int k = (me + step) % n;
    std::uint64_t c = 0;
    for (std::size_t i = slice(k); i < slice(k + 1); i += chunk) {
      const std::size_t len = std::min(chunk, slice(k + 1) - i), off = i * a.elem;
      g.wait(k, kProgress, base | ++c, "its reduced slice");
      g.get(dest + off, (via_source ? source : dest) + off, len * a.elem, k, stream);
    }
    g.report_done(k);
  }
  g.wait_readers(n - 1);
  published.done();
}

}  // namespace tilecomm::coll
