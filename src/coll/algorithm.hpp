// Inside the collective library: the members of a call, their
// synchronisation words, and the record that describes an algorithm.
//
// NOTE [collective words] Every member of a team has five 64-bit words per
// team slot, each on its own cache line (shmem::CollWords in its control
// block); an active set keeps the same five in its pSync array instead.
//   arrive    I have entered call e (and my data for it is ready): = tag(e).
//   done      peers that finished reading my data add 1 each (a counter).
//   progress  rsag: (tag << 24) | chunks of my slice reduced so far.
//   count     collect: the bytes I contribute (bit 63: they are in my scratch).
//   check     checked mode, on the leader: members that compared their call.
// Only the owner writes arrive, progress and count; peers only read them
// and add to done and check. The values only grow in a team (tag(e) is the
// team's call number e), so no word is ever reset and a fast member that is
// already in the next call cannot be mistaken for a slow one in this call:
// every wait is "word >= value of this call". An active set's pSync must be
// all zero again on return, so there tag(e) counts the calls made with that
// pSync and set, and each member clears its words before it returns, once
// nobody can read them any more (they have reported on done).
//
// NOTE [scratch slots] Each team slot has TILECOMM_COLL_SCRATCH bytes of
// scratch per PE, in kScratchSlots slots used in turn: call e copies into
// slot e % kScratchSlots. Before a member overwrites a slot, every member
// must have left the call e - kScratchSlots that used it last, which they
// have once they entered call e - kScratchSlots + 1: arrive >= that tag on
// every member. A call that waited for every member's arrival proves it for
// free, so `entered` remembers the last such call and the check costs
// nothing after an fcollect, alltoall or reduction. A broadcast root waits
// for nobody: with 32 slots it may run 31 calls ahead of its slowest reader
// before it polls the members' arrive words, which matters when PEs
// outnumber CPUs and readers wait for the scheduler (4 PEs on 2 CPUs,
// broadcast 8 B: 3.4 us with 2 slots, 1.16 with 8, 0.34 with 32, measured
// before such calls went in tagged lines, which have their own count).
// The slots lie kScratchSkew (64) bytes apart beyond their size
// (Runtime::coll_scratch): slots a multiple of 4 KiB apart start in the same
// cache sets, and successive calls then evict each other's lines (2 PEs,
// broadcast through 8 KiB slots, 1 KiB: 0.40 us without the skew, 0.31
// with it, as through 2 KiB slots).
//
// NOTE [tagged lines] A call whose data are at most 56 bytes per member,
// among members that all reach each other by loads and stores, passes them
// in a tagged record: the bytes, then the call's tag. Each team slot has
// three rings of records on every PE, 8 KiB each: 512 records of 16 bytes
// (data up to 8 bytes), 128 of 64 and 64 of 128. A call takes the ring of
// the smallest record that holds its data (all members have the same
// amount, so they agree; a collect, whose members do not, always takes the
// 64-byte ring) and its record e % records of that ring, reused under the
// slot rule above with the ring's record count for kScratchSlots
// (claim_line). A broadcast root so runs up to 511, 127 or 63 calls ahead.
// The writer stores the bytes, then the tag (release); a reader waits for
// the tag (acquire) and copies the bytes, which came with it. A small call
// so costs a reader one line's trip between CPUs instead of two (the
// arrive word's, then the scratch slot's): fcollect of 8 B at 2 PEs,
// 0.39-0.42 against 0.52-0.55 us (AMD EPYC). Each ring holds one record
// size, nothing else writes it, and a team slot's rings are zeroed when a
// new team takes it (as its words are), so a tag word only ever holds tags,
// only grows, and a record of an older call never passes for this one.
// The writer still raises its arrive word, which claim_line and
// claim_scratch read.
// Where the reader runs behind the writer, as a broadcast's readers do
// behind a root that waits for nobody, four 16-byte records share a line
// and the reader's trips are prefetched: broadcast of 8 B at 2 PEs, 0.15
// against 0.20 us, at 4 PEs 0.21 against 0.33; and data of up to 120 bytes
// take a 128-byte record instead of the arrive word and scratch (64 B at
// 2 PEs: 0.21 against 0.22 us, at 4 PEs 0.37 against 0.41). Where members
// meet in lock step, small records still gain a little (fcollect and sum
// of 8 B at 2 PEs, 0.34 against 0.36 us), but records of two lines lose
// (0.42-0.48 against 0.39-0.41 us at 64-120 B): every member waits for
// the last line and then takes the first, two trips one after the other,
// so only a broadcast uses them. Larger data spread over several records,
// each polled, measured slower than the scratch slot (2 PEs, reduce 256 B:
// 0.22 against 0.17 us): a reader's polls take each line from the writer
// while it is still writing them. All numbers from one AMD EPYC host, the
// two variants alternated in one run.
//
// NOTE [pushed words] Between hosts a wait for a peer's word is a network
// round trip per poll, and a pull then needs another to fetch the bytes.
// The push and put algorithms (push.cpp; teams of up to kPushMembers
// members) have the receivers wait on their own memory instead: member k
// raises its word pushed[k] on a receiver after the data it sends there,
// ordered before the word (put_signal). Push sends the data into the
// receivers' scratch slots of the call (a region per sender, for data that
// fit), put straight into their destinations, which must first be free:
// each receiver raises its word on each sender when it enters the call
// ("ready"). Call e brings the words to 2e - 1 (ready) and 2e (data): a
// sender adds the difference to the value it last brought that word to
// (tilecomm_team::coll.pushed, per receiver), so a word only grows, is
// never reset, and a word of a later call landing early says nothing
// false about this one (every sender orders its adds to one receiver). A
// push into a slot follows the slot rule above (claim_scratch), which
// covers readers of earlier pull calls of the same slot too.
//
// NOTE [host leaders] A team over several hosts may go host by host
// (hier.cpp): the members of each host meet through shared memory at their
// host's leader (its first member), and only the leaders talk across hosts,
// so a host's data crosses the network once, not once per member. Each
// member learns the team's hosts once, before the team's first collective,
// from init's map of the job's hosts (learn_hosts in coll.cpp; no message:
// Runtime::host_of). Leaders push to each other as
// members do (NOTE [pushed words]), on a second set of words indexed by
// host (led[h]: host h's leader's pushes to me), for teams of any size
// over up to kLeaderHosts hosts; only leaders write and read them, and a
// leader never changes in a team. Over more hosts, leaders fetch each
// other's shares instead, on their own words (gathered, done). A leader tells its host's
// members that its dest holds the result by raising its progress word to
// published() (the top of this call's rsag range: nothing else of this
// call writes it), and waits for their done reports before it returns.
//
// NOTE [transport verbs] An algorithm never touches a peer's memory itself:
// it reads peers' bytes with get() and view() and peers' words with load(),
// add() and wait(), and writes only its own buffers and words. For a member
// whose memory is mapped here the verbs are loads, stores and copies through
// the mapping (the fast path); otherwise they are the transport's get and
// atomics on the route the runtime gives that PE (Runtime::transport()),
// as for a member on another host, without a change to any algorithm. The
// choice is per member (Group::direct): the members of this host are
// mapped, those of other hosts are not; TILECOMM_COLL_LOAD_STORE=0 takes the
// transport path for every member, and the tests run every algorithm so,
// with gets through the SDMA engine too. Data in a Region (a communicator's
// windows) always take the mapping. How a call over several hosts is split
// into shared-memory and transport steps: NOTE [host leaders], and
// docs/ARCHITECTURE.md, "Collectives".
#pragma once

