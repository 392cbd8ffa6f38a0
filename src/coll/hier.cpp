// Host by host, for teams that span hosts (NOTE [host leaders]): the
// members of a host meet at their leader through shared memory, the leaders
// exchange their hosts' data, and each leader's host then copies the result
// out of its dest. A host's bytes cross the network once per other host,
// where the flat algorithms send every member's bytes to every member.
//
// Leaders exchange a share (a host's blocks, the broadcast vector, a host's
// partial reduction) one of three ways, chosen alike on every member:
//   slot  pushed into the receivers' scratch slots, a region per sending
//         host: one one-way trip; for shares that fit.
//   put   put straight into the receivers' dests once each said it is
//         ready: two one-way trips, one copy; up to kPutShare.
//   get   fetched by the receivers from the sender's dest once it says its
//         share is gathered, and reported done: above kPutShare, where
//         UCX's gets over TCP beat its puts (docs/ARCHITECTURE.md), and
//         for any share over more than kLeaderHosts hosts.
// A collect's leaders have ways of their own (hier_collect).
#include "coll/algorithm.hpp"

#include <algorithm>

namespace tilecomm::coll {

namespace {

enum class Way { Slot, Put, Get };

// The way for shares of up to `share` bytes with `senders` regions in a
// receiver's slot; reductions have no put way (a receiver's dest is its
// own partial until the end). Slot and put raise a word per sending host
// (led), which exist for kLeaderHosts hosts; more take the get way, whose
// words (gathered, done) are each leader's own.
Way way(const Group& g, std::size_t share, int senders, bool puts = true) {
  if (g.hosts() > shmem::kLeaderHosts) return Way::Get;
  if (static_cast<std::size_t>(senders) * push_region(share) <= g.scratch_slot()) return Way::Slot;
  return puts && share <= kPutShare ? Way::Put : Way::Get;
}

// Calls fn(first, count) for each run of consecutive members in `members`.
template <class Fn>
void each_run(const std::vector<int>& members, Fn&& fn) {
  for (std::size_t i = 0; i < members.size();) {
    std::size_t j = i + 1;
    while (j < members.size() && members[j] == members[j - 1] + 1) ++j;
    fn(members[i], static_cast<int>(j - i), j == members.size());
    i = j;
  }
}

// As leader: completes the gets posted to the other leaders, then tells
// each that I have its share (not those whose blocks came with a list: came[h]).
void report_fetched(Group& g, const std::vector<const char*>& came = {}) {
  g.complete_gets();
  for (int h = 0; h < g.hosts(); ++h)
    if (h != g.host(g.me()) && (came.empty() || !came[h])) g.report_done(g.leader(h));
}

// A member that is not its host's leader: takes `bytes` of the leader's
// dest once the leader published them (after every member entered the
// call: all_entered).
void take_published(Group& g, std::size_t bytes, bool all_entered) {
  const int leader = g.leader(g.host(g.me()));
  g.wait_published(leader, all_entered);
  g.get(g.args.dest, g.args.dest, bytes, leader, streaming(bytes));
  g.report_done(leader);
}

// A leader: the members of its host may read its dest now; it returns once
// they and `readers` more (leaders that fetched its share) did.
void publish_to_host(Group& g, int readers = 0) {
  g.publish();
  g.wait_readers(static_cast<int>(g.host_members().size()) - 1 + readers);
}

}  // namespace

void hier_broadcast(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  const int me = g.me(), mine = g.host(me), leader = g.leader(mine), root_host = g.host(a.root);
  const Way w = way(g, bytes, 1);
  g.arrive();
  if (mine != root_host) {
    if (me != leader) return take_published(g, bytes, false);
    if (w == Way::Slot) {
      g.wait_leader_push(root_host);
      copy(a.dest, g.scratch(), bytes, false);
    } else if (w == Way::Put) {
      g.leader_ready(root_host);
      g.wait_leader_push(root_host);
    } else {
      g.wait_gathered(root_host);
      g.get(a.dest, a.dest, bytes, g.leader(root_host), streaming(bytes));
      g.report_done(g.leader(root_host));
    }
    return publish_to_host(g);
  }
  // The root's host: its members read the root's source in place; the
  // leader serves the other hosts from its own dest (registered, and its
  // own), where it put the root's bytes first.
  if (me == a.root) {
    if (a.root_dest && a.dest != a.source) copy(a.dest, a.source, bytes, streaming(bytes));
  } else {
    g.wait_arrival(a.root);
    g.get(a.dest, a.source, bytes, a.root, streaming(bytes));
    g.report_done(a.root);
  }
  int readers = me == a.root ? static_cast<int>(g.host_members().size()) - 1 : 0;
  if (me == leader) {
    if (w == Way::Slot) {
      g.claim_scratch();
      for (int h = 0; h < g.hosts(); ++h)
        if (h != mine) g.leader_push(h, g.scratch(), a.dest, bytes);
    } else if (w == Way::Put) {
      g.each_ready([&](int h) { g.leader_push(h, a.dest, a.dest, bytes); }, true);
    } else {
      g.gathered();
      readers += g.hosts() - 1;
    }
  }
  if (readers) g.wait_readers(readers);
}

void hier_fcollect(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  const int n = g.size(), me = g.me(), mine = g.host(me);
  char* dest = static_cast<char*>(a.dest);
  const std::size_t region = g.widest() * bytes;  // the largest share
  const Way w = way(g, region, g.hosts() - 1);
  g.arrive();
  if (me != g.leader(mine)) return take_published(g, n * bytes, true);
  if (w == Way::Put)
    for (int h = 0; h < g.hosts(); ++h)
      if (h != mine) g.leader_ready(h);
  const std::vector<int>& members = g.host_members();
  const bool stream = streaming(n * bytes);
  for (int k : members) {
    if (k != me) g.wait_arrival(k);
    g.get(dest + k * bytes, a.source, bytes, k, stream);
  }
  int readers = 0;
  if (w == Way::Slot) {
    // My host's blocks, packed in member order, into a region of every
    // other leader's slot; theirs unpacked from mine.
    std::vector<char> packed(members.size() * bytes);
    for (std::size_t i = 0; i < members.size(); ++i) copy(packed.data() + i * bytes, dest + members[i] * bytes, bytes, false);
    g.claim_scratch();
    for (int h = 0; h < g.hosts(); ++h)
      if (h != mine) g.leader_push(h, g.scratch() + push_offset(region, mine, h), packed.data(), packed.size());
    g.each_push([&](int h) {
      const char* from = g.scratch() + push_offset(region, h, mine);
      for (int k : g.members_of(h)) {
        copy(dest + k * bytes, from, bytes, false);
        from += bytes;
      }
    }, true);
  } else if (w == Way::Put) {
    // My host's blocks, as runs of consecutive members, into every other
    // leader's dest; the word goes with the last run.
    g.each_ready([&](int h) {
      each_run(members, [&](int first, int count, bool last) {
        char* run = dest + first * bytes;
        if (last) g.leader_push(h, run, run, count * bytes);
        else g.send(g.leader(h), run, run, count * bytes);
      });
    }, true);
    g.each_push([](int) {}, true);
  } else {
    g.gathered();
    for (int i = 1; i < g.hosts(); ++i) {
      const int h = (mine + i) % g.hosts();
      g.wait_gathered(h);
      each_run(g.members_of(h), [&](int first, int count, bool) {
        char* run = dest + first * bytes;
        g.post_get(run, run, count * bytes, g.leader(h), stream);
      });
    }
    report_fetched(g);
    readers = g.hosts() - 1;
  }
  publish_to_host(g, readers);
}

// A collect's members contribute different counts, which every leader
// needs before it can place a block. Each member puts its count at the
// head of its scratch slot (NOTE [collect header]); its leader lists them
// after its head. Then the leaders exchange their lists one of two ways,
// chosen alike on every member:
//   slot  each leader pushes a message into a region of every other
//         leader's slot (after its head and list): a word that says
//         whether its host's blocks follow, its list, and its host's
//         blocks packed in member order where they fit the region. Small
//         collects so cross the network once.
//   get   each leader says its list is ready (stage 1) and the others
//         fetch it: over more than kLeaderHosts hosts, or where a list does
//         not fit a region.
// Blocks that did not come with a list travel from their leader's dest
// into the other leaders' dests: put there by their leader, which knows
// every place once it has every list, and counted by the receivers' done
// words, where the lists came the slot way and every host's blocks fit
// kPutShare; else fetched by the receivers once their leader says it
// placed them (stage 2). A leader then puts the total in its head's second
// word for its host's members, which copy its dest.
void hier_collect(Group& g) {
  const Args& a = g.args;
  const int n = g.size(), me = g.me(), mine = g.host(me), leader = g.leader(mine), hosts = g.hosts();
  char* dest = static_cast<char*>(a.dest);
  std::uint64_t head[2] = {a.count * a.elem, 0};  // my count; a leader's total
  static_assert(sizeof head == kCollectHead);
  g.claim_scratch();
  std::memcpy(g.scratch(), head, sizeof head);
  g.arrive();
  if (me != leader) {
    g.wait_published(leader, true);
    g.get(head, g.scratch(), sizeof head, leader);
    check_collect_dest(g, head[1]);
    g.get(dest, dest, head[1], leader, streaming(head[1]));
    return g.report_done(leader);
  }
  char* const list = g.scratch() + sizeof head;  // my host's counts, in member order
  const std::vector<int>& members = g.host_members();
  std::vector<std::uint64_t> len(n);
  std::size_t my_blocks = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const int k = members[i];
    if (k != me) g.wait_arrival(k);
    g.get(&len[k], g.scratch(), sizeof len[k], k);
    std::memcpy(list + i * sizeof len[k], &len[k], sizeof len[k]);
    my_blocks += len[k];
  }
  auto take_list = [&](int h, const char* from) {
    for (int k : g.members_of(h)) {
      std::memcpy(&len[k], from, sizeof len[k]);
      from += sizeof len[k];
    }
  };
  const std::size_t list_bytes = members.size() * sizeof len[0];
  char* const regions = g.scratch() + push_region(collect_list_bytes(g.widest()));
  const std::size_t region = hosts > 1 ? (g.scratch() + g.scratch_slot() - regions) / (hosts - 1) & ~std::size_t{63} : 0;
  const bool slot = hosts <= shmem::kLeaderHosts && region >= sizeof(std::uint64_t) * (1 + g.widest());
  std::vector<char> message;  // slot way: [blocks follow][my list][my blocks]
  std::vector<const char*> came(hosts, nullptr);  // blocks that came with a list
  bool sent = false;  // my host's blocks went with my list
  if (slot) {
    const std::uint64_t with_blocks = sizeof with_blocks + list_bytes + my_blocks <= region;
    message.resize(sizeof with_blocks + list_bytes + (with_blocks ? my_blocks : 0));
    std::memcpy(message.data(), &with_blocks, sizeof with_blocks);
    std::memcpy(message.data() + sizeof with_blocks, list, list_bytes);
    if (with_blocks) {
      char* to = message.data() + sizeof with_blocks + list_bytes;
      for (int k : members) {
        g.get(to, a.source, len[k], k);
        to += len[k];
      }
    }
    for (int h = 0; h < hosts; ++h)
      if (h != mine) g.leader_push(h, regions + push_offset(region, mine, h), message.data(), message.size());
    g.each_push([&](int h) {
      const char* from = regions + push_offset(region, h, mine);
      std::uint64_t blocks_follow;
      std::memcpy(&blocks_follow, from, sizeof blocks_follow);
      take_list(h, from + sizeof blocks_follow);
      if (blocks_follow) came[h] = from + sizeof blocks_follow + g.members_of(h).size() * sizeof len[0];
    }, true);
    sent = with_blocks;
  } else {
    g.gathered(1);
    std::vector<std::vector<std::uint64_t>> theirs(hosts);
    for (int i = 1; i < hosts; ++i) {
      const int h = (mine + i) % hosts;
      theirs[h].resize(g.members_of(h).size());
      g.wait_gathered(h, 1);
      g.post_get(theirs[h].data(), list, theirs[h].size() * sizeof theirs[h][0], g.leader(h));
    }
    g.complete_gets();
    for (int h = 0; h < hosts; ++h)
      if (h != mine) take_list(h, reinterpret_cast<const char*>(theirs[h].data()));
  }
  std::vector<std::size_t> at(n + 1, 0);
  for (int k = 0; k < n; ++k) at[k + 1] = at[k] + len[k];
  check_collect_dest(g, at[n]);
  std::memcpy(g.scratch() + sizeof head[0], &at[n], sizeof head[1]);
  const bool stream = streaming(at[n]);
  // Blocks packed in member order (a message) into their places in dest.
  auto unpack = [&](int h, const char* from) {
    for (int k : g.members_of(h)) {
      copy(dest + at[k], from, len[k], false);
      from += len[k];
    }
  };
  // Puts need every receiver to count them, so they serve a call only
  // where no leader reads another's dest, each reader reporting done too.
  bool puts = slot;
  for (int h = 0; h < hosts && puts; ++h) {
    std::size_t blocks = 0;
    for (int k : g.members_of(h)) blocks += len[k];
    puts = blocks <= kPutShare;
  }
  if (sent) {
    unpack(mine, message.data() + sizeof(std::uint64_t) + list_bytes);
  } else {
    for (int k : members) g.get(dest + at[k], a.source, len[k], k, stream);
    if (!puts) g.gathered(2);
    for (int h = 0; h < hosts && puts; ++h)
      if (h != mine)
        each_run(members, [&](int first, int count, bool last) {
          char* run = dest + at[first];
          const std::size_t n = at[first + count] - at[first];
          if (last) g.put_done(g.leader(h), run, run, n);
          else g.send(g.leader(h), run, run, n);
        });
  }
  int putters = 0;
  for (int i = 1; i < hosts; ++i) {
    const int h = (mine + i) % hosts;
    if (came[h]) {
      unpack(h, came[h]);
      continue;
    }
    if (puts) {
      ++putters;
      continue;
    }
    g.wait_gathered(h, 2);
    each_run(g.members_of(h), [&](int first, int count, bool) {
      g.post_get(dest + at[first], dest + at[first], at[first + count] - at[first], g.leader(h), stream);
    });
  }
  if (puts) g.wait_readers(putters, "put their hosts' blocks into this PE's dest");
  else report_fetched(g, came);
  publish_to_host(g, sent || puts ? 0 : hosts - 1);
}

