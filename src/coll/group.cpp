// The members of a collective call, their synchronisation words and the
// verbs that reach them (NOTE [collective words], NOTE [scratch slots],
// NOTE [transport verbs] in algorithm.hpp).
#include "coll/algorithm.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace tilecomm::coll {

using shmem::g_runtime;
using transport::AtomicOp;

thread_local std::vector<int> Group::pending_;

Group::Group(tilecomm_team& team, const Args& a)
    : args(a), shm_(g_runtime->shm()), team_(&team), start_(team.start), stride_(team.stride), size_(team.size),
      me_(team.my_pe), tag_(++team.coll.epoch), scratch_slot_(g_runtime->config().coll_scratch / kScratchSlots) {
  if (team.coll.host.empty()) learn_hosts(team);
  spans_hosts_ = team.coll.members.size() > 1;
  local_direct_ = g_runtime->config().coll_load_store;
  direct_ = a.region || (local_direct_ && !spans_hosts_);
}

Group::Group(int start, int stride, int size, int me, long* psync, std::uint64_t tag, const Args& a)
    : args(a), shm_(g_runtime->shm()), psync_(psync), start_(start), stride_(stride), size_(size), me_(me),
      tag_(tag) {
  spans_hosts_ = coll::spans_hosts(start_, stride_, size_);
  local_direct_ = g_runtime->config().coll_load_store;
  direct_ = local_direct_ && !spans_hosts_;
}

bool spans_hosts(int start, int stride, int size) {
  if (!g_runtime->spans_hosts()) return false;
  for (int k = 0; k < size; ++k)
    if (!g_runtime->local(start + k * stride)) return true;
  return false;
}

std::atomic<std::uint64_t>& Group::word(Word w) const {
  if (team_) return g_runtime->control().coll[team_->slot].word[w].value;
  return *reinterpret_cast<std::atomic<std::uint64_t>*>(psync_ + kPsyncFirstWord + w * kPsyncWordStride);
}

std::uint64_t* Group::record() const {
  if (team_) return g_runtime->control().coll[team_->slot].record;
  return reinterpret_cast<std::uint64_t*>(psync_ + kPsyncRecord);
}

std::uint64_t Group::load(int member, const std::atomic<std::uint64_t>& at) const {
  if (member == me_) return at.load(std::memory_order_acquire);
  if (direct(member)) return mapped(&at, member)->load(std::memory_order_acquire);
  transport::Transport& t = g_runtime->atomics(world(member));
  t.progress();
  return t.atomic(world(member), AtomicOp::Fetch, const_cast<std::atomic<std::uint64_t>*>(&at), 8, 0, 0);
}

void Group::add(int member, std::atomic<std::uint64_t>& at, std::uint64_t v) const {
  if (member == me_) at.fetch_add(v, std::memory_order_acq_rel);
  else if (direct(member)) mapped(&at, member)->fetch_add(v, std::memory_order_acq_rel);
  // A posted add that no quiet waits for: its owner polls the word (done,
  // check), as a barrier flag (AtomicOp::Notify, NOTE [ucx quiet]).
  else g_runtime->atomics(world(member)).atomic(world(member), AtomicOp::Notify, &at, 8, v, 0);
}

std::uint64_t Group::wait(int member, const std::atomic<std::uint64_t>& at, std::uint64_t value, const char* what) const {
  std::uint64_t seen = 0;
  WaitStatus st = wait_for([&] { return (seen = load(member, at)) >= value; });
  if (st != WaitStatus::Done)
    shmem::wait_failed(st, args.call, member == me_ || direct(member) ? mapped(&at, member) : &at,
                       strprintf("%s from PE %d (call %llu of its %s)", what, world(member),
                                 static_cast<unsigned long long>(tag_), team_ ? "team" : "active set"),
                       std::to_string(load(member, at)));
  return seen;
}

void Group::wait_readers(int readers, const char* what) {
  std::uint64_t target = static_cast<std::uint64_t>(readers);
  if (team_) target = team_->coll.done += target;
  std::atomic<std::uint64_t>& x = word(kDone);
  WaitStatus st = wait_for([&] { return x.load(std::memory_order_acquire) >= target; });
  if (st != WaitStatus::Done)
    shmem::wait_failed(st, args.call, &x,
                       strprintf("%d peers to %s (counter %llu)", readers, what,
                                 static_cast<unsigned long long>(target)),
                       std::to_string(x.load()));
}

void Group::get(void* dst, const void* src, std::size_t n, int member, bool stream) {
  if (n == 0) return;
  if (member == me_) return copy(dst, src, n, stream);
  if (direct(member)) return copy(dst, mapped(src, member), n, stream);
  const int pe = world(member);
  transport::Transport& t = g_runtime->transport(pe);
  try {
    t.get(pe, dst, src, n);
    t.quiet();  // a transport's get may complete later (the SDMA engine's do)
  } catch (const Error& e) {
    fatal_error(args.call, e);
  }
}