#include <atomic>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "coll/coll.hpp"
#include "core/wait.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm::coll {

constexpr int kScratchSlots = shmem::kCollSlots;
constexpr int kLines = shmem::kCollLines;
constexpr int kRings = shmem::kCollRings;
constexpr std::size_t kRecordBytes[kRings] = {16, 64, 128};  // tagged records: data, then the tag
constexpr std::size_t kRecords[kRings] = {kLines * 64 / 16, kLines * 64 / 64, kLines * 64 / 128};  // per ring
static_assert(std::has_single_bit(kRecords[0]) && std::has_single_bit(kRecords[1]) && std::has_single_bit(kRecords[2]));
constexpr std::size_t kScratchMin = kScratchSlots * 64;  // TILECOMM_COLL_SCRATCH: one collect header per slot

enum Word : int { kArrive = 0, kDone = 1, kProgress = 2, kCount = 3, kCheck = 4 };
constexpr int kWords = 5;
// In a pSync the words start at long 8: longs 0..3 stay for the active-set
// barrier (capi/sync.cpp), so shmem_barrier may follow a collective on the
// same pSync at once.
constexpr int kPsyncFirstWord = 8;
constexpr int kPsyncWordStride = 8;    // longs between the words in a pSync (one cache line)
constexpr int kPsyncRecord = kPsyncFirstWord + kWords * kPsyncWordStride;  // the checked-mode record
constexpr int kRecordWords = 16;
constexpr int kPsyncLongs = kPsyncRecord + kRecordWords;  // pSync longs used (SHMEM_*_SYNC_SIZE is 64)
static_assert(kPsyncLongs <= 64);
constexpr int kProgressShift = 24;     // rsag progress: tag << 24 | chunks