void hier_reduce(Group& g) {
  const Args& a = g.args;
  const std::size_t bytes = a.count * a.elem;
  const int me = g.me(), mine = g.host(me), hosts = g.hosts();
  auto* dest = static_cast<char*>(a.dest);
  const Way w = way(g, bytes, hosts - 1, false);
  g.arrive();
  if (me != g.leader(mine)) return take_published(g, bytes, true);
  // My host's part, reduced in member order into my dest (I am the first
  // member of my host, so in place my source is read before it is written).
  const std::vector<int>& members = g.host_members();
  auto member_part = [&](std::size_t i) {
    if (members[i] != me) g.wait_arrival(members[i]);
    return g.view(a.source, bytes, members[i], static_cast<int>(i % 2));
  };
  if (members.size() == 1) {
    copy(dest, a.source, bytes, false);
  } else {
    reduce2(a.dtype, a.op, dest, member_part(0), member_part(1), a.count);
    for (std::size_t i = 2; i < members.size(); ++i) reduce2(a.dtype, a.op, dest, dest, member_part(i), a.count);
  }
  // The hosts' parts, reduced in host order, so that every leader computes
  // the same bits; my dest keeps my part until every leader has it.
  if (w == Way::Slot) {
    g.claim_scratch();
    for (int h = 0; h < hosts; ++h)
      if (h != mine) g.leader_push(h, g.scratch() + push_offset(bytes, mine, h), dest, bytes);
    g.each_push([](int) {}, true);
  } else {
    g.gathered();
  }
  auto host_part = [&](int h) -> const char* {
    if (h == mine) return dest;
    if (w == Way::Slot) return g.scratch() + push_offset(bytes, h, mine);
    g.wait_gathered(h);
    const char* part = g.view(dest, bytes, g.leader(h), h % 2);
    g.report_done(g.leader(h));  // view copied it: the leader is not a member of my host
    return part;
  };
  if (hosts > 1) {
    std::vector<char> result(bytes);
    reduce2(a.dtype, a.op, result.data(), host_part(0), host_part(1), a.count);
    for (int h = 2; h < hosts; ++h) reduce2(a.dtype, a.op, result.data(), result.data(), host_part(h), a.count);
    if (w == Way::Get) g.wait_readers(hosts - 1);
    copy(dest, result.data(), bytes, false);
  }
  publish_to_host(g);
}

}  // namespace tilecomm::coll
