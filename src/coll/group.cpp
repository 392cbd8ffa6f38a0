// The members of a collective call and their synchronisation words
// (NOTE [collective words], NOTE [scratch slots] in algorithm.hpp).
#include "coll/algorithm.hpp"
#include "core/error.hpp"

namespace tilecomm::coll {

using shmem::g_runtime;

thread_local std::vector<int> Group::pending_;

Group::Group(tilecomm_team& team, const Args& a)
    : args(a), shm_(g_runtime->shm()), team_(&team), start_(team.start), stride_(team.stride), size_(team.size),
      me_(team.my_pe), tag_(++team.coll.epoch), scratch_slot_(g_runtime->config().coll_scratch / kScratchSlots) {}

Group::Group(int start, int stride, int size, int me, long* psync, std::uint64_t tag, const Args& a)
    : args(a), shm_(g_runtime->shm()), psync_(psync), start_(start), stride_(stride), size_(size), me_(me),
      tag_(tag) {}

std::atomic<std::uint64_t>& Group::word(int member, Word w) const {
  if (team_) return g_runtime->control(world(member)).coll[team_->slot].word[w].value;
  auto* p = reinterpret_cast<std::uint64_t*>(peer(psync_ + kPsyncFirstWord + w * kPsyncWordStride, member));
  return *reinterpret_cast<std::atomic<std::uint64_t>*>(p);
}

std::uint64_t* Group::record(int member) const {
  if (team_) return g_runtime->control(world(member)).coll[team_->slot].record;
  return reinterpret_cast<std::uint64_t*>(peer(psync_ + kPsyncRecord, member));
}

void Group::wait(int member, Word w, std::uint64_t value, const char* what) const {
  std::atomic<std::uint64_t>& x = word(member, w);
  WaitStatus st = wait_for([&] { return x.load(std::memory_order_acquire) >= value; });
  if (st != WaitStatus::Done)
    shmem::wait_failed(st, args.call, &x,
                       strprintf("%s from PE %d (call %llu of its %s)", what, world(member),
                                 static_cast<unsigned long long>(tag_), team_ ? "team" : "active set"),
                       std::to_string(x.load()));
}

void Group::wait_readers(int readers) {
  std::uint64_t target = static_cast<std::uint64_t>(readers);
  if (team_) target = team_->coll.done += target;
  std::atomic<std::uint64_t>& x = word(me_, kDone);
  WaitStatus st = wait_for([&] { return x.load(std::memory_order_acquire) >= target; });
  if (st != WaitStatus::Done)
    shmem::wait_failed(st, args.call, &x,
                       strprintf("%d peers to finish reading this PE's data (counter %llu)", readers,
                                 static_cast<unsigned long long>(target)),
                       std::to_string(x.load()));
}

char* Group::scratch(int member) const {
  char* mine = g_runtime->coll_scratch(team_->slot) + (tag_ % kScratchSlots) * scratch_slot_;
  return member == me_ ? mine : peer(mine, member);
}

void Group::claim_scratch() {
  constexpr std::uint64_t lag = kScratchSlots - 1;  // calls a member may lag behind me
  if (tag_ <= kScratchSlots || team_->coll.entered + lag >= tag_) return;
  for (int k = 0; k < size_; ++k)
    if (k != me_) wait(k, kArrive, tag_ - lag, "its arrival in an earlier call (scratch reuse)");
  team_->coll.entered = tag_ - lag;
}

void Group::finish() {
  if (team_) return;
  for (int w = 0; w < kWords; ++w) word(me_, static_cast<Word>(w)).store(0, std::memory_order_relaxed);
  std::memset(record(me_), 0, kRecordWords * sizeof(std::uint64_t));
}

}  // namespace tilecomm::coll