/// The members of one call, where they synchronise, and how bytes and
/// words reach them (NOTE [transport verbs]).
class Group {
 public:
  /// A team's call: words in the control blocks, scratch available.
  Group(tilecomm_team& team, const Args& args);
  /// An active set's call: words in `psync`, no scratch.
  Group(int start, int stride, int size, int me, long* psync, std::uint64_t tag, const Args& args);

  const Args& args;
  int size() const { return size_; }
  int me() const { return me_; }
  int world(int member) const { return start_ + member * stride_; }
  std::uint64_t tag() const { return tag_; }
  bool team_mode() const { return team_ != nullptr; }
  /// Some member is on another host (NOTE [host groups]).
  bool spans_hosts() const { return spans_hosts_; }

  // ---- words: each member owns its own; peers read them and add to them ----
  /// My word `w` (a symmetric address: the same offset on every member).
  std::atomic<std::uint64_t>& word(Word w) const;
  /// My checked-mode record (symmetric, kRecordWords long).
  std::uint64_t* record() const;
  /// The value of my symmetric word `at` on `member` (acquire).
  std::uint64_t load(int member, const std::atomic<std::uint64_t>& at) const;
  std::uint64_t load(int member, Word w) const { return load(member, word(w)); }
  /// Adds v to my symmetric word `at` on `member` (release).
  void add(int member, std::atomic<std::uint64_t>& at, std::uint64_t v) const;
  /// Raises my arrive word to this call's tag (after my data is ready).
  void arrive() { word(kArrive).store(tag_, std::memory_order_release); }
  /// Waits until `member`'s copy of my word `at` is at least `value`, and
  /// returns the value seen; `what` says what the value means, for the
  /// message when the member fails.
  std::uint64_t wait(int member, const std::atomic<std::uint64_t>& at, std::uint64_t value, const char* what) const;
  std::uint64_t wait(int member, Word w, std::uint64_t value, const char* what) const {
    return wait(member, word(w), value, what);
  }
  void wait_arrival(int member) const { wait(member, kArrive, tag_, "its arrival"); }
  /// Calls fn(member) for each peer once it has arrived, in the order they
  /// arrive (scanning from the next member on), so that a member that waits
  /// for the scheduler holds up nobody who could be served meanwhile; then
  /// scratch slots of older calls are free.
  template <class Fn>
  void each_arrival(Fn&& fn) {
    each_raised(word(kArrive), "its arrival", fn);
  }
  /// As each_arrival, for peers' copies of my symmetric word `at` reaching
  /// this call's tag (raised after their data for this call, as arrive is).
  template <class Fn>
  void each_raised(const std::atomic<std::uint64_t>& at, const char* what, Fn&& fn) {
    each_peer([&](int k) { return load(k, at) >= tag_; }, [&](int k) { wait(k, at, tag_, what); }, fn);
    all_arrived();
  }
  void wait_all_arrived() { each_arrival([](int) {}); }
  /// Tells `member` that I finished reading its data.
  void report_done(int member) const { add(member, word(kDone), 1); }
  /// Waits until `readers` more peers have reported reading my data (or
  /// what `what` says they report: the same word counts put_done()s).
  void wait_readers(int readers, const char* what = "finish reading this PE's data");
  /// Checked mode, as leader: the check word's value once `members` more confirmed.
  std::uint64_t checked_target(int members) {
    return team_ ? team_->coll.checks += static_cast<std::uint64_t>(members) : static_cast<std::uint64_t>(members);
  }

