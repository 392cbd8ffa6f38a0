// Pull algorithms: every member reads the blocks it needs straight from the
// owners' symmetric buffers (one copy of each byte, to its destination) and
// tells each owner when it is done, so that the owner may return and reuse
// its source. Two synchronisations per call (arrive, done): the choice once
// the bytes cost more than a second synchronisation.
#include "coll/algorithm.hpp"

#include <vector>

namespace tilecomm::coll {

void pull_broadcast(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  const bool stream = streaming(bytes);
  g.arrive();
  if (g.me() == a.root) {
    if (a.root_dest && a.dest != a.source) copy(a.dest, a.source, bytes, stream);
    g.wait_readers(g.size() - 1);
    return;
  }
  g.wait_arrival(a.root);
  g.get(a.dest, a.source, bytes, a.root, stream);
  g.report_done(a.root);
}

namespace {

// NOTE [collect header] A collect's members contribute different byte
// counts, which every member needs before it can place any block. Each
// member writes its count (and whether its bytes follow in its line or in
// scratch) where it stays valid until every member has left the call
// (NOTE [scratch slots]): in the call's tagged record where every member is
// mapped, with up to 48 bytes of data beside it, so that a small collect
// costs one line per member as an fcollect does; else at the head of its
// scratch slot. An active set, which has no scratch, uses the count word,
// valid until the readers report done.
constexpr std::uint64_t kInScratch = std::uint64_t{1} << 63;
constexpr std::uint64_t kInLine = std::uint64_t{1} << 62;
constexpr std::uint64_t kWhere = kInScratch | kInLine;
constexpr std::size_t kHeader = 64;
constexpr std::size_t kLineBytes = 56;  // a collect's record: its header, then up to 48 bytes of data
constexpr std::size_t kMixedBytes = 1024;  // mixed: blocks up to this size go through scratch (NOTE [selection])

void gather(Group& g, bool allow_scratch) {
  const Args& a = g.args;
  const int n = g.size(), me = g.me();
  const std::size_t mine = a.count * a.elem;
  char* dest = static_cast<char*>(a.dest);
  std::vector<std::uint64_t> len(n, mine);  // fcollect: every block as long as mine
  std::vector<std::size_t> at(n);
  std::uint64_t head = mine;
  const bool lines = a.kind == Kind::Collect && g.team_mode() && g.fits_line(sizeof head);
  if (a.kind == Kind::Collect) {
    if (g.team_mode()) {
      g.claim_scratch();
      if (lines) g.line_ring(kLineBytes);  // the same ring on every member, whatever it contributes
      if (lines && allow_scratch && sizeof head + mine <= kLineBytes) {
        head |= kInLine;
      } else if (allow_scratch && mine <= kMixedBytes && mine + kHeader <= g.scratch_slot()) {
        std::memcpy(g.scratch() + kHeader, a.source, mine);
        head |= kInScratch;
      }
      if (lines) {
        char line[kLineBytes];
        std::memcpy(line, &head, sizeof head);
        const std::size_t with = head & kInLine ? mine : 0;
        std::memcpy(line + sizeof head, a.source, with);
        g.write_line(line, sizeof head + with);  // after the scratch copy: the tag releases both
      } else {
        std::memcpy(g.scratch(), &head, sizeof head);
      }
    } else {
      g.word(kCount).store(head, std::memory_order_relaxed);
    }
    g.arrive();  // releases the count
    len[me] = head;
    if (lines) g.each_line([&](int k) { std::memcpy(&len[k], g.line_of(k), sizeof len[k]); });
    else
      g.each_arrival([&](int k) {
        if (g.team_mode()) g.get(&len[k], g.scratch(), sizeof len[k], k);
        else len[k] = g.load(k, kCount);
      });
  } else {
    g.arrive();
  }
  std::size_t off = 0;
  for (int k = 0; k < n; ++k) {
    at[k] = off;
    off += len[k] & ~kWhere;
  }
  if (a.kind == Kind::Collect) check_collect_dest(g, off);
  const bool stream = streaming(off);
  copy(dest + at[me], a.source, mine, stream);
  auto take = [&](int k) {
    const std::size_t bytes = len[k] & ~kWhere;
    if (len[k] & kInLine) return void(std::memcpy(dest + at[k], g.line_of(k) + sizeof head, bytes));
    const bool in_scratch = len[k] & kInScratch;
    g.get(dest + at[k], in_scratch ? g.scratch() + kHeader : a.source, bytes, k, stream);
    if (!in_scratch) g.report_done(k);
  };
  if (lines) {
    for (int i = 1; i < n; ++i) take((me + i) % n);  // every line seen: every member's data is there
  } else {
    g.each_arrival(take);
  }
  if (!(len[me] & kWhere)) g.wait_readers(n - 1);
}

}  // namespace

void check_collect_dest(const Group& g, std::size_t total) {
  const Args& a = g.args;
  shmem::Runtime& rt = *shmem::g_runtime;
  if (total && !a.region && !a.dest_private && !rt.shm().translate(a.dest, total, rt.my_pe()))
    shmem::usage_error(a.call, "dest %p cannot hold the %zu bytes the members contribute: it runs past the end of "
                       "its symmetric segment", a.dest, total);
}

void pull_gather(Group& g) { gather(g, false); }
void mixed_collect(Group& g) { gather(g, true); }

void copy_block(const Args& a, char* dst, const char* src, int block, bool stream) {
  if (a.kind == Kind::Alltoall) {
    copy(dst, src + block * a.count * a.elem, a.count * a.elem, stream);
    return;
  }
  const std::ptrdiff_t ds = a.dst_stride * static_cast<std::ptrdiff_t>(a.elem);
  const std::ptrdiff_t ss = a.src_stride * static_cast<std::ptrdiff_t>(a.elem);
  src += block * static_cast<std::ptrdiff_t>(a.count) * ss;
  for (std::size_t i = 0; i < a.count; ++i, dst += ds, src += ss) std::memcpy(dst, src, a.elem);
}

namespace {

// Block `block` of member k's source (strided for alltoalls) into my dst.
void get_block(Group& g, char* dst, int k, int block, bool stream) {
  const Args& a = g.args;
  const auto* source = static_cast<const char*>(a.source);
  if (a.kind == Kind::Alltoall) return g.get(dst, source + block * a.count * a.elem, a.count * a.elem, k, stream);
  // Strided: the span of the block, then its elements out of that view.
  const std::size_t span = ((a.count - 1) * a.src_stride + 1) * a.elem;
  const char* from = g.view(source + block * static_cast<std::ptrdiff_t>(a.count) * a.src_stride * a.elem, span, k);
  copy_block(a, dst, from, 0, stream);
}

}  // namespace

void pull_alltoall(Group& g) {
  const Args& a = g.args;
  char* dest = static_cast<char*>(a.dest);
  // Destination blocks: count elements, dst_stride apart for alltoalls.
  const std::size_t dst_block = a.count * a.elem * (a.kind == Kind::Alltoalls ? a.dst_stride : 1);
  const bool stream = streaming(a.count * a.elem * g.size());
  g.arrive();
  get_block(g, dest + g.me() * dst_block, g.me(), g.me(), stream);
  g.each_arrival([&](int k) {
    get_block(g, dest + k * dst_block, k, g.me(), stream);
    g.report_done(k);
  });
  g.wait_readers(g.size() - 1);
}

// Alltoallv: my block from member k starts, in k's source, after k's blocks
// for the members before me; in my dest, after the blocks of the members
// before k.
void pull_alltoallv(Group& g) {
  const Args& a = g.args;
  const int n = g.size(), me = g.me();
  const std::uint64_t* counts = a.counts;
  auto before = [&](int row, int col, std::size_t stride_row, std::size_t stride_col) {
    std::size_t off = 0;
    for (int j = 0; j < col; ++j) off += counts[row * stride_row + j * stride_col];
    return off;
  };
  std::size_t received = 0;
  for (int k = 0; k < n; ++k) received += counts[k * n + me];
  const bool stream = streaming(received * a.elem);
  char* dest = static_cast<char*>(a.dest);
  const auto* source = static_cast<const char*>(a.source);
  auto get_from = [&](int k) {
    const std::size_t src = before(k, me, n, 1), dst = before(me, k, 1, n);
    g.get(dest + dst * a.elem, source + src * a.elem, counts[k * n + me] * a.elem, k, stream);
  };
  g.arrive();
  get_from(me);
  g.each_arrival([&](int k) {
    get_from(k);
    g.report_done(k);
  });
  g.wait_readers(n - 1);
}

}  // namespace tilecomm::coll
