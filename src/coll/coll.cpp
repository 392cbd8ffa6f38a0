// The library's entry points: argument checks, the selection table, checked
// mode, and the active sets' call counters.
#include "coll/coll.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "coll/algorithm.hpp"
#include "core/error.hpp"

namespace tilecomm::coll {

using shmem::g_runtime;
using shmem::kLeaderHosts;
using shmem::kPushMembers;
using shmem::usage_error;

namespace {

constexpr std::size_t kAny = SIZE_MAX;

// NOTE [selection] For each kind, automatic selection takes the first row
// that can serve the call: scratch rows need a team and data that fit a
// scratch slot, rows without in-place support need source != dest, and
// max_bytes (the bytes per PE) bounds the automatic choice only.
// (Collects and alltoalls are never in place: check_disjoint.)
// TILECOMM_COLL_<KIND>=<name> puts one row first for that kind. The inputs
// are the same on every member (sizes, addresses, configuration), so every
// member picks the same algorithm (a collect's members decide per member
// whether their bytes go through scratch, kMixedBytes in pull.cpp). The
// bounds are the crossovers measured on an AMD EPYC host, 2 PEs: scratch's
// one synchronisation wins up to 1 KiB per PE (fcollect, reductions: 512 B
// 0.51-0.53 against oneshot's 0.76-0.80 us, 2 KiB 0.96-1.0 against
// 0.79-0.88; broadcast), 512 B per peer (alltoall); above, its second copy
// costs more than pull's second synchronisation (docs/ARCHITECTURE.md,
// "Collectives"). Broadcast's bound was 8 KiB, from an earlier host (4 KiB
// 0.43-0.46 against pull's 0.76-0.86 us, 8 KiB 0.66-0.75 against
// 0.86-0.91); on an EPYC Zen 4, 3 alternations, scratch took 0.22-0.31 us
// at 2 KiB, 0.44-0.67 at 4 KiB and 1.3-1.5 at 8 KiB against pull's
// 0.18-0.19, 0.19-0.24 and 0.26-0.29 (1 KiB: 0.12-0.17 against 0.15-0.19),
// and with that bound MPICH was faster at 4 and 8 KiB (0.62 and 1.18 us
// against 0.74 and 1.62). The reductions
// that read every member's whole vector (scratch, oneshot) stop at 8
// members, where rsag's division of the work reads less per member (not
// measured: this host has 2 CPUs). When the job
// has more PEs than CPUs (Runtime::oversubscribed(), from every PE's CPUs, so
// the same on every PE), or the group spans hosts (every synchronisation a
// network round trip), the scratch rows serve every call that fits a slot:
// 4 PEs on 2 CPUs, 2 KiB per PE, scratch against pull: broadcast 0.51
// against 6.6 us, fcollect 4.3 against 7.9, reduce 4.9 against 7.9. Not so
// an alltoall on one host, whose row keeps its bound: there every member copies
// all its blocks into its slot, and with blocks over 512 bytes that cost
// more than the waits it saves (AMD EPYC Zen 4, 3 alternations, 4 PEs:
// 1 KiB per peer 5.5-6.8 against pull's 3.7-4.6 us, 2 KiB 7.9-8.0 against
// 3.9-4.9, 256 B 3.4-3.5 against 3.6-4.3; 8 PEs: 1 KiB 8.8-9.3 against
// 9.0-9.4, 512 B 7.8-8.2 against 8.5-9.2; OSHMEM took 7.1 us at 2 KiB
// and 4 PEs). The tree
// broadcast starts at 16 members, where the root's buffer would have 15
// readers (a judgement: at 8 PEs on 2 CPUs tree and pull measure the same).
// The push rows come first and serve automatically only a team that spans
// hosts (NOTE [pushed words]), of up to kPushMembers members, whose data
// fit a slot with a region per sender; the put rows then serve such a
// team's calls up to 16 KiB per PE, above which the pull rows' gets beat
// its puts over UCX's TCP transport (2 PEs on two namespace hosts,
// fcollect, put against pull: 8 B 59 against 80 us, 4 KiB 62 against 85,
// 16 KiB 93 against 106, 32 KiB 130 both, 1 MiB 2439 against 1769).
// Forced, both serve one host too. The hier rows come before all of them
// for a team over several hosts of which one has several members (NOTE
// [host leaders]); a collect, which has no push row, takes hier over hosts
// of one member too (2 namespace hosts of 1 PE: 8 B-4 KiB 45-55 against
// 143-190 us for mixed, 1 MiB 1.7-2.2 against 2.0-2.4 ms). 2 hosts of 2
// PEs, hier against the best flat row,
// fcollect 8 B 116 against 166 us (push), 64 KiB 443 against 781 (put), 4
// MiB 15.1 against 22.6 ms (pull); broadcast 1 MiB 1.5 against 2.4 ms; a
// reduction 4 KiB 208 against 1223 us (oneshot); collect 8 B 145-190
// (one message per leader) and 350 (two fetches) against 1141 us, 1 MiB
// 4.5 against 8.0 ms (mixed). Above 512 KiB a hier
// reduction loses to rsag, which spreads the arithmetic over every member
// (1 MiB 8.2 against 7.4 ms). Forced on one host, the hier rows gather at
// the team's first member and broadcast from there.
constexpr Staging kSource = Staging::Source, kScratch = Staging::Scratch, kPush = Staging::Push, kPut = Staging::Put,
                  kLeaders = Staging::Leaders;

// Push and put rows: teams of up to kPushMembers (their words, NOTE [pushed words]).
bool pushes(const Algorithm& al) { return al.staging == kPush || al.staging == kPut; }
// Rows taken automatically only by teams that span hosts.
bool across_hosts(const Algorithm& al) { return pushes(al) || al.staging == kLeaders; }
// Whether kind k has a push row (defined after kTable): where it has one, a
// team over hosts of one member each takes it rather than hier.
bool has_push_row(Kind k);
constexpr Algorithm kTable[] = {
    {"hier", Kind::Broadcast, kAny, 2, 0, kLeaders, true, true, hier_broadcast},
    {"push", Kind::Broadcast, kAny, 2, kPushMembers, kPush, true, false, push_broadcast},
    {"put", Kind::Broadcast, 16 << 10, 2, kPushMembers, kPut, true, true, put_broadcast},
    {"scratch", Kind::Broadcast, 1024, 2, 0, kScratch, true, false, scratch_broadcast},
    {"tree", Kind::Broadcast, kAny, 16, 0, kSource, true, true, tree_broadcast},
    {"pull", Kind::Broadcast, kAny, 2, 0, kSource, true, false, pull_broadcast},
    {"hier", Kind::Collect, kAny, 2, 0, kLeaders, true, true, hier_collect},
    {"mixed", Kind::Collect, kAny, 2, 0, kScratch, true, false, mixed_collect},
    {"pull", Kind::Collect, kAny, 2, 0, kSource, true, false, pull_gather},
    {"hier", Kind::Fcollect, kAny, 2, 0, kLeaders, true, true, hier_fcollect},
    {"push", Kind::Fcollect, kAny, 2, kPushMembers, kPush, true, false, push_fcollect},
    {"put", Kind::Fcollect, 16 << 10, 2, kPushMembers, kPut, true, true, put_gather},
    {"scratch", Kind::Fcollect, 1024, 2, 0, kScratch, true, false, scratch_fcollect},
    {"pull", Kind::Fcollect, kAny, 2, 0, kSource, true, false, pull_gather},
    {"push", Kind::Alltoall, kAny, 2, kPushMembers, kPush, true, false, push_alltoall},
    {"put", Kind::Alltoall, 16 << 10, 2, kPushMembers, kPut, true, true, put_alltoall},
    {"scratch", Kind::Alltoall, 512, 2, 0, kScratch, true, false, scratch_alltoall, false, true},
    {"pull", Kind::Alltoall, kAny, 2, 0, kSource, true, false, pull_alltoall},
    {"pull", Kind::Alltoalls, kAny, 2, 0, kSource, true, false, pull_alltoall},
    {"hier", Kind::Reduce, 512 << 10, 2, 0, kLeaders, true, true, hier_reduce},
    {"push", Kind::Reduce, kAny, 2, kPushMembers, kPush, true, false, push_reduce},
    {"scratch", Kind::Reduce, 1024, 2, 8, kScratch, true, false, scratch_reduce},
    {"oneshot", Kind::Reduce, 64 << 10, 2, 8, kSource, false, false, oneshot_reduce},
    {"rsag", Kind::Reduce, kAny, 2, 0, kSource, true, true, rsag_reduce, true},
    {"pull", Kind::ReduceScatter, kAny, 2, 0, kSource, false, false, pull_reduce_scatter},
    {"pull", Kind::Alltoallv, kAny, 2, 0, kSource, false, false, pull_alltoallv},
};

bool has_push_row(Kind k) {
  for (const Algorithm& al : kTable)
    if (al.kind == k && al.staging == kPush) return true;
  return false;
}

const std::string& forced_name(const Config& cfg, Kind k) {
  switch (k) {
    case Kind::Broadcast: return cfg.coll_broadcast;
    case Kind::Collect: return cfg.coll_collect;
    case Kind::Fcollect: return cfg.coll_fcollect;
    case Kind::Alltoall: return cfg.coll_alltoall;
    case Kind::Alltoalls: return cfg.coll_alltoalls;
    case Kind::Reduce: return cfg.coll_reduce;
    case Kind::ReduceScatter: return cfg.coll_reduce_scatter;
    case Kind::Alltoallv: return cfg.coll_alltoallv;
  }
  return cfg.coll_broadcast;
}

std::string upper(const char* s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  return u;
}

// The row TILECOMM_COLL_<KIND> forces, or nullptr for auto; checked once.
const Algorithm* forced(Kind k, const char* call) {
  static const Algorithm* rows[kKinds];
  static std::once_flag once;
  std::call_once(once, [call] {
    const Config& cfg = g_runtime->config();
    for (int i = 0; i < kKinds; ++i) {
      const Kind kind = static_cast<Kind>(i);
      const std::string& name = forced_name(cfg, kind);
      if (name == "auto") continue;
      std::string names = "auto";
      for (const Algorithm& a : kTable) {
        if (a.kind != kind) continue;
        if (name == a.name) rows[i] = &a;
        names += std::string(", ") + a.name;
      }
      if (!rows[i])
        usage_error(call, "TILECOMM_COLL_%s=%s is not an algorithm of %s; use one of: %s",
                    upper(kind_name(kind)).c_str(), name.c_str(), kind_name(kind), names.c_str());
    }
  });
  return rows[static_cast<int>(k)];
}

bool can_serve(const Algorithm& al, const Group& g) {
  const Args& a = g.args;
  if (al.peer_dest && a.dest_private && !(a.source_scratch && al.scratch_source)) return false;
  if (al.staging != kSource && !g.team_mode()) return false;
  if (al.staging != kSource && scratch_need(g, al.staging) > g.scratch_slot()) return false;
  if (pushes(al) && g.size() > kPushMembers) return false;
  return al.in_place || a.dest != a.source;
}

const Algorithm& select(const Group& g) {
  const Args& a = g.args;
  const Algorithm* f = forced(a.kind, a.call);
  if (f && can_serve(*f, g)) return *f;
  const std::size_t bytes = a.count * a.elem;
  // Oversubscribed, every wait for a descheduled member costs a scheduler
  // round; over several hosts, a network round trip: the one-synchronisation
  // scratch rows win whenever the data fits, but for those that keep their
  // bound on one host (NOTE [selection]).
  const bool oversubscribed = g_runtime->oversubscribed();
  auto one_sync = [&](const Algorithm& al) {
    return al.staging == kScratch && (g.spans_hosts() || (oversubscribed && !al.keeps_bound));
  };
  for (const Algorithm& al : kTable)
    if (al.kind == a.kind && (bytes <= al.max_bytes || one_sync(al)) &&
        (!across_hosts(al) || g.spans_hosts()) && g.size() >= al.min_pes &&
        (al.max_pes == 0 || g.size() <= al.max_pes) && can_serve(al, g) &&
        (al.staging != kLeaders || g.hosts() < g.size() || !has_push_row(a.kind)))
      return al;
  for (const Algorithm& al : kTable)  // the last row of every kind serves any call
    if (al.kind == a.kind && can_serve(al, g)) return al;
  usage_error(a.call, "no %s algorithm serves this call", kind_name(a.kind));
}

// ---- argument checks ----------------------------------------------------------

void check_range(const void* p, std::size_t bytes, const char* what, const Args& a, int me) {
  if (bytes == 0) return;
  if (a.dest_private && p == a.dest) return;  // private memory: no peer reads it
  if (a.region) {  // a communicator's window, or the heap
    const auto* q = static_cast<const std::uint8_t*>(p);
    const std::uint8_t* mine = a.region->bases[me];
    if (q >= mine && bytes <= a.region->bytes && static_cast<std::size_t>(q - mine) <= a.region->bytes - bytes) return;
  }
  if (!g_runtime->shm().translate(p, bytes, g_runtime->my_pe()))
    usage_error(a.call, "%s [%p, +%zu bytes) is not symmetric: it must lie in the symmetric heap (shmem_malloc) or "
                "be a global or static variable, the same on every PE", what, p, bytes);
}

// Collects and alltoalls have no in-place form: each member's dest holds
// blocks that peers' sources feed while they read its source.
void check_disjoint(const Args& a, std::size_t src_bytes, std::size_t dst_bytes) {
  auto* s = static_cast<const char*>(a.source);
  auto* d = static_cast<const char*>(a.dest);
  if (src_bytes && dst_bytes && s < d + dst_bytes && d < s + src_bytes)
    usage_error(a.call, "source [%p, +%zu bytes) and dest [%p, +%zu bytes) overlap; a %s needs disjoint arrays",
                a.source, src_bytes, a.dest, dst_bytes, kind_name(a.kind));
}

// a * b, or a usage error when the product does not fit in a size_t.
std::size_t times(std::size_t a, std::size_t b, const Args& args) {
  std::size_t r;
  if (__builtin_mul_overflow(a, b, &r))
    usage_error(args.call, "the call spans more than 2^64 bytes (%zu x %zu): nelems or a stride is too large", a, b);
  return r;
}

// Either the same array or disjoint ones (reductions, broadcasts).
void check_same_or_disjoint(const Args& a, std::size_t bytes) {
  auto* s = static_cast<const char*>(a.source);
  auto* d = static_cast<const char*>(a.dest);
  if (s != d && s < d + bytes && d < s + bytes)
    usage_error(a.call, "source %p and dest %p overlap without being equal; a %s is either in place (the same "
                "address) or between disjoint arrays", a.source, a.dest, kind_name(a.kind));
}

void check_args(const Args& a, int n, int me, const char* group) {
  if (a.dest_private && a.source == a.dest)
    usage_error(a.call, "an in-place call cannot have a private dest: peers read the source");
  const std::size_t bytes = times(a.count, a.elem, a);
  switch (a.kind) {
    case Kind::Broadcast:
      if (a.root < 0 || a.root >= n)
        usage_error(a.call, "PE_root %d is out of range: the %s has PEs 0..%d", a.root, group, n - 1);
      check_range(a.source, bytes, "source", a, me);
      check_range(a.dest, bytes, "dest", a, me);
      check_same_or_disjoint(a, bytes);
      break;
    case Kind::Collect:
    case Kind::Fcollect: {
      // A collect's dest is checked once the members' counts are known (pull.cpp).
      const std::size_t dest = a.kind == Kind::Fcollect ? times(bytes, n, a) : bytes;
      check_range(a.source, bytes, "source", a, me);
      check_range(a.dest, dest, "dest", a, me);
      check_disjoint(a, bytes, dest);
      break;
    }
    case Kind::Alltoall:
      check_range(a.source, times(bytes, n, a), "source", a, me);
      check_range(a.dest, bytes * n, "dest", a, me);
      check_disjoint(a, bytes * n, bytes * n);
      break;
    case Kind::Alltoalls: {
      if (a.dst_stride < 1 || a.src_stride < 1)
        usage_error(a.call, "strides dst=%td and sst=%td must be at least 1", a.dst_stride, a.src_stride);
      if (a.count == 0) break;
      const std::size_t last = times(a.count, n, a) - 1;  // index of the last element moved
      const std::size_t src = times(times(last, a.src_stride, a) + 1, a.elem, a);
      const std::size_t dst = times(times(last, a.dst_stride, a) + 1, a.elem, a);
      check_range(a.source, src, "source", a, me);
      check_range(a.dest, dst, "dest", a, me);
      check_disjoint(a, src, dst);
      break;
    }
    case Kind::Reduce:
      check_range(a.source, bytes, "source", a, me);
      check_range(a.dest, bytes, "dest", a, me);
      check_same_or_disjoint(a, bytes);
      break;
    case Kind::ReduceScatter:
      check_range(a.source, times(bytes, n, a), "source", a, me);
      check_range(a.dest, bytes, "dest", a, me);
      check_disjoint(a, bytes * n, bytes);
      break;
    case Kind::Alltoallv: {
      if (!a.counts) usage_error(a.call, "an alltoallv needs its send-count matrix (Args::counts is null)");
      std::size_t sent = 0, received = 0;
      for (int k = 0; k < n; ++k) {
        if (__builtin_add_overflow(sent, a.counts[me * n + k], &sent) ||
            __builtin_add_overflow(received, a.counts[k * n + me], &received))
          usage_error(a.call, "the send-count matrix overflows 64 bits in row or column %d", me);
      }
      check_range(a.source, times(sent, a.elem, a), "source", a, me);
      check_range(a.dest, times(received, a.elem, a), "dest", a, me);
      check_disjoint(a, sent * a.elem, received * a.elem);
      break;
    }
  }
}

// A call of one PE: the whole job is this PE.
void run_alone(const Args& a) {
  const std::size_t bytes = a.count * a.elem;
  if (a.kind == Kind::Alltoalls) return copy_block(a, static_cast<char*>(a.dest), static_cast<const char*>(a.source), 0);
  if (a.kind == Kind::Broadcast && !a.root_dest) return;
  const std::size_t moved = a.kind == Kind::Alltoallv ? a.counts[0] * a.elem : bytes;
  if (a.dest != a.source) std::memmove(a.dest, a.source, moved);
}

// ---- checked mode -----------------------------------------------------------------

// NOTE [checked mode] With TILECOMM_CHECK=1 every call first compares
// itself with the team's first member (the leader): the leader publishes its
// call in its record, each other member compares and adds 1 to the leader's
// check word, and the leader waits for all of them before its record may
// change. A mismatch ends the job on the member that found it, naming both
// calls; the leader then leaves its wait because the job failed. Comparing
// everybody with the leader finds every mismatch: two members that differ
// cannot both agree with it.
enum Field { kTag, kKindField, kRoot, kCountField, kElem, kTypeOp, kDst, kSrc, kInPlace, kName };
constexpr std::size_t kNameBytes = (kRecordWords - kName) * sizeof(std::uint64_t);

bool reduces(Kind k) { return k == Kind::Reduce || k == Kind::ReduceScatter; }

// FNV-1a over an alltoallv's send-count matrix: members compare the hash.
std::uint64_t matrix_hash(const Args& a, int members) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = reinterpret_cast<const unsigned char*>(a.counts);
  for (std::size_t i = 0; i < std::size_t{sizeof(std::uint64_t)} * members * members; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

void fill_record(const Args& a, int members, std::uint64_t* r) {
  r[kKindField] = static_cast<std::uint64_t>(a.kind);
  r[kRoot] = a.kind == Kind::Broadcast ? static_cast<std::uint64_t>(a.root) : 0;
  r[kCountField] = a.kind == Kind::Collect ? 0 : a.count;
  if (a.kind == Kind::Alltoallv) r[kCountField] = matrix_hash(a, members);
  r[kElem] = a.elem;
  r[kTypeOp] = reduces(a.kind) ? (static_cast<std::uint64_t>(a.dtype) << 8 | static_cast<std::uint64_t>(a.op)) : 0;
  r[kDst] = a.kind == Kind::Alltoalls ? static_cast<std::uint64_t>(a.dst_stride) : 0;
  r[kSrc] = a.kind == Kind::Alltoalls ? static_cast<std::uint64_t>(a.src_stride) : 0;
  r[kInPlace] = a.dest == a.source;
  char name[kNameBytes] = {};
  std::strncpy(name, a.call, kNameBytes - 1);
  std::memcpy(r + kName, name, kNameBytes);
}

std::string describe(const std::uint64_t* r) {
  char name[kNameBytes];
  std::memcpy(name, r + kName, kNameBytes);
  name[kNameBytes - 1] = 0;
  const auto kind = static_cast<Kind>(r[kKindField]);
  std::string s = strprintf("%s (%s", name, kind_name(kind));
  if (kind == Kind::Alltoallv) s += strprintf(", send counts hashing to %016llx", static_cast<unsigned long long>(r[kCountField]));
  else if (kind != Kind::Collect) s += strprintf(", %llu elements", static_cast<unsigned long long>(r[kCountField]));
  s += strprintf(" of %llu bytes", static_cast<unsigned long long>(r[kElem]));
  if (kind == Kind::Broadcast) s += strprintf(", root %llu", static_cast<unsigned long long>(r[kRoot]));
  if (reduces(kind))
    s += strprintf(", %s %s", dtype_name(static_cast<DType>(r[kTypeOp] >> 8)), op_name(static_cast<Op>(r[kTypeOp] & 0xff)));
  if (kind == Kind::Alltoalls)
    s += strprintf(", strides dst %lld sst %lld", static_cast<long long>(r[kDst]), static_cast<long long>(r[kSrc]));
  if (r[kInPlace]) s += ", in place";
  return s + ")";
}

void check_call(Group& g) {
  const int n = g.size();
  std::uint64_t mine[kRecordWords];
  fill_record(g.args, n, mine);
  std::uint64_t* record = g.record();  // the leader's, on the leader
  auto& tag = *reinterpret_cast<std::atomic<std::uint64_t>*>(record + kTag);
  if (g.me() == 0) {
    std::memcpy(record + 1, mine + 1, (kRecordWords - 1) * sizeof(std::uint64_t));
    tag.store(g.tag(), std::memory_order_release);
    const std::uint64_t target = g.checked_target(n - 1);
    g.wait(0, kCheck, target, "the other members' confirmations of this call (TILECOMM_CHECK)");
    return;
  }
  g.wait(0, tag, g.tag(), "its call (TILECOMM_CHECK)");
  std::uint64_t theirs[kRecordWords];
  g.get(theirs, record, sizeof theirs, 0);
  if (!std::equal(mine + 1, mine + kName, theirs + 1))
    usage_error(g.args.call, "TILECOMM_CHECK: the members of this %s made different collective calls: this PE (member "
                "%d) called %s but PE %d (member 0) called %s, as call %llu of the %s; every member must make the "
                "same collective calls in the same order with the same root, count, type, operation and "
                "in-place choice",
                g.team_mode() ? "team" : "active set", g.me(), describe(mine).c_str(), g.world(0),
                describe(theirs).c_str(), static_cast<unsigned long long>(g.tag()),
                g.team_mode() ? "team" : "active set");
  g.add(0, g.word(kCheck), 1);
}

void execute(Group& g) {
  const Args& a = g.args;
  try {
    if (g_runtime->config().check) check_call(g);
    if (a.count == 0 && a.kind != Kind::Collect && a.kind != Kind::Alltoallv) g.arrive();  // nothing to move, but the call is made
    else select(g).run(g);
  } catch (const Error& e) {
    fatal_error(a.call, e);
  }
  g.finish();
}

}  // namespace

// NOTE [host leaders]: before its first collective a team learns which of
// its members share a host, from init's map of the job's hosts
// (Runtime::host_of), without a word exchanged. Hosts are numbered in the
// order of their first members.
void learn_hosts(tilecomm_team& team) {
  std::vector<int>& host = team.coll.host;
  std::vector<std::vector<int>>& members = team.coll.members;
  std::unordered_map<int, int> number;  // a host's first PE in the job -> its number in the team
  host.assign(team.size, 0);
  for (int k = 0; k < team.size; ++k) {
    const auto [it, fresh] = number.try_emplace(g_runtime->host_of(team.world(k)), static_cast<int>(members.size()));
    if (fresh) members.emplace_back();
    host[k] = it->second;
    members[host[k]].push_back(k);
    team.coll.widest = std::max(team.coll.widest, static_cast<int>(members[host[k]].size()));
  }
}

std::size_t scratch_need(const Group& g, Staging staging) {
  const Args& a = g.args;
  const int members = g.size();
  const std::size_t bytes = a.count * a.elem;
  if (staging == Staging::Leaders)  // a collect's head and its leader's list of counts (hier_collect)
    return a.kind == Kind::Collect ? collect_list_bytes(g.widest()) : 0;
  if (staging == Staging::Put) return 0;
  if (staging == Staging::Push) {  // a region per sender (NOTE [pushed words])
    switch (a.kind) {
      case Kind::Broadcast: return bytes;
      case Kind::Fcollect: case Kind::Alltoall: case Kind::Reduce: return (members - 1) * push_region(bytes);
      default: return kAny;
    }
  }
  switch (a.kind) {
    case Kind::Alltoall: return bytes * members;
    case Kind::Collect: return 64;  // the header; the bytes go through scratch where they fit
    case Kind::Alltoalls: case Kind::Alltoallv: return kAny;
    default: return bytes;
  }
}

int run(tilecomm_team* team, const Args& a) {
  shmem::rt(a.call);
  if (!team) return -1;
  check_args(a, team->size, team->my_pe, "team");
  if (team->size == 1) {
    run_alone(a);
    return 0;
  }
  Group g(*team, a);
  execute(g);
  return 0;
}

void exchange(tilecomm_team* team, const void* mine, std::size_t len, void* all, const char* call) {
  shmem::rt(call);
  if (len > kScratchMin / kScratchSlots) usage_error(call, "coll::exchange moves at most %zu bytes per member, not %zu", kScratchMin / kScratchSlots, len);
  Args a;
  a.kind = Kind::Fcollect;
  a.dest = all;
  a.source = mine;
  a.count = len;
  a.call = call;
  if (team->size == 1) return run_alone(a);
  Group g(*team, a);
  try {
    scratch_fcollect(g);  // copies through the scratch slots: local buffers are fine
  } catch (const Error& e) {
    fatal_error(call, e);
  }
}

void run_active_set(int start, int log_stride, int size, long* psync, const Args& a) {
  const int me = shmem::active_set_member(start, log_stride, size, a.call);
  if (a.region) usage_error(a.call, "a region (communicator window) serves team collectives only");
  check_args(a, size, me, "active set");
  check_range(psync, kPsyncLongs * sizeof(long), "pSync", a, me);
  if (size == 1) return run_alone(a);
  // NOTE [collective words]: an active set's tag counts the calls made with this pSync and set.
  static std::mutex mutex;
  static std::map<std::tuple<long*, int, int, int>, std::uint64_t> calls;
  std::uint64_t tag;
  {
    std::lock_guard<std::mutex> lock(mutex);
    tag = ++calls[{psync, start, log_stride, size}];
  }
  Group g(start, 1 << log_stride, size, me, psync, tag, a);
  execute(g);
}

std::string selection_table() {
  const Config& cfg = g_runtime ? g_runtime->config() : process_config();
  std::string s = strprintf("  peers reached by: %s (TILECOMM_COLL_LOAD_STORE=%d)\n",
                            cfg.coll_load_store ? "loads and stores through the shared mapping"
                                                : "the transports' get and atomics",
                            static_cast<int>(cfg.coll_load_store));
  const std::size_t stream = stream_bytes(cfg);
  const std::string when = stream == kNeverStream ? "never" : strprintf("from %zu bytes written per PE and call", stream);
  const char* why = cfg.coll_stream             ? ""
                    : stream == kNeverStream ? ": this CPU's string copies need none"
                                             : ": 16 x this CPU's L2 cache";
  s += strprintf("  copies use non-temporal stores: %s (TILECOMM_COLL_STREAM=%zu%s)\n", when.c_str(), cfg.coll_stream, why);
  static const char* const kStores[][2] = {{"auto", "the faster kind, measured per kind of call and size"},
                                           {"cached", "ordinary stores"},
                                           {"streaming", "non-temporal stores from 4 KiB"}};
  const auto& stores = kStores[static_cast<int>(cfg.publish_stores)];
  s += strprintf("  but copies that peers read next (rsag's reduced chunks, the operators' staging) use: %s "
                 "(TILECOMM_PUBLISH_STORES=%s)\n", stores[1], stores[0]);
  for (int i = 0; i < kKinds; ++i) {
    const Kind k = static_cast<Kind>(i);
    s += strprintf("  %-14s TILECOMM_COLL_%s=%s\n", kind_name(k), upper(kind_name(k)).c_str(),
                   forced_name(cfg, k).c_str());
    bool reachable = true;  // auto can still pick this row: no earlier row serves every call
    for (const Algorithm& al : kTable) {
      if (al.kind != k) continue;
      const std::size_t slot = cfg.coll_scratch / kScratchSlots;
      std::string when = "teams and active sets";
      if (al.staging == kScratch)
        when = strprintf("teams, data up to a scratch slot (%zu bytes%s)", slot, k == Kind::Alltoall ? " for all blocks" : "");
      if (al.staging == kPush)
        when = strprintf("teams of up to %d members whose data fit each receiver's scratch slot (%zu bytes%s), auto "
                         "only when the team spans hosts", kPushMembers, slot, k == Kind::Broadcast ? "" : ", a region per sender");
      if (al.staging == kPut)
        when = strprintf("teams of up to %d members, auto only when the team spans hosts", kPushMembers);
      if (al.staging == kLeaders)
        when = std::string("teams, auto only when the team spans hosts") +
               (has_push_row(k) ? " and one of them has several members" : "") + " (leaders fetch each other's " +
               (k == Kind::Collect ? strprintf("counts over more than %d hosts, and blocks that do not fit a region of "
                                               "a scratch slot where a host's exceed %zu bytes; hosts of up to %zu "
                                               "members)", kLeaderHosts, kPutShare,
                                               (slot - kCollectHead) / sizeof(std::uint64_t))
                                   : strprintf("shares over more than %d hosts)", kLeaderHosts));
      if (al.max_bytes != kAny)
        when += strprintf(", auto up to %zu bytes per PE%s", al.max_bytes,
                          al.staging != kScratch ? ""
                          : al.keeps_bound       ? " (any that fits when the team spans hosts)"
                                                 : " (any that fits when PEs outnumber CPUs or the team spans hosts)");
      if (al.min_pes > 2) when += strprintf(", auto from %d PEs", al.min_pes);
      if (al.max_pes && !pushes(al)) when += strprintf(", auto up to %d PEs", al.max_pes);
      if (!al.in_place) when += ", not in place";
      s += strprintf("    %-8s %s%s\n", al.name, when.c_str(), reachable ? "" : " (only when forced)");
      if (al.staging == kSource && al.in_place && al.max_bytes == kAny && al.min_pes <= 2) reachable = false;
    }
  }
  return s;
}

}  // namespace tilecomm::coll