  // ---- bytes ----
  /// Copies the n bytes at my symmetric address `src`, as `member` holds
  /// them, to my local `dst` (stream: NOTE [streaming copies]).
  void get(void* dst, const void* src, std::size_t n, int member, bool stream = false);
  /// As get(), but through a transport the bytes may arrive only at
  /// complete_gets(): a leader fetching from several hosts overlaps their
  /// round trips. `dst` must not be read before.
  void post_get(void* dst, const void* src, std::size_t n, int member, bool stream = false);
  void complete_gets();
  /// The n bytes at my symmetric address `src`, as `member` holds them,
  /// readable here until the next view into the same `buffer` (0 or 1): the
  /// peer's mapping, or a copy.
  const char* view(const void* src, std::size_t n, int member, int buffer = 0);

  /// My scratch slot of this call (team mode only; symmetric).
  char* scratch() const;
  std::size_t scratch_slot() const { return scratch_slot_; }
  /// Before I overwrite my scratch slot: waits until it is free (NOTE [scratch slots]).
  void claim_scratch() { claim(kScratchSlots); }
  /// Before I write my tagged record of n bytes (and no scratch): picks
  /// its ring (line_ring) and waits until its record is free.
  void claim_line(std::size_t n) {
    line_ring(n);
    claim(static_cast<int>(records()));
  }

  // ---- tagged records (NOTE [tagged lines]; after claim_line, or claim_scratch and line_ring) ----
  /// Whether `bytes` per member travel in this call's tagged records: up
  /// to one line's worth, or two lines' where the readers run behind the
  /// writer (`behind`: a broadcast's).
  bool fits_line(std::size_t bytes, bool behind = false) const {
    return team_ && direct_ && bytes <= kRecordBytes[behind ? kRings - 1 : kRings - 2] - 8;
  }
  /// This call's records take up to n bytes: the ring of the smallest
  /// that holds them, and my record of this call in it.
  void line_ring(std::size_t n) {
    ring_ = 0;
    while (kRecordBytes[ring_] - 8 < n) ++ring_;
    line_ = my_record();
  }
  /// Writes n bytes into my record of this call, then its tag (release).
  void write_line(const void* src, std::size_t n);
  /// `member`'s record of this call, mapped here (after waiting for it).
  const char* line_of(int member) const { return mapped(line(), member); }
  void wait_line(int member) const { wait(member, line_tag(), tag_, "its data"); }
  /// Calls fn(member) for each peer once its record of this call is there.
  template <class Fn>
  void each_line(Fn&& fn) {
    each_raised(line_tag(), "its data", fn);
  }

  // ---- pushes and puts to peers (NOTE [pushed words]; team mode) ----
  /// Tells `member` that my dest is free for this call's puts.
  void ready(int member);
  /// Puts the n bytes at my local `src` to `member`'s copy of my symmetric
  /// address `dst` (a scratch slot, or a dest that member said is ready),
  /// then raises my pushed word on `member` to say they are there.
  void push(int member, void* dst, const void* src, std::size_t n);
  /// Waits until `member` pushed its data to me.
  void wait_push(int member) const { wait_pushed(member, false, 2 * tag_, "the data it pushes to this PE"); }
  /// Calls fn(member) for each peer once it said ready / its push landed,
  /// in the order that happens; with `leaders`, fn(host) for each other
  /// host once its leader did (to me, a leader).
  template <class Fn>
  void each_ready(Fn&& fn, bool leaders = false) {
    each_pushed(leaders, 2 * tag_ - 1, "its dest ready for this PE's put", fn);
  }
  template <class Fn>
  void each_push(Fn&& fn, bool leaders = false) {
    each_pushed(leaders, 2 * tag_, "the data it pushes to this PE", fn);
    // Every member pushed, or every leader, each after gathering its host:
    // every member entered this call.
    all_arrived();
  }