void Group::post_get(void* dst, const void* src, std::size_t n, int member, bool stream) {
  if (n == 0 || member == me_ || direct(member)) return get(dst, src, n, member, stream);
  const int pe = world(member);
  transport::Transport& t = g_runtime->transport(pe);
  try {
    t.get_nbi(pe, dst, src, n);
  } catch (const Error& e) {
    fatal_error(args.call, e);
  }
  if (std::find(posted_.begin(), posted_.end(), &t) == posted_.end()) posted_.push_back(&t);
}

void Group::complete_gets() {
  try {
    for (transport::Transport* t : posted_) t->quiet();
  } catch (const Error& e) {
    fatal_error(args.call, e);
  }
  posted_.clear();
}

const char* Group::view(const void* src, std::size_t n, int member, int buffer) {
  if (member == me_) return static_cast<const char*>(src);
  if (direct(member)) return mapped(static_cast<const char*>(src), member);
  std::vector<char>& stage = staging_[buffer];
  if (stage.size() < n) stage.resize(n);
  get(stage.data(), src, n, member);
  return stage.data();
}

char* Group::scratch() const {
  return g_runtime->coll_scratch(team_->slot, tag_);
}

void Group::claim(int slots) {
  const std::uint64_t lag = slots - 1;  // calls a member may lag behind me
  if (tag_ <= static_cast<std::uint64_t>(slots) || team_->coll.entered + lag >= tag_) return;
  // Remember the latest call every member was seen in, not just the one
  // needed now: a root that runs ahead then polls once every few calls.
  std::uint64_t entered = tag_;
  for (int k = 0; k < size_; ++k)
    if (k != me_) entered = std::min(entered, wait(k, kArrive, tag_ - lag, "its arrival in an earlier call (scratch reuse)"));
  team_->coll.entered = entered;
}

char* Group::my_record() const {
  return g_runtime->coll_lines(team_->slot) + ring_ * kLines * 64 + (tag_ & (records() - 1)) * kRecordBytes[ring_];
}

void Group::write_line(const void* src, std::size_t n) {
  std::memcpy(line_, src, n);
  line_tag().store(tag_, std::memory_order_release);
}

std::atomic<std::uint64_t>& Group::pushed(int k, bool led) const {
  shmem::CollWords& w = g_runtime->control().coll[team_->slot];
  return led ? w.led[k] : w.pushed[k];
}

void Group::raise_pushed(int member, bool led, std::uint64_t value, void* dst, const void* src, std::size_t n) {
  std::atomic<std::uint64_t>& mine = led ? pushed(host(me_), true) : pushed(me_);
  std::uint64_t& last = led ? team_->coll.led[host(member)] : team_->coll.pushed[member];
  const std::uint64_t delta = value - last;
  last = value;
  put_then_add(member, dst, src, n, mine, delta);
}

void Group::put_then_add(int member, void* dst, const void* src, std::size_t n, std::atomic<std::uint64_t>& at,
                         std::uint64_t v) {
  if (direct(member)) {
    if (n) std::memcpy(mapped(dst, member), src, n);
    mapped(&at, member)->fetch_add(v, std::memory_order_release);
    return;
  }
  const int pe = world(member);
  auto* word = reinterpret_cast<std::uint64_t*>(&at);
  try {
    if (n) g_runtime->transport(pe).put_signal(pe, dst, src, n, word, v, true);
    else g_runtime->atomics(pe).atomic(pe, AtomicOp::Notify, word, sizeof *word, v, 0);
  } catch (const Error& e) {
    fatal_error(args.call, e);
  }
}

void Group::ready(int member) { raise_pushed(member, false, 2 * tag_ - 1, nullptr, nullptr, 0); }

void Group::push(int member, void* dst, const void* src, std::size_t n) {
  raise_pushed(member, false, 2 * tag_, dst, src, n);
}

void Group::send(int member, void* dst, const void* src, std::size_t n) {
  if (n == 0) return;
  if (direct(member)) return copy(mapped(dst, member), src, n, false);
  const int pe = world(member);
  try {
    g_runtime->transport(pe).put(pe, dst, src, n);
  } catch (const Error& e) {
    fatal_error(args.call, e);
  }
}

void Group::wait_pushed(int k, bool led, std::uint64_t value, const char* what) const {
  std::atomic<std::uint64_t>& x = pushed(k, led);
  WaitStatus st = wait_for([&] { return x.load(std::memory_order_acquire) >= value; });
  if (st != WaitStatus::Done)
    shmem::wait_failed(st, args.call, &x,
                       strprintf("%s from PE %d (call %llu of its team: word value %llu)", what, world(led ? leader(k) : k),
                                 static_cast<unsigned long long>(tag_), static_cast<unsigned long long>(value)),
                       std::to_string(x.load()));
}

void Group::finish() {
  if (team_) return;
  for (int w = 0; w < kWords; ++w) word(static_cast<Word>(w)).store(0, std::memory_order_relaxed);
  std::memset(record(), 0, kRecordWords * sizeof(std::uint64_t));
}

}  // namespace tilecomm::coll