  // ---- host by host (NOTE [host leaders]; team mode, after learn_hosts) ----
  int hosts() const { return static_cast<int>(team_->coll.members.size()); }
  int host(int member) const { return team_->coll.host[member]; }
  /// Members of host h, ascending (its leader first).
  const std::vector<int>& members_of(int h) const { return team_->coll.members[h]; }
  const std::vector<int>& host_members() const { return members_of(host(me_)); }
  int leader(int host) const { return members_of(host).front(); }
  /// Members on the team's most populated host.
  int widest() const { return team_->coll.widest; }
  /// As leader: tells the leader of `host` that my dest is free for its puts.
  void leader_ready(int host) { raise_pushed(leader(host), true, 2 * tag_ - 1, nullptr, nullptr, 0); }
  /// As leader: puts n bytes to the leader of `host` (at my symmetric `dst`)
  /// and raises my led word there; send() first puts without the word.
  void leader_push(int host, void* dst, const void* src, std::size_t n) {
    raise_pushed(leader(host), true, 2 * tag_, dst, src, n);
  }
  void send(int member, void* dst, const void* src, std::size_t n);
  /// Puts n bytes to `member`'s copy of my symmetric `dst`, then reports
  /// done to it: a receiver that knows how many such puts come counts them
  /// with wait_readers() (no reader of its data may report meanwhile).
  void put_done(int member, void* dst, const void* src, std::size_t n) { put_then_add(member, dst, src, n, word(kDone), 1); }
  void wait_leader_push(int host) const { wait_pushed(host, true, 2 * tag_, "the data its host's leader pushes to this PE"); }
  /// As leader: my dest holds my host's data for the other leaders
  /// (gathered; a collect's leader first says its host's counts are in its
  /// scratch slot, stage 1, then its blocks, stage 2), or the result for my
  /// host's members (published).
  void gathered(int stage = 1) { word(kProgress).store(tag_ << kProgressShift | stage, std::memory_order_release); }
  void wait_gathered(int host, int stage = 1) {
    wait(leader(host), kProgress, tag_ << kProgressShift | stage, stage == 1 ? "its host's data" : "its host's blocks");
  }
  void publish() { word(kProgress).store(published(), std::memory_order_release); }
  /// Waits until `member` (my leader) published; `all_entered`: it did so
  /// only after every member entered this call.
  void wait_published(int member, bool all_entered) {
    wait(member, kProgress, published(), "the result of its host");
    if (all_entered) all_arrived();
  }

  /// Active sets: clears my words (nobody reads them any more).
  void finish();

 private:
  // Waits until every member entered call tag_ - slots + 1 (NOTE [scratch slots]).
  void claim(int slots);
  void all_arrived() {
    if (team_) team_->coll.entered = tag_;
  }
  // The records of this call's ring; my record of this call, and its tag
  // (its last 8 bytes).
  std::size_t records() const { return kRecords[ring_]; }
  char* my_record() const;  // computed once per call, by line_ring
  char* line() const { return line_; }
  std::atomic<std::uint64_t>& line_tag() const {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(line_ + kRecordBytes[ring_] - 8);
  }
  /// The reads of member k are loads and copies through the mapping.
  bool direct(int member) const { return direct_ || (local_direct_ && shmem::g_runtime->local(world(member))); }
  /// The progress word's value that says a leader's result is in its dest.
  std::uint64_t published() const { return ((tag_ + 1) << kProgressShift) - 1; }
  /// Sender k's pushed word in my control block: member k's, or with
  /// `led` host k's leader's (NOTE [pushed words], NOTE [host leaders]).
  std::atomic<std::uint64_t>& pushed(int k, bool led = false) const;
  /// Adds to my pushed (led: my host's led) word on `member` to bring it to
  /// `value`, after the n bytes at `src` went to `member`'s copy of my
  /// symmetric `dst` (if n).
  void raise_pushed(int member, bool led, std::uint64_t value, void* dst, const void* src, std::size_t n);
  /// Puts the n bytes at `src` (if n) to `member`'s copy of my symmetric
  /// `dst`, then adds v to its copy of my word `at`, after them.
  void put_then_add(int member, void* dst, const void* src, std::size_t n, std::atomic<std::uint64_t>& at,
                    std::uint64_t v);
  void wait_pushed(int k, bool led, std::uint64_t value, const char* what) const;
  template <class Fn>
  void each_pushed(bool led, std::uint64_t value, const char* what, Fn&& fn) {
    each_of(led ? hosts() : size_, led ? host(me_) : me_,
            [&](int k) { return pushed(k, led).load(std::memory_order_acquire) >= value; },
            [&](int k) { wait_pushed(k, led, value, what); }, fn);
  }
  template <class Done, class Wait, class Fn>
  void each_peer(Done&& done, Wait&& wait, Fn&& fn) {
    each_of(size_, me_, done, wait, fn);
  }
  /// Calls fn(k) for each k of 0..n-1 but `me` once done(k), scanning from
  /// me + 1 on; when nobody new is done, wait(k) for the first still pending.
  template <class Done, class Wait, class Fn>
  void each_of(int n, int me, Done&& done, Wait&& wait, Fn&& fn) {
    std::vector<int>& pending = pending_;
    pending.clear();
    for (int i = 1; i < n; ++i) pending.push_back((me + i) % n);
    while (!pending.empty()) {
      std::size_t kept = 0;
      for (int k : pending) {
        if (done(k)) fn(k);
        else pending[kept++] = k;
      }
      if (kept == pending.size()) wait(pending.front());
      else pending.resize(kept);
    }
  }
  template <class T>
  T* mapped(T* local, int member) const {
    if (const Region* r = args.region) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(local);
      const std::uint8_t* mine = r->bases[me_];
      if (p >= mine && p < mine + r->bytes) return reinterpret_cast<T*>(r->bases[member] + (p - mine));
    }
    return reinterpret_cast<T*>(shm_.translate(local, world(member)));
  }
  transport::ShmTransport& shm_;
  bool spans_hosts_ = false;  // some member is on another host
  bool direct_ = false;  // load/store on every member (NOTE [transport verbs]); always for a Region
  bool local_direct_ = false;  // load/store on the members of this host
  tilecomm_team* team_ = nullptr;
  long* psync_ = nullptr;
  int start_, stride_, size_, me_;
  std::uint64_t tag_;
  int ring_ = 1;  // the ring of this call's tagged records
  char* line_ = nullptr;  // my record of this call in it (line_ring)
  std::size_t scratch_slot_ = 0;
  std::vector<char> staging_[2];
  std::vector<transport::Transport*> posted_;  // transports holding post_get()s
  static thread_local std::vector<int> pending_;
};

/// Some of the PEs start + k * stride (k < size) are on another host.
bool spans_hosts(int start, int stride, int size);
/// Fills team.coll's per-host member lists (NOTE [host leaders]); a team
/// Group does it before the team's first collective.
void learn_hosts(tilecomm_team& team);

/// Where an algorithm's bytes pass on their way to the readers.
enum class Staging : std::uint8_t {
  Source,   // read straight from the owners' buffers
  Scratch,  // copied into the owner's scratch slot, read from there
  Push,     // put into each reader's scratch slot (automatic only across hosts)
  Put,      // put into each reader's dest once it is ready (automatic only across hosts)
  Leaders,  // through each host's leader (automatic only across hosts; NOTE [host leaders])
};

/// One algorithm: what it serves, and its code.
struct Algorithm {
  const char* name;
  Kind kind;
  std::size_t max_bytes;  // automatic selection: calls of up to this many bytes per PE (SIZE_MAX: any)
  int min_pes;            // automatic selection: teams of at least this many members
  int max_pes;            // automatic selection: teams of up to this many members (0: any)
  Staging staging;        // where the bytes pass (all but Source: teams only)
  bool in_place;          // serves source == dest
  bool peer_dest;         // peers read or write a member's dest (not for Args::dest_private)
  void (*run)(Group& g);
  bool scratch_source = false;  // with Args::source_scratch peers read the source instead, so a
                                // private dest is served too (rsag)
  bool keeps_bound = false;     // a scratch row that stays within max_bytes when PEs outnumber
                                // CPUs (NOTE [selection])
};

/// The selection table (select.cpp): for each kind, the rows in the order
/// automatic selection tries them.
struct Table {
  const Algorithm* rows;
  int count;
};
Table table();

// The algorithms, one file each.
void scratch_broadcast(Group& g);   // scratch.cpp: through the scratch slots
void scratch_fcollect(Group& g);
void scratch_alltoall(Group& g);
void scratch_reduce(Group& g);
void pull_broadcast(Group& g);      // pull.cpp: straight from the peers' buffers
void pull_gather(Group& g);         // fcollect and collect, every block read in place
void mixed_collect(Group& g);       // collect: small blocks go through the scratch slot
void pull_alltoall(Group& g);       // alltoall and alltoalls
void oneshot_reduce(Group& g);      // oneshot.cpp
void rsag_reduce(Group& g);         // rsag.cpp
void pull_reduce_scatter(Group& g); // reduce_scatter.cpp
void pull_alltoallv(Group& g);      // pull.cpp
void tree_broadcast(Group& g);      // tree.cpp
void push_broadcast(Group& g);      // push.cpp: into the readers' scratch slots
void push_fcollect(Group& g);
void push_alltoall(Group& g);
void push_reduce(Group& g);
void put_broadcast(Group& g);       // push.cpp: into the readers' dests
void put_gather(Group& g);          // fcollect
void put_alltoall(Group& g);
void hier_broadcast(Group& g);      // hier.cpp: host by host (NOTE [host leaders])
void hier_fcollect(Group& g);
void hier_collect(Group& g);
void hier_reduce(Group& g);
/// The largest share host leaders put into each other's dests (hier.cpp).
constexpr std::size_t kPutShare = 32 << 10;
/// hier_collect's scratch slot: a member's count and its leader's total,
/// then, on a leader, its host's counts (8 bytes per member).
constexpr std::size_t kCollectHead = 2 * sizeof(std::uint64_t);
inline std::size_t collect_list_bytes(std::size_t members) { return kCollectHead + members * sizeof(std::uint64_t); }
/// A collect's dest must hold the `total` bytes its members contribute (pull.cpp).
void check_collect_dest(const Group& g, std::size_t total);

/// Bytes a scratch slot needs for this call with `staging`, or SIZE_MAX
/// when the call cannot pass that way (a collect decides per member).
std::size_t scratch_need(const Group& g, Staging staging);
/// Pushes: the bytes of a sender's region in a receiver's slot, and where
/// sender `from`'s region starts in receiver `to`'s slot (NOTE [pushed words]).
inline std::size_t push_region(std::size_t bytes) { return (bytes + 63) & ~std::size_t{63}; }
inline std::size_t push_offset(std::size_t bytes, int from, int to) {
  return static_cast<std::size_t>(from < to ? from : from - 1) * push_region(bytes);
}

/// Copies n bytes (dst and src may be the same, never partly overlap);
/// `stream`: with non-temporal stores, for calls larger than the caches
/// (NOTE [streaming copies] in copy.cpp; decided per call, see streaming()).
void copy(void* dst, const void* src, std::size_t n, bool stream);
/// Whether a call in which each member writes `bytes` to its dest streams
/// (stream_bytes(), coll.hpp).
inline bool streaming(std::size_t bytes) { return bytes >= stream_bytes(shmem::g_runtime->config()); }

/// dst[i] = a[i] op b[i] for `count` elements of `t`; dst may be a.
void reduce2(DType t, Op op, void* dst, const void* a, const void* b, std::size_t count);

/// The bytes of alltoall block `block` of `source` (strided for alltoalls), copied to `dst_block`.
void copy_block(const Args& a, char* dst_block, const char* src, int block, bool stream = false);

}  // namespace tilecomm::coll
